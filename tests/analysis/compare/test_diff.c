/* The comparison of two runs, on pairs of runs whose differences are
 * worked out by hand (tests/helpers/difftrace.h describes the runs), built
 * directly as timelines. A real sample compared with itself, read through
 * ingest, is in tests/cli/test_diff_cli.c. */
#include "tlbuild.h"

#include <string.h>

#include "analysis.h"
#include "diff.h"
#include "difftrace.h"

typedef struct pair {
	cg_timeline *tl[2];
	cg_analysis *a[2];
	cg_diff_result *d;
} pair;

static void compare_timelines(pair *p)
{
	for (int s = 0; s < 2; s++)
		assert_int_equal(cg_analysis_run(&p->a[s], p->tl[s], NULL, NULL), 0);
	assert_int_equal(cg_diff_run(&p->d, p->a[0], p->a[1], NULL), 0);
}

static void compare(pair *p, const run_spec *base, const run_spec *new_run)
{
	p->tl[0] = dt_timeline(base);
	p->tl[1] = dt_timeline(new_run);
	compare_timelines(p);
}

static void release(pair *p)
{
	cg_diff_free(p->d);
	for (int s = 0; s < 2; s++) {
		cg_analysis_free(p->a[s]);
		cg_timeline_free(p->tl[s]);
	}
}

#define assert_pair(p, b, n) \
	do { \
		assert_int_equal((p).v[CG_DIFF_BASE], (b)); \
		assert_int_equal((p).v[CG_DIFF_NEW], (n)); \
	} while (0)

static const char *path_of(const pair *p, uint32_t path)
{
	static char buf[4][256];
	static int k;
	k = (k + 1) % 4;
	return cg_diff_path(p->d, path, buf[k], sizeof buf[k]);
}

/* The node of the device's merged tree with this path; fails when absent. */
static const cg_diff_node *node(const pair *p, const cg_diff_device *dev, const char *path)
{
	for (uint32_t i = 0; i < dev->nnodes; i++)
		if (strcmp(path_of(p, dev->nodes[i].path), path) == 0)
			return &dev->nodes[i];
	fail_msg("no node %s", path);
	return NULL;
}

static const char *changed_path(const pair *p, const cg_diff_device *dev, uint32_t k)
{
	assert_true(k < dev->nchanged);
	return path_of(p, dev->nodes[dev->changed[k]].path);
}

/* Base: 164 B at the peak (w 100 + act0 64 in fc1); new: act 128 B, peak
 * 228 B. Only fc1 allocates more; its ancestors' totals follow. */
static void a_module_that_doubles_its_activation(void **state)
{
	run_spec base = RUN_SPEC_INIT, grown = RUN_SPEC_INIT;
	grown.act_bytes = 128;
	pair p;
	compare(&p, &base, &grown);
	assert_int_equal(p.d->ndevices, 1);
	const cg_diff_device *dev = &p.d->devices[0];
	assert_string_equal(dev->name, "cuda:0");
	assert_pair(dev->peak, 164, 228);
	assert_pair(dev->peak_t_ns, 111, 111);
	double pct;
	assert_true(cg_diff_percent(dev->peak, &pct));
	assert_true(pct == 64.0 / 164.0 * 100.0);
	assert_pair(dev->by_category[CG_CAT_PARAMETER], 100, 100);
	assert_pair(dev->by_category[CG_CAT_ACTIVATION], 64, 128);
	assert_pair(dev->by_category[CG_CAT_OPTIMIZER_STATE], 0, 0);
	assert_true(dev->listed);
	assert_pair(dev->by_phase[CG_PHASE_NONE], 100, 100);
	assert_pair(dev->by_phase[CG_PHASE_FORWARD], 64, 128);
	assert_pair(dev->by_phase[CG_PHASE_BACKWARD], 0, 0);

	/* the tree: steps by their label */
	assert_int_equal(dev->nnodes, 5);
	assert_pair(node(&p, dev, "")->total, 164, 228);
	assert_pair(node(&p, dev, "run")->own, 100, 100);
	assert_pair(node(&p, dev, "run")->total, 164, 228);
	assert_pair(node(&p, dev, "run/step#*")->total, 64, 128);
	assert_pair(node(&p, dev, "run/step#*/fwd")->own, 0, 0);
	assert_pair(node(&p, dev, "run/step#*/fwd/fc1")->own, 64, 128);
	assert_pair(node(&p, dev, "run/step#*/fwd/fc1")->own_count, 1, 1);
	/* fc1 first (its own bytes grew), then the ancestors in pre-order */
	assert_int_equal(dev->nchanged, 4);
	assert_string_equal(changed_path(&p, dev, 0), "run/step#*/fwd/fc1");
	assert_string_equal(changed_path(&p, dev, 1), "run");
	assert_string_equal(changed_path(&p, dev, 2), "run/step#*");
	assert_string_equal(changed_path(&p, dev, 3), "run/step#*/fwd");

	/* the activation of 128 B is new, the one of 64 B gone */
	assert_int_equal(dev->ngroups, 2);
	const cg_diff_alloc_group *g = &dev->groups[0];
	assert_int_equal(g->side, CG_DIFF_NEW);
	assert_string_equal(path_of(&p, g->path), "run/step#*/fwd/fc1");
	assert_int_equal(g->size, 128);
	assert_int_equal(g->count, 1);
	assert_int_equal(g->bytes, 128);
	assert_pair(g->live, 0, 1);
	const cg_mem *m = &p.tl[1]->mem[g->example];
	assert_string_equal(cg_timeline_str(p.tl[1], cg_timeline_mem_op(p.tl[1], m)), "linear");
	char shape[64];
	assert_string_equal(cg_timeline_shape_format(p.tl[1], cg_timeline_mem_shape(p.tl[1], m), shape, sizeof shape), "[4, 8]");
	g = &dev->groups[1];
	assert_int_equal(g->side, CG_DIFF_BASE);
	assert_int_equal(g->bytes, 64);
	assert_string_equal(cg_timeline_shape_format(p.tl[0], cg_timeline_mem_shape(p.tl[0], &p.tl[0]->mem[g->example]), shape, sizeof shape),
			    "[4, 4]");
	assert_pair(dev->only_count, 1, 1);
	assert_pair(dev->only_bytes, 64, 128);
	assert_pair(dev->live_at_end, 100, 100);
	assert_pair(dev->leaked_at_end, 0, 0);
	release(&p);
}

/* New: step 0 allocates 32 B, steps 1 and 2 64 B as the base does: its
 * peak (164 B) is in step#1, the base's in step#0 — the same path. */
static void a_peak_in_another_step_is_the_same_span_path(void **state)
{
	run_spec base = RUN_SPEC_INIT, later = RUN_SPEC_INIT;
	later.act_bytes_step0 = 32;
	pair p;
	compare(&p, &base, &later);
	const cg_diff_device *dev = &p.d->devices[0];
	assert_pair(dev->peak, 164, 164);
	assert_pair(dev->peak_t_ns, 111, 211);
	assert_pair(node(&p, dev, "run/step#*/fwd/fc1")->own, 64, 64);
	assert_int_equal(dev->nnodes, 5);
	assert_int_equal(dev->nchanged, 0);
	assert_int_equal(dev->ngroups, 0);
	release(&p);
}

/* New: an optimizer span in every step; step 0 allocates 200 B of
 * optimizer state that stays. New peak: 100 + 200 + 64 = 364 B at t = 211. */
static void an_optimizer_state_that_appears(void **state)
{
	run_spec base = RUN_SPEC_INIT, adam = RUN_SPEC_INIT;
	adam.opt = true;
	pair p;
	compare(&p, &base, &adam);
	const cg_diff_device *dev = &p.d->devices[0];
	assert_pair(dev->peak, 164, 364);
	assert_pair(dev->peak_t_ns, 111, 211);
	double pct;
	assert_true(cg_diff_percent(dev->peak, &pct));
	assert_true(pct == 200.0 / 164.0 * 100.0);
	assert_pair(dev->by_category[CG_CAT_OPTIMIZER_STATE], 0, 200);
	assert_pair(dev->by_category[CG_CAT_ACTIVATION], 64, 64);
	assert_pair(dev->by_phase[CG_PHASE_OPTIMIZER], 0, 200);
	assert_pair(dev->by_phase[CG_PHASE_FORWARD], 64, 64);
	assert_int_equal(dev->nnodes, 6);
	assert_pair(node(&p, dev, "run/step#*/opt")->own, 0, 200);
	assert_pair(node(&p, dev, "run/step#*/fwd/fc1")->own, 64, 64);
	/* the new node comes after its older sibling */
	assert_string_equal(path_of(&p, dev->nodes[5].path), "run/step#*/opt");
	assert_int_equal(dev->nchanged, 3);
	assert_string_equal(changed_path(&p, dev, 0), "run/step#*/opt");
	assert_string_equal(changed_path(&p, dev, 1), "run");
	assert_string_equal(changed_path(&p, dev, 2), "run/step#*");
	assert_int_equal(dev->ngroups, 1);
	assert_int_equal(dev->groups[0].side, CG_DIFF_NEW);
	assert_int_equal(dev->groups[0].bytes, 200);
	assert_string_equal(cg_timeline_str(p.tl[1], cg_timeline_mem_op(p.tl[1], &p.tl[1]->mem[dev->groups[0].example])), "zeros");
	assert_pair(dev->live_at_end, 100, 300);
	assert_pair(dev->leaked_at_end, 0, 0); /* optimizer state is meant to stay */
	release(&p);
}

/* Both runs make a 4 B loss in fwd every step; the new one keeps them.
 * Base peak 168 (w + act + loss) at t = 112; new: 100 + 64 + 3 * 4 = 176 at
 * t = 312. At the new peak three losses are live against one: two more. */
static void a_leak_that_grows_per_step(void **state)
{
	run_spec base = RUN_SPEC_INIT, leaky = RUN_SPEC_INIT;
	base.loss = leaky.loss = true;
	leaky.keep_loss = true;
	pair p;
	compare(&p, &base, &leaky);
	const cg_diff_device *dev = &p.d->devices[0];
	assert_pair(dev->peak, 168, 176);
	assert_pair(dev->peak_t_ns, 112, 312);
	double pct;
	assert_true(cg_diff_percent(dev->peak, &pct));
	assert_true(pct == 8.0 / 168.0 * 100.0);
	assert_pair(dev->by_category[CG_CAT_ACTIVATION], 68, 76);
	assert_pair(node(&p, dev, "run/step#*/fwd")->own, 4, 12);
	assert_pair(node(&p, dev, "run/step#*/fwd")->own_count, 1, 3);
	assert_pair(node(&p, dev, "run/step#*/fwd")->total, 68, 76);
	assert_int_equal(dev->nchanged, 3);
	assert_string_equal(changed_path(&p, dev, 0), "run/step#*/fwd");
	assert_int_equal(dev->ngroups, 1);
	const cg_diff_alloc_group *g = &dev->groups[0];
	assert_int_equal(g->side, CG_DIFF_NEW);
	assert_string_equal(path_of(&p, g->path), "run/step#*/fwd");
	assert_int_equal(g->size, 4);
	assert_int_equal(g->count, 2);
	assert_int_equal(g->bytes, 8);
	assert_pair(g->live, 1, 3);
	assert_pair(dev->live_at_end, 100, 112);
	assert_pair(dev->leaked_at_end, 0, 12);
	release(&p);
}

/* Base has cuda:0 (100 B) and cpu (10 B); new has cpu (30 B) and cuda:1 (50 B). */
static void devices_are_matched_by_name_and_the_others_listed(void **state)
{
	pair p;
	p.tl[0] = tu_tl_new();
	tu_mem(p.tl[0], 1, "a", NULL, "cuda:0", 100, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_mem(p.tl[0], 2, "b", NULL, "cpu", 10, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(p.tl[0]);
	p.tl[1] = tu_tl_new();
	tu_mem(p.tl[1], 1, "c", NULL, "cpu", 30, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_mem(p.tl[1], 2, "d", NULL, "cuda:1", 50, CG_ALLOC, CG_CAT_INPUT, NULL);
	tu_tl_finalize(p.tl[1]);
	compare_timelines(&p);
	assert_int_equal(p.d->ndevices, 3);
	const cg_diff_device *d = p.d->devices;
	assert_string_equal(d[0].name, "cuda:0");
	assert_int_equal(d[0].index[CG_DIFF_BASE], 0);
	assert_int_equal(d[0].index[CG_DIFF_NEW], CG_NONE);
	assert_pair(d[0].peak, 100, 0);
	assert_false(d[0].listed);
	assert_string_equal(d[1].name, "cpu");
	assert_int_equal(d[1].index[CG_DIFF_BASE], 1);
	assert_int_equal(d[1].index[CG_DIFF_NEW], 0);
	assert_pair(d[1].peak, 10, 30);
	assert_true(d[1].listed);
	/* outside any span: the root's own bytes, which count as changed */
	assert_int_equal(d[1].nchanged, 1);
	assert_int_equal(d[1].changed[0], 0);
	assert_pair(d[1].nodes[0].own, 10, 30);
	assert_string_equal(d[2].name, "cuda:1");
	assert_int_equal(d[2].index[CG_DIFF_BASE], CG_NONE);
	assert_pair(d[2].peak, 0, 50);
	assert_pair(d[2].by_category[CG_CAT_INPUT], 0, 50);
	double pct;
	assert_false(cg_diff_percent(d[2].peak, &pct));
	assert_true(cg_diff_percent(d[0].peak, &pct));
	assert_true(pct == -100.0);
	release(&p);
}

/* Without pairing only the category sums are known. */
static void unpaired_runs_compare_by_category_only(void **state)
{
	pair p;
	for (int s = 0; s < 2; s++) {
		p.tl[s] = tu_tl_new();
		p.tl[s]->source.pairing_known = false;
		tu_mem(p.tl[s], 1, "a", NULL, "cpu", 100 * (uint64_t)(s + 1), CG_ALLOC, CG_CAT_GRADIENT, NULL);
		tu_tl_finalize(p.tl[s]);
	}
	compare_timelines(&p);
	const cg_diff_device *dev = &p.d->devices[0];
	assert_false(dev->listed);
	assert_pair(dev->peak, 100, 200);
	assert_pair(dev->by_category[CG_CAT_GRADIENT], 100, 200);
	assert_int_equal(dev->nnodes, 0);
	assert_int_equal(dev->nchanged, 0);
	assert_int_equal(dev->ngroups, 0);
	release(&p);
}

/* Memory from before the trace (a free without allocation) is matched
 * under its own node, by op, shape and size. */
static void allocations_from_before_the_trace_are_matched_too(void **state)
{
	pair p;
	for (int s = 0; s < 2; s++) {
		p.tl[s] = tu_tl_new();
		tu_mem(p.tl[s], 1, "x", NULL, "cpu", 8, CG_ALLOC, CG_CAT_ACTIVATION, "mm");
		tu_mem(p.tl[s], 5, "old", NULL, "cpu", 40, CG_FREE, CG_CAT_INPUT, "randn");
		if (s == 1)
			tu_mem(p.tl[s], 6, "old2", NULL, "cpu", 40, CG_FREE, CG_CAT_INPUT, "randn");
		tu_tl_finalize(p.tl[s]);
	}
	compare_timelines(&p);
	const cg_diff_device *dev = &p.d->devices[0];
	assert_pair(dev->peak, 48, 88);
	assert_pair(node(&p, dev, "(before the trace)")->own, 40, 80);
	assert_int_equal(dev->ngroups, 1);
	assert_int_equal(dev->groups[0].side, CG_DIFF_NEW);
	assert_string_equal(path_of(&p, dev->groups[0].path), "(before the trace)");
	assert_int_equal(dev->groups[0].bytes, 40);
	release(&p);
}

static void long_paths_are_cut_between_characters(void **state)
{
	pair p;
	char name[3000];
	for (int s = 0; s < 2; s++) {
		p.tl[s] = tu_tl_new();
		/* "é" is two bytes: a cut at an odd byte would split one */
		size_t k = 0;
		while (k + 2 < sizeof name) {
			name[k++] = (char)0xc3;
			name[k++] = (char)0xa9;
		}
		name[k] = '\0';
		tu_span(p.tl[s], "a", NULL, name, 0, 10, CG_PHASE_NONE);
		tu_span(p.tl[s], "b", "a", name, 0, 10, CG_PHASE_NONE);
		tu_mem(p.tl[s], 1, "x", "b", "cpu", 8 * (uint64_t)(s + 1), CG_ALLOC, CG_CAT_ACTIVATION, "mm");
		tu_tl_finalize(p.tl[s]);
	}
	compare_timelines(&p);
	const cg_diff_device *dev = &p.d->devices[0];
	assert_int_equal(dev->nchanged, 2);
	char buf[8192];
	cg_diff_path(p.d, dev->nodes[dev->changed[0]].path, buf, sizeof buf);
	size_t n = strlen(buf);
	assert_true(n <= 4095);
	assert_true(n > 4000);
	assert_int_equal((unsigned char)buf[n - 1], 0xa9); /* the last character is whole */
	/* a small buffer cuts too */
	char small[10];
	cg_diff_path(p.d, dev->nodes[dev->changed[0]].path, small, sizeof small);
	assert_int_equal(strlen(small), 8);
	release(&p);
}

/* Scale: one device with 300,000 kinds of allocation live at its peak
 * beside 20,000 devices with one each finishes well under the ctest
 * timeout, with the small devices' figures right (the table of kinds is
 * cleared at the cost of its entries, not of its size). */
static void a_huge_device_does_not_slow_every_other_device(void **state)
{
	enum { BIG = 300000, SMALL = 20000 };
	pair p;
	for (int s = 0; s < 2; s++) {
		p.tl[s] = tu_tl_new();
		for (int i = 0; i < BIG; i++) {
			char id[16];
			snprintf(id, sizeof id, "t%d", i);
			tu_mem(p.tl[s], (uint64_t)i, id, NULL, "cuda:0", 8 + (uint64_t)i, CG_ALLOC, CG_CAT_ACTIVATION, "mm");
		}
		for (int d = 0; d < SMALL; d++) {
			char dev[16];
			snprintf(dev, sizeof dev, "cpu:%d", d);
			tu_mem(p.tl[s], BIG + (uint64_t)d, "x", NULL, dev, 8 * (uint64_t)(s + 1), CG_ALLOC, CG_CAT_INPUT, NULL);
		}
		tu_tl_finalize(p.tl[s]);
	}
	compare_timelines(&p);
	assert_int_equal(p.d->ndevices, SMALL + 1);
	assert_int_equal(p.d->devices[0].ngroups, 0);
	const cg_diff_device *last = &p.d->devices[SMALL];
	assert_pair(last->peak, 8, 16);
	assert_int_equal(last->ngroups, 2);
	release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_module_that_doubles_its_activation),
		cmocka_unit_test(a_peak_in_another_step_is_the_same_span_path),
		cmocka_unit_test(an_optimizer_state_that_appears),
		cmocka_unit_test(a_leak_that_grows_per_step),
		cmocka_unit_test(devices_are_matched_by_name_and_the_others_listed),
		cmocka_unit_test(unpaired_runs_compare_by_category_only),
		cmocka_unit_test(allocations_from_before_the_trace_are_matched_too),
		cmocka_unit_test(long_paths_are_cut_between_characters),
		cmocka_unit_test(a_huge_device_does_not_slow_every_other_device),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
