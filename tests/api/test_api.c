/* libcgmem as another program uses it: this file includes cgmem.h and
 * nothing else of cgmem, and links libcgmem alone (no cairo, and cJSON
 * only through the library). It reads a sample, analyses it and checks the
 * figures against the sample's oracle (PyTorch's own records of the run),
 * whose numbers it reads from the oracle file given on the command line.
 *
 * usage: test_api SAMPLE.jsonl SAMPLE.jsonl.gz ORACLE.json */
#include <cgmem.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			failures++; \
		} \
	} while (0)

#define CHECK_U64(a, b) \
	do { \
		uint64_t a_ = (a), b_ = (b); \
		if (a_ != b_) { \
			fprintf(stderr, "%s:%d: %s is %" PRIu64 ", expected %" PRIu64 "\n", __FILE__, __LINE__, #a, a_, \
				b_); \
			failures++; \
		} \
	} while (0)

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(2);
	}
	size_t cap = 1 << 16, n = 0, k;
	char *buf = malloc(cap);
	while ((k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += k;
		if (n + 1 == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The integer after "key": in JSON text (an oracle's flat fields); the
 * first occurrence after from when from is not NULL. */
static uint64_t json_u64(const char *text, const char *from, const char *key)
{
	char pattern[128];
	snprintf(pattern, sizeof pattern, "\"%s\":", key);
	const char *p = strstr(from ? strstr(text, from) : text, pattern);
	if (!p) {
		fprintf(stderr, "the oracle has no %s\n", key);
		exit(2);
	}
	return strtoull(p + strlen(pattern), NULL, 10);
}

typedef struct progress_log {
	unsigned calls, done_calls;
	uint64_t last_read, file_bytes;
} progress_log;

static void on_progress(void *ctx, uint64_t bytes_read, uint64_t file_bytes, bool done)
{
	progress_log *p = ctx;
	p->calls++;
	p->done_calls += done;
	p->last_read = bytes_read;
	p->file_bytes = file_bytes;
}

static void check_figures(const cg_analysis *a, const char *oracle)
{
	cg_error err = CG_ERROR_INIT;
	CHECK(cg_analysis_device_count(a) == 1);
	cg_device_figures f;
	CHECK(cg_analysis_device(&f, a, 0, &err) == 0);
	CHECK(strcmp(f.name, "cpu") == 0);
	CHECK_U64(f.peak_bytes, json_u64(oracle, NULL, "peak_total_allocated_bytes"));
	CHECK_U64(f.peak_t_ns, json_u64(oracle, NULL, "peak_timestamp_ns"));
	CHECK_U64(f.live_at_end_bytes, json_u64(oracle, NULL, "live_bytes_at_end"));
	CHECK_U64(f.allocations, json_u64(oracle, NULL, "alloc_events"));
	CHECK_U64(f.frees, json_u64(oracle, NULL, "free_events"));
	CHECK_U64(f.live_at_end_by_category[CG_CAT_PARAMETER],
		  json_u64(oracle, "live_bytes_at_end_by_category", "parameter"));
	CHECK_U64(f.live_at_end_by_category[CG_CAT_OPTIMIZER_STATE],
		  json_u64(oracle, "live_bytes_at_end_by_category", "optimizer_state"));
	uint64_t at_peak = 0, at_end = 0;
	for (int c = 0; c < CG_CAT_COUNT; c++) {
		at_peak += f.peak_by_category[c];
		at_end += f.live_at_end_by_category[c];
	}
	CHECK_U64(at_peak, f.peak_bytes); /* the categories split the peak */
	CHECK_U64(at_end, f.live_at_end_bytes);
	CHECK(f.categories_known);
	CHECK(!f.out_of_memory);
	CHECK(strcmp(cg_category_name(CG_CAT_OPTIMIZER_STATE), "optimizer_state") == 0);

	/* Out of range is a usage error, and *out is cleared. */
	CHECK(cg_analysis_device(&f, a, 1, &err) == CG_EUSAGE);
	CHECK(err.code == CG_EUSAGE && strstr(err.msg, "no device 1"));
	CHECK(f.name == NULL);
}

static void check_summary_json(const cg_analysis *a, const char *oracle)
{
	cg_error err = CG_ERROR_INIT;
	char *json = NULL;
	size_t len = 0;
	CHECK(cg_analysis_summary_json(&json, &len, a, &err) == 0);
	CHECK(json && len == strlen(json));
	CHECK(json && strstr(json, "\"schema\": \"cgmem/summary/1\""));
	/* The peak of summary.json's device is the oracle's. */
	char expect[64];
	snprintf(expect, sizeof expect, "\"bytes\": %" PRIu64 ",", json_u64(oracle, NULL, "peak_total_allocated_bytes"));
	CHECK(json && strstr(strstr(json, "\"peak\": {"), expect) != NULL);
	cg_free(json);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: test_api SAMPLE.jsonl SAMPLE.jsonl.gz ORACLE.json\n");
		return 2;
	}
	size_t oracle_len, gz_len;
	char *oracle = read_file(argv[3], &oracle_len);
	char *gz = read_file(argv[2], &gz_len);
	CHECK(cg_version() && cg_version()[0] != '\0');

	/* A file, with progress reports. */
	cg_ingest_options io = CG_INGEST_OPTIONS_INIT;
	progress_log log = {0};
	io.progress = on_progress;
	io.progress_ctx = &log;
	cg_error err = CG_ERROR_INIT;
	cg_timeline *tl = NULL;
	cg_analysis *a = NULL;
	CHECK(cg_ingest(&tl, argv[1], &io, &err) == 0);
	CHECK(log.done_calls == 1 && log.calls >= 1 && log.last_read == log.file_bytes && log.file_bytes > 0);
	CHECK(tl && cg_analysis_run(&a, tl, NULL, &err) == 0);
	if (a) {
		check_figures(a, oracle);
		check_summary_json(a, oracle);
	}
	cg_analysis_free(a);
	cg_timeline_free(tl);

	/* The same run from memory, gzip-compressed, on one thread. */
	io = (cg_ingest_options)CG_INGEST_OPTIONS_INIT;
	io.threads = 1;
	cg_analysis_options ao = CG_ANALYSIS_OPTIONS_INIT;
	ao.threads = 1;
	tl = NULL;
	a = NULL;
	CHECK(cg_ingest_memory(&tl, gz, gz_len, "run.jsonl.gz", &io, &err) == 0);
	CHECK(tl && cg_analysis_run(&a, tl, &ao, &err) == 0);
	if (a)
		check_figures(a, oracle);
	cg_analysis_free(a);
	cg_timeline_free(tl);

	/* Errors name the file and leave *out NULL. */
	tl = (cg_timeline *)&err; /* any non-NULL value */
	CHECK(cg_ingest(&tl, "/nonexistent/run.jsonl", NULL, &err) == CG_EIO);
	CHECK(tl == NULL && strstr(err.msg, "/nonexistent/run.jsonl"));
	CHECK(cg_ingest_memory(&tl, "{\"kind\": 1}\n", 12, "bad.jsonl", NULL, &err) == CG_EINPUT);
	CHECK(tl == NULL && strstr(err.msg, "bad.jsonl"));
	cg_timeline_free(NULL);
	cg_analysis_free(NULL);
	cg_free(NULL);

	free(oracle);
	free(gz);
	if (failures)
		fprintf(stderr, "%d check%s failed\n", failures, failures == 1 ? "" : "s");
	else
		printf("libcgmem: every figure equals the oracle's\n");
	return failures ? 1 : 0;
}
