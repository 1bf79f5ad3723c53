/* cgmem summary at the terminal, through the binary: the verdict right
 * after the header on the cut sample; the width from the terminal
 * (TIOCGWINSZ on a pty), else COLUMNS, else 100 when piped, never fewer
 * than 80; the columns a format leaves empty left out of the lists; SGR
 * emphasis on a terminal only, not with NO_COLOR nor when piped, and
 * --color to choose; --brief. The render half is tests/render/
 * test_summary_text.c. */
#include "ptyrun.h"
#include "runutil.h"

#include <stdlib.h>
#include <string.h>

#define CUT SAMPLES_DIR "/mlp_adam_cut.jsonl"
#define FULL SAMPLES_DIR "/mlp_adam.jsonl"
#define SNAPSHOT SAMPLES_DIR "/snapshots/yiyi_oom_snapshot.pickle"
#define KINETO SAMPLES_DIR "/external/kineto_resnet50_num_workers_0.worker0.1623143089861.pt.trace.json.gz"

/* The peak of the cut sample, 16,190,672 B in its oracle
 * (mlp_adam_cut.oracle.json), emphasised bold; FAIL bold red. */
#define PEAK_BOLD "\x1b[1m15.44 MiB\x1b[0m (16,190,672 B)"
#define FAIL_RED "\x1b[1;31mFAIL\x1b[0m  "

typedef struct lines {
	char *all;
	char **line;
	size_t n;
} lines;

static lines split(char *text)
{
	lines l = {text, calloc(strlen(text) + 1, sizeof(char *)), 0};
	for (char *p = text; *p;) {
		char *nl = strchr(p, '\n');
		assert_non_null(nl);
		*nl = '\0';
		l.line[l.n++] = p;
		p = nl + 1;
	}
	return l;
}

static void lines_free(lines *l)
{
	free(l->line);
	free(l->all);
}

/* Columns of a line: UTF-8 characters, SGR escapes not counted. */
static size_t columns(const char *s)
{
	size_t n = 0;
	while (*s) {
		if (*s == '\x1b' && s[1] == '[') {
			s += 2;
			while (*s && *s != 'm')
				s++;
			if (*s)
				s++;
			continue;
		}
		n += ((unsigned char)*s & 0xc0) != 0x80;
		s++;
	}
	return n;
}

/* Whether some line holds needle. */
static bool has(const lines *l, const char *needle)
{
	for (size_t i = 0; i < l->n; i++)
		if (strstr(l->line[i], needle))
			return true;
	return false;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static size_t widest(const lines *l)
{
	size_t w = 0;
	for (size_t i = 0; i < l->n; i++)
		if (columns(l->line[i]) > w)
			w = columns(l->line[i]);
	return w;
}

static lines piped(const char *file, const char *opt)
{
	char *out;
	assert_int_equal(tu_run(&out, NULL, NULL, "summary", file, opt, (char *)NULL), 0);
	return split(out);
}

static lines on_pty(unsigned short cols, const char *file, const char *opt)
{
	int status;
	char *out = tu_run_pty(&status, cols, "summary", file, opt, (char *)NULL);
	assert_int_equal(status, 0);
	return split(out);
}

static void the_verdict_is_the_line_after_the_header(void **state)
{
	unsetenv("COLUMNS");
	lines l = piped(CUT, NULL);
	/* the header: the file, what was read, the metadata, the cut, the steps */
	assert_string_equal(l.line[0], CUT);
	assert_true(starts(l.line[1], "candle-graph/trace/6 JSONL \xc2\xb7 3,974 lines"));
	assert_string_equal(l.line[3], "trace ends mid-record at line 3974 (the recording process probably died)");
	assert_string_equal(l.line[4], "steps: 3 \xc3\x97 train_step#*");
	assert_string_equal(l.line[5], "FAIL  the run looks like it died: the trace was cut off mid-record at line 3,974; "
				       "cpu stopped at");
	assert_string_equal(l.line[6], "      0.228 s, 23.6 ms into forward of train_step#2");
	assert_string_equal(l.line[7], "");
	assert_string_equal(l.line[8], "cpu");
	lines_free(&l);
	/* the whole trace: ok, at the same place */
	l = piped(FULL, NULL);
	assert_string_equal(l.line[3], "steps: 4 \xc3\x97 train_step#*");
	assert_string_equal(l.line[4], "ok    the trace is complete and records no out-of-memory error");
	lines_free(&l);
}

static void piped_it_is_100_columns_and_columns_sets_it(void **state)
{
	unsetenv("COLUMNS");
	lines l = piped(CUT, NULL);
	assert_int_equal(widest(&l), 100);
	lines_free(&l);
	setenv("COLUMNS", "132", 1);
	l = piped(CUT, NULL);
	assert_int_equal(widest(&l), 132);
	lines_free(&l);
	/* never fewer than 80 */
	setenv("COLUMNS", "60", 1);
	l = piped(CUT, NULL);
	assert_int_equal(widest(&l), 80);
	lines_free(&l);
	/* not a number: as if unset */
	setenv("COLUMNS", "wide", 1);
	l = piped(CUT, NULL);
	assert_int_equal(widest(&l), 100);
	lines_free(&l);
	unsetenv("COLUMNS");
}

static void on_a_terminal_its_width_is_used(void **state)
{
	/* the terminal's width wins over COLUMNS */
	setenv("COLUMNS", "100", 1);
	lines l = on_pty(132, CUT, NULL);
	assert_int_equal(widest(&l), 132);
	lines_free(&l);
	l = on_pty(80, CUT, NULL);
	assert_int_equal(widest(&l), 80);
	lines_free(&l);
	l = on_pty(40, CUT, NULL);
	assert_int_equal(widest(&l), 80);
	lines_free(&l);
	unsetenv("COLUMNS");
}

static void fail_and_the_peak_are_emphasised_on_a_terminal_only(void **state)
{
	unsetenv("NO_COLOR");
	lines l = on_pty(100, CUT, NULL);
	assert_true(starts(l.line[5], FAIL_RED "the run looks like it died"));
	assert_true(has(&l, PEAK_BOLD));
	lines_free(&l);
	/* an empty NO_COLOR is unset (no-color.org) */
	setenv("NO_COLOR", "", 1);
	l = on_pty(100, CUT, NULL);
	assert_true(has(&l, FAIL_RED));
	lines_free(&l);
	/* NO_COLOR=1: no escape at all */
	setenv("NO_COLOR", "1", 1);
	l = on_pty(100, CUT, NULL);
	assert_false(has(&l, "\x1b"));
	assert_true(starts(l.line[5], "FAIL  the run"));
	lines_free(&l);
	/* --color=always beats NO_COLOR, and works piped */
	l = piped(CUT, "--color=always");
	assert_true(has(&l, FAIL_RED));
	assert_true(has(&l, PEAK_BOLD));
	lines_free(&l);
	unsetenv("NO_COLOR");
	/* piped, and --color=never on a terminal: none */
	l = piped(CUT, NULL);
	assert_false(has(&l, "\x1b"));
	lines_free(&l);
	l = on_pty(100, CUT, "--color=never");
	assert_false(has(&l, "\x1b"));
	lines_free(&l);
	/* a run that ended well has a peak in bold and no FAIL */
	l = on_pty(100, FULL, NULL);
	assert_true(has(&l, "\x1b[1m15.44 MiB\x1b[0m"));
	assert_false(has(&l, "FAIL"));
	lines_free(&l);
}

static void a_bad_color_or_brief_with_json_is_a_usage_error(void **state)
{
	char *out, *err;
	assert_int_equal(tu_run(&out, &err, NULL, "summary", CUT, "--color=pink", (char *)NULL), 2);
	assert_string_equal(out, "");
	assert_non_null(strstr(err, "cgmem summary: --color: 'pink' is not auto, always or never\n"));
	free(out);
	free(err);
	assert_int_equal(tu_run(&out, &err, NULL, "summary", CUT, "--brief", "--json", (char *)NULL), 2);
	assert_non_null(strstr(err, "cgmem summary: --brief is for the text; --json prints the whole summary.json\n"));
	free(out);
	free(err);
}

/* The rows of the list under the line starting with title: every other
 * line (the second of each entry is its span path), up to a blank line. */
static size_t list_rows(const lines *l, const char *title, const char **rows, size_t max)
{
	size_t i = 0, n = 0;
	while (i < l->n && strncmp(l->line[i], title, strlen(title)) != 0)
		i++;
	assert_true(i < l->n);
	for (i++; i < l->n && l->line[i][0] && n < max; i += 2)
		rows[n++] = l->line[i];
	return n;
}

static void columns_a_format_leaves_empty_are_left_out(void **state)
{
	unsetenv("COLUMNS");
	const char *rows[20];
	/* an allocator snapshot: no category, phase, op, shape nor dtype */
	lines l = piped(SNAPSHOT, NULL);
	size_t n = list_rows(&l, "  largest allocations live at the peak", rows, 20);
	assert_int_equal(n, 20);
	for (size_t i = 0; i < n; i++) {
		assert_null(strstr(rows[i], "unknown"));
		assert_null(strstr(rows[i], " none "));
		assert_null(strstr(rows[i], " ? "));
		assert_null(strstr(rows[i], "[]"));
	}
	assert_string_equal(rows[0], "     392.8 MiB  entry 0 \xe2\x86\x92 never");
	lines_free(&l);
	/* Kineto without "Addr": phases, no category, shape or dtype */
	char *out;
	assert_int_equal(tu_run(&out, NULL, NULL, "summary", KINETO, (char *)NULL), 0);
	l = split(out);
	/* the CPU's list: it comes after the GPU's (accelerators first) */
	size_t cpu = 0;
	while (cpu < l.n && strcmp(l.line[cpu], "cpu") != 0)
		cpu++;
	assert_true(cpu < l.n);
	lines tail = {NULL, l.line + cpu, l.n - cpu};
	n = list_rows(&tail, "  last allocations before the end", rows, 20);
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		assert_null(strstr(rows[i], "unknown"));
		assert_null(strstr(rows[i], "[]"));
		/* the phase is filled; the op is not here (the last records are
		 * inside Optimizer.step, a range, not an operator: issue 15), so
		 * its column is left out and the row goes from phase to time */
		assert_non_null(strstr(rows[i], " B  optimizer "));
	}
	lines_free(&l);
	/* JSONL records them all: every column is there */
	l = piped(FULL, NULL);
	n = list_rows(&l, "  largest allocations live at the peak", rows, 20);
	assert_int_equal(n, 20);
	const char *first = rows[0];
	assert_non_null(strstr(first, " parameter "));
	assert_non_null(strstr(first, " none "));
	assert_non_null(strstr(first, " aten::empty "));
	assert_non_null(strstr(first, " [512, 784] "));
	assert_non_null(strstr(first, " f32 "));
	lines_free(&l);
}

/* The first entry of the list under title: its row and its second line. */
static void first_entry(const lines *l, const char *title, const char **row, const char **second)
{
	size_t i = 0;
	while (i < l->n && !starts(l->line[i], title))
		i++;
	assert_true(i + 2 < l->n);
	*row = l->line[i + 1];
	*second = l->line[i + 2];
}

static void on_a_narrow_terminal_the_times_go_under_the_row(void **state)
{
	/* the first allocation live at the peak of the full sample: the
	 * model's first parameter, allocated in setup:model, never freed */
	const char *row, *second;
	unsetenv("COLUMNS");
	lines l = piped(FULL, NULL);
	first_entry(&l, "  largest allocations live at the peak", &row, &second);
	assert_non_null(strstr(row, " \xe2\x86\x92 never"));
	assert_string_equal(second, "                run:mlp_adam/setup:model/aten::empty");
	lines_free(&l);
	setenv("COLUMNS", "80", 1);
	l = piped(FULL, NULL);
	first_entry(&l, "  largest allocations live at the peak", &row, &second);
	assert_true(starts(row, "      1.53 MiB  parameter       none      aten::empty "));
	assert_null(strstr(row, "\xe2\x86\x92"));
	assert_true(starts(second, "                "));
	const char *arrow = strstr(second, " \xe2\x86\x92 never  run:mlp_adam/setup:model/aten::empty");
	assert_non_null(arrow);
	assert_string_equal(arrow + strlen(" \xe2\x86\x92 never  run:mlp_adam/setup:model/aten::empty"), "");
	lines_free(&l);
	unsetenv("COLUMNS");
}

static void brief_is_a_handful_of_lines(void **state)
{
	unsetenv("COLUMNS");
	lines l = piped(CUT, "--brief");
	/* header (5), verdict (2), blank, device, peak, 3 categories, count, 5 rows */
	assert_int_equal(l.n, 5 + 2 + 1 + 1 + 1 + 3 + 1 + 5);
	assert_true(starts(l.line[5], "FAIL  "));
	assert_string_equal(l.line[8], "cpu");
	assert_true(starts(l.line[9], "  peak                15.44 MiB (16,190,672 B) at "));
	assert_true(starts(l.line[10], "  filled by           optimizer_state "));
	assert_string_equal(l.line[13], "  largest then        5 of the 48 allocations live at the peak");
	lines_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_verdict_is_the_line_after_the_header),
		cmocka_unit_test(piped_it_is_100_columns_and_columns_sets_it),
		cmocka_unit_test(on_a_terminal_its_width_is_used),
		cmocka_unit_test(fail_and_the_peak_are_emphasised_on_a_terminal_only),
		cmocka_unit_test(a_bad_color_or_brief_with_json_is_a_usage_error),
		cmocka_unit_test(columns_a_format_leaves_empty_are_left_out),
		cmocka_unit_test(on_a_narrow_terminal_the_times_go_under_the_row),
		cmocka_unit_test(brief_is_a_handful_of_lines),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
