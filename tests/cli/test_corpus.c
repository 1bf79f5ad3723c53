/* End to end on real traces: cgmem report on every sample recorded from a
 * PyTorch run reproduces PyTorch's own figures (samples/NAME.oracle.json). */
#include "runutil.h"

#include <string.h>

typedef struct sample {
	const char *trace;
	const char *oracle;
} sample;

static const sample samples[] = {
	{"mlp_adam.jsonl", "mlp_adam.oracle.json"},
	{"mlp_adam.jsonl.gz", "mlp_adam.oracle.json"},
	{"cnn_sgd.jsonl", "cnn_sgd.oracle.json"},
	{"leak_loss_history.jsonl", "leak_loss_history.oracle.json"},
	{"mlp_adam_cut.jsonl", "mlp_adam_cut.oracle.json"},
};

static cJSON *report(const char *trace, const char *outname)
{
	const char *out = tu_path(outname);
	char *so, *se;
	int rc = tu_run(&so, &se, NULL, "report", tu_sample(trace), "-o", out, "--quiet", NULL);
	if (rc != 0)
		fail_msg("cgmem report %s exited %d: %s", trace, rc, se);
	free(so);
	free(se);
	char path[600];
	snprintf(path, sizeof path, "%s/summary.json", out);
	return tu_json_file(path);
}

static void check(const sample *s)
{
	char outname[64];
	snprintf(outname, sizeof outname, "out-%s", s->trace);
	cJSON *sum = report(s->trace, outname);
	cJSON *o = tu_json_file(tu_sample(s->oracle));
	cJSON *dev = tu_json_at(sum, "devices", "0", NULL);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(dev, "name", NULL)),
			    cJSON_GetStringValue(tu_json_at(o, "device", NULL)));
	assert_int_equal(tu_json_u64(dev, "peak", "bytes", NULL), tu_json_u64(o, "peak_total_allocated_bytes", NULL));
	assert_int_equal(tu_json_u64(dev, "peak", "time_ns", NULL), tu_json_u64(o, "peak_timestamp_ns", NULL));
	assert_int_equal(tu_json_u64(dev, "peak", "record_index", NULL), tu_json_u64(o, "peak_memory_record_index", NULL));
	if (tu_json_at(o, "peak_reached_times", NULL))
		assert_int_equal(tu_json_u64(dev, "peak", "reached_times", NULL),
				 tu_json_u64(o, "peak_reached_times", NULL));
	assert_int_equal(tu_json_u64(dev, "live_bytes_at_end", NULL), tu_json_u64(o, "live_bytes_at_end", NULL));
	assert_int_equal(tu_json_u64(dev, "live_bytes_at_end", NULL), tu_json_u64(o, "final_total_allocated_bytes", NULL));
	assert_int_equal(tu_json_u64(dev, "allocations", NULL), tu_json_u64(o, "alloc_events", NULL));
	assert_int_equal(tu_json_u64(dev, "frees", NULL), tu_json_u64(o, "free_events", NULL));
	assert_int_equal(tu_json_u64(dev, "memory_records", NULL), tu_json_u64(o, "memory_records", NULL));
	assert_int_equal(tu_json_u64(dev, "last_record_ns", NULL), tu_json_u64(o, "last_memory_timestamp_ns", NULL));
	if (tu_json_at(o, "total_bytes_allocated", NULL))
		assert_int_equal(tu_json_u64(dev, "bytes_allocated", NULL), tu_json_u64(o, "total_bytes_allocated", NULL));
	if (tu_json_at(o, "live_allocations_at_end", NULL))
		assert_int_equal(tu_json_u64(dev, "live_allocations_at_end", NULL),
				 tu_json_u64(o, "live_allocations_at_end", NULL));
	if (tu_json_at(o, "first_memory_timestamp_ns", NULL))
		assert_int_equal(tu_json_u64(dev, "first_record_ns", NULL), tu_json_u64(o, "first_memory_timestamp_ns", NULL));
	cJSON *anom = tu_json_at(o, "pairing_anomalies", NULL);
	if (anom) {
		assert_int_equal(tu_json_u64(sum, "anomalies", "free_before_trace", "count", NULL),
				 tu_json_u64(anom, "free_without_alloc", NULL));
		assert_int_equal(tu_json_u64(sum, "anomalies", "alloc_of_live_id", "count", NULL),
				 tu_json_u64(anom, "alloc_at_live_address", NULL));
		assert_int_equal(tu_json_u64(sum, "anomalies", "bytes_mismatch", "count", NULL),
				 tu_json_u64(anom, "size_mismatch_on_free", NULL));
	}

	/* Lines per kind: complete lines only for a cut trace. */
	cJSON *counts = tu_json_at(o, "complete_line_counts", NULL);
	if (!counts)
		counts = tu_json_at(o, "jsonl_line_counts", NULL);
	assert_non_null(counts);
	for (cJSON *c = counts->child; c; c = c->next)
		assert_int_equal(tu_json_u64(sum, "source", "records", c->string, NULL), (uint64_t)c->valuedouble);

	bool cut = tu_json_at(o, "partial_line_number", NULL) != NULL;
	assert_int_equal(cJSON_IsTrue(tu_json_at(sum, "source", "truncated", NULL)), cut);
	if (cut) {
		assert_int_equal(tu_json_u64(sum, "source", "truncated_at_line", NULL),
				 tu_json_u64(o, "partial_line_number", NULL));
		assert_int_equal(tu_json_u64(sum, "source", "lines", NULL), tu_json_u64(o, "partial_line_number", NULL));
	}
	assert_int_equal(tu_json_u64(sum, "source", "bad_lines", NULL), 0);
	cJSON_Delete(sum);
	cJSON_Delete(o);
}

static void every_sample_matches_its_oracle(void **state)
{
	for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
		check(&samples[i]);
}

static void per_category_bytes_live_at_the_end_match(void **state)
{
	/* live_bytes_at_end_by_category comes from PyTorch's records. */
	const char *names[] = {"mlp_adam", "cnn_sgd", "leak_loss_history"};
	for (size_t i = 0; i < 3; i++) {
		char trace[64], oracle[64], outname[64];
		snprintf(trace, sizeof trace, "%s.jsonl", names[i]);
		snprintf(oracle, sizeof oracle, "%s.oracle.json", names[i]);
		snprintf(outname, sizeof outname, "cat-%s", names[i]);
		cJSON *o = tu_json_file(tu_sample(oracle));
		cJSON *sum = report(trace, outname);
		cJSON *by = tu_json_at(o, "live_bytes_at_end_by_category", NULL);
		cJSON *mine = tu_json_at(sum, "devices", "0", "end", "by_category", NULL);
		uint64_t total = 0;
		for (cJSON *c = by->child; c; c = c->next)
			total += (uint64_t)c->valuedouble;
		assert_int_equal(total, tu_json_u64(o, "live_bytes_at_end", NULL));
		for (cJSON *c = mine->child; c; c = c->next) {
			cJSON *want = cJSON_GetObjectItemCaseSensitive(by, c->string);
			uint64_t expect = want ? (uint64_t)want->valuedouble : 0;
			if (tu_json_u64(c, "bytes", NULL) != expect)
				fail_msg("%s: %s live at the end: %llu, oracle %llu", names[i], c->string,
					 (unsigned long long)tu_json_u64(c, "bytes", NULL), (unsigned long long)expect);
		}
		cJSON_Delete(sum);
		cJSON_Delete(o);
	}
}

static void per_step_figures_match_the_oracles(void **state)
{
	const char *names[] = {"mlp_adam", "cnn_sgd", "leak_loss_history"};
	for (size_t i = 0; i < 3; i++) {
		char trace[64], oracle[64], outname[64];
		snprintf(trace, sizeof trace, "%s.jsonl", names[i]);
		snprintf(oracle, sizeof oracle, "%s.oracle.json", names[i]);
		snprintf(outname, sizeof outname, "steps-%s", names[i]);
		cJSON *o = tu_json_file(tu_sample(oracle));
		cJSON *sum = report(trace, outname);
		cJSON *want = tu_json_at(o, "steps", NULL);
		int n = cJSON_GetArraySize(want);
		assert_true(n >= 3);
		assert_int_equal(tu_json_u64(sum, "steps", "count", NULL), n);
		for (int k = 0; k < n; k++) {
			char idx[16];
			snprintf(idx, sizeof idx, "%d", k);
			cJSON *w = cJSON_GetArrayItem(want, k);
			cJSON *got = tu_json_at(sum, "devices", "0", "over_time", "steps", idx, NULL);
			assert_string_equal(cJSON_GetStringValue(tu_json_at(sum, "steps", "list", idx, "span_id", NULL)),
					    cJSON_GetStringValue(tu_json_at(w, "span_id", NULL)));
			assert_string_equal(cJSON_GetStringValue(tu_json_at(got, "name", NULL)),
					    cJSON_GetStringValue(tu_json_at(w, "scope", NULL)));
			assert_int_equal(tu_json_u64(got, "start_ns", NULL), tu_json_u64(w, "start_ns", NULL));
			assert_int_equal(tu_json_u64(got, "end_ns", NULL), tu_json_u64(w, "end_ns", NULL));
			assert_int_equal(tu_json_u64(got, "live_bytes_at_end", NULL),
					 tu_json_u64(w, "total_allocated_at_end", NULL));
			assert_int_equal(tu_json_u64(got, "peak_bytes", NULL),
					 tu_json_u64(w, "peak_total_allocated_in_scope", NULL));
		}
		cJSON_Delete(sum);
		cJSON_Delete(o);
	}
}

/* leak_loss_history keeps each step's validation graph alive: what each
 * step leaves behind is the growth of PyTorch's Total Allocated between
 * step ends (531,468 B a step). */
static void leaks_left_by_each_step_match_the_growth_between_steps(void **state)
{
	cJSON *o = tu_json_file(tu_sample("leak_loss_history.oracle.json"));
	cJSON *sum = report("leak_loss_history.jsonl", "leaks");
	cJSON *steps = tu_json_at(o, "steps", NULL);
	int n = cJSON_GetArraySize(steps);
	assert_int_equal(tu_json_u64(sum, "devices", "0", "leaks", "leaking_steps", NULL), n);
	for (int k = 1; k < n; k++) {
		char idx[16];
		snprintf(idx, sizeof idx, "%d", k);
		uint64_t growth = tu_json_u64(cJSON_GetArrayItem(steps, k), "total_allocated_at_end", NULL) -
				  tu_json_u64(cJSON_GetArrayItem(steps, k - 1), "total_allocated_at_end", NULL);
		assert_int_equal(growth, 531468);
		assert_int_equal(tu_json_u64(sum, "devices", "0", "leaks", "per_step", idx, "bytes", NULL), growth);
		assert_int_equal((uint64_t)cJSON_GetNumberValue(tu_json_at(sum, "devices", "0", "over_time", "steps", idx,
									   "growth_bytes", NULL)),
				 growth);
	}
	cJSON_Delete(sum);
	cJSON_Delete(o);
}

/* What was live at the peak adds up to the peak, however it is broken down. */
static void breakdowns_at_the_peak_add_up_to_the_peak(void **state)
{
	for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
		char outname[64];
		snprintf(outname, sizeof outname, "sum-%s", samples[i].trace);
		cJSON *sum = report(samples[i].trace, outname);
		cJSON *o = tu_json_file(tu_sample(samples[i].oracle));
		uint64_t peak = tu_json_u64(o, "peak_total_allocated_bytes", NULL);
		cJSON *at = tu_json_at(sum, "devices", "0", "at_peak", NULL);
		assert_int_equal(tu_json_u64(at, "live_bytes", NULL), peak);
		assert_int_equal(tu_json_u64(at, "live_allocations", NULL),
				 tu_json_u64(sum, "devices", "0", "peak", "live_allocations", NULL));
		uint64_t by_cat = 0, by_phase = 0, listed = 0;
		for (cJSON *c = tu_json_at(at, "by_category", NULL)->child; c; c = c->next)
			by_cat += tu_json_u64(c, "bytes", NULL);
		for (cJSON *c = tu_json_at(at, "by_phase", NULL)->child; c; c = c->next)
			by_phase += tu_json_u64(c, "bytes", NULL);
		cJSON *top = tu_json_at(at, "top", NULL);
		for (cJSON *c = top->child; c; c = c->next)
			listed += tu_json_u64(c, "bytes", NULL);
		assert_int_equal(by_cat, peak);
		assert_int_equal(by_phase, peak);
		assert_true(listed <= peak && listed > 0);
		assert_int_equal(tu_json_u64(sum, "devices", "0", "span_tree_at_peak", "0", "total_bytes", NULL), peak);
		cJSON_Delete(sum);
		cJSON_Delete(o);
	}
}

static void summary_json_on_stdout_is_the_report_file(void **state)
{
	char *so, *se;
	assert_int_equal(tu_run(&so, &se, NULL, "summary", tu_sample("cnn_sgd.jsonl"), "--json", "-q", NULL), 0);
	cJSON *printed = cJSON_Parse(so);
	assert_non_null(printed);
	cJSON *written = report("cnn_sgd.jsonl", "json-stdout");
	assert_true(cJSON_Compare(printed, written, true));
	cJSON_Delete(printed);
	cJSON_Delete(written);
	free(so);
	free(se);
}

static void stdin_gives_the_same_figures(void **state)
{
	const char *out = tu_path("out-stdin");
	int rc = tu_run(NULL, NULL, tu_sample("mlp_adam.jsonl.gz"), "report", "-", "-o", out, "-q", NULL);
	assert_int_equal(rc, 0);
	char path[600];
	snprintf(path, sizeof path, "%s/summary.json", out);
	cJSON *sum = tu_json_file(path);
	cJSON *o = tu_json_file(tu_sample("mlp_adam.oracle.json"));
	assert_int_equal(tu_json_u64(sum, "devices", "0", "peak", "bytes", NULL),
			 tu_json_u64(o, "peak_total_allocated_bytes", NULL));
	assert_true(cJSON_IsTrue(tu_json_at(sum, "source", "gzip", NULL)));
	assert_string_equal(cJSON_GetStringValue(tu_json_at(sum, "source", "path", NULL)), "-");
	cJSON_Delete(sum);
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_sample_matches_its_oracle),
		cmocka_unit_test(per_category_bytes_live_at_the_end_match),
		cmocka_unit_test(per_step_figures_match_the_oracles),
		cmocka_unit_test(leaks_left_by_each_step_match_the_growth_between_steps),
		cmocka_unit_test(breakdowns_at_the_peak_add_up_to_the_peak),
		cmocka_unit_test(summary_json_on_stdout_is_the_report_file),
		cmocka_unit_test(stdin_gives_the_same_figures),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
