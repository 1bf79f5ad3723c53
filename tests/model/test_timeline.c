/* The timeline model (timeline.c) and what finalize makes of it: ordering,
 * pairing of frees with allocations, and the span tree. Timelines are built
 * by hand (tlbuild.h): lines are numbered from 2 in call order, as a trace
 * whose line 1 is its meta record. */
#include "tlbuild.h"

#include <string.h>

#include "finalize.h"

#define A CG_ALLOC
#define F CG_FREE
#define UNK CG_CAT_UNKNOWN
#define OPEN UINT64_MAX /* a span that never ends */

/* Line 2: span "s" (root), still open at the end, which every memory record names. */
static cg_timeline *new_with_root(void)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "s", NULL, "root", 0, OPEN, CG_PHASE_NONE);
	return tl;
}

/* A memory record in span "s" without a category, as a trace line without one. */
static void mem(cg_timeline *tl, uint64_t t, const char *id, const char *dev, uint64_t bytes, cg_action action)
{
	tu_mem(tl, t, id, "s", dev, bytes, action, UNK, NULL);
}

/* The peak as PyTorch's "Total Allocated" defines it (and the peak pass
 * computes it): live bytes after every record in time order, starting from
 * what is live before the first; the largest value, at the first record
 * reaching it (first_t_ns when nothing exceeds the initial bytes). */
static uint64_t max_live(const cg_timeline *tl, uint32_t dev, uint64_t *t)
{
	const cg_device *d = &tl->devices[dev];
	uint64_t live = cg_device_initial_live(d), peak = live, at = tl->first_t_ns;
	for (uint32_t k = 0; k < d->mem_count; k++) {
		uint32_t i = d->mem_first + k;
		live = cg_timeline_live_after(tl, i, live);
		if (live > peak) {
			peak = live;
			at = tl->mem[i].t_ns;
		}
	}
	if (t)
		*t = at;
	return peak;
}

static void free_without_alloc_counts_as_live_from_start(void **state)
{
	cg_timeline *tl = new_with_root();
	mem(tl, 10, "a", "cpu", 100, A); /* line 3 */
	mem(tl, 20, "old", "cpu", 50, F); /* line 4 */
	tu_tl_finalize(tl);
	const cg_device *d = &tl->devices[0];
	assert_int_equal(d->preexisting_bytes, 50);
	assert_int_equal(d->preexisting_count, 1);
	assert_true(tl->mem[1].flags & CG_MEM_PREEXISTING);
	assert_int_equal(tl->anomalies[CG_ANOM_FREE_BEFORE_TRACE].count, 1);
	assert_string_equal(tl->anomalies[CG_ANOM_FREE_BEFORE_TRACE].examples[0],
			    "line 4: free of \"old\" (50 B) on cpu, never allocated in the trace");
	uint64_t t;
	assert_int_equal(max_live(tl, 0, &t), 150); /* 50 live from the start + 100 */
	assert_int_equal(t, 10);
	assert_int_equal(d->live_at_end, 100);
	cg_timeline_free(tl);
}

static void ids_can_be_reused_after_a_free(void **state)
{
	cg_timeline *tl = new_with_root();
	mem(tl, 1, "x", "cpu", 10, A);
	mem(tl, 2, "x", "cpu", 10, F);
	mem(tl, 3, "x", "cpu", 20, A);
	mem(tl, 4, "x", "cpu", 20, F);
	tu_tl_finalize(tl);
	assert_int_equal(tl->mem[0].pair, 1);
	assert_int_equal(tl->mem[1].pair, 0);
	assert_int_equal(tl->mem[2].pair, 3);
	assert_int_equal(tl->mem[3].pair, 2);
	for (int a = 0; a < CG_ANOM_COUNT; a++)
		if (a != CG_ANOM_SPAN_NEVER_ENDED)
			assert_int_equal(tl->anomalies[a].count, 0);
	assert_int_equal(max_live(tl, 0, NULL), 20);
	assert_int_equal(tl->devices[0].live_at_end, 0);
	cg_timeline_free(tl);
}

static void allocating_a_live_id_ends_the_earlier_allocation(void **state)
{
	cg_timeline *tl = new_with_root();
	mem(tl, 1, "x", "cpu", 10, A);
	mem(tl, 2, "x", "cpu", 30, A);
	mem(tl, 3, "x", "cpu", 30, F);
	tu_tl_finalize(tl);
	assert_true(tl->mem[0].flags & CG_MEM_REPLACED);
	assert_int_equal(tl->mem[0].pair, 1);
	assert_true(tl->mem[1].flags & CG_MEM_REPLACES);
	assert_int_equal(tl->mem[1].pair, 2);
	assert_int_equal(cg_timeline_mem_removed(tl, 1), 10);
	assert_int_equal(tl->anomalies[CG_ANOM_ALLOC_OF_LIVE_ID].count, 1);
	assert_int_equal(max_live(tl, 0, NULL), 30); /* never 40: the first is gone */
	assert_int_equal(tl->devices[0].live_at_end, 0);
	assert_int_equal(tl->devices[0].live_count_at_end, 0);
	cg_timeline_free(tl);
}

static void a_second_free_is_a_double_free_and_ignored(void **state)
{
	cg_timeline *tl = new_with_root();
	mem(tl, 1, "x", "cpu", 10, A);
	mem(tl, 2, "y", "cpu", 5, A);
	mem(tl, 3, "x", "cpu", 10, F);
	mem(tl, 4, "x", "cpu", 10, F);
	tu_tl_finalize(tl);
	assert_true(tl->mem[3].flags & CG_MEM_DOUBLE_FREE);
	assert_int_equal(tl->mem[3].bytes, 0);
	assert_int_equal(tl->anomalies[CG_ANOM_DOUBLE_FREE].count, 1);
	assert_int_equal(tl->anomalies[CG_ANOM_FREE_BEFORE_TRACE].count, 0);
	assert_int_equal(tl->devices[0].live_at_end, 5);
	cg_timeline_free(tl);
}

static void a_free_releases_its_allocations_bytes(void **state)
{
	cg_timeline *tl = new_with_root();
	mem(tl, 1, "x", "cpu", 10, A); /* line 3 */
	mem(tl, 2, "x", "cpu", 7, F);  /* line 4 */
	tu_tl_finalize(tl);
	assert_true(tl->mem[1].flags & CG_MEM_BYTES_MISMATCH);
	assert_int_equal(tl->mem[1].bytes, 10);
	assert_int_equal(tl->devices[0].live_at_end, 0);
	assert_string_equal(tl->anomalies[CG_ANOM_BYTES_MISMATCH].examples[0],
			    "line 4: free of \"x\" on cpu says 7 B; its allocation at line 3 had 10 B");
	cg_timeline_free(tl);
}

static void records_are_ordered_by_time_stably(void **state)
{
	cg_timeline *tl = new_with_root();
	mem(tl, 30, "d", "cpu", 1, A); /* line 3 */
	mem(tl, 10, "a", "cpu", 1, A); /* line 4 */
	mem(tl, 10, "b", "cpu", 1, A); /* line 5 */
	mem(tl, 20, "c", "cpu", 1, A); /* line 6 */
	mem(tl, 10, "e", "cpu", 1, A); /* line 7 */
	tu_tl_finalize(tl);
	uint32_t lines[] = {4, 5, 7, 6, 3};
	for (int i = 0; i < 5; i++)
		assert_int_equal(tl->mem[i].line, lines[i]);
	cg_timeline_free(tl);
}

static void large_out_of_order_input_sorts_like_a_stable_sort(void **state)
{
	/* 3000 records with times that go back and forth; compare with insertion order by (t, line). */
	cg_timeline *tl = new_with_root();
	for (int i = 0; i < 3000; i++) {
		uint64_t t = (uint64_t)((i * 7919) % 1000) * 1000003ull + (uint64_t)(i % 3) * (1ull << 40);
		char id[16];
		snprintf(id, sizeof id, "t%d", i);
		mem(tl, t, id, i % 2 ? "cuda:0" : "cpu", 1, A);
	}
	tu_tl_finalize(tl);
	assert_int_equal(tl->ndevices, 2);
	for (uint32_t d = 0; d < 2; d++) {
		const cg_device *dev = &tl->devices[d];
		assert_int_equal(dev->mem_count, 1500);
		for (uint32_t k = 1; k < dev->mem_count; k++) {
			const cg_mem *p = &tl->mem[dev->mem_first + k - 1], *m = &tl->mem[dev->mem_first + k];
			assert_int_equal(cg_timeline_mem_device(tl, m), d);
			assert_true(p->t_ns < m->t_ns || (p->t_ns == m->t_ns && p->line < m->line));
		}
	}
	cg_timeline_free(tl);
}

static void devices_pair_independently(void **state)
{
	cg_timeline *tl = new_with_root();
	mem(tl, 1, "x", "cuda:0", 10, A);
	mem(tl, 2, "x", "cuda:1", 20, A);
	mem(tl, 3, "x", "cuda:0", 10, F);
	tu_tl_finalize(tl);
	assert_int_equal(tl->ndevices, 2);
	assert_int_equal(tl->devices[0].live_at_end, 0);
	assert_int_equal(tl->devices[1].live_at_end, 20);
	assert_int_equal(tl->anomalies[CG_ANOM_ALLOC_OF_LIVE_ID].count, 0);
	cg_timeline_free(tl);
}

static void nested_spans_inherit_their_step(void **state)
{
	cg_timeline *tl = new_with_root();
	/* the child comes before its parent: order does not matter */
	tu_span(tl, "c", "b", "encoder", 3, OPEN, CG_PHASE_NONE);
	tu_span(tl, "b", "s", "model", 2, OPEN, CG_PHASE_FORWARD);
	tu_span(tl, "d", "c", "attn", 4, OPEN, CG_PHASE_BACKWARD);
	tu_span(tl, "e", "d", "mm", 5, OPEN, CG_PHASE_NONE);
	tu_mem(tl, 6, "t", "c", "cpu", 1, A, UNK, NULL);
	tu_tl_finalize(tl);
	const char *names[] = {"root", "encoder", "model", "attn", "mm"};
	cg_phase phases[] = {CG_PHASE_NONE, CG_PHASE_FORWARD, CG_PHASE_FORWARD, CG_PHASE_BACKWARD, CG_PHASE_BACKWARD};
	uint32_t depths[] = {0, 2, 1, 3, 4};
	for (int i = 0; i < 5; i++) {
		assert_string_equal(cg_timeline_str(tl, tl->spans[i].name), names[i]);
		assert_int_equal(tl->spans[i].phase, phases[i]);
		assert_int_equal(tl->spans[i].depth, depths[i]);
	}
	char path[256];
	assert_string_equal(cg_timeline_span_path(tl, 4, path, sizeof path), "root/model/encoder/attn/mm");
	assert_int_equal(cg_timeline_mem_phase(tl, &tl->mem[0]), CG_PHASE_FORWARD);
	assert_int_equal(tl->spans[1].parent, 2);
	cg_timeline_free(tl);
}

static void a_loop_of_parents_is_cut_not_followed(void **state)
{
	cg_timeline *tl = new_with_root();
	tu_span(tl, "a", "b", "a", 1, OPEN, CG_PHASE_FORWARD);
	tu_span(tl, "b", "a", "b", 2, OPEN, CG_PHASE_NONE);
	tu_tl_finalize(tl);
	assert_int_equal(tl->anomalies[CG_ANOM_SPAN_CYCLE].count, 1);
	/* one of the two became a root, the other its child */
	const cg_span *a = &tl->spans[1], *b = &tl->spans[2];
	assert_true((a->parent == CG_NONE && b->parent == 1) || (b->parent == CG_NONE && a->parent == 2));
	cg_timeline_free(tl);
}

static void span_problems_are_anomalies(void **state)
{
	cg_timeline *tl = new_with_root();
	tu_span(tl, "a", "ghost", "a", 1, OPEN, CG_PHASE_NONE); /* line 3 */
	tu_span(tl, "a", NULL, "again", 2, OPEN, CG_PHASE_NONE); /* line 4: a duplicate */
	tu_span_end(tl, "nope", 1);				  /* line 5 */
	tu_span_end(tl, "a", 4);				  /* line 6: a ends at 1 + 4 */
	tu_mem(tl, 9, "t", "zz", "cpu", 1, A, UNK, NULL);	  /* line 7 */
	tu_tl_finalize(tl);
	assert_int_equal(tl->nspans, 2);
	assert_int_equal(tl->anomalies[CG_ANOM_DUPLICATE_SPAN].count, 1);
	assert_int_equal(tl->anomalies[CG_ANOM_UNKNOWN_SPAN].count, 2);
	assert_int_equal(tl->anomalies[CG_ANOM_SPAN_END_WITHOUT_START].count, 1);
	assert_string_equal(tl->anomalies[CG_ANOM_UNKNOWN_SPAN].examples[0],
			    "line 3: span \"a\" names parent \"ghost\", which never started");
	assert_int_equal(tl->mem[0].span, CG_NONE);
	assert_int_equal(tl->spans[1].end_ns, 5);
	/* the root never ended: it runs to the end of the trace */
	assert_int_equal(tl->spans[0].end_ns, 9);
	assert_false(tl->spans[0].flags & CG_SPAN_ENDED);
	assert_int_equal(tl->anomalies[CG_ANOM_SPAN_NEVER_ENDED].count, 1);
	cg_timeline_free(tl);
}

static void live_bytes_beyond_64_bits_are_an_error(void **state)
{
	/* 2^63 + 2^63 = 2^64: one more than fits. That ingest then hands back
	 * no timeline is ingest's contract, tested in tests/ingest. */
	cg_timeline *tl = new_with_root();
	mem(tl, 1, "x", "cpu", 9223372036854775808ull, A); /* line 3 */
	mem(tl, 2, "y", "cpu", 9223372036854775808ull, A); /* line 4 */
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_timeline_finalize(tl, &err), CG_EINPUT);
	assert_int_equal(err.code, CG_EINPUT);
	assert_non_null(strstr(err.msg, ":4: live bytes on cpu exceed 2^64 - 1 bytes"));
	assert_false(tl->finalized);
	cg_timeline_free(tl);
}

static cg_timeline *unpaired(void)
{
	/* Records without ids, as the raw memory timeline has them. */
	cg_timeline *tl = cg_timeline_new(NULL);
	tl->source.pairing_known = false;
	uint16_t d;
	assert_int_equal(cg_timeline_device(tl, "cuda:0", 6, &d), 0);
	struct { uint64_t t, bytes; cg_action a; cg_category c; } recs[] = {
		{3, 30, CG_FREE, CG_CAT_GRADIENT},	 /* running sum -30 */
		{1, 100, CG_ALLOC, CG_CAT_ACTIVATION},	 /* ... but first in time: 100 */
		{2, 40, CG_FREE, CG_CAT_TEMPORARY},	 /* 60 */
		{4, 200, CG_FREE, CG_CAT_PARAMETER},	 /* -170 */
		{5, 20, CG_ALLOC, CG_CAT_ACTIVATION},	 /* -150 */
	};
	for (uint32_t i = 0; i < 5; i++) {
		cg_mem_in m = {0};
		m.t_ns = recs[i].t;
		m.bytes = recs[i].bytes;
		m.action = (uint8_t)recs[i].a;
		m.category = (uint8_t)recs[i].c;
		m.line = i + 1;
		m.device = d;
		m.span = CG_STR_EMPTY;
		assert_int_equal(cg_timeline_add_mem(tl, &m), 0);
	}
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_timeline_finalize(tl, &err), 0);
	return tl;
}

static void unpaired_frees_remove_their_own_bytes_from_a_running_sum(void **state)
{
	cg_timeline *tl = unpaired();
	const cg_device *d = &tl->devices[0];
	/* In time order: activation +100, temporary -40, gradient -30, parameter
	 * -200, activation +20. No category may go below zero: 40 + 30 + 200 B of
	 * temporaries, gradients and parameters were there from the start. */
	assert_int_equal(d->baseline_bytes, 0);
	assert_int_equal(d->preexisting_bytes, 270);
	assert_int_equal(d->initial_by_cat[CG_CAT_PARAMETER], 200);
	assert_int_equal(d->initial_by_cat[CG_CAT_ACTIVATION], 0);
	assert_int_equal(max_live(tl, 0, NULL), 370);
	assert_int_equal(d->live_at_end, 120);
	/* Two frees more than allocations at the low point (3 frees after 1 alloc). */
	assert_int_equal(d->preexisting_count, 2);
	assert_int_equal(d->live_count_at_end, 1);
	for (uint32_t i = 0; i < 5; i++) {
		const cg_mem *m = &tl->mem[i];
		assert_int_equal(m->pair, CG_NONE);
		assert_int_equal(cg_timeline_mem_removed(tl, i), m->action == CG_FREE ? m->bytes : 0);
	}
	/* Each free keeps its own category. */
	assert_int_equal(tl->mem[3].category, CG_CAT_PARAMETER);
	assert_int_equal(tl->source.warnings, 1);
	assert_non_null(strstr(tl->source.diags[0].msg, "frees outrun allocations by up to 270 B"));
	cg_timeline_free(tl);
}

static void a_baseline_set_after_finalize_moves_live_bytes_at_the_end(void **state)
{
	cg_timeline *tl = unpaired();
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_timeline_set_baseline(tl, 0, 1000, &err), 0);
	assert_int_equal(tl->devices[0].live_at_end, 1120);
	assert_int_equal(max_live(tl, 0, NULL), 1370);
	assert_int_equal(cg_timeline_set_baseline(tl, 0, UINT64_MAX, &err), CG_EINPUT);
	cg_timeline_free(tl);
}

/* --- timeline.c itself: interning, devices, dtypes, anomalies, span paths --- */

static void shapes_round_trip_and_format_within_the_buffer(void **state)
{
	cg_timeline *tl = cg_timeline_new(NULL);
	const uint64_t dims[] = {512, 784};
	uint32_t sh, again;
	assert_int_equal(cg_timeline_intern_shape(tl, dims, 2, &sh), 0);
	assert_int_equal(cg_timeline_intern_shape(tl, dims, 2, &again), 0);
	assert_int_equal(sh, again);
	assert_int_equal(cg_timeline_shape_ndims(tl, sh), 2);
	assert_int_equal(cg_timeline_shape_dim(tl, sh, 1), 784);
	assert_int_equal(cg_timeline_shape_dim(tl, sh, 2), 0); /* past the last dim */
	char buf[16];
	assert_string_equal(cg_timeline_shape_format(tl, sh, buf, sizeof buf), "[512, 784]");
	assert_string_equal(cg_timeline_shape_format(tl, 0, buf, sizeof buf), "[]"); /* id 0 is [] */
	/* "[512, 784]" into 5 bytes: "[" then "512" fill 4, the rest is cut */
	memset(buf, 'X', sizeof buf);
	assert_string_equal(cg_timeline_shape_format(tl, sh, buf, 5), "[512");
	assert_int_equal(buf[5], 'X');
	assert_int_equal(cg_timeline_shape_format(tl, sh, buf, 0)[0], '[');
	/* ndims * 8 overflowing size_t is refused before dims is read */
	assert_int_equal(cg_timeline_intern_shape(tl, dims, SIZE_MAX / 8 + 1, &sh), CG_ELIMIT);
	cg_timeline_free(tl);
}

static void devices_are_numbered_in_order_of_first_mention(void **state)
{
	cg_timeline *tl = cg_timeline_new(NULL);
	uint16_t d;
	assert_int_equal(cg_timeline_device(tl, "cuda:0", 6, &d), 0);
	assert_int_equal(d, 0);
	assert_int_equal(cg_timeline_device(tl, "cpu", 3, &d), 0);
	assert_int_equal(d, 1);
	assert_int_equal(cg_timeline_device(tl, "cuda:0", 6, &d), 0);
	assert_int_equal(d, 0);
	cg_str cpu;
	assert_int_equal(cg_timeline_intern(tl, "cpu", 3, &cpu), 0);
	assert_int_equal(cg_timeline_device_by_str(tl, cpu, &d), 0);
	assert_int_equal(d, 1);
	assert_int_equal(tl->ndevices, 2);
	assert_string_equal(cg_timeline_str(tl, tl->devices[1].name), "cpu");
	cg_timeline_free(tl);
}

static void the_65536th_device_is_refused(void **state)
{
	/* Device indices are uint16_t: 65535 devices (0 .. 65534) fit. */
	cg_timeline *tl = cg_timeline_new(NULL);
	char name[16];
	uint16_t d;
	for (unsigned i = 0; i < 65535; i++) {
		int n = snprintf(name, sizeof name, "dev%u", i);
		assert_int_equal(cg_timeline_device(tl, name, (size_t)n, &d), 0);
		assert_int_equal(d, i);
	}
	assert_int_equal(cg_timeline_device(tl, "one-more", 8, &d), CG_ELIMIT);
	assert_int_equal(tl->ndevices, 65535);
	/* Known devices are still found, through the index */
	assert_int_equal(cg_timeline_device(tl, "dev1234", 7, &d), 0);
	assert_int_equal(d, 1234);
	assert_int_equal(cg_timeline_device(tl, "dev65534", 8, &d), 0);
	assert_int_equal(d, 65534);
	cg_timeline_free(tl);
}

static void dtypes_are_shared_by_spelling_and_capped_at_256(void **state)
{
	cg_timeline *tl = cg_timeline_new(NULL);
	assert_int_equal(tl->ndtypes, 1);
	assert_string_equal(cg_timeline_str(tl, tl->dtypes[0].name), "unknown");
	assert_int_equal(tl->dtypes[0].size, 0);
	uint8_t a, b;
	assert_int_equal(cg_timeline_dtype(tl, "torch.float32", 13, &a), 0);
	assert_int_equal(cg_timeline_dtype(tl, "f32", 3, &b), 0);
	assert_int_equal(a, 1);
	assert_int_equal(b, 1);
	assert_int_equal(tl->dtypes[1].size, 4);
	/* Indices are uint8_t: "unknown", f32 and 254 more fill 0 .. 255; a
	 * 257th spelling maps to "unknown". x0 .. x253 get 2 .. 255. */
	char name[16];
	for (int i = 0; i < 254; i++) {
		int n = snprintf(name, sizeof name, "x%d", i);
		assert_int_equal(cg_timeline_dtype(tl, name, (size_t)n, &a), 0);
		assert_int_equal(a, i + 2);
	}
	assert_int_equal(cg_timeline_dtype(tl, "x254", 4, &a), 0);
	assert_int_equal(a, 0);
	assert_int_equal(cg_timeline_dtype(tl, "bf16", 4, &a), 0);
	assert_int_equal(a, 0);
	assert_int_equal(tl->ndtypes, 256);
	assert_int_equal(cg_timeline_dtype(tl, "x7", 2, &a), 0);
	assert_int_equal(a, 9);
	cg_timeline_free(tl);
}

static void anomalies_are_all_counted_and_five_kept_with_text(void **state)
{
	cg_timeline *tl = cg_timeline_new(NULL);
	for (int i = 0; i < 7; i++)
		cg_timeline_anomaly(tl, CG_ANOM_DOUBLE_FREE, "example %d", i);
	const cg_anomaly_stats *s = &tl->anomalies[CG_ANOM_DOUBLE_FREE];
	assert_int_equal(s->count, 7);
	assert_int_equal(s->nexamples, CG_ANOMALY_EXAMPLES);
	assert_string_equal(s->examples[0], "example 0");
	assert_string_equal(s->examples[4], "example 4");
	/* An example is cut at 511 bytes (its 512-byte buffer) */
	char big[2000];
	memset(big, 'n', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	cg_timeline_anomaly(tl, CG_ANOM_UNKNOWN_SPAN, "%s", big);
	assert_int_equal(strlen(tl->anomalies[CG_ANOM_UNKNOWN_SPAN].examples[0]), 511);
	assert_string_equal(cg_anomaly_name(CG_ANOM_SPAN_CYCLE), "span_cycle");
	assert_string_equal(cg_anomaly_name(CG_ANOM_COUNT), "?");
	assert_string_equal(cg_anomaly_description(CG_ANOM_COUNT), "?");
	for (int a = 0; a < CG_ANOM_COUNT; a++)
		assert_int_not_equal(cg_anomaly_description((cg_anomaly)a)[0], '?');
	cg_timeline_free(tl);
}

static void a_span_path_deeper_than_256_keeps_its_last_256_names(void **state)
{
	/* n0 <- n1 <- ... <- n299: the leaf's chain is 300 long; the path keeps
	 * n44 .. n299 (256 names, 299 - 255 = 44) after an ellipsis. */
	cg_timeline *tl = tu_tl_new();
	char id[16], parent[16];
	for (int i = 0; i < 300; i++) {
		snprintf(id, sizeof id, "n%d", i);
		snprintf(parent, sizeof parent, "n%d", i - 1);
		tu_span(tl, id, i ? parent : NULL, id, (uint64_t)i, 1000, CG_PHASE_NONE);
	}
	tu_tl_finalize(tl);
	assert_int_equal(tl->spans[299].depth, 299);
	static char path[CG_SPAN_PATH_MAX];
	cg_timeline_span_path(tl, 299, path, sizeof path);
	assert_int_equal(strncmp(path, "\xe2\x80\xa6/n44/n45/", 12), 0);
	size_t len = strlen(path);
	assert_string_equal(path + len - 10, "/n298/n299");
	assert_string_equal(cg_timeline_span_path(tl, 0, path, sizeof path), "n0");
	assert_string_equal(cg_timeline_span_path(tl, CG_NONE, path, sizeof path), "");
	assert_string_equal(cg_timeline_span_path(tl, 300, path, sizeof path), "");
	/* A small buffer holds the start of the path, NUL-terminated */
	char small[8];
	assert_string_equal(cg_timeline_span_path(tl, 2, small, sizeof small), "n0/n1/n");
	cg_timeline_free(tl);
}

static void a_span_path_cut_by_its_buffer_ends_at_a_character(void **state)
{
	/* "ab\xc3\xa9cd" (é is two bytes): a buffer of 4 holds 3 bytes, which
	 * would end inside é; the path is cut before it. Of 5, all of é fits. */
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "s", NULL, "ab\xc3\xa9" "cd", 0, 10, CG_PHASE_NONE);
	tu_tl_finalize(tl);
	char buf[8];
	assert_string_equal(cg_timeline_span_path(tl, 0, buf, 4), "ab");
	assert_string_equal(cg_timeline_span_path(tl, 0, buf, 5), "ab\xc3\xa9");
	assert_string_equal(cg_timeline_span_path(tl, 0, buf, 8), "ab\xc3\xa9" "cd");
	/* A name of 4094 'a' then é in a CG_SPAN_PATH_MAX buffer: 4094 bytes. */
	static char name[4100], path[CG_SPAN_PATH_MAX];
	memset(name, 'a', 4094);
	memcpy(name + 4094, "\xc3\xa9", 3);
	cg_timeline *big = tu_tl_new();
	tu_span(big, "s", NULL, name, 0, 10, CG_PHASE_NONE);
	tu_tl_finalize(big);
	cg_timeline_span_path(big, 0, path, sizeof path);
	assert_int_equal(strlen(path), 4094);
	cg_timeline_free(big);
	cg_timeline_free(tl);
}

/* Spans added resolved: parents by index, ends set, depths and phases
 * settled by finalize, ids "#" and the line (the largest line too), and
 * each span counts as two records (a span and its end) against the limit. */
static void resolved_spans_settle_and_count_as_two_records(void **state)
{
	cg_timeline *tl = cg_timeline_new(NULL);
	cg_timeline_set_max_records(tl, 5);
	cg_span root = {.start_ns = 10, .end_ns = 90, .parent = CG_NONE, .line = 7, .step = CG_PHASE_FORWARD};
	cg_span child = {.start_ns = 20, .end_ns = 30, .parent = 0, .line = 4294967294u};
	assert_int_equal(cg_timeline_add_span_resolved(tl, &root), 0);
	assert_int_equal(cg_timeline_add_span_resolved(tl, &child), 0);
	assert_int_equal(tl->nrecords, 4);
	cg_span third = {.start_ns = 40, .end_ns = 40, .parent = CG_NONE, .line = 9};
	assert_int_equal(cg_timeline_add_span_resolved(tl, &third), CG_ELIMIT); /* its end would be the 6th */
	assert_int_equal(tl->nspans, 2);
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_timeline_finalize(tl, &err), 0);
	assert_int_equal(tl->spans[1].depth, 1);
	assert_int_equal(tl->spans[1].phase, CG_PHASE_FORWARD);
	assert_int_equal(tl->spans[1].end_ns, 30);
	assert_true(tl->spans[1].flags & CG_SPAN_ENDED);
	assert_int_equal(tl->last_t_ns, 90);
	char buf[CG_SPAN_ID_BUF];
	size_t n;
	assert_string_equal(cg_timeline_span_id(tl, 0, buf, &n), "#7");
	assert_int_equal(n, 2);
	assert_string_equal(cg_timeline_span_id(tl, 1, buf, &n), "#4294967294");
	assert_int_equal(n, 11);
	for (int a = 0; a < CG_ANOM_COUNT; a++)
		assert_int_equal(tl->anomalies[a].count, 0);
	cg_timeline_free(tl);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(free_without_alloc_counts_as_live_from_start),
		cmocka_unit_test(ids_can_be_reused_after_a_free),
		cmocka_unit_test(allocating_a_live_id_ends_the_earlier_allocation),
		cmocka_unit_test(a_second_free_is_a_double_free_and_ignored),
		cmocka_unit_test(a_free_releases_its_allocations_bytes),
		cmocka_unit_test(records_are_ordered_by_time_stably),
		cmocka_unit_test(large_out_of_order_input_sorts_like_a_stable_sort),
		cmocka_unit_test(devices_pair_independently),
		cmocka_unit_test(nested_spans_inherit_their_step),
		cmocka_unit_test(a_loop_of_parents_is_cut_not_followed),
		cmocka_unit_test(span_problems_are_anomalies),
		cmocka_unit_test(live_bytes_beyond_64_bits_are_an_error),
		cmocka_unit_test(unpaired_frees_remove_their_own_bytes_from_a_running_sum),
		cmocka_unit_test(a_baseline_set_after_finalize_moves_live_bytes_at_the_end),
		cmocka_unit_test(shapes_round_trip_and_format_within_the_buffer),
		cmocka_unit_test(devices_are_numbered_in_order_of_first_mention),
		cmocka_unit_test(the_65536th_device_is_refused),
		cmocka_unit_test(dtypes_are_shared_by_spelling_and_capped_at_256),
		cmocka_unit_test(anomalies_are_all_counted_and_five_kept_with_text),
		cmocka_unit_test(a_span_path_deeper_than_256_keeps_its_last_256_names),
		cmocka_unit_test(a_span_path_cut_by_its_buffer_ends_at_a_character),
		cmocka_unit_test(resolved_spans_settle_and_count_as_two_records),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
