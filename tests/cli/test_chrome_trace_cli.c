/* The report's Chrome trace of real samples, through the binary: gzip by
 * default, plain with --trace x.json, none with --no-trace; the counter's
 * maximum is the sample oracle's peak. (The writer's unit tests:
 * tests/render/test_chrome_trace.c.) */
#include "runutil.h"

#include <string.h>
#include <zlib.h>

static double num(cJSON *e, const char *k)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(e, k);
	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static const char *str(cJSON *e, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, k));
}

typedef struct xev {
	double start, end, tid;
	const char *name, *id, *parent;
} xev;

static int cmp_xev(const void *a, const void *b)
{
	const xev *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

/* Every pair of X events on one thread is nested or disjoint, and every span
 * lies within its parent span. */
static void assert_properly_nested(cJSON *events)
{
	size_t n = 0, cap = 1024;
	xev *x = malloc(cap * sizeof *x);
	cJSON *e;
	cJSON_ArrayForEach(e, events)
	{
		if (strcmp(str(e, "ph"), "X") != 0)
			continue;
		if (n == cap)
			x = realloc(x, (cap *= 2) * sizeof *x);
		cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
		double st = num(e, "ts");
		x[n++] = (xev){st, st + num(e, "dur"), num(e, "tid"), str(e, "name"), str(args, "span_id"),
			       str(args, "parent_id")};
	}
	qsort(x, n, sizeof *x, cmp_xev);
	/* per thread, a stack of open slices: each new one must fit in the top */
	size_t *stack = malloc((n + 1) * sizeof *stack), depth = 0;
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && x[i].tid != x[i - 1].tid)
			depth = 0;
		while (depth && x[stack[depth - 1]].end <= x[i].start && x[stack[depth - 1]].end < x[i].end)
			depth--;
		if (depth && x[i].end > x[stack[depth - 1]].end + 1e-9)
			fail_msg("%s [%f,%f] overlaps %s [%f,%f] on tid %g", x[i].name, x[i].start, x[i].end,
				 x[stack[depth - 1]].name, x[stack[depth - 1]].start, x[stack[depth - 1]].end, x[i].tid);
		stack[depth++] = i;
	}
	for (size_t i = 0; i < n; i++) {
		if (!x[i].parent)
			continue;
		size_t found = 0;
		for (size_t k = 0; k < n; k++) {
			if (x[k].id && strcmp(x[k].id, x[i].parent) == 0) {
				assert_true(x[k].start <= x[i].start && x[i].end <= x[k].end + 1e-9);
				found++;
			}
		}
		assert_int_equal(found, 1);
	}
	free(stack);
	free(x);
}

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
		if (strcmp(str(e, "ph"), "C") == 0 && strcmp(str(e, "name"), "live memory") == 0) {
			double v = num(cJSON_GetObjectItemCaseSensitive(e, "args"), "bytes");
			max = v > max ? v : max;
		}
		if (strcmp(str(e, "ph"), "X") == 0 && str(cJSON_GetObjectItemCaseSensitive(e, "args"), "span_id"))
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
	assert_properly_nested(cJSON_GetObjectItemCaseSensitive(plain, "traceEvents"));
	bool ends = false;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(plain, "traceEvents"))
		if (strcmp(str(e, "name"), "trace ends here") == 0)
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(report_writes_gzip_or_plain_by_name),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
