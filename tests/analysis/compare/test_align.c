/* Two runs on one time axis: plain normalised time, or phase boundaries
 * aligned. Positions worked out by hand. */
#include "tlbuild.h"

#include <math.h>

#include "align.h"
#include "analysis.h"

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

typedef struct runs {
	cg_timeline *tl[2];
	cg_analysis *a[2];
	cg_alignment *al;
} runs;

static void align(runs *r, cg_timeline *b, cg_timeline *n, cg_align_mode mode)
{
	r->tl[0] = b;
	r->tl[1] = n;
	for (int s = 0; s < 2; s++)
		assert_int_equal(cg_analysis_run(&r->a[s], r->tl[s], NULL, NULL), 0);
	cg_align_run(&r->al, r->a[0], r->a[1], mode);
}

static void release(runs *r)
{
	cg_align_free(r->al);
	for (int s = 0; s < 2; s++) {
		cg_analysis_free(r->a[s]);
		cg_timeline_free(r->tl[s]);
	}
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-12;
}

static void start_alignment_normalises_each_run_to_its_duration(void **state)
{
	runs r;
	align(&r, run(false, CG_PHASE_OPTIMIZER), run(true, CG_PHASE_OPTIMIZER), CG_ALIGN_START);
	const cg_alignment *al = r.al;
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
	release(&r);
}

/* Knots: (0,0) at 0; (100,100) at (0.1 + 0.05)/2 = 0.075; (200,300) at
 * (0.2 + 0.15)/2 = 0.175; backward's start is the same knot; (400,900) at
 * (0.4 + 0.45)/2 = 0.425; (500,1000) at 0.5; (1000,2000) at 1. */
static void phase_alignment_puts_matching_boundaries_together(void **state)
{
	runs r;
	align(&r, run(false, CG_PHASE_OPTIMIZER), run(true, CG_PHASE_OPTIMIZER), CG_ALIGN_PHASES);
	const cg_alignment *al = r.al;
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
	release(&r);
}

/* New's third window is a forward: the longest common sequence of phases
 * is forward, backward. */
static void windows_match_while_their_phases_agree(void **state)
{
	runs r;
	align(&r, run(false, CG_PHASE_OPTIMIZER), run(true, CG_PHASE_FORWARD), CG_ALIGN_PHASES);
	const cg_alignment *al = r.al;
	assert_int_equal(al->matched, 2);
	assert_int_equal(al->nknots, 5); /* 0, 100, 200/300, 400/900, end */
	assert_true(near(cg_align_at(al, CG_ALIGN_BASE, 400), 0.425));
	/* after the last match time runs linearly to the end: (500 - 400) / (1000 - 400) of the way */
	assert_true(near(cg_align_at(al, CG_ALIGN_BASE, 500), 0.425 + 0.575 / 6));
	release(&r);
}

/* Two steps in each run; the new one runs a validation forward before
 * each training forward. Base (ends at 1000): step#k at 100 + 400k for
 * 300 ns holding F, B, O of 100 ns each. New (ends at 1000): step#k at
 * 100 + 500k for 400 ns holding Fv, F, B, O of 100 ns each. */
static cg_timeline *stepped(bool is_new)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "r", NULL, "run", 0, 1000, CG_PHASE_NONE);
	static const cg_phase base_phases[] = {CG_PHASE_FORWARD, CG_PHASE_BACKWARD, CG_PHASE_OPTIMIZER};
	static const cg_phase new_phases[] = {CG_PHASE_FORWARD, CG_PHASE_FORWARD, CG_PHASE_BACKWARD, CG_PHASE_OPTIMIZER};
	int nphases = is_new ? 4 : 3;
	for (int k = 0; k < 2; k++) {
		char id[16], name[16];
		uint64_t t0 = 100 + (uint64_t)k * (is_new ? 500 : 400);
		snprintf(id, sizeof id, "s%d", k);
		snprintf(name, sizeof name, "step#%d", k);
		tu_span(tl, id, "r", name, t0, t0 + 100 * (uint64_t)nphases, CG_PHASE_NONE);
		for (int p = 0; p < nphases; p++) {
			char wid[16];
			snprintf(wid, sizeof wid, "w%d.%d", k, p);
			uint64_t t = t0 + 100 * (uint64_t)p;
			tu_span(tl, wid, id, "phase", t, t + 100, is_new ? new_phases[p] : base_phases[p]);
		}
	}
	tu_mem(tl, 1, "x", "r", "cpu", 8, CG_ALLOC, CG_CAT_INPUT, NULL);
	tu_tl_finalize(tl);
	return tl;
}

/* Knots: (0,0) 0; step 0 starts (100,100) 0.1; F (100,200) 0.15, (200,300)
 * 0.25; B ends (300,400) 0.35; O ends (400,500) 0.45; step 1 starts
 * (500,600) 0.55; F (500,700) 0.6, (600,800) 0.7; B (700,900) 0.8; O
 * (800,1000) 0.9; the end (1000,1000) 1. */
static void steps_anchor_and_the_validation_forward_is_left_out(void **state)
{
	runs r;
	align(&r, stepped(false), stepped(true), CG_ALIGN_PHASES);
	const cg_alignment *al = r.al;
	assert_int_equal(r.a[0]->steps->nsteps, 2);
	assert_int_equal(r.a[1]->steps->nsteps, 2);
	assert_int_equal(al->steps_matched, 2);
	assert_int_equal(al->matched, 6);
	assert_int_equal(al->nknots, 12);
	static const double at[] = {0, 0.1, 0.15, 0.25, 0.35, 0.45, 0.55, 0.6, 0.7, 0.8, 0.9, 1};
	for (int k = 0; k < 12; k++)
		assert_true(near(al->knot_at[k], at[k]));
	/* the training forwards start at the same place; the validation one is unmatched */
	assert_true(near(cg_align_at(al, CG_ALIGN_BASE, 100), 0.15));
	assert_true(near(cg_align_at(al, CG_ALIGN_NEW, 200), 0.15));
	assert_false(al->windows[CG_ALIGN_NEW][0].matched);
	assert_true(al->windows[CG_ALIGN_NEW][1].matched);
	assert_false(al->windows[CG_ALIGN_NEW][4].matched);
	assert_true(al->windows[CG_ALIGN_BASE][0].matched);
	/* the middle of step 1's backward in both */
	assert_true(near(cg_align_at(al, CG_ALIGN_BASE, 650), 0.75));
	assert_true(near(cg_align_at(al, CG_ALIGN_NEW, 850), 0.75));
	release(&r);
}

static void a_run_without_time_or_phases_still_maps(void **state)
{
	cg_timeline *b = tu_tl_new(), *n = tu_tl_new();
	tu_mem(b, 0, "x", NULL, "cpu", 8, CG_ALLOC, CG_CAT_INPUT, NULL);
	tu_mem(n, 0, "x", NULL, "cpu", 8, CG_ALLOC, CG_CAT_INPUT, NULL);
	tu_tl_finalize(b);
	tu_tl_finalize(n);
	runs r;
	align(&r, b, n, CG_ALIGN_PHASES);
	const cg_alignment *al = r.al;
	assert_int_equal(al->duration_ns[CG_ALIGN_BASE], 1);
	assert_int_equal(al->nknots, 2);
	assert_true(near(cg_align_at(al, CG_ALIGN_BASE, 0), 0.0));
	release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(start_alignment_normalises_each_run_to_its_duration),
		cmocka_unit_test(phase_alignment_puts_matching_boundaries_together),
		cmocka_unit_test(windows_match_while_their_phases_agree),
		cmocka_unit_test(steps_anchor_and_the_validation_forward_is_left_out),
		cmocka_unit_test(a_run_without_time_or_phases_still_maps),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
