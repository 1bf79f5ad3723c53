/* The Markdown backend (doc_markdown.h): what each block becomes in
 * GitHub-flavoured Markdown, the contents line and the anchors it links,
 * and text that cannot break out of its table cell, emphasis, call-out,
 * link or code block. */
#include "testutil.h"

#include <string.h>

#include "doc.h"
#include "doc_markdown.h"
#include "sink.h"

/* The Markdown of d, freed by the caller. */
static char *markdown(const cg_doc *d)
{
	cg_sink *s = cg_sink_memory();
	cg_doc_write_markdown(d, s);
	char *md = strdup(cg_sink_data(s, NULL));
	cg_sink_close(s, NULL);
	return md;
}

static void each_block_has_its_markdown(void **state)
{
	cg_doc *d = cg_doc_new("Memory report");
	cg_doc_heading(d, 1, "One");
	cg_doc_heading(d, 2, "Two");
	cg_doc_heading(d, 3, "Three");
	cg_doc_paragraph(d, "A paragraph.");
	cg_doc_note(d, "A note.");
	cg_doc_callout(d, "Read this first.");
	cg_doc_figure(d, "timeline.cpu", "Live memory over time");
	cg_doc_code(d, "line 1\nline 2");
	char *md = markdown(d);
	/* the title is the one level-1 heading; level 1 and 2 blocks are ## */
	assert_string_equal(md, "# Memory report\n\n"
				"Contents: [One](#one) \xc2\xb7 [Two](#two)\n\n"
				"## One <a id=\"one\"></a>\n\n"
				"## Two <a id=\"two\"></a>\n\n"
				"### Three\n\n"
				"A paragraph.\n\n"
				"*A note.*\n\n"
				"> **Read this first.**\n\n"
				"![Live memory over time](timeline.cpu.png)\n\n"
				"    line 1\n    line 2\n\n");
	free(md);
	cg_doc_free(d);
}

/* A header row, the delimiter row (right-aligned columns "---:"), then the
 * rows, and a blank line to end the table. */
static void tables_have_a_header_and_a_delimiter_row(void **state)
{
	cg_doc *d = cg_doc_new("t");
	cg_doc_table(d, 4, "lrkp");
	cg_doc_row(d, (const char *const[]){"device", "peak", "key", "path"});
	cg_doc_row(d, (const char *const[]){"cpu", "15.44 MiB", "k", "run/fwd"});
	cg_doc_row(d, (const char *const[]){"", "0 B", "", ""});
	cg_doc_paragraph(d, "after");
	char *md = markdown(d);
	assert_non_null(strstr(md, "\n\n| device | peak | key | path |\n"
				   "|---|---:|---|---|\n"
				   "| cpu | 15.44 MiB | k | run/fwd |\n"
				   "|  | 0 B |  |  |\n"
				   "\nafter\n\n"));
	free(md);
	cg_doc_free(d);
}

/* Moved from tests/render/test_report.c: a cell cannot end its cell or its
 * row, and code cannot close its block. */
static void markdown_code_and_tables_cannot_be_broken_out_of(void **state)
{
	cg_doc *d = cg_doc_new("t");
	cg_doc_table(d, 2, "lr");
	cg_doc_row(d, (const char *const[]){"a|b", "`x`"});
	cg_doc_row(d, (const char *const[]){"line\nbreak", "*"});
	cg_doc_code(d, "```\nnot a fence");
	cg_sink *s = cg_sink_memory();
	cg_doc_write_markdown(d, s);
	const char *md = cg_sink_data(s, NULL);
	assert_non_null(strstr(md, "| a\\|b | \\`x\\` |\n|---|---:|\n| line break | \\* |\n"));
	assert_non_null(strstr(md, "    ```\n    not a fence\n"));
	cg_sink_close(s, NULL);
	cg_doc_free(d);
}

/* A cell holding a whole fake row, delimiter included, stays one cell. */
static void a_cell_cannot_add_rows(void **state)
{
	cg_doc *d = cg_doc_new("t");
	cg_doc_table(d, 1, "l");
	cg_doc_row(d, (const char *const[]){"h"});
	cg_doc_row(d, (const char *const[]){"x |\n|---|\n| injected"});
	char *md = markdown(d);
	assert_non_null(strstr(md, "| h |\n|---|\n| x \\| \\|---\\| \\| injected |\n\n"));
	/* three table lines: header, delimiter, one row */
	size_t lines = 0;
	for (const char *p = md; *p; p++)
		lines += *p == '|' && (p == md || p[-1] == '\n');
	assert_int_equal(lines, 3);
	free(md);
	cg_doc_free(d);
}

/* Emphasis and call-outs are closed by cgmem, not by the text. */
static void notes_and_callouts_cannot_close_their_emphasis(void **state)
{
	cg_doc *d = cg_doc_new("t");
	cg_doc_note(d, "a* b **c** _d_");
	cg_doc_callout(d, "x**\n\n# injected heading");
	char *md = markdown(d);
	assert_non_null(strstr(md, "\n*a\\* b \\*\\*c\\*\\* \\_d\\_*\n\n"));
	assert_non_null(strstr(md, "\n> **x\\*\\*  # injected heading**\n\n"));
	assert_null(strstr(md, "\n# injected"));
	free(md);
	cg_doc_free(d);
}

/* HTML in any text is shown as text (GitHub renders some raw HTML). */
static void html_in_text_is_escaped(void **state)
{
	cg_doc *d = cg_doc_new("<script>alert(1)</script>");
	cg_doc_paragraph(d, "<!-- hide the rest");
	cg_doc_table(d, 1, "l");
	cg_doc_row(d, (const char *const[]){"<img src=x onerror=alert(2)>"});
	cg_doc_figure(d, "chart", "<b>title</b>](javascript:alert(3))");
	char *md = markdown(d);
	assert_null(strstr(md, "<script"));
	assert_null(strstr(md, "<!--"));
	assert_null(strstr(md, "<img"));
	assert_null(strstr(md, "<b>"));
	assert_non_null(strstr(md, "# &lt;script&gt;alert(1)&lt;/script&gt;\n"));
	assert_non_null(strstr(md, "&lt;!-- hide the rest"));
	/* the figure's title cannot close its brackets and link elsewhere */
	assert_non_null(strstr(md, "![&lt;b&gt;title&lt;/b&gt;\\](javascript:alert(3))](chart.png)"));
	free(md);
	cg_doc_free(d);
}

/* Indented code: every line of the text is indented, so nothing in it
 * (a fence, a heading, a table row, HTML) is Markdown. */
static void every_line_of_code_is_indented(void **state)
{
	cg_doc *d = cg_doc_new("t");
	cg_doc_code(d, "# not a heading\n| not | a table |\n<script>x</script>\n\n~~~\nlast");
	cg_doc_paragraph(d, "after");
	char *md = markdown(d);
	assert_non_null(strstr(md, "\n\n    # not a heading\n"
				   "    | not | a table |\n"
				   "    <script>x</script>\n"
				   "    \n"
				   "    ~~~\n"
				   "    last\n\n"
				   "after\n\n"));
	free(md);
	cg_doc_free(d);
}

/* The contents: one line of links to the h2s (h3s left out), before the
 * first heading and after what comes before it; each h2 carries the
 * anchor the line links, the same ids as report.html's. Hostile heading
 * text stays text in the link and the heading. */
static void the_contents_link_each_h2_by_its_own_anchor(void **state)
{
	cg_doc *d = cg_doc_new("t");
	cg_doc_callout(d, "First.");
	cg_doc_heading(d, 2, "cuda:0");
	cg_doc_heading(d, 3, "Steps");
	cg_doc_heading(d, 2, "cuda:0");
	cg_doc_heading(d, 2, "<b>x</b>](javascript:y)");
	char *md = markdown(d);
	assert_string_equal(md, "# t\n\n"
				"> **First.**\n\n"
				"Contents: [cuda:0](#cuda-0) \xc2\xb7 [cuda:0](#cuda-0-2) \xc2\xb7 "
				"[&lt;b&gt;x&lt;/b&gt;\\](javascript:y)](#b-x-b-javascript-y)\n\n"
				"## cuda:0 <a id=\"cuda-0\"></a>\n\n"
				"### Steps\n\n"
				"## cuda:0 <a id=\"cuda-0-2\"></a>\n\n"
				"## &lt;b&gt;x&lt;/b&gt;\\](javascript:y) <a id=\"b-x-b-javascript-y\"></a>\n\n");
	free(md);
	cg_doc_free(d);
}

static void an_empty_document_is_its_title(void **state)
{
	cg_doc *d = cg_doc_new("");
	char *md = markdown(d);
	assert_string_equal(md, "# \n\n");
	free(md);
	cg_doc_free(d);
}

static void links_are_a_line_of_markdown_links_with_escaped_texts(void **state)
{
	cg_doc *d = cg_doc_new("T");
	cg_doc_links(d, "Each rank's report", 2, (const char *const[]){"rank 0", "rank *1*"},
		     (const char *const[]){"ranks/0/report.html", "ranks/1/report.html"});
	char *md = markdown(d);
	assert_non_null(strstr(md, "Each rank's report: [rank 0](ranks/0/report.html) \xc2\xb7 "
				   "[rank \\*1\\*](ranks/1/report.html)\n\n"));
	free(md);
	cg_doc_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_block_has_its_markdown),
		cmocka_unit_test(tables_have_a_header_and_a_delimiter_row),
		cmocka_unit_test(markdown_code_and_tables_cannot_be_broken_out_of),
		cmocka_unit_test(a_cell_cannot_add_rows),
		cmocka_unit_test(notes_and_callouts_cannot_close_their_emphasis),
		cmocka_unit_test(html_in_text_is_escaped),
		cmocka_unit_test(every_line_of_code_is_indented),
		cmocka_unit_test(an_empty_document_is_its_title),
		cmocka_unit_test(the_contents_link_each_h2_by_its_own_anchor),
		cmocka_unit_test(links_are_a_line_of_markdown_links_with_escaped_texts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
