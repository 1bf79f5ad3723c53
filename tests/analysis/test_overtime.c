/* Over-time pass: category maxima, phase peaks and bytes, step peaks and
 * the growth between steps, on a trace worked out by hand:
 *
 *   t    record                   live   span
 *   10   w   +100 parameter       100    run
 *   120  a0  +50  activation      150    step#0 / fwd
 *   130  t0  +30  temporary       180    step#0 / fwd      <- step 0 peak
 *   131  t0  -30                  150    step#0 / fwd
 *   160  g0  +20  gradient        170    step#0 / bwd
 *   170  a0  -50                  120    step#0 / bwd      <- step 0 end
 *   220  a1  +50  activation      170    step#1 / fwd
 *   230  t1  +60  temporary       230    step#1 / fwd      <- step 1 peak
 *   235  t1  -60                  170    step#1 / fwd
 *   260  g0  -20                  150    step#1 / bwd
 *   265  g1  +20  gradient        170    step#1 / bwd      <- step 1 end
 *
 * Windows: step#0 [100, 199], step#1 [200, 299]; forward [110, 149] and
 * [210, 249]; backward [150, 189] and [250, 289]. */
#include "tlbuild.h"

#include "overtime.h"

#define A CG_ALLOC
#define F CG_FREE

static cg_timeline *trace(bool paired)
{
	cg_timeline *tl = tu_tl_new();
	tl->source.pairing_known = paired;
	tu_span(tl, "run", NULL, "run", 0, 1000, CG_PHASE_NONE);
	tu_span(tl, "s0", "run", "step#0", 100, 199, CG_PHASE_NONE);
	tu_span(tl, "f0", "s0", "fwd", 110, 149, CG_PHASE_FORWARD);
	tu_span(tl, "b0", "s0", "bwd", 150, 189, CG_PHASE_BACKWARD);
	tu_span(tl, "s1", "run", "step#1", 200, 299, CG_PHASE_NONE);
	tu_span(tl, "f1", "s1", "fwd", 210, 249, CG_PHASE_FORWARD);
	tu_span(tl, "b1", "s1", "bwd", 250, 289, CG_PHASE_BACKWARD);
	tu_mem(tl, 10, "w", "run", "cuda:0", 100, A, CG_CAT_PARAMETER, NULL);
	tu_mem(tl, 120, "a0", "f0", "cuda:0", 50, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 130, "t0", "f0", "cuda:0", 30, A, CG_CAT_TEMPORARY, NULL);
	tu_mem(tl, 131, "t0", "f0", "cuda:0", 30, F, CG_CAT_TEMPORARY, NULL);
	tu_mem(tl, 160, "g0", "b0", "cuda:0", 20, A, CG_CAT_GRADIENT, NULL);
	tu_mem(tl, 170, "a0", "b0", "cuda:0", 50, F, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 220, "a1", "f1", "cuda:0", 50, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 230, "t1", "f1", "cuda:0", 60, A, CG_CAT_TEMPORARY, NULL);
	tu_mem(tl, 235, "t1", "f1", "cuda:0", 60, F, CG_CAT_TEMPORARY, NULL);
	tu_mem(tl, 260, "g0", "b1", "cuda:0", 20, F, CG_CAT_GRADIENT, NULL);
	tu_mem(tl, 265, "g1", "b1", "cuda:0", 20, A, CG_CAT_GRADIENT, NULL);
	tu_tl_finalize(tl);
	return tl;
}

/* The steps as the steps pass would hand them over. */
static cg_overtime_result *run(const cg_timeline *tl)
{
	static const uint64_t start[2] = {100, 200}, end[2] = {199, 299};
	uint32_t *step_of = malloc(tl->nspans * sizeof *step_of);
	/* spans in order: run, s0, f0, b0, s1, f1, b1 */
	static const uint32_t steps[7] = {CG_NONE, 0, 0, 0, 1, 1, 1};
	for (size_t i = 0; i < tl->nspans; i++)
		step_of[i] = steps[i];
	cg_overtime_input in = {2, start, end, step_of, (uint32_t)tl->nspans, 0, 1};
	cg_overtime_result *r;
	assert_int_equal(cg_overtime_run(&r, tl, &in, NULL), 0);
	free(step_of);
	return r;
}

static void check_steps(const cg_overtime_device *d)
{
	assert_int_equal(d->nsteps, 2);
	const cg_step_stats *s0 = &d->steps[0], *s1 = &d->steps[1];
	assert_int_equal(s0->live_at_start, 100);
	assert_int_equal(s0->peak_bytes, 180);
	assert_int_equal(s0->peak_t_ns, 130);
	assert_int_equal(s0->live_at_end, 120);
	assert_int_equal(s0->growth, 20);
	assert_int_equal(s0->allocated_bytes, 100);
	assert_int_equal(s0->allocations, 3);
	assert_int_equal(s0->freed_bytes, 80);
	assert_int_equal(s0->frees, 2);
	assert_int_equal(s1->live_at_start, 120);
	assert_int_equal(s1->peak_bytes, 230);
	assert_int_equal(s1->peak_t_ns, 230);
	assert_int_equal(s1->live_at_end, 170);
	assert_int_equal(s1->growth, 50);
	assert_int_equal(s1->allocated_bytes, 130);
	assert_int_equal(s1->freed_bytes, 80);
}

static void steps_have_their_peak_their_end_and_their_growth(void **state)
{
	cg_timeline *tl = trace(true);
	cg_overtime_result *r = run(tl);
	check_steps(&r->devices[0]);
	cg_overtime_free(r);
	cg_timeline_free(tl);
}

static void phases_have_the_peak_while_they_ran_and_their_bytes(void **state)
{
	cg_timeline *tl = trace(true);
	cg_overtime_result *r = run(tl);
	const cg_phase_stats *p = r->devices[0].phases;
	assert_true(p[CG_PHASE_FORWARD].ran);
	assert_int_equal(p[CG_PHASE_FORWARD].peak_bytes, 230);
	assert_int_equal(p[CG_PHASE_FORWARD].peak_t_ns, 230);
	/* backward: 170 at 160 in step 0, and 170 entering step 1's backward at 250 */
	assert_int_equal(p[CG_PHASE_BACKWARD].peak_bytes, 170);
	assert_int_equal(p[CG_PHASE_BACKWARD].peak_t_ns, 160);
	assert_false(p[CG_PHASE_OPTIMIZER].ran);
	assert_false(p[CG_PHASE_NONE].ran);
	assert_int_equal(p[CG_PHASE_NONE].allocated_bytes, 100);
	assert_int_equal(p[CG_PHASE_FORWARD].allocated_bytes, 190);
	assert_int_equal(p[CG_PHASE_FORWARD].allocations, 4);
	assert_int_equal(p[CG_PHASE_FORWARD].freed_bytes, 90);
	assert_int_equal(p[CG_PHASE_BACKWARD].allocated_bytes, 40);
	assert_int_equal(p[CG_PHASE_BACKWARD].freed_bytes, 70);
	assert_int_equal(p[CG_PHASE_BACKWARD].frees, 2);
	cg_overtime_free(r);
	cg_timeline_free(tl);
}

static void each_category_has_its_own_maximum(void **state)
{
	cg_timeline *tl = trace(true);
	cg_overtime_result *r = run(tl);
	const cg_category_max *c = r->devices[0].categories;
	assert_int_equal(c[CG_CAT_PARAMETER].bytes, 100);
	assert_int_equal(c[CG_CAT_PARAMETER].t_ns, 10);
	assert_int_equal(c[CG_CAT_ACTIVATION].bytes, 50);
	assert_int_equal(c[CG_CAT_ACTIVATION].t_ns, 120); /* reached again at 220: the first time counts */
	assert_int_equal(c[CG_CAT_TEMPORARY].bytes, 60);
	assert_int_equal(c[CG_CAT_TEMPORARY].t_ns, 230);
	assert_int_equal(c[CG_CAT_GRADIENT].bytes, 20);
	assert_int_equal(c[CG_CAT_GRADIENT].t_ns, 160);
	assert_int_equal(c[CG_CAT_INPUT].bytes, 0);
	cg_overtime_free(r);
	cg_timeline_free(tl);
}

static void without_pairing_the_running_sums_give_the_same_figures(void **state)
{
	cg_timeline *tl = trace(false);
	cg_overtime_result *r = run(tl);
	check_steps(&r->devices[0]);
	assert_int_equal(r->devices[0].categories[CG_CAT_TEMPORARY].bytes, 60);
	cg_overtime_free(r);
	cg_timeline_free(tl);
}

static void a_window_that_only_frees_peaks_at_its_start(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 5, "x", NULL, "cuda:0", 100, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 50, "x", NULL, "cuda:0", 100, F, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 80, "y", NULL, "cuda:0", 100, A, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	static const uint64_t start[3] = {40, 60, 1}, end[3] = {55, 70, 90};
	cg_overtime_input in = {3, start, end, NULL, 0, 0, 1};
	cg_overtime_result *r;
	cg_overtime_run(&r, tl, &in, NULL);
	assert_int_equal(r->devices[0].steps[0].peak_bytes, 100);
	assert_int_equal(r->devices[0].steps[0].peak_t_ns, 40);
	assert_int_equal(r->devices[0].steps[0].live_at_end, 0);
	assert_int_equal(r->devices[0].steps[0].growth, -100);
	/* no record inside: the live bytes entering it */
	assert_int_equal(r->devices[0].steps[1].peak_bytes, 0);
	assert_int_equal(r->devices[0].steps[1].live_at_end, 0);
	/* 100 at 5 and again at 80: the first time counts */
	assert_int_equal(r->devices[0].steps[2].peak_bytes, 100);
	assert_int_equal(r->devices[0].steps[2].peak_t_ns, 5);
	cg_overtime_free(r);
	cg_timeline_free(tl);
}

/* Each device costs (steps + phase windows) cells: with room for 8 cells,
 * two devices of 4 fit, the third gets no window figures; a device
 * without memory records gets none either. */
static void devices_beyond_the_window_budget_get_no_window_figures(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "f", NULL, "fwd", 10, 20, CG_PHASE_FORWARD);
	tu_span(tl, "b", NULL, "bwd", 30, 40, CG_PHASE_BACKWARD);
	tu_devmem(tl, 1, "cpu", 1, 1, UINT64_MAX);
	tu_mem(tl, 15, "x", "f", "cuda:0", 8, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 15, "x", "f", "cuda:1", 8, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 15, "x", "f", "cuda:2", 8, A, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	static const uint64_t start[2] = {0, 25}, end[2] = {24, 50};
	cg_overtime_input in = {2, start, end, NULL, 0, 8, 4}; /* a thread a device */
	cg_overtime_result *r;
	cg_overtime_run(&r, tl, &in, NULL);
	assert_false(r->devices[0].timed); /* cpu: checkpoints only */
	assert_true(r->devices[1].timed);
	assert_true(r->devices[2].timed);
	assert_false(r->devices[3].timed);
	assert_int_equal(r->devices[2].nsteps, 2);
	assert_int_equal(r->devices[2].steps[0].peak_bytes, 8);
	assert_true(r->devices[2].phases[CG_PHASE_FORWARD].ran);
	assert_int_equal(r->devices[3].nsteps, 0);
	assert_false(r->devices[3].phases[CG_PHASE_FORWARD].ran);
	/* figures that need no window stay */
	assert_int_equal(r->devices[3].categories[CG_CAT_ACTIVATION].bytes, 8);
	assert_int_equal(r->devices[3].phases[CG_PHASE_FORWARD].allocated_bytes, 8);
	cg_overtime_free(r);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(steps_have_their_peak_their_end_and_their_growth),
		cmocka_unit_test(phases_have_the_peak_while_they_ran_and_their_bytes),
		cmocka_unit_test(each_category_has_its_own_maximum),
		cmocka_unit_test(without_pairing_the_running_sums_give_the_same_figures),
		cmocka_unit_test(a_window_that_only_frees_peaks_at_its_start),
		cmocka_unit_test(devices_beyond_the_window_budget_get_no_window_figures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
