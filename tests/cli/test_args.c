/* The option parser of the command line (src/cli/args.c), in process: one
 * table drives parsing and the help text. */
#include "testutil.h"

#include <string.h>

#include "args.h"

static const cg_opt opts[] = {
	{"output", 'o', "DIR", "write into DIR"},
	{"force", 'f', NULL, "replace DIR"},
	{"top", 'n', "N", "list N"},
	{"trace", 0, "NAME", "name of the trace"},
	CG_OPT_END,
};

static int run_nothing(const cg_command *cmd, const cg_args *args)
{
	return 0;
}

static const cg_command cmd = {"demo", "FILE", "a command for the tests", "Details here.\n", opts, run_nothing};

/* Parses the NULL-terminated words; returns the code, args filled. */
static int parse(cg_args *args, cg_error *err, const char *const *words)
{
	int argc = 0;
	char *argv[16];
	while (words[argc]) {
		argv[argc] = (char *)words[argc];
		argc++;
	}
	return cg_args_parse(&cmd, argc, argv, args, err);
}

static void long_short_and_inline_values_are_read(void **state)
{
	cg_args a;
	cg_error err = CG_ERROR_INIT;
	const char *words[] = {"in.jsonl", "-o", "out", "--top=5", "-f", "--trace", "t.json", "-n7", NULL};
	assert_int_equal(parse(&a, &err, words), 0);
	assert_string_equal(cg_args_get(&cmd, &a, "output"), "out");
	assert_string_equal(cg_args_get(&cmd, &a, "top"), "7"); /* the last one given */
	assert_string_equal(cg_args_get(&cmd, &a, "trace"), "t.json");
	assert_true(cg_args_flag(&cmd, &a, "force"));
	assert_null(cg_args_get(&cmd, &a, "no-such-option"));
	assert_int_equal(a.noperands, 1);
	assert_string_equal(a.operands[0], "in.jsonl");
	cg_args_free(&a);
}

static void a_dash_is_an_operand_and_a_double_dash_ends_the_options(void **state)
{
	cg_args a;
	cg_error err = CG_ERROR_INIT;
	const char *words[] = {"-", "--", "--force", "-o", NULL};
	assert_int_equal(parse(&a, &err, words), 0);
	assert_int_equal(a.noperands, 3);
	assert_string_equal(a.operands[0], "-");
	assert_string_equal(a.operands[1], "--force");
	assert_string_equal(a.operands[2], "-o");
	assert_false(cg_args_flag(&cmd, &a, "force"));
	cg_args_free(&a);
}

static void wrong_options_are_usage_errors_that_name_them(void **state)
{
	static const struct {
		const char *words[4];
		const char *msg;
	} cases[] = {
		{{"--bogus", NULL}, "unknown option --bogus"},
		{{"--bogus=1", NULL}, "unknown option --bogus"},
		{{"-x", NULL}, "unknown option -x"},
		{{"--force=yes", NULL}, "option --force takes no value"},
		{{"--output", NULL}, "option --output needs a value (DIR)"},
		{{"-o", NULL}, "option --output needs a value (DIR)"},
		{{"--out", "x", NULL}, "unknown option --out"}, /* no prefix matching */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cg_args a;
		cg_error err = CG_ERROR_INIT;
		assert_int_equal(parse(&a, &err, cases[i].words), CG_EUSAGE);
		assert_string_equal(err.msg, cases[i].msg);
		cg_args_free(&a);
	}
}

static void help_lists_every_option_of_the_table(void **state)
{
	FILE *f = tmpfile();
	assert_non_null(f);
	cg_command_help(&cmd, f);
	rewind(f);
	char text[4096];
	size_t n = fread(text, 1, sizeof text - 1, f);
	text[n] = '\0';
	fclose(f);
	assert_non_null(strstr(text, "usage: cgmem demo [options] FILE\n\na command for the tests\n"));
	assert_non_null(strstr(text, "  -o, --output DIR"));
	assert_non_null(strstr(text, "  -f, --force "));
	assert_non_null(strstr(text, "      --trace NAME"));
	assert_non_null(strstr(text, "\nDetails here.\n"));
	/* only check has exit status 3 */
	assert_non_null(strstr(text, "2 wrong usage.\n"));
	assert_null(strstr(text, "3 a limit"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(long_short_and_inline_values_are_read),
		cmocka_unit_test(a_dash_is_an_operand_and_a_double_dash_ends_the_options),
		cmocka_unit_test(wrong_options_are_usage_errors_that_name_them),
		cmocka_unit_test(help_lists_every_option_of_the_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
