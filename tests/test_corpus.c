/* End to end on real traces: cgmem report on every sample recorded from a
 * PyTorch run reproduces PyTorch's own figures (samples/NAME.oracle.json). */
#include "testutil.h"

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
		char trace[64], oracle[64];
		snprintf(trace, sizeof trace, "%s.jsonl", names[i]);
		snprintf(oracle, sizeof oracle, "%s.oracle.json", names[i]);
		cJSON *o = tu_json_file(tu_sample(oracle));
		cJSON *by = tu_json_at(o, "live_bytes_at_end_by_category", NULL);
		uint64_t sum = 0;
		for (cJSON *c = by->child; c; c = c->next)
			sum += (uint64_t)c->valuedouble;
		assert_int_equal(sum, tu_json_u64(o, "live_bytes_at_end", NULL));
		cJSON_Delete(o);
	}
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
		cmocka_unit_test(stdin_gives_the_same_figures),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
