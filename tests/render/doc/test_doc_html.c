/* The HTML backend (doc_html.h): one self-contained page (no script, no
 * external URL, a policy that forbids loading anything), each figure's SVG
 * read from the folder and inlined with ids made unique, a PNG as a data
 * URL when there is no SVG, nothing when neither exists, links to the
 * chart files written, anchors and a table of contents, tables in scroll
 * wrappers with a <thead>, and hostile text shown as text. */
#include "testutil.h"

#include <string.h>

#include "doc.h"
#include "doc_html.h"
#include "sink.h"

/* The page for d with figures read from dir; the writer must succeed. */
static char *html(const cg_doc *d, const char *dir)
{
	cg_sink *s = cg_sink_memory();
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_doc_write_html(d, s, dir, &err), 0);
	char *page = strdup(cg_sink_data(s, NULL));
	cg_sink_close(s, NULL);
	return page;
}

static size_t count(const char *s, const char *part)
{
	size_t n = 0;
	for (const char *p = strstr(s, part); p; p = strstr(p + 1, part))
		n++;
	return n;
}

/* Nothing on the page may load or run. */
static void assert_self_contained(const char *page)
{
	assert_null(strstr(page, "<script"));
	assert_null(strstr(page, "<link"));
	assert_null(strstr(page, "<iframe"));
	assert_null(strstr(page, "http://"));
	assert_null(strstr(page, "https://"));
	assert_null(strstr(page, "@import"));
	assert_null(strstr(page, "src=\"http"));
	assert_null(strstr(page, "url(http"));
}

static void the_page_is_complete_and_self_contained(void **state)
{
	cg_doc *d = cg_doc_new("Memory report");
	cg_doc_paragraph(d, "text");
	char *page = html(d, tu_tmpdir());
	assert_int_equal(strncmp(page, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">", 62), 0);
	assert_non_null(strstr(page, "<title>Memory report</title>"));
	assert_non_null(strstr(page, "<h1>Memory report</h1>"));
	/* the policy forbids every fetch but inline styles and data images */
	assert_non_null(strstr(page, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
				     "style-src 'unsafe-inline'; img-src data:\">"));
	assert_int_equal(count(page, "<style>"), 1);
	assert_self_contained(page);
	const char *tail = "</main>\n</body>\n</html>\n";
	assert_string_equal(page + strlen(page) - strlen(tail), tail);
	free(page);
	cg_doc_free(d);
}

/* A table cut for paper: its rows past the first n are marked for the
 * screen alone, and a note printed under it says how many and where. */
static void a_table_cut_for_paper_says_so(void **state)
{
	cg_doc *d = cg_doc_new("t");
	cg_doc_table(d, 1, "r");
	cg_doc_table_print_rows(d, 2, "summary.json's at_peak.top");
	cg_doc_row(d, (const char *const[]){"bytes"});
	for (int i = 1; i <= 4; i++)
		cg_doc_row(d, (const char *const[]){i == 1 ? "1" : i == 2 ? "2" : i == 3 ? "3" : "4"});
	/* as many rows as are printed: no note */
	cg_doc_table(d, 1, "r");
	cg_doc_table_print_rows(d, 1, NULL);
	cg_doc_row(d, (const char *const[]){"bytes"});
	cg_doc_row(d, (const char *const[]){"9"});
	char *page = html(d, tu_tmpdir());
	assert_non_null(strstr(page, "<tbody>\n<tr><td class=\"r\">1</td></tr>\n<tr><td class=\"r\">2</td></tr>\n"
				     "<tr class=\"pm\"><td class=\"r\">3</td></tr>\n<tr class=\"pm\"><td class=\"r\">4</td></tr>\n"
				     "</tbody>\n</table></div>\n"
				     "<p class=\"note pn\">Printed: the first 2 of these 4 rows; the other 2 are in report.html on "
				     "screen and in summary.json&#39;s at_peak.top.</p>\n"));
	assert_non_null(strstr(page, "<tbody>\n<tr><td class=\"r\">9</td></tr>\n</tbody>\n</table></div>\n</main>"));
	assert_int_equal(count(page, "class=\"pm\""), 2);
	assert_int_equal(count(page, "class=\"note pn\""), 1);
	/* on screen the note is hidden, on paper the rows */
	assert_non_null(strstr(page, ".pn{display:none}"));
	assert_non_null(strstr(page, "tr.pm{display:none}.pn{display:block}"));
	free(page);
	cg_doc_free(d);
}

static void each_block_has_its_element(void **state)
{
	cg_doc *d = cg_doc_new("t");
	cg_doc_heading(d, 1, "One");
	cg_doc_heading(d, 2, "Two");
	cg_doc_heading(d, 3, "Three");
	cg_doc_paragraph(d, "A paragraph.");
	cg_doc_note(d, "A note.");
	cg_doc_callout(d, "Read this first.");
	cg_doc_code(d, "line 1\nline 2");
	cg_doc_table(d, 4, "lrkp");
	cg_doc_row(d, (const char *const[]){"device", "peak", "key", "path"});
	cg_doc_row(d, (const char *const[]){"cpu", "15.44 MiB", "k", "run/fwd"});
	char *page = html(d, tu_tmpdir());
	assert_non_null(strstr(page, "</h1>\n"
				     "<nav id=\"contents\" aria-label=\"Contents\">\n<p>Contents</p>\n<ol>\n"
				     "<li><a href=\"#one\">One</a></li>\n"
				     "<li><a href=\"#two\">Two</a>\n<ol>\n<li><a href=\"#three\">Three</a></li>\n</ol>\n</li>\n"
				     "</ol>\n</nav>\n"
				     "<section>\n<h2 id=\"one\">One</h2>\n</section>\n<section>\n<h2 id=\"two\">Two</h2>\n"
				     "<h3 id=\"three\">Three</h3>\n"
				     "<p>A paragraph.</p>\n"
				     "<p class=\"note\">A note.</p>\n"
				     "<div class=\"callout\">Read this first.</div>\n"
				     "<pre>line 1\nline 2</pre>\n"
				     "<div class=\"tw\"><table>\n"
				     "<thead>\n<tr><th>device</th><th class=\"r\">peak</th><th class=\"k\">key</th>"
				     "<th class=\"p\">path</th></tr>\n</thead>\n"
				     "<tbody>\n<tr><td>cpu</td><td class=\"r\">15.44 MiB</td><td class=\"k\">k</td>"
				     "<td class=\"p\">run/<wbr>fwd</td></tr>\n</tbody>\n"
				     "</table></div>\n</section>\n</main>"));
	free(page);
	cg_doc_free(d);
}

/* An SVG as cairo writes it: an XML declaration, then ids and references
 * to them ("glyph0-1", "clip1") that every chart of a page shares. */
static const char cairo_svg[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"10\" "
	"height=\"10\">\n"
	"<defs><g><symbol overflow=\"visible\" id=\"glyph0-1\"><path d=\"M 1 1 L 2 2\"/></symbol></g>\n"
	"<clipPath id=\"clip1\"><rect x=\"0\" y=\"0\" width=\"5\" height=\"5\"/></clipPath></defs>\n"
	"<use xlink:href=\"#glyph0-1\" x=\"1\" y=\"2\"/>\n"
	"<g clip-path=\"url(#clip1)\"><rect width=\"3\" height=\"3\"/></g>\n"
	"</svg>\n";

static void figures_inline_their_svg_with_ids_of_their_own(void **state)
{
	tu_write("timeline.svg", cairo_svg, sizeof cairo_svg - 1);
	tu_write("top.svg", cairo_svg, sizeof cairo_svg - 1);
	cg_doc *d = cg_doc_new("t");
	cg_doc_figure(d, "timeline", "Live memory");
	cg_doc_paragraph(d, "between");
	cg_doc_figure(d, "top", "Largest allocations");
	char *page = html(d, tu_tmpdir());
	/* the SVG element itself, without the XML declaration */
	assert_null(strstr(page, "<?xml"));
	assert_int_equal(count(page, "<svg xmlns="), 2);
	assert_non_null(strstr(page, "<figure>\n<svg xmlns="));
	/* ids and the references to them get the figure's prefix */
	assert_non_null(strstr(page, "id=\"f1_glyph0-1\""));
	assert_non_null(strstr(page, "xlink:href=\"#f1_glyph0-1\""));
	assert_non_null(strstr(page, "id=\"f1_clip1\""));
	assert_non_null(strstr(page, "clip-path=\"url(#f1_clip1)\""));
	assert_non_null(strstr(page, "id=\"f2_glyph0-1\""));
	assert_non_null(strstr(page, "clip-path=\"url(#f2_clip1)\""));
	assert_null(strstr(page, "id=\"glyph0-1\""));
	assert_null(strstr(page, "url(#clip1)"));
	assert_non_null(strstr(page, "</svg>\n\n<figcaption>Live memory</figcaption>\n"
				     "<div class=\"files\"><a href=\"timeline.svg\">SVG</a></div>\n</figure>\n"));
	assert_non_null(strstr(page, "<figcaption>Largest allocations</figcaption>"));
	/* the namespace names are names, not fetches: the only URLs */
	assert_int_equal(count(page, "http://"), 4);
	free(page);
	cg_doc_free(d);
}

/* Without an SVG, the PNG is inlined as a data URL (RFC 4648's "foob"
 * example: Zm9vYg==); the image's alt text is escaped. */
static void a_png_is_inlined_when_there_is_no_svg(void **state)
{
	tu_write("breakdown.png", "foob", 4);
	cg_doc *d = cg_doc_new("t");
	cg_doc_figure(d, "breakdown", "By \"category\" <all>");
	char *page = html(d, tu_tmpdir());
	assert_non_null(strstr(page, "<figure>\n<img alt=\"By &quot;category&quot; &lt;all&gt;\" "
				     "src=\"data:image/png;base64,Zm9vYg==\">\n<figcaption>"));
	assert_self_contained(page);
	free(page);
	cg_doc_free(d);
}

/* Base64 of every length modulo 3 (RFC 4648, section 10). */
static void base64_pads_every_length(void **state)
{
	static const char *const vectors[][2] = {{"f", "Zg=="},	    {"fo", "Zm8="},	  {"foo", "Zm9v"},
						 {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
						 {"\xff\xfe\xfd", "//79"}};
	for (size_t i = 0; i < sizeof vectors / sizeof *vectors; i++) {
		tu_write("v.png", vectors[i][0], (size_t)-1);
		cg_doc *d = cg_doc_new("t");
		cg_doc_figure(d, "v", "v");
		char *page = html(d, tu_tmpdir());
		char expected[64];
		snprintf(expected, sizeof expected, "base64,%s\">", vectors[i][1]);
		if (!strstr(page, expected))
			fail_msg("%s: no %s", vectors[i][0], expected);
		free(page);
		cg_doc_free(d);
	}
}

/* A chart that was not drawn leaves its caption only; the page is still
 * written. */
static void a_missing_figure_leaves_its_caption(void **state)
{
	cg_doc *d = cg_doc_new("t");
	cg_doc_figure(d, "never-drawn", "Fragmentation");
	char *page = html(d, tu_path("no-such-folder"));
	assert_non_null(strstr(page, "<figure>\n\n<figcaption>Fragmentation</figcaption>\n</figure>\n"));
	assert_null(strstr(page, "<svg"));
	assert_null(strstr(page, "<img"));
	free(page);
	/* a file that holds no <svg> element is not inlined either */
	tu_write("broken.svg", "<?xml version=\"1.0\"?>\n<html>not svg</html>", (size_t)-1);
	cg_doc *e = cg_doc_new("t");
	cg_doc_figure(e, "broken", "Broken");
	page = html(e, tu_tmpdir());
	assert_null(strstr(page, "not svg"));
	assert_non_null(strstr(page, "<figure>\n\n<figcaption>Broken</figcaption>"));
	free(page);
	cg_doc_free(e);
	cg_doc_free(d);
}

/* Every block, the title and table cells with hostile strings: shown as
 * text, nothing runs. */
static void hostile_text_is_escaped_everywhere(void **state)
{
	static const char script[] = "<script>alert(1)</script>";
	static const char img[] = "\"><img src=x onerror=alert(2)>";
	cg_doc *d = cg_doc_new(script);
	cg_doc_heading(d, 2, "%s", script);
	cg_doc_paragraph(d, "%s", img);
	cg_doc_note(d, "<!-- %s", script);
	cg_doc_callout(d, "</div>%s", script);
	cg_doc_code(d, "</pre><script>alert(3)</script>");
	cg_doc_table(d, 2, "lr");
	cg_doc_row(d, (const char *const[]){script, img});
	cg_doc_figure(d, "missing", script);
	char *page = html(d, tu_tmpdir());
	assert_self_contained(page);
	assert_null(strstr(page, "<img"));
	assert_null(strstr(page, "<!--"));
	assert_int_equal(count(page, "</pre>"), 1);
	assert_int_equal(count(page, "</div>"), 2); /* the call-out's and the table's wrapper */
	/* title, h1, the contents, h2, note, callout, cell, caption */
	assert_int_equal(count(page, "&lt;script&gt;alert(1)&lt;/script&gt;"), 8);
	assert_non_null(strstr(page, "<h2 id=\"script-alert-1-script\">"));
	assert_int_equal(count(page, "&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"), 2);
	assert_non_null(strstr(page, "<pre>&lt;/pre&gt;&lt;script&gt;alert(3)&lt;/script&gt;</pre>"));
	free(page);
	cg_doc_free(d);
}

/* Control bytes and invalid UTF-8 cannot reach the page. */
static void control_bytes_and_invalid_utf8_are_cleaned(void **state)
{
	cg_doc *d = cg_doc_new("a\x01" "b\xff");
	cg_doc_paragraph(d, "caf\xc3\xa9\x1b[31m");
	char *page = html(d, tu_tmpdir());
	assert_non_null(strstr(page, "<h1>ab\xef\xbf\xbd</h1>"));
	assert_non_null(strstr(page, "<p>caf\xc3\xa9[31m</p>"));
	free(page);
	cg_doc_free(d);
}

/* Under each figure, relative links to the files of it in the folder, in
 * the order PNG, SVG, PDF, and only those that were written. */
static void a_figure_links_the_files_that_were_written(void **state)
{
	tu_write("both.png", "png", (size_t)-1);
	tu_write("both.svg", "<svg/>", (size_t)-1);
	tu_write("all.png", "png", (size_t)-1);
	tu_write("all.svg", "<svg/>", (size_t)-1);
	tu_write("all.pdf", "pdf", (size_t)-1);
	tu_write("vector.svg", "<svg/>", (size_t)-1);
	tu_write("vector.pdf", "pdf", (size_t)-1);
	tu_write("paper.pdf", "pdf", (size_t)-1);
	cg_doc *d = cg_doc_new("t");
	cg_doc_figure(d, "both", "Both");
	cg_doc_figure(d, "all", "All");
	cg_doc_figure(d, "vector", "Vector");
	cg_doc_figure(d, "paper", "Paper");
	cg_doc_figure(d, "none", "None");
	char *page = html(d, tu_tmpdir());
	assert_non_null(strstr(page, "<figcaption>Both</figcaption>\n<div class=\"files\"><a href=\"both.png\">PNG</a>"
				     " \xc2\xb7 <a href=\"both.svg\">SVG</a></div>\n</figure>"));
	assert_non_null(strstr(page, "<figcaption>All</figcaption>\n<div class=\"files\"><a href=\"all.png\">PNG</a>"
				     " \xc2\xb7 <a href=\"all.svg\">SVG</a> \xc2\xb7 <a href=\"all.pdf\">PDF</a></div>"));
	assert_non_null(strstr(page, "<figcaption>Vector</figcaption>\n<div class=\"files\"><a href=\"vector.svg\">SVG</a>"
				     " \xc2\xb7 <a href=\"vector.pdf\">PDF</a></div>"));
	assert_non_null(strstr(page, "<figcaption>Paper</figcaption>\n<div class=\"files\"><a href=\"paper.pdf\">PDF</a>"
				     "</div>"));
	assert_non_null(strstr(page, "<figcaption>None</figcaption>\n</figure>"));
	assert_int_equal(count(page, "<div class=\"files\">"), 4);
	assert_self_contained(page);
	free(page);
	cg_doc_free(d);
}

/* The contents: each h2 with its h3s in a list of their own; an h3 before
 * any h2 stands on its own; level 1 headings count as h2s. No headings, no
 * contents. */
static void the_contents_list_h2s_with_their_h3s(void **state)
{
	cg_doc *d = cg_doc_new("t");
	cg_doc_callout(d, "First.");
	cg_doc_heading(d, 3, "Early");
	cg_doc_heading(d, 2, "cuda:0");
	cg_doc_heading(d, 3, "Steps");
	cg_doc_heading(d, 3, "Phases");
	cg_doc_heading(d, 1, "cuda:1");
	cg_doc_heading(d, 3, "Steps");
	cg_doc_heading(d, 2, "The run");
	char *page = html(d, tu_tmpdir());
	assert_non_null(strstr(page, "<div class=\"callout\">First.</div>\n"
				     "<nav id=\"contents\" aria-label=\"Contents\">\n<p>Contents</p>\n<ol>\n"
				     "<li><a href=\"#early\">Early</a></li>\n"
				     "<li><a href=\"#cuda-0\">cuda:0</a>\n<ol>\n"
				     "<li><a href=\"#steps\">Steps</a></li>\n<li><a href=\"#phases\">Phases</a></li>\n"
				     "</ol>\n</li>\n"
				     "<li><a href=\"#cuda-1\">cuda:1</a>\n<ol>\n<li><a href=\"#steps-2\">Steps</a></li>\n</ol>\n</li>\n"
				     "<li><a href=\"#the-run\">The run</a></li>\n"
				     "</ol>\n</nav>\n<h3 id=\"early\">Early</h3>\n"));
	assert_non_null(strstr(page, "<h2 id=\"cuda-1\">cuda:1</h2>\n<h3 id=\"steps-2\">Steps</h3>\n"));
	free(page);
	cg_doc_free(d);
	d = cg_doc_new("t");
	cg_doc_paragraph(d, "text");
	page = html(d, tu_tmpdir());
	assert_null(strstr(page, "<nav"));
	free(page);
	cg_doc_free(d);
}

/* A header row alone: a <thead> and no empty <tbody>. A right-aligned
 * sentence may wrap on a small screen (class "s"); a number may not. Keys
 * and paths may break between names (<wbr>). */
static void tables_have_a_head_and_sentences_may_wrap(void **state)
{
	cg_doc *d = cg_doc_new("t");
	cg_doc_table(d, 1, "r");
	cg_doc_row(d, (const char *const[]){"peak"});
	cg_doc_table(d, 2, "rr");
	cg_doc_row(d, (const char *const[]){"bytes", "cpu"});
	cg_doc_row(d, (const char *const[]){"15.44 MiB", "9.14 MiB in 32 allocations"});
	/* keys may break after "::" and '_', paths after '/', never inside a run of them */
	cg_doc_table(d, 2, "kp");
	cg_doc_row(d, (const char *const[]){"op_name", "span/path"});
	cg_doc_row(d, (const char *const[]){"aten::max_pool2d__x", "run//fwd/"});
	char *page = html(d, tu_tmpdir());
	assert_non_null(strstr(page, "<th class=\"k\">op_name</th><th class=\"p\">span/path</th>"));
	assert_non_null(strstr(page, "<td class=\"k\">aten::<wbr>max_<wbr>pool2d__<wbr>x</td>"
				     "<td class=\"p\">run//<wbr>fwd/</td>"));
	assert_non_null(strstr(page, "<div class=\"tw\"><table>\n<thead>\n<tr><th class=\"r\">peak</th></tr>\n</thead>\n"
				     "</table></div>\n"));
	assert_non_null(strstr(page, "<tbody>\n<tr><td class=\"r\">15.44 MiB</td>"
				     "<td class=\"r s\">9.14 MiB in 32 allocations</td></tr>\n</tbody>\n"));
	free(page);
	cg_doc_free(d);
}

/* The rules the browser tests (tests/browser) measure in Chromium. */
static void the_style_prints_whole_rows_and_scrolls_small_tables(void **state)
{
	cg_doc *d = cg_doc_new("t");
	char *page = html(d, tu_tmpdir());
	assert_non_null(strstr(page, ".tw{overflow-x:auto;"));
	assert_non_null(strstr(page, "@media (max-width:600px){main{padding:16px 12px 40px}"));
	assert_non_null(strstr(page, "@page{margin:14mm 12mm}"));
	assert_non_null(strstr(page, "figure,tr,.callout,pre{break-inside:avoid;page-break-inside:avoid}"));
	assert_non_null(strstr(page, "thead{display:table-header-group}"));
	assert_non_null(strstr(page, "body{background:none;"));
	free(page);
	cg_doc_free(d);
}

static int teardown(void **state)
{
	tu_cleanup();
	return 0;
}

static void links_are_anchors_with_escaped_texts(void **state)
{
	cg_doc *d = cg_doc_new("T");
	cg_doc_links(d, "Reports", 2, (const char *const[]){"rank 0", "<b>1</b>"},
		     (const char *const[]){"ranks/0/report.html", "ranks/1/report.html"});
	char *page = html(d, NULL);
	assert_non_null(strstr(page, "<p>Reports: <a href=\"ranks/0/report.html\">rank 0</a> \xc2\xb7 "
				     "<a href=\"ranks/1/report.html\">&lt;b&gt;1&lt;/b&gt;</a></p>\n"));
	free(page);
	cg_doc_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_page_is_complete_and_self_contained),
		cmocka_unit_test(each_block_has_its_element),
		cmocka_unit_test(figures_inline_their_svg_with_ids_of_their_own),
		cmocka_unit_test(a_png_is_inlined_when_there_is_no_svg),
		cmocka_unit_test(base64_pads_every_length),
		cmocka_unit_test(a_missing_figure_leaves_its_caption),
		cmocka_unit_test(hostile_text_is_escaped_everywhere),
		cmocka_unit_test(control_bytes_and_invalid_utf8_are_cleaned),
		cmocka_unit_test(a_figure_links_the_files_that_were_written),
		cmocka_unit_test(the_contents_list_h2s_with_their_h3s),
		cmocka_unit_test(tables_have_a_head_and_sentences_may_wrap),
		cmocka_unit_test(the_style_prints_whole_rows_and_scrolls_small_tables),
		cmocka_unit_test(links_are_anchors_with_escaped_texts),
		cmocka_unit_test(a_table_cut_for_paper_says_so),
	};
	return cmocka_run_group_tests(tests, NULL, teardown);
}
