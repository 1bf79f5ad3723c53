/* The verdicts of `cgmem check` for CI systems (check_ci.h): GitHub
 * workflow commands and JUnit XML, exact bytes for three hand-made
 * verdicts (one FAIL, one n/a, one ok), and device names that try to
 * start a workflow command of their own or to break the XML. Names are
 * escaped for a terminal first (termtext.h: "\n" and ESC become visible
 * text), then for the format. */
#include "testutil.h"

#include <string.h>

#include "check.h"
#include "check_ci.h"
#include "sink.h"

#define NA_REASON "a CPU has no caching allocator and no checkpoint records reserved bytes"

typedef void (*writer)(cg_sink *, const cg_check_result *, const cg_check_limits *, const char *);

static void junit(cg_sink *out, const cg_check_result *r, const cg_check_limits *l, const char *file)
{
	cg_check_junit_write(out, r, l, file, NULL);
}

/* What fn writes for v[0..n) against l on file; caller frees. */
static char *written(writer fn, cg_check_verdict *v, size_t n, const cg_check_limits *l, const char *file)
{
	size_t failed = 0;
	for (size_t i = 0; i < n; i++)
		failed += !v[i].ok;
	cg_check_result r = {v, n, failed};
	cg_sink *s = cg_sink_memory();
	fn(s, &r, l, file);
	char *t = strdup(cg_sink_data(s, NULL));
	assert_int_equal(cg_sink_close(s, NULL), 0);
	return t;
}

/* max-peak on cuda:0 fails (176 B > 175 B), fragmentation on the CPU does
 * not apply, max-leaked holds (12 B <= 12 B). */
static cg_check_limits three(cg_check_verdict v[3])
{
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.peak = l.fragmentation = l.leaked = true;
	l.max_peak = 175;
	l.max_fragmentation = 0.3;
	l.max_leaked = 12;
	v[0] = (cg_check_verdict){.kind = CG_CHECK_PEAK, .device = "cuda:0", .ok = false, .measured = true, .bytes = 176};
	v[1] = (cg_check_verdict){.kind = CG_CHECK_FRAGMENTATION, .device = "cpu", .ok = true, .measured = false,
				  .source = CG_FRAG_NOT_APPLICABLE};
	v[2] = (cg_check_verdict){.kind = CG_CHECK_LEAKED, .device = "cuda:0", .ok = true, .measured = true, .bytes = 12};
	return l;
}

static void github_annotates_a_fail_as_an_error_and_an_na_as_a_notice(void **state)
{
	cg_check_verdict v[3];
	cg_check_limits l = three(v);
	char *t = written(cg_check_github_write, v, 3, &l, "runs/run.jsonl");
	/* ':' in a property is %3A; the message keeps it */
	assert_string_equal(t, "::error file=runs/run.jsonl,title=cgmem check max-peak cuda%3A0::"
			       "max-peak cuda:0: 176 B > 175 B\n"
			       "::notice file=runs/run.jsonl,title=cgmem check max-fragmentation cpu::"
			       "max-fragmentation cpu: not applicable, limit 0.3 (" NA_REASON ")\n"
			       "ok    max-leaked cuda:0: 12 B <= 12 B\n");
	free(t);
	/* standard input is no file to annotate */
	t = written(cg_check_github_write, v, 1, &l, "-");
	assert_string_equal(t, "::error title=cgmem check max-peak cuda%3A0::max-peak cuda:0: 176 B > 175 B\n");
	free(t);
}

/* A name that ends the property (, :), starts a new line with a command of
 * its own (\r \n ::error::) or clears the screen (ESC): its newline is
 * visible text "\n" (termtext), % , : are %25 %2C %3A in properties, % is
 * %25 in the message. */
static void github_escapes_hostile_device_names_and_files(void **state)
{
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.peak = true;
	l.max_peak = 1;
	cg_check_verdict v = {.kind = CG_CHECK_PEAK, .device = "a,b:c 100%\r\n::error::x\x1b[2J", .ok = false,
			      .measured = true, .bytes = 2};
	char *t = written(cg_check_github_write, &v, 1, &l, "my,run:1%.jsonl");
	assert_string_equal(t, "::error file=my%2Crun%3A1%25.jsonl,"
			       "title=cgmem check max-peak a%2Cb%3Ac 100%25\\r\\n%3A%3Aerror%3A%3Ax\\x1b[2J::"
			       "max-peak a,b:c 100%25\\r\\n::error::x\\x1b[2J: 2 B > 1 B\n");
	/* one line: nothing a runner would read as a second command */
	assert_int_equal(strchr(t, '\n') - t, (long)strlen(t) - 1);
	assert_null(strchr(t, '\r'));
	free(t);
}

static void junit_has_a_test_case_per_limit_and_device(void **state)
{
	cg_check_verdict v[3];
	cg_check_limits l = three(v);
	char *t = written(junit, v, 3, &l, "run.jsonl");
	assert_string_equal(t,
			    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			    "<testsuites name=\"cgmem check\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\">\n"
			    "  <testsuite name=\"run.jsonl\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\">\n"
			    "    <testcase classname=\"cgmem.check.max-peak\" name=\"cuda:0\">\n"
			    "      <failure type=\"max-peak\" message=\"max-peak cuda:0: 176 B &gt; 175 B\">"
			    "max-peak cuda:0: 176 B &gt; 175 B</failure>\n"
			    "    </testcase>\n"
			    "    <testcase classname=\"cgmem.check.max-fragmentation\" name=\"cpu\">\n"
			    "      <skipped message=\"max-fragmentation cpu: not applicable, limit 0.3 (" NA_REASON ")\"/>\n"
			    "    </testcase>\n"
			    "    <testcase classname=\"cgmem.check.max-leaked\" name=\"cuda:0\">\n"
			    "      <system-out>max-leaked cuda:0: 12 B &lt;= 12 B</system-out>\n"
			    "    </testcase>\n"
			    "  </testsuite>\n"
			    "</testsuites>\n");
	free(t);
}

static void junit_names_the_baseline_and_counts_nothing_when_there_is_nothing(void **state)
{
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	cg_check_result r = {NULL, 0, 0};
	cg_sink *s = cg_sink_memory();
	cg_check_junit_write(s, &r, &l, "new.jsonl", "old & \"first\".jsonl");
	assert_string_equal(cg_sink_data(s, NULL),
			    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			    "<testsuites name=\"cgmem check\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\">\n"
			    "  <testsuite name=\"new.jsonl\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\">\n"
			    "    <properties>\n"
			    "      <property name=\"baseline\" value=\"old &amp; &quot;first&quot;.jsonl\"/>\n"
			    "    </properties>\n"
			    "  </testsuite>\n"
			    "</testsuites>\n");
	assert_int_equal(cg_sink_close(s, NULL), 0);
}

/* Markup, quotes, control bytes, invalid UTF-8 and U+FFFF (valid UTF-8,
 * not an XML character) in a device name: entities, visible escapes,
 * U+FFFD. */
static void junit_escapes_hostile_device_names(void **state)
{
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.leaked = true;
	l.max_leaked = 0;
	cg_check_verdict v = {.kind = CG_CHECK_LEAKED, .device = "</testcase>\"&'\x01\n\xff\xef\xbf\xbf", .ok = false,
			      .measured = true, .bytes = 5};
	char *t = written(junit, &v, 1, &l, "a<b>.jsonl");
	const char *name = "&lt;/testcase&gt;&quot;&amp;&#39;\\x01\\n\\xff\xef\xbf\xbd";
	char want[1024];
	snprintf(want, sizeof want,
		 "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		 "<testsuites name=\"cgmem check\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\">\n"
		 "  <testsuite name=\"a&lt;b&gt;.jsonl\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\">\n"
		 "    <testcase classname=\"cgmem.check.max-leaked\" name=\"%s\">\n"
		 "      <failure type=\"max-leaked\" message=\"max-leaked %s: 5 B &gt; 0 B\">max-leaked %s: 5 B &gt; 0 B"
		 "</failure>\n"
		 "    </testcase>\n"
		 "  </testsuite>\n"
		 "</testsuites>\n",
		 name, name, name);
	assert_string_equal(t, want);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(github_annotates_a_fail_as_an_error_and_an_na_as_a_notice),
		cmocka_unit_test(github_escapes_hostile_device_names_and_files),
		cmocka_unit_test(junit_has_a_test_case_per_limit_and_device),
		cmocka_unit_test(junit_names_the_baseline_and_counts_nothing_when_there_is_nothing),
		cmocka_unit_test(junit_escapes_hostile_device_names),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
