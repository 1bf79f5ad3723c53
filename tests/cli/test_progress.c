/* The progress line (src/cli/progress.c): ingest's callback drawn on a
 * terminal, a few times a second at most, erased when reading ends. */
#include "testutil.h"

#include <string.h>
#include <time.h>

#include "progress.h"

static char *contents(FILE *f)
{
	static char text[4096];
	fflush(f);
	rewind(f);
	size_t n = fread(text, 1, sizeof text - 1, f);
	text[n] = '\0';
	return text;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000L};
	nanosleep(&ts, NULL);
}

static void a_silent_line_draws_nothing(void **state)
{
	cg_progress_line p;
	cg_progress_line_init(&p, NULL, "x.jsonl");
	sleep_ms(300);
	cg_progress_line_draw(&p, 10, 100, false);
	cg_progress_line_draw(&p, 100, 100, true);
	assert_false(p.shown);
}

static void the_line_is_drawn_after_a_quarter_second_and_erased_when_done(void **state)
{
	FILE *f = tmpfile();
	assert_non_null(f);
	cg_progress_line p;
	cg_progress_line_init(&p, f, "run.jsonl");
	cg_progress_line_draw(&p, 1 << 20, 4 << 20, false); /* at once: too soon */
	assert_string_equal(contents(f), "");
	sleep_ms(300);
	cg_progress_line_draw(&p, 1 << 20, 4 << 20, false);
	/* 1 MiB of 4 MiB is 25 % */
	assert_non_null(strstr(contents(f), "\r\033[Kreading run.jsonl: 1.0 of 4.0 MiB (25%), "));
	cg_progress_line_draw(&p, 2 << 20, 4 << 20, false); /* again at once: not redrawn */
	assert_null(strstr(contents(f), "2.0 of"));
	cg_progress_line_draw(&p, 4 << 20, 4 << 20, true);
	const char *text = contents(f);
	size_t n = strlen(text);
	assert_true(n >= 4);
	assert_string_equal(text + n - 4, "\r\033[K"); /* erased */
	assert_false(p.shown);
	fclose(f);
}

static void a_pipe_of_unknown_size_shows_bytes_only(void **state)
{
	FILE *f = tmpfile();
	cg_progress_line p;
	cg_progress_line_init(&p, f, "<stdin>");
	sleep_ms(300);
	cg_progress_line_draw(&p, 3 << 20, 0, false);
	assert_non_null(strstr(contents(f), "reading <stdin>: 3.0 MiB, "));
	assert_null(strstr(contents(f), "%"));
	fclose(f);
}
/* A file name is the user's, but it may hold what a terminal acts on. */
static void the_file_name_is_escaped_for_the_terminal(void **state)
{
	FILE *f = tmpfile();
	cg_progress_line p;
	cg_progress_line_init(&p, f, "a\033]0;owned\007\rb.jsonl");
	sleep_ms(300);
	cg_progress_line_draw(&p, 1 << 20, 0, false);
	assert_non_null(strstr(contents(f), "reading a\\x1b]0;owned\\x07\\rb.jsonl: 1.0 MiB, "));
	assert_null(strstr(contents(f), "owned\007"));
	fclose(f);
}

static void a_line_never_drawn_is_not_erased(void **state)
{
	FILE *f = tmpfile();
	cg_progress_line p;
	cg_progress_line_init(&p, f, "small.jsonl");
	cg_progress_line_draw(&p, 10, 10, true);
	assert_string_equal(contents(f), "");
	fclose(f);
}

/* After reading, each stage is drawn at once in place of the line before
 * (no quarter-second wait: there are only a few), and erased at the end. */
static void stages_after_reading_replace_the_line_and_are_erased(void **state)
{
	FILE *f = tmpfile();
	cg_progress_line p;
	cg_progress_line_init(&p, f, "run.jsonl");
	cg_progress_line_draw(&p, 10, 10, true); /* a small file: never drawn */
	cg_progress_line_stage(&p, "analysing run.jsonl");
	assert_string_equal(contents(f), "\r\033[Kanalysing run.jsonl...");
	assert_true(p.shown);
	cg_progress_line_stage(&p, "drawing the charts");
	assert_string_equal(contents(f), "\r\033[Kanalysing run.jsonl...\r\033[Kdrawing the charts...");
	cg_progress_line_end(&p);
	assert_string_equal(contents(f), "\r\033[Kanalysing run.jsonl...\r\033[Kdrawing the charts...\r\033[K");
	assert_false(p.shown);
	cg_progress_line_end(&p); /* nothing shown: nothing erased */
	assert_string_equal(contents(f), "\r\033[Kanalysing run.jsonl...\r\033[Kdrawing the charts...\r\033[K");
	fclose(f);
}

/* Off a terminal, or with --quiet, the display is silent: stages too. */
static void a_silent_line_shows_no_stage(void **state)
{
	cg_progress_line p;
	cg_progress_line_init(&p, NULL, "x.jsonl");
	cg_progress_line_stage(&p, "analysing x.jsonl");
	assert_false(p.shown);
	cg_progress_line_end(&p);
	assert_false(p.shown);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_silent_line_draws_nothing),
		cmocka_unit_test(the_line_is_drawn_after_a_quarter_second_and_erased_when_done),
		cmocka_unit_test(a_pipe_of_unknown_size_shows_bytes_only),
		cmocka_unit_test(the_file_name_is_escaped_for_the_terminal),
		cmocka_unit_test(a_line_never_drawn_is_not_erased),
		cmocka_unit_test(stages_after_reading_replace_the_line_and_are_erased),
		cmocka_unit_test(a_silent_line_shows_no_stage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
