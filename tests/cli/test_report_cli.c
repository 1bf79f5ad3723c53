/* report.md and report.html of real samples, through the binary: the
 * figures people read (checked against the sample oracle), a cut trace
 * said first, hostile strings shown as text (checked by a real browser).
 * (The report's unit tests: tests/render/test_report.c.) */
#include "runutil.h"

#include <string.h>
#include <unistd.h>

static void markdown_report_has_the_key_figures_and_charts(void **state)
{
	const char *out = tu_path("md");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", out, "-q", NULL), 0);
	char *md = tu_read_in(out, "report.md", NULL);
	cJSON *o = tu_json_file(tu_sample("mlp_adam.oracle.json"));
	assert_int_equal(tu_json_u64(o, "peak_total_allocated_bytes", NULL), 16190672);
	assert_non_null(strstr(md, "| peak | 15.44 MiB (16,190,672 B) |"));
	assert_non_null(strstr(md, "| first reached at | 0.123 s (reached 4 times) |"));
	/* what was live at the peak, by category, adds up to the peak */
	assert_non_null(strstr(md, "| optimizer\\_state | 6.09 MiB | 39.5 % | 24 |"));
	assert_non_null(strstr(md, "](timeline.cpu.png)"));
	assert_non_null(strstr(md, "# Memory report \xe2\x80\x94 mlp\\_adam"));
	assert_null(strstr(md, "cut off"));
	free(md);
	char *html = tu_read_in(out, "report.html", NULL);
	/* self-contained: the chart is inline SVG, nothing is fetched */
	assert_non_null(strstr(html, "<svg"));
	assert_null(strstr(html, "src=\"http"));
	assert_null(strstr(html, "<script src"));
	assert_null(strstr(html, "<link"));
	free(html);
	cJSON_Delete(o);
}

static void a_cut_trace_is_said_first(void **state)
{
	const char *out = tu_path("cut");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", tu_sample("mlp_adam_cut.jsonl"), "-o", out, "-q", NULL), 0);
	char *md = tu_read_in(out, "report.md", NULL);
	const char *callout = strstr(md, "> **The trace was cut off: trace ends mid-record at line 3974");
	assert_non_null(callout);
	assert_true(callout < strstr(md, "## Key figures"));
	free(md);
}

#define HOSTILE_SCRIPT "<script>alert(1)</script>"
#define HOSTILE_IMG "\\\"><img src=x onerror=alert(2)>"

static const char hostile_trace[] =
	"{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"run_id\":\"" HOSTILE_SCRIPT "\",\"model\":\"" HOSTILE_IMG "\"}\n"
	"{\"kind\":\"span_start\",\"id\":\"s|1\",\"name\":\"" HOSTILE_SCRIPT "|pipe\",\"start_ns\":0,\"span_kind\":\"op\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":5,\"tensor_id\":\"" HOSTILE_IMG "\",\"span_id\":\"s|1\",\"device\":\"cpu\","
	"\"bytes\":64,\"action\":\"free\",\"dtype\":\"f32\",\"category\":\"" HOSTILE_SCRIPT "\"}\n";

/* An allocator snapshot's paths are Python stacks: shown innermost frame
 * first, as a PyTorch trace's are, not joined by '/' (its file names hold
 * '/' themselves). The largest block's frames, read from the pickle with
 * Python's own unpickler: pytorch_backend.py:190 allocate, called from
 * flex_opt.py:125 init_weight_list, from flex_opt.py:171 init_weight. */
static void a_snapshots_stacks_read_innermost_first(void **state)
{
	(void)state;
	const char *out = tu_path("snapstacks");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", "-q", "--no-trace", tu_sample("snapshots/yiyi_oom_snapshot.pickle"), "-o",
				out, NULL),
			 0);
	char *md = tu_read_in(out, "report.md", NULL);
	const char *dir = "/home/dingyiran/FlexGen/flexgen/";
	char want[600];
	snprintf(want, sizeof want, "| %spytorch\\_backend.py:190 allocate \xe2\x80\xb9 %sflex\\_opt.py:125 init\\_weight\\_list \xe2\x80\xb9 %sflex\\_opt.py:171 init\\_weight \xe2\x80\xb9 \xe2\x80\xa6",
		 dir, dir, dir);
	const char *sections[] = {"### Where the peak was allocated", "### Leak candidates"};
	for (size_t i = 0; i < 2; i++) {
		const char *at = strstr(md, sections[i]);
		assert_non_null(at);
		const char *end = strstr(at + 4, "\n### ");
		char *section = strndup(at, end ? (size_t)(end - at) : strlen(at));
		if (!strstr(section, want))
			fail_msg("%s: no row starts with the stack, innermost first", sections[i]);
		free(section);
	}
	assert_null(strstr(md, ">//home/"));
	assert_null(strstr(md, "module&gt;/"));
	free(md);
}

static void hostile_strings_are_escaped_in_both_reports(void **state)
{
	const char *trace = tu_write("hostile.jsonl", hostile_trace, (size_t)-1);
	const char *out = tu_path("hostile");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", trace, "-o", out, "-q", NULL), 0);
	char *html = tu_read_in(out, "report.html", NULL);
	/* the explorer's script and its one device's data, no other script
	 * (tests/cli/test_explore_cli.c looks inside) */
	assert_int_equal(tu_count(html, "<script"), 2);
	assert_non_null(strstr(html, "<script>"));
	assert_non_null(strstr(html, "<script type=\"application/json\" class=\"cgx-data\">"));
	assert_null(strstr(html, "<img"));
	assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_non_null(strstr(html, "&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"));
	free(html);
	char *md = tu_read_in(out, "report.md", NULL);
	assert_null(strstr(md, "<script"));
	assert_non_null(strstr(md, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	/* a pipe in a name cannot break the table */
	assert_null(strstr(md, "</script>|pipe"));
	free(md);
}

static void a_browser_shows_hostile_strings_as_text(void **state)
{
	if (access("/usr/bin/chromium", X_OK) != 0) {
		print_message("chromium is not installed (.ci/setup --test installs it): skipped\n");
		skip();
	}
	const char *trace = tu_write("hostile2.jsonl", hostile_trace, (size_t)-1);
	const char *out = tu_path("hostile2");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", trace, "-o", out, "-q", NULL), 0);
	char cmd[2048];
	snprintf(cmd, sizeof cmd,
		 "timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking "
		 "--disable-component-update --no-first-run --user-data-dir='%s' --dump-dom 'file://%s/report.html' "
		 ">'%s' 2>/dev/null",
		 tu_path("chromium-profile"), out, tu_path("dom.html"));
	assert_int_equal(system(cmd), 0);
	char *dom = tu_read(tu_path("dom.html"), NULL);
	assert_non_null(dom);
	assert_non_null(strstr(dom, "<main>"));
	/* the DOM the browser built holds no script but the page's own (the
	 * explorer and its data), and no image element */
	assert_int_equal(tu_count(dom, "<script"), 2);
	assert_null(strstr(dom, "<img"));
	/* and shows the strings as text */
	assert_non_null(strstr(dom, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	free(dom);

	snprintf(cmd, sizeof cmd,
		 "timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking "
		 "--disable-component-update --no-first-run --user-data-dir='%s' --window-size=1280,1600 "
		 "--screenshot='%s' 'file://%s/report.html' >/dev/null 2>&1",
		 tu_path("chromium-profile2"), tu_path("shot.png"), out);
	assert_int_equal(system(cmd), 0);
	size_t n;
	char *png = tu_read(tu_path("shot.png"), &n);
	assert_non_null(png);
	assert_true(n > 10000);
	assert_memory_equal(png, "\x89PNG", 4);
	free(png);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(markdown_report_has_the_key_figures_and_charts),
		cmocka_unit_test(a_cut_trace_is_said_first),
		cmocka_unit_test(a_snapshots_stacks_read_innermost_first),
		cmocka_unit_test(hostile_strings_are_escaped_in_both_reports),
		cmocka_unit_test(a_browser_shows_hostile_strings_as_text),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
