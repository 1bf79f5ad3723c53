/* summary.json for allocator snapshots: the top-level "snapshot" object
 * and each device's "allocator_state" (docs/summary-format.md). */
#include "summary_allocstate.h"

#include "units.h"

static void count_bytes(cg_jw *w, const char *key, uint64_t count, uint64_t bytes)
{
	cg_jw_key(w, key);
	cg_jw_object(w);
	cg_jw_kv_u64(w, "count", count);
	cg_jw_kv_u64(w, "bytes", bytes);
	cg_jw_end(w);
}

static void entry_at(cg_jw *w, const char *key, uint64_t bytes, int64_t index, uint64_t t_ns, bool has_time)
{
	cg_jw_key(w, key);
	cg_jw_object(w);
	cg_jw_kv_u64(w, "bytes", bytes);
	cg_jw_key(w, "entry_index");
	cg_jw_i64(w, index);
	cg_jw_key(w, "time_ns");
	if (index >= 0 && has_time)
		cg_jw_u64(w, t_ns);
	else
		cg_jw_null(w);
	cg_jw_end(w);
}

static void series(cg_jw *w, const char *key, const cg_snap_replay *r, bool has_time)
{
	cg_jw_key(w, key);
	cg_jw_object(w);
	cg_jw_kv_u64(w, "before_first_bytes", r->before_first);
	entry_at(w, "peak", r->peak, r->peak_index, r->peak_t_ns, has_time);
	cg_jw_kv_u64(w, "at_end_bytes", r->at_end);
	cg_jw_kv_u64(w, "end_segments_bytes", r->end_segments);
	cg_jw_kv_bool(w, "end_matches", r->end_matches);
	cg_jw_kv_u64(w, "issues", r->issues);
	cg_jw_end(w);
}

static void write_trace(cg_jw *w, const cg_analysis *a, const cg_allocstate_device *d)
{
	const cg_snapshot *s = a->tl->snapshot;
	cg_jw_key(w, "trace");
	if (!d->has_trace) {
		cg_jw_null(w);
		return;
	}
	cg_jw_object(w);
	cg_jw_kv_u64(w, "entries", d->entries);
	cg_jw_key(w, "actions");
	cg_jw_object(w);
	for (int k = 0; k < CG_SNAP_ACTION_COUNT; k++)
		if (d->entries_by_action[k])
			cg_jw_kv_u64(w, cg_snap_action_name((cg_snap_action)k), d->entries_by_action[k]);
	cg_jw_kv_u64(w, "unknown", s->devices[d->device].unknown_actions);
	cg_jw_end(w);
	cg_jw_kv_string(w, "time", s->has_time ? "time_us" : "entry index");
	series(w, "active", &d->series[CG_SERIES_ACTIVE], s->has_time);
	series(w, "allocated", &d->series[CG_SERIES_ALLOCATED], s->has_time);
	cg_jw_kv_u64(w, "memory_viz_max_bytes", d->memviz_max);
	const cg_snap_reserved *rv = &d->reserved_trace;
	cg_jw_key(w, "reserved");
	cg_jw_object(w);
	cg_jw_kv_u64(w, "segment_events", rv->events);
	cg_jw_kv_u64(w, "before_first_bytes", rv->before_first);
	entry_at(w, "max", rv->max, rv->max_index, rv->max_t_ns, s->has_time);
	cg_jw_kv_u64(w, "at_end_bytes", rv->at_end);
	cg_jw_kv_u64(w, "end_segments_bytes", rv->end_segments);
	cg_jw_kv_bool(w, "end_matches", rv->end_matches);
	cg_jw_kv_u64(w, "issues", rv->issues);
	/* the allocator replay's estimate, in the variant of the recorded
	 * settings, beside the recorded value */
	const cg_replay_device *rp = &a->replay->devices[d->device];
	uint64_t estimate = s->expandable_segments ? rp->expandable.peak_reserved : rp->standard.peak_reserved;
	cg_jw_key(w, "replay_estimate_bytes");
	if (rp->available)
		cg_jw_u64(w, estimate);
	else
		cg_jw_null(w);
	cg_jw_key(w, "replay_minus_recorded_bytes");
	if (rp->available)
		cg_jw_i64(w, (int64_t)(estimate - rv->max));
	else
		cg_jw_null(w);
	cg_jw_end(w);
	cg_jw_end(w);
}

static void write_blocks(cg_jw *w, const cg_analysis *a, const cg_allocstate_device *d)
{
	const cg_timeline *tl = a->tl;
	cg_jw_key(w, "largest_blocks");
	cg_jw_array(w);
	for (uint32_t i = 0; i < d->ntop_blocks; i++) {
		const cg_snap_block *b = &tl->snapshot->blocks[d->top_blocks[i]];
		cg_jw_object(w);
		cg_jw_kv_u64(w, "bytes", b->size);
		cg_jw_kv_u64(w, "requested_bytes", b->requested);
		cg_jw_kv_u64(w, "address", b->address);
		cg_jw_kv_string(w, "state", cg_block_state_name((cg_block_state)b->state));
		cg_jw_key(w, "top_frame");
		if (b->top_frame != CG_STR_EMPTY)
			cg_jw_string(w, cg_timeline_str(tl, b->top_frame));
		else
			cg_jw_null(w);
		cg_jw_kv_u64(w, "frames", b->nframes);
		cg_jw_end(w);
	}
	cg_jw_end(w);
}

static void write_oom(cg_jw *w, const cg_allocstate_device *d)
{
	cg_jw_key(w, "oom");
	if (d->oom_cause == CG_OOM_NONE) {
		cg_jw_null(w);
		return;
	}
	char verdict[768];
	cg_jw_object(w);
	cg_jw_kv_u64(w, "entries", d->oom_count);
	cg_jw_kv_u64(w, "entry_index", d->oom_index);
	cg_jw_kv_u64(w, "request_bytes", d->oom_request);
	cg_jw_kv_u64(w, "device_free_bytes", d->oom_device_free);
	cg_jw_kv_string(w, "cause", d->oom_cause == CG_OOM_FRAGMENTATION ? "fragmentation" : "total_size");
	cg_jw_kv_bool(w, "fits_with_expandable_segments", d->oom_fits_expandable);
	cg_jw_kv_string(w, "verdict", cg_allocstate_verdict(d, verdict, sizeof verdict));
	cg_jw_end(w);
}

void cg_summary_json_allocator_state(cg_jw *w, const cg_analysis *a, uint32_t dev)
{
	if (!a->tl->snapshot || !a->allocstate || dev >= a->allocstate->ndevices)
		return;
	const cg_allocstate_device *d = &a->allocstate->devices[dev];
	cg_jw_key(w, "allocator_state");
	cg_jw_object(w);
	cg_jw_key(w, "segments");
	cg_jw_object(w);
	cg_jw_kv_u64(w, "count", d->segments);
	for (int p = CG_POOL_LARGE; p <= CG_POOL_OTHER; p++)
		cg_jw_kv_u64(w, cg_segment_pool_name((cg_segment_pool)p), d->segments_by_pool[p]);
	cg_jw_kv_u64(w, "expandable", d->segments_expandable);
	cg_jw_end(w);
	cg_jw_key(w, "blocks");
	cg_jw_object(w);
	cg_jw_kv_u64(w, "count", d->blocks);
	for (int st = 0; st < CG_BLOCK_STATE_COUNT; st++)
		count_bytes(w, cg_block_state_name((cg_block_state)st), d->blocks_by_state[st], d->bytes_by_state[st]);
	cg_jw_end(w);
	cg_jw_kv_u64(w, "reserved_bytes", d->reserved);
	cg_jw_kv_u64(w, "allocated_bytes", d->allocated);
	cg_jw_kv_u64(w, "active_bytes", d->active);
	cg_jw_kv_u64(w, "inactive_bytes", d->inactive);
	cg_jw_kv_u64(w, "allocated_requested_bytes", d->allocated_requested);
	cg_jw_kv_u64(w, "active_requested_bytes", d->active_requested);
	cg_jw_kv_u64(w, "rounding_waste_bytes", d->rounding_waste);
	cg_jw_key(w, "largest_free_block");
	if (d->largest_free_block != CG_NONE) {
		cg_jw_object(w);
		cg_jw_kv_u64(w, "bytes", d->largest_free);
		cg_jw_kv_u64(w, "address", d->largest_free_address);
		cg_jw_end(w);
	} else {
		cg_jw_null(w);
	}
	cg_jw_kv_double(w, "fragmentation_reserved", d->frag_reserved);
	cg_jw_key(w, "fragmentation_largest_free");
	if (d->inactive)
		cg_jw_double(w, d->frag_largest);
	else
		cg_jw_null(w);
	cg_jw_kv_u64(w, "releasable_bytes", d->releasable);
	cg_jw_kv_u64(w, "releasable_segments", d->releasable_segments);
	cg_jw_key(w, "checks");
	cg_jw_object(w);
	cg_jw_kv_u64(w, "total_size_ne_blocks", d->total_ne_blocks);
	cg_jw_kv_u64(w, "recorded_sums_disagree", d->sums_disagree);
	cg_jw_kv_u64(w, "block_address_mismatch", d->address_mismatch);
	cg_jw_end(w);
	cg_jw_kv_bool(w, "consistent", d->consistent);
	write_blocks(w, a, d);
	write_trace(w, a, d);
	write_oom(w, d);
	cg_jw_end(w);
}

void cg_summary_json_snapshot(cg_jw *w, const cg_timeline *tl)
{
	const cg_snapshot *s = tl->snapshot;
	if (!s)
		return;
	cg_jw_key(w, "snapshot");
	cg_jw_object(w);
	cg_jw_kv_u64(w, "pickle_protocol", (uint64_t)s->protocol);
	cg_jw_kv_string(w, "form", s->list_form ? "segment list" : "dict");
	cg_jw_kv_string(w, "block_layout", s->legacy_blocks ? "legacy" : "current");
	cg_jw_kv_bool(w, "has_time", s->has_time);
	cg_jw_kv_u64(w, "memo_puts", s->memo_puts);
	cg_jw_kv_u64(w, "memo_gets", s->memo_gets);
	cg_jw_kv_u64(w, "unknown_keys", s->unknown_keys);
	cg_jw_kv_u64(w, "unknown_block_states", s->unknown_states);
	cg_jw_kv_u64(w, "strings_not_utf8", s->strings_not_utf8);
	cg_jw_kv_u64(w, "external_annotations", s->annotations);
	cg_jw_key(w, "allocator_settings");
	cg_jw_object(w);
	for (size_t i = 0; i < s->nsettings; i++) {
		const char *json = cg_timeline_str(tl, s->settings[i].json);
		cg_jw_key(w, cg_timeline_str(tl, s->settings[i].key));
		cg_jw_raw(w, json, cg_strtab_len(tl->strings, s->settings[i].json));
	}
	cg_jw_end(w);
	cg_jw_end(w);
}
