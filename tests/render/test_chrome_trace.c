/* The Chrome trace: valid JSON, slices properly nested, counters true to the peak. */
#include "testutil.h"

#include <string.h>
#include <zlib.h>

#include "analysis.h"
#include "chrome_trace.h"

#define META "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"run_id\":\"r<1>\"}\n"
#define SPAN(id, parent, name, start) \
	"{\"kind\":\"span_start\",\"id\":\"" id "\"," parent "\"name\":\"" name "\",\"start_ns\":" #start \
	",\"span_kind\":\"function\"}\n"
#define END(id, dur) "{\"kind\":\"span_end\",\"id\":\"" id "\",\"duration_ns\":" #dur "}\n"
#define P(x) "\"parent_id\":\"" x "\","
#define MEM(t, id, b, action, cat) \
	"{\"kind\":\"memory\",\"timestamp_ns\":" #t ",\"tensor_id\":\"" id "\",\"span_id\":\"a\",\"device\":\"cuda:0\"," \
	"\"bytes\":" #b ",\"action\":\"" action "\",\"dtype\":\"f32\",\"category\":\"" cat "\"}\n"

/* Ingests text, analyses it and writes the Chrome trace into memory. */
static cJSON *chrome(const char *text, const cg_chrome_options *o, cg_timeline **tl_out, cg_analysis **a_out)
{
	cg_timeline *tl = tu_ingest_text(text);
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	cg_sink *s = cg_sink_memory();
	cg_chrome_trace_write(s, a, o);
	cJSON *j = cJSON_Parse(cg_sink_data(s, NULL));
	if (!j)
		fail_msg("not valid JSON:\n%s", cg_sink_data(s, NULL));
	cg_sink_close(s, NULL);
	*tl_out = tl;
	*a_out = a;
	return j;
}

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

static void timestamps_are_microseconds_with_three_decimals(void **state)
{
	char buf[32];
	cg_chrome_ts(buf, sizeof buf, 0);
	assert_string_equal(buf, "0.000");
	cg_chrome_ts(buf, sizeof buf, 1234567);
	assert_string_equal(buf, "1234.567");
	cg_chrome_ts(buf, sizeof buf, 5);
	assert_string_equal(buf, "0.005");
	/* no floating-point drift, even past 2^53 ns */
	cg_chrome_ts(buf, sizeof buf, 18446744073709551615ull);
	assert_string_equal(buf, "18446744073709551.615");
}

static void spans_nest_and_overlapping_siblings_get_their_own_lane(void **state)
{
	cg_timeline *tl;
	cg_analysis *a;
	/* b and c overlap (two threads); d is a child of c that sticks out of it. */
	cJSON *j = chrome(META SPAN("a", "", "root", 0) SPAN("b", P("a"), "left", 10) SPAN("c", P("a"), "right", 50)
			  SPAN("d", P("c"), "tail", 60) END("d", 500) END("b", 100) END("c", 100) END("a", 1000),
			  NULL, &tl, &a);
	cJSON *events = cJSON_GetObjectItemCaseSensitive(j, "traceEvents");
	assert_properly_nested(events);
	double tid_b = 0, tid_c = 0, dur_d = 0;
	cJSON *e;
	cJSON_ArrayForEach(e, events)
	{
		if (strcmp(str(e, "ph"), "X") != 0)
			continue;
		if (strcmp(str(e, "name"), "left") == 0)
			tid_b = num(e, "tid");
		if (strcmp(str(e, "name"), "right") == 0)
			tid_c = num(e, "tid");
		if (strcmp(str(e, "name"), "tail") == 0)
			dur_d = num(e, "dur");
	}
	assert_true(tid_b != tid_c);
	assert_true(dur_d == 0.090); /* clipped to its parent's end at 150 ns */
	cJSON_Delete(j);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

#define OP(span, name, t, dur, bytes) \
	"{\"kind\":\"op\",\"span_id\":\"" span "\",\"op_name\":\"" name "\",\"shape\":[2,3],\"dtype\":\"f32\"," \
	"\"device\":\"cuda:0\",\"duration_ns\":" #dur ",\"timestamp_ns\":" #t ",\"storage_bytes\":" #bytes "}\n"

/* The PyTorch recorder writes each op twice, as a span and as an op record
 * with the same name and times: one slice holds both. An op that does not
 * coincide with its span (or a second op of the same span) keeps its own. */
static void an_op_and_its_span_share_one_slice(void **state)
{
	cg_timeline *tl;
	cg_analysis *a;
	cJSON *j = chrome(META SPAN("a", "", "root", 0) SPAN("m", P("a"), "aten::mm", 100) OP("m", "aten::mm", 100, 50, 24)
			  OP("m", "aten::mm", 100, 50, 48) END("m", 50) SPAN("r", P("a"), "aten::relu", 200)
			  OP("r", "aten::relu", 200, 30, 8) END("r", 40) END("a", 1000),
			  NULL, &tl, &a);
	cJSON *events = cJSON_GetObjectItemCaseSensitive(j, "traceEvents");
	assert_properly_nested(events);
	int mm = 0, relu = 0, shared = 0;
	cJSON *e;
	cJSON_ArrayForEach(e, events)
	{
		if (strcmp(str(e, "ph"), "X") != 0)
			continue;
		cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
		bool has_span = str(args, "span_id") != NULL, has_shape = str(args, "shape") != NULL;
		if (strcmp(str(e, "name"), "aten::mm") == 0) {
			mm++;
			if (has_span && has_shape) {
				shared++;
				assert_string_equal(str(args, "span_id"), "m");
				assert_string_equal(str(args, "shape"), "[2, 3]");
				assert_true(num(args, "storage_bytes") == 24); /* the first op */
				assert_true(num(e, "dur") == 0.050);
			}
		}
		if (strcmp(str(e, "name"), "aten::relu") == 0) {
			relu++;
			assert_false(has_span && has_shape); /* 30 ns against the span's 40 */
		}
	}
	assert_int_equal(mm, 2);   /* the span with the first op, and the second op */
	assert_int_equal(relu, 2); /* the span and its op */
	assert_int_equal(shared, 1);
	cJSON_Delete(j);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

static void the_live_memory_counter_peaks_at_the_analysed_peak(void **state)
{
	cg_timeline *tl;
	cg_analysis *a;
	cJSON *j = chrome(META SPAN("a", "", "root", 0) MEM(10, "x", 100, "alloc", "parameter")
			  MEM(20, "y", 50, "alloc", "activation") MEM(30, "y", 50, "free", "unknown")
			  MEM(40, "z", 30, "alloc", "temporary") MEM(50, "old", 7, "free", "gradient"),
			  NULL, &tl, &a);
	cJSON *events = cJSON_GetObjectItemCaseSensitive(j, "traceEvents");
	double max = 0;
	int samples = 0;
	bool peak_instant = false;
	cJSON *e;
	cJSON_ArrayForEach(e, events)
	{
		const char *ph = str(e, "ph"), *name = str(e, "name");
		if (strcmp(ph, "C") == 0 && strcmp(name, "live memory") == 0) {
			double v = num(cJSON_GetObjectItemCaseSensitive(e, "args"), "bytes");
			if (v > max)
				max = v;
			samples++;
		}
		if (strcmp(ph, "C") == 0 && strcmp(name, "live memory by category") == 0 && num(e, "ts") == 0.020) {
			/* at 20 ns: 7 B of gradient live from the start, 100 parameter, 50 activation */
			cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
			assert_true(num(args, "parameter") == 100);
			assert_true(num(args, "activation") == 50);
			assert_true(num(args, "gradient") == 7);
		}
		if (strcmp(ph, "i") == 0 && strncmp(name, "peak", 4) == 0) {
			peak_instant = true;
			assert_true(num(e, "ts") == 0.020);
			assert_true(num(cJSON_GetObjectItemCaseSensitive(e, "args"), "bytes") == 157);
		}
	}
	assert_true(max == 157); /* 7 before the trace + 100 + 50 */
	assert_int_equal(samples, 1 + 5); /* the initial 7 B, then every record */
	assert_true(peak_instant);
	assert_int_equal(a->peak->devices[0].peak_bytes, 157);
	cJSON_Delete(j);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

static void downsampling_keeps_the_exact_peak(void **state)
{
	/* 20000 records with a single sharp spike in the middle, 40 counter
	 * events allowed: each moment is a total and a by-category event. */
	size_t cap = 20000 * 200, n = 0;
	char *text = malloc(cap);
	n += (size_t)sprintf(text, META SPAN("a", "", "root", 0));
	for (int i = 0; i < 10000; i++) {
		n += (size_t)sprintf(text + n, "{\"kind\":\"memory\",\"timestamp_ns\":%d,\"tensor_id\":\"t%d\",\"span_id\":\"a\","
				     "\"device\":\"cpu\",\"bytes\":%d,\"action\":\"alloc\",\"dtype\":\"f32\","
				     "\"category\":\"activation\"}\n",
				     2 * i, i, i == 5003 ? 1000000 : 10 + i % 7);
		n += (size_t)sprintf(text + n, "{\"kind\":\"memory\",\"timestamp_ns\":%d,\"tensor_id\":\"t%d\",\"span_id\":\"a\","
				     "\"device\":\"cpu\",\"bytes\":1,\"action\":\"free\",\"dtype\":\"f32\","
				     "\"category\":\"activation\"}\n",
				     2 * i + 1, i);
	}
	cg_chrome_options o = CG_CHROME_OPTIONS_INIT;
	o.max_counter_samples = 40;
	cg_timeline *tl;
	cg_analysis *a;
	cJSON *j = chrome(text, &o, &tl, &a);
	free(text);
	double max = 0, max_by_category = 0;
	int samples = 0, events = 0;
	cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(j, "traceEvents"))
	{
		if (strcmp(str(e, "ph"), "C") != 0)
			continue;
		events++;
		cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
		if (strcmp(str(e, "name"), "live memory") == 0) {
			double v = num(args, "bytes");
			if (v > max)
				max = v;
			samples++;
		} else if (strcmp(str(e, "name"), "live memory by category") == 0 &&
			   cJSON_GetObjectItemCaseSensitive(args, "activation")) { /* absent while 0 */
			double v = num(args, "activation");
			if (v > max_by_category)
				max_by_category = v;
		}
	}
	assert_true(max == 1000000);
	assert_true(max_by_category == 1000000);
	assert_true(events <= 45);
	assert_true(samples >= 5);
	cJSON_Delete(j);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

static void hostile_names_stay_inside_their_strings(void **state)
{
	cg_timeline *tl;
	cg_analysis *a;
	cJSON *j = chrome(META "{\"kind\":\"span_start\",\"id\":\"a\",\"name\":\"\\\"},{\\\"ph\\\":\\\"X\\\"\\n<script>../\\u0001\","
			       "\"start_ns\":0,\"span_kind\":\"function\"}\n",
			  NULL, &tl, &a);
	int x = 0;
	cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(j, "traceEvents"))
	{
		if (strcmp(str(e, "ph"), "X") == 0) {
			x++;
			assert_string_equal(str(e, "name"), "\"},{\"ph\":\"X\"\n<script>../\x01");
		}
	}
	assert_int_equal(x, 1);
	assert_string_equal(str(cJSON_GetObjectItemCaseSensitive(j, "otherData"), "run_id"), "r<1>");
	cJSON_Delete(j);
	cg_analysis_free(a);
	cg_timeline_free(tl);
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
		cmocka_unit_test(timestamps_are_microseconds_with_three_decimals),
		cmocka_unit_test(spans_nest_and_overlapping_siblings_get_their_own_lane),
		cmocka_unit_test(an_op_and_its_span_share_one_slice),
		cmocka_unit_test(the_live_memory_counter_peaks_at_the_analysed_peak),
		cmocka_unit_test(downsampling_keeps_the_exact_peak),
		cmocka_unit_test(hostile_names_stay_inside_their_strings),
		cmocka_unit_test(report_writes_gzip_or_plain_by_name),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
