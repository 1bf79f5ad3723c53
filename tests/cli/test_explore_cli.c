/* report.html's explorer through the binary (docs/report-explore.md):
 * --no-js writes the static page, which the default page only adds to; the
 * page forbids connections and names no URL; hostile names reach it as
 * JSON data only; the peak's pinned list is summary.json's; a big trace's
 * series is reduced with its exact peak kept and only the worked-out
 * moments are pinnable. The browser half: tests/browser/check_explore.mjs. */
#include "pageutil.h"
#include "runutil.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void no_js_writes_the_static_page_the_default_only_adds_to(void **state)
{
	(void)state;
	char a[600], b[600], c[600];
	snprintf(a, sizeof a, "%s", tu_path("js"));
	snprintf(b, sizeof b, "%s", tu_path("nojs"));
	snprintf(c, sizeof c, "%s", tu_path("static"));
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", "--no-trace", "-q", tu_sample("mlp_adam.jsonl"), "-o", a, NULL), 0);
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", "--no-trace", "-q", "--no-js", tu_sample("mlp_adam.jsonl"), "-o", b, NULL), 0);
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", "--no-trace", "-q", "--static-html", tu_sample("mlp_adam.jsonl"), "-o", c, NULL), 0);
	char *js = tu_read_in(a, "report.html", NULL), *nojs = tu_read_in(b, "report.html", NULL), *st = tu_read_in(c, "report.html", NULL);
	assert_string_equal(nojs, st);
	assert_null(strstr(nojs, "<script"));
	assert_non_null(strstr(nojs, "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"));
	assert_int_equal(tu_count(js, "<script>"), 1);
	assert_int_equal(tu_count(js, "<script type=\"application/json\" class=\"cgx-data\">"), 1);
	char *cut = tu_without_explorer(js);
	assert_string_equal(cut, nojs);
	/* report.md does not change */
	char *md1 = tu_read_in(a, "report.md", NULL), *md2 = tu_read_in(b, "report.md", NULL);
	assert_string_equal(md1, md2);
	free(cut);
	free(js);
	free(nojs);
	free(st);
	free(md1);
	free(md2);
}

static void the_page_forbids_connections_and_names_no_url(void **state)
{
	(void)state;
	const char *out = tu_path("csp");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", "--no-trace", "-q", tu_sample("mlp_adam.jsonl"), "-o", out, NULL), 0);
	char *html = tu_read_in(out, "report.html", NULL);
	const char *csp = strstr(html, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
				       "style-src 'unsafe-inline'; img-src data:; script-src 'sha256-");
	assert_non_null(csp);
	const char *hash = strstr(csp, "'sha256-") + 8, *q = strchr(hash, '\'');
	assert_int_equal(q - hash, 44); /* 32 bytes in base64 */
	assert_memory_equal(q, "'\">", 3);
	/* the only URLs are the SVG and XLink namespaces' names */
	size_t urls = tu_count(html, "http://") + tu_count(html, "https://");
	size_t ns = tu_count(html, "http://www.w3.org/2000/svg") + tu_count(html, "http://www.w3.org/1999/xlink");
	assert_int_equal(urls, ns);
	assert_null(strstr(html, "connect-src"));
	free(html);
}


static void hostile_names_reach_the_page_as_data_only(void **state)
{
	(void)state;
	char trace[600];
	snprintf(trace, sizeof trace, "%s", tu_write("hostile.jsonl", tu_hostile_trace, (size_t)-1));
	const char *out = tu_path("hostile");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", "-q", "--no-trace", trace, "-o", out, NULL), 0);
	char *html = tu_read_in(out, "report.html", NULL);
	/* the page's own script and one device's data, nothing else */
	assert_int_equal(tu_count(html, "<script"), 2);
	assert_int_equal(tu_count(html, "</script"), 2);
	assert_null(strstr(html, "<img"));
	/* in the data every '<' is \u003c: no string can end its element */
	const char *data = strstr(html, "class=\"cgx-data\">");
	assert_non_null(data);
	const char *end = strstr(data, "</script>");
	for (const char *p = data + strlen("class=\"cgx-data\">"); p < end; p++)
		assert_int_not_equal(*p, '<');
	char *in_data = strndup(data, (size_t)(end - data));
	assert_non_null(strstr(in_data, "\"\\u003cscript>alert(1)\\u003c/script>\""));
	assert_non_null(strstr(in_data, "\\u003cscript>alert(1)\\u003c/script>|pipe"));
	assert_non_null(strstr(in_data, "\\\">\\u003cimg src=x onerror=alert(2)>"));
	free(in_data);
	free(html);
}

/* The peak moment's list in the data, field by field, is summary.json's
 * at_peak.top (the browser test compares what the page shows). */
static void the_peak_moment_holds_summary_jsons_list(void **state)
{
	(void)state;
	const char *out = tu_path("peaklist");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", "-q", "--no-trace", tu_sample("cnn_sgd.jsonl"), "-o", out, NULL), 0);
	char *html = tu_read_in(out, "report.html", NULL);
	const char *data = strstr(html, "class=\"cgx-data\">") + strlen("class=\"cgx-data\">");
	const char *end = strstr(data, "</script>");
	char *json = strndup(data, (size_t)(end - data));
	cJSON *d = cJSON_Parse(json);
	assert_non_null(d);
	cJSON *summary = tu_json_file(tu_path("peaklist/summary.json"));
	cJSON *dev = cJSON_GetArrayItem(cJSON_GetObjectItem(summary, "devices"), 0);
	cJSON *want = tu_json_at(dev, "at_peak", "top", NULL);
	cJSON *peak = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "moments"), 0);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(peak, "label")), "peak");
	assert_true(cJSON_Compare(cJSON_GetObjectItem(peak, "top"), want, true));
	assert_true(cJSON_GetArraySize(want) > 0);
	assert_int_equal(tu_json_u64(peak, "bytes", NULL), tu_json_u64(dev, "peak", "bytes", NULL));
	/* the oracle's peak, worked out without cgmem */
	cJSON *o = tu_json_file(tu_sample("cnn_sgd.oracle.json"));
	assert_int_equal(tu_json_u64(peak, "bytes", NULL), tu_json_u64(o, "peak_total_allocated_bytes", NULL));
	cJSON_Delete(o);
	cJSON_Delete(summary);
	cJSON_Delete(d);
	free(json);
	free(html);
}

/* One allocation live in the replay below. */
typedef struct replayed {
	char tensor[64];
	uint64_t bytes, allocated, freed; /* freed: UINT64_MAX never */
	int freed_known;
} replayed;

static int by_bytes_then_first(const void *pa, const void *pb)
{
	const replayed *a = pa, *b = pb;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return a->allocated < b->allocated ? -1 : a->allocated > b->allocated;
}

/* Each step's peak is a moment of its own whose list is what the trace's
 * records say was live then: worked out here by replaying mlp_adam.jsonl's
 * memory records (alloc adds its tensor, free removes it) up to the step's
 * peak time as summary.json gives it, with no cgmem code. */
static void each_steps_peak_is_a_moment_with_the_replayed_list(void **state)
{
	(void)state;
	const char *out = tu_path("steplist");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", "-q", "--no-trace", tu_sample("mlp_adam.jsonl"), "-o", out, NULL), 0);
	char *html = tu_read_in(out, "report.html", NULL);
	const char *data = strstr(html, "class=\"cgx-data\">") + strlen("class=\"cgx-data\">");
	char *json = strndup(data, (size_t)(strstr(data, "</script>") - data));
	cJSON *d = cJSON_Parse(json);
	assert_non_null(d);
	cJSON *summary = tu_json_file(tu_path("steplist/summary.json"));
	cJSON *steps = tu_json_at(cJSON_GetArrayItem(cJSON_GetObjectItem(summary, "devices"), 0), "over_time", "steps", NULL);
	assert_int_equal(cJSON_GetArraySize(steps), 4);
	assert_int_equal(tu_json_u64(d, "steps_pinned", NULL), 4);
	cJSON *moments = cJSON_GetObjectItem(d, "moments");
	/* the peak, the end, then the 4 steps' peaks */
	assert_int_equal(cJSON_GetArraySize(moments), 6);
	size_t len;
	char *trace = tu_read(tu_sample("mlp_adam.jsonl"), &len);
	assert_non_null(trace);
	for (int k = 0; k < 4; k++) {
		cJSON *st = cJSON_GetArrayItem(steps, k), *m = cJSON_GetArrayItem(moments, 2 + k);
		char label[40];
		snprintf(label, sizeof label, "peak of step %d", k);
		assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(m, "label")), label);
		assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(m, "step_name")),
				    cJSON_GetStringValue(cJSON_GetObjectItem(st, "name")));
		uint64_t t = tu_json_u64(st, "peak_time_ns", NULL);
		assert_int_equal(tu_json_u64(m, "t", NULL), t);
		replayed *live = calloc(2000, sizeof *live);
		size_t n = 0;
		uint64_t sum = 0;
		for (char *line = trace, *nl; *line; line = nl + 1) {
			nl = strchr(line, '\n');
			assert_non_null(nl);
			*nl = '\0';
			cJSON *r = strstr(line, "\"kind\":\"memory\"") ? cJSON_Parse(line) : NULL;
			*nl = '\n';
			if (!r)
				continue;
			uint64_t at = tu_json_u64(r, "timestamp_ns", NULL), bytes = tu_json_u64(r, "bytes", NULL);
			const char *tensor = cJSON_GetStringValue(cJSON_GetObjectItem(r, "tensor_id"));
			bool alloc = strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "action")), "alloc") == 0;
			size_t j = 0;
			while (j < n && (strcmp(live[j].tensor, tensor) != 0 || live[j].freed_known))
				j++;
			if (at <= t && alloc) {
				assert_true(n < 2000);
				snprintf(live[n].tensor, sizeof live[n].tensor, "%s", tensor);
				live[n].bytes = bytes, live[n].allocated = at, live[n].freed = UINT64_MAX;
				n++;
				sum += bytes;
			} else if (at <= t && j < n) {
				sum -= live[j].bytes;
				live[j] = live[--n];
			} else if (at > t && !alloc && j < n) {
				live[j].freed = at, live[j].freed_known = 1;
			}
			cJSON_Delete(r);
		}
		/* the replay reaches the step's peak, and so does the moment */
		assert_int_equal(sum, tu_json_u64(st, "peak_bytes", NULL));
		assert_int_equal(tu_json_u64(m, "bytes", NULL), sum);
		assert_int_equal(tu_json_u64(m, "count", NULL), n);
		qsort(live, n, sizeof *live, by_bytes_then_first);
		cJSON *top = cJSON_GetObjectItem(m, "top");
		uint64_t top_n = tu_json_u64(d, "top_n", NULL);
		assert_int_equal(cJSON_GetArraySize(top), n < top_n ? n : top_n);
		int i = 0;
		cJSON *row;
		cJSON_ArrayForEach(row, top) {
			assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(row, "tensor")), live[i].tensor);
			assert_int_equal(tu_json_u64(row, "bytes", NULL), live[i].bytes);
			assert_int_equal(tu_json_u64(row, "allocated_ns", NULL), live[i].allocated);
			cJSON *f = cJSON_GetObjectItem(row, "freed_ns");
			if (live[i].freed == UINT64_MAX)
				assert_true(cJSON_IsNull(f));
			else
				assert_int_equal((uint64_t)f->valuedouble, live[i].freed);
			i++;
		}
		free(live);
	}
	free(trace);
	cJSON_Delete(summary);
	cJSON_Delete(d);
	free(json);
	free(html);
}

/* 150,000 allocations, each freed: live bytes go 0, b, 0, ... with b the
 * allocation's size, (k * 7919) % 1000 + 1 KiB; one allocation of 5 MiB
 * in the middle is the peak. Too many records for every point, too many
 * allocations to embed. */
static void a_big_trace_keeps_its_exact_peak_and_says_what_is_pinnable(void **state)
{
	(void)state;
	const unsigned n = 150000;
	size_t cap = (size_t)n * 2 * 200 + 4096, len = 0;
	char *text = malloc(cap);
	len += (size_t)snprintf(text + len, cap - len, "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"run_id\":\"big\"}\n"
				"{\"kind\":\"span_start\",\"id\":\"s\",\"name\":\"run\",\"start_ns\":0,\"span_kind\":\"function\"}\n");
	for (unsigned k = 0; k < n; k++) {
		unsigned long long b = k == n / 2 ? 5ull << 20 : ((unsigned long long)k * 7919 % 1000 + 1) << 10;
		len += (size_t)snprintf(text + len, cap - len,
					"{\"kind\":\"memory\",\"timestamp_ns\":%u,\"tensor_id\":\"t%u\",\"device\":\"cpu\",\"span_id\":\"s\",\"dtype\":\"f32\",\"bytes\":%llu,"
					"\"action\":\"alloc\",\"category\":\"activation\"}\n"
					"{\"kind\":\"memory\",\"timestamp_ns\":%u,\"tensor_id\":\"t%u\",\"device\":\"cpu\",\"span_id\":\"s\",\"dtype\":\"f32\",\"bytes\":%llu,"
					"\"action\":\"free\",\"category\":\"activation\"}\n",
					10 * k, k, b, 10 * k + 5, k, b);
	}
	char trace[600];
	snprintf(trace, sizeof trace, "%s", tu_write("big.jsonl", text, len));
	free(text);
	const char *out = tu_path("big");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", "-q", "--no-trace", "--formats", "svg", trace, "-o", out, NULL), 0);
	char *html = tu_read_in(out, "report.html", NULL);
	const char *data = strstr(html, "class=\"cgx-data\">") + strlen("class=\"cgx-data\">");
	const char *end = strstr(data, "</script>");
	char *json = strndup(data, (size_t)(end - data));
	cJSON *d = cJSON_Parse(json);
	assert_non_null(d);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(d, "reduced")));
	assert_null(cJSON_GetObjectItem(d, "allocs"));
	assert_int_equal(tu_json_u64(d, "allocations", NULL), n);
	/* one category: each point is 6 fields and one value */
	cJSON *points = cJSON_GetObjectItem(d, "points");
	int npoints = cJSON_GetArraySize(points) / 7;
	assert_true(npoints <= 4 * 4000 + 1);
	assert_true(npoints > 4000);
	uint64_t peak = tu_json_u64(d, "peak", "bytes", NULL), at = tu_json_u64(d, "peak", "point", NULL);
	assert_int_equal(peak, 5ull << 20);
	assert_int_equal(tu_json_u64(d, "peak", "t", NULL), 10ull * (n / 2));
	/* the peak's own point is kept, at the peak's value and time */
	assert_int_equal((uint64_t)cJSON_GetArrayItem(points, (int)at * 7 + 6)->valuedouble, peak);
	assert_int_equal((uint64_t)cJSON_GetArrayItem(points, (int)at * 7)->valuedouble, 10ull * (n / 2));
	/* walked once: cJSON_GetArrayItem walks the list from its head */
	uint64_t max = 0;
	int i = 0;
	for (cJSON *v = points->child; v; v = v->next, i++)
		if (i % 7 == 6 && (uint64_t)v->valuedouble > max)
			max = (uint64_t)v->valuedouble;
	assert_int_equal(max, peak);
	/* each of the 4000 time buckets keeps its first and last record:
	 * bucket floor((t - t0) * 4000 / (t1 - t0 + 1)), as the page says */
	uint64_t *kept = malloc((size_t)npoints * sizeof *kept);
	i = 0;
	for (cJSON *v = points->child; v; v = v->next, i++)
		if (i % 7 == 0)
			kept[i / 7] = (uint64_t)v->valuedouble;
	uint64_t span = 10ull * (n - 1) + 5 + 1;
	int at_point = 0, edges = 0;
	size_t prev_bucket = SIZE_MAX;
	for (unsigned r = 0; r < 2 * n; r++) {
		uint64_t t = 10ull * (r / 2) + 5 * (r % 2);
		size_t b = (size_t)((long double)t * 4000 / (long double)span);
		bool first = b != prev_bucket;
		bool last = r + 1 == 2 * n || (size_t)((long double)(t + 5) * 4000 / (long double)span) != b; /* the next is 5 ns later */
		prev_bucket = b;
		if (!first && !last)
			continue;
		while (at_point < npoints && kept[at_point] < t)
			at_point++;
		if (at_point == npoints || kept[at_point] != t)
			fail_msg("record %u (t %llu), the %s of bucket %zu, is not a point", r, (unsigned long long)t,
				 first ? "first" : "last", b);
		edges++;
	}
	assert_true(edges >= 2 * 4000 - 1);
	free(kept);
	cJSON_Delete(d);
	free(json);
	free(html);
}

/* A snapshot's segment view: its own data element, whose segments add up
 * to the reserved bytes summary.json reports and the oracle counts. */
static void a_snapshot_has_its_segments_as_data(void **state)
{
	(void)state;
	const char *out = tu_path("segs");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", "-q", "--no-trace", tu_sample("snapshots/yiyi_oom_snapshot.pickle"),
				"-o", out, NULL),
			 0);
	char *html = tu_read_in(out, "report.html", NULL);
	const char *tag = "class=\"cgx-data\">{\"version\":1,\"segments_view\":true";
	const char *data = strstr(html, tag);
	assert_non_null(data);
	data += strlen("class=\"cgx-data\">");
	char *json = strndup(data, (size_t)(strstr(data, "</script>") - data));
	cJSON *d = cJSON_Parse(json);
	assert_non_null(d);
	uint64_t reserved = 0, blocks = 0;
	cJSON *seg;
	cJSON_ArrayForEach(seg, cJSON_GetObjectItem(d, "segments")) {
		reserved += (uint64_t)cJSON_GetArrayItem(seg, 1)->valuedouble;
		blocks += (uint64_t)cJSON_GetArraySize(cJSON_GetArrayItem(seg, 4)) / 6;
	}
	assert_int_equal(tu_json_u64(d, "segments_embedded", NULL), tu_json_u64(d, "segment_count", NULL));
	assert_int_equal(blocks, tu_json_u64(d, "block_count", NULL));
	cJSON *summary = tu_json_file(tu_path("segs/summary.json"));
	cJSON *dev = cJSON_GetArrayItem(cJSON_GetObjectItem(summary, "devices"), 0);
	assert_int_equal(reserved, tu_json_u64(dev, "allocator_state", "reserved_bytes", NULL));
	/* and the oracle's (tests/tools/snapshot_oracle.py, no cgmem code) */
	cJSON *o = tu_json_file(tu_sample("snapshots/yiyi_oom_snapshot.oracle.json"));
	assert_int_equal(reserved, tu_json_u64(o, "devices", "0", "figures", "reserved_bytes", NULL));
	assert_int_equal(blocks, tu_json_u64(o, "devices", "0", "blocks", "count", NULL));
	assert_int_equal(tu_json_u64(d, "segment_count", NULL), tu_json_u64(o, "devices", "0", "segments", "count", NULL));
	cJSON_Delete(o);
	cJSON_Delete(summary);
	cJSON_Delete(d);
	free(json);
	free(html);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_js_writes_the_static_page_the_default_only_adds_to),
		cmocka_unit_test(the_page_forbids_connections_and_names_no_url),
		cmocka_unit_test(hostile_names_reach_the_page_as_data_only),
		cmocka_unit_test(the_peak_moment_holds_summary_jsons_list),
		cmocka_unit_test(each_steps_peak_is_a_moment_with_the_replayed_list),
		cmocka_unit_test(a_big_trace_keeps_its_exact_peak_and_says_what_is_pinnable),
		cmocka_unit_test(a_snapshot_has_its_segments_as_data),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
