/* Escaping (escape.h) with hostile strings: whatever a trace holds, JSON
 * stays valid JSON holding the same text, HTML shows it as text, Markdown
 * cannot be broken out of, a GitHub workflow command's property or message
 * cannot be ended early, a CSV field stays one field and never a formula,
 * a folded frame stays one frame on its line. Invalid UTF-8 becomes U+FFFD, one for each bad
 * byte; valid multi-byte characters are kept as they are. */
#include "testutil.h"

#include <string.h>

#include "escape.h"

#define FFFD "\xef\xbf\xbd"

typedef void (*escaper)(cg_sink *, const char *, size_t);

/* What an escaper writes for the n bytes at s (n -1: strlen), as a
 * string the caller frees. */
static char *escaped(escaper fn, const char *s, size_t n)
{
	cg_sink *out = cg_sink_memory();
	fn(out, s, n == (size_t)-1 ? strlen(s) : n);
	size_t len;
	const char *d = cg_sink_data(out, &len);
	char *copy = malloc(len + 1);
	memcpy(copy, d, len + 1);
	cg_sink_close(out, NULL);
	return copy;
}

static void expect(escaper fn, const char *in, size_t n, const char *out)
{
	char *got = escaped(fn, in, n);
	assert_string_equal(got, out);
	free(got);
}

#define JSON(in, out) expect(cg_escape_json, in, sizeof in - 1, out)
#define HTML(in, out) expect(cg_escape_html, in, sizeof in - 1, out)
#define MD(in, out) expect(cg_escape_markdown, in, sizeof in - 1, out)

/* --- JSON (RFC 8259, section 7) --- */

static void json_quotes_backslashes_and_controls_are_escaped(void **state)
{
	JSON("", "\"\"");
	JSON("plain id_7", "\"plain id_7\"");
	JSON("say \"hi\"", "\"say \\\"hi\\\"\"");
	JSON("C:\\dir\\", "\"C:\\\\dir\\\\\"");
	JSON("a\nb\rc\td", "\"a\\nb\\rc\\td\"");
	/* other control bytes as \u00XX; DEL too */
	JSON("\x01\x1f\x7f\b\f", "\"\\u0001\\u001f\\u007f\\u0008\\u000c\"");
	/* a NUL inside the n bytes is data, not the end */
	JSON("a\0b", "\"a\\u0000b\"");
	/* a string cannot end early and start a key of its own */
	JSON("\",\"evil\":\"", "\"\\\",\\\"evil\\\":\\\"\"");
	/* in JSON "</script>" is harmless text */
	JSON("</script><!--", "\"</script><!--\"");
}

static void json_replaces_each_invalid_byte_and_keeps_valid_characters(void **state)
{
	JSON("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	JSON("\xf4\x8f\xbf\xbf" FFFD, "\"\xf4\x8f\xbf\xbf" FFFD "\""); /* U+10FFFF, U+FFFD itself */
	JSON("a\xff" "b", "\"a" FFFD "b\"");		/* never a byte of UTF-8 */
	JSON("\x80", "\"" FFFD "\"");			/* a stray continuation byte */
	JSON("\xc0\xaf", "\"" FFFD FFFD "\"");		/* overlong '/' */
	JSON("\xed\xa0\x80", "\"" FFFD FFFD FFFD "\"");	/* a surrogate */
	JSON("\xf4\x90\x80\x80", "\"" FFFD FFFD FFFD FFFD "\""); /* past U+10FFFF */
	JSON("x\xe2\x82", "\"x" FFFD FFFD "\"");	/* cut short by the end */
	JSON("\xe2\x82" "a", "\"" FFFD FFFD "a\"");	/* cut short by ASCII */
}

/* C1 controls are valid JSON as they are, but a terminal showing
 * `summary --json` would act on U+009B (CSI) as on ESC [. */
static void json_escapes_c1_controls(void **state)
{
	JSON("a\xc2\x9b" "2Jb", "\"a\\u009b2Jb\"");
	JSON("\xc2\x80\xc2\x9f", "\"\\u0080\\u009f\"");
	JSON("\xc2\xa0\xc2\xa9", "\"\xc2\xa0\xc2\xa9\"");	/* U+00A0 and on are text */
}

/* Every hostile string reads back through cJSON as itself (invalid bytes
 * as U+FFFD). */
static void json_output_parses_back_to_the_string(void **state)
{
	static const char *const cases[][2] = {
		{"<script>alert(1)</script>", "<script>alert(1)</script>"},
		{"\\\"><img src=x onerror=alert(2)>", "\\\"><img src=x onerror=alert(2)>"},
		{"tab\there\nnewline\x01", "tab\there\nnewline\x01"},
		{"bad\xfe\xc3", "bad" FFFD FFFD},
		{"\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *text = escaped(cg_escape_json, cases[i][0], (size_t)-1);
		cJSON *j = cJSON_Parse(text);
		if (!cJSON_IsString(j))
			fail_msg("not a JSON string: %s", text);
		assert_string_equal(j->valuestring, cases[i][1]);
		cJSON_Delete(j);
		free(text);
	}
}

/* Strings longer than one reservation of the sink are written piecewise:
 * the same text. */
static void json_long_strings_are_escaped_whole(void **state)
{
	const size_t n = CG_SINK_RESERVE_MAX + 1000;
	char *s = malloc(n + 1);
	memset(s, 'a', n);
	s[n] = '\0';
	char *plain = escaped(cg_escape_json, s, n);
	assert_int_equal(strlen(plain), n + 2);
	assert_int_equal(plain[0], '"');
	assert_int_equal(plain[n + 1], '"');
	assert_int_equal(strspn(plain + 1, "a"), n);
	free(plain);
	s[n - 1] = '"';
	s[7] = '\n';
	char *quoted = escaped(cg_escape_json, s, n);
	assert_int_equal(strlen(quoted), n + 4);
	assert_memory_equal(quoted + 1 + 7, "\\n", 2);
	assert_memory_equal(quoted + n + 1, "\\\"\"", 3);
	free(quoted);
	free(s);
}

/* --- HTML --- */

static void html_markup_characters_become_entities(void **state)
{
	HTML("a & b", "a &amp; b");
	HTML("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
	HTML("</script>", "&lt;/script&gt;");
	HTML("<!-- x -->", "&lt;!-- x --&gt;");
	/* attribute values cannot be closed with either quote */
	HTML("\" onload=\"x' y='", "&quot; onload=&quot;x&#39; y=&#39;");
	/* an entity in the text stays text */
	HTML("&lt;", "&amp;lt;");
	HTML("", "");
}

static void html_drops_control_bytes_but_newlines_and_tabs(void **state)
{
	HTML("a\x01\x1f\x7f" "b", "ab");
	HTML("a\rb", "ab");
	HTML("line\nnext\tcol", "line\nnext\tcol");
	HTML("a\0b", "ab"); /* a NUL inside the n bytes */
}

static void html_replaces_invalid_utf8_and_keeps_valid(void **state)
{
	HTML("caf\xc3\xa9 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xf0\x9f\x98\x80");
	HTML("<\xff>", "&lt;" FFFD "&gt;");
	HTML("\xc0\xbc" "script", FFFD FFFD "script"); /* an overlong '<' is no '<' */
	HTML("\xed\xbf\xbf", FFFD FFFD FFFD);
	HTML("end\xf0\x9f\x98", "end" FFFD FFFD FFFD);
}

/* U+FFFE and U+FFFF are valid UTF-8 but not XML characters (XML 1.0,
 * section 2.2): a parser rejects the SVG or JUnit file holding them. Their
 * neighbours stay. */
static void html_replaces_the_noncharacters_xml_forbids(void **state)
{
	HTML("a\xef\xbf\xbe" "b\xef\xbf\xbf", "a" FFFD "b" FFFD);
	HTML("\xef\xbf\xbd\xef\xbf\xbc\xef\xbe\xbf", "\xef\xbf\xbd\xef\xbf\xbc\xef\xbe\xbf");
}

/* --- Markdown (GitHub-flavoured) --- */

static void markdown_metacharacters_are_escaped(void **state)
{
	MD("a|b", "a\\|b");
	MD("`code`", "\\`code\\`");
	MD("**bold** _it_", "\\*\\*bold\\*\\* \\_it\\_");
	MD("[link](http://x)", "\\[link\\](http://x)");
	MD("back\\slash", "back\\\\slash");
	MD("optimizer_state", "optimizer\\_state");
	/* HTML inside Markdown is text */
	MD("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
	MD("<!--", "&lt;!--");
	MD("a & b", "a &amp; b");
	/* a '#' inside text is plain: only at the start of a line is it a
	 * heading, and text never starts a line (newlines become spaces) */
	MD("step #3", "step #3");
	MD("", "");
}

/* A table cell or a line is one line: newlines, CR and tabs become spaces,
 * so "\n# heading" or "\n| x |" cannot start a line of its own. */
static void markdown_text_stays_on_its_line(void **state)
{
	MD("a\nb\rc\td", "a b c d");
	MD("x\n# heading", "x # heading");
	MD("x\n| y |", "x \\| y \\|");
	MD("a\x01\x1f\x7f" "b", "ab");
	MD("a\0b", "ab");
}

static void markdown_replaces_invalid_utf8_and_keeps_valid(void **state)
{
	MD("mlp \xe2\x80\x94 adam", "mlp \xe2\x80\x94 adam");
	MD("a\xff\xfe" "b", "a" FFFD FFFD "b");
	MD("\xe0\x80\xaa", FFFD FFFD FFFD); /* overlong */
	MD("x\xc3", "x" FFFD);
}

/* --- GitHub Actions workflow commands (@actions/core command.ts) --- */

#define GH_DATA(in, out) expect(cg_escape_github_data, in, sizeof in - 1, out)
#define GH_PROP(in, out) expect(cg_escape_github_property, in, sizeof in - 1, out)

static void github_data_escapes_percent_and_line_ends(void **state)
{
	GH_DATA("", "");
	GH_DATA("50% of 2 B", "50%25 of 2 B");
	/* "%0A" in a name is not a newline once decoded */
	GH_DATA("%0A", "%250A");
	GH_DATA("a\r\n::error::x", "a%0D%0A::error::x");
	/* a message keeps : and , */
	GH_DATA("cuda:0, cpu", "cuda:0, cpu");
}

static void github_properties_also_escape_colon_and_comma(void **state)
{
	GH_PROP("cuda:0", "cuda%3A0");
	GH_PROP("a,title=x", "a%2Ctitle=x");
	GH_PROP("::error::", "%3A%3Aerror%3A%3A");
	GH_PROP("%\r\n:,", "%25%0D%0A%3A%2C");
	GH_PROP("caf\xc3\xa9 \xff", "caf\xc3\xa9 \xff"); /* bytes the runner takes as they are */
}

/* --- CSV (RFC 4180) and folded stacks --- */

static void csv_trace(cg_sink *out, const char *s, size_t n)
{
	cg_escape_csv(out, s, n, true);
}

static void csv_own(cg_sink *out, const char *s, size_t n)
{
	cg_escape_csv(out, s, n, false);
}

#define CSV(in, out) expect(csv_trace, in, sizeof in - 1, out)
#define FOLDED(in, out) expect(cg_escape_folded_frame, in, sizeof in - 1, out)

static void csv_quotes_fields_with_separators_and_doubles_quotes(void **state)
{
	CSV("", "");
	CSV("plain id_7", "plain id_7");
	CSV("a,b", "\"a,b\"");
	CSV("say \"hi\"", "\"say \"\"hi\"\"\"");
	CSV("line\nbreak", "\"line\nbreak\"");
	CSV("cr\rhere", "\"cr\rhere\"");
	/* a field cannot end early and start a row of its own */
	CSV("x\",\"evil\"\r\n1,2", "\"x\"\",\"\"evil\"\"\r\n1,2\"");
	CSV("caf\xc3\xa9 \xff", "caf\xc3\xa9 " FFFD);
}

/* OWASP's CSV injection: a cell starting with = + - @ TAB or CR is a
 * formula to Excel, LibreOffice and Google Sheets. */
static void csv_fields_from_the_trace_never_start_a_formula(void **state)
{
	CSV("=1+2", "'=1+2");
	CSV("+1", "'+1");
	CSV("-1", "'-1");
	CSV("@SUM(A1)", "'@SUM(A1)");
	CSV("\t=1", "'\t=1");
	CSV("\r=1", "\"'\r=1\"");
	CSV("=HYPERLINK(\"http://e\",\"x\")", "\"'=HYPERLINK(\"\"http://e\"\",\"\"x\"\")\"");
	/* only the first character counts; cgmem's own fields are as they are */
	CSV("a=1", "a=1");
	expect(csv_own, "-12", 3, "-12");
}

static void folded_frames_cannot_split_a_stack_or_end_a_line(void **state)
{
	FOLDED("", "");
	FOLDED("aten::mm", "aten::mm");
	FOLDED("a;b", "a:b");
	FOLDED("a\nb\rc\td\x1b\x7f", "a b c d  ");
	FOLDED("x 12\n", "x 12 ");
	FOLDED("caf\xc3\xa9 \xff", "caf\xc3\xa9 " FFFD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_quotes_backslashes_and_controls_are_escaped),
		cmocka_unit_test(json_replaces_each_invalid_byte_and_keeps_valid_characters),
		cmocka_unit_test(json_escapes_c1_controls),
		cmocka_unit_test(json_output_parses_back_to_the_string),
		cmocka_unit_test(json_long_strings_are_escaped_whole),
		cmocka_unit_test(html_markup_characters_become_entities),
		cmocka_unit_test(html_drops_control_bytes_but_newlines_and_tabs),
		cmocka_unit_test(html_replaces_invalid_utf8_and_keeps_valid),
		cmocka_unit_test(html_replaces_the_noncharacters_xml_forbids),
		cmocka_unit_test(markdown_metacharacters_are_escaped),
		cmocka_unit_test(markdown_text_stays_on_its_line),
		cmocka_unit_test(markdown_replaces_invalid_utf8_and_keeps_valid),
		cmocka_unit_test(github_data_escapes_percent_and_line_ends),
		cmocka_unit_test(github_properties_also_escape_colon_and_comma),
		cmocka_unit_test(csv_quotes_fields_with_separators_and_doubles_quotes),
		cmocka_unit_test(csv_fields_from_the_trace_never_start_a_formula),
		cmocka_unit_test(folded_frames_cannot_split_a_stack_or_end_a_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
