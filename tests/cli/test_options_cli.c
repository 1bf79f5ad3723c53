/* The command line the GNU way, through the binary: the options before a
 * command, mistyped commands and options, clusters and prefixes. */
#include "runutil.h"

#include <string.h>

/* Runs cgmem with up to 8 words; checks the exit status and the whole of
 * stderr. */
static void expect(int status, const char *stderr_text, const char *const *words)
{
	char *out, *err;
	const char *w[9] = {0};
	for (int i = 0; i < 8 && words[i]; i++)
		w[i] = words[i];
	int rc = tu_run(&out, &err, NULL, w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], NULL);
	if (rc != status || strcmp(err, stderr_text) != 0)
		fail_msg("cgmem %s %s: exit %d (want %d), stderr:\n%s\nwant:\n%s", w[0], w[1] ? w[1] : "", rc, status,
			 err, stderr_text);
	free(out);
	free(err);
}

static void unknown_options_before_a_command_are_named(void **state)
{
	expect(2, "cgmem: unknown option --bogus\nTry 'cgmem --help'.\n", (const char *[]){"--bogus", NULL});
	expect(2, "cgmem: unknown option --bogus\nTry 'cgmem --help'.\n", (const char *[]){"--bogus=1", "report", NULL});
	expect(2, "cgmem: unknown option -x\nTry 'cgmem --help'.\n", (const char *[]){"-x", NULL});
	expect(2, "cgmem: unknown option --verison; did you mean '--version'?\nTry 'cgmem --help'.\n",
	       (const char *[]){"--verison", NULL});
	expect(2, "cgmem: option --version takes no value\nTry 'cgmem --help'.\n",
	       (const char *[]){"--version=2", NULL});
}

static void prefixes_of_the_top_options_are_read(void **state)
{
	char *out, *err;
	assert_int_equal(tu_run(&out, &err, NULL, "--vers", NULL), 0);
	assert_string_equal(out, "cgmem " CGMEM_VERSION "\n");
	free(out);
	free(err);
	assert_int_equal(tu_run(&out, &err, NULL, "--he", NULL), 0);
	assert_non_null(strstr(out, "usage: cgmem COMMAND"));
	free(out);
	free(err);
}

static void a_mistyped_command_gets_the_nearest_one(void **state)
{
	expect(2, "cgmem: 'reprot' is not a command; did you mean 'report'?\n", (const char *[]){"reprot", "x", NULL});
	expect(2, "cgmem: 'sumary' is not a command; did you mean 'summary'?\n", (const char *[]){"sumary", NULL});
	expect(2, "cgmem: 'chekc' is not a command; did you mean 'check'?\n", (const char *[]){"chekc", NULL});
	expect(2, "cgmem: 'hlep' is not a command; did you mean 'help'?\n", (const char *[]){"hlep", NULL});
	expect(2, "cgmem: 'frobnicate' is not a command; see 'cgmem --help'\n", (const char *[]){"frobnicate", NULL});
	expect(2, "cgmem: no command named 'dif'; did you mean 'diff'?\n", (const char *[]){"help", "dif", NULL});
}

static void a_mistyped_option_gets_the_nearest_one(void **state)
{
	expect(2, "cgmem report: unknown option --focre; did you mean '--force'?\nTry 'cgmem help report'.\n",
	       (const char *[]){"report", "a.jsonl", "--focre", NULL});
	expect(2, "cgmem summary: unknown option --jsno; did you mean '--json'?\nTry 'cgmem help summary'.\n",
	       (const char *[]){"summary", "a.jsonl", "--jsno", NULL});
	expect(2, "cgmem report: option --no is ambiguous (--no-trace, --no-html, --no-js, --no-infer)\nTry 'cgmem help report'.\n",
	       (const char *[]){"report", "a.jsonl", "--no", NULL});
	expect(2, "cgmem report: option --for is ambiguous (--force, --formats)\nTry 'cgmem help report'.\n",
	       (const char *[]){"report", "a.jsonl", "--for", NULL});
	expect(2, "cgmem check: option --max-l is ambiguous (--max-leaked, --max-line-bytes)\n"
		  "Try 'cgmem help check'.\n",
	       (const char *[]){"check", "a.jsonl", "--max-l", "1", NULL});
}

/* The same report folder from the long spelling and from the short one. */
static void clusters_and_prefixes_run_the_command(void **state)
{
	char *out, *err;
	const char *dir = tu_path("short");
	assert_int_equal(tu_run(&out, &err, NULL, "report", tu_sample("mlp_adam.jsonl"), "-qo", dir, "--no-t", "--thr=1",
				NULL),
			 0);
	assert_string_equal(out, ""); /* -q */
	free(out);
	free(err);
	/* -f in a cluster replaces it; --forc is --force */
	assert_int_equal(tu_run(&out, &err, NULL, "report", tu_sample("mlp_adam.jsonl"), "-qfo", dir, "--no-t", NULL), 0);
	free(out);
	free(err);
	assert_int_equal(tu_run(&out, &err, NULL, "report", tu_sample("mlp_adam.jsonl"), "--outp", dir, "--forc", "--q",
				"--no-tr", NULL),
			 0);
	free(out);
	free(err);
	char path[600];
	snprintf(path, sizeof path, "%s/summary.json", dir);
	assert_true(tu_exists(path));
	snprintf(path, sizeof path, "%s/trace.json.gz", dir);
	assert_false(tu_exists(path)); /* --no-tr is --no-trace */
	/* -qh shows the help */
	assert_int_equal(tu_run(&out, &err, NULL, "summary", "-qh", NULL), 0);
	assert_non_null(strstr(out, "usage: cgmem summary [options] FILE"));
	free(out);
	free(err);
	/* summary --js is --json */
	assert_int_equal(tu_run(&out, &err, NULL, "summary", tu_sample("mlp_adam.jsonl"), "--js", "-q", NULL), 0);
	assert_true(out[0] == '{');
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unknown_options_before_a_command_are_named),
		cmocka_unit_test(prefixes_of_the_top_options_are_read),
		cmocka_unit_test(a_mistyped_command_gets_the_nearest_one),
		cmocka_unit_test(a_mistyped_option_gets_the_nearest_one),
		cmocka_unit_test(clusters_and_prefixes_run_the_command),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
