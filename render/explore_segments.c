#include <string.h>

#include "explore_data.h"
#include "jsonw.h"
#include "xalloc.h"

/* Segments and blocks embedded up to these many; the page says when more. */
#define EXPLORE_MAX_SEGMENTS 4000
#define EXPLORE_MAX_BLOCKS 60000

char *cg_explore_segments_json(const cg_analysis *a, uint32_t dv)
{
	const cg_timeline *tl = a->tl;
	const cg_snapshot *sn = tl->snapshot;
	if (!sn)
		return NULL;
	size_t nseg = 0, nblk = 0;
	for (size_t i = 0; i < sn->nsegments; i++)
		if (sn->segments[i].device == dv)
			nseg++, nblk += sn->segments[i].block_count;
	if (!nseg)
		return NULL;
	cg_sink *out = cg_sink_memory();
	cg_jw w;
	cg_jw_init(&w, out, false);
	cg_jw_object(&w);
	cg_jw_kv_u64(&w, "version", 1);
	cg_jw_kv_bool(&w, "segments_view", true);
	cg_jw_kv_string(&w, "device", cg_timeline_str(tl, tl->devices[dv].name));
	cg_jw_kv_u64(&w, "segment_count", nseg);
	cg_jw_kv_u64(&w, "block_count", nblk);
	cg_jw_key(&w, "states");
	cg_jw_array(&w);
	for (int s = 0; s < CG_BLOCK_STATE_COUNT; s++)
		cg_jw_string(&w, cg_block_state_name((cg_block_state)s));
	cg_jw_end(&w);
	/* Each segment: address, total size, pool, expandable, then its
	 * blocks as [offset, size, requested, state, frames, top frame]. */
	cg_jw_key(&w, "segments");
	cg_jw_array(&w);
	size_t seg = 0, blk = 0;
	for (size_t i = 0; i < sn->nsegments && seg < EXPLORE_MAX_SEGMENTS; i++) {
		const cg_snap_segment *s = &sn->segments[i];
		if (s->device != dv)
			continue;
		if (seg && blk + s->block_count > EXPLORE_MAX_BLOCKS)
			break;
		seg++;
		blk += s->block_count;
		cg_jw_array(&w);
		cg_jw_u64(&w, s->address);
		cg_jw_u64(&w, s->total_size);
		cg_jw_u64(&w, s->pool);
		cg_jw_bool(&w, s->expandable);
		cg_jw_array(&w);
		for (uint32_t b = 0; b < s->block_count; b++) {
			const cg_snap_block *k = &sn->blocks[s->block_first + b];
			cg_jw_u64(&w, k->address - s->address);
			cg_jw_u64(&w, k->size);
			cg_jw_u64(&w, k->requested);
			cg_jw_u64(&w, k->state);
			cg_jw_u64(&w, k->nframes);
			cg_jw_string(&w, cg_timeline_str(tl, k->top_frame));
		}
		cg_jw_end(&w);
		cg_jw_end(&w);
	}
	cg_jw_end(&w);
	cg_jw_kv_u64(&w, "segments_embedded", seg);
	cg_jw_end(&w);
	size_t len;
	char *json = cg_strdup(cg_sink_data(out, &len));
	cg_sink_close(out, NULL);
	return json;
}

void cg_explore_segments(cg_doc *d, const cg_analysis *a, uint32_t dv)
{
	char *json = cg_explore_segments_json(a, dv);
	if (!json)
		return;
	cg_doc_data(d, "cgx-data", json);
	cg_free(json);
}
