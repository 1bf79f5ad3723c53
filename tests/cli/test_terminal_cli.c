/* What reaches a terminal: names in a trace that hold terminal controls
 * (ESC[2J clears the screen, an OSC sequence sets the window title, "\r"
 * makes a FAIL line start with "ok" in a CI log, DEL, the C1 CSI U+009B and
 * bytes outside UTF-8) come out of summary, check, report and diff, and of
 * their diagnostics, as visible escapes and never as the bytes themselves.
 * Diagnostics quoting a value cut it at a character, with "…". */
#include "runutil.h"

#include <string.h>

#include "utf8.h"

/* The controls, as JSON escapes inside a JSONL string. */
#define CLEAR "\\u001b[2J"
#define TITLE "\\u001b]0;pwned\\u0007"
#define CR "\\r"
#define DEL "\\u007f"
#define CSI "\\u009b"
#define DEVICE "cuda:0" CLEAR CR CSI

#define MEM(t, id, b, action, op, cat)                                                             \
	"{\"kind\":\"memory\",\"timestamp_ns\":" #t ",\"tensor_id\":\"" id "\",\"span_id\":\"s2\","  \
	"\"op_name\":\"" op "\",\"device\":\"" DEVICE "\",\"bytes\":" #b ",\"action\":\"" action "\"," \
	"\"shape\":[4],\"dtype\":\"f32\",\"category\":\"" cat "\"}\n"

/* cuda:0 peaks at 4096 + 8192 B at t = 3 ns. Diagnostics quote the input:
 * line 5's category is unknown and line 8's kind (warnings), line 9's
 * action is neither alloc nor free (a bad line). */
static const char trace[] =
	"{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"run_id\":\"r" CLEAR "\",\"model\":\"m" TITLE
	"\",\"framework\":\"f" CSI "31m\",\"devices\":[\"" DEVICE "\"]}\n"
	"{\"kind\":\"span_start\",\"id\":\"s1\",\"name\":\"step" TITLE CR "\",\"start_ns\":0,\"span_kind\":\"function\"}\n"
	"{\"kind\":\"span_start\",\"id\":\"s2\",\"parent_id\":\"s1\",\"name\":\"aten::mm" DEL
	"\",\"start_ns\":1,\"span_kind\":\"op\"}\n"
	MEM(2, "t1", 4096, "alloc", "op" CLEAR CSI CR, "activation")
	MEM(3, "t2", 8192, "alloc", "op2" DEL "\\t", "act" CLEAR)
	"{\"kind\":\"span_end\",\"id\":\"s2\",\"duration_ns\":5}\n"
	MEM(7, "t1", 4096, "free", "op" CLEAR CSI CR, "activation")
	"{\"kind\":\"oops" CLEAR "\"}\n"
	MEM(8, "t2", 8192, "free" CR "alloc", "op", "activation")
	"{\"kind\":\"span_end\",\"id\":\"s1\",\"duration_ns\":9}\n";

/* A Kineto trace: raw bytes outside UTF-8 (0xFF, a lone 0x9B), raw ESC and
 * DEL in an op's name, which the Chrome reader takes as they are. */
static const char kineto[] =
	"{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"op\xff\x9b\x1b[2J\x7f\", \"ts\": 0, \"dur\": 100, "
	"\"pid\": 1, \"tid\": 1},"
	"{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":5,"
	"\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":5,\"Bytes\":100,\"Total Allocated\":100,"
	"\"Total Reserved\":4096}}]}";

/* Asserts text holds no byte a terminal acts on: nothing below 0x20 but
 * "\n", no DEL, no C1 control (U+0080..U+009F), and only valid UTF-8. */
static void assert_terminal_safe(const char *what, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t n = strlen(text), off = 0;
	for (size_t i = 0; i < n; i++) {
		if ((s[i] < 0x20 && s[i] != '\n') || s[i] == 0x7f)
			fail_msg("%s: byte 0x%02x at offset %zu", what, s[i], i);
		if (s[i] == 0xc2 && i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f)
			fail_msg("%s: C1 control U+00%02X at offset %zu", what, s[i + 1], i);
	}
	if (cg_utf8_check(text, n, &off) != CG_UTF8_OK)
		fail_msg("%s: not valid UTF-8 at offset %zu", what, off);
}

static void assert_has(const char *what, const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fail_msg("%s: no \"%s\" in:\n%s", what, needle, text);
}

/* The escaped form of the device name, and of each control. */
#define DEVICE_SHOWN "cuda:0\\x1b[2J\\r\\u009b"

static void summary_text_shows_controls_as_escapes(void **state)
{
	/* the file name holds ESC and 0xFF too: it heads the summary and
	 * every diagnostic */
	const char *path = tu_write("t\x1b[2J\xff.jsonl", trace, (size_t)-1);
	char *so, *se;
	int rc = tu_run(&so, &se, NULL, "summary", path, NULL);
	assert_int_equal(rc, 0);
	assert_terminal_safe("summary stdout", so);
	assert_terminal_safe("summary stderr", se);
	assert_has("summary", so, "t\\x1b[2J\\xff.jsonl\n");
	assert_has("summary", so, "\n" DEVICE_SHOWN "\n");
	assert_has("summary", so, "r\\x1b[2J \xc2\xb7 m\\x1b]0;pwned\\x07 \xc2\xb7 f\\u009b31m\n");
	assert_has("summary", so, "step\\x1b]0;pwned\\x07\\r/aten::mm\\x7f");
	assert_has("summary", so, "op2\\x7f\\t");
	/* the diagnostics: the bad line and the warning quote the input */
	assert_has("summary stderr", se, "t\\x1b[2J\\xff.jsonl:5: warning: unknown category \"act\\x1b[2J\" (read as unknown)\n");
	assert_has("summary stderr", se, "t\\x1b[2J\\xff.jsonl:8: warning: unknown record kind \"oops\\x1b[2J\" (skipped)\n");
	assert_has("summary stderr", se, "t\\x1b[2J\\xff.jsonl:9: field \"action\" is \"free\\ralloc\"; expected");
	free(so);
	free(se);
}

static void check_text_cannot_be_disguised(void **state)
{
	const char *path = tu_write("check.jsonl", trace, (size_t)-1);
	char *so, *se;
	int rc = tu_run(&so, &se, NULL, "check", path, "--max-peak", "1KiB", NULL);
	assert_int_equal(rc, 3);
	assert_terminal_safe("check stdout", so);
	assert_terminal_safe("check stderr", se);
	assert_string_equal(so, "FAIL  max-peak " DEVICE_SHOWN ": 12.00 KiB (12,288 B) > 1.00 KiB (1,024 B)\n");
	free(so);
	free(se);
	/* --device quotes the name given back in its error */
	rc = tu_run(&so, &se, NULL, "check", path, "--max-peak", "1KiB", "--device", "gpu\x1b[2J", NULL);
	assert_int_equal(rc, 2);
	assert_terminal_safe("check --device stderr", se);
	assert_has("check --device stderr", se, "gpu\\x1b[2J");
	free(so);
	free(se);
}

static void report_and_diff_lines_show_controls_as_escapes(void **state)
{
	const char *path = tu_write("report.jsonl", trace, (size_t)-1);
	char *p = strdup(path);
	char *so, *se;
	int rc = tu_run(&so, &se, NULL, "report", p, "-o", tu_path("out\x1b[2J"), NULL);
	assert_int_equal(rc, 0);
	assert_terminal_safe("report stdout", so);
	assert_terminal_safe("report stderr", se);
	assert_has("report", so, DEVICE_SHOWN ": peak 12.00 KiB (12,288 B) at 3 ns\n");
	assert_has("report", so, "out\\x1b[2J/ (report.html");
	free(so);
	free(se);
	rc = tu_run(&so, &se, NULL, "diff", p, p, "-o", tu_path("diff\x1b[2J"), NULL);
	assert_int_equal(rc, 0);
	assert_terminal_safe("diff stdout", so);
	assert_terminal_safe("diff stderr", se);
	assert_has("diff", so, DEVICE_SHOWN ": peak 12.00 KiB \xe2\x86\x92 12.00 KiB (0 B, +0.0 %)\n");
	assert_has("diff", so, "diff\\x1b[2J/\n");
	free(so);
	free(se);
	free(p);
}

static void bytes_outside_utf8_in_a_chrome_trace_are_shown_in_hex(void **state)
{
	const char *path = tu_write("kineto.json", kineto, (size_t)-1);
	char *so, *se;
	int rc = tu_run(&so, &se, NULL, "summary", path, NULL);
	assert_int_equal(rc, 0);
	assert_terminal_safe("kineto summary stdout", so);
	assert_terminal_safe("kineto summary stderr", se);
	assert_has("kineto summary", so, "op\\xff\\x9b\\x1b[2J\\x7f");
	free(so);
	free(se);
	rc = tu_run(&so, &se, NULL, "report", path, "-o", tu_path("kineto-out"), NULL);
	assert_int_equal(rc, 0);
	assert_terminal_safe("kineto report stdout", so);
	free(so);
	free(se);
}

static void an_excerpt_in_a_diagnostic_ends_at_a_character(void **state)
{
	/* "action" holds 39 'a', then "€" at bytes 39..41 of the value: an
	 * excerpt of 40 bytes would end inside it */
	char line[512], a39[40];
	memset(a39, 'a', 39);
	a39[39] = '\0';
	snprintf(line, sizeof line,
		 "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"devices\":[\"cpu\"]}\n"
		 "{\"kind\":\"span_start\",\"id\":\"s1\",\"name\":\"x\",\"start_ns\":0,\"span_kind\":\"function\"}\n"
		 "{\"kind\":\"memory\",\"timestamp_ns\":1,\"tensor_id\":\"a\",\"span_id\":\"s1\",\"device\":\"cpu\","
		 "\"bytes\":1,\"shape\":[],\"dtype\":\"f32\",\"category\":\"activation\",\"action\":\"%s\xe2\x82\xacxyz\"}\n",
		 a39);
	const char *path = tu_write("cut.jsonl", line, (size_t)-1);
	char want[256];
	snprintf(want, sizeof want, "field \"action\" is \"%s\xe2\x80\xa6\"; expected \"alloc\" or \"free\"", a39);
	char *so, *se;
	int rc = tu_run(&so, &se, NULL, "summary", path, NULL);
	assert_int_equal(rc, 0);
	char whole[300];
	snprintf(whole, sizeof whole, "%s:3: %s\n", path, want);
	assert_string_equal(se, whole);
	free(so);
	free(se);
	/* summary.json carries the same message, valid UTF-8 (no U+FFFD) */
	rc = tu_run(&so, &se, NULL, "summary", "--json", path, NULL);
	assert_int_equal(rc, 0);
	cJSON *j = cJSON_Parse(so);
	assert_non_null(j);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "source", "diagnostics", "0", "message", NULL)), want);
	cJSON_Delete(j);
	free(so);
	free(se);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(summary_text_shows_controls_as_escapes),
		cmocka_unit_test(check_text_cannot_be_disguised),
		cmocka_unit_test(report_and_diff_lines_show_controls_as_escapes),
		cmocka_unit_test(bytes_outside_utf8_in_a_chrome_trace_are_shown_in_hex),
		cmocka_unit_test(an_excerpt_in_a_diagnostic_ends_at_a_character),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
