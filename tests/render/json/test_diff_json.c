/* diff.json (diff_json.h, docs/diff-format.md) of two hand-built runs
 * (tests/helpers/difftrace.h describes them): change objects with exact
 * signed changes and null sides, the runs, the alignment, span paths and
 * allocations at one peak. The figures are worked out from difftrace's
 * comment: the base run (RUN_SPEC_INIT) peaks at w 100 + act0 64 = 164 B
 * at t = 111 (step 0: t0 = 100, act allocated at t0 + 11). */
#include "tlbuild.h"
#include "jsonpath.h"

#include <string.h>

#include "analysis.h"
#include "compare.h"
#include "diff_json.h"
#include "difftrace.h"

typedef struct runs {
	cg_timeline *tl[2];
	cg_analysis *a[2];
	cg_diff_view *v;
	cJSON *doc;
} runs;

static void compare(runs *r, const run_spec *base, const run_spec *new_run, cg_align_mode mode, unsigned top)
{
	const run_spec *spec[2] = {base, new_run};
	for (int s = 0; s < 2; s++) {
		r->tl[s] = dt_timeline(spec[s]);
		assert_int_equal(cg_analysis_run(&r->a[s], r->tl[s], NULL, NULL), 0);
	}
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_diff_view_new(&r->v, r->a[0], r->a[1], mode, top, &err), 0);
	cg_sink *s = cg_sink_memory();
	cg_diff_json_write(s, r->v, true);
	r->doc = cJSON_Parse(cg_sink_data(s, NULL));
	if (!r->doc)
		fail_msg("diff.json does not parse:\n%s", cg_sink_data(s, NULL));
	cg_sink_close(s, NULL);
}

static void release(runs *r)
{
	cJSON_Delete(r->doc);
	cg_diff_view_free(r->v);
	for (int s = 0; s < 2; s++) {
		cg_analysis_free(r->a[s]);
		cg_timeline_free(r->tl[s]);
	}
}

/* A change object with both sides known. */
static void assert_change(cJSON *c, uint64_t base, uint64_t new_v, double change)
{
	assert_int_equal(U64(c, "base"), base);
	assert_int_equal(U64(c, "new"), new_v);
	assert_true(DBL(c, "change") == change);
	if (base == 0)
		IS_NULL(c, "change_percent");
	else
		assert_true(DBL(c, "change_percent") == change / (double)base * 100.0);
}

/* The span path at index k of a device's span_paths. */
static const char *changed_path(cJSON *dev, int k)
{
	return json_str(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(AT(dev, "at_peak", "span_paths"), k),
						       "path"));
}

static void the_document_says_what_it_is_and_which_runs(void **state)
{
	run_spec base = RUN_SPEC_INIT, grown = RUN_SPEC_INIT;
	grown.act_bytes = 128;
	runs r;
	compare(&r, &base, &grown, CG_ALIGN_PHASES, 20);
	assert_string_equal(STR(r.doc, "schema"), "cgmem/diff/1");
	assert_string_equal(STR(r.doc, "cgmem_version"), CGMEM_VERSION);
	assert_int_equal(U64(r.doc, "options", "top"), 20);
	static const char *const sides[] = {"base", "new"};
	for (int s = 0; s < 2; s++) {
		cJSON *run = AT(r.doc, "runs", sides[s]);
		assert_string_equal(STR(run, "path"), "test.jsonl");
		assert_string_equal(STR(run, "format"), "hand-built");
		IS_FALSE(run, "gzip");
		assert_string_equal(STR(run, "run_id"), "dt");
		/* span "run" ends at 100 * (3 + 1) */
		assert_int_equal(U64(run, "duration_ns"), 400);
		assert_int_equal(U64(run, "steps"), 3);
		assert_string_equal(STR(run, "steps_label"), "step#*");
		IS_FALSE(run, "truncated");
		IS_NULL(run, "truncation_note");
		IS_TRUE(run, "pairing_known");
		IS_TRUE(run, "categories_known");
		assert_int_equal(U64(run, "bad_lines"), 0);
	}
	/* one forward window a step in each run, step k with step k */
	assert_string_equal(STR(r.doc, "alignment", "mode"), "phases");
	assert_int_equal(U64(r.doc, "alignment", "phase_windows", "base"), 3);
	assert_int_equal(U64(r.doc, "alignment", "phase_windows", "new"), 3);
	assert_int_equal(U64(r.doc, "alignment", "matched_steps"), 3);
	assert_int_equal(U64(r.doc, "alignment", "matched_windows"), 3);
	release(&r);
	/* aligned by start, nothing is matched */
	compare(&r, &base, &grown, CG_ALIGN_START, 20);
	assert_string_equal(STR(r.doc, "alignment", "mode"), "start");
	assert_int_equal(U64(r.doc, "alignment", "matched_steps"), 0);
	assert_int_equal(U64(r.doc, "alignment", "matched_windows"), 0);
	release(&r);
}

/* New: act 128 B, peak 100 + 128 = 228 B, also at t = 111: +64 B, 64 / 164
 * = 39.02 %. Only fc1 allocates more; its ancestors' totals follow. */
static void the_peak_change_of_a_module_that_doubles_its_activation(void **state)
{
	run_spec base = RUN_SPEC_INIT, grown = RUN_SPEC_INIT;
	grown.act_bytes = 128;
	runs r;
	compare(&r, &base, &grown, CG_ALIGN_PHASES, 20);
	assert_int_equal(LEN(r.doc, "devices"), 1);
	cJSON *dev = AT(r.doc, "devices", "0");
	assert_string_equal(STR(dev, "name"), "cuda:0");
	IS_TRUE(dev, "in_base");
	IS_TRUE(dev, "in_new");
	assert_change(AT(dev, "peak_bytes"), 164, 228, 64);
	assert_true(DBL(dev, "peak_bytes", "change_percent") == 64.0 / 164.0 * 100.0);
	assert_int_equal(U64(dev, "peak_time_ns", "base"), 111);
	assert_int_equal(U64(dev, "peak_time_ns", "new"), 111);
	/* every act is freed: w alone is left, and it is a parameter */
	assert_change(AT(dev, "live_at_end_bytes"), 100, 100, 0);
	assert_change(AT(dev, "leaked_at_end_bytes"), 0, 0, 0);
	cJSON *p = AT(dev, "at_peak");
	assert_int_equal(LEN(p, "by_category"), 9);
	assert_change(AT(p, "by_category", "parameter"), 100, 100, 0);
	assert_change(AT(p, "by_category", "activation"), 64, 128, 64);
	assert_change(AT(p, "by_category", "optimizer_state"), 0, 0, 0);
	IS_TRUE(p, "listed");
	assert_change(AT(p, "by_phase", "none"), 100, 100, 0);
	assert_change(AT(p, "by_phase", "forward"), 64, 128, 64);
	assert_change(AT(p, "by_phase", "backward"), 0, 0, 0);
	/* fc1 first (its own bytes grew), then its ancestors in pre-order */
	assert_int_equal(U64(p, "span_paths_changed"), 4);
	assert_int_equal(LEN(p, "span_paths"), 4);
	assert_string_equal(changed_path(dev, 0), "run/step#*/fwd/fc1");
	assert_string_equal(changed_path(dev, 1), "run");
	assert_string_equal(changed_path(dev, 2), "run/step#*");
	assert_string_equal(changed_path(dev, 3), "run/step#*/fwd");
	cJSON *fc1 = AT(p, "span_paths", "0");
	assert_change(AT(fc1, "own_bytes"), 64, 128, 64);
	assert_change(AT(fc1, "total_bytes"), 64, 128, 64);
	assert_int_equal(U64(fc1, "own_count", "base"), 1);
	assert_int_equal(U64(fc1, "own_count", "new"), 1);
	assert_change(AT(p, "span_paths", "1", "own_bytes"), 100, 100, 0);
	assert_change(AT(p, "span_paths", "1", "total_bytes"), 164, 228, 64);
	/* the 128 B activation is at the new peak only, the 64 B one at the base's */
	cJSON *one = AT(p, "allocations_at_one_peak");
	assert_int_equal(U64(one, "base", "count"), 1);
	assert_int_equal(U64(one, "base", "bytes"), 64);
	assert_int_equal(U64(one, "new", "count"), 1);
	assert_int_equal(U64(one, "new", "bytes"), 128);
	assert_int_equal(U64(one, "groups_count"), 2);
	cJSON *g = AT(one, "groups", "0");
	assert_string_equal(STR(g, "peak"), "new");
	assert_string_equal(STR(g, "path"), "run/step#*/fwd/fc1");
	assert_string_equal(STR(g, "op"), "linear");
	assert_int_equal(LEN(g, "shape"), 2);
	assert_int_equal(U64(g, "shape", "0"), 4);
	assert_int_equal(U64(g, "shape", "1"), 8); /* 128 / 16 */
	assert_int_equal(U64(g, "size"), 128);
	assert_int_equal(U64(g, "count"), 1);
	assert_int_equal(U64(g, "bytes"), 128);
	assert_int_equal(U64(g, "live", "base"), 0);
	assert_int_equal(U64(g, "live", "new"), 1);
	/* the example, an allocation object of its own run: act0 at t 111,
	 * freed at t0 + 40 = 140 */
	assert_string_equal(STR(g, "example", "tensor"), "act0");
	assert_string_equal(STR(g, "example", "category"), "activation");
	assert_string_equal(STR(g, "example", "phase"), "forward");
	assert_int_equal(U64(g, "example", "allocated_ns"), 111);
	assert_int_equal(U64(g, "example", "freed_ns"), 140);
	assert_string_equal(STR(one, "groups", "1", "peak"), "base");
	assert_int_equal(U64(one, "groups", "1", "size"), 64);
	release(&r);
}

/* The other way round, the change is negative and exact: -64 B, -64 / 228. */
static void a_peak_that_shrank_has_a_negative_change(void **state)
{
	run_spec base = RUN_SPEC_INIT, shrunk = RUN_SPEC_INIT;
	base.act_bytes = 128;
	runs r;
	compare(&r, &base, &shrunk, CG_ALIGN_PHASES, 20);
	cJSON *dev = AT(r.doc, "devices", "0");
	assert_int_equal(U64(dev, "peak_bytes", "base"), 228);
	assert_int_equal(U64(dev, "peak_bytes", "new"), 164);
	assert_true(DBL(dev, "peak_bytes", "change") == -64.0);
	assert_true(DBL(dev, "peak_bytes", "change_percent") == -64.0 / 228.0 * 100.0);
	assert_true(DBL(dev, "at_peak", "by_category", "activation", "change") == -64.0);
	release(&r);
}

/* New: an optimizer span in every step, and 200 B of optimizer state from
 * step 0 on; peak 100 + 200 + 64 = 364 B at t = 211. From 0 B there is no
 * percentage. Lists are cut at top. */
static void a_change_from_zero_has_no_percentage(void **state)
{
	run_spec base = RUN_SPEC_INIT, adam = RUN_SPEC_INIT;
	adam.opt = true;
	runs r;
	compare(&r, &base, &adam, CG_ALIGN_PHASES, 1);
	cJSON *dev = AT(r.doc, "devices", "0");
	assert_change(AT(dev, "peak_bytes"), 164, 364, 200);
	assert_int_equal(U64(dev, "peak_time_ns", "new"), 211);
	assert_change(AT(dev, "at_peak", "by_category", "optimizer_state"), 0, 200, 200);
	assert_change(AT(dev, "at_peak", "by_phase", "optimizer"), 0, 200, 200);
	/* optimizer state is meant to stay: live, not leaked */
	assert_change(AT(dev, "live_at_end_bytes"), 100, 300, 200);
	assert_change(AT(dev, "leaked_at_end_bytes"), 0, 0, 0);
	/* three paths changed (opt, run, run/step#*), one listed */
	assert_int_equal(U64(r.doc, "options", "top"), 1);
	assert_int_equal(U64(dev, "at_peak", "span_paths_changed"), 3);
	assert_int_equal(LEN(dev, "at_peak", "span_paths"), 1);
	assert_string_equal(changed_path(dev, 0), "run/step#*/opt");
	assert_int_equal(U64(dev, "at_peak", "allocations_at_one_peak", "groups_count"), 1);
	assert_string_equal(STR(dev, "at_peak", "allocations_at_one_peak", "groups", "0", "op"), "zeros");
	release(&r);
}

/* Both runs make a 4 B loss every step; the new one keeps them: 3 * 4 B
 * activations live at its end, which are leak candidates. */
static void kept_losses_are_leaked_at_the_end(void **state)
{
	run_spec base = RUN_SPEC_INIT, leaky = RUN_SPEC_INIT;
	base.loss = leaky.loss = true;
	leaky.keep_loss = true;
	runs r;
	compare(&r, &base, &leaky, CG_ALIGN_PHASES, 20);
	cJSON *dev = AT(r.doc, "devices", "0");
	/* base: w + act + loss = 168 at t = 112; new: 100 + 64 + 3 * 4 = 176 at t = 312 */
	assert_change(AT(dev, "peak_bytes"), 168, 176, 8);
	assert_int_equal(U64(dev, "peak_time_ns", "base"), 112);
	assert_int_equal(U64(dev, "peak_time_ns", "new"), 312);
	assert_change(AT(dev, "live_at_end_bytes"), 100, 112, 12);
	assert_change(AT(dev, "leaked_at_end_bytes"), 0, 12, 12);
	release(&r);
}

/* Devices are matched by name: one only in each run. A side without the
 * device is null, and so are the change and the lists. */
static void a_device_in_one_run_only_has_null_sides(void **state)
{
	run_spec base = RUN_SPEC_INIT, moved = RUN_SPEC_INIT;
	moved.dev = "cuda:1";
	runs r;
	compare(&r, &base, &moved, CG_ALIGN_PHASES, 20);
	assert_int_equal(LEN(r.doc, "devices"), 2);
	/* the base run's devices first, then the new run's own */
	cJSON *gone = AT(r.doc, "devices", "0"), *added = AT(r.doc, "devices", "1");
	assert_string_equal(STR(gone, "name"), "cuda:0");
	IS_TRUE(gone, "in_base");
	IS_FALSE(gone, "in_new");
	assert_int_equal(U64(gone, "peak_bytes", "base"), 164);
	IS_NULL(gone, "peak_bytes", "new");
	IS_NULL(gone, "peak_bytes", "change");
	IS_NULL(gone, "peak_bytes", "change_percent");
	assert_int_equal(U64(gone, "peak_time_ns", "base"), 111);
	IS_NULL(gone, "peak_time_ns", "new");
	IS_NULL(gone, "at_peak", "by_category", "parameter", "new");
	IS_FALSE(gone, "at_peak", "listed");
	IS_NULL(gone, "at_peak", "by_phase");
	IS_NULL(gone, "at_peak", "span_paths_changed");
	IS_NULL(gone, "at_peak", "span_paths");
	IS_NULL(gone, "at_peak", "allocations_at_one_peak");
	assert_string_equal(STR(added, "name"), "cuda:1");
	IS_FALSE(added, "in_base");
	IS_NULL(added, "peak_bytes", "base");
	assert_int_equal(U64(added, "peak_bytes", "new"), 164);
	IS_NULL(added, "live_at_end_bytes", "change");
	release(&r);
}

/* The compact form is the same document; save writes it or says why not. */
static void compact_form_and_save(void **state)
{
	run_spec base = RUN_SPEC_INIT, grown = RUN_SPEC_INIT;
	grown.act_bytes = 128;
	runs r;
	compare(&r, &base, &grown, CG_ALIGN_PHASES, 20);
	cg_sink *s = cg_sink_memory();
	cg_diff_json_write(s, r.v, false);
	assert_null(strchr(cg_sink_data(s, NULL), '\n'));
	cJSON *compact = cJSON_Parse(cg_sink_data(s, NULL));
	assert_true(cJSON_Compare(compact, r.doc, true));
	cJSON_Delete(compact);
	cg_sink_close(s, NULL);
	cg_error err = CG_ERROR_INIT;
	const char *path = tu_path("diff.json");
	assert_int_equal(cg_diff_json_save(path, r.v, &err), 0);
	cJSON *saved = tu_json_file(path);
	assert_true(cJSON_Compare(saved, r.doc, true));
	cJSON_Delete(saved);
	assert_int_equal(cg_diff_json_save("/dev/full", r.v, &err), CG_EIO);
	assert_non_null(strstr(err.msg, "/dev/full"));
	release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_document_says_what_it_is_and_which_runs),
		cmocka_unit_test(the_peak_change_of_a_module_that_doubles_its_activation),
		cmocka_unit_test(a_peak_that_shrank_has_a_negative_change),
		cmocka_unit_test(a_change_from_zero_has_no_percentage),
		cmocka_unit_test(kept_losses_are_leaked_at_the_end),
		cmocka_unit_test(a_device_in_one_run_only_has_null_sides),
		cmocka_unit_test(compact_form_and_save),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
