/* cgmem check end to end: every limit passing and failing, with the exact
 * lines and exit statuses, on runs worked out by hand
 * (tests/helpers/difftrace.h), and on real samples read through ingest.
 * The verdicts themselves (cg_check_run) are unit-tested in
 * tests/analysis/compare/test_check.c.
 *
 * leaky.jsonl (cuda:0): w 100 B, then per step act 64 B and a 4 B loss
 * that is kept. Peak 100 + 64 + 3 * 4 = 176 B at t = 312; live at the end
 * 100 + 12: leaked 12 B (the parameter is no leak). Checkpoints reserve
 * 300 B at t = 120, 220, 320 where live is 168, 172, 176: fragmentation
 * 132/300 = 0.44 (the largest, at 120 ns), 0.4267, 0.4133.
 * base.jsonl: the same run freeing its losses: peak 168 B. Growth
 * (176 - 168) / 168 = 4.7619047... %. */
#include "runutil.h"

#include <string.h>

#include "analysis.h"
#include "difftrace.h"
#include "ingest.h"

/* Copies: tu_path's buffers are reused. */
static char *leaky, *base, *two;

static int setup(void **state)
{
	static char buf[16384];
	run_spec s = RUN_SPEC_INIT;
	s.loss = true;
	base = strdup(tu_write("base.jsonl", dt_trace(&s, buf, sizeof buf), (size_t)-1));
	s.keep_loss = true;
	s.reserved = 300;
	leaky = strdup(tu_write("leaky.jsonl", dt_trace(&s, buf, sizeof buf), (size_t)-1));
	/* cuda:0 peaks at 100 B, cuda:1 at 300 B; no spans, no checkpoints */
	two = strdup(tu_write("two.jsonl",
		       "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\"}\n"
		       "{\"kind\":\"memory\",\"timestamp_ns\":1,\"tensor_id\":\"a\",\"span_id\":\"s\",\"device\":\"cuda:0\","
		       "\"bytes\":100,\"action\":\"alloc\",\"dtype\":\"f32\",\"category\":\"activation\"}\n"
		       "{\"kind\":\"memory\",\"timestamp_ns\":2,\"tensor_id\":\"b\",\"span_id\":\"s\",\"device\":\"cuda:1\","
		       "\"bytes\":300,\"action\":\"alloc\",\"dtype\":\"f32\",\"category\":\"parameter\"}\n"
		       "{\"kind\":\"memory\",\"timestamp_ns\":3,\"tensor_id\":\"a\",\"span_id\":\"s\",\"device\":\"cuda:0\","
		       "\"bytes\":100,\"action\":\"free\",\"dtype\":\"f32\"}\n",
		       (size_t)-1));
	return 0;
}

static int teardown(void **state)
{
	free(leaky);
	free(base);
	free(two);
	return 0;
}



static void every_limit_holding_exits_zero_with_one_line_each(void **state)
{
	const char *args[16] = {"check", leaky, "--max-peak", "176", "--max-fragmentation", "0.44", "--max-leaked", "12",
				"--baseline", base, "--max-growth", "4.761905", "-q"};
	tu_expectv(args, 0,
	       "ok    max-peak cuda:0: 176 B <= 176 B\n"
	       "ok    max-fragmentation cuda:0: 0.44 (largest at a checkpoint at 120 ns) <= 0.44\n"
	       "ok    max-leaked cuda:0: 12 B <= 12 B\n"
	       "ok    max-growth cuda:0: +4.7619 % (168 B -> 176 B) <= 4.761905 %\n");
}

static void every_limit_failing_exits_three(void **state)
{
	const char *args[16] = {"check", leaky, "--max-peak", "175", "--max-fragmentation", "43%", "--max-leaked", "11",
				"--baseline", base, "--max-growth", "4.761904", "-q"};
	tu_expectv(args, 3,
	       "FAIL  max-peak cuda:0: 176 B > 175 B\n"
	       "FAIL  max-fragmentation cuda:0: 0.44 (largest at a checkpoint at 120 ns) > 0.43\n"
	       "FAIL  max-leaked cuda:0: 12 B > 11 B\n"
	       "FAIL  max-growth cuda:0: +4.7619 % (168 B -> 176 B) > 4.761904 %\n");
}

static void one_failing_limit_among_holding_ones_exits_three(void **state)
{
	const char *args[16] = {"check", leaky, "--max-peak", "1GiB", "--max-leaked", "8", "-q"};
	tu_expectv(args, 3,
	       "ok    max-peak cuda:0: 176 B <= 1.00 GiB (1,073,741,824 B)\n"
	       "FAIL  max-leaked cuda:0: 12 B > 8 B\n");
}

/* 0.171875 KiB is 176 bytes exactly. */
static void sizes_take_units(void **state)
{
	const char *args[16] = {"check", leaky, "--max-peak", "0.171875KiB", "-q"};
	tu_expectv(args, 0, "ok    max-peak cuda:0: 176 B <= 176 B\n");
	const char *mb[16] = {"check", leaky, "--max-peak", "1.5G", "--max-leaked", "500MB", "-q"};
	tu_expectv(mb, 0,
	       "ok    max-peak cuda:0: 176 B <= 1.50 GiB (1,610,612,736 B)\n"
	       "ok    max-leaked cuda:0: 12 B <= 476.8 MiB (500,000,000 B)\n");
}

static void bad_values_and_missing_limits_are_usage_errors(void **state)
{
	struct {
		const char *args[8];
		const char *message;
	} cases[] = {
		{{"check", NULL}, "no trace file given"},
		{{"check", "a.jsonl", "b.jsonl", "--max-peak", "1", NULL}, "give exactly one trace file"},
		{{"check", "a.jsonl", NULL}, "no limit given"},
		{{"check", "a.jsonl", "--max-peak", "lots", NULL}, "--max-peak: 'lots' is not a size"},
		{{"check", "a.jsonl", "--max-peak", "12XB", NULL}, "--max-peak: '12XB' is not a size"},
		{{"check", "a.jsonl", "--max-peak", "-5", NULL}, "--max-peak: '-5' is not a size"},
		{{"check", "a.jsonl", "--max-leaked", "", NULL}, "--max-leaked: '' is not a size"},
		{{"check", "a.jsonl", "--max-fragmentation", "1.5", NULL}, "'1.5' is not a ratio from 0 to 1"},
		{{"check", "a.jsonl", "--max-fragmentation", "0.3x", NULL}, "'0.3x' is not a ratio"},
		{{"check", "a.jsonl", "--max-fragmentation", "120%", NULL}, "'120%' is not a ratio"},
		{{"check", "a.jsonl", "--max-fragmentation", ".", NULL}, "'.' is not a ratio"},
		{{"check", "a.jsonl", "--max-growth", "5", NULL}, "--max-growth needs --baseline FILE"},
		{{"check", "a.jsonl", "--baseline", "b.jsonl", "--max-peak", "1", NULL}, "--baseline needs --max-growth"},
		{{"check", "a.jsonl", "--baseline", "b", "--max-growth", "-5", NULL}, "'-5' is not a percentage"},
		{{"check", "a.jsonl", "--baseline", "b", "--max-growth", "5 %", NULL}, "'5 %' is not a percentage"},
		{{"check", "a.jsonl", "--baseline", "b", "--max-growth", "1.1234567", NULL}, "is not a percentage"},
		{{"check", "a.jsonl", "--baseline", "b", "--max-growth", "1e3", NULL}, "'1e3' is not a percentage"},
		{{"check", "a.jsonl", "--max-peak", "1", "--device", "", NULL}, "--device: no device name given"},
		{{"check", "a.jsonl", "--max-peak", NULL}, "option --max-peak needs a value (SIZE)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out, *err;
		const char **a = cases[i].args;
		int rc = tu_run(&out, &err, NULL, a[0], a[1], a[2], a[3], a[4], a[5], a[6], NULL);
		if (rc != 2 || !strstr(err, cases[i].message))
			fail_msg("case %zu: exit %d, stderr: %s", i, rc, err);
		assert_string_equal(out, "");
		free(out);
		free(err);
	}
}

static void unreadable_inputs_exit_one(void **state)
{
	char *out, *err;
	int rc = tu_run(&out, &err, NULL, "check", tu_path("missing.jsonl"), "--max-peak", "1", NULL);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(err, "missing.jsonl: No such file or directory"));
	free(out);
	free(err);
	rc = tu_run(&out, &err, NULL, "check", leaky, "--baseline", tu_path("gone.jsonl"), "--max-growth", "5", NULL);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(err, "gone.jsonl: No such file or directory"));
	assert_string_equal(out, "");
	free(out);
	free(err);
	const char *junk = tu_write("junk.jsonl", "not a trace at all\n", (size_t)-1);
	rc = tu_run(&out, &err, NULL, "check", junk, "--max-peak", "1", "-q", NULL);
	assert_int_equal(rc, 1);
	free(out);
	free(err);
}

static void every_device_is_judged_unless_one_is_named(void **state)
{
	const char *all[16] = {"check", two, "--max-peak", "200", "-q"};
	tu_expectv(all, 3,
	       "ok    max-peak cuda:0: 100 B <= 200 B\n"
	       "FAIL  max-peak cuda:1: 300 B > 200 B\n");
	const char *one[16] = {"check", two, "--max-peak", "200", "--device", "cuda:0", "-q"};
	tu_expectv(one, 0, "ok    max-peak cuda:0: 100 B <= 200 B\n");
	char *out, *err;
	int rc = tu_run(&out, &err, NULL, "check", two, "--max-peak", "200", "--device", "cuda:7", "-q", NULL);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(err, "has no device named 'cuda:7'"));
	free(out);
	free(err);
}

/* two.jsonl against base.jsonl: cuda:0 from 168 B to 100 B is -40.476 %;
 * cuda:1 is not in the baseline: its growth has no bound. */
static void a_device_the_baseline_lacks_grew_without_bound(void **state)
{
	const char *args[16] = {"check", two, "--baseline", base, "--max-growth", "5", "-q"};
	tu_expectv(args, 3,
	       "ok    max-growth cuda:0: -40.4762 % (168 B -> 100 B) <= 5 %\n"
	       "FAIL  max-growth cuda:1: unbounded (0 B -> 300 B) > 5 % (not in the baseline)\n");
}

static void json_verdicts_hold_the_exact_figures(void **state)
{
	char *out, *err;
	int rc = tu_run(&out, &err, NULL, "check", leaky, "--max-peak", "175", "--max-fragmentation", "0.5",
			"--max-leaked", "12", "--baseline", base, "--max-growth", "2.5%", "--json", "-q", NULL);
	assert_int_equal(rc, 3);
	cJSON *j = cJSON_Parse(out);
	assert_non_null(j);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "schema", NULL)), "cgmem/check/1");
	assert_true(cJSON_IsFalse(tu_json_at(j, "ok", NULL)));
	assert_int_equal(tu_json_u64(j, "failed", NULL), 2);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "baseline", NULL)), base);
	assert_int_equal(cJSON_GetArraySize(tu_json_at(j, "limits", NULL)), 4);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "limits", "0", "limit", NULL)), "max-peak");
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "limits", "0", "device", NULL)), "cuda:0");
	assert_true(cJSON_IsFalse(tu_json_at(j, "limits", "0", "ok", NULL)));
	assert_int_equal(tu_json_u64(j, "limits", "0", "measured", NULL), 176);
	assert_int_equal(tu_json_u64(j, "limits", "0", "max", NULL), 175);
	assert_int_equal(tu_json_u64(j, "limits", "0", "time_ns", NULL), 312);
	assert_true(cJSON_IsTrue(tu_json_at(j, "limits", "1", "ok", NULL)));
	assert_true(cJSON_GetNumberValue(tu_json_at(j, "limits", "1", "measured", NULL)) == 132.0 / 300.0);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "limits", "1", "source", NULL)), "checkpoint");
	assert_int_equal(tu_json_u64(j, "limits", "1", "time_ns", NULL), 120);
	assert_int_equal(tu_json_u64(j, "limits", "2", "measured", NULL), 12);
	assert_true(cJSON_IsTrue(tu_json_at(j, "limits", "2", "ok", NULL)));
	assert_true(cJSON_IsFalse(tu_json_at(j, "limits", "3", "ok", NULL)));
	assert_true(cJSON_GetNumberValue(tu_json_at(j, "limits", "3", "measured", NULL)) == 8.0 / 168.0 * 100.0);
	assert_true(cJSON_GetNumberValue(tu_json_at(j, "limits", "3", "max", NULL)) == 2.5);
	assert_int_equal(tu_json_u64(j, "limits", "3", "baseline_peak_bytes", NULL), 168);
	assert_int_equal(tu_json_u64(j, "limits", "3", "peak_bytes", NULL), 176);
	cJSON_Delete(j);
	free(out);
	free(err);
}

/* Every input report reads: gzip, a cut trace, a PyTorch profiler trace;
 * the peaks are the oracles'. */
static void works_on_every_input_report_reads(void **state)
{
	cJSON *o = tu_json_file(tu_sample("mlp_adam.oracle.json"));
	uint64_t peak = tu_json_u64(o, "peak_total_allocated_bytes", NULL);
	cJSON_Delete(o);
	char limit[32], below[32];
	snprintf(limit, sizeof limit, "%llu", (unsigned long long)peak);
	snprintf(below, sizeof below, "%llu", (unsigned long long)peak - 1);
	const char *gz[16] = {"check", tu_sample("mlp_adam.jsonl.gz"), "--max-peak", limit, "--baseline",
			      tu_sample("mlp_adam.jsonl"), "--max-growth", "0", "-q"};
	tu_expectv(gz, 0,
	       "ok    max-peak cpu: 15.44 MiB (16,190,672 B) <= 15.44 MiB (16,190,672 B)\n"
	       "ok    max-growth cpu: +0 % (15.44 MiB -> 15.44 MiB) <= 0 %\n");
	o = tu_json_file(tu_sample("mlp_adam_cut.oracle.json"));
	assert_int_equal(tu_json_u64(o, "peak_total_allocated_bytes", NULL), peak);
	cJSON_Delete(o);
	const char *cut[16] = {"check", tu_sample("mlp_adam_cut.jsonl"), "--max-peak", below, "-q"};
	tu_expectv(cut, 3, "FAIL  max-peak cpu: 15.44 MiB (16,190,672 B) > 15.44 MiB (16,190,671 B)\n");

	o = tu_json_file(tu_sample("external/tracelens_h100_bert_small.oracle.json"));
	peak = tu_json_u64(o, "devices", "1:0", "max_total_allocated", NULL);
	cJSON_Delete(o);
	snprintf(limit, sizeof limit, "%llu", (unsigned long long)peak);
	const char *torch[16] = {"check", tu_sample("external/tracelens_h100_bert_small.json.gz"), "--max-peak", limit,
				 "--device", "cuda:0", "--max-fragmentation", "0.5", "-q"};
	tu_expectv(torch, 0,
	       "ok    max-peak cuda:0: 96.61 MiB (101,305,344 B) <= 96.61 MiB (101,305,344 B)\n"
	       "ok    max-fragmentation cuda:0: 0.248893 (largest at a checkpoint at 4.84 ms) <= 0.5\n");
}

/* The bytes check judges are the leaks pass's on every sample. */
static void leaked_bytes_are_the_leak_candidates(void **state)
{
	const char *names[] = {"mlp_adam.jsonl", "cnn_sgd.jsonl", "leak_loss_history.jsonl", "mlp_adam_cut.jsonl"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
		cg_timeline *tl;
		cg_analysis *a;
		assert_int_equal(cg_ingest(&tl, tu_sample(names[i]), &o, NULL), 0);
		assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
		assert_int_equal(cg_leaks_candidate_bytes(a->at_end->devices[0].by_category), a->leaks->devices[0].bytes);
		cg_analysis_free(a);
		cg_timeline_free(tl);
	}
}

static void help_documents_the_exit_statuses(void **state)
{
	char *out, *err;
	assert_int_equal(tu_run(&out, &err, NULL, "help", "check", NULL), 0);
	assert_non_null(strstr(out, "usage: cgmem check [options] FILE"));
	assert_non_null(strstr(out, "--max-growth PERCENT"));
	assert_non_null(strstr(out, "3 a limit was exceeded"));
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_limit_holding_exits_zero_with_one_line_each),
		cmocka_unit_test(every_limit_failing_exits_three),
		cmocka_unit_test(one_failing_limit_among_holding_ones_exits_three),
		cmocka_unit_test(sizes_take_units),
		cmocka_unit_test(bad_values_and_missing_limits_are_usage_errors),
		cmocka_unit_test(unreadable_inputs_exit_one),
		cmocka_unit_test(every_device_is_judged_unless_one_is_named),
		cmocka_unit_test(a_device_the_baseline_lacks_grew_without_bound),
		cmocka_unit_test(json_verdicts_hold_the_exact_figures),
		cmocka_unit_test(works_on_every_input_report_reads),
		cmocka_unit_test(leaked_bytes_are_the_leak_candidates),
		cmocka_unit_test(help_documents_the_exit_statuses),
	};
	int rc = cmocka_run_group_tests(tests, setup, teardown);
	tu_cleanup();
	return rc;
}
