/* The document model (doc.h): blocks kept in order with their text
 * formatted and copied, heading levels bounded, tables with their columns,
 * alignment and rows, figures with name and title, the files of a figure
 * found in a folder, and the headings' anchors. */
#include "testutil.h"

#include <string.h>

#include "doc.h"

static void a_new_document_has_its_title_and_no_blocks(void **state)
{
	char title[] = "Memory report \xe2\x80\x94 mlp";
	cg_doc *d = cg_doc_new(title);
	title[0] = 'X'; /* the document keeps its own copy */
	assert_string_equal(d->title, "Memory report \xe2\x80\x94 mlp");
	assert_int_equal(d->n, 0);
	cg_doc_free(d);
	cg_doc_free(NULL); /* a no-op */
}

static void blocks_keep_their_order_and_kind(void **state)
{
	cg_doc *d = cg_doc_new("t");
	cg_doc_heading(d, 2, "Key figures");
	cg_doc_paragraph(d, "p");
	cg_doc_note(d, "n");
	cg_doc_callout(d, "c");
	cg_doc_table(d, 1, "l");
	cg_doc_row(d, (const char *const[]){"h"});
	cg_doc_figure(d, "timeline.cpu", "Live memory");
	cg_doc_code(d, "code");
	static const cg_doc_kind kinds[] = {CG_DOC_HEADING, CG_DOC_PARAGRAPH, CG_DOC_NOTE,  CG_DOC_CALLOUT,
					    CG_DOC_TABLE,   CG_DOC_FIGURE,    CG_DOC_CODE};
	static const char *const texts[] = {"Key figures", "p", "n", "c", NULL, "Live memory", "code"};
	assert_int_equal(d->n, 7);
	for (size_t i = 0; i < 7; i++) {
		assert_int_equal(d->blocks[i].kind, kinds[i]);
		if (texts[i])
			assert_string_equal(d->blocks[i].text, texts[i]);
	}
	assert_string_equal(d->blocks[5].name, "timeline.cpu");
	cg_doc_free(d);
}

static void text_blocks_are_formatted(void **state)
{
	cg_doc *d = cg_doc_new("t");
	cg_doc_paragraph(d, "%s peaked at %d B (%.1f %%)", "cpu", 16190672, 39.5);
	cg_doc_note(d, "%s", "");
	cg_doc_callout(d, "%zu more", (size_t)3);
	cg_doc_heading(d, 3, "%s", "cuda:0");
	assert_string_equal(d->blocks[0].text, "cpu peaked at 16190672 B (39.5 %)");
	assert_string_equal(d->blocks[1].text, "");
	assert_string_equal(d->blocks[2].text, "3 more");
	assert_string_equal(d->blocks[3].text, "cuda:0");
	/* longer than any fixed buffer */
	char *big = malloc(20001);
	memset(big, 'z', 20000);
	big[20000] = '\0';
	cg_doc_paragraph(d, "<%s>", big);
	assert_int_equal(strlen(d->blocks[4].text), 20002);
	assert_int_equal(d->blocks[4].text[20001], '>');
	free(big);
	cg_doc_free(d);
}

/* Code is taken as it is: a '%' in it is no format. */
static void code_is_copied_verbatim(void **state)
{
	cg_doc *d = cg_doc_new("t");
	char text[] = "printf(\"%s %d\\n\");\n  indented";
	cg_doc_code(d, text);
	text[0] = 'X';
	assert_string_equal(d->blocks[0].text, "printf(\"%s %d\\n\");\n  indented");
	cg_doc_free(d);
}

static void heading_levels_are_kept_between_one_and_three(void **state)
{
	cg_doc *d = cg_doc_new("t");
	const int asked[] = {-5, 0, 1, 2, 3, 4, 99};
	const int kept[] = {1, 1, 1, 2, 3, 3, 3};
	for (size_t i = 0; i < 7; i++)
		cg_doc_heading(d, asked[i], "h%d", asked[i]);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(d->blocks[i].level, kept[i]);
	cg_doc_free(d);
}

/* A table's header is its first row; every row has ncols cells, copied. */
static void tables_hold_a_header_and_rows(void **state)
{
	cg_doc *d = cg_doc_new("t");
	cg_doc_table(d, 3, "lrr");
	cg_doc_row(d, (const char *const[]){"device", "peak", "time"});
	char cell[] = "cpu";
	cg_doc_row(d, (const char *const[]){cell, "15.44 MiB", "0.123 s"});
	cell[0] = 'X';
	cg_doc_row(d, (const char *const[]){"cuda:0", NULL, ""}); /* NULL: an empty cell */
	const cg_doc_block *b = &d->blocks[0];
	assert_int_equal(b->ncols, 3);
	assert_int_equal(b->nrows, 3);
	assert_string_equal(b->align, "lrr");
	static const char *const cells[] = {"device", "peak", "time", "cpu", "15.44 MiB", "0.123 s", "cuda:0", "", ""};
	for (size_t i = 0; i < 9; i++)
		assert_string_equal(b->cells[i], cells[i]);
	cg_doc_free(d);
}

/* Alignment letters: missing ones are 'l', extra ones are dropped. */
static void alignment_has_one_letter_per_column(void **state)
{
	cg_doc *d = cg_doc_new("t");
	cg_doc_table(d, 4, "rk");
	cg_doc_table(d, 2, "pkrr");
	cg_doc_table(d, 2, NULL);
	cg_doc_table(d, 0, "");
	assert_string_equal(d->blocks[0].align, "rkll");
	assert_string_equal(d->blocks[1].align, "pk");
	assert_string_equal(d->blocks[2].align, "ll");
	assert_string_equal(d->blocks[3].align, "");
	assert_int_equal(d->blocks[3].nrows, 0);
	cg_doc_free(d);
}

/* Rows go to the table just started, however many. */
static void a_table_grows_to_every_row(void **state)
{
	cg_doc *d = cg_doc_new("t");
	cg_doc_paragraph(d, "before");
	cg_doc_table(d, 2, "lr");
	char a[16], b[16];
	for (int i = 0; i < 1000; i++) {
		snprintf(a, sizeof a, "row %d", i);
		snprintf(b, sizeof b, "%d", i * i);
		cg_doc_row(d, (const char *const[]){a, b});
	}
	cg_doc_paragraph(d, "after");
	const cg_doc_block *t = &d->blocks[1];
	assert_int_equal(t->nrows, 1000);
	assert_string_equal(t->cells[2 * 999], "row 999");
	assert_string_equal(t->cells[2 * 999 + 1], "998001");
	assert_string_equal(t->cells[2 * 500], "row 500");
	assert_string_equal(d->blocks[2].text, "after");
	cg_doc_free(d);
}

/* The ids of d's headings, in order, joined by spaces. */
static void ids_of(const cg_doc *d, char *buf, size_t size)
{
	char **ids = cg_doc_heading_ids(d);
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < d->n; i++) {
		if (d->blocks[i].kind == CG_DOC_HEADING)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? " " : "", ids[i]);
		else
			assert_null(ids[i]);
	}
	cg_doc_ids_free(ids, d->n);
}

static void headings_get_ascii_slugs_of_their_text(void **state)
{
	cg_doc *d = cg_doc_new("t");
	cg_doc_heading(d, 2, "Key figures");
	cg_doc_paragraph(d, "not a heading");
	cg_doc_heading(d, 2, "cuda:0");
	cg_doc_heading(d, 3, "  What was live -- at the PEAK?  ");
	cg_doc_heading(d, 3, "Caf\xc3\xa9 na\xc3\xafve"); /* non-ASCII bytes separate words */
	cg_doc_heading(d, 3, "\xe2\x80\x94 ::: \xe2\x80\x94");  /* nothing left */
	cg_doc_heading(d, 3, "snake_case_name");            /* '_' is a separator: SVG ids hold it */
	cg_doc_heading(d, 2, "Contents");                   /* the table of contents' own id */
	char got[512];
	ids_of(d, got, sizeof got);
	assert_string_equal(got, "key-figures cuda-0 what-was-live-at-the-peak caf-na-ve section snake-case-name "
				 "contents-2");
	cg_doc_free(d);
}

static void repeated_headings_get_the_next_free_number(void **state)
{
	cg_doc *d = cg_doc_new("t");
	cg_doc_heading(d, 2, "cuda:0");
	cg_doc_heading(d, 3, "Steps");
	cg_doc_heading(d, 3, "Steps 2"); /* takes "steps-2"... */
	cg_doc_heading(d, 2, "cuda:1");
	cg_doc_heading(d, 3, "Steps");	 /* ...so the second "Steps" is "steps-3" */
	cg_doc_heading(d, 3, "Steps 2"); /* and a repeat of "steps-2" is "steps-2-2" */
	cg_doc_heading(d, 3, "Steps");
	char got[512];
	ids_of(d, got, sizeof got);
	assert_string_equal(got, "cuda-0 steps steps-2 cuda-1 steps-3 steps-2-2 steps-4");
	/* the same document, the same ids */
	char again[512];
	ids_of(d, again, sizeof again);
	assert_string_equal(again, got);
	cg_doc_free(d);
}

static void a_long_heading_gives_an_id_of_64_bytes_at_most(void **state)
{
	char text[300], want[70];
	for (size_t i = 0; i < 99; i++)
		memcpy(text + 3 * i, "Ab ", 3);
	text[297] = '\0';
	for (size_t i = 0; i < 22; i++)
		memcpy(want + 3 * i, "ab-", 3);
	want[64] = '\0'; /* 21 "ab-" and an "a" */
	cg_doc *d = cg_doc_new("t");
	cg_doc_heading(d, 2, "%s", text);
	cg_doc_heading(d, 2, "%s", text);
	char **ids = cg_doc_heading_ids(d);
	assert_string_equal(ids[0], want);
	assert_int_equal(strncmp(ids[1], want, 64), 0);
	assert_string_equal(ids[1] + 64, "-2");
	cg_doc_ids_free(ids, d->n);
	cg_doc_ids_free(NULL, 0);
	cg_doc_free(d);
}

static void the_files_of_a_figure_are_those_in_the_folder(void **state)
{
	cg_doc *d = cg_doc_new("t");
	assert_int_equal(cg_doc_figure_files(d, tu_tmpdir(), "chart"), 0);
	assert_int_equal(cg_doc_figure_files(d, NULL, "chart"), 0);
	tu_write("chart.svg", "<svg/>", (size_t)-1);
	assert_int_equal(cg_doc_figure_files(d, tu_tmpdir(), "chart"), CG_DOC_FILE_SVG);
	tu_write("chart.png", "png", (size_t)-1);
	tu_write("chart.pdf", "pdf", (size_t)-1);
	tu_write("other.png", "png", (size_t)-1);
	assert_int_equal(cg_doc_figure_files(d, tu_tmpdir(), "chart"), CG_DOC_FILE_PNG | CG_DOC_FILE_SVG | CG_DOC_FILE_PDF);
	assert_int_equal(cg_doc_figure_files(d, tu_tmpdir(), "other"), CG_DOC_FILE_PNG);
	assert_string_equal(cg_doc_file_ext(CG_DOC_FILE_PNG), "png");
	assert_string_equal(cg_doc_file_ext(CG_DOC_FILE_SVG), "svg");
	assert_string_equal(cg_doc_file_ext(CG_DOC_FILE_PDF), "pdf");
	/* HiDPI names: the PNG is chart@2x.png, the vector files keep their names */
	cg_doc_set_png_suffix(d, "@2x");
	assert_int_equal(cg_doc_figure_files(d, tu_tmpdir(), "chart"), CG_DOC_FILE_SVG | CG_DOC_FILE_PDF);
	tu_write("chart@2x.png", "png", (size_t)-1);
	assert_int_equal(cg_doc_figure_files(d, tu_tmpdir(), "chart"), CG_DOC_FILE_PNG | CG_DOC_FILE_SVG | CG_DOC_FILE_PDF);
	char *f = cg_doc_figure_file(d, "chart", CG_DOC_FILE_PNG);
	assert_string_equal(f, "chart@2x.png");
	free(f);
	f = cg_doc_figure_file(d, "chart", CG_DOC_FILE_SVG);
	assert_string_equal(f, "chart.svg");
	free(f);
	cg_doc_free(d);
}

static int teardown(void **state)
{
	tu_cleanup();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_new_document_has_its_title_and_no_blocks),
		cmocka_unit_test(blocks_keep_their_order_and_kind),
		cmocka_unit_test(text_blocks_are_formatted),
		cmocka_unit_test(code_is_copied_verbatim),
		cmocka_unit_test(heading_levels_are_kept_between_one_and_three),
		cmocka_unit_test(tables_hold_a_header_and_rows),
		cmocka_unit_test(alignment_has_one_letter_per_column),
		cmocka_unit_test(a_table_grows_to_every_row),
		cmocka_unit_test(headings_get_ascii_slugs_of_their_text),
		cmocka_unit_test(repeated_headings_get_the_next_free_number),
		cmocka_unit_test(a_long_heading_gives_an_id_of_64_bytes_at_most),
		cmocka_unit_test(the_files_of_a_figure_are_those_in_the_folder),
	};
	return cmocka_run_group_tests(tests, NULL, teardown);
}
