/* Diagnostics: every one is counted by kind; the first CG_MAX_DIAGS keep
 * their text, line and kind, in the order found. */
#include "testutil.h"

#include <string.h>

#include "diag.h"

static void each_kind_is_counted_and_kept_with_its_line(void **state)
{
	cg_timeline *tl = cg_timeline_new(NULL);
	cg_diag_add(tl, CG_DIAG_BAD_LINE, 18233, "field \"%s\" must be a non-negative integer", "bytes");
	cg_diag_add(tl, CG_DIAG_WARNING, 0, "%d records without a span", 12);
	cg_diag_add(tl, CG_DIAG_BAD_LINE, 7, "not JSON");
	const cg_source *s = &tl->source;
	assert_int_equal(s->bad_lines, 2);
	assert_int_equal(s->warnings, 1);
	assert_int_equal(s->ndiags, 3);
	assert_int_equal(s->diags[0].line, 18233);
	assert_int_equal(s->diags[0].kind, CG_DIAG_BAD_LINE);
	assert_string_equal(s->diags[0].msg, "field \"bytes\" must be a non-negative integer");
	assert_int_equal(s->diags[1].line, 0); /* about the whole file */
	assert_int_equal(s->diags[1].kind, CG_DIAG_WARNING);
	assert_string_equal(s->diags[1].msg, "12 records without a span");
	assert_string_equal(s->diags[2].msg, "not JSON");
	cg_timeline_free(tl);
}

static void past_the_limit_diagnostics_are_counted_without_text(void **state)
{
	/* 250 diagnostics, even ones bad lines: 125 of each kind; 200 kept */
	cg_timeline *tl = cg_timeline_new(NULL);
	for (int i = 0; i < 250; i++)
		cg_diag_add(tl, i % 2 ? CG_DIAG_WARNING : CG_DIAG_BAD_LINE, (uint64_t)i + 1, "#%d", i);
	const cg_source *s = &tl->source;
	assert_int_equal(s->bad_lines, 125);
	assert_int_equal(s->warnings, 125);
	assert_int_equal(s->ndiags, CG_MAX_DIAGS);
	assert_string_equal(s->diags[0].msg, "#0");
	assert_string_equal(s->diags[CG_MAX_DIAGS - 1].msg, "#199");
	assert_int_equal(s->diags[CG_MAX_DIAGS - 1].line, 200);
	assert_int_equal(s->diags[CG_MAX_DIAGS - 1].kind, CG_DIAG_WARNING);
	cg_timeline_free(tl);
}

static void a_huge_message_is_cut_to_1023_bytes(void **state)
{
	/* a trace's own text can end up in a message: 5000 bytes of it */
	cg_timeline *tl = cg_timeline_new(NULL);
	char *big = malloc(5001);
	memset(big, 'z', 5000);
	big[5000] = '\0';
	cg_diag_add(tl, CG_DIAG_BAD_LINE, 3, "unknown kind \"%s\"", big);
	const char *m = tl->source.diags[0].msg;
	assert_int_equal(strlen(m), 1023);
	assert_int_equal(strncmp(m, "unknown kind \"zzz", 17), 0);
	free(big);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_kind_is_counted_and_kept_with_its_line),
		cmocka_unit_test(past_the_limit_diagnostics_are_counted_without_text),
		cmocka_unit_test(a_huge_message_is_cut_to_1023_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
