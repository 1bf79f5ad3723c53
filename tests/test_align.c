/* Two runs on one time axis: plain normalised time, or phase boundaries
 * aligned. Positions worked out by hand. */
#include "testutil.h"

#include <math.h>

#include "align.h"

/* Base (ends at 1000): forward [100, 200], backward [200, 400], optimizer
 * [400, 500]. New (ends at 2000): forward [100, 300], backward [300, 900],
 * then third a phase given by `third` over [900, 1000]. */
static cg_timeline *run(bool is_new, cg_phase third)
{
	cg_timeline *tl = tu_tl_new();
	uint64_t end = is_new ? 2000 : 1000;
	tu_span(tl, "r", NULL, "run", 0, end, CG_PHASE_NONE);
	if (!is_new) {
		tu_span(tl, "f", "r", "fwd", 100, 200, CG_PHASE_FORWARD);
		tu_span(tl, "b", "r", "bwd", 200, 400, CG_PHASE_BACKWARD);
		tu_span(tl, "o", "r", "opt", 400, 500, CG_PHASE_OPTIMIZER);
	} else {
		tu_span(tl, "f", "r", "fwd", 100, 300, CG_PHASE_FORWARD);
		tu_span(tl, "b", "r", "bwd", 300, 900, CG_PHASE_BACKWARD);
		tu_span(tl, "o", "r", "opt", 900, 1000, third);
	}
	/* a nested span of the same phase is no window of its own */
	tu_span(tl, "inner", "f", "mm", 120, 150, CG_PHASE_FORWARD);
	tu_mem(tl, 1, "x", "r", "cpu", 8, CG_ALLOC, CG_CAT_INPUT, NULL);
	tu_tl_finalize(tl);
	return tl;
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-12;
}

static void start_alignment_normalises_each_run_to_its_duration(void **state)
{
	cg_timeline *b = run(false, CG_PHASE_OPTIMIZER), *n = run(true, CG_PHASE_OPTIMIZER);
	cg_align *al;
	cg_align_run(&al, b, n, CG_ALIGN_START);
	assert_int_equal(al->duration_ns[CG_ALIGN_BASE], 1000);
	assert_int_equal(al->duration_ns[CG_ALIGN_NEW], 2000);
	assert_int_equal(al->nwindows[CG_ALIGN_BASE], 3);
	assert_int_equal(al->matched, 0);
	assert_int_equal(al->nknots, 2);
	assert_true(near(cg_align_at(al, CG_ALIGN_BASE, 300), 0.3));
	assert_true(near(cg_align_at(al, CG_ALIGN_NEW, 200), 0.1));
	assert_true(near(cg_align_at(al, CG_ALIGN_NEW, 2000), 1.0));
	assert_true(near(cg_align_at(al, CG_ALIGN_NEW, 5000), 1.0));
	assert_true(near(cg_align_at(al, CG_ALIGN_BASE, 0), 0.0));
	cg_align_free(al);
	cg_timeline_free(b);
	cg_timeline_free(n);
}

/* Knots: (0,0) at 0; (100,100) at (0.1 + 0.05)/2 = 0.075; (200,300) at
 * (0.2 + 0.15)/2 = 0.175; backward's start is the same knot; (400,900) at
 * (0.4 + 0.45)/2 = 0.425; (500,1000) at 0.5; (1000,2000) at 1. */
static void phase_alignment_puts_matching_boundaries_together(void **state)
{
	cg_timeline *b = run(false, CG_PHASE_OPTIMIZER), *n = run(true, CG_PHASE_OPTIMIZER);
	cg_align *al;
	cg_align_run(&al, b, n, CG_ALIGN_PHASES);
	assert_int_equal(al->matched, 3);
	assert_int_equal(al->nknots, 6);
	static const double at[] = {0, 0.075, 0.175, 0.425, 0.5, 1};
	static const uint64_t bt[] = {0, 100, 200, 400, 500, 1000}, nt[] = {0, 100, 300, 900, 1000, 2000};
	for (int k = 0; k < 6; k++) {
		assert_int_equal(al->knot_ns[CG_ALIGN_BASE][k], bt[k]);
		assert_int_equal(al->knot_ns[CG_ALIGN_NEW][k], nt[k]);
		assert_true(near(al->knot_at[k], at[k]));
		/* each boundary lands at the same place in both runs */
		assert_true(near(cg_align_at(al, CG_ALIGN_BASE, bt[k]), at[k]));
		assert_true(near(cg_align_at(al, CG_ALIGN_NEW, nt[k]), at[k]));
	}
	/* the middle of backward in both: 0.175 + 0.5 * 0.25 */
	assert_true(near(cg_align_at(al, CG_ALIGN_BASE, 300), 0.3));
	assert_true(near(cg_align_at(al, CG_ALIGN_NEW, 600), 0.3));
	/* halfway through new's forward */
	assert_true(near(cg_align_at(al, CG_ALIGN_NEW, 200), 0.125));
	cg_align_free(al);
	cg_timeline_free(b);
	cg_timeline_free(n);
}

/* New's third window is a forward: only the first two match. */
static void windows_match_while_their_phases_agree(void **state)
{
	cg_timeline *b = run(false, CG_PHASE_OPTIMIZER), *n = run(true, CG_PHASE_FORWARD);
	cg_align *al;
	cg_align_run(&al, b, n, CG_ALIGN_PHASES);
	assert_int_equal(al->matched, 2);
	assert_int_equal(al->nknots, 5); /* 0, 100, 200/300, 400/900, end */
	assert_true(near(cg_align_at(al, CG_ALIGN_BASE, 400), 0.425));
	/* after the last match time runs linearly to the end: (500 - 400) / (1000 - 400) of the way */
	assert_true(near(cg_align_at(al, CG_ALIGN_BASE, 500), 0.425 + 0.575 / 6));
	cg_align_free(al);
	cg_timeline_free(b);
	cg_timeline_free(n);
}

static void a_run_without_time_or_phases_still_maps(void **state)
{
	cg_timeline *b = tu_tl_new(), *n = tu_tl_new();
	tu_mem(b, 0, "x", NULL, "cpu", 8, CG_ALLOC, CG_CAT_INPUT, NULL);
	tu_mem(n, 0, "x", NULL, "cpu", 8, CG_ALLOC, CG_CAT_INPUT, NULL);
	tu_tl_finalize(b);
	tu_tl_finalize(n);
	cg_align *al;
	cg_align_run(&al, b, n, CG_ALIGN_PHASES);
	assert_int_equal(al->duration_ns[CG_ALIGN_BASE], 1);
	assert_int_equal(al->nknots, 2);
	assert_true(near(cg_align_at(al, CG_ALIGN_BASE, 0), 0.0));
	cg_align_free(al);
	cg_timeline_free(b);
	cg_timeline_free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(start_alignment_normalises_each_run_to_its_duration),
		cmocka_unit_test(phase_alignment_puts_matching_boundaries_together),
		cmocka_unit_test(windows_match_while_their_phases_agree),
		cmocka_unit_test(a_run_without_time_or_phases_still_maps),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
