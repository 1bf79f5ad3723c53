/* The progress line through the binary, with standard error on a
 * pseudo-terminal: after reading, it says what cgmem is doing (analysing,
 * summary.json, the charts, the report, the Chrome trace) instead of a
 * silent gap, and is erased before the figures are printed. */
#include "ptyrun.h"
#include "runutil.h"

#include <stdlib.h>
#include <string.h>

/* Runs cgmem with stderr on a new pty of 100 columns (stdout to the file
 * .pty-stdout): what the terminal received, the exit status in *status. */
static char *run_on_pty(int *status, const char *a1, const char *a2, const char *a3, const char *a4,
			const char *a5)
{
	const char *args[] = {a1, a2, a3, a4, a5, NULL};
	return tu_run_pty_fd(status, 2, 100, args);
}

static void a_report_says_each_stage_after_reading_and_erases_the_line(void **state)
{
	int status;
	const char *sample = tu_sample("mlp_adam.jsonl");
	char *tty = run_on_pty(&status, "report", sample, "-o", tu_path("out"), NULL);
	assert_int_equal(status, 0);
	char analysing[1024];
	snprintf(analysing, sizeof analysing, "\r\033[Kanalysing %s...", sample);
	const char *stages[] = {analysing,
				"\r\033[Kwriting summary.json...",
				"\r\033[Kdrawing the charts...",
				"\r\033[Kwriting report.md and report.html...",
				"\r\033[Kwriting the Chrome trace...",
				NULL};
	const char *at = tty;
	for (int i = 0; stages[i]; i++) {
		const char *found = strstr(at, stages[i]);
		if (!found)
			fail_msg("stage %d (%s) missing or out of order in: %s", i, stages[i] + 4, tty);
		at = found + strlen(stages[i]);
	}
	/* the last thing on the terminal erases the line */
	assert_string_equal(at, "\r\033[K");
	char *out = tu_read(tu_path(".pty-stdout"), NULL);
	assert_non_null(strstr(out, "report written to "));
	free(out);
	free(tty);
}

static void quiet_and_no_html_say_so(void **state)
{
	int status;
	const char *sample = tu_sample("mlp_adam.jsonl");
	char *tty = run_on_pty(&status, "report", sample, "-qo", tu_path("outq"), NULL);
	assert_int_equal(status, 0);
	assert_string_equal(tty, ""); /* --quiet: nothing at all */
	free(tty);
	tty = run_on_pty(&status, "report", sample, "-o", tu_path("outn"), "--no-html");
	assert_int_equal(status, 0);
	assert_non_null(strstr(tty, "\r\033[Kwriting report.md...\r\033[K"));
	free(tty);
}

/* summary: analysing, erased before the text goes out. */
static void summary_erases_the_line_before_printing(void **state)
{
	int status;
	const char *sample = tu_sample("mlp_adam.jsonl");
	char *tty = run_on_pty(&status, "summary", sample, NULL, NULL, NULL);
	assert_int_equal(status, 0);
	char want[1024];
	snprintf(want, sizeof want, "\r\033[Kanalysing %s...\r\033[K", sample);
	/* the reading line before it, if reading took long enough to draw it */
	size_t n = strlen(tty), w = strlen(want);
	if (n < w || strcmp(tty + n - w, want) != 0)
		fail_msg("the terminal got: %s", tty);
	free(tty);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_report_says_each_stage_after_reading_and_erases_the_line),
		cmocka_unit_test(quiet_and_no_html_say_so),
		cmocka_unit_test(summary_erases_the_line_before_printing),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
