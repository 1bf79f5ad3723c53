/* The verdicts of `cgmem check` as GitHub workflow commands and JUnit XML. */
#include "check_ci.h"

#include <string.h>

#include "check_text.h"
#include "escape.h"
#include "termtext.h"
#include "xalloc.h"

/* The text line of v after its word (check_text.h), in a new string. */
static char *body_of(const cg_check_verdict *v, const cg_check_limits *l)
{
	cg_sink *s = cg_sink_memory();
	cg_check_text_body(s, v, l);
	size_t len;
	const char *d = cg_sink_data(s, &len);
	char *copy = cg_malloc(len + 1);
	memcpy(copy, d, len + 1);
	cg_sink_close(s, NULL);
	return copy;
}

/* Writes s (from the trace or the command line) escaped for a terminal,
 * then by escape (a format's escaper). */
static void put(cg_sink *out, void (*escape)(cg_sink *, const char *, size_t), const char *s)
{
	char *t = cg_termtext_dup(s);
	escape(out, t, strlen(t));
	cg_free(t);
}

/* A body is escaped for a terminal already (its device name is): what is
 * left is the format's escaping. */
static void put_body(cg_sink *out, void (*escape)(cg_sink *, const char *, size_t), const char *body)
{
	escape(out, body, strlen(body));
}

void cg_check_github_write(cg_sink *out, const cg_check_result *r, const cg_check_limits *l, const char *file)
{
	/* n/a is worth a look, not a problem: a notice, not a warning */
	static const char *const commands[] = {NULL, "error", "notice"};
	for (size_t i = 0; i < r->n; i++) {
		const cg_check_verdict *v = &r->verdicts[i];
		if (v->kind >= CG_CHECK_KIND_COUNT)
			continue;
		cg_check_outcome o = cg_check_outcome_of(v);
		char *body = body_of(v, l);
		if (o == CG_CHECK_HOLDS) {
			/* the text line; termtext leaves no newline to start a command with */
			cg_sink_printf(out, "%-4s  %s\n", cg_check_outcome_word(o), body);
			cg_free(body);
			continue;
		}
		cg_sink_printf(out, "::%s ", commands[o]);
		if (strcmp(file, "-") != 0) {
			cg_sink_puts(out, "file=");
			put(out, cg_escape_github_property, file);
			cg_sink_putc(out, ',');
		}
		cg_sink_puts(out, "title=");
		cg_sink_printf(out, "cgmem check %s ", cg_check_kind_name((cg_check_kind)v->kind));
		put(out, cg_escape_github_property, v->device);
		cg_sink_puts(out, "::");
		put_body(out, cg_escape_github_data, body);
		cg_sink_putc(out, '\n');
		cg_free(body);
	}
}

static void attr(cg_sink *out, const char *name, const char *value)
{
	cg_sink_printf(out, " %s=\"", name);
	put(out, cg_escape_html, value);
	cg_sink_putc(out, '"');
}

static void counts(cg_sink *out, size_t tests, size_t failures, size_t skipped)
{
	cg_sink_printf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\"", tests, failures, skipped);
}

/* One <testcase>: classname groups the limit's cases, name is the device. */
static void testcase(cg_sink *out, const cg_check_verdict *v, const cg_check_limits *l)
{
	char classname[64];
	snprintf(classname, sizeof classname, "cgmem.check.%s", cg_check_kind_name((cg_check_kind)v->kind));
	char *body = body_of(v, l);
	cg_sink_puts(out, "    <testcase");
	attr(out, "classname", classname);
	attr(out, "name", v->device);
	cg_sink_puts(out, ">\n");
	switch (cg_check_outcome_of(v)) {
	case CG_CHECK_FAILS:
		cg_sink_puts(out, "      <failure");
		attr(out, "type", cg_check_kind_name((cg_check_kind)v->kind));
		cg_sink_puts(out, " message=\"");
		put_body(out, cg_escape_html, body);
		cg_sink_puts(out, "\">");
		put_body(out, cg_escape_html, body);
		cg_sink_puts(out, "</failure>\n");
		break;
	case CG_CHECK_NOT_APPLICABLE:
		cg_sink_puts(out, "      <skipped message=\"");
		put_body(out, cg_escape_html, body);
		cg_sink_puts(out, "\"/>\n");
		break;
	case CG_CHECK_HOLDS:
		cg_sink_puts(out, "      <system-out>");
		put_body(out, cg_escape_html, body);
		cg_sink_puts(out, "</system-out>\n");
		break;
	}
	cg_sink_puts(out, "    </testcase>\n");
	cg_free(body);
}

void cg_check_junit_write(cg_sink *out, const cg_check_result *r, const cg_check_limits *l, const char *file,
			  const char *baseline)
{
	size_t tests = 0, failures = 0, skipped = 0;
	for (size_t i = 0; i < r->n; i++) {
		if (r->verdicts[i].kind >= CG_CHECK_KIND_COUNT)
			continue;
		cg_check_outcome o = cg_check_outcome_of(&r->verdicts[i]);
		tests++;
		failures += o == CG_CHECK_FAILS;
		skipped += o == CG_CHECK_NOT_APPLICABLE;
	}
	cg_sink_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"cgmem check\"");
	counts(out, tests, failures, skipped);
	cg_sink_puts(out, ">\n  <testsuite");
	attr(out, "name", file);
	counts(out, tests, failures, skipped);
	cg_sink_puts(out, ">\n");
	if (baseline) {
		cg_sink_puts(out, "    <properties>\n      <property name=\"baseline\"");
		attr(out, "value", baseline);
		cg_sink_puts(out, "/>\n    </properties>\n");
	}
	for (size_t i = 0; i < r->n; i++)
		if (r->verdicts[i].kind < CG_CHECK_KIND_COUNT)
			testcase(out, &r->verdicts[i], l);
	cg_sink_puts(out, "  </testsuite>\n</testsuites>\n");
}
