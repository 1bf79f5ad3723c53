/* Allocator replay: reserved bytes and both fragmentation figures of the
 * caching-allocator model, on traces worked out on paper. */
#include "tlbuild.h"

#include "replay.h"
#include "snapshot.h"

#define A CG_ALLOC
#define F CG_FREE
#define MiB 1048576ull
#define NONE UINT64_MAX

static void sizes_round_as_the_caching_allocator_rounds_them(void **state)
{
	uint64_t v;
	assert_true(cg_replay_round_size(0, &v) && v == 512);
	assert_true(cg_replay_round_size(1, &v) && v == 512);
	assert_true(cg_replay_round_size(512, &v) && v == 512);
	assert_true(cg_replay_round_size(513, &v) && v == 1024);
	assert_true(cg_replay_round_size(UINT64_MAX - 511, &v) && v == UINT64_MAX - 511);
	assert_false(cg_replay_round_size(UINT64_MAX, &v));
	assert_true(cg_replay_segment_size(MiB, &v) && v == 2 * MiB);
	assert_true(cg_replay_segment_size(MiB + 512, &v) && v == 20 * MiB);
	assert_true(cg_replay_segment_size(10 * MiB - 512, &v) && v == 20 * MiB);
	assert_true(cg_replay_segment_size(10 * MiB, &v) && v == 10 * MiB);
	assert_true(cg_replay_segment_size(10 * MiB + 512, &v) && v == 12 * MiB);
	assert_false(cg_replay_segment_size(UINT64_MAX - 511, &v));
}

/* The paper case (sizes in MiB unless said):
 *   t1 A 1000 B  small pool: a 2 MiB segment, split          reserved  2
 *   t2 B 3       a 20 MiB segment S2, split: 17 free          reserved 22
 *   t3 C 15      best fit the 17, split: 2 free
 *   t4 free B    3 free (C is allocated: no merge)
 *   t5 D 4       nothing fits (3, 2): a 20 MiB segment, split: reserved 42
 *   t6 E 2.5     best fit the 3; the rest 0.5 is not split    <- "peak" moment
 *   t7 free C    merges with the 2 after it: 17 free
 *   t8 F 12      best fit the 16 of S3, split: 4 free
 *   t9 G 20      nothing fits (17, 4): a 20 MiB segment       reserved 62
 * Expandable segments: the large pool grows by 20 MiB pages at t2, t5
 * (the free 2 at the end plus a page) and t9; reserved is the same here. */
static cg_timeline *paper_trace(void)
{
	cg_timeline *tl = tu_tl_new();
	tu_devmem(tl, 0, "cuda:0", NONE, 0, 0);
	tu_mem(tl, 1, "A", NULL, "cuda:0", 1000, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 2, "B", NULL, "cuda:0", 3 * MiB, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 3, "C", NULL, "cuda:0", 15 * MiB, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 4, "B", NULL, "cuda:0", 3 * MiB, F, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 5, "D", NULL, "cuda:0", 4 * MiB, A, CG_CAT_ACTIVATION, NULL);
	tu_devmem(tl, 5, "cuda:0", NONE, 0, 50 * MiB);
	tu_mem(tl, 6, "E", NULL, "cuda:0", 5 * MiB / 2, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 7, "C", NULL, "cuda:0", 15 * MiB, F, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 8, "F", NULL, "cuda:0", 12 * MiB, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 9, "G", NULL, "cuda:0", 20 * MiB, A, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	return tl;
}

static cg_replay_result *replay(const cg_timeline *tl, uint32_t peak, uint32_t end)
{
	cg_replay_input in = {&peak, &end, 0};
	cg_replay_result *r;
	assert_int_equal(cg_replay_run(&r, tl, &in, NULL), 0);
	return r;
}

static void the_standard_allocator_maps_segments_as_worked_out_on_paper(void **state)
{
	cg_timeline *tl = paper_trace();
	cg_replay_result *r = replay(tl, 5, 8);
	const cg_replay_device *d = &r->devices[0];
	assert_true(d->available);
	const cg_replay_variant *v = &d->standard;
	assert_int_equal(v->peak_reserved, 62 * MiB);
	assert_int_equal(v->peak_t_ns, 9);
	assert_int_equal(v->segments, 4);
	assert_int_equal(v->nseries, 4);
	static const uint64_t t[4] = {1, 2, 5, 9}, res[4] = {2 * MiB, 22 * MiB, 42 * MiB, 62 * MiB};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(v->series[i].t_ns, t[i]);
		assert_int_equal(v->series[i].reserved, res[i]);
	}
	/* after E: allocated 1024 + 15 + 4 + 3 MiB; free 2 MiB - 1024, 2 and 16 */
	const cg_replay_state *p = &v->at_peak;
	assert_int_equal(p->reserved, 42 * MiB);
	assert_int_equal(p->allocated, 1024 + 22 * MiB);
	assert_int_equal(p->live, 1000 + 21 * MiB + MiB / 2);
	assert_int_equal(p->total_free, 20 * MiB - 1024);
	assert_int_equal(p->largest_free, 16 * MiB);
	assert_true(p->frag_reserved == (double)(42 * MiB - (1000 + 43 * MiB / 2)) / (double)(42 * MiB));
	assert_true(p->frag_largest == 1.0 - (double)(16 * MiB) / (double)(20 * MiB - 1024));
	/* at the end: free 2 MiB - 1024, 17 (C merged with the 2 after it) and 4 */
	const cg_replay_state *e = &v->at_end;
	assert_int_equal(e->reserved, 62 * MiB);
	assert_int_equal(e->allocated, 1024 + 39 * MiB);
	assert_int_equal(e->total_free, 23 * MiB - 1024);
	assert_int_equal(e->largest_free, 17 * MiB);
	/* estimates at the checkpoints: before anything, and after the record at t5 */
	assert_int_equal(v->ncheckpoints, 2);
	assert_int_equal(v->at_checkpoint[0], 0);
	assert_int_equal(v->at_checkpoint[1], 42 * MiB);
	cg_replay_free(r);
	cg_timeline_free(tl);
}

static void expandable_segments_grow_by_pages_as_worked_out_on_paper(void **state)
{
	cg_timeline *tl = paper_trace();
	cg_replay_result *r = replay(tl, 5, 8);
	const cg_replay_variant *v = &r->devices[0].expandable;
	assert_int_equal(v->peak_reserved, 62 * MiB);
	assert_int_equal(v->segments, 4); /* pages: one small, three large */
	assert_int_equal(v->nseries, 4);
	assert_int_equal(v->series[2].t_ns, 5);
	assert_int_equal(v->series[2].reserved, 42 * MiB);
	/* after E: the 18 MiB at the end of the large segment is free */
	assert_int_equal(v->at_peak.reserved, 42 * MiB);
	assert_int_equal(v->at_peak.total_free, 20 * MiB - 1024);
	assert_int_equal(v->at_peak.largest_free, 18 * MiB);
	/* at the end: C's 15 took F (12), leaving 3; G grew the end by a page */
	assert_int_equal(v->at_end.reserved, 62 * MiB);
	assert_int_equal(v->at_end.allocated, 1024 + 39 * MiB);
	assert_int_equal(v->at_end.largest_free, 18 * MiB);
	assert_int_equal(r->devices[0].saved_bytes, 0);
	cg_replay_free(r);
	cg_timeline_free(tl);
}

/* Two 19 MiB blocks in separate 20 MiB segments cannot merge, so a 30 MiB
 * request maps a third segment (70 MiB); one expandable segment holds them
 * side by side, they merge when freed and the 30 fits (40 MiB). */
static void expandable_segments_save_what_separate_segments_cannot_merge(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 1, "a", NULL, "cuda:0", 19 * MiB, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 2, "b", NULL, "cuda:0", 19 * MiB, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 3, "a", NULL, "cuda:0", 19 * MiB, F, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 4, "b", NULL, "cuda:0", 19 * MiB, F, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 5, "c", NULL, "cuda:0", 30 * MiB, A, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	cg_replay_result *r = replay(tl, 1, 4);
	const cg_replay_device *d = &r->devices[0];
	/* the 1 MiB left in each 20 MiB segment is not more than 1 MiB: no split */
	assert_int_equal(d->standard.at_peak.allocated, 40 * MiB);
	assert_int_equal(d->standard.peak_reserved, 70 * MiB);
	assert_int_equal(d->standard.segments, 3);
	assert_int_equal(d->expandable.peak_reserved, 40 * MiB);
	assert_int_equal(d->saved_bytes, 30 * MiB);
	/* at the end, standard: 40 free in two 20s (largest 20); expandable: the 10 left after c */
	assert_int_equal(d->standard.at_end.total_free, 40 * MiB);
	assert_int_equal(d->standard.at_end.largest_free, 20 * MiB);
	assert_true(d->standard.at_end.frag_largest == 0.5);
	assert_int_equal(d->expandable.at_end.total_free, 10 * MiB);
	assert_true(d->expandable.at_end.frag_largest == 0.0);
	cg_replay_free(r);
	cg_timeline_free(tl);
}

/* In the small pool a rest of exactly 512 bytes is split off, and a
 * 512-byte request then fits it without a new segment. */
static void the_small_pool_splits_down_to_512_bytes(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 1, "a", NULL, "cuda:0", MiB, A, CG_CAT_ACTIVATION, NULL);	   /* 2 MiB segment: 1 MiB rest */
	tu_mem(tl, 2, "b", NULL, "cuda:0", MiB - 512, A, CG_CAT_ACTIVATION, NULL); /* rest 512: split */
	tu_mem(tl, 3, "c", NULL, "cuda:0", 100, A, CG_CAT_ACTIVATION, NULL);	   /* 512 fits the rest */
	tu_tl_finalize(tl);
	cg_replay_result *r = replay(tl, 1, 2);
	const cg_replay_variant *v = &r->devices[0].standard;
	assert_int_equal(v->at_peak.allocated, 2 * MiB - 512);
	assert_int_equal(v->at_peak.largest_free, 512);
	assert_int_equal(v->at_end.allocated, 2 * MiB);
	assert_int_equal(v->peak_reserved, 2 * MiB);
	assert_int_equal(v->segments, 1);
	cg_replay_free(r);
	cg_timeline_free(tl);
}

static void memory_from_before_the_trace_is_allocated_first(void **state)
{
	cg_timeline *tl = tu_tl_new();
	uint16_t dev = tu_device(tl, "cuda:0");
	tl->devices[dev].baseline_bytes = 3 * MiB; /* one block: a 20 MiB segment */
	tu_mem(tl, 10, "x", NULL, "cuda:0", 0, A, CG_CAT_ACTIVATION, NULL);	  /* empty: no memory */
	tu_mem(tl, 20, "old", NULL, "cuda:0", 1000, F, CG_CAT_INPUT, NULL); /* a 2 MiB small segment */
	tu_mem(tl, 30, "y", NULL, "cuda:0", 1000, A, CG_CAT_INPUT, NULL);	  /* reuses old's block */
	tu_tl_finalize(tl);
	cg_replay_result *r = replay(tl, CG_NONE, 2);
	const cg_replay_variant *v = &r->devices[0].standard;
	assert_int_equal(v->initial_reserved, 22 * MiB);
	assert_int_equal(v->peak_reserved, 22 * MiB);
	assert_int_equal(v->peak_t_ns, 10);
	assert_int_equal(v->at_peak.allocated, 3 * MiB + 1024);
	assert_int_equal(v->at_end.allocated, 3 * MiB + 1024);
	assert_int_equal(v->nseries, 1);
	cg_replay_free(r);
	cg_timeline_free(tl);
}

static void without_pairing_there_is_no_replay(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tl->source.pairing_known = false;
	tu_mem(tl, 1, "a", NULL, "cuda:0", 10, A, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	cg_replay_result *r = replay(tl, 0, 0);
	assert_false(r->devices[0].available);
	assert_non_null(r->devices[0].unavailable_reason);
	cg_replay_free(r);
	cg_timeline_free(tl);
}

static void sizes_beyond_the_model_make_it_unavailable(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 1, "a", NULL, "cuda:0", UINT64_MAX - 10, A, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	cg_replay_result *r = replay(tl, 0, 0);
	assert_false(r->devices[0].available);
	assert_null(r->devices[0].standard.series);
	cg_replay_free(r);
	cg_timeline_free(tl);
}

/* Devices and variants replay on their own threads: a device the model
 * cannot take does not disturb the other, whatever the thread count. */
static void devices_replay_alone_on_any_number_of_threads(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 0, "huge", NULL, "cuda:0", UINT64_MAX - 10, A, CG_CAT_ACTIVATION, NULL);
	tu_devmem(tl, 0, "cuda:1", NONE, 0, 0);
	tu_mem(tl, 1, "A", NULL, "cuda:1", 1000, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 2, "B", NULL, "cuda:1", 3 * MiB, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 3, "C", NULL, "cuda:1", 15 * MiB, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 4, "B", NULL, "cuda:1", 3 * MiB, F, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 5, "D", NULL, "cuda:1", 4 * MiB, A, CG_CAT_ACTIVATION, NULL);
	tu_devmem(tl, 5, "cuda:1", NONE, 0, 50 * MiB);
	tu_mem(tl, 6, "E", NULL, "cuda:1", 5 * MiB / 2, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 7, "C", NULL, "cuda:1", 15 * MiB, F, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 8, "F", NULL, "cuda:1", 12 * MiB, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 9, "G", NULL, "cuda:1", 20 * MiB, A, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	assert_int_equal(tl->ndevices, 2);
	/* cuda:1's records follow cuda:0's one: the paper's moments shift by one */
	uint32_t peak[2] = {0, 6}, end[2] = {0, 9};
	const unsigned threads[] = {1, 2, 4};
	for (int k = 0; k < 3; k++) {
		cg_replay_input in = {peak, end, threads[k]};
		cg_replay_result *r;
		assert_int_equal(cg_replay_run(&r, tl, &in, NULL), 0);
		assert_false(r->devices[0].available);
		const cg_replay_device *d = &r->devices[1];
		assert_true(d->available);
		assert_int_equal(d->standard.peak_reserved, 62 * MiB);
		assert_int_equal(d->standard.nseries, 4);
		assert_int_equal(d->standard.at_peak.reserved, 42 * MiB);
		assert_int_equal(d->standard.at_end.largest_free, 17 * MiB);
		assert_int_equal(d->standard.ncheckpoints, 2);
		assert_int_equal(d->standard.at_checkpoint[1], 42 * MiB);
		assert_int_equal(d->expandable.peak_reserved, 62 * MiB);
		assert_int_equal(d->saved_bytes, 0);
		cg_replay_free(r);
	}
	cg_timeline_free(tl);
}

/* A snapshot's recorded max_split_size (100 MiB) applies, by hand: A
 * (150 MiB) maps a 150 MiB segment and is freed. B (10 MiB, under the
 * limit) may not take the oversized free block: a 10 MiB segment (160).
 * C (120 MiB, over it) may take a block at most 20 MiB larger: the 150
 * MiB block is 30 larger, so a 120 MiB segment (280). Without the limit B
 * splits A's block and C takes 120 of the 140 left: 150 MiB. */
static cg_timeline *split_trace(int64_t max_split)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 1, "A", NULL, "cuda:0", 150 * MiB, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 2, "A", NULL, "cuda:0", 150 * MiB, F, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 3, "B", NULL, "cuda:0", 10 * MiB, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 4, "C", NULL, "cuda:0", 120 * MiB, A, CG_CAT_ACTIVATION, NULL);
	tl->snapshot = cg_snapshot_new();
	tl->snapshot->max_split_size = max_split;
	tu_tl_finalize(tl);
	return tl;
}

static void a_recorded_max_split_size_keeps_oversized_blocks_whole(void **state)
{
	cg_timeline *tl = split_trace(100 * (int64_t)MiB);
	cg_replay_result *r = replay(tl, 3, 3);
	assert_int_equal(r->devices[0].standard.peak_reserved, 280 * MiB);
	assert_int_equal(r->devices[0].standard.segments, 3);
	cg_replay_free(r);
	cg_timeline_free(tl);
	tl = split_trace(-1); /* as recorded without a limit */
	r = replay(tl, 3, 3);
	assert_int_equal(r->devices[0].standard.peak_reserved, 150 * MiB);
	assert_int_equal(r->devices[0].standard.segments, 1);
	cg_replay_free(r);
	cg_timeline_free(tl);
}

/* Best fit across the exact-size classes (below 32 MiB) and the blocks
 * above them, in MiB:
 *   t1 A 40, t2 B 30, t3 C 34   three segments                reserved 104
 *   t4-t6 free A, B, C          free 40, 30, 34               <- "peak": largest 40
 *   t7 D 31                     no class from 31 holds one: the 34, split: 3 free
 *   t8 E 29                     the 30 (not the 40); 1 left is not split
 *   t9 F 35                     above the classes: the 40, split: 5 free
 * At the end 3 and 5 are free; nothing was mapped after t3. */
static void best_fit_spans_blocks_above_and_below_32_mib(void **state)
{
	cg_timeline *tl = tu_tl_new();
	static const struct {
		const char *id;
		uint64_t mib;
		cg_action action;
	} recs[] = {{"A", 40, A}, {"B", 30, A}, {"C", 34, A}, {"A", 40, F}, {"B", 30, F},
		    {"C", 34, F}, {"D", 31, A}, {"E", 29, A}, {"F", 35, A}};
	for (int i = 0; i < 9; i++)
		tu_mem(tl, (uint64_t)i + 1, recs[i].id, NULL, "cuda:0", recs[i].mib * MiB, recs[i].action,
		       CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	cg_replay_result *r = replay(tl, 5, 8);
	const cg_replay_variant *v = &r->devices[0].standard;
	assert_int_equal(v->peak_reserved, 104 * MiB);
	assert_int_equal(v->peak_t_ns, 3);
	assert_int_equal(v->segments, 3);
	assert_int_equal(v->at_peak.total_free, 104 * MiB);
	assert_int_equal(v->at_peak.largest_free, 40 * MiB);
	assert_int_equal(v->at_end.reserved, 104 * MiB);
	assert_int_equal(v->at_end.allocated, 96 * MiB);
	assert_int_equal(v->at_end.total_free, 8 * MiB);
	assert_int_equal(v->at_end.largest_free, 5 * MiB);
	cg_replay_free(r);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sizes_round_as_the_caching_allocator_rounds_them),
		cmocka_unit_test(the_standard_allocator_maps_segments_as_worked_out_on_paper),
		cmocka_unit_test(expandable_segments_grow_by_pages_as_worked_out_on_paper),
		cmocka_unit_test(expandable_segments_save_what_separate_segments_cannot_merge),
		cmocka_unit_test(the_small_pool_splits_down_to_512_bytes),
		cmocka_unit_test(memory_from_before_the_trace_is_allocated_first),
		cmocka_unit_test(without_pairing_there_is_no_replay),
		cmocka_unit_test(sizes_beyond_the_model_make_it_unavailable),
		cmocka_unit_test(devices_replay_alone_on_any_number_of_threads),
		cmocka_unit_test(a_recorded_max_split_size_keeps_oversized_blocks_whole),
		cmocka_unit_test(best_fit_spans_blocks_above_and_below_32_mib),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
