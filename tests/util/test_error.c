/* Errors: cg_error_set fills what it is given and returns the code; exit
 * statuses are 0 for success, 2 for usage, 1 for everything else
 * (error.h). */
#include "testutil.h"

#include <string.h>

#include "error.h"

static void setting_an_error_returns_its_code_and_keeps_the_message(void **state)
{
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_error_set(&err, CG_EINPUT, "%s:%d: field \"%s\" must be a non-negative integer",
				      "run.jsonl", 18233, "bytes"),
			 CG_EINPUT);
	assert_int_equal(err.code, CG_EINPUT);
	assert_string_equal(err.msg, "run.jsonl:18233: field \"bytes\" must be a non-negative integer");
	/* a second error replaces the first */
	assert_int_equal(cg_error_set(&err, CG_EIO, "cannot read"), CG_EIO);
	assert_int_equal(err.code, CG_EIO);
	assert_string_equal(err.msg, "cannot read");
}

static void a_null_error_is_allowed_and_the_code_still_returned(void **state)
{
	assert_int_equal(cg_error_set(NULL, CG_ELIMIT, "limit %d", 3), CG_ELIMIT);
	assert_int_equal(cg_error_set(NULL, CG_OK, "fine"), CG_OK);
}

static void a_long_message_is_cut_inside_the_buffer(void **state)
{
	/* 3000 bytes into msg[1024]: 1020 kept, "…" (3 bytes) and a NUL; the
	 * bytes after the struct are untouched */
	struct {
		cg_error err;
		unsigned char guard[64];
	} s;
	memset(&s, 0x5a, sizeof s);
	char big[3001];
	for (int i = 0; i < 3000; i++)
		big[i] = (char)('a' + i % 26);
	big[3000] = '\0';
	assert_int_equal(cg_error_set(&s.err, CG_EINPUT, "%s", big), CG_EINPUT);
	assert_int_equal(strlen(s.err.msg), sizeof s.err.msg - 1);
	assert_memory_equal(s.err.msg, big, sizeof s.err.msg - 4);
	assert_string_equal(s.err.msg + sizeof s.err.msg - 4, "\xe2\x80\xa6");
	for (size_t i = 0; i < sizeof s.guard; i++)
		assert_int_equal(s.guard[i], 0x5a);
}

static void a_long_message_is_cut_at_a_character(void **state)
{
	/* 1019 'a', then "é" at bytes 1019..1020, which 1020 bytes would cut:
	 * 1019 kept and "…" */
	cg_error err = CG_ERROR_INIT;
	char big[1100];
	memset(big, 'a', 1019);
	strcpy(big + 1019, "\xc3\xa9tail");
	cg_error_set(&err, CG_EINPUT, "%s", big);
	assert_int_equal(strlen(err.msg), 1019 + 3);
	assert_memory_equal(err.msg, big, 1019);
	assert_string_equal(err.msg + 1019, "\xe2\x80\xa6");
}

static void every_code_has_its_exit_status(void **state)
{
	assert_int_equal(cg_error_exit_status(CG_OK), 0);
	assert_int_equal(cg_error_exit_status(CG_EINPUT), 1);
	assert_int_equal(cg_error_exit_status(CG_EIO), 1);
	assert_int_equal(cg_error_exit_status(CG_ELIMIT), 1);
	assert_int_equal(cg_error_exit_status(CG_EUSAGE), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(setting_an_error_returns_its_code_and_keeps_the_message),
		cmocka_unit_test(a_null_error_is_allowed_and_the_code_still_returned),
		cmocka_unit_test(a_long_message_is_cut_inside_the_buffer),
		cmocka_unit_test(a_long_message_is_cut_at_a_character),
		cmocka_unit_test(every_code_has_its_exit_status),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
