/* The snapshot model's reconstructions (src/model/snapshot.c) on small
 * snapshots built by hand, each worked out on paper in its comment. */
#include "testutil.h"

#include <string.h>

#include "snapshot.h"
#include "timeline.h"
#include "units.h"
#include "xalloc.h"

/* One device, one segment at 0x1000 holding blocks of the given sizes and
 * states (each requesting 24 B less than its size), and a trace. */
static cg_snapshot *one_device(const uint64_t *sizes, const uint8_t *states, size_t nb, const cg_snap_entry *e,
			       size_t ne)
{
	cg_snapshot *s = cg_snapshot_new();
	s->ndevices = 1;
	s->devices = cg_calloc(1, sizeof *s->devices);
	s->nsegments = 1;
	s->segments = cg_calloc(1, sizeof *s->segments);
	s->blocks = cg_calloc(nb, sizeof *s->blocks);
	s->nblocks = nb;
	uint64_t addr = 0x1000, total = 0;
	for (size_t i = 0; i < nb; i++) {
		s->blocks[i] = (cg_snap_block){addr, sizes[i], sizes[i] - 24, CG_STR_EMPTY, 0, states[i]};
		addr += sizes[i];
		total += sizes[i];
	}
	s->segments[0] = (cg_snap_segment){0x1000, total, 0, 0, 0, 0, 0, (uint32_t)nb, 0, CG_POOL_SMALL, false, false};
	s->devices[0] = (cg_snap_device){.seg_count = 1, .entry_count = (uint32_t)ne, .trace_entries = ne, .has_trace = true};
	s->entries = cg_malloc((ne ? ne : 1) * sizeof *s->entries);
	memcpy(s->entries, e, ne * sizeof *e);
	s->nentries = ne;
	for (size_t i = 0; i < ne; i++)
		s->entries[i].index = (uint32_t)i;
	return s;
}

#define ENTRY(action, addr, size) {(uint64_t)0, (addr), (size), 0, 0, (action)}

/* Blocks at the end: A 0x1000 (1,024 B, 1,000 requested, allocated), B
 * 0x1400 (1,024, pending), C 0x1800 (2,048, free). Trace: alloc D 0x2000
 * 500; alloc B 1,000; free_requested B; free_completed D; free_completed
 * 0x3000 (300 B, allocated before the trace).
 * Active (ends at free_completed), backwards from {A 1000, B 1000}:
 * undo free_completed 0x3000 -> +300 (2,300); undo free_completed D ->
 * +500 (2,800); undo alloc B -> -1,000 (1,800); undo alloc D -> -500:
 * 1,300 before the first entry. After each entry: 1,800, 2,800, 2,800,
 * 2,300, 2,000: the peak 2,800 after entry 1.
 * Allocated (ends at free_requested), from {A 1000}: undo free_requested B
 * -> 2,000; undo alloc B -> 1,000; undo alloc D finds D not live (no
 * free_requested ended it): an issue. 1,000 before the first entry; after
 * each entry 1,000, 2,000, 1,000, 1,000, 1,000: the peak 2,000 after
 * entry 1. Forward from {A}, D is never ended: 1,500 at the end against
 * the segments' 1,000, so the replay does not end at the segments. */
static void both_series_are_rebuilt_backwards(void **state)
{
	static const uint64_t sizes[] = {1024, 1024, 2048};
	static const uint8_t states[] = {CG_BLOCK_ALLOCATED, CG_BLOCK_PENDING, CG_BLOCK_INACTIVE};
	static const cg_snap_entry e[] = {
		ENTRY(CG_SNAP_ALLOC, 0x2000, 500),	     ENTRY(CG_SNAP_ALLOC, 0x1400, 1000),
		ENTRY(CG_SNAP_FREE_REQUESTED, 0x1400, 1000), ENTRY(CG_SNAP_FREE_COMPLETED, 0x2000, 500),
		ENTRY(CG_SNAP_FREE_COMPLETED, 0x3000, 300),
	};
	cg_snapshot *s = one_device(sizes, states, 3, e, 5);
	cg_snap_replay r;
	assert_int_equal(cg_snapshot_replay(s, 0, CG_SERIES_ACTIVE, &r, NULL), 0);
	assert_int_equal(r.end_segments, 2000);
	assert_int_equal(r.before_first, 1300);
	assert_int_equal(r.peak, 2800);
	assert_int_equal(r.peak_index, 1);
	assert_int_equal(r.at_end, 2000);
	assert_true(r.end_matches);
	assert_int_equal(r.issues, 0);
	assert_int_equal(cg_snapshot_replay(s, 0, CG_SERIES_ALLOCATED, &r, NULL), 0);
	assert_int_equal(r.end_segments, 1000);
	assert_int_equal(r.before_first, 1000);
	assert_int_equal(r.peak, 2000);
	assert_int_equal(r.peak_index, 1);
	assert_int_equal(r.at_end, 1000);
	assert_int_equal(r.issues, 1);
	assert_false(r.end_matches);
	cg_snapshot_free(s);
}

/* A lone free_completed (the PyTorch 2.0 files with a one-entry buffer):
 * block A (1,000 requested) live at the end, trace: free_completed of
 * 0x3000 (50 B). Active: 1,050 before the entry, 1,000 after: the peak
 * is before the first entry (index -1). memory_viz takes its maximum only
 * after an action: 1,050 seeded, 1,000 after the free, so 1,000. */
static void a_peak_before_the_first_entry_and_memory_viz(void **state)
{
	static const uint64_t sizes[] = {1024};
	static const uint8_t states[] = {CG_BLOCK_ALLOCATED};
	static const cg_snap_entry e[] = {ENTRY(CG_SNAP_FREE_COMPLETED, 0x3000, 50)};
	cg_snapshot *s = one_device(sizes, states, 1, e, 1);
	cg_snap_replay r;
	assert_int_equal(cg_snapshot_replay(s, 0, CG_SERIES_ACTIVE, &r, NULL), 0);
	assert_int_equal(r.before_first, 1050);
	assert_int_equal(r.peak, 1050);
	assert_int_equal(r.peak_index, -1);
	assert_int_equal(r.at_end, 1000);
	assert_true(r.end_matches);
	assert_int_equal(cg_snapshot_memviz_max(s, 0), 1000);
	/* A was never allocated in the trace: it was live all along */
	uint32_t *blocks;
	assert_int_equal(cg_snapshot_blocks_before_trace(s, 0, &blocks), 1);
	assert_int_equal(blocks[0], 0);
	cg_free(blocks);
	cg_snapshot_free(s);
}

/* Reserved bytes: the final segment is [0x1000, 0x1000 + 4,096). Trace:
 * segment_alloc [0x9000, +8,192), segment_free of it, segment_map
 * [0x1000, +4,096). Backwards from 4,096: undo the map -> 0; undo the
 * free -> 8,192; undo the alloc -> 0. Before the first entry 0, after
 * each 8,192, 0, 4,096: the maximum 8,192 after entry 0. Undoing a free
 * of a range that is reserved is an inconsistency. */
static void reserved_bytes_are_rebuilt_from_segment_events(void **state)
{
	static const uint64_t sizes[] = {4096};
	static const uint8_t states[] = {CG_BLOCK_INACTIVE};
	static const cg_snap_entry e[] = {
		ENTRY(CG_SNAP_SEGMENT_ALLOC, 0x9000, 8192),
		ENTRY(CG_SNAP_SEGMENT_FREE, 0x9000, 8192),
		ENTRY(CG_SNAP_SEGMENT_MAP, 0x1000, 4096),
	};
	cg_snapshot *s = one_device(sizes, states, 1, e, 3);
	cg_snap_reserved r;
	assert_int_equal(cg_snapshot_reserved(s, 0, &r, NULL), 0);
	assert_int_equal(r.end_segments, 4096);
	assert_int_equal(r.before_first, 0);
	assert_int_equal(r.max, 8192);
	assert_int_equal(r.max_index, 0);
	assert_int_equal(r.at_end, 4096);
	assert_int_equal(r.events, 3);
	assert_true(r.end_matches);
	assert_int_equal(r.issues, 0);
	cg_snapshot_free(s);

	static const cg_snap_entry bad[] = {ENTRY(CG_SNAP_SEGMENT_FREE, 0x1000, 4096)};
	s = one_device(sizes, states, 1, bad, 1);
	assert_int_equal(cg_snapshot_reserved(s, 0, &r, NULL), 0);
	assert_int_equal(r.issues, 1);
	cg_snapshot_free(s);
}

/* Times are entry numbers for a snapshot without time_us. */
static void times_of_an_untimed_snapshot_are_entry_numbers(void **state)
{
	cg_timeline *tl = cg_timeline_new(NULL);
	char buf[32], want[32];
	assert_string_equal(cg_timeline_fmt_time(tl, buf, sizeof buf, 1500000000),
			    cg_fmt_time(want, sizeof want, 1500000000)); /* a trace's times as ever */
	tl->source.time_is_index = true;
	assert_string_equal(cg_timeline_fmt_time(tl, buf, sizeof buf, 1402), "entry 1,402");
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(both_series_are_rebuilt_backwards),
		cmocka_unit_test(a_peak_before_the_first_entry_and_memory_viz),
		cmocka_unit_test(reserved_bytes_are_rebuilt_from_segment_events),
		cmocka_unit_test(times_of_an_untimed_snapshot_are_entry_numbers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
