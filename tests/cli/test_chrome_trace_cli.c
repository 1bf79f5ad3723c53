/* The report's Chrome trace of real samples, through the binary: gzip by
 * default, plain with --trace x.json, none with --no-trace; the counter's
 * maximum is the sample oracle's peak. (The writer's unit tests:
 * tests/render/test_chrome_trace.c.) */
#include "runutil.h"
#include "tracecheck.h"
#include "tracereplay.h"

#include <string.h>
#include <zlib.h>

#include "ingest.h"

/* The report on a real sample: gzip by default, plain with --trace x.json. */
static void report_writes_gzip_or_plain_by_name(void **state)
{
	const char *out = tu_path("rep");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", out, "-q", NULL), 0);
	char path[600];
	snprintf(path, sizeof path, "%s/trace.json.gz", out);
	gzFile g = gzopen(path, "rb");
	assert_non_null(g);
	size_t cap = 8 << 20, n = 0;
	char *text = malloc(cap);
	int k;
	while ((k = gzread(g, text + n, (unsigned)(cap - n - 1))) > 0)
		n += (size_t)k;
	gzclose(g);
	text[n] = '\0';
	assert_int_equal(text[0], '{');
	cJSON *j = cJSON_Parse(text);
	assert_non_null(j);
	cJSON *events = cJSON_GetObjectItemCaseSensitive(j, "traceEvents");
	double max = 0;
	int spans = 0;
	cJSON *e;
	cJSON_ArrayForEach(e, events)
	{
		if (strcmp(tu_event_str(e, "ph"), "C") == 0 && strcmp(tu_event_str(e, "name"), "live memory") == 0) {
			double v = tu_event_num(cJSON_GetObjectItemCaseSensitive(e, "args"), "bytes");
			max = v > max ? v : max;
		}
		if (strcmp(tu_event_str(e, "ph"), "X") == 0 && tu_event_str(cJSON_GetObjectItemCaseSensitive(e, "args"), "span_id"))
			spans++;
	}
	cJSON *o = tu_json_file(tu_sample("mlp_adam.oracle.json"));
	assert_true(max == (double)tu_json_u64(o, "peak_total_allocated_bytes", NULL));
	assert_int_equal(spans, (int)tu_json_u64(o, "jsonl_line_counts", "span_start", NULL));
	cJSON_Delete(o);
	cJSON_Delete(j);
	free(text);

	const char *out2 = tu_path("rep2");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", tu_sample("mlp_adam_cut.jsonl"), "-o", out2, "-q",
				"--trace", "x.json", NULL), 0);
	snprintf(path, sizeof path, "%s/x.json", out2);
	cJSON *plain = tu_json_file(path);
	tu_assert_properly_nested(cJSON_GetObjectItemCaseSensitive(plain, "traceEvents"));
	bool ends = false;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(plain, "traceEvents"))
		if (strcmp(tu_event_str(e, "name"), "trace ends here") == 0)
			ends = true;
	assert_true(ends);
	cJSON_Delete(plain);

	const char *out3 = tu_path("rep3");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", tu_sample("cnn_sgd.jsonl"), "-o", out3, "-q", "--no-trace", NULL), 0);
	snprintf(path, sizeof path, "%s/trace.json.gz", out3);
	assert_false(tu_exists(path));
	char *err;
	assert_int_equal(tu_run(NULL, &err, NULL, "report", tu_sample("cnn_sgd.jsonl"), "-o", out3, "--trace", "../x.json", NULL), 2);
	assert_non_null(strstr(err, "must be a file name ending in .json or .json.gz"));
	free(err);
}

/* Perfetto's view of report's trace.json.gz on the samples (the JSONL
 * ones, with zero_grad, and the raw memory timeline): every counter track
 * shows the timeline's live bytes at every sample, a freed category 0. */
static void perfetto_shows_the_timelines_bytes_on_every_sample(void **state)
{
	static const char *const samples[] = {"cnn_sgd.jsonl", "leak_loss_history.jsonl", "mlp_adam.jsonl",
					      "mlp_adam_cut.jsonl", "external/hta_memory_timeline.raw.gz"};
	size_t stale = 0;
	for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
		const char *out = tu_path("perfetto");
		assert_int_equal(tu_run(NULL, NULL, NULL, "report", tu_sample(samples[i]), "-o", out, "-q", "--formats",
					"svg", NULL), 0);
		char path[600];
		snprintf(path, sizeof path, "%s/trace.json.gz", out);
		cJSON *j = tu_json_gz_file(path);
		cg_timeline *tl;
		cg_error err;
		if (cg_ingest(&tl, tu_sample(samples[i]), NULL, &err) != 0)
			fail_msg("%s", err.msg);
		tu_replay_result r;
		tu_replay_counters(j, tl, &r);
		print_message("%s: %zu live-memory samples, %zu stale in Perfetto (%zu track values)%s%s\n", samples[i],
			      r.samples, r.stale, r.stale_tracks, r.stale ? "; first: " : "", r.first);
		assert_true(r.samples > 100);
		stale += r.stale; /* every sample's figures printed before failing */
		cJSON_Delete(j);
		cg_timeline_free(tl);
	}
	assert_int_equal(stale, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(report_writes_gzip_or_plain_by_name),
		cmocka_unit_test(perfetto_shows_the_timelines_bytes_on_every_sample),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
