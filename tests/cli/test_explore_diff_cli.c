/* diff.html's explorer through the binary (docs/report-explore.md):
 * --no-js writes the static page, which the default page only adds to; the
 * page forbids connections and names no URL; per device of both runs one
 * data element holding each run's data as report.html has it and the time
 * each run starts; hostile names reach it as JSON data only. The browser
 * half: tests/browser/check_diff.mjs. */
#include "pageutil.h"
#include "runutil.h"

#include <stdlib.h>
#include <string.h>

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
	char *js = tu_read_in(a, "diff.html", NULL), *nojs = tu_read_in(b, "diff.html", NULL), *st = tu_read_in(c, "diff.html", NULL);
	assert_string_equal(nojs, st);
	assert_null(strstr(nojs, "<script"));
	assert_non_null(strstr(nojs, "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"));
	assert_int_equal(tu_count(js, "<script>"), 1);
	assert_int_equal(tu_count(js, TU_DATA_TAG), 1);
	char *cut = tu_without_explorer(js);
	assert_string_equal(cut, nojs);
	/* diff.md and diff.json do not change */
	const char *same[] = {"diff.md", "diff.json"};
	for (size_t i = 0; i < 2; i++) {
		char *x = tu_read_in(a, same[i], NULL), *y = tu_read_in(b, same[i], NULL);
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
	char *html = tu_read_in(out, "diff.html", NULL);
	const char *csp = strstr(html, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
				       "style-src 'unsafe-inline'; img-src data:; script-src 'sha256-");
	assert_non_null(csp);
	const char *hash = strstr(csp, "'sha256-") + 8, *q = strchr(hash, '\'');
	assert_int_equal(q - hash, 44); /* 32 bytes in base64 */
	assert_memory_equal(q, "'\">", 3);
	size_t urls = tu_count(html, "http://") + tu_count(html, "https://");
	size_t ns = tu_count(html, "http://www.w3.org/2000/svg") + tu_count(html, "http://www.w3.org/1999/xlink");
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
	char *html = tu_read_in(out, "diff.html", NULL);
	char *data = tu_data_element(html, 0);
	assert_non_null(strstr(data, "{\"version\":1,\"diff_view\":true,\"device\":\"cpu\",\"runs\":[{\"side\":\"base\","
				     "\"name\":\"mlp_adam\","));
	const char *at = data;
	for (int s = 0; s < 2; s++) {
		char dir[600];
		snprintf(dir, sizeof dir, "%s-%d", tu_path("same-report"), s);
		assert_int_equal(tu_run(NULL, NULL, NULL, "report", "-q", "--no-trace", "--formats", "svg", tu_sample(runs[s]),
					"-o", dir, NULL),
				 0);
		char *page = tu_read_in(dir, "report.html", NULL);
		char *own = tu_data_element(page, 0);
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
	char *html = tu_read_in(out, "diff.html", NULL);
	/* cpu is in both runs, cuda:0 in the base run only */
	assert_int_equal(tu_count(html, TU_DATA_TAG), 1);
	char *data = tu_data_element(html, 0);
	assert_non_null(strstr(data, "{\"version\":1,\"diff_view\":true,\"device\":\"cpu\",\"runs\":[{\"side\":\"base\","
				     "\"name\":\"run_a\",\"start_ns\":1000,\"data\":{"));
	assert_non_null(strstr(data, "}},{\"side\":\"new\",\"name\":\"run_b\",\"start_ns\":7000,\"data\":{"));
	/* the base run's peak: 96 B after its second record, at 3000 ns */
	assert_non_null(strstr(data, "\"peak\":{\"t\":3000,\"bytes\":96,"));
	assert_non_null(strstr(data, "\"peak\":{\"t\":7000,\"bytes\":128,"));
	free(data);
	free(html);
}


static void hostile_names_reach_the_page_as_data_only(void **state)
{
	(void)state;
	char trace[600];
	snprintf(trace, sizeof trace, "%s", tu_write("hostile.jsonl", tu_hostile_trace, (size_t)-1));
	const char *out = tu_path("hostile");
	assert_int_equal(tu_run(NULL, NULL, NULL, "diff", "-q", trace, trace, "-o", out, NULL), 0);
	char *html = tu_read_in(out, "diff.html", NULL);
	/* the page's own script and one device's data, nothing else */
	assert_int_equal(tu_count(html, "<script"), 2);
	assert_int_equal(tu_count(html, "</script"), 2);
	assert_null(strstr(html, "<img"));
	char *data = tu_data_element(html, 0);
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
