/* The diff view (cg_diff_view_new): the comparison and the alignment of
 * two runs built together, the analyses borrowed, the list length kept.
 * The runs are difftrace.h's (tests/helpers/difftrace.h):
 *
 *   base: w 100 B at t = 1, then per step k an activation of 64 B at
 *   100 (k + 1) + 11, freed at + 40: peak 100 + 64 = 164 B at t = 111.
 *   grown: the same with 128 B activations: peak 228 B at t = 111.
 *   Both: 3 steps, one forward window each (fwd [t0 + 5, t0 + 45]; fc1
 *   inside it sets no phase of its own); the run span ends at 400. */
#include "tlbuild.h"

#include <math.h>
#include <string.h>

#include "compare.h"
#include "difftrace.h"

typedef struct runs {
	cg_timeline *tl[2];
	cg_analysis *a[2];
} runs;

static runs two_runs(uint64_t new_act_bytes)
{
	run_spec base = RUN_SPEC_INIT, grown = RUN_SPEC_INIT;
	grown.act_bytes = new_act_bytes;
	runs r;
	r.tl[0] = dt_timeline(&base);
	r.tl[1] = dt_timeline(&grown);
	for (int s = 0; s < 2; s++)
		assert_int_equal(cg_analysis_run(&r.a[s], r.tl[s], NULL, NULL), 0);
	return r;
}

static void release(runs *r)
{
	for (int s = 0; s < 2; s++) {
		cg_analysis_free(r->a[s]);
		cg_timeline_free(r->tl[s]);
	}
}

static cg_diff_view *view(const runs *r, cg_align_mode mode, unsigned top)
{
	cg_diff_view *v;
	cg_error err = CG_ERROR_INIT;
	if (cg_diff_view_new(&v, r->a[0], r->a[1], mode, top, &err) != 0)
		fail_msg("diff view failed: %s", err.msg);
	assert_non_null(v);
	return v;
}

static void the_view_borrows_both_analyses_and_keeps_top(void **state)
{
	runs r = two_runs(128);
	static const unsigned tops[] = {0, 1, 20, UINT32_MAX};
	for (size_t i = 0; i < sizeof tops / sizeof tops[0]; i++) {
		cg_diff_view *v = view(&r, CG_ALIGN_PHASES, tops[i]);
		assert_ptr_equal(v->run[CG_DIFF_BASE], r.a[0]);
		assert_ptr_equal(v->run[CG_DIFF_NEW], r.a[1]);
		assert_int_equal(v->top, tops[i]);
		assert_non_null(v->diff);
		assert_non_null(v->align);
		cg_diff_view_free(v);
	}
	/* the analyses outlive the view: still whole after it is freed */
	assert_int_equal(r.a[0]->peak->devices[0].peak_bytes, 164);
	assert_int_equal(r.a[1]->peak->devices[0].peak_bytes, 228);
	release(&r);
}

/* The diff's peaks are the analyses' peaks, device by device. */
static void the_diff_holds_the_two_analyses_peaks(void **state)
{
	runs r = two_runs(128);
	cg_diff_view *v = view(&r, CG_ALIGN_PHASES, 20);
	assert_int_equal(v->diff->ndevices, 1);
	const cg_diff_device *dev = &v->diff->devices[0];
	assert_string_equal(dev->name, "cuda:0");
	for (int s = 0; s < 2; s++) {
		assert_int_equal(dev->index[s], 0);
		assert_int_equal(dev->peak.v[s], r.a[s]->peak->devices[0].peak_bytes);
		assert_int_equal(dev->peak_t_ns.v[s], r.a[s]->peak->devices[0].peak_t_ns);
	}
	assert_int_equal(dev->peak.v[CG_DIFF_BASE], 164);
	assert_int_equal(dev->peak.v[CG_DIFF_NEW], 228);
	assert_int_equal(dev->peak_t_ns.v[CG_DIFF_NEW], 111);
	/* the same comparison cg_diff_run makes on its own */
	cg_diff_result *d;
	assert_int_equal(cg_diff_run(&d, r.a[0], r.a[1], NULL), 0);
	assert_int_equal(d->ndevices, v->diff->ndevices);
	assert_int_equal(d->devices[0].nnodes, dev->nnodes);
	assert_int_equal(d->devices[0].nchanged, dev->nchanged);
	assert_int_equal(d->devices[0].ngroups, dev->ngroups);
	assert_int_equal(d->npaths, v->diff->npaths);
	cg_diff_free(d);
	cg_diff_view_free(v);
	release(&r);
}

/* Phase alignment matches the 3 steps and their 3 forward windows; plain
 * time matches nothing. Both runs last 400 ns with the same boundaries,
 * so either way t maps to t / 400. */
static void the_alignment_follows_the_mode(void **state)
{
	runs r = two_runs(128);
	cg_diff_view *phases = view(&r, CG_ALIGN_PHASES, 20), *start = view(&r, CG_ALIGN_START, 20);
	assert_int_equal(phases->align->mode, CG_ALIGN_PHASES);
	assert_int_equal(phases->align->steps_matched, 3);
	assert_int_equal(phases->align->matched, 3);
	assert_int_equal(start->align->mode, CG_ALIGN_START);
	assert_int_equal(start->align->steps_matched, 0);
	assert_int_equal(start->align->matched, 0);
	assert_int_equal(start->align->nknots, 2);
	for (int s = 0; s < 2; s++) {
		assert_int_equal(phases->align->duration_ns[s], 400);
		assert_int_equal(start->align->duration_ns[s], 400);
		assert_true(fabs(cg_align_at(phases->align, s, 205) - 205.0 / 400.0) < 1e-12);
		assert_true(fabs(cg_align_at(start->align, s, 205) - 205.0 / 400.0) < 1e-12);
	}
	/* the same alignment cg_align_run makes on its own */
	cg_alignment *al;
	cg_align_run(&al, r.a[0], r.a[1], CG_ALIGN_PHASES);
	assert_int_equal(al->nknots, phases->align->nknots);
	for (uint32_t k = 0; k < al->nknots; k++) {
		assert_int_equal(al->knot_ns[0][k], phases->align->knot_ns[0][k]);
		assert_int_equal(al->knot_ns[1][k], phases->align->knot_ns[1][k]);
		assert_true(al->knot_at[k] == phases->align->knot_at[k]);
	}
	cg_align_free(al);
	cg_diff_view_free(phases);
	cg_diff_view_free(start);
	release(&r);
}

/* Base and new in the other order: the view says which is which. */
static void the_order_of_the_runs_is_kept(void **state)
{
	runs r = two_runs(128);
	cg_diff_view *v;
	assert_int_equal(cg_diff_view_new(&v, r.a[1], r.a[0], CG_ALIGN_START, 5, NULL), 0);
	assert_ptr_equal(v->run[CG_DIFF_BASE], r.a[1]);
	assert_int_equal(v->diff->devices[0].peak.v[CG_DIFF_BASE], 228);
	assert_int_equal(v->diff->devices[0].peak.v[CG_DIFF_NEW], 164);
	cg_diff_view_free(v);
	release(&r);
}

/* A run compared with itself: nothing changed, every boundary matched. */
static void a_run_against_itself_differs_in_nothing(void **state)
{
	runs r = two_runs(64);
	cg_diff_view *v = view(&r, CG_ALIGN_PHASES, 20);
	const cg_diff_device *dev = &v->diff->devices[0];
	assert_false(cg_diff_changed(dev->peak));
	assert_int_equal(dev->nchanged, 0);
	assert_int_equal(dev->ngroups, 0);
	assert_int_equal(v->align->matched, 3);
	for (uint32_t k = 0; k < v->align->nknots; k++)
		assert_int_equal(v->align->knot_ns[0][k], v->align->knot_ns[1][k]);
	cg_diff_view_free(v);
	release(&r);
}

static void freeing_no_view_does_nothing(void **state)
{
	cg_diff_view_free(NULL);
	/* a view freed with its own diff and alignment leaves no leak (under ASan) */
	runs r = two_runs(128);
	cg_diff_view_free(view(&r, CG_ALIGN_START, 1));
	assert_int_equal(r.a[0]->peak->ndevices, 1);
	release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_view_borrows_both_analyses_and_keeps_top),
		cmocka_unit_test(the_diff_holds_the_two_analyses_peaks),
		cmocka_unit_test(the_alignment_follows_the_mode),
		cmocka_unit_test(the_order_of_the_runs_is_kept),
		cmocka_unit_test(a_run_against_itself_differs_in_nothing),
		cmocka_unit_test(freeing_no_view_does_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
