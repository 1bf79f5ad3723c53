/* A snapshot's timeline written out field by field (records, strings,
 * spans, devices, diagnostics, the cg_snapshot's entries, segments,
 * blocks, devices and settings), so that two readings can be compared
 * with one memcmp: the fast and the general trace-entry readers
 * (tests/ingest/test_snapshot_paths.c, fuzz_snapshot_paths.c) must give
 * the same bytes. Header only, no test framework. */
#ifndef CG_SNAP_DIGEST_H
#define CG_SNAP_DIGEST_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"
#include "timeline.h"

typedef struct snap_digest {
	unsigned char *d;
	size_t n, cap;
} snap_digest;

static void dg_put(snap_digest *g, const void *p, size_t n)
{
	if (g->n + n > g->cap) {
		g->cap = (g->n + n) * 2 + 256;
		g->d = realloc(g->d, g->cap);
		if (!g->d)
			abort();
	}
	if (n)
		memcpy(g->d + g->n, p, n);
	g->n += n;
}

static void dg_u64(snap_digest *g, uint64_t v) { dg_put(g, &v, sizeof v); }

static void dg_str(snap_digest *g, const char *s)
{
	size_t n = s ? strlen(s) : (size_t)-1;
	dg_u64(g, n);
	if (s)
		dg_put(g, s, n);
}

static void dg_strtab(snap_digest *g, const cg_strtab *t)
{
	dg_u64(g, cg_strtab_count(t));
	for (cg_str id = 0; id < cg_strtab_count(t); id++) {
		size_t n = cg_strtab_len(t, id);
		dg_u64(g, n);
		dg_put(g, cg_strtab_get(t, id), n);
	}
}

#define DG(x) dg_u64(g, (uint64_t)(x))

static void dg_snapshot(snap_digest *g, const cg_snapshot *s)
{
	DG(s->nentries);
	for (size_t i = 0; i < s->nentries; i++) {
		const cg_snap_entry *e = &s->entries[i];
		DG(e->t_ns); DG(e->addr); DG(e->size); DG(e->index); DG(e->device); DG(e->action);
	}
	DG(s->nsegments);
	for (size_t i = 0; i < s->nsegments; i++) {
		const cg_snap_segment *e = &s->segments[i];
		DG(e->address); DG(e->total_size); DG(e->allocated_size); DG(e->active_size);
		DG(e->requested_size); DG(e->stream); DG(e->block_first); DG(e->block_count);
		DG(e->device); DG(e->pool); DG(e->expandable); DG(e->has_sums);
	}
	DG(s->nblocks);
	for (size_t i = 0; i < s->nblocks; i++) {
		const cg_snap_block *b = &s->blocks[i];
		DG(b->address); DG(b->size); DG(b->requested); DG(b->top_frame); DG(b->nframes); DG(b->state);
	}
	DG(s->ndevices);
	for (uint32_t d = 0; d < s->ndevices; d++) {
		const cg_snap_device *v = &s->devices[d];
		DG(v->seg_first); DG(v->seg_count); DG(v->entry_first); DG(v->entry_count);
		DG(v->trace_entries); DG(v->unknown_actions); DG(v->with_frames); DG(v->has_trace);
		for (int k = 0; k < CG_SERIES_COUNT; k++) {
			const cg_snap_replay *r = &v->series[k];
			DG(r->before_first); DG(r->peak); DG(r->peak_index); DG(r->peak_t_ns);
			DG(r->at_end); DG(r->end_segments); DG(r->issues); DG(r->end_matches);
		}
		const cg_snap_reserved *r = &v->reserved;
		DG(r->before_first); DG(r->max); DG(r->max_index); DG(r->max_t_ns); DG(r->at_end);
		DG(r->end_segments); DG(r->issues); DG(r->end_matches); DG(r->events);
	}
	DG(s->protocol); DG(s->list_form); DG(s->legacy_blocks); DG(s->has_time);
	DG(s->memo_puts); DG(s->memo_gets); DG(s->unknown_keys); DG(s->unknown_states);
	DG(s->strings_not_utf8); DG(s->annotations);
	DG(s->nsettings);
	for (size_t i = 0; i < s->nsettings; i++) {
		DG(s->settings[i].key);
		DG(s->settings[i].json);
	}
	DG(s->expandable_segments); DG(s->max_split_size);
}

/* Everything the snapshot reader sets in tl, appended to *g. */
static void snap_digest_of(snap_digest *g, const cg_timeline *tl)
{
	dg_strtab(g, tl->strings);
	dg_strtab(g, tl->shapes);
	DG(tl->nmem);
	for (size_t i = 0; i < tl->nmem; i++) {
		const cg_mem *m = &tl->mem[i];
		DG(m->t_ns); DG(m->bytes); DG(m->tensor.v); DG(m->span); DG(cg_timeline_mem_op(tl, m)); DG(cg_timeline_mem_shape(tl, m)); DG(m->pair);
		DG(m->line); DG(cg_timeline_mem_device(tl, m)); DG(m->action); DG(m->category); DG(cg_timeline_mem_dtype(tl, m)); DG(m->flags);
	}
	DG(tl->nspans);
	for (size_t i = 0; i < tl->nspans; i++) {
		const cg_span *s = &tl->spans[i];
		DG(s->start_ns); DG(s->end_ns); DG(s->id); DG(s->name); DG(s->parent); DG(s->line);
		DG(s->depth); DG(s->kind); DG(s->step); DG(s->phase); DG(s->flags);
	}
	DG(tl->ndevmem);
	for (size_t i = 0; i < tl->ndevmem; i++) {
		DG(tl->devmem[i].t_ns); DG(tl->devmem[i].used_bytes); DG(tl->devmem[i].free_bytes);
		DG(tl->devmem[i].reserved_bytes);
	}
	DG(tl->ndevices);
	for (uint32_t d = 0; d < tl->ndevices; d++) {
		const cg_device *v = &tl->devices[d];
		DG(v->name); DG(v->mem_first); DG(v->mem_count); DG(v->devmem_count);
		DG(v->preexisting_bytes); DG(v->preexisting_count); DG(v->baseline_bytes);
		dg_put(g, v->initial_by_cat, sizeof v->initial_by_cat);
		DG(v->live_at_end); DG(v->live_count_at_end);
	}
	DG(tl->first_t_ns); DG(tl->last_t_ns);
	const cg_source *src = &tl->source;
	dg_str(g, src->format);
	DG(src->gzip); DG(src->lines); DG(src->bad_lines); DG(src->warnings); DG(src->truncated);
	DG(src->file_bytes); DG(src->data_bytes);
	dg_put(g, src->records, sizeof src->records);
	DG(src->ndiags);
	for (size_t i = 0; i < src->ndiags; i++) {
		DG(src->diags[i].line);
		DG(src->diags[i].kind);
		dg_str(g, src->diags[i].msg);
	}
	for (int a = 0; a < CG_ANOM_COUNT; a++) {
		DG(tl->anomalies[a].count);
		DG(tl->anomalies[a].nexamples);
		for (uint32_t i = 0; i < tl->anomalies[a].nexamples; i++)
			dg_str(g, tl->anomalies[a].examples[i]);
	}
	DG(tl->snapshot != NULL);
	if (tl->snapshot)
		dg_snapshot(g, tl->snapshot);
}

#undef DG

#endif
