#include "report_snapshot.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report_cells.h"

static const char *pct(cell c, double f)
{
	return cg_fmt_percent(c, sizeof(cell), f);
}

static const cg_allocstate_device *state_of(const cg_analysis *a, uint32_t dv)
{
	if (!a->tl->snapshot || !a->allocstate || dv >= a->allocstate->ndevices)
		return NULL;
	return &a->allocstate->devices[dv];
}

void cg_report_snapshot_header(cg_doc *d, const cg_timeline *tl)
{
	const cg_snapshot *s = tl->snapshot;
	if (!s)
		return;
	char settings[1024] = "";
	size_t n = 0;
	for (size_t i = 0; i < s->nsettings && n < sizeof settings; i++) {
		const char *key = cg_timeline_str(tl, s->settings[i].key);
		if (!strcmp(key, "roundup_power2_divisions"))
			continue; /* a table of 16 numbers: in the run table below */
		n += (size_t)snprintf(settings + n, sizeof settings - n, "%s%s %s", n ? ", " : "", key,
				      cg_timeline_str(tl, s->settings[i].json));
	}
	cg_doc_note(d, "PyTorch CUDA allocator snapshot (%s, %s). Allocator settings: %s.",
		    s->list_form ? "the bare segment list" : "with its trace of the allocator's last events",
		    s->has_time ? "timed by time_us" : "no time_us: times are entry numbers",
		    n ? settings : "not recorded");
}

void cg_report_snapshot_callouts(cg_doc *d, const cg_analysis *a)
{
	for (uint32_t dv = 0; a->allocstate && dv < a->allocstate->ndevices; dv++) {
		const cg_allocstate_device *s = &a->allocstate->devices[dv];
		char verdict[768];
		if (s->oom_cause != CG_OOM_NONE)
			cg_doc_callout(d, "%s", cg_allocstate_verdict(s, verdict, sizeof verdict));
	}
}

/* Where a replay's peak was: "entry 1402", "before the first entry". */
static const char *at_entry(cell c, int64_t index)
{
	if (index < 0)
		snprintf(c, sizeof(cell), "before the first entry");
	else
		snprintf(c, sizeof(cell), "after entry %" PRId64, index);
	return c;
}

static void series_rows(cg_doc *d, const cg_allocstate_device *s)
{
	cg_doc_table(d, 5, "krrrr");
	ROW(d, "live bytes (requested)", "before the first entry", "peak", "where", "at the dump");
	static const char *const label[CG_SERIES_COUNT] = {
		"active: alloc to free_completed (memory_viz; cgmem's peak)",
		"allocated: alloc to free_requested (torch.cuda.memory_allocated)",
	};
	for (int k = 0; k < CG_SERIES_COUNT; k++) {
		const cg_snap_replay *r = &s->series[k];
		cell b, p, w, e;
		ROW(d, label[k], bytes_exact(b, r->before_first), bytes_exact(p, r->peak), at_entry(w, r->peak_index),
		    bytes_exact(e, r->at_end));
	}
	const cg_snap_reserved *rv = &s->reserved_trace;
	cell b, p, w, e;
	ROW(d, "reserved: segments (recorded)", bytes_exact(b, rv->before_first), bytes_exact(p, rv->max),
	    at_entry(w, rv->max_index), bytes_exact(e, rv->at_end));
}

static void consistency(cg_doc *d, const cg_allocstate_device *s)
{
	if (s->consistent) {
		cg_doc_note(d, "Every check holds: each segment's size is the sum of its blocks, its recorded sums "
			       "match, block addresses match, and replaying the trace from the reconstructed start "
			       "ends exactly at the segments.");
		return;
	}
	cg_doc_callout(d,
		       "The snapshot is not self-consistent: %" PRIu64 " segments whose size is not their blocks' sum, "
		       "%" PRIu64 " whose recorded sums differ, %" PRIu64 " block addresses off, and %" PRIu64
		       " trace entries that contradict the replay. Figures from the trace may be off by those entries.",
		       s->total_ne_blocks, s->sums_disagree, s->address_mismatch,
		       s->series[CG_SERIES_ACTIVE].issues + s->series[CG_SERIES_ALLOCATED].issues +
			       s->reserved_trace.issues);
}

static void largest_blocks(cg_doc *d, const cg_analysis *a, const cg_allocstate_device *s)
{
	const cg_timeline *tl = a->tl;
	if (!s->ntop_blocks)
		return;
	cg_doc_table(d, 4, "rrlp");
	ROW(d, "block", "requested", "state", "allocated at (innermost user frame)");
	for (uint32_t i = 0; i < s->ntop_blocks; i++) {
		const cg_snap_block *b = &tl->snapshot->blocks[s->top_blocks[i]];
		cell size, req;
		ROW(d, bytes(size, b->size), bytes(req, b->requested), cg_block_state_name((cg_block_state)b->state),
		    b->top_frame != CG_STR_EMPTY ? cg_timeline_str(tl, b->top_frame) : "(no frames recorded)");
	}
	cg_doc_note(d, "The %" PRIu32 " largest blocks in use at the dump.", s->ntop_blocks);
}

void cg_report_snapshot_section(cg_doc *d, const cg_analysis *a, uint32_t dv, const cg_chart_list *charts)
{
	const cg_allocstate_device *s = state_of(a, dv);
	if (!s)
		return;
	const cg_timeline *tl = a->tl;
	cg_doc_heading(d, 3, "The allocator at the snapshot");
	if (!s->has_segments) {
		cg_doc_paragraph(d, "The snapshot holds no segments for this device: its allocator held nothing.");
	} else {
		cell r, al, pe, fr, lg, w, rel;
		cg_doc_paragraph(
			d,
			"When the snapshot was taken the allocator held %s reserved in %" PRIu64 " segments (%" PRIu64
			" large, %" PRIu64 " small, %" PRIu64 " expandable): %s allocated, %s freed but still pending "
			"on a stream, %s free in its cache. The largest free block is %s. Rounding requests up to "
			"block sizes wastes %s; empty_cache() could return %s (%" PRIu64 " wholly free segments).",
			bytes_exact(r, s->reserved), s->segments, s->segments_by_pool[CG_POOL_LARGE],
			s->segments_by_pool[CG_POOL_SMALL], s->segments_expandable, bytes(al, s->allocated),
			bytes(pe, s->bytes_by_state[CG_BLOCK_PENDING]), bytes(fr, s->inactive), bytes(lg, s->largest_free),
			bytes(w, s->rounding_waste), bytes(rel, s->releasable), s->releasable_segments);
		cell f1, f2;
		cg_doc_paragraph(d,
				 "Fragmentation: %s of the reserved bytes are not allocated ((reserved − allocated) / "
				 "reserved); the largest free block is %s short of all free memory (1 − largest free / "
				 "free). Read the second with the free bytes: a small cache in a few blocks scores high "
				 "and matters little.",
				 pct(f1, s->frag_reserved), pct(f2, s->frag_largest));
	}
	if (s->oom_cause != CG_OOM_NONE) {
		char verdict[768];
		cg_doc_paragraph(d, "%s", cg_allocstate_verdict(s, verdict, sizeof verdict));
	}
	cg_report_figure(d, charts, tl, "segments", dv);
	largest_blocks(d, a, s);
	if (s->has_trace) {
		cg_doc_paragraph(d,
				 "The trace is a ring buffer of the allocator's last %" PRIu64 " events; what was "
				 "live before its first entry is reconstructed backwards from the blocks at the dump.",
				 s->entries);
		series_rows(d, s);
		const cg_replay_device *rp = a->replay ? &a->replay->devices[dv] : NULL;
		if (rp && rp->available) {
			/* the variant of the settings the run had */
			bool exp = tl->snapshot->expandable_segments;
			uint64_t estimate = exp ? rp->expandable.peak_reserved : rp->standard.peak_reserved;
			cell est, rec, diff;
			int64_t delta = (int64_t)(estimate - s->reserved_trace.max);
			cg_doc_note(d,
				    "cgmem's allocator replay (%s, with the recorded settings) estimates %s reserved "
				    "at most; the snapshot recorded %s, so the estimate is %s %s.",
				    exp ? "expandable segments" : "standard segments", bytes(est, estimate),
				    bytes(rec, s->reserved_trace.max), bytes(diff, (uint64_t)(delta < 0 ? -delta : delta)),
				    delta < 0 ? "under" : "over");
		}
	}
	consistency(d, s);
}

void cg_report_snapshot_run_rows(cg_doc *d, const cg_timeline *tl)
{
	const cg_snapshot *s = tl->snapshot;
	if (!s)
		return;
	char text[160];
	snprintf(text, sizeof text, "%s, %s blocks, %s", s->list_form ? "bare segment list" : "dict",
		 s->legacy_blocks ? "PyTorch 2.0 (history)" : "current", s->has_time ? "timed by time_us" :
		 "no time_us: times are entry numbers");
	ROW(d, "snapshot", text);
	for (size_t i = 0; i < s->nsettings; i++) {
		char key[200];
		snprintf(key, sizeof key, "allocator_settings.%s", cg_timeline_str(tl, s->settings[i].key));
		ROW(d, key, cg_timeline_str(tl, s->settings[i].json));
	}
}
