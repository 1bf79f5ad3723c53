/* `cgmem check --json` (check_json.h, docs/diff-format.md): schema
 * cgmem/check/1, ok and failed, one verdict per limit and device with its
 * unit, measured figure and limit, and null for what is not known. The
 * runs are difftrace's (tests/helpers/difftrace.h): RUN_SPEC_INIT peaks at
 * w 100 + act0 64 = 164 B at t = 111 and frees every activation, leaving
 * only the parameter w. */
#include "tlbuild.h"
#include "jsonpath.h"

#include <string.h>

#include "analysis.h"
#include "check.h"
#include "check_json.h"
#include "difftrace.h"

typedef struct judged {
	cg_timeline *tl[2];
	cg_analysis *a[2]; /* the run, the baseline */
	cJSON *doc;
} judged;

/* Judges run (against baseline when not NULL) by l and parses the JSON. */
static void judge(judged *j, const run_spec *run, const run_spec *baseline, const cg_check_limits *l)
{
	memset(j, 0, sizeof *j);
	const run_spec *spec[2] = {run, baseline};
	for (int s = 0; s < 2; s++) {
		if (!spec[s])
			continue;
		j->tl[s] = dt_timeline(spec[s]);
		assert_int_equal(cg_analysis_run(&j->a[s], j->tl[s], NULL, NULL), 0);
	}
	cg_check_result *r;
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_check_run(&r, j->a[0], j->a[1], l, &err), 0);
	cg_sink *s = cg_sink_memory();
	cg_check_json_write(s, r, l, "run.jsonl", baseline ? "base.jsonl" : NULL);
	j->doc = cJSON_Parse(cg_sink_data(s, NULL));
	if (!j->doc)
		fail_msg("not valid JSON:\n%s", cg_sink_data(s, NULL));
	cg_sink_close(s, NULL);
	cg_check_free(r);
}

static void release(judged *j)
{
	cJSON_Delete(j->doc);
	for (int s = 0; s < 2; s++) {
		cg_analysis_free(j->a[s]);
		cg_timeline_free(j->tl[s]);
	}
}

/* Every limit on one device, in the order of the schema. The replay
 * estimates fragmentation (no checkpoints, not a CPU): w and act0 (128 B
 * here, peak 228 B) take a 512 B block each of one 2 MiB small-pool
 * segment, so at the peak (2097152 - 228) / 2097152 is not in use, over
 * 0.3 (docs/analysis.md, section 5). Growth from the
 * baseline's 164 B to 228 B (act 128) is 64 / 164 = 39.02 %, over 10 %. */
static void every_kind_of_verdict_in_order(void **state)
{
	run_spec run = RUN_SPEC_INIT, base = RUN_SPEC_INIT;
	run.act_bytes = 128;
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.peak = l.fragmentation = l.leaked = l.growth = true;
	l.max_peak = 300;
	l.max_fragmentation = 0.3;
	l.max_leaked = 0;
	l.max_growth_millionths = 10000000; /* 10 % */
	judged j;
	judge(&j, &run, &base, &l);
	assert_string_equal(STR(j.doc, "schema"), "cgmem/check/1");
	assert_string_equal(STR(j.doc, "cgmem_version"), CGMEM_VERSION);
	assert_string_equal(STR(j.doc, "file"), "run.jsonl");
	assert_string_equal(STR(j.doc, "baseline"), "base.jsonl");
	IS_FALSE(j.doc, "ok");
	assert_int_equal(U64(j.doc, "failed"), 2);
	assert_int_equal(LEN(j.doc, "limits"), 4);

	cJSON *peak = AT(j.doc, "limits", "0");
	assert_string_equal(STR(peak, "limit"), "max-peak");
	assert_string_equal(STR(peak, "device"), "cuda:0");
	IS_TRUE(peak, "ok");
	assert_string_equal(STR(peak, "verdict"), "ok");
	IS_NULL(peak, "reason");
	assert_string_equal(STR(peak, "unit"), "bytes");
	assert_int_equal(U64(peak, "measured"), 228);
	assert_int_equal(U64(peak, "max"), 300);
	assert_int_equal(U64(peak, "time_ns"), 111);

	cJSON *frag = AT(j.doc, "limits", "1");
	assert_string_equal(STR(frag, "limit"), "max-fragmentation");
	IS_FALSE(frag, "ok");
	assert_string_equal(STR(frag, "verdict"), "FAIL");
	assert_string_equal(STR(frag, "unit"), "ratio");
	assert_string_equal(STR(frag, "source"), "replay");
	assert_true(DBL(frag, "measured") == (2097152.0 - 228.0) / 2097152.0);
	assert_true(DBL(frag, "max") == 0.3);
	assert_int_equal(U64(frag, "time_ns"), 111); /* the peak's, for an estimate */

	cJSON *leak = AT(j.doc, "limits", "2");
	assert_string_equal(STR(leak, "limit"), "max-leaked");
	IS_TRUE(leak, "ok");
	assert_string_equal(STR(leak, "unit"), "bytes");
	assert_int_equal(U64(leak, "measured"), 0);
	assert_int_equal(U64(leak, "max"), 0);
	assert_null(AT(leak, "time_ns"));

	cJSON *growth = AT(j.doc, "limits", "3");
	assert_string_equal(STR(growth, "limit"), "max-growth");
	IS_FALSE(growth, "ok");
	assert_string_equal(STR(growth, "unit"), "percent");
	assert_true(DBL(growth, "measured") == 64.0 / 164.0 * 100.0);
	assert_true(DBL(growth, "max") == 10.0);
	IS_FALSE(growth, "unbounded");
	assert_int_equal(U64(growth, "peak_bytes"), 228);
	assert_int_equal(U64(growth, "baseline_peak_bytes"), 164);
	IS_TRUE(growth, "in_baseline");
	/* fields of one kind only */
	assert_null(AT(peak, "source"));
	assert_null(AT(frag, "unbounded"));
	release(&j);
}

static void every_limit_held_is_ok_without_a_baseline(void **state)
{
	run_spec run = RUN_SPEC_INIT;
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.peak = l.leaked = true;
	l.max_peak = 164; /* the peak itself holds */
	l.max_leaked = 0;
	judged j;
	judge(&j, &run, NULL, &l);
	IS_TRUE(j.doc, "ok");
	assert_int_equal(U64(j.doc, "failed"), 0);
	IS_NULL(j.doc, "baseline");
	assert_int_equal(LEN(j.doc, "limits"), 2);
	assert_string_equal(STR(j.doc, "limits", "0", "limit"), "max-peak");
	assert_int_equal(U64(j.doc, "limits", "0", "measured"), 164);
	assert_string_equal(STR(j.doc, "limits", "1", "limit"), "max-leaked");
	release(&j);
}

/* Checkpoints with reserved bytes 1000 at t0 + 20 of each step (t 120,
 * 220, 320), when w + act = 164 B are live: (1000 - 164) / 1000 = 0.836,
 * first at t 120. */
static void fragmentation_from_checkpoints(void **state)
{
	run_spec run = RUN_SPEC_INIT;
	run.reserved = 1000;
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.fragmentation = true;
	l.max_fragmentation = 0.9;
	judged j;
	judge(&j, &run, NULL, &l);
	cJSON *v = AT(j.doc, "limits", "0");
	assert_string_equal(STR(v, "source"), "checkpoint");
	assert_true(DBL(v, "measured") == (1000.0 - 164.0) / 1000.0);
	assert_int_equal(U64(v, "time_ns"), 120);
	IS_TRUE(v, "ok");
	IS_TRUE(j.doc, "ok");
	release(&j);
}

/* A CPU without checkpoints has no caching allocator: the limit does not
 * apply and holds, with nothing measured; its verdict is "n/a", as the
 * text line's word, with the reason the text gives. */
static void fragmentation_on_a_cpu_does_not_apply(void **state)
{
	run_spec run = RUN_SPEC_INIT;
	run.dev = "cpu";
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.fragmentation = true;
	l.max_fragmentation = 0.1;
	judged j;
	judge(&j, &run, NULL, &l);
	cJSON *v = AT(j.doc, "limits", "0");
	assert_string_equal(STR(v, "device"), "cpu");
	assert_string_equal(STR(v, "source"), "not_applicable");
	IS_NULL(v, "measured");
	IS_NULL(v, "time_ns");
	assert_true(DBL(v, "max") == 0.1);
	IS_TRUE(v, "ok");
	assert_string_equal(STR(v, "verdict"), "n/a");
	assert_string_equal(STR(v, "reason"), "a CPU has no caching allocator and no checkpoint records reserved bytes");
	IS_TRUE(j.doc, "ok");
	assert_int_equal(U64(j.doc, "failed"), 0);
	assert_int_equal(U64(j.doc, "not_applicable"), 1);
	release(&j);
}

/* A baseline without the device: growth has no bound and fails. */
static void growth_from_a_device_the_baseline_lacks_is_unbounded(void **state)
{
	run_spec run = RUN_SPEC_INIT, base = RUN_SPEC_INIT;
	base.dev = "cuda:1";
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.growth = true;
	l.max_growth_millionths = 2500000; /* 2.5 % */
	judged j;
	judge(&j, &run, &base, &l);
	cJSON *v = AT(j.doc, "limits", "0");
	IS_FALSE(v, "ok");
	IS_NULL(v, "measured");
	IS_TRUE(v, "unbounded");
	assert_true(DBL(v, "max") == 2.5);
	assert_int_equal(U64(v, "peak_bytes"), 164);
	assert_int_equal(U64(v, "baseline_peak_bytes"), 0);
	IS_FALSE(v, "in_baseline");
	IS_FALSE(j.doc, "ok");
	assert_int_equal(U64(j.doc, "failed"), 1);
	release(&j);
}

/* Verdicts made by hand: a fragmentation nobody could measure (no
 * checkpoint, no replay) fails with null figures; a shrinking peak is
 * negative growth; device names are escaped. */
static void unknown_figures_are_null_and_names_escaped(void **state)
{
	cg_check_verdict v[2] = {
		{.kind = CG_CHECK_FRAGMENTATION, .device = "cuda:\"0\"</script>", .ok = false, .measured = false,
		 .source = CG_FRAG_UNKNOWN, .t_ns = 77},
		{.kind = CG_CHECK_GROWTH, .device = "cuda:0", .ok = true, .measured = true, .bytes = 50,
		 .value = -50.0, .base_bytes = 100, .in_baseline = true},
	};
	cg_check_result r = {v, 2, 1};
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.fragmentation = l.growth = true;
	l.max_fragmentation = 0.25;
	l.max_growth_millionths = 0;
	cg_sink *s = cg_sink_memory();
	cg_check_json_write(s, &r, &l, "a \"quoted\" file.jsonl", "b\\c.jsonl");
	cJSON *doc = cJSON_Parse(cg_sink_data(s, NULL));
	if (!doc)
		fail_msg("not valid JSON:\n%s", cg_sink_data(s, NULL));
	cg_sink_close(s, NULL);
	assert_string_equal(STR(doc, "file"), "a \"quoted\" file.jsonl");
	assert_string_equal(STR(doc, "baseline"), "b\\c.jsonl");
	IS_FALSE(doc, "ok");
	assert_int_equal(U64(doc, "failed"), 1);
	cJSON *frag = AT(doc, "limits", "0");
	assert_string_equal(STR(frag, "device"), "cuda:\"0\"</script>");
	assert_string_equal(STR(frag, "source"), "unknown");
	IS_NULL(frag, "measured");
	IS_NULL(frag, "time_ns");
	IS_FALSE(frag, "ok");
	assert_string_equal(STR(frag, "verdict"), "FAIL");
	assert_string_equal(STR(frag, "reason"),
			    "no checkpoint records reserved bytes and the allocator replay is not available");
	assert_int_equal(U64(doc, "not_applicable"), 0);
	cJSON *growth = AT(doc, "limits", "1");
	assert_true(DBL(growth, "measured") == -50.0);
	assert_true(DBL(growth, "max") == 0.0);
	IS_TRUE(growth, "ok");
	assert_string_equal(STR(growth, "verdict"), "ok");
	IS_NULL(growth, "reason");
	cJSON_Delete(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_kind_of_verdict_in_order),
		cmocka_unit_test(every_limit_held_is_ok_without_a_baseline),
		cmocka_unit_test(fragmentation_from_checkpoints),
		cmocka_unit_test(fragmentation_on_a_cpu_does_not_apply),
		cmocka_unit_test(growth_from_a_device_the_baseline_lacks_is_unbounded),
		cmocka_unit_test(unknown_figures_are_null_and_names_escaped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
