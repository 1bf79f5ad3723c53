/* The document model (doc.h): blocks kept in order with their text
 * formatted and copied, heading levels bounded, tables with their columns,
 * alignment and rows, figures with name and title. */
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
