/* The Chrome trace: valid JSON, slices properly nested, counters true to the
 * peak. (The report's trace.json.gz of a real sample, through the command
 * line: tests/cli/test_chrome_trace_cli.c.) */
#include "tlbuild.h"
#include "tracecheck.h"
#include "tracereplay.h"

#include <math.h>
#include <string.h>

#include "analysis.h"
#include "chrome_trace.h"
#include "utf8.h"

/* A timeline with the run's metadata, ready for spans and records. */
static cg_timeline *run(void)
{
	cg_timeline *tl = tu_tl_new();
	tu_meta(tl, "run_id", "r<1>");
	return tl;
}

/* A root span from start, its end given later (tu_span_end) or never. */
static void span(cg_timeline *tl, const char *id, const char *parent, const char *name, uint64_t start)
{
	tu_span(tl, id, parent, name, start, UINT64_MAX, CG_PHASE_NONE);
}

/* A memory record on cuda:0 in span "a". */
static void mem(cg_timeline *tl, uint64_t t, const char *tensor, uint64_t bytes, cg_action action, cg_category cat)
{
	tu_mem(tl, t, tensor, "a", "cuda:0", bytes, action, cat, NULL);
}

/* An op record on cuda:0: shape [2, 3], f32, its storage bytes given. */
static void op(cg_timeline *tl, const char *span_id, const char *name, uint64_t t, uint64_t dur, uint64_t bytes)
{
	static uint32_t line = 100000;
	cg_op o = {0};
	o.t_ns = t;
	o.duration_ns = dur;
	o.storage_bytes = bytes;
	o.line = line++;
	o.device = tu_device(tl, "cuda:0");
	assert_int_equal(cg_timeline_intern(tl, span_id, strlen(span_id), &o.span), 0);
	assert_int_equal(cg_timeline_intern(tl, name, strlen(name), &o.name), 0);
	assert_int_equal(cg_timeline_intern_shape(tl, (const uint64_t[]){2, 3}, 2, &o.shape), 0);
	assert_int_equal(cg_timeline_dtype(tl, "f32", 3, &o.dtype), 0);
	assert_int_equal(cg_timeline_add_op(tl, &o, NULL, 0), 0);
}

/* Finalizes tl, analyses it and writes the Chrome trace into memory. */
static cJSON *chrome(cg_timeline *tl, const cg_chrome_options *o, cg_analysis **a_out)
{
	tu_tl_finalize(tl);
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	cg_sink *s = cg_sink_memory();
	cg_chrome_trace_write(s, a, o);
	cJSON *j = cJSON_Parse(cg_sink_data(s, NULL));
	if (!j)
		fail_msg("not valid JSON:\n%s", cg_sink_data(s, NULL));
	cg_sink_close(s, NULL);
	*a_out = a;
	return j;
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
	cg_analysis *a;
	/* b and c overlap (two threads); d is a child of c that sticks out of it. */
	cg_timeline *tl = run();
	span(tl, "a", NULL, "root", 0);
	span(tl, "b", "a", "left", 10);
	span(tl, "c", "a", "right", 50);
	span(tl, "d", "c", "tail", 60);
	tu_span_end(tl, "d", 500);
	tu_span_end(tl, "b", 100);
	tu_span_end(tl, "c", 100);
	tu_span_end(tl, "a", 1000);
	cJSON *j = chrome(tl, NULL, &a);
	cJSON *events = cJSON_GetObjectItemCaseSensitive(j, "traceEvents");
	tu_assert_properly_nested(events);
	double tid_b = 0, tid_c = 0, dur_d = 0;
	cJSON *e;
	cJSON_ArrayForEach(e, events)
	{
		if (strcmp(tu_event_str(e, "ph"), "X") != 0)
			continue;
		if (strcmp(tu_event_str(e, "name"), "left") == 0)
			tid_b = tu_event_num(e, "tid");
		if (strcmp(tu_event_str(e, "name"), "right") == 0)
			tid_c = tu_event_num(e, "tid");
		if (strcmp(tu_event_str(e, "name"), "tail") == 0)
			dur_d = tu_event_num(e, "dur");
	}
	assert_true(tid_b != tid_c);
	assert_true(dur_d == 0.090); /* clipped to its parent's end at 150 ns */
	cJSON_Delete(j);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

/* Random spans that stick out of their parents on either side: each slice
 * is its own interval clipped into its parent's as written (the rule
 * restated: start raised to the parent's start, end lowered to the parent's
 * end, the start no later than the parent's end, the end no earlier than
 * the start), and every lane nests properly. */
static void every_slice_is_clipped_into_its_parent(void **state)
{
	uint32_t rng = 12345;
	for (int trial = 0; trial < 40; trial++) {
		enum { MAX_SPANS = 60 };
		uint64_t want_start[MAX_SPANS], want_end[MAX_SPANS];
		int parent[MAX_SPANS];
		rng = rng * 1103515245u + 12345u;
		int n = 2 + (int)(rng >> 16) % (MAX_SPANS - 1);
		cg_timeline *tl = run();
		for (int i = 0; i < n; i++) {
			char id[16], pid[16];
			snprintf(id, sizeof id, "s%d", i);
			rng = rng * 1103515245u + 12345u;
			parent[i] = i && (rng >> 16) % 4 ? (int)(rng >> 8) % i : -1;
			snprintf(pid, sizeof pid, "s%d", parent[i]);
			rng = rng * 1103515245u + 12345u;
			uint64_t start = (rng >> 16) % 1000;
			rng = rng * 1103515245u + 12345u;
			uint64_t dur = (rng >> 16) % 600;
			span(tl, id, parent[i] < 0 ? NULL : pid, id, start);
			tu_span_end(tl, id, dur);
			uint64_t st = start, en = start + dur;
			if (parent[i] >= 0) { /* parents come first */
				uint64_t ps = want_start[parent[i]], pe = want_end[parent[i]];
				st = st < ps ? ps : st;
				en = en > pe ? pe : en;
				st = st > pe ? pe : st;
				en = en < st ? st : en;
			}
			want_start[i] = st;
			want_end[i] = en;
		}
		cg_analysis *a;
		cJSON *j = chrome(tl, NULL, &a);
		cJSON *events = cJSON_GetObjectItemCaseSensitive(j, "traceEvents");
		tu_assert_properly_nested(events);
		int seen = 0;
		cJSON *e;
		cJSON_ArrayForEach(e, events)
		{
			if (strcmp(tu_event_str(e, "ph"), "X") != 0)
				continue;
			int i = atoi(tu_event_str(e, "name") + 1);
			assert_true(i >= 0 && i < n);
			long long ts = llround(tu_event_num(e, "ts") * 1000), dur = llround(tu_event_num(e, "dur") * 1000);
			assert_int_equal(ts, want_start[i]);
			assert_int_equal(ts + dur, want_end[i]);
			seen++;
		}
		assert_int_equal(seen, n);
		cJSON_Delete(j);
		cg_analysis_free(a);
		cg_timeline_free(tl);
	}
}

/* The PyTorch recorder writes each op twice, as a span and as an op record
 * with the same name and times: one slice holds both. An op that does not
 * coincide with its span (or a second op of the same span) keeps its own. */
static void an_op_and_its_span_share_one_slice(void **state)
{
	cg_analysis *a;
	cg_timeline *tl = run();
	span(tl, "a", NULL, "root", 0);
	span(tl, "m", "a", "aten::mm", 100);
	op(tl, "m", "aten::mm", 100, 50, 24);
	op(tl, "m", "aten::mm", 100, 50, 48);
	tu_span_end(tl, "m", 50);
	span(tl, "r", "a", "aten::relu", 200);
	op(tl, "r", "aten::relu", 200, 30, 8);
	tu_span_end(tl, "r", 40);
	tu_span_end(tl, "a", 1000);
	cJSON *j = chrome(tl, NULL, &a);
	cJSON *events = cJSON_GetObjectItemCaseSensitive(j, "traceEvents");
	tu_assert_properly_nested(events);
	int mm = 0, relu = 0, shared = 0;
	cJSON *e;
	cJSON_ArrayForEach(e, events)
	{
		if (strcmp(tu_event_str(e, "ph"), "X") != 0)
			continue;
		cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
		bool has_span = tu_event_str(args, "span_id") != NULL, has_shape = tu_event_str(args, "shape") != NULL;
		if (strcmp(tu_event_str(e, "name"), "aten::mm") == 0) {
			mm++;
			if (has_span && has_shape) {
				shared++;
				assert_string_equal(tu_event_str(args, "span_id"), "m");
				assert_string_equal(tu_event_str(args, "shape"), "[2, 3]");
				assert_true(tu_event_num(args, "storage_bytes") == 24); /* the first op */
				assert_true(tu_event_num(e, "dur") == 0.050);
			}
		}
		if (strcmp(tu_event_str(e, "name"), "aten::relu") == 0) {
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
	cg_analysis *a;
	cg_timeline *tl = run();
	span(tl, "a", NULL, "root", 0);
	mem(tl, 10, "x", 100, CG_ALLOC, CG_CAT_PARAMETER);
	mem(tl, 20, "y", 50, CG_ALLOC, CG_CAT_ACTIVATION);
	mem(tl, 30, "y", 50, CG_FREE, CG_CAT_UNKNOWN);
	mem(tl, 40, "z", 30, CG_ALLOC, CG_CAT_TEMPORARY);
	mem(tl, 50, "old", 7, CG_FREE, CG_CAT_GRADIENT);
	cJSON *j = chrome(tl, NULL, &a);
	cJSON *events = cJSON_GetObjectItemCaseSensitive(j, "traceEvents");
	double max = 0;
	int samples = 0;
	bool peak_instant = false;
	cJSON *e;
	cJSON_ArrayForEach(e, events)
	{
		const char *ph = tu_event_str(e, "ph"), *name = tu_event_str(e, "name");
		if (strcmp(ph, "C") == 0 && strcmp(name, "live memory") == 0) {
			double v = tu_event_num(cJSON_GetObjectItemCaseSensitive(e, "args"), "bytes");
			if (v > max)
				max = v;
			samples++;
		}
		if (strcmp(ph, "C") == 0 && strcmp(name, "live memory by category") == 0 && tu_event_num(e, "ts") == 0.020) {
			/* at 20 ns: 7 B of gradient live from the start, 100 parameter, 50 activation */
			cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
			assert_true(tu_event_num(args, "parameter") == 100);
			assert_true(tu_event_num(args, "activation") == 50);
			assert_true(tu_event_num(args, "gradient") == 7);
		}
		if (strcmp(ph, "i") == 0 && strncmp(name, "peak", 4) == 0) {
			peak_instant = true;
			assert_true(tu_event_num(e, "ts") == 0.020);
			assert_true(tu_event_num(cJSON_GetObjectItemCaseSensitive(e, "args"), "bytes") == 157);
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
	 * events allowed: each moment is a total and a by-category event. The
	 * frees say 1 B: each releases its allocation's bytes. */
	cg_timeline *tl = run();
	span(tl, "a", NULL, "root", 0);
	for (int i = 0; i < 10000; i++) {
		char id[16];
		snprintf(id, sizeof id, "t%d", i);
		tu_mem(tl, 2 * (uint64_t)i, id, "a", "cpu", i == 5003 ? 1000000 : 10 + (uint64_t)(i % 7), CG_ALLOC,
		       CG_CAT_ACTIVATION, NULL);
		tu_mem(tl, 2 * (uint64_t)i + 1, id, "a", "cpu", 1, CG_FREE, CG_CAT_ACTIVATION, NULL);
	}
	cg_chrome_options o = CG_CHROME_OPTIONS_INIT;
	o.max_counter_samples = 40;
	cg_analysis *a;
	cJSON *j = chrome(tl, &o, &a);
	double max = 0, max_by_category = 0;
	int samples = 0, events = 0;
	cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(j, "traceEvents"))
	{
		if (strcmp(tu_event_str(e, "ph"), "C") != 0)
			continue;
		events++;
		cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
		if (strcmp(tu_event_str(e, "name"), "live memory") == 0) {
			double v = tu_event_num(args, "bytes");
			if (v > max)
				max = v;
			samples++;
		} else if (strcmp(tu_event_str(e, "name"), "live memory by category") == 0 &&
			   cJSON_GetObjectItemCaseSensitive(args, "activation")) { /* absent until non-zero */
			double v = tu_event_num(args, "activation");
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

/* Training that frees its gradients (zero_grad) on cuda:0, worked out by
 * hand: parameters 100 B, activations 50 B, gradients 40 + 60 B freed by
 * zero_grad, then an 8 B temporary. */
static cg_timeline *zero_grad_run(void)
{
	cg_timeline *tl = run();
	span(tl, "a", NULL, "root", 0);
	mem(tl, 10, "w", 100, CG_ALLOC, CG_CAT_PARAMETER);
	mem(tl, 20, "act", 50, CG_ALLOC, CG_CAT_ACTIVATION);
	mem(tl, 30, "g1", 40, CG_ALLOC, CG_CAT_GRADIENT);
	mem(tl, 40, "g2", 60, CG_ALLOC, CG_CAT_GRADIENT);
	mem(tl, 50, "act", 50, CG_FREE, CG_CAT_ACTIVATION);
	mem(tl, 60, "g1", 40, CG_FREE, CG_CAT_GRADIENT); /* zero_grad */
	mem(tl, 70, "g2", 60, CG_FREE, CG_CAT_GRADIENT);
	mem(tl, 80, "tmp", 8, CG_ALLOC, CG_CAT_TEMPORARY);
	mem(tl, 90, "tmp", 8, CG_FREE, CG_CAT_TEMPORARY);
	tu_span_end(tl, "a", 1000);
	return tl;
}

/* Writes tl's trace as trace.json.gz and reads it back with zlib. */
static cJSON *chrome_gz(cg_timeline *tl, const cg_chrome_options *o, cg_analysis **a_out)
{
	tu_tl_finalize(tl);
	assert_int_equal(cg_analysis_run(a_out, tl, NULL, NULL), 0);
	cg_error err;
	const char *path = tu_path("trace.json.gz");
	if (cg_chrome_trace_save(path, *a_out, o, &err) < 0)
		fail_msg("%s", err.msg);
	return tu_json_gz_file(path);
}

/* Perfetto keeps a track per key and holds its last value: a category that
 * went back to 0 must say 0, or the gradient track shows freed bytes after
 * zero_grad. Categories never used stay out of the samples. */
static void a_category_freed_to_zero_says_zero_in_every_later_sample(void **state)
{
	static const char *want[] = {
		"{\"parameter\":100,\"unknown\":0}",
		"{\"parameter\":100,\"activation\":50,\"unknown\":0}",
		"{\"parameter\":100,\"activation\":50,\"gradient\":40,\"unknown\":0}",
		"{\"parameter\":100,\"activation\":50,\"gradient\":100,\"unknown\":0}",
		"{\"parameter\":100,\"activation\":0,\"gradient\":100,\"unknown\":0}",
		"{\"parameter\":100,\"activation\":0,\"gradient\":60,\"unknown\":0}",
		"{\"parameter\":100,\"activation\":0,\"gradient\":0,\"unknown\":0}",
		"{\"parameter\":100,\"temporary\":8,\"activation\":0,\"gradient\":0,\"unknown\":0}",
		"{\"parameter\":100,\"temporary\":0,\"activation\":0,\"gradient\":0,\"unknown\":0}",
	};
	cg_analysis *a;
	cg_timeline *tl = zero_grad_run();
	cJSON *j = chrome_gz(tl, NULL, &a);
	tu_replay_result r;
	tu_replay_counters(j, tl, &r);
	print_message("zero_grad run: %zu live-memory samples, %zu stale in Perfetto (%zu track values)%s%s\n",
		      r.samples, r.stale, r.stale_tracks, r.stale ? "; first: " : "", r.first);
	assert_int_equal(r.samples, 18);
	assert_int_equal(r.stale, 0);
	size_t n = 0;
	cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(j, "traceEvents"))
	{
		if (strcmp(tu_event_str(e, "ph"), "C") != 0 || strcmp(tu_event_str(e, "name"), "live memory by category") != 0)
			continue;
		assert_true(n < sizeof want / sizeof *want);
		assert_int_equal(llround(tu_event_num(e, "ts") * 1000), 10 * (n + 1)); /* ns */
		char *args = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(e, "args"));
		assert_string_equal(args, want[n]);
		cJSON_free(args);
		n++;
	}
	assert_int_equal(n, 9);
	cJSON_Delete(j);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

/* Downsampled, a bucket writes only some moments: a category that reached
 * 0 between two written samples still says 0 in the next. */
static void downsampled_samples_show_perfetto_no_stale_category(void **state)
{
	cg_chrome_options o = CG_CHROME_OPTIONS_INIT;
	o.max_counter_samples = 6; /* 2 buckets on cuda:0 */
	cg_analysis *a;
	cg_timeline *tl = zero_grad_run();
	cJSON *j = chrome_gz(tl, &o, &a);
	tu_replay_result r;
	tu_replay_counters(j, tl, &r);
	print_message("zero_grad run, downsampled: %zu live-memory samples, %zu stale in Perfetto (%zu track values)%s%s\n",
		      r.samples, r.stale, r.stale_tracks, r.stale ? "; first: " : "", r.first);
	assert_true(r.samples > 0 && r.samples < 18);
	assert_int_equal(r.stale, 0);
	cJSON_Delete(j);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

/* Perfetto imports a top-level "metadata" object and skips "otherData";
 * chrome://tracing reads the latter. Both hold the same members. */
static void run_metadata_is_written_where_perfetto_and_chrome_read_it(void **state)
{
	cg_analysis *a;
	cg_timeline *tl = run();
	cg_str key, value;
	assert_int_equal(cg_timeline_intern(tl, "steps", 5, &key), 0);
	assert_int_equal(cg_timeline_intern(tl, "4", 1, &value), 0);
	assert_int_equal(cg_timeline_add_meta(tl, key, value, false), 0);
	span(tl, "a", NULL, "root", 0);
	cJSON *j = chrome(tl, NULL, &a);
	cJSON *meta = cJSON_GetObjectItemCaseSensitive(j, "metadata");
	cJSON *other = cJSON_GetObjectItemCaseSensitive(j, "otherData");
	assert_true(cJSON_IsObject(meta));
	assert_string_equal(tu_event_str(meta, "run_id"), "r<1>");
	assert_true(tu_event_num(meta, "steps") == 4);
	assert_string_equal(tu_event_str(meta, "generator"), "cgmem " CGMEM_VERSION);
	assert_true(cJSON_Compare(meta, other, true));
	cJSON_Delete(j);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

static void hostile_names_stay_inside_their_strings(void **state)
{
	cg_analysis *a;
	cg_timeline *tl = run();
	span(tl, "a", NULL, "\"},{\"ph\":\"X\"\n<script>../\x01", 0);
	cJSON *j = chrome(tl, NULL, &a);
	int x = 0;
	cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(j, "traceEvents"))
	{
		if (strcmp(tu_event_str(e, "ph"), "X") == 0) {
			x++;
			assert_string_equal(tu_event_str(e, "name"), "\"},{\"ph\":\"X\"\n<script>../\x01");
		}
	}
	assert_int_equal(x, 1);
	assert_string_equal(tu_event_str(cJSON_GetObjectItemCaseSensitive(j, "otherData"), "run_id"), "r<1>");
	cJSON_Delete(j);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

static void names_that_are_not_utf8_come_out_as_valid_json(void **state)
{
	/* PyTorch traces are JSON documents whose names reach here unchecked:
	 * a stray byte, a reversed BOM and a sequence cut short */
	cg_analysis *a;
	cg_timeline *tl = run();
	span(tl, "a", NULL, "ok\xff\xfe \xe2\x80", 0);
	tu_mem(tl, 10, "x", "a", "cu\xff" "da", 64, CG_ALLOC, CG_CAT_ACTIVATION, "op\xc3");
	tu_span_end(tl, "a", 100);
	tu_tl_finalize(tl);
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	cg_sink *s = cg_sink_memory();
	cg_chrome_trace_write(s, a, NULL);
	size_t n;
	const char *text = cg_sink_data(s, &n);
	size_t bad;
	assert_int_equal(cg_utf8_check(text, n, &bad), CG_UTF8_OK);
	cJSON *j = cJSON_Parse(text);
	assert_non_null(j);
	cg_sink_close(s, NULL);
	int x = 0;
	cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(j, "traceEvents"))
	{
		if (strcmp(tu_event_str(e, "ph"), "X") == 0) {
			x++;
			/* each bad byte is U+FFFD; the good ones stay */
			assert_memory_equal(tu_event_str(e, "name"), "ok\xef\xbf\xbd\xef\xbf\xbd ", 9);
		}
	}
	assert_int_equal(x, 1);
	cJSON_Delete(j);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(timestamps_are_microseconds_with_three_decimals),
		cmocka_unit_test(spans_nest_and_overlapping_siblings_get_their_own_lane),
		cmocka_unit_test(every_slice_is_clipped_into_its_parent),
		cmocka_unit_test(an_op_and_its_span_share_one_slice),
		cmocka_unit_test(the_live_memory_counter_peaks_at_the_analysed_peak),
		cmocka_unit_test(downsampling_keeps_the_exact_peak),
		cmocka_unit_test(a_category_freed_to_zero_says_zero_in_every_later_sample),
		cmocka_unit_test(downsampled_samples_show_perfetto_no_stale_category),
		cmocka_unit_test(run_metadata_is_written_where_perfetto_and_chrome_read_it),
		cmocka_unit_test(hostile_names_stay_inside_their_strings),
		cmocka_unit_test(names_that_are_not_utf8_come_out_as_valid_json),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
