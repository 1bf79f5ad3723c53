/* summary.json (summary_json.h, docs/summary-format.md): the top level and
 * each device's headline figures, on a trace built by hand and worked out
 * on paper (the device's sections are tested in test_summary_device.c):
 *
 *   line  t    record                          live   span (phase)
 *   2, 3       meta run_id "hand", model "mlp"
 *   4-11       spans run [0, 1000], fwd [100, 400] (forward),
 *              bwd [400, 700] (backward), opt [700, 900] (optimizer)
 *   12    10   w   +1000 parameter  "empty"    1000   run
 *   13    110  a1  +400  activation "linear"   1400   fwd
 *   14    120  a2  +200  activation "relu"     1600   fwd
 *   15    410  g   +1000 gradient   "grad"     2600   bwd   <- the peak, record 3
 *   16    415  checkpoint used 3000, free 1000, reserved 4000
 *   17    420  a1  -400                        2200   bwd
 *   18    430  a2  -200                        2000   bwd
 *   19    440  ws  +300  temporary  "mm_ws"    2300   bwd
 *   20    450  ws  -300                        2000   bwd
 *   21    710  m   +500  optimizer_state       2500   opt
 *   22    720  g   -1000                       1500   opt
 *   23    800  x   +50   activation "leaky"    1550   opt   <- the end
 *   24-26      gradients: fc.weight present (norm 1.5), fc.bias missing,
 *              fc.weight non_finite (norm NaN)
 *
 * 11 memory records: 7 allocations of 1000 + 400 + 200 + 1000 + 300 + 500
 * + 50 = 3450 B, 4 frees; live at the end w, m, x = 1550 B. */
#include "summary_trace.h"
#include "jsonpath.h"

#include <math.h>
#include <string.h>

#include "analysis.h"
#include "summary_json.h"

#define A CG_ALLOC
#define F CG_FREE
#define DEV "cuda:0"

static cg_timeline *hand_trace(void)
{
	cg_timeline *tl = tu_tl_new();
	tu_meta(tl, "run_id", "hand");
	tu_meta(tl, "model", "mlp");
	summary_trace_add(tl);
	tu_gradient(tl, "model", "fc.weight", CG_GRAD_PRESENT, true, 1.5);
	tu_gradient(tl, "model", "fc.bias", CG_GRAD_MISSING, false, 0);
	tu_gradient(tl, "model", "fc.weight", CG_GRAD_NON_FINITE, true, NAN);
	tu_tl_finalize(tl);
	return tl;
}

/* The summary of tl as text (freed by the caller), through the analysis. */
static char *summary_text(const cg_timeline *tl, bool pretty)
{
	cg_analysis *a;
	cg_error err = CG_ERROR_INIT;
	cg_analysis_options o = CG_ANALYSIS_OPTIONS_INIT;
	o.threads = 1;
	if (cg_analysis_run(&a, tl, &o, &err) < 0)
		fail_msg("analysis failed: %s", err.msg);
	cg_sink *s = cg_sink_memory();
	cg_summary_json_write(s, a, pretty);
	char *text = strdup(cg_sink_data(s, NULL));
	cg_sink_close(s, NULL);
	cg_analysis_free(a);
	return text;
}

static cJSON *summary(const cg_timeline *tl)
{
	char *text = summary_text(tl, true);
	cJSON *j = cJSON_Parse(text);
	if (!j)
		fail_msg("summary.json does not parse:\n%s", text);
	free(text);
	return j;
}

static void the_top_level_says_what_it_is(void **state)
{
	cg_timeline *tl = hand_trace();
	cJSON *j = summary(tl);
	assert_string_equal(STR(j, "schema"), "cgmem/summary/1");
	assert_string_equal(STR(j, "cgmem_version"), CGMEM_VERSION);
	assert_string_equal(STR(j, "source", "path"), "test.jsonl");
	assert_string_equal(STR(j, "source", "format"), "hand-built");
	IS_FALSE(j, "source", "gzip");
	IS_FALSE(j, "source", "truncated");
	IS_NULL(j, "source", "truncated_at_line");
	IS_NULL(j, "source", "truncation_note");
	IS_TRUE(j, "source", "categories_known");
	IS_TRUE(j, "source", "pairing_known");
	assert_true(cJSON_IsArray(AT(j, "source", "diagnostics")));
	assert_int_equal(cJSON_GetArraySize(AT(j, "source", "diagnostics")), 0);
	/* the run: its schema and every meta key, values as given */
	assert_string_equal(STR(j, "run", "schema"), "candle-graph/trace/6");
	assert_int_equal(cJSON_GetArraySize(AT(j, "run", "meta")), 2);
	assert_string_equal(STR(j, "run", "meta", "run_id"), "hand");
	assert_string_equal(STR(j, "run", "meta", "model"), "mlp");
	assert_int_equal(U64(j, "options", "top"), 20); /* CG_ANALYSIS_OPTIONS_INIT */
	/* a single run span repeats nothing: no steps */
	IS_FALSE(j, "steps", "detected");
	IS_NULL(j, "steps", "label");
	assert_int_equal(U64(j, "steps", "count"), 0);
	assert_int_equal(cJSON_GetArraySize(AT(j, "steps", "list")), 0);
	assert_int_equal(cJSON_GetArraySize(AT(j, "devices")), 1);
	cJSON_Delete(j);
	cg_timeline_free(tl);
}

/* Every anomaly of the format is listed, with none here. */
static void every_anomaly_is_listed(void **state)
{
	static const char *const names[] = {"free_before_trace", "alloc_of_live_id", "double_free",
					    "bytes_mismatch",	 "unknown_span",     "duplicate_span",
					    "span_end_without_start", "span_never_ended", "span_cycle"};
	cg_timeline *tl = hand_trace();
	cJSON *j = summary(tl);
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		if (!AT(j, "anomalies", names[i]))
			fail_msg("no anomaly %s", names[i]);
		assert_int_equal(U64(j, "anomalies", names[i], "count"), 0);
		assert_int_equal(cJSON_GetArraySize(AT(j, "anomalies", names[i], "examples")), 0);
	}
	cJSON_Delete(j);
	cg_timeline_free(tl);
}

/* Three records of two parameters; fc.bias went bad first (line 25, a
 * missing gradient), then fc.weight (line 26, a NaN norm). */
static void gradients_count_states_and_problems(void **state)
{
	cg_timeline *tl = hand_trace();
	cJSON *j = summary(tl);
	cJSON *g = AT(j, "gradients");
	assert_int_equal(U64(g, "records"), 3);
	assert_int_equal(U64(g, "parameters"), 2);
	assert_int_equal(U64(g, "by_state", "present"), 1);
	assert_int_equal(U64(g, "by_state", "missing"), 1);
	assert_int_equal(U64(g, "by_state", "zero"), 0);
	assert_int_equal(U64(g, "by_state", "non_finite"), 1);
	assert_int_equal(U64(g, "non_finite_norms"), 1);
	assert_int_equal(cJSON_GetArraySize(AT(g, "problems")), 2);
	assert_string_equal(STR(g, "problems", "0", "root"), "model");
	assert_string_equal(STR(g, "problems", "0", "key"), "fc.bias");
	assert_int_equal(U64(g, "problems", "0", "missing"), 1);
	assert_int_equal(U64(g, "problems", "0", "non_finite"), 0);
	assert_int_equal(U64(g, "problems", "0", "records"), 1);
	assert_int_equal(U64(g, "problems", "0", "first_line"), 25);
	assert_string_equal(STR(g, "problems", "1", "key"), "fc.weight");
	assert_int_equal(U64(g, "problems", "1", "missing"), 0);
	assert_int_equal(U64(g, "problems", "1", "non_finite"), 1);
	assert_int_equal(U64(g, "problems", "1", "records"), 2);
	assert_int_equal(U64(g, "problems", "1", "first_line"), 26);
	cJSON_Delete(j);
	cg_timeline_free(tl);
}

static void a_device_has_its_counts_peak_and_end(void **state)
{
	cg_timeline *tl = hand_trace();
	cJSON *j = summary(tl);
	cJSON *d = AT(j, "devices", "0");
	assert_string_equal(STR(d, "name"), DEV);
	assert_int_equal(U64(d, "memory_records"), 11);
	assert_int_equal(U64(d, "allocations"), 7);
	assert_int_equal(U64(d, "frees"), 4);
	assert_int_equal(U64(d, "bytes_allocated"), 3450);
	assert_int_equal(U64(d, "before_trace_bytes"), 0);
	assert_int_equal(U64(d, "before_trace_allocations"), 0);
	assert_int_equal(U64(d, "baseline_bytes"), 0);
	/* 2600 B after g at t = 410, line 15, the device's record 3 (0-based);
	 * w, a1, a2 and g live; no other record reaches 2600 */
	assert_int_equal(U64(d, "peak", "bytes"), 2600);
	assert_int_equal(U64(d, "peak", "time_ns"), 410);
	assert_int_equal(U64(d, "peak", "line"), 15);
	assert_int_equal(U64(d, "peak", "record_index"), 3);
	assert_int_equal(U64(d, "peak", "reached_times"), 1);
	assert_int_equal(U64(d, "peak", "live_allocations"), 4);
	cJSON *p = AT(d, "peak", "allocation");
	assert_string_equal(STR(p, "tensor"), "g");
	assert_int_equal(U64(p, "bytes"), 1000);
	assert_string_equal(STR(p, "category"), "gradient");
	assert_string_equal(STR(p, "op"), "grad");
	assert_string_equal(STR(p, "span_path"), "run/bwd");
	assert_string_equal(STR(p, "phase"), "backward");
	assert_int_equal(cJSON_GetArraySize(AT(p, "shape")), 2);
	assert_int_equal(U64(p, "shape", "0"), 25);
	assert_int_equal(U64(p, "shape", "1"), 10);
	assert_string_equal(STR(p, "dtype"), "f32");
	assert_int_equal(U64(p, "allocated_ns"), 410);
	assert_int_equal(U64(p, "line"), 15);
	IS_FALSE(p, "before_trace");
	assert_int_equal(U64(p, "freed_ns"), 720);
	assert_string_equal(STR(p, "ended_by"), "free");
	/* w + m + x */
	assert_int_equal(U64(d, "live_bytes_at_end"), 1550);
	assert_int_equal(U64(d, "live_allocations_at_end"), 3);
	assert_int_equal(U64(d, "first_record_ns"), 10);
	assert_int_equal(U64(d, "last_record_ns"), 800);
	/* and every section of the device is there */
	static const char *const sections[] = {"at_peak",     "span_tree_at_peak", "over_time", "checkpoints",
					       "allocator_replay", "leaks",	   "lifetimes", "end"};
	for (size_t i = 0; i < sizeof sections / sizeof *sections; i++)
		if (!AT(d, sections[i]))
			fail_msg("no section %s", sections[i]);
	cJSON_Delete(j);
	cg_timeline_free(tl);
}

/* A free of "old" (64 B) that was allocated before the trace, then y
 * (10 B): live is 64 before the first record, 0 after it, 10 at the end.
 * The peak is before any record, so it has no line, index or allocation.
 * A second device has no records at all. */
static void a_peak_before_any_record_and_a_device_without_records(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 5, "old", NULL, DEV, 64, F, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 6, "y", NULL, DEV, 10, A, CG_CAT_ACTIVATION, NULL);
	tu_device(tl, "cuda:1");
	tu_tl_finalize(tl);
	cJSON *j = summary(tl);
	assert_int_equal(U64(j, "anomalies", "free_before_trace", "count"), 1);
	assert_int_equal(cJSON_GetArraySize(AT(j, "anomalies", "free_before_trace", "examples")), 1);
	/* no meta record */
	IS_NULL(j, "run", "schema");
	assert_int_equal(cJSON_GetArraySize(AT(j, "run", "meta")), 0);
	cJSON *d = AT(j, "devices", "0");
	assert_int_equal(U64(d, "before_trace_bytes"), 64);
	assert_int_equal(U64(d, "before_trace_allocations"), 1);
	assert_int_equal(U64(d, "allocations"), 1);
	assert_int_equal(U64(d, "frees"), 1);
	assert_int_equal(U64(d, "bytes_allocated"), 10);
	assert_int_equal(U64(d, "peak", "bytes"), 64);
	IS_NULL(d, "peak", "line");
	IS_NULL(d, "peak", "record_index");
	IS_NULL(d, "peak", "allocation");
	assert_int_equal(U64(d, "live_bytes_at_end"), 10);
	assert_int_equal(U64(d, "first_record_ns"), 5);
	assert_int_equal(U64(d, "last_record_ns"), 6);

	cJSON *idle = AT(j, "devices", "1");
	assert_string_equal(STR(idle, "name"), "cuda:1");
	assert_int_equal(U64(idle, "memory_records"), 0);
	assert_int_equal(U64(idle, "peak", "bytes"), 0);
	IS_NULL(idle, "peak", "allocation");
	IS_NULL(idle, "first_record_ns");
	IS_NULL(idle, "last_record_ns");
	assert_string_equal(STR(idle, "end", "moment"), "no_records");
	IS_NULL(idle, "end", "last_record_ns");
	cJSON_Delete(j);
	cg_timeline_free(tl);
}

/* Names from a trace are hostile: quotes, markup, control bytes and bytes
 * that are not UTF-8 (U+FFFD in the output) must leave valid JSON holding
 * the same text. */
static void hostile_names_are_escaped(void **state)
{
	static const char device[] = "cuda:\"0\"</script>";
	static const char span[] = "</script><!--\x01\n";
	static const char tensor[] = "t\\\",\"x\":\"";
	static const char op[] = "op\ttab\xff";
	cg_timeline *tl = tu_tl_new();
	tu_meta(tl, "k\"ey\\", "<script>alert(1)</script>");
	tu_span(tl, "s", NULL, span, 0, 100, CG_PHASE_NONE);
	tu_mem(tl, 10, tensor, "s", device, 64, A, CG_CAT_ACTIVATION, op);
	tu_tl_finalize(tl);
	cJSON *j = summary(tl);
	assert_string_equal(STR(j, "run", "meta", "k\"ey\\"), "<script>alert(1)</script>");
	cJSON *d = AT(j, "devices", "0");
	assert_string_equal(STR(d, "name"), device);
	cJSON *p = AT(d, "peak", "allocation");
	assert_string_equal(STR(p, "tensor"), tensor);
	assert_null(AT(p, "x")); /* the tensor id added no key */
	assert_string_equal(STR(p, "op"), "op\ttab\xef\xbf\xbd");
	assert_string_equal(STR(p, "span_path"), span);
	cJSON_Delete(j);
	cg_timeline_free(tl);
}

/* The compact form is the same document. */
static void pretty_and_compact_forms_hold_the_same_document(void **state)
{
	cg_timeline *tl = hand_trace();
	char *pretty = summary_text(tl, true), *compact = summary_text(tl, false);
	assert_null(strchr(compact, '\n'));
	assert_true(strlen(compact) < strlen(pretty));
	cJSON *a = cJSON_Parse(pretty), *b = cJSON_Parse(compact);
	assert_non_null(a);
	assert_non_null(b);
	assert_true(cJSON_Compare(a, b, true));
	cJSON_Delete(a);
	cJSON_Delete(b);
	free(pretty);
	free(compact);
	cg_timeline_free(tl);
}

static void save_writes_the_file_or_says_why_not(void **state)
{
	cg_timeline *tl = hand_trace();
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	cg_error err = CG_ERROR_INIT;
	const char *path = tu_path("summary.json");
	assert_int_equal(cg_summary_json_save(path, a, &err), 0);
	cJSON *j = tu_json_file(path);
	assert_int_equal(tu_json_u64(j, "devices", "0", "peak", "bytes", NULL), 2600);
	cJSON_Delete(j);
	assert_int_equal(cg_summary_json_save("/nonexistent-dir/summary.json", a, &err), CG_EIO);
	assert_non_null(strstr(err.msg, "/nonexistent-dir/summary.json"));
	assert_int_equal(cg_summary_json_save("/dev/full", a, &err), CG_EIO);
	assert_non_null(strstr(err.msg, "/dev/full"));
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_top_level_says_what_it_is),
		cmocka_unit_test(every_anomaly_is_listed),
		cmocka_unit_test(gradients_count_states_and_problems),
		cmocka_unit_test(a_device_has_its_counts_peak_and_end),
		cmocka_unit_test(a_peak_before_any_record_and_a_device_without_records),
		cmocka_unit_test(hostile_names_are_escaped),
		cmocka_unit_test(pretty_and_compact_forms_hold_the_same_document),
		cmocka_unit_test(save_writes_the_file_or_says_why_not),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
