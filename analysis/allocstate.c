#include "allocstate.h"

#include <stdio.h>
#include <string.h>

#include "checked.h"
#include "units.h"
#include "xalloc.h"

/* Keeps block k among the CG_ALLOCSTATE_TOP largest active blocks. */
static void consider_top(const cg_snapshot *s, cg_allocstate_device *out, uint32_t k)
{
	const cg_snap_block *b = &s->blocks[k];
	uint32_t n = out->ntop_blocks, at = n;
	while (at > 0) {
		const cg_snap_block *o = &s->blocks[out->top_blocks[at - 1]];
		if (o->size > b->size || (o->size == b->size && o->address <= b->address))
			break;
		at--;
	}
	if (at >= CG_ALLOCSTATE_TOP)
		return;
	if (n == CG_ALLOCSTATE_TOP)
		n--;
	memmove(out->top_blocks + at + 1, out->top_blocks + at, (n - at) * sizeof *out->top_blocks);
	out->top_blocks[at] = k;
	out->ntop_blocks = n + 1;
}

/* Sums a device's segments and blocks (docs/snapshot-format.md §3, §4, §10). */
static void sum_segments(const cg_snapshot *s, const cg_snap_device *dev, cg_allocstate_device *out)
{
	out->largest_free_block = CG_NONE;
	out->has_segments = dev->seg_count > 0;
	out->segments = dev->seg_count;
	for (uint32_t g = dev->seg_first; g < dev->seg_first + dev->seg_count; g++) {
		const cg_snap_segment *seg = &s->segments[g];
		out->segments_by_pool[seg->pool]++;
		out->segments_expandable += seg->expandable;
		out->reserved += seg->total_size;
		uint64_t total = 0, alloc = 0, active = 0, req = 0, address = seg->address;
		bool all_free = seg->block_count > 0;
		for (uint32_t k = seg->block_first; k < seg->block_first + seg->block_count; k++) {
			const cg_snap_block *b = &s->blocks[k];
			out->blocks++;
			out->blocks_by_state[b->state]++;
			out->bytes_by_state[b->state] += b->size;
			out->address_mismatch += b->address != address;
			address += b->size;
			total += b->size;
			if (b->state == CG_BLOCK_ALLOCATED || b->state == CG_BLOCK_PENDING) {
				consider_top(s, out, k);
				active += b->size;
				req += b->requested;
				out->active_requested += b->requested;
				out->rounding_waste += b->size - b->requested;
				if (b->state == CG_BLOCK_ALLOCATED) {
					alloc += b->size;
					out->allocated_requested += b->requested;
				}
			}
			if (b->state != CG_BLOCK_INACTIVE)
				all_free = false;
			else if (out->largest_free_block == CG_NONE || b->size > out->largest_free ||
				 (b->size == out->largest_free && b->address < out->largest_free_address)) {
				out->largest_free = b->size;
				out->largest_free_address = b->address;
				out->largest_free_block = k;
			}
		}
		out->total_ne_blocks += total != seg->total_size;
		if (seg->has_sums)
			out->sums_disagree += seg->allocated_size != alloc || seg->active_size != active ||
					      seg->requested_size != req;
		if (all_free) {
			out->releasable += seg->total_size;
			out->releasable_segments++;
		}
	}
	out->allocated = out->bytes_by_state[CG_BLOCK_ALLOCATED];
	out->active = out->allocated + out->bytes_by_state[CG_BLOCK_PENDING];
	out->inactive = out->bytes_by_state[CG_BLOCK_INACTIVE];
	out->frag_reserved = out->reserved ? (double)(out->reserved - out->allocated) / (double)out->reserved : 0;
	if (out->allocated > out->reserved)
		out->frag_reserved = 0;
	out->frag_largest = out->inactive ? 1.0 - (double)out->largest_free / (double)out->inactive : 0;
}

/* The last oom entry, and what stopped it: the request against what the
 * device had free plus what the allocator held cached. */
static void judge_oom(const cg_snapshot *s, const cg_snap_device *dev, cg_allocstate_device *out)
{
	const cg_snap_entry *e = s->entries + dev->entry_first;
	for (uint32_t k = 0; k < dev->entry_count; k++)
		if (e[k].action == CG_SNAP_OOM) {
			out->oom_count++;
			out->oom_index = e[k].index;
			out->oom_request = e[k].size;
			out->oom_device_free = e[k].addr;
		}
	if (!out->oom_count)
		return;
	uint64_t free_total;
	if (!cg_add_u64(out->oom_device_free, out->inactive, &free_total))
		free_total = UINT64_MAX;
	out->oom_cause = free_total >= out->oom_request ? CG_OOM_FRAGMENTATION : CG_OOM_TOTAL_SIZE;
	out->oom_fits_expandable = out->oom_cause == CG_OOM_FRAGMENTATION && !s->expandable_segments;
}

static void one_device(const cg_timeline *tl, uint32_t d, cg_allocstate_device *out)
{
	const cg_snapshot *s = tl->snapshot;
	const cg_snap_device *dev = &s->devices[d];
	memset(out, 0, sizeof *out);
	out->device = (uint16_t)d;
	sum_segments(s, dev, out);
	out->has_trace = dev->has_trace;
	out->entries = dev->trace_entries;
	/* the reader replayed the trace once (snapshot.h, cg_snap_device) */
	memcpy(out->entries_by_action, dev->entries_by_action, sizeof out->entries_by_action);
	memcpy(out->series, dev->series, sizeof out->series);
	out->reserved_trace = dev->reserved;
	out->memviz_max = dev->memviz_max;
	judge_oom(s, dev, out);
	out->consistent = !out->total_ne_blocks && !out->sums_disagree && !out->address_mismatch;
	for (int series = 0; series < CG_SERIES_COUNT; series++)
		out->consistent &= out->series[series].end_matches && !out->series[series].issues;
	out->consistent &= out->reserved_trace.end_matches && !out->reserved_trace.issues;
}

int cg_allocstate_run(cg_allocstate_result **out, const cg_timeline *tl, cg_error *err)
{
	(void)err; /* nothing here can fail: the reader did the replays */
	cg_allocstate_result *r = cg_calloc(1, sizeof *r);
	*out = NULL;
	if (tl->snapshot) {
		r->ndevices = tl->snapshot->ndevices;
		r->devices = cg_calloc(r->ndevices ? r->ndevices : 1, sizeof *r->devices);
		for (uint32_t d = 0; d < r->ndevices; d++)
			one_device(tl, d, &r->devices[d]);
	}
	*out = r;
	return 0;
}

void cg_allocstate_free(cg_allocstate_result *r)
{
	if (!r)
		return;
	cg_free(r->devices);
	cg_free(r);
}

char *cg_allocstate_verdict(const cg_allocstate_device *d, char *buf, size_t size)
{
	char req[32], dfree[32], cached[32], largest[32], alloc[32], reserved[32];
	if (!size)
		return buf;
	buf[0] = 0;
	if (d->oom_cause == CG_OOM_NONE)
		return buf;
	cg_fmt_bytes(req, sizeof req, d->oom_request);
	cg_fmt_bytes(dfree, sizeof dfree, d->oom_device_free);
	cg_fmt_bytes(cached, sizeof cached, d->inactive);
	cg_fmt_bytes(largest, sizeof largest, d->largest_free);
	cg_fmt_bytes(alloc, sizeof alloc, d->allocated);
	cg_fmt_bytes(reserved, sizeof reserved, d->reserved);
	if (d->oom_cause == CG_OOM_FRAGMENTATION)
		snprintf(buf, size,
			 "The run asked for %s with %s free on the device; the allocator held %s reserved but "
			 "unused, the largest free block %s: fragmentation, not total size, stopped it%s",
			 req, dfree, cached, largest,
			 d->oom_fits_expandable ? " — with expandable_segments the request would have fitted."
						: ".");
	else
		snprintf(buf, size,
			 "The run asked for %s with %s free on the device and %s cached free in the allocator "
			 "(largest block %s): even together that is less than the request, so total size, not "
			 "fragmentation, stopped it; %s of the %s reserved were allocated.",
			 req, dfree, cached, largest, alloc, reserved);
	return buf;
}
