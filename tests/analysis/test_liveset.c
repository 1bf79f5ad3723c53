/* Live-set pass: what was live at a moment, rebuilt from the pairing;
 * bytes by category from running sums, also without pairing. */
#include "tlbuild.h"

#include "liveset.h"

#define A CG_ALLOC
#define F CG_FREE

static cg_liveset_result *live_after(const cg_timeline *tl, uint32_t after)
{
	cg_liveset_result *r;
	assert_int_equal(cg_liveset_run(&r, tl, &after, NULL), 0);
	return r;
}

/* run > fwd (forward) > op ; run > bwd (backward); a param made outside any phase. */
static cg_timeline *trace(bool paired)
{
	cg_timeline *tl = tu_tl_new();
	uint16_t dev = tu_device(tl, "cuda:0");
	tl->devices[dev].baseline_bytes = 7;
	tl->source.pairing_known = paired;
	tu_span(tl, "r", NULL, "run", 0, 100, CG_PHASE_NONE);
	tu_span(tl, "f", "r", "fwd", 10, 40, CG_PHASE_FORWARD);
	tu_span(tl, "o", "f", "op", 12, 20, CG_PHASE_NONE);
	tu_span(tl, "b", "r", "bwd", 50, 90, CG_PHASE_BACKWARD);
	tu_mem(tl, 1, "w", "r", "cuda:0", 400, A, CG_CAT_PARAMETER, "empty");	  /* live to the end */
	tu_mem(tl, 13, "act", "o", "cuda:0", 300, A, CG_CAT_ACTIVATION, "mm");	  /* freed at 60 */
	tu_mem(tl, 15, "tmp", "o", "cuda:0", 300, A, CG_CAT_TEMPORARY, "mm");	  /* freed at 16 */
	tu_mem(tl, 16, "tmp", "o", "cuda:0", 300, F, CG_CAT_TEMPORARY, NULL);
	tu_mem(tl, 55, "g", "b", "cuda:0", 200, A, CG_CAT_GRADIENT, "mm");	  /* peak: 7+400+300+200+50 */
	tu_mem(tl, 60, "act", "b", "cuda:0", 300, F, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 70, "old", "b", "cuda:0", 50, F, CG_CAT_INPUT, NULL);	  /* from before the trace */
	tu_tl_finalize(tl);
	return tl;
}

static void the_live_set_at_the_peak_lists_allocations_largest_first(void **state)
{
	cg_timeline *tl = trace(true);
	uint32_t g = 4; /* the record at t=55, fifth in time order */
	assert_int_equal(tl->mem[g].t_ns, 55);
	cg_liveset_result *r = live_after(tl, g);
	const cg_liveset_device *d = &r->devices[0];
	assert_true(d->listed);
	assert_int_equal(d->bytes, 7 + 400 + 300 + 200 + 50);
	assert_int_equal(d->count, 4); /* w, act, g and old; the baseline is no allocation */
	assert_int_equal(d->nallocs, 4);
	/* 400 w, then the two 300/200 in order, then 50 from before the trace */
	assert_int_equal(d->allocs[0].bytes, 400);
	assert_int_equal(tl->mem[d->allocs[0].alloc].t_ns, 1);
	assert_int_equal(d->allocs[0].end, CG_NONE);
	assert_int_equal(d->allocs[1].bytes, 300);
	assert_int_equal(tl->mem[d->allocs[1].end].t_ns, 60);
	assert_int_equal(d->allocs[2].bytes, 200);
	assert_int_equal(d->allocs[3].bytes, 50);
	assert_int_equal(d->allocs[3].alloc, CG_NONE);
	assert_int_equal(tl->mem[d->allocs[3].end].t_ns, 70);
	assert_int_equal(cg_live_alloc_category(tl, &d->allocs[3]), CG_CAT_INPUT);
	assert_int_equal(cg_live_alloc_phase(tl, &d->allocs[3]), CG_PHASE_NONE);

	assert_int_equal(d->by_category[CG_CAT_PARAMETER], 400);
	assert_int_equal(d->by_category[CG_CAT_ACTIVATION], 300);
	assert_int_equal(d->by_category[CG_CAT_GRADIENT], 200);
	assert_int_equal(d->by_category[CG_CAT_INPUT], 50);
	assert_int_equal(d->by_category[CG_CAT_TEMPORARY], 0);
	assert_int_equal(d->by_category[CG_CAT_BASELINE], 7);
	assert_int_equal(d->count_by_category[CG_CAT_INPUT], 1);

	/* phases: the op inherits forward from fwd; the param and the old input have none */
	assert_int_equal(d->by_phase[CG_PHASE_FORWARD], 300);
	assert_int_equal(d->by_phase[CG_PHASE_BACKWARD], 200);
	assert_int_equal(d->by_phase[CG_PHASE_NONE], 400 + 50 + 7);
	assert_int_equal(d->by_phase_category[CG_PHASE_NONE][CG_CAT_BASELINE], 7);
	assert_int_equal(d->by_phase_category[CG_PHASE_FORWARD][CG_CAT_ACTIVATION], 300);
	cg_liveset_free(r);
	cg_timeline_free(tl);
}

static void before_any_record_only_older_memory_is_live(void **state)
{
	cg_timeline *tl = trace(true);
	cg_liveset_result *r = live_after(tl, CG_NONE);
	const cg_liveset_device *d = &r->devices[0];
	assert_int_equal(d->after, CG_NONE);
	assert_int_equal(d->bytes, 57);
	assert_int_equal(d->nallocs, 1);
	assert_int_equal(d->allocs[0].alloc, CG_NONE);
	cg_liveset_free(r);
	cg_timeline_free(tl);
}

static void at_the_end_what_was_never_freed_is_live(void **state)
{
	cg_timeline *tl = trace(true);
	cg_liveset_result *r = live_after(tl, (uint32_t)tl->nmem - 1);
	const cg_liveset_device *d = &r->devices[0];
	assert_int_equal(d->bytes, 7 + 400 + 200);
	assert_int_equal(d->nallocs, 2);
	assert_int_equal(d->by_category[CG_CAT_INPUT], 0);
	assert_int_equal(d->by_phase[CG_PHASE_BACKWARD], 200);
	cg_liveset_free(r);
	cg_timeline_free(tl);
}

static void without_pairing_only_the_sums_are_given(void **state)
{
	cg_timeline *tl = trace(false);
	cg_liveset_result *r = live_after(tl, 4);
	const cg_liveset_device *d = &r->devices[0];
	assert_false(d->listed);
	assert_int_equal(d->nallocs, 0);
	assert_int_equal(d->bytes, 957);
	assert_int_equal(d->by_category[CG_CAT_ACTIVATION], 300);
	assert_int_equal(d->by_category[CG_CAT_INPUT], 50);
	assert_int_equal(d->by_phase[CG_PHASE_FORWARD], 0);
	cg_liveset_free(r);
	cg_timeline_free(tl);
}

/* The trace above plus an id allocated again while live, a double free
 * and a second device, so every branch of the sums and lists is met. */
static cg_timeline *messy_trace(bool paired)
{
	cg_timeline *tl = tu_tl_new();
	tu_device(tl, "cuda:0");
	tu_device(tl, "cuda:1");
	tl->devices[0].baseline_bytes = 5;
	tl->source.pairing_known = paired;
	tu_span(tl, "r", NULL, "run", 0, 200, CG_PHASE_NONE);
	tu_span(tl, "f", "r", "fwd", 10, 90, CG_PHASE_FORWARD);
	tu_mem(tl, 1, "w", "r", "cuda:0", 400, A, CG_CAT_PARAMETER, "empty");
	tu_mem(tl, 2, "w1", "r", "cuda:1", 64, A, CG_CAT_PARAMETER, "empty");
	tu_mem(tl, 11, "a", "f", "cuda:0", 300, A, CG_CAT_ACTIVATION, "mm");
	tu_mem(tl, 12, "a", "f", "cuda:0", 128, A, CG_CAT_ACTIVATION, "mm"); /* ends the first a */
	tu_mem(tl, 13, "t", "f", "cuda:0", 300, A, CG_CAT_TEMPORARY, "mm");
	tu_mem(tl, 14, "t", "f", "cuda:0", 300, F, CG_CAT_TEMPORARY, NULL);
	tu_mem(tl, 15, "t", "f", "cuda:0", 300, F, CG_CAT_TEMPORARY, NULL); /* double free */
	tu_mem(tl, 16, "old", "f", "cuda:0", 50, F, CG_CAT_INPUT, NULL);	   /* from before the trace */
	tu_mem(tl, 17, "g", "f", "cuda:0", 300, A, CG_CAT_GRADIENT, "mm");
	tu_mem(tl, 18, "old2", "f", "cuda:0", 70, F, CG_CAT_INPUT, NULL);
	tu_mem(tl, 19, "a", "f", "cuda:0", 128, F, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 20, "t1", "f", "cuda:1", 32, A, CG_CAT_TEMPORARY, "mm");
	tu_tl_finalize(tl);
	return tl;
}

static void assert_same_live_set(const cg_liveset_device *a, const cg_liveset_device *b)
{
	assert_int_equal(a->after, b->after);
	assert_int_equal(a->bytes, b->bytes);
	assert_int_equal(a->count, b->count);
	assert_memory_equal(a->by_category, b->by_category, sizeof a->by_category);
	assert_memory_equal(a->count_by_category, b->count_by_category, sizeof a->count_by_category);
	assert_int_equal(a->listed, b->listed);
	assert_memory_equal(a->by_phase, b->by_phase, sizeof a->by_phase);
	assert_memory_equal(a->by_phase_category, b->by_phase_category, sizeof a->by_phase_category);
	assert_int_equal(a->nallocs, b->nallocs);
	for (size_t i = 0; i < a->nallocs; i++) {
		assert_int_equal(a->allocs[i].alloc, b->allocs[i].alloc);
		assert_int_equal(a->allocs[i].end, b->allocs[i].end);
		assert_int_equal(a->allocs[i].bytes, b->allocs[i].bytes);
	}
}

static void many_moments_in_one_pass_equal_one_moment_at_a_time(void **state)
{
	for (int paired = 0; paired <= 1; paired++) {
		cg_timeline *tl = messy_trace(paired);
		/* every record, before any, another device's record and past the
		 * end, out of order and with repeats */
		uint32_t after[32];
		size_t n = 0;
		for (uint32_t i = (uint32_t)tl->nmem; i-- > 0;)
			after[n++] = i;
		after[n++] = CG_NONE;
		after[n++] = (uint32_t)tl->nmem + 3;
		after[n++] = 3;
		after[n++] = 0;
		for (uint32_t d = 0; d < tl->ndevices; d++) {
			cg_liveset_device many[32];
			cg_liveset_device_many(many, tl, d, after, n);
			for (size_t j = 0; j < n; j++) {
				cg_liveset_device one;
				cg_liveset_device_at(&one, tl, d, after[j]);
				assert_same_live_set(&many[j], &one);
				cg_liveset_device_clear(&one);
				cg_liveset_device_clear(&many[j]);
			}
		}
		cg_timeline_free(tl);
	}
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_live_set_at_the_peak_lists_allocations_largest_first),
		cmocka_unit_test(before_any_record_only_older_memory_is_live),
		cmocka_unit_test(at_the_end_what_was_never_freed_is_live),
		cmocka_unit_test(without_pairing_only_the_sums_are_given),
		cmocka_unit_test(many_moments_in_one_pass_equal_one_moment_at_a_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
