/* diff.html's explorer through the binary (docs/report-explore.md):
 * --no-js writes the static page, which the default page only adds to; the
 * page forbids connections and names no URL; per device of both runs one
 * data element holding each run's data as report.html has it and the time
 * each run starts; hostile names reach it as JSON data only. The browser
 * half: tests/browser/check_diff.mjs. */
#include "runutil.h"

#include <stdlib.h>
#include <string.h>

static char *file_in(const char *out, const char *name)
{
	char path[1300];
	snprintf(path, sizeof path, "%s/%s", out, name);
	char *s = tu_read(path, NULL);
	if (!s)
		fail_msg("%s was not written", path);
	return s;
}

static size_t count_of(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

#define DATA_TAG "<script type=\"application/json\" class=\"cgx-data\">"

/* The page less what the explorer adds: the CSP's script-src, the script
 * element in <head> and each data element (with its newline). */
static char *without_explorer(const char *html)
{
	char *s = strdup(html);
	const char *cuts[][2] = {{"; script-src 'sha256-", "'"}, {"<script>", "</script>\n"}, {DATA_TAG, "</script>\n"}};
	for (size_t c = 0; c < 3; c++) {
		char *p;
		while ((p = strstr(s, cuts[c][0])) != NULL) {
			char *end = strstr(p + strlen(cuts[c][0]), cuts[c][1]);
			assert_non_null(end);
			end += strlen(cuts[c][1]);
			memmove(p, end, strlen(end) + 1);
		}
	}
	return s;
}

/* The text of the k-th data element of html (caller frees). */
static char *data_element(const char *html, size_t k)
{
	const char *p = strstr(html, DATA_TAG);
	for (size_t i = 0; p && i < k; i++)
		p = strstr(p + 1, DATA_TAG);
	assert_non_null(p);
	p += strlen(DATA_TAG);
	return strndup(p, (size_t)(strstr(p, "</script>") - p));
}

static void no_js_writes_the_static_page_the_default_only_adds_to(void **state)
{
	(void)state;
	char a[600], b[600], c[600];
	snprintf(a, sizeof a, "%s", tu_path("js"));
	snprintf(b, sizeof b, "%s", tu_path("nojs"));
	snprintf(c, sizeof c, "%s", tu_path("static"));
	const char *base = tu_sample("mlp_adam.jsonl"), *new_run = tu_sample("cnn_sgd.jsonl");
	assert_int_equal(tu_run(NULL, NULL, NULL, "diff", "-q", base, new_run, "-o", a, NULL), 0);
	assert_int_equal(tu_run(NULL, NULL, NULL, "diff", "-q", "--no-js", base, new_run, "-o", b, NULL), 0);
	assert_int_equal(tu_run(NULL, NULL, NULL, "diff", "-q", "--static-html", base, new_run, "-o", c, NULL), 0);
	char *js = file_in(a, "diff.html"), *nojs = file_in(b, "diff.html"), *st = file_in(c, "diff.html");
	assert_string_equal(nojs, st);
	assert_null(strstr(nojs, "<script"));
	assert_non_null(strstr(nojs, "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"));
	assert_int_equal(count_of(js, "<script>"), 1);
	assert_int_equal(count_of(js, DATA_TAG), 1);
	char *cut = without_explorer(js);
	assert_string_equal(cut, nojs);
	/* diff.md and diff.json do not change */
	const char *same[] = {"diff.md", "diff.json"};
	for (size_t i = 0; i < 2; i++) {
		char *x = file_in(a, same[i]), *y = file_in(b, same[i]);
		assert_string_equal(x, y);
		free(x);
		free(y);
	}
	free(cut);
	free(js);
	free(nojs);
	free(st);
}

static void the_page_forbids_connections_and_names_no_url(void **state)
{
	(void)state;
	const char *out = tu_path("csp");
	assert_int_equal(tu_run(NULL, NULL, NULL, "diff", "-q", tu_sample("mlp_adam.jsonl"), tu_sample("cnn_sgd.jsonl"), "-o",
				out, NULL),
			 0);
	char *html = file_in(out, "diff.html");
	const char *csp = strstr(html, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
				       "style-src 'unsafe-inline'; img-src data:; script-src 'sha256-");
	assert_non_null(csp);
	const char *hash = strstr(csp, "'sha256-") + 8, *q = strchr(hash, '\'');
	assert_int_equal(q - hash, 44); /* 32 bytes in base64 */
	assert_memory_equal(q, "'\">", 3);
	size_t urls = count_of(html, "http://") + count_of(html, "https://");
	size_t ns = count_of(html, "http://www.w3.org/2000/svg") + count_of(html, "http://www.w3.org/1999/xlink");
	assert_int_equal(urls, ns);
	free(html);
}

/* Each run's data in diff.html is the data report.html of that run
 * embeds, byte for byte (the browser test checks what the page shows). */
static void each_runs_data_is_its_reports(void **state)
{
	(void)state;
	const char *runs[2] = {"mlp_adam.jsonl", "cnn_sgd.jsonl"};
	const char *out = tu_path("same");
	assert_int_equal(tu_run(NULL, NULL, NULL, "diff", "-q", tu_sample(runs[0]), tu_sample(runs[1]), "-o", out, NULL), 0);
	char *html = file_in(out, "diff.html");
	char *data = data_element(html, 0);
	assert_non_null(strstr(data, "{\"version\":1,\"diff_view\":true,\"device\":\"cpu\",\"runs\":[{\"side\":\"base\","
				     "\"name\":\"mlp_adam\","));
	const char *at = data;
	for (int s = 0; s < 2; s++) {
		char dir[600];
		snprintf(dir, sizeof dir, "%s-%d", tu_path("same-report"), s);
		assert_int_equal(tu_run(NULL, NULL, NULL, "report", "-q", "--no-trace", "--formats", "svg", tu_sample(runs[s]),
					"-o", dir, NULL),
				 0);
		char *page = file_in(dir, "report.html");
		char *own = data_element(page, 0);
		char *wrapped = malloc(strlen(own) + 16);
		sprintf(wrapped, "\"data\":%s}", own);
		const char *found = strstr(at, wrapped);
		assert_non_null(found);
		at = found + strlen(wrapped);
		free(wrapped);
		free(own);
		free(page);
	}
	assert_string_equal(at, "]}");
	free(data);
	free(html);
}

/* Hand-made runs: each starts when its first record is; a device of one
 * run only has no explorer. */
static const char run_a[] =
	"{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"run_id\":\"a\"}\n"
	"{\"kind\":\"span_start\",\"id\":\"s1\",\"name\":\"step\",\"start_ns\":1000,\"span_kind\":\"op\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":1000,\"tensor_id\":\"t1\",\"span_id\":\"s1\",\"device\":\"cpu\",\"bytes\":64,\"action\":\"alloc\","
	"\"dtype\":\"f32\",\"category\":\"activation\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":3000,\"tensor_id\":\"t2\",\"span_id\":\"s1\",\"device\":\"cpu\",\"bytes\":32,\"action\":\"alloc\","
	"\"dtype\":\"f32\",\"category\":\"activation\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":4000,\"tensor_id\":\"g1\",\"span_id\":\"s1\",\"device\":\"cuda:0\",\"bytes\":512,\"action\":\"alloc\","
	"\"dtype\":\"f32\",\"category\":\"activation\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":5000,\"tensor_id\":\"t1\",\"span_id\":\"s1\",\"device\":\"cpu\",\"bytes\":64,\"action\":\"free\","
	"\"dtype\":\"f32\",\"category\":\"activation\"}\n";
static const char run_b[] =
	"{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"run_id\":\"b\"}\n"
	"{\"kind\":\"span_start\",\"id\":\"s1\",\"name\":\"step\",\"start_ns\":7000,\"span_kind\":\"op\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":7000,\"tensor_id\":\"u1\",\"span_id\":\"s1\",\"device\":\"cpu\",\"bytes\":128,\"action\":\"alloc\","
	"\"dtype\":\"f32\",\"category\":\"activation\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":9000,\"tensor_id\":\"u1\",\"span_id\":\"s1\",\"device\":\"cpu\",\"bytes\":128,\"action\":\"free\","
	"\"dtype\":\"f32\",\"category\":\"activation\"}\n";

static void each_run_is_timed_from_its_start(void **state)
{
	(void)state;
	char a[600], b[600];
	snprintf(a, sizeof a, "%s", tu_write("run_a.jsonl", run_a, (size_t)-1));
	snprintf(b, sizeof b, "%s", tu_write("run_b.jsonl", run_b, (size_t)-1));
	const char *out = tu_path("starts");
	assert_int_equal(tu_run(NULL, NULL, NULL, "diff", "-q", a, b, "-o", out, NULL), 0);
	char *html = file_in(out, "diff.html");
	/* cpu is in both runs, cuda:0 in the base run only */
	assert_int_equal(count_of(html, DATA_TAG), 1);
	char *data = data_element(html, 0);
	assert_non_null(strstr(data, "{\"version\":1,\"diff_view\":true,\"device\":\"cpu\",\"runs\":[{\"side\":\"base\","
				     "\"name\":\"run_a\",\"start_ns\":1000,\"data\":{"));
	assert_non_null(strstr(data, "}},{\"side\":\"new\",\"name\":\"run_b\",\"start_ns\":7000,\"data\":{"));
	/* the base run's peak: 96 B after its second record, at 3000 ns */
	assert_non_null(strstr(data, "\"peak\":{\"t\":3000,\"bytes\":96,"));
	assert_non_null(strstr(data, "\"peak\":{\"t\":7000,\"bytes\":128,"));
	free(data);
	free(html);
}

#define HOSTILE_SCRIPT "<script>alert(1)</script>"
#define HOSTILE_IMG "\\\"><img src=x onerror=alert(2)>"

static const char hostile_trace[] =
	"{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"run_id\":\"" HOSTILE_SCRIPT "\",\"model\":\"" HOSTILE_IMG "\"}\n"
	"{\"kind\":\"span_start\",\"id\":\"s|1\",\"name\":\"" HOSTILE_SCRIPT "|pipe\",\"start_ns\":0,\"span_kind\":\"op\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":2,\"tensor_id\":\"" HOSTILE_IMG "\",\"span_id\":\"s|1\",\"device\":\"cpu\","
	"\"bytes\":64,\"action\":\"alloc\",\"dtype\":\"f32\",\"op_name\":\"" HOSTILE_SCRIPT "\",\"category\":\"activation\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":5,\"tensor_id\":\"x" HOSTILE_IMG "\",\"span_id\":\"s|1\",\"device\":\"cpu\","
	"\"bytes\":64,\"action\":\"free\",\"dtype\":\"f32\",\"category\":\"" HOSTILE_SCRIPT "\"}\n";

static void hostile_names_reach_the_page_as_data_only(void **state)
{
	(void)state;
	char trace[600];
	snprintf(trace, sizeof trace, "%s", tu_write("hostile.jsonl", hostile_trace, (size_t)-1));
	const char *out = tu_path("hostile");
	assert_int_equal(tu_run(NULL, NULL, NULL, "diff", "-q", trace, trace, "-o", out, NULL), 0);
	char *html = file_in(out, "diff.html");
	/* the page's own script and one device's data, nothing else */
	assert_int_equal(count_of(html, "<script"), 2);
	assert_int_equal(count_of(html, "</script"), 2);
	assert_null(strstr(html, "<img"));
	char *data = data_element(html, 0);
	assert_null(strchr(data, '<'));
	/* each run's strings, in each run's part (the runs are named by their file) */
	char *second = strstr(data, "{\"side\":\"new\",\"name\":\"hostile\",");
	assert_non_null(second);
	for (int s = 0; s < 2; s++) {
		char *part = s ? second : data;
		if (s == 0)
			*second = 0;
		assert_non_null(strstr(part, "\"\\u003cscript>alert(1)\\u003c/script>\""));
		assert_non_null(strstr(part, "\\u003cscript>alert(1)\\u003c/script>|pipe"));
		assert_non_null(strstr(part, "\"\\\">\\u003cimg src=x onerror=alert(2)>\""));
		if (s == 0)
			*second = '{';
	}
	free(data);
	free(html);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_js_writes_the_static_page_the_default_only_adds_to),
		cmocka_unit_test(the_page_forbids_connections_and_names_no_url),
		cmocka_unit_test(each_runs_data_is_its_reports),
		cmocka_unit_test(each_run_is_timed_from_its_start),
		cmocka_unit_test(hostile_names_reach_the_page_as_data_only),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
