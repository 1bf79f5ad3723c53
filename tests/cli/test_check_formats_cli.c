/* cgmem check's output formats end to end (--format text, json, github,
 * junit): on every sample and every limit, the text line's word (ok, FAIL,
 * n/a), the JSON's verdict, the GitHub annotation and the JUnit test case
 * say the same thing, and the exit status agrees with all of them; exact
 * outputs on a hand-built run where one limit fails and one does not
 * apply; device names that try to break out of each format.
 *
 * two.jsonl: cuda:0 allocates 100 B at t 1, cpu 300 B at t 2; a checkpoint
 * of cuda:0 at t 3 reserves 400 B while 100 B are live: fragmentation
 * (400 - 100) / 400 = 0.75. The CPU has no checkpoint: its fragmentation
 * does not apply (docs/analysis.md, section 11). */
#include "runutil.h"

#include <dirent.h>
#include <string.h>

static char *two;

#define NA_REASON "a CPU has no caching allocator and no checkpoint records reserved bytes"

static int setup(void **state)
{
	two = strdup(tu_write("two.jsonl",
		       "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\"}\n"
		       "{\"kind\":\"memory\",\"timestamp_ns\":1,\"tensor_id\":\"a\",\"span_id\":\"s\",\"device\":\"cuda:0\","
		       "\"bytes\":100,\"action\":\"alloc\",\"dtype\":\"f32\",\"category\":\"activation\"}\n"
		       "{\"kind\":\"memory\",\"timestamp_ns\":2,\"tensor_id\":\"b\",\"span_id\":\"s\",\"device\":\"cpu\","
		       "\"bytes\":300,\"action\":\"alloc\",\"dtype\":\"f32\",\"category\":\"activation\"}\n"
		       "{\"kind\":\"device_memory\",\"timestamp_ns\":3,\"device\":\"cuda:0\",\"used_bytes\":400,"
		       "\"free_bytes\":1000,\"reserved_bytes\":400}\n",
		       (size_t)-1));
	return 0;
}

static int teardown(void **state)
{
	free(two);
	return 0;
}

/* Runs cgmem with the arguments up to the first NULL. */
static int run(char **out, char **err, const char *const *a)
{
	return tu_runv(out, err, NULL, a);
}


/* xmllint's exit status for the file at path (0: well-formed XML). */
static int xmllint(const char *path)
{
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "xmllint --noout '%s' 2>&1", path);
	int rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what))
		n++;
	return n;
}

static void one_fail_and_one_na_in_each_format(void **state)
{
	const char *text[20] = {"check", two, "--max-peak", "200", "--max-fragmentation", "0.8", "-q"};
	tu_expectv(text, 3,
	       "ok    max-peak cuda:0: 100 B <= 200 B\n"
	       "FAIL  max-peak cpu: 300 B > 200 B\n"
	       "ok    max-fragmentation cuda:0: 0.75 (largest at a checkpoint at 3 ns) <= 0.8\n"
	       "n/a   max-fragmentation cpu: not applicable, limit 0.8 (" NA_REASON ")\n");
	char want[2048];
	snprintf(want, sizeof want,
		 "ok    max-peak cuda:0: 100 B <= 200 B\n"
		 "::error file=%s,title=cgmem check max-peak cpu::max-peak cpu: 300 B > 200 B\n"
		 "ok    max-fragmentation cuda:0: 0.75 (largest at a checkpoint at 3 ns) <= 0.8\n"
		 "::notice file=%s,title=cgmem check max-fragmentation cpu::max-fragmentation cpu: not applicable, "
		 "limit 0.8 (" NA_REASON ")\n",
		 two, two);
	const char *github[20] = {"check", two, "--max-peak", "200", "--max-fragmentation", "0.8", "-q", "--format",
				  "github"};
	tu_expectv(github, 3, want);
	snprintf(want, sizeof want,
		 "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		 "<testsuites name=\"cgmem check\" tests=\"4\" failures=\"1\" errors=\"0\" skipped=\"1\">\n"
		 "  <testsuite name=\"%s\" tests=\"4\" failures=\"1\" errors=\"0\" skipped=\"1\">\n"
		 "    <testcase classname=\"cgmem.check.max-peak\" name=\"cuda:0\">\n"
		 "      <system-out>max-peak cuda:0: 100 B &lt;= 200 B</system-out>\n"
		 "    </testcase>\n"
		 "    <testcase classname=\"cgmem.check.max-peak\" name=\"cpu\">\n"
		 "      <failure type=\"max-peak\" message=\"max-peak cpu: 300 B &gt; 200 B\">max-peak cpu: 300 B &gt; "
		 "200 B</failure>\n"
		 "    </testcase>\n"
		 "    <testcase classname=\"cgmem.check.max-fragmentation\" name=\"cuda:0\">\n"
		 "      <system-out>max-fragmentation cuda:0: 0.75 (largest at a checkpoint at 3 ns) &lt;= 0.8"
		 "</system-out>\n"
		 "    </testcase>\n"
		 "    <testcase classname=\"cgmem.check.max-fragmentation\" name=\"cpu\">\n"
		 "      <skipped message=\"max-fragmentation cpu: not applicable, limit 0.8 (" NA_REASON ")\"/>\n"
		 "    </testcase>\n"
		 "  </testsuite>\n"
		 "</testsuites>\n",
		 two);
	const char *junit[20] = {"check", two, "--max-peak", "200", "--max-fragmentation", "0.8", "-q", "--format",
				 "junit"};
	tu_expectv(junit, 3, want);
	/* n/a holds: with the peak's limit raised every format exits 0 */
	const char *formats[] = {"text", "json", "github", "junit"};
	for (size_t f = 0; f < 4; f++) {
		const char *a[20] = {"check", two, "--max-peak", "300", "--max-fragmentation", "0.8", "-q", "--format",
				     formats[f]};
		tu_expectv(a, 0, NULL);
	}
	const char *github_ok[20] = {"check", two, "--max-fragmentation", "0.8", "--device", "cpu", "-q", "--format",
				     "github"};
	snprintf(want, sizeof want,
		 "::notice file=%s,title=cgmem check max-fragmentation cpu::max-fragmentation cpu: not applicable, "
		 "limit 0.8 (" NA_REASON ")\n",
		 two);
	tu_expectv(github_ok, 0, want);
}

static void json_is_the_same_as_format_json_and_bad_formats_are_usage_errors(void **state)
{
	char *a_out, *b_out, *err;
	int a = tu_run(&a_out, &err, NULL, "check", two, "--max-peak", "200", "--json", "-q", NULL);
	free(err);
	int b = tu_run(&b_out, &err, NULL, "check", two, "--max-peak", "200", "--format", "json", "-q", NULL);
	free(err);
	assert_int_equal(a, 3);
	assert_int_equal(b, 3);
	assert_string_equal(a_out, b_out);
	free(a_out);
	free(b_out);
	const char *both[20] = {"check", two, "--max-peak", "200", "--json", "--format", "json", "-q"};
	tu_expectv(both, 3, NULL);
	struct {
		const char *format;
		bool json;
		const char *message;
	} bad[] = {
		{"xml", false, "cgmem check: --format: 'xml' is not text, json, github or junit\n"},
		{"", false, "cgmem check: --format: '' is not text, json, github or junit\n"},
		{"JSON", false, "cgmem check: --format: 'JSON' is not text, json, github or junit\n"},
		{"junit", true, "cgmem check: --json and --format junit disagree: give one\n"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *out;
		int rc = bad[i].json ? tu_run(&out, &err, NULL, "check", two, "--max-peak", "1", "--format", bad[i].format,
					      "--json", NULL)
				     : tu_run(&out, &err, NULL, "check", two, "--max-peak", "1", "--format", bad[i].format,
					      NULL);
		assert_int_equal(rc, 2);
		assert_string_equal(out, "");
		if (strncmp(err, bad[i].message, strlen(bad[i].message)) != 0)
			fail_msg("case %zu: stderr %s", i, err);
		free(out);
		free(err);
	}
}

/* A device name holding a newline, a workflow command, ESC, markup and
 * the characters that end a property: each format keeps it on its line and
 * in its place. */
static void hostile_device_names_stay_inside_each_format(void **state)
{
	const char *t = tu_write("hostile.jsonl",
				 "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\"}\n"
				 "{\"kind\":\"memory\",\"timestamp_ns\":1,\"tensor_id\":\"a\",\"span_id\":\"s\","
				 "\"device\":\"cpu,x:1 100%\\r\\n::error::pwned\\u001b[2J</testcase>\\\"&'\","
				 "\"bytes\":100,\"action\":\"alloc\",\"dtype\":\"f32\",\"category\":\"activation\"}\n",
				 (size_t)-1);
	const char *shown = "cpu,x:1 100%\\r\\n::error::pwned\\x1b[2J</testcase>\"&'"; /* termtext.h */
	char want[1024];
	/* a CPU (the name starts "cpu"): fragmentation does not apply */
	snprintf(want, sizeof want,
		 "::error file=%s,title=cgmem check max-peak "
		 "cpu%%2Cx%%3A1 100%%25\\r\\n%%3A%%3Aerror%%3A%%3Apwned\\x1b[2J</testcase>\"&'"
		 "::max-peak cpu,x:1 100%%25\\r\\n::error::pwned\\x1b[2J</testcase>\"&': 100 B > 10 B\n"
		 "::notice file=%s,title=cgmem check max-fragmentation "
		 "cpu%%2Cx%%3A1 100%%25\\r\\n%%3A%%3Aerror%%3A%%3Apwned\\x1b[2J</testcase>\"&'"
		 "::max-fragmentation cpu,x:1 100%%25\\r\\n::error::pwned\\x1b[2J</testcase>\"&': not applicable, "
		 "limit 0.5 (" NA_REASON ")\n",
		 t, t);
	const char *github[20] = {"check", t, "--max-peak", "10", "--max-fragmentation", "0.5", "-q", "--format",
				  "github"};
	tu_expectv(github, 3, want);

	char *out, *err;
	int rc = tu_run(&out, &err, NULL, "check", t, "--max-peak", "10", "--max-fragmentation", "0.5", "-q", "--format",
			"junit", NULL);
	assert_int_equal(rc, 3);
	const char *xml = tu_write("hostile.xml", out, (size_t)-1);
	assert_int_equal(xmllint(xml), 0);
	/* the name read back by an XML parser is the name as text shows it */
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "xmllint --xpath 'string(//testcase[2]/@name)' '%s' > '%s'", xml,
		 tu_path("name.txt"));
	assert_int_equal(system(cmd), 0);
	size_t len;
	char *name = tu_read(tu_path("name.txt"), &len);
	if (len > 0 && name[len - 1] == '\n') /* some xmllint versions end the string with a newline */
		name[len - 1] = '\0';
	assert_string_equal(name, shown);
	free(name);
	assert_int_equal(count(out, "<testcase "), 2);
	assert_int_equal(count(out, "<failure "), 1);
	assert_int_equal(count(out, "<skipped "), 1);
	free(out);
	free(err);
}

/* Every trace in samples/ (and samples/external, samples/snapshots). */
static size_t list_samples(char names[][160], size_t max)
{
	static const char *const dirs[] = {"", "external/", "snapshots/"};
	static const char *const ends[] = {".jsonl", ".jsonl.gz", ".json.gz", ".raw.gz", ".pickle"};
	size_t n = 0;
	for (size_t d = 0; d < 3; d++) {
		DIR *dir = opendir(tu_sample(dirs[d]));
		assert_non_null(dir);
		struct dirent *e;
		while ((e = readdir(dir)) != NULL) {
			size_t len = strlen(e->d_name);
			for (size_t k = 0; k < 5; k++) {
				size_t el = strlen(ends[k]);
				if (len > el && strcmp(e->d_name + len - el, ends[k]) == 0 && n < max) {
					snprintf(names[n++], 160, "%s%s", dirs[d], e->d_name);
					break;
				}
			}
		}
		closedir(dir);
	}
	return n;
}

/* The word the JSON's fields say, by the rule of docs/diff-format.md:
 * not ok is FAIL, a limit that does not apply (holds) is n/a. */
static const char *json_word(cJSON *v)
{
	if (!cJSON_IsTrue(cJSON_GetObjectItem(v, "ok")))
		return "FAIL";
	const char *source = cJSON_GetStringValue(cJSON_GetObjectItem(v, "source"));
	/* a limit that cannot be judged: does not apply, or the figure is unknown */
	bool judged = !source || (strcmp(source, "not_applicable") != 0 && strcmp(source, "unknown") != 0);
	return judged ? "ok" : "n/a";
}

/* The message of a workflow command with %25 decoded (names are escaped
 * for a terminal first: there is no CR or LF to decode). */
static void github_message(const char *line, size_t len, char *buf, size_t size)
{
	const char *m = strstr(line + 2, "::");
	assert_non_null(m);
	size_t k = 0;
	for (const char *p = m + 2; p < line + len && k + 1 < size; p++) {
		if (p[0] == '%' && p + 2 < line + len && (strncmp(p, "%25", 3) == 0)) {
			buf[k++] = '%';
			p += 2;
		} else {
			buf[k++] = *p;
		}
	}
	buf[k] = '\0';
}

static size_t seen[3]; /* FAIL, n/a, ok lines over all samples */

#define NLIMIT_ARGS 10

/* One sample under one set of limits in text and JSON, and when all is
 * true in the GitHub and JUnit formats too. */
static void agree(const char *sample, const char *const limits[NLIMIT_ARGS], bool all)
{
	const char *formats[] = {"text", "json", "github", "junit"};
	char *out[4] = {NULL, NULL, NULL, NULL};
	int rc[4] = {0, 0, 0, 0};
	int nformats = all ? 4 : 2;
	for (int f = 0; f < nformats; f++) {
		char *err;
		const char *a[20] = {"check", sample};
		for (int k = 0; k < NLIMIT_ARGS; k++)
			a[2 + k] = limits[k];
		a[2 + NLIMIT_ARGS] = "-q";
		a[3 + NLIMIT_ARGS] = "--format";
		a[4 + NLIMIT_ARGS] = formats[f];
		rc[f] = run(&out[f], &err, a);
		if (rc[f] != 0 && rc[f] != 3)
			fail_msg("%s --format %s: exit %d: %s", sample, formats[f], rc[f], err);
		free(err);
	}
	cJSON *doc = cJSON_Parse(out[1]);
	assert_non_null(doc);
	cJSON *verdicts = cJSON_GetObjectItem(doc, "limits");
	size_t n = (size_t)cJSON_GetArraySize(verdicts), fails = 0, nas = 0;
	const char *line = out[0], *gh = all ? out[2] : "";
	for (size_t i = 0; i < n; i++) {
		const char *end = strchr(line, '\n'), *gh_end = all ? strchr(gh, '\n') : gh;
		if (!end || !gh_end)
			fail_msg("%s: %zu verdicts in JSON, fewer lines", sample, n);
		char word[8] = "";
		size_t wl = strcspn(line, " ");
		snprintf(word, sizeof word, "%.*s", (int)(wl < 7 ? wl : 7), line);
		cJSON *v = cJSON_GetArrayItem(verdicts, (int)i);
		const char *verdict = cJSON_GetStringValue(cJSON_GetObjectItem(v, "verdict"));
		if (strcmp(word, json_word(v)) != 0 || !verdict || strcmp(word, verdict) != 0)
			fail_msg("%s: text says '%.*s', JSON ok %d verdict %s", sample, (int)(end - line), line,
				 cJSON_IsTrue(cJSON_GetObjectItem(v, "ok")), verdict ? verdict : "(none)");
		/* the annotation: the command for the word, the text line's rest as message */
		const char *body = line + 6;
		size_t body_len = (size_t)(end - body);
		bool ok = strcmp(word, "ok") == 0;
		fails += word[0] == 'F';
		nas += word[0] == 'n';
		seen[ok ? 2 : word[0] == 'F' ? 0 : 1]++;
		if (all && ok) {
			/* the text line as it is */
			assert_int_equal(gh_end - gh, end - line);
			assert_memory_equal(gh, line, (size_t)(end - line));
		} else if (all) {
			const char *cmd = word[0] == 'F' ? "::error " : "::notice ";
			assert_memory_equal(gh, cmd, strlen(cmd));
			char msg[4096];
			github_message(gh, (size_t)(gh_end - gh), msg, sizeof msg);
			assert_int_equal(strlen(msg), body_len);
			assert_memory_equal(msg, body, body_len);
		}
		line = end + 1;
		if (all)
			gh = gh_end + 1;
	}
	assert_string_equal(line, "");
	assert_string_equal(gh, "");
	for (int f = 1; f < nformats; f++)
		assert_int_equal(rc[f], rc[0]);
	assert_int_equal(rc[0], fails ? 3 : 0);
	assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(doc, "ok")), rc[0] == 0);
	assert_int_equal(tu_json_u64(doc, "failed", NULL), fails);
	assert_int_equal(tu_json_u64(doc, "not_applicable", NULL), nas);
	if (all) {
		const char *xml = tu_write("sample.xml", out[3], (size_t)-1);
		if (xmllint(xml) != 0)
			fail_msg("%s: the JUnit report is not well-formed XML", sample);
		assert_int_equal(count(out[3], "<testcase "), n);
		assert_int_equal(count(out[3], "<failure "), fails);
		assert_int_equal(count(out[3], "<skipped "), nas);
	}
	cJSON_Delete(doc);
	for (int f = 0; f < 4; f++)
		free(out[f]);
}

/* Every limit, strict (most fail) in every format and lax (most hold; a
 * GPU the baseline lacks still grew without bound) in text and JSON, on
 * every sample: about 60 s. */
static void every_format_agrees_on_every_sample_and_limit(void **state)
{
	static char names[64][160];
	size_t n = list_samples(names, 64);
	assert_true(n >= 20);
	char base[512];
	/* every limit check has; each pair of a set below is one option */
	snprintf(base, sizeof base, "%s", tu_sample("mlp_adam.jsonl"));
	for (size_t i = 0; i < n; i++) {
		char sample[512];
		snprintf(sample, sizeof sample, "%s", tu_sample(names[i]));
		const char *strict[NLIMIT_ARGS] = {"--max-peak", "1MiB", "--max-fragmentation", "30%", "--max-leaked",
						   "1MiB", "--baseline", base, "--max-growth", "5%"};
		const char *lax[NLIMIT_ARGS] = {"--max-peak", "1TiB", "--max-fragmentation", "1", "--max-leaked",
						"1TiB", "--baseline", base, "--max-growth", "1000000000"};
		agree(sample, strict, true);
		agree(sample, lax, false);
	}
	/* every word was seen */
	assert_true(seen[0] > 0 && seen[1] > 0 && seen[2] > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_fail_and_one_na_in_each_format),
		cmocka_unit_test(json_is_the_same_as_format_json_and_bad_formats_are_usage_errors),
		cmocka_unit_test(hostile_device_names_stay_inside_each_format),
		cmocka_unit_test(every_format_agrees_on_every_sample_and_limit),
	};
	int rc = cmocka_run_group_tests(tests, setup, teardown);
	tu_cleanup();
	return rc;
}
