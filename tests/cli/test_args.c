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
	{"trace-full", 0, NULL, "every record"},
	{"threads", 0, "N", "threads"},
	{"quiet", 'q', NULL, "errors only"},
	{"no-trace", 0, NULL, "no trace"},
	{"no-html", 0, NULL, "no HTML"},
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
		{{"-qo", NULL}, "option --output needs a value (DIR)"},
		{{"-qx", NULL}, "unknown option -x"},
		{{"-fq=", NULL}, "unknown option -="},
		{{"--out", NULL}, "option --output needs a value (DIR)"}, /* a prefix */
		{{"--qu=1", NULL}, "option --quiet takes no value"},
		{{"--t", "x", NULL}, "option --t is ambiguous (--top, --trace, --trace-full, --threads)"},
		{{"--no", NULL}, "option --no is ambiguous (--no-trace, --no-html)"},
		{{"--no-=1", NULL}, "option --no- is ambiguous (--no-trace, --no-html)"},
		{{"--=x", NULL}, "unknown option --"},
		{{"--focre", NULL}, "unknown option --focre; did you mean '--force'?"},
		{{"--ouput", "x", NULL}, "unknown option --ouput; did you mean '--output'?"},
		{{"--treads", "2", NULL}, "unknown option --treads; did you mean '--threads'?"},
		{{"--no-htm1", NULL}, "unknown option --no-htm1; did you mean '--no-html'?"},
		{{"--trice", NULL}, "unknown option --trice; did you mean '--trace'?"},
		{{"--forcex", NULL}, "unknown option --forcex; did you mean '--force'?"},
		{{"--tap", NULL}, "unknown option --tap; did you mean '--top'?"},
		{{"--no-trance", NULL}, "unknown option --no-trance; did you mean '--no-trace'?"},
		/* two as near: both named, in the table's order */
		{{"--trads", NULL}, "unknown option --trads; did you mean '--trace' or '--threads'?"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cg_args a;
		cg_error err = CG_ERROR_INIT;
		assert_int_equal(parse(&a, &err, cases[i].words), CG_EUSAGE);
		assert_string_equal(err.msg, cases[i].msg);
		cg_args_free(&a);
	}
}

/* -qf is -q -f; the first that takes a value takes the rest of the word,
 * or the next word when nothing is left. */
static void short_options_cluster(void **state)
{
	static const struct {
		const char *words[4];
		const char *output, *top;
		bool quiet, force;
		int noperands;
	} cases[] = {
		{{"-qf", NULL}, NULL, NULL, true, true, 0},
		{{"-fq", "in", NULL}, NULL, NULL, true, true, 1},
		{{"-qfo", "out", NULL}, "out", NULL, true, true, 0},
		{{"-qoout", NULL}, "out", NULL, true, false, 0},
		{{"-qn7", "-f", NULL}, NULL, "7", true, true, 0},
		{{"-on7", NULL}, "n7", NULL, false, false, 0}, /* n is the value of -o */
		{{"-fo", "-q", NULL}, "-q", NULL, false, true, 0}, /* the next word, dash or not */
		{{"-n", "-5", "-qq", NULL}, NULL, "-5", true, false, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cg_args a;
		cg_error err = CG_ERROR_INIT;
		if (parse(&a, &err, cases[i].words) != 0)
			fail_msg("case %zu: %s", i, err.msg);
		const char *o = cg_args_get(&cmd, &a, "output"), *n = cg_args_get(&cmd, &a, "top");
		assert_true(cases[i].output ? o && strcmp(o, cases[i].output) == 0 : o == NULL);
		assert_true(cases[i].top ? n && strcmp(n, cases[i].top) == 0 : n == NULL);
		assert_int_equal(cg_args_flag(&cmd, &a, "quiet"), cases[i].quiet);
		assert_int_equal(cg_args_flag(&cmd, &a, "force"), cases[i].force);
		assert_int_equal(a.noperands, cases[i].noperands);
		assert_false(a.help);
		cg_args_free(&a);
	}
}

/* A prefix names the one option it begins; an exact name wins over the
 * longer ones it begins (--trace is not --trace-full). */
static void unambiguous_prefixes_name_their_option(void **state)
{
	static const struct {
		const char *words[3];
		const char *option, *value;
	} cases[] = {
		{{"--thr", "2", NULL}, "threads", "2"},
		{{"--thr=2", NULL}, "threads", "2"},
		{{"--th", "4", NULL}, "threads", "4"},
		{{"--o=out", NULL}, "output", "out"},
		{{"--outp", "out", NULL}, "output", "out"},
		{{"--fo", NULL}, "force", ""},
		{{"--q", NULL}, "quiet", ""},
		{{"--to", "3", NULL}, "top", "3"},
		{{"--tr", "t.json", NULL}, NULL, NULL}, /* ambiguous: trace, trace-full */
		{{"--trace", "t.json", NULL}, "trace", "t.json"},
		{{"--trace-", NULL}, "trace-full", ""},
		{{"--no-h", NULL}, "no-html", ""},
		{{"--no-t", NULL}, "no-trace", ""},
		{{"--thr=", NULL}, "threads", ""}, /* an empty value, for the command to judge */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cg_args a;
		cg_error err = CG_ERROR_INIT;
		int rc = parse(&a, &err, cases[i].words);
		if (!cases[i].option) {
			assert_int_equal(rc, CG_EUSAGE);
			assert_string_equal(err.msg, "option --tr is ambiguous (--trace, --trace-full)");
		} else {
			if (rc != 0)
				fail_msg("case %zu: %s", i, err.msg);
			const char *v = cg_args_get(&cmd, &a, cases[i].option);
			if (!v || strcmp(v, cases[i].value) != 0)
				fail_msg("case %zu: --%s is %s", i, cases[i].option, v ? v : "(not given)");
			/* the code asks by the exact name only */
			assert_null(cg_args_get(&cmd, &a, "thr"));
		}
		cg_args_free(&a);
	}
}

/* -h and --help are every command's: alone, in a cluster, as a prefix. */
static void help_is_an_option_of_every_command(void **state)
{
	const char *const words[][3] = {{"-h", NULL}, {"--help", NULL}, {"-qh", NULL}, {"--he", NULL}, {"--h", NULL}};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		cg_args a;
		cg_error err = CG_ERROR_INIT;
		if (parse(&a, &err, words[i]) != 0)
			fail_msg("%s: %s", words[i][0], err.msg);
		assert_true(a.help);
		cg_args_free(&a);
	}
	cg_args a;
	cg_error err = CG_ERROR_INIT;
	const char *words2[] = {"--help=1", NULL};
	assert_int_equal(parse(&a, &err, words2), CG_EUSAGE);
	assert_string_equal(err.msg, "option --help takes no value");
	cg_args_free(&a);
}

/* Suggestions: within two edits, a swap of neighbours one edit. */
static void suggestions_are_the_nearest_names_within_two_edits(void **state)
{
	const char *const names[] = {"report", "summary", "diff", "check", "help"};
	static const struct {
		const char *word, *hint;
	} cases[] = {
		{"reprot", "; did you mean 'report'?"},	 /* a swap */
		{"rport", "; did you mean 'report'?"},	 /* a deletion */
		{"reportt", "; did you mean 'report'?"}, /* an insertion */
		{"rxpxrt", "; did you mean 'report'?"},	 /* two replacements */
		{"rxpxxt", ""},				 /* three */
		{"summry", "; did you mean 'summary'?"},
		{"dif", "; did you mean 'diff'?"},
		{"chek", "; did you mean 'check'?"},
		{"hepl", "; did you mean 'help'?"},
		{"frobnicate", ""},
		{"", ""},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char buf[128];
		cg_args_suggest(buf, sizeof buf, cases[i].word, strlen(cases[i].word), names, 5, "");
		if (strcmp(buf, cases[i].hint) != 0)
			fail_msg("'%s': got \"%s\", want \"%s\"", cases[i].word, buf, cases[i].hint);
	}
	/* a word longer than any name is not compared (it cannot be near) */
	char buf[16], longword[200];
	memset(longword, 'r', sizeof longword);
	cg_args_suggest(buf, sizeof buf, longword, sizeof longword, names, 5, "");
	assert_string_equal(buf, "");
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
		cmocka_unit_test(short_options_cluster),
		cmocka_unit_test(unambiguous_prefixes_name_their_option),
		cmocka_unit_test(help_is_an_option_of_every_command),
		cmocka_unit_test(suggestions_are_the_nearest_names_within_two_edits),
		cmocka_unit_test(help_lists_every_option_of_the_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
