/* The analysis driver (cg_analysis_run): it refuses a timeline that is not
 * finalized, runs every pass, hands each pass what the others found (the
 * peak's record, the end moment, the steps), and gives the same results on
 * one thread as on many. The figures of each pass are tested in its own
 * file; here they are worked out by hand on one run with three devices:
 *
 *   devices in order: cpu (0, 7 B allocated before profiling), cuda:0 (1), cuda:1 (2)
 *   spans: run [0, 1000]; step#k (k = 0, 1; t0 = 100 + 400k) [t0, t0 + 300]
 *     holding fwd [t0 + 10, t0 + 100] (forward), bwd [t0 + 100, t0 + 200]
 *     (backward), opt [t0 + 200, t0 + 300] (optimizer)
 *
 *   cuda:0  t     record                          live
 *           1     w   +1000 parameter (run)       1000
 *           120   act0 +500 activation (fwd)      1500
 *           250   act0 -500 (bwd)                 1000
 *           260   grad0 +1000 gradient (bwd)      2000
 *           310   m   +2000 optimizer_state (opt) 4000  <- peak (w, grad0, m)
 *           350   grad0 -1000 (opt)               3000
 *           520   act1 +500                       3500
 *           650   act1 -500                       3000
 *           660   grad1 +1000                     4000  <- the peak again
 *           750   grad1 -1000                     3000  <- the end (w, m: no leak)
 *     checkpoints at 315 (used 5000, free 3000, reserved 4500) and 700
 *     (reserved 4000)
 *   cuda:1  2     x   +300 activation (run)       300
 *           520   y   +700 activation (fwd of step#1)  1000  <- peak; the end moment
 *           850   checkpoint: used 9000 of 9100, reserved 8000 (nearly full)
 *           900   out of memory: 4096 B
 *           950   y   -700 (run)                  300   (after the OOM)
 *   cpu     3     in  +50 input (run)             57    <- peak (with the 7 B)
 *           990   in  -50 (run)                   7     <- the end
 *   gradients: model.w present (norm 1.5), model.b missing */
#include "tlbuild.h"

#include <math.h>
#include <string.h>

#include "analysis.h"
#include "difftrace.h"

#define A CG_ALLOC
#define F CG_FREE

enum { CPU = 0, CUDA0 = 1, CUDA1 = 2 };

static cg_timeline *three_devices(bool paired)
{
	cg_timeline *tl = tu_tl_new();
	tl->source.pairing_known = paired;
	assert_int_equal(tu_device(tl, "cpu"), CPU);
	assert_int_equal(tu_device(tl, "cuda:0"), CUDA0);
	assert_int_equal(tu_device(tl, "cuda:1"), CUDA1);
	tl->devices[CPU].baseline_bytes = 7;
	tu_span(tl, "r", NULL, "run", 0, 1000, CG_PHASE_NONE);
	for (int k = 0; k < 2; k++) {
		char s[8], f[8], b[8], o[8], name[16], act[8], grad[8];
		uint64_t t0 = 100 + 400 * (uint64_t)k;
		snprintf(s, sizeof s, "s%d", k);
		snprintf(f, sizeof f, "f%d", k);
		snprintf(b, sizeof b, "b%d", k);
		snprintf(o, sizeof o, "o%d", k);
		snprintf(name, sizeof name, "step#%d", k);
		snprintf(act, sizeof act, "act%d", k);
		snprintf(grad, sizeof grad, "grad%d", k);
		tu_span(tl, s, "r", name, t0, t0 + 300, CG_PHASE_NONE);
		tu_span(tl, f, s, "fwd", t0 + 10, t0 + 100, CG_PHASE_FORWARD);
		tu_span(tl, b, s, "bwd", t0 + 100, t0 + 200, CG_PHASE_BACKWARD);
		tu_span(tl, o, s, "opt", t0 + 200, t0 + 300, CG_PHASE_OPTIMIZER);
		tu_mem(tl, t0 + 20, act, f, "cuda:0", 500, A, CG_CAT_ACTIVATION, "linear");
		tu_mem(tl, t0 + 150, act, b, "cuda:0", 500, F, CG_CAT_ACTIVATION, NULL);
		tu_mem(tl, t0 + 160, grad, b, "cuda:0", 1000, A, CG_CAT_GRADIENT, "mm");
		if (k == 0)
			tu_mem(tl, t0 + 210, "m", o, "cuda:0", 2000, A, CG_CAT_OPTIMIZER_STATE, "zeros");
		tu_mem(tl, t0 + 250, grad, o, "cuda:0", 1000, F, CG_CAT_GRADIENT, NULL);
	}
	tu_mem(tl, 1, "w", "r", "cuda:0", 1000, A, CG_CAT_PARAMETER, "empty");
	tu_devmem(tl, 315, "cuda:0", 5000, 3000, 4500);
	tu_devmem(tl, 700, "cuda:0", 5000, 3000, 4000);
	tu_mem(tl, 2, "x", "r", "cuda:1", 300, A, CG_CAT_ACTIVATION, "randn");
	tu_mem(tl, 520, "y", "f1", "cuda:1", 700, A, CG_CAT_ACTIVATION, "linear");
	tu_devmem(tl, 850, "cuda:1", 9000, 100, 8000);
	tu_oom(tl, 900, "cuda:1", 4096);
	tu_mem(tl, 950, "y", "r", "cuda:1", 700, F, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 3, "in", "r", "cpu", 50, A, CG_CAT_INPUT, "load");
	tu_mem(tl, 990, "in", "r", "cpu", 50, F, CG_CAT_INPUT, NULL);
	tu_gradient(tl, "model", "w", CG_GRAD_PRESENT, true, 1.5);
	tu_gradient(tl, "model", "b", CG_GRAD_MISSING, false, 0.0);
	tu_tl_finalize(tl);
	return tl;
}

static cg_analysis *analyse(const cg_timeline *tl, const cg_analysis_options *o)
{
	cg_analysis *a;
	cg_error err = CG_ERROR_INIT;
	if (cg_analysis_run(&a, tl, o, &err) != 0)
		fail_msg("analysis failed: %s", err.msg);
	assert_non_null(a);
	return a;
}

static uint32_t span_named(const cg_timeline *tl, const char *id)
{
	for (size_t i = 0; i < tl->nspans; i++)
		if (strcmp(cg_timeline_str(tl, tl->spans[i].id), id) == 0)
			return (uint32_t)i;
	fail_msg("no span %s", id);
	return CG_NONE;
}

static void an_unfinalized_timeline_is_refused(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 1, "x", NULL, "cuda:0", 8, A, CG_CAT_ACTIVATION, NULL);
	cg_analysis dummy, *a = &dummy; /* set to NULL on failure */
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, &err), CG_EUSAGE);
	assert_null(a);
	assert_int_equal(err.code, CG_EUSAGE);
	assert_non_null(strstr(err.msg, "finalized"));
	/* without an error to fill, the same answer */
	a = &dummy;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), CG_EUSAGE);
	assert_null(a);
	cg_analysis_free(a); /* what a failure leaves can be freed */
	cg_timeline_free(tl);
}

static void without_options_the_defaults_apply(void **state)
{
	cg_timeline *tl = three_devices(true);
	cg_analysis *a = analyse(tl, NULL);
	cg_analysis_options defaults = CG_ANALYSIS_OPTIONS_INIT;
	assert_int_equal(a->options.top_n, defaults.top_n);
	assert_int_equal(a->options.top_n, 20); /* cgmem.h */
	assert_int_equal(a->options.threads, 0);
	assert_ptr_equal(a->tl, tl);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

static void every_pass_runs_with_results_sized_to_the_devices(void **state)
{
	cg_timeline *tl = three_devices(true);
	cg_analysis_options o = {5, 1};
	cg_analysis *a = analyse(tl, &o);
	assert_int_equal(a->options.top_n, 5);
	assert_int_equal(a->options.threads, 1);
	assert_non_null(a->peak);
	assert_non_null(a->at_peak);
	assert_non_null(a->peak_trees);
	assert_non_null(a->steps);
	assert_non_null(a->overtime);
	assert_non_null(a->checkpoints);
	assert_non_null(a->replay);
	assert_non_null(a->at_end);
	assert_non_null(a->leaks);
	assert_non_null(a->lifetimes);
	assert_non_null(a->end);
	assert_non_null(a->gradients);
	assert_int_equal(a->peak->ndevices, 3);
	assert_int_equal(a->at_peak->ndevices, 3);
	assert_int_equal(a->peak_trees->ntrees, 3);
	assert_int_equal(a->overtime->ndevices, 3);
	assert_int_equal(a->checkpoints->ndevices, 3);
	assert_int_equal(a->replay->ndevices, 3);
	assert_int_equal(a->at_end->ndevices, 3);
	assert_int_equal(a->leaks->ndevices, 3);
	assert_int_equal(a->lifetimes->ndevices, 3);
	assert_int_equal(a->end->ndevices, 3);
	/* spans: run and four per step */
	assert_int_equal(a->steps->nspans, 9);
	assert_int_equal(a->steps->nsteps, 2);
	assert_string_equal(a->steps->label, "step#*");
	/* checkpoints per device: none on cpu, two on cuda:0, one on cuda:1 */
	assert_int_equal(a->checkpoints->devices[CPU].count, 0);
	assert_int_equal(a->checkpoints->devices[CUDA0].count, 2);
	assert_int_equal(a->checkpoints->devices[CUDA1].count, 1);
	assert_int_equal(a->gradients->records, 2);
	assert_int_equal(a->gradients->by_state[CG_GRAD_MISSING], 1);
	assert_int_equal(a->gradients->nproblems, 1);
	for (uint32_t d = 0; d < 3; d++)
		assert_true(a->peak_trees->trees[d].nnodes > 0); /* every live set is listed */
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

/* Peaks 57 (cpu), 4000 (cuda:0), 1000 (cuda:1); at the end moments 7,
 * 3000 and 1000 live, of which leak candidates 0, 0 and x + y = 1000. */
static void each_device_gets_its_own_figures(void **state)
{
	cg_timeline *tl = three_devices(true);
	cg_analysis *a = analyse(tl, NULL);
	const cg_peak_device *p = a->peak->devices;
	assert_int_equal(p[CPU].peak_bytes, 57);
	assert_int_equal(p[CPU].peak_t_ns, 3);
	assert_int_equal(p[CUDA0].peak_bytes, 4000);
	assert_int_equal(p[CUDA0].peak_t_ns, 310);
	assert_int_equal(p[CUDA0].reached_times, 2);
	assert_int_equal(p[CUDA1].peak_bytes, 1000);
	assert_int_equal(p[CUDA1].peak_t_ns, 520);
	assert_int_equal(a->peak->by_peak[0], CUDA0);
	assert_int_equal(a->peak->by_peak[1], CUDA1);
	assert_int_equal(a->peak->by_peak[2], CPU);
	assert_int_equal(a->at_end->devices[CPU].bytes, 7);
	assert_int_equal(a->at_end->devices[CUDA0].bytes, 3000);
	assert_int_equal(a->at_end->devices[CUDA1].bytes, 1000);
	assert_int_equal(a->leaks->devices[CPU].bytes, 0);
	assert_int_equal(a->leaks->devices[CUDA0].bytes, 0);
	assert_int_equal(a->leaks->devices[CUDA1].bytes, 1000);
	assert_int_equal(a->leaks->devices[CUDA1].count, 2);
	assert_int_equal(a->end->devices[CPU].kind, CG_END_LAST_RECORD);
	assert_int_equal(a->end->devices[CPU].t_ns, 990);
	assert_int_equal(a->end->devices[CUDA0].kind, CG_END_LAST_RECORD);
	assert_int_equal(a->end->devices[CUDA0].t_ns, 750);
	assert_null(a->end->devices[CUDA0].verdict); /* 5000 of 8000 used: nothing wrong */
	assert_int_equal(a->end->devices[CUDA1].kind, CG_END_OUT_OF_MEMORY);
	assert_int_equal(a->end->devices[CUDA1].t_ns, 900);
	assert_true(a->end->devices[CUDA1].nearly_full); /* 9000 of 9100 */
	assert_non_null(a->end->devices[CUDA1].verdict);
	/* lifetimes: cuda:0 ends act0, grad0, act1, grad1 and keeps w and m;
	 * cpu's input is freed (at 990) before run ends (at 1000): a temporary */
	assert_int_equal(a->lifetimes->devices[CUDA0].ended_count, 4);
	assert_int_equal(a->lifetimes->devices[CUDA0].never_freed_bytes, 3000);
	assert_int_equal(a->lifetimes->devices[CUDA0].temporaries_count, 0);
	assert_int_equal(a->lifetimes->devices[CPU].temporaries_count, 1);
	assert_int_equal(a->lifetimes->devices[CPU].temporaries_bytes, 50);
	/* the checkpoints' fragmentation: cuda:0 (4500 - 4000) / 4500 and 0,
	 * cuda:1 (8000 - 1000) / 8000 */
	const cg_checkpoints_device *c0 = &a->checkpoints->devices[CUDA0];
	assert_true(fabs(c0->list[0].fragmentation - 500.0 / 4500.0) < 1e-12);
	assert_true(c0->list[1].fragmentation == 0.0);
	assert_int_equal(c0->max_fragmentation, 0);
	assert_true(a->checkpoints->devices[CUDA1].list[0].fragmentation == 7000.0 / 8000.0);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

/* The at-peak live set is taken after the peak pass's record, and what
 * reads it (the trees, the replay's state at the peak, the checkpoint
 * nearest the peak) sees the same moment. */
static void the_live_set_at_the_peak_is_at_the_peak_record(void **state)
{
	cg_timeline *tl = three_devices(true);
	cg_analysis *a = analyse(tl, NULL);
	for (uint32_t d = 0; d < 3; d++) {
		const cg_peak_device *p = &a->peak->devices[d];
		const cg_liveset_device *ls = &a->at_peak->devices[d];
		assert_int_equal(ls->after, p->peak_index);
		assert_int_equal(ls->bytes, p->peak_bytes);
		assert_int_equal(ls->count, p->live_at_peak);
		assert_true(ls->listed);
		assert_int_equal(a->peak_trees->trees[d].nodes[0].total_bytes, p->peak_bytes);
	}
	/* cuda:0 at 310: w, grad0 and m */
	const cg_liveset_device *c0 = &a->at_peak->devices[CUDA0];
	assert_int_equal(tl->mem[c0->after].t_ns, 310);
	assert_int_equal(c0->nallocs, 3);
	assert_int_equal(c0->by_category[CG_CAT_PARAMETER], 1000);
	assert_int_equal(c0->by_category[CG_CAT_GRADIENT], 1000);
	assert_int_equal(c0->by_category[CG_CAT_OPTIMIZER_STATE], 2000);
	assert_int_equal(c0->by_phase[CG_PHASE_OPTIMIZER], 2000);
	/* the cpu tree holds the 7 B from before profiling */
	const cg_pathtree *cpu = &a->peak_trees->trees[CPU];
	bool found = false;
	for (uint32_t i = 0; i < cpu->nnodes; i++)
		if (cpu->nodes[i].kind == CG_PATHNODE_BEFORE_PROFILING) {
			assert_int_equal(cpu->nodes[i].total_bytes, 7);
			found = true;
		}
	assert_true(found);
	/* the replay's state after the peak record holds the peak's live bytes */
	for (uint32_t d = CUDA0; d <= CUDA1; d++) {
		assert_true(a->replay->devices[d].available);
		assert_int_equal(a->replay->devices[d].standard.at_peak.live, a->peak->devices[d].peak_bytes);
	}
	/* the peak at 310: of the checkpoints at 315 and 700, the first is nearest */
	assert_int_equal(a->checkpoints->devices[CUDA0].nearest_peak, 0);
	assert_int_equal(a->checkpoints->devices[CUDA0].list[0].live_bytes, 4000);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

/* The end moment's live set is the end-of-trace pass's moment: on cuda:1
 * the record before the OOM (y at 520, 1000 B live), not its last record
 * (the free at 950, after which the peak pass counts 300 B). */
static void the_live_set_at_the_end_is_the_end_moment(void **state)
{
	cg_timeline *tl = three_devices(true);
	cg_analysis *a = analyse(tl, NULL);
	for (uint32_t d = 0; d < 3; d++) {
		uint32_t after;
		cg_endtrace_moment(tl, d, &after, NULL);
		assert_int_equal(a->at_end->devices[d].after, after);
		assert_int_equal(a->end->devices[d].after, after);
		assert_int_equal(a->end->devices[d].live_bytes, a->at_end->devices[d].bytes);
		assert_int_equal(a->leaks->devices[d].bytes, cg_leaks_candidate_bytes(a->at_end->devices[d].by_category));
		if (a->replay->devices[d].available)
			assert_int_equal(a->replay->devices[d].standard.at_end.live, a->at_end->devices[d].bytes);
	}
	const cg_liveset_device *c1 = &a->at_end->devices[CUDA1];
	assert_int_equal(tl->mem[c1->after].t_ns, 520);
	assert_int_equal(c1->bytes, 1000);
	assert_int_equal(a->peak->devices[CUDA1].live_at_end, 300);
	/* the last checkpoint before the OOM is cuda:1's at 850 */
	assert_int_equal(tl->devmem[a->end->devices[CUDA1].checkpoint].t_ns, 850);
	/* the last allocations at the moment: y, then x */
	assert_int_equal(a->end->devices[CUDA1].nlast, 2);
	assert_int_equal(tl->mem[a->end->devices[CUDA1].last_allocs[0]].t_ns, 520);
	assert_int_equal(tl->mem[a->end->devices[CUDA1].last_allocs[1]].t_ns, 2);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

/* The steps found reach the passes that need them: over-time figures per
 * step, the leaks per step, where the end moment lies.
 *   cuda:0 step#0 [100, 400]: enters at 1000, peaks 4000 at 310, ends 3000 (growth 2000);
 *   step#1 [500, 800]: enters at 3000, peaks 4000 at 660, ends 3000 (growth 0).
 *   cuda:1 leaks y (700 B, allocated in step#1's fwd) and x (300 B, outside the steps). */
static void the_steps_reach_overtime_leaks_and_endtrace(void **state)
{
	cg_timeline *tl = three_devices(true);
	cg_analysis *a = analyse(tl, NULL);
	const cg_overtime_device *ot = &a->overtime->devices[CUDA0];
	assert_true(ot->timed);
	assert_int_equal(ot->nsteps, 2);
	assert_int_equal(ot->steps[0].live_at_start, 1000);
	assert_int_equal(ot->steps[0].peak_bytes, 4000);
	assert_int_equal(ot->steps[0].peak_t_ns, 310);
	assert_int_equal(ot->steps[0].live_at_end, 3000);
	assert_int_equal(ot->steps[0].growth, 2000);
	assert_int_equal(ot->steps[1].live_at_start, 3000);
	assert_int_equal(ot->steps[1].peak_t_ns, 660);
	assert_int_equal(ot->steps[1].growth, 0);
	const cg_leaks_device *lk = &a->leaks->devices[CUDA1];
	assert_int_equal(lk->nsteps, 2);
	assert_int_equal(lk->step_bytes[0], 0);
	assert_int_equal(lk->step_bytes[1], 700);
	assert_int_equal(lk->outside_steps_bytes, 300);
	assert_int_equal(lk->leaking_steps, 1);
	assert_int_equal(lk->ngroups, 2);
	assert_string_equal(lk->groups[0].path, "run/step#*/fwd");
	assert_int_equal(lk->groups[0].steps, 1);
	assert_string_equal(lk->groups[1].path, "run");
	/* cuda:1 stopped in step#1's forward, 900 - 510 ns into it */
	const cg_endtrace_device *e = &a->end->devices[CUDA1];
	assert_int_equal(e->span, span_named(tl, "f1"));
	assert_int_equal(e->phase, CG_PHASE_FORWARD);
	assert_int_equal(e->phase_span, span_named(tl, "f1"));
	assert_int_equal(e->into_phase_ns, 390);
	assert_int_equal(e->step, 1);
	/* cuda:0 stopped in step#1's optimizer (the free at 750); cpu outside the steps */
	assert_int_equal(a->end->devices[CUDA0].step, 1);
	assert_int_equal(a->end->devices[CUDA0].phase, CG_PHASE_OPTIMIZER);
	assert_int_equal(a->end->devices[CPU].step, CG_NONE);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

/* Without pairing the live sets are not listed: their trees stay empty,
 * the sums are still known. */
static void without_pairing_the_trees_are_left_empty(void **state)
{
	cg_timeline *tl = three_devices(false);
	cg_analysis *a = analyse(tl, NULL);
	assert_int_equal(a->peak_trees->ntrees, 3);
	for (uint32_t d = 0; d < 3; d++) {
		assert_false(a->at_peak->devices[d].listed);
		assert_int_equal(a->peak_trees->trees[d].nnodes, 0);
	}
	assert_int_equal(a->at_peak->devices[CUDA0].bytes, 4000);
	assert_int_equal(a->at_end->devices[CUDA1].bytes, 1000);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

/* dt's default run: w at 1, act_k at 111, 211, 311; the end is the free
 * of act2 at 340. The last allocations listed are the top_n latest. */
static void top_n_bounds_the_last_allocations(void **state)
{
	run_spec s = RUN_SPEC_INIT;
	cg_timeline *tl = dt_timeline(&s);
	static const uint64_t latest[4] = {311, 211, 111, 1};
	for (unsigned top = 0; top <= 6; top++) {
		cg_analysis_options o = {top, 1};
		cg_analysis *a = analyse(tl, &o);
		const cg_endtrace_device *e = &a->end->devices[0];
		assert_int_equal(e->nlast, top < 4 ? top : 4);
		for (uint32_t i = 0; i < e->nlast; i++)
			assert_int_equal(tl->mem[e->last_allocs[i]].t_ns, latest[i]);
		/* the live sets stay whole (liveset.h): lists are cut where they are shown */
		assert_int_equal(a->at_peak->devices[0].nallocs, 2);
		cg_analysis_free(a);
	}
	cg_timeline_free(tl);
}

/* --- one thread or many: the same results, field by field --- */

#define SAME(f) assert_int_equal(x->f, y->f)
#define SAME_DOUBLE(f) assert_true(x->f == y->f || (isnan(x->f) && isnan(y->f)))

static void same_text(const char *x, const char *y)
{
	if (!x || !y)
		assert_true(x == y);
	else
		assert_string_equal(x, y);
}

static void same_peak(const cg_peak_result *px, const cg_peak_result *py)
{
	assert_int_equal(px->ndevices, py->ndevices);
	for (uint32_t d = 0; d < px->ndevices; d++) {
		const cg_peak_device *x = &px->devices[d], *y = &py->devices[d];
		SAME(peak_bytes), SAME(peak_t_ns), SAME(peak_index), SAME(reached_times), SAME(live_at_peak);
		SAME(initial_bytes), SAME(live_at_end), SAME(live_count_at_end), SAME(allocations), SAME(frees);
		SAME(bytes_allocated), SAME(first_t_ns), SAME(last_t_ns);
		assert_int_equal(px->by_peak[d], py->by_peak[d]);
	}
}

static void same_liveset(const cg_liveset_result *lx, const cg_liveset_result *ly)
{
	assert_int_equal(lx->ndevices, ly->ndevices);
	for (uint32_t d = 0; d < lx->ndevices; d++) {
		const cg_liveset_device *x = &lx->devices[d], *y = &ly->devices[d];
		SAME(after), SAME(bytes), SAME(count), SAME(listed), SAME(nallocs);
		for (int c = 0; c < CG_CAT_COUNT; c++)
			SAME(by_category[c]), SAME(count_by_category[c]);
		for (int p = 0; p < CG_PHASE_COUNT; p++) {
			SAME(by_phase[p]);
			for (int c = 0; c < CG_CAT_COUNT; c++)
				SAME(by_phase_category[p][c]);
		}
		for (size_t i = 0; i < x->nallocs; i++)
			SAME(allocs[i].alloc), SAME(allocs[i].end), SAME(allocs[i].bytes);
	}
}

static void same_trees(const cg_pathtree_result *tx, const cg_pathtree_result *ty)
{
	assert_int_equal(tx->ntrees, ty->ntrees);
	for (uint32_t t = 0; t < tx->ntrees; t++) {
		assert_int_equal(tx->trees[t].nnodes, ty->trees[t].nnodes);
		for (uint32_t i = 0; i < tx->trees[t].nnodes; i++) {
			const cg_pathnode *x = &tx->trees[t].nodes[i], *y = &ty->trees[t].nodes[i];
			SAME(name), SAME(kind), SAME(phase), SAME(depth), SAME(parent), SAME(nchildren);
			SAME(subtree_end), SAME(own_bytes), SAME(total_bytes), SAME(own_count), SAME(total_count);
			SAME(first_ns);
		}
	}
}

static void same_steps(const cg_steps_result *x, const cg_steps_result *y)
{
	SAME(nsteps), SAME(nspans);
	for (uint32_t k = 0; k < x->nsteps; k++)
		SAME(steps[k].span), SAME(steps[k].start_ns), SAME(steps[k].end_ns);
	same_text(x->prefix, y->prefix);
	same_text(x->label, y->label);
	for (uint32_t s = 0; s < x->nspans; s++)
		SAME(step_of_span[s]);
}

static void same_overtime(const cg_overtime_result *ox, const cg_overtime_result *oy)
{
	assert_int_equal(ox->ndevices, oy->ndevices);
	for (uint32_t d = 0; d < ox->ndevices; d++) {
		const cg_overtime_device *x = &ox->devices[d], *y = &oy->devices[d];
		SAME(timed), SAME(nsteps);
		for (int c = 0; c < CG_CAT_COUNT; c++)
			SAME(categories[c].bytes), SAME(categories[c].t_ns);
		for (int p = 0; p < CG_PHASE_COUNT; p++) {
			SAME(phases[p].ran), SAME(phases[p].peak_bytes), SAME(phases[p].peak_t_ns);
			SAME(phases[p].allocated_bytes), SAME(phases[p].freed_bytes), SAME(phases[p].allocations);
			SAME(phases[p].frees);
		}
		for (uint32_t k = 0; k < x->nsteps; k++) {
			SAME(steps[k].live_at_start), SAME(steps[k].peak_bytes), SAME(steps[k].peak_t_ns);
			SAME(steps[k].live_at_end), SAME(steps[k].growth), SAME(steps[k].allocated_bytes);
			SAME(steps[k].freed_bytes), SAME(steps[k].allocations), SAME(steps[k].frees);
		}
	}
}

static void same_checkpoints(const cg_checkpoints_result *cx, const cg_checkpoints_result *cy)
{
	assert_int_equal(cx->ndevices, cy->ndevices);
	for (uint32_t d = 0; d < cx->ndevices; d++) {
		assert_int_equal(cx->devices[d].count, cy->devices[d].count);
		assert_int_equal(cx->devices[d].max_fragmentation, cy->devices[d].max_fragmentation);
		assert_int_equal(cx->devices[d].nearest_peak, cy->devices[d].nearest_peak);
		for (uint32_t i = 0; i < cx->devices[d].count; i++) {
			const cg_checkpoint *x = &cx->devices[d].list[i], *y = &cy->devices[d].list[i];
			SAME(devmem), SAME(t_ns), SAME(live_bytes), SAME(has_used), SAME(has_reserved);
			SAME(has_capacity), SAME(used_bytes), SAME(free_bytes), SAME(capacity_bytes);
			SAME(reserved_bytes), SAME(has_fragmentation), SAME(outside_allocator);
			SAME_DOUBLE(fragmentation);
		}
	}
}

static void same_state(const cg_replay_state *x, const cg_replay_state *y)
{
	SAME(reserved), SAME(allocated), SAME(live), SAME(largest_free), SAME(total_free);
	SAME_DOUBLE(frag_reserved);
	SAME_DOUBLE(frag_largest);
}

static void same_variant(const cg_replay_variant *x, const cg_replay_variant *y)
{
	SAME(peak_reserved), SAME(peak_t_ns), SAME(segments), SAME(initial_reserved), SAME(nseries);
	SAME(ncheckpoints);
	same_state(&x->at_peak, &y->at_peak);
	same_state(&x->at_end, &y->at_end);
	for (uint32_t i = 0; i < x->nseries; i++)
		SAME(series[i].t_ns), SAME(series[i].reserved);
	for (uint32_t i = 0; i < x->ncheckpoints; i++)
		SAME(at_checkpoint[i]);
}

static void same_replay(const cg_replay_result *rx, const cg_replay_result *ry)
{
	assert_int_equal(rx->ndevices, ry->ndevices);
	for (uint32_t d = 0; d < rx->ndevices; d++) {
		const cg_replay_device *x = &rx->devices[d], *y = &ry->devices[d];
		SAME(available), SAME(saved_bytes);
		same_text(x->unavailable_reason, y->unavailable_reason);
		if (!x->available)
			continue;
		same_variant(&x->standard, &y->standard);
		same_variant(&x->expandable, &y->expandable);
	}
}

static void same_leaks(const cg_leaks_result *lx, const cg_leaks_result *ly)
{
	assert_int_equal(lx->ndevices, ly->ndevices);
	for (uint32_t d = 0; d < lx->ndevices; d++) {
		const cg_leaks_device *x = &lx->devices[d], *y = &ly->devices[d];
		SAME(available), SAME(bytes), SAME(count), SAME(ngroups), SAME(nsteps);
		SAME(outside_steps_bytes), SAME(outside_steps_count), SAME(leaking_steps);
		for (size_t g = 0; g < x->ngroups; g++) {
			assert_string_equal(x->groups[g].path, y->groups[g].path);
			SAME(groups[g].op), SAME(groups[g].category), SAME(groups[g].bytes), SAME(groups[g].count);
			SAME(groups[g].steps), SAME(groups[g].first_ns), SAME(groups[g].last_ns), SAME(groups[g].example);
		}
		for (uint32_t k = 0; k < x->nsteps; k++)
			SAME(step_bytes[k]), SAME(step_count[k]);
	}
}

static void same_lifetimes(const cg_lifetimes_result *lx, const cg_lifetimes_result *ly)
{
	assert_int_equal(lx->ndevices, ly->ndevices);
	for (uint32_t d = 0; d < lx->ndevices; d++) {
		const cg_lifetimes_device *x = &lx->devices[d], *y = &ly->devices[d];
		SAME(available), SAME(ncells), SAME(ended_count), SAME(ended_bytes), SAME(never_freed_count);
		SAME(never_freed_bytes), SAME(before_trace_count), SAME(before_trace_bytes);
		SAME(temporaries_count), SAME(temporaries_bytes);
		for (int c = 0; c < CG_CAT_COUNT; c++)
			SAME(temporaries_count_by_category[c]), SAME(temporaries_bytes_by_category[c]);
		for (size_t i = 0; i < x->ncells; i++)
			SAME(cells[i].category), SAME(cells[i].bucket), SAME(cells[i].count), SAME(cells[i].bytes);
	}
}

static void same_end(const cg_endtrace_result *ex, const cg_endtrace_result *ey)
{
	assert_int_equal(ex->ndevices, ey->ndevices);
	for (uint32_t d = 0; d < ex->ndevices; d++) {
		const cg_endtrace_device *x = &ex->devices[d], *y = &ey->devices[d];
		SAME(kind), SAME(after), SAME(t_ns), SAME(last_record_ns), SAME(oom_count), SAME(oom);
		SAME(checkpoint), SAME(nearly_full), SAME(live_bytes), SAME(span), SAME(phase), SAME(phase_span);
		SAME(into_phase_ns), SAME(step), SAME(nlast);
		for (uint32_t i = 0; i < x->nlast; i++)
			SAME(last_allocs[i]);
		same_text(x->verdict, y->verdict);
	}
}

static void same_gradients(const cg_gradients_result *x, const cg_gradients_result *y)
{
	SAME(records), SAME(non_finite_norms), SAME(parameters), SAME(nproblems);
	for (int s = 0; s < CG_GRAD_STATE_COUNT; s++)
		SAME(by_state[s]);
	for (size_t i = 0; i < x->nproblems; i++) {
		SAME(problems[i].root), SAME(problems[i].key), SAME(problems[i].missing);
		SAME(problems[i].non_finite), SAME(problems[i].records), SAME(problems[i].first_line);
	}
}

static void same_analysis(const cg_analysis *x, const cg_analysis *y)
{
	SAME(options.top_n);
	same_peak(x->peak, y->peak);
	same_liveset(x->at_peak, y->at_peak);
	same_trees(x->peak_trees, y->peak_trees);
	same_steps(x->steps, y->steps);
	same_overtime(x->overtime, y->overtime);
	same_checkpoints(x->checkpoints, y->checkpoints);
	same_replay(x->replay, y->replay);
	same_liveset(x->at_end, y->at_end);
	same_leaks(x->leaks, y->leaks);
	same_lifetimes(x->lifetimes, y->lifetimes);
	same_end(x->end, y->end);
	same_gradients(x->gradients, y->gradients);
}

/* threads 1 runs everything on the calling thread; 0 (every core) and 3
 * run the replay beside the other passes and its devices in parallel. */
static void one_thread_and_many_give_the_same_results(void **state)
{
	cg_timeline *tl = three_devices(true);
	cg_analysis_options one = {20, 1};
	cg_analysis *a1 = analyse(tl, &one);
	static const unsigned threads[] = {0, 3};
	for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
		cg_analysis_options many = {20, threads[i]};
		cg_analysis *an = analyse(tl, &many);
		assert_int_equal(an->options.threads, threads[i]);
		same_analysis(a1, an);
		cg_analysis_free(an);
	}
	/* the run has something in every pass to compare */
	assert_true(a1->replay->devices[CUDA0].standard.nseries > 0);
	assert_true(a1->leaks->devices[CUDA1].ngroups > 0);
	assert_true(a1->lifetimes->devices[CUDA0].ncells > 0);
	assert_true(a1->peak_trees->trees[CUDA0].nnodes > 1);
	cg_analysis_free(a1);
	cg_timeline_free(tl);
}

/* --- edge cases --- */

/* Spans and gradients but no memory: no devices at all. */
static void a_timeline_without_devices_is_analysed(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "r", NULL, "run", 0, 10, CG_PHASE_NONE);
	tu_gradient(tl, "model", "w", CG_GRAD_NON_FINITE, false, 0.0);
	tu_tl_finalize(tl);
	assert_int_equal(tl->ndevices, 0);
	for (unsigned threads = 0; threads <= 1; threads++) {
		cg_analysis_options o = {20, threads};
		cg_analysis *a = analyse(tl, &o);
		assert_int_equal(a->peak->ndevices, 0);
		assert_int_equal(a->at_peak->ndevices, 0);
		assert_int_equal(a->at_end->ndevices, 0);
		assert_int_equal(a->peak_trees->ntrees, 0);
		assert_int_equal(a->overtime->ndevices, 0);
		assert_int_equal(a->checkpoints->ndevices, 0);
		assert_int_equal(a->replay->ndevices, 0);
		assert_int_equal(a->leaks->ndevices, 0);
		assert_int_equal(a->lifetimes->ndevices, 0);
		assert_int_equal(a->end->ndevices, 0);
		assert_int_equal(a->steps->nsteps, 0);
		assert_int_equal(a->steps->nspans, 1);
		assert_int_equal(a->gradients->records, 1);
		assert_int_equal(a->gradients->by_state[CG_GRAD_NON_FINITE], 1);
		cg_analysis_free(a);
	}
	cg_timeline_free(tl);

	/* nothing at all */
	tl = tu_tl_new();
	tu_tl_finalize(tl);
	cg_analysis *a = analyse(tl, NULL);
	assert_int_equal(a->peak->ndevices, 0);
	assert_int_equal(a->gradients->records, 0);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

/* A device known only from its checkpoint: no peak record, no end record. */
static void a_device_without_memory_records_is_analysed(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_devmem(tl, 5, "cuda:0", 100, 900, 200);
	tu_tl_finalize(tl);
	cg_analysis *a = analyse(tl, NULL);
	assert_int_equal(a->peak->ndevices, 1);
	assert_int_equal(a->peak->devices[0].peak_bytes, 0);
	assert_int_equal(a->peak->devices[0].peak_index, CG_NONE);
	assert_int_equal(a->at_peak->devices[0].after, CG_NONE);
	assert_int_equal(a->at_peak->devices[0].bytes, 0);
	assert_int_equal(a->at_end->devices[0].after, CG_NONE);
	assert_int_equal(a->end->devices[0].kind, CG_END_NO_RECORDS);
	assert_int_equal(a->end->devices[0].nlast, 0);
	assert_null(a->end->devices[0].verdict);
	assert_false(a->overtime->devices[0].timed); /* no records */
	assert_int_equal(a->leaks->devices[0].bytes, 0);
	/* the checkpoint: live 0 of 200 reserved, fragmentation (200 - 0) / 200 = 1 */
	assert_int_equal(a->checkpoints->devices[0].count, 1);
	assert_true(a->checkpoints->devices[0].list[0].fragmentation == 1.0);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(an_unfinalized_timeline_is_refused),
		cmocka_unit_test(without_options_the_defaults_apply),
		cmocka_unit_test(every_pass_runs_with_results_sized_to_the_devices),
		cmocka_unit_test(each_device_gets_its_own_figures),
		cmocka_unit_test(the_live_set_at_the_peak_is_at_the_peak_record),
		cmocka_unit_test(the_live_set_at_the_end_is_the_end_moment),
		cmocka_unit_test(the_steps_reach_overtime_leaks_and_endtrace),
		cmocka_unit_test(without_pairing_the_trees_are_left_empty),
		cmocka_unit_test(top_n_bounds_the_last_allocations),
		cmocka_unit_test(one_thread_and_many_give_the_same_results),
		cmocka_unit_test(a_timeline_without_devices_is_analysed),
		cmocka_unit_test(a_device_without_memory_records_is_analysed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
