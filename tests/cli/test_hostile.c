/* Hostile input: each case runs the real binary and asserts the exact
 * diagnostic (file, line, reason), the exit status, and that nothing
 * outside the output folder changed. */
#include "runutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define META "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\"}\n"
#define ROOT "{\"kind\":\"span_start\",\"id\":\"s\",\"name\":\"root\",\"start_ns\":0,\"span_kind\":\"function\"}\n"
#define MEMF "{\"kind\":\"memory\",\"timestamp_ns\":%llu,\"tensor_id\":\"%s\",\"span_id\":\"s\",\"device\":\"cpu\"," \
	     "\"bytes\":%llu,\"action\":\"%s\",\"dtype\":\"f32\"}\n"

/* --- a snapshot of everything beside the output folder ---------------------- */

typedef struct entry {
	char path[512];
	off_t size;
	long long mtime_ns;
	mode_t mode;
} entry;

typedef struct snapshot {
	entry *e;
	size_t n, cap;
} snapshot;

static bool ignored(const char *name)
{
	/* tu_run's capture files and the folders under test */
	return strcmp(name, ".stdout") == 0 || strcmp(name, ".stderr") == 0 || strncmp(name, "out", 3) == 0;
}

static void walk(snapshot *s, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 || (depth == 0 && ignored(de->d_name)))
			continue;
		if (s->n == s->cap)
			s->e = realloc(s->e, (s->cap = s->cap ? 2 * s->cap : 64) * sizeof *s->e);
		entry *e = &s->e[s->n++];
		snprintf(e->path, sizeof e->path, "%s/%s", dir, de->d_name);
		struct stat st;
		lstat(e->path, &st);
		e->size = st.st_size;
		e->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
		e->mode = st.st_mode;
		if (S_ISDIR(st.st_mode))
			walk(s, e->path, depth + 1);
	}
	closedir(d);
}

static snapshot take(void)
{
	snapshot s = {0};
	walk(&s, tu_tmpdir(), 0);
	return s;
}

static void assert_unchanged(const snapshot *before)
{
	snapshot after = take();
	if (after.n != before->n)
		fail_msg("%zu entries beside the output folder before, %zu after", before->n, after.n);
	for (size_t i = 0; i < after.n; i++) {
		bool same = false;
		for (size_t k = 0; k < before->n && !same; k++)
			same = strcmp(after.e[i].path, before->e[k].path) == 0 && after.e[i].size == before->e[k].size &&
			       after.e[i].mtime_ns == before->e[k].mtime_ns && after.e[i].mode == before->e[k].mode;
		if (!same)
			fail_msg("%s appeared or changed", after.e[i].path);
	}
	free(after.e);
}

/* Runs `cgmem report FILE -o OUT` and checks status, stderr and the folder. */
static char *run_report(const char *trace, const char *out, int status, const char *expect_err)
{
	snapshot before = take();
	char *so, *se;
	int rc = tu_run(&so, &se, NULL, "report", trace, "-o", out, "--no-trace", NULL);
	if (rc != status)
		fail_msg("exit %d (expected %d); stderr: %s", rc, status, se);
	if (expect_err && !strstr(se, expect_err))
		fail_msg("expected \"%s\" in stderr, got: %s", expect_err, se);
	assert_unchanged(&before);
	free(before.e);
	free(so);
	if (status != 0)
		assert_false(tu_exists(out));
	return se;
}

static const char *line_msg(const char *path, int line, const char *msg)
{
	static char buf[2048];
	snprintf(buf, sizeof buf, "%s:%d: %s", path, line, msg);
	return buf;
}

static cJSON *summary(const char *out)
{
	char p[600];
	snprintf(p, sizeof p, "%s/summary.json", out);
	return tu_json_file(p);
}

/* --- files that are not traces ------------------------------------------------ */

static void an_empty_file(void **state)
{
	const char *p = tu_write("empty.jsonl", "", 0);
	char msg[600];
	snprintf(msg, sizeof msg, "cgmem report: %s: the trace is empty\n", p);
	free(run_report(p, tu_path("out-empty"), 1, msg));
}

static void binary_garbage(void **state)
{
	unsigned char junk[4096];
	unsigned x = 12345;
	for (size_t i = 0; i < sizeof junk; i++) {
		x = x * 1103515245u + 12345u;
		junk[i] = (unsigned char)(x >> 16);
	}
	for (size_t i = 0; i < sizeof junk; i++)
		if (junk[i] == '\n')
			junk[i] = 'x';
	junk[0] = 0x7f; /* not the gzip magic */
	for (size_t i = 100; i < sizeof junk; i += 100)
		junk[i] = '\n';
	junk[sizeof junk - 1] = '\n'; /* 41 whole lines */
	const char *p = tu_write("garbage.bin", junk, sizeof junk);
	char msg[600];
	snprintf(msg, sizeof msg, "cgmem report: %s: no record could be read (41 lines, 41 bad)", p);
	free(run_report(p, tu_path("out-garbage"), 1, msg));
}

static void nul_bytes_and_invalid_utf8_inside_lines(void **state)
{
	char text[512];
	size_t n = 0;
	n += (size_t)sprintf(text, META ROOT);
	memcpy(text + n, "{\"kind\":\"op\"\0}\n", 15);
	n += 15;
	n += (size_t)sprintf(text + n, "{\"kind\":\"op\",\"op_name\":\"caf\xc3(\"}\n");
	n += (size_t)sprintf(text + n, MEMF, 1ull, "a", 8ull, "alloc");
	const char *p = tu_write("nul.jsonl", text, n);
	const char *out = tu_path("out-nul");
	char *err = run_report(p, out, 0, line_msg(p, 3, "NUL byte at column 13"));
	assert_non_null(strstr(err, line_msg(p, 4, "not valid UTF-8 at column 28 (byte 0xc3)")));
	free(err);
	cJSON *s = summary(out);
	assert_int_equal(tu_json_u64(s, "source", "bad_lines", NULL), 2);
	assert_int_equal(tu_json_u64(s, "devices", "0", "peak", "bytes", NULL), 8);
	cJSON_Delete(s);
}

static void a_100_mb_line_is_skipped_as_too_long(void **state)
{
	size_t big = 100u << 20;
	const char *p = tu_path("long.jsonl");
	FILE *f = fopen(p, "wb");
	fputs(META "{\"kind\":\"op\",\"op_name\":\"", f);
	char chunk[65536];
	memset(chunk, 'x', sizeof chunk);
	for (size_t k = 0; k < big; k += sizeof chunk)
		fwrite(chunk, 1, sizeof chunk, f);
	fputs("\"}\n" ROOT, f);
	fprintf(f, MEMF, 1ull, "a", 8ull, "alloc");
	fclose(f);
	const char *out = tu_path("out-long");
	free(run_report(p, out, 0, line_msg(p, 2, "line is longer than the limit of 67108864 bytes (--max-line-bytes)")));
	cJSON *s = summary(out);
	assert_int_equal(tu_json_u64(s, "devices", "0", "peak", "bytes", NULL), 8);
	cJSON_Delete(s);
	unlink(p);
}

static void json_nested_100000_deep(void **state)
{
	size_t depth = 100000;
	char *text = malloc(2 * depth + 512);
	size_t n = (size_t)sprintf(text, META);
	memset(text + n, '[', depth);
	n += depth;
	memset(text + n, ']', depth);
	n += depth;
	n += (size_t)sprintf(text + n, "\n" ROOT MEMF, 1ull, "a", 8ull, "alloc");
	const char *p = tu_write("deep.jsonl", text, n);
	free(text);
	/* cJSON stops at its nesting limit of 1000: the 1001st bracket */
	free(run_report(p, tu_path("out-deep"), 0, line_msg(p, 2, "not valid JSON (error near column 1001)")));
}

/* --- numbers ---------------------------------------------------------------- */

static void numbers_of_every_wrong_kind(void **state)
{
	const char *bytes[] = {"-5", "1.5", "18446744073709551616", "99999999999999999999999", "\"12\"", "1e400", "true"};
	const char *why[] = {
		"field \"bytes\" must be a non-negative integer: -5 is negative",
		"field \"bytes\" must be a non-negative integer: 1.5 is not an integer",
		"field \"bytes\" must be a non-negative integer: 18446744073709551616 does not fit in 64 bits",
		"field \"bytes\" must be a non-negative integer: 99999999999999999999999 does not fit in 64 bits",
		"field \"bytes\" must be a non-negative integer, not a string",
		"field \"bytes\" must be a non-negative integer: 1e400 is not an integer",
		"field \"bytes\" must be a non-negative integer, not a boolean",
	};
	char text[4096];
	size_t n = (size_t)sprintf(text, META ROOT);
	for (size_t i = 0; i < 7; i++)
		n += (size_t)sprintf(text + n, "{\"kind\":\"memory\",\"timestamp_ns\":1,\"tensor_id\":\"t\",\"span_id\":\"s\","
				     "\"device\":\"cpu\",\"bytes\":%s,\"action\":\"alloc\",\"dtype\":\"f32\"}\n", bytes[i]);
	n += (size_t)sprintf(text + n, "{\"kind\":\"memory\",\"timestamp_ns\":1,\"tensor_id\":\"t\",\"span_id\":\"s\","
			     "\"device\":\"cpu\",\"bytes\":8,\"action\":\"alloc\",\"dtype\":\"f32\",\"shape\":[4294967296,4294967297]}\n");
	n += (size_t)sprintf(text + n, MEMF, 2ull, "ok", 8ull, "alloc");
	const char *p = tu_write("numbers.jsonl", text, n);
	char *err = run_report(p, tu_path("out-numbers"), 0, NULL);
	for (int i = 0; i < 7; i++)
		if (!strstr(err, line_msg(p, 3 + i, why[i])))
			fail_msg("missing: %s\nin: %s", line_msg(p, 3 + i, why[i]), err);
	assert_non_null(strstr(err, line_msg(p, 10, "field \"shape\" has more than 2^64 - 1 elements")));
	free(err);
}

/* --- memory records that do not add up ------------------------------------------ */

static void a_million_ids_never_freed(void **state)
{
	const char *p = tu_path("million.jsonl");
	FILE *f = fopen(p, "wb");
	fputs(META ROOT, f);
	for (unsigned i = 0; i < 1000000; i++)
		fprintf(f, "{\"kind\":\"memory\",\"timestamp_ns\":%u,\"tensor_id\":\"t%u\",\"span_id\":\"s\",\"device\":\"cpu\","
			   "\"bytes\":%u,\"action\":\"alloc\",\"dtype\":\"u8\"}\n", i, i, 1 + i % 3);
	fclose(f);
	const char *out = tu_path("out-million");
	free(run_report(p, out, 0, NULL));
	cJSON *s = summary(out);
	/* 1,000,000 allocations of 1, 2, 3, 1, 2, 3, ... bytes: 333,334 + 2 x 333,333 + 3 x 333,333 */
	assert_int_equal(tu_json_u64(s, "devices", "0", "peak", "bytes", NULL), 333334ull + 666666ull + 999999ull);
	assert_int_equal(tu_json_u64(s, "devices", "0", "live_allocations_at_end", NULL), 1000000);
	cJSON_Delete(s);
	unlink(p);
}

static void strings_beyond_the_memory_limit_stop_with_a_clear_error(void **state)
{
	const char *p = tu_path("strings.jsonl");
	FILE *f = fopen(p, "wb");
	fputs(META ROOT, f);
	for (unsigned i = 0; i < 100000; i++)
		fprintf(f, MEMF, (unsigned long long)i, "a-rather-long-tensor-identifier", 8ull, "alloc");
	for (unsigned i = 0; i < 100000; i++)
		fprintf(f, "{\"kind\":\"memory\",\"timestamp_ns\":%u,\"tensor_id\":\"distinct-tensor-%u\",\"span_id\":\"s\","
			   "\"device\":\"cpu\",\"bytes\":8,\"action\":\"alloc\",\"dtype\":\"f32\"}\n", i, i);
	fclose(f);
	const char *out = tu_path("out-strings");
	snapshot before = take();
	char *se;
	assert_int_equal(tu_run(NULL, &se, NULL, "report", p, "-o", out, "--max-string-memory", "1MiB", NULL), 1);
	char msg[700];
	snprintf(msg, sizeof msg, "cgmem report: %s:", p);
	assert_non_null(strstr(se, msg));
	assert_non_null(strstr(se, ": the trace's strings exceed the limit of 1 MiB (raise it with --max-string-memory)"));
	free(se);
	assert_unchanged(&before);
	free(before.e);
	assert_false(tu_exists(out));
	/* the same trace within the default limit is fine */
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", p, "-o", out, "-q", "--no-trace", NULL), 0);
	unlink(p);
}

static void frees_twice_allocs_and_time_going_backwards(void **state)
{
	char text[4096];
	size_t n = (size_t)sprintf(text, META ROOT);
	n += (size_t)sprintf(text + n, MEMF, 50ull, "late", 1000ull, "alloc");  /* line 3: at t=50 */
	n += (size_t)sprintf(text + n, MEMF, 10ull, "a", 100ull, "alloc");      /* line 4: time goes back */
	n += (size_t)sprintf(text + n, MEMF, 20ull, "a", 300ull, "alloc");      /* line 5: a again, while live */
	n += (size_t)sprintf(text + n, MEMF, 30ull, "ghost", 40ull, "free");    /* line 6: never allocated */
	n += (size_t)sprintf(text + n, MEMF, 40ull, "a", 300ull, "free");       /* line 7 */
	n += (size_t)sprintf(text + n, MEMF, 60ull, "late", 1000ull, "free");   /* line 8 */
	const char *p = tu_write("anomalies.jsonl", text, n);
	const char *out = tu_path("out-anomalies");
	free(run_report(p, out, 0, NULL));
	cJSON *s = summary(out);
	/* in time order: 40 B live from the start (ghost); t10 +100 = 140; t20 a replaces a: +300 -100 = 340;
	 * t30 ghost freed: 300; t40 a freed: 0; t50 +1000 = 1000 (the peak); t60: 0 */
	assert_int_equal(tu_json_u64(s, "devices", "0", "peak", "bytes", NULL), 1000);
	assert_int_equal(tu_json_u64(s, "devices", "0", "peak", "time_ns", NULL), 50);
	assert_int_equal(tu_json_u64(s, "devices", "0", "before_trace_bytes", NULL), 40);
	assert_int_equal(tu_json_u64(s, "anomalies", "free_before_trace", "count", NULL), 1);
	assert_int_equal(tu_json_u64(s, "anomalies", "alloc_of_live_id", "count", NULL), 1);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(s, "anomalies", "alloc_of_live_id", "examples", "0", NULL)),
			    "line 5: \"a\" allocated on cpu while its allocation at line 4 was live");
	assert_int_equal(tu_json_u64(s, "devices", "0", "live_bytes_at_end", NULL), 0);
	cJSON_Delete(s);
}

static void duplicate_and_missing_meta(void **state)
{
	char text[2048];
	size_t n = (size_t)sprintf(text, META META ROOT MEMF, 1ull, "a", 8ull, "alloc");
	const char *p = tu_write("twometa.jsonl", text, n);
	free(run_report(p, tu_path("out-twometa"), 0,
			line_msg(p, 2, "warning: another meta record (the first is at line 1); its run metadata is ignored")));
	n = (size_t)sprintf(text, ROOT MEMF, 1ull, "a", 8ull, "alloc");
	p = tu_write("nometa.jsonl", text, n);
	char msg[600];
	snprintf(msg, sizeof msg, "%s: warning: no meta record: the run's metadata is unknown", p);
	free(run_report(p, tu_path("out-nometa"), 0, msg));
}

/* --- compressed files that are broken ---------------------------------------------- */

static void gzip_cut_short_or_with_a_bad_crc(void **state)
{
	size_t cap = 300000, n = 0;
	char *text = malloc(cap);
	n += (size_t)sprintf(text, META ROOT);
	for (unsigned i = 0; n < cap - 300; i++)
		n += (size_t)sprintf(text + n, MEMF, (unsigned long long)i, "t", (unsigned long long)(i * 7919 % 10007),
				     i % 2 ? "free" : "alloc");
	const char *full = tu_write_gz("full.jsonl.gz", text, n);
	free(text);
	size_t len;
	char *gz = tu_read(full, &len);
	const char *cut = tu_write("cut.jsonl.gz", gz, len / 2);
	const char *out = tu_path("out-cut");
	char msg[600];
	snprintf(msg, sizeof msg, "%s: warning: gzip stream ends before its end marker (file cut short)", cut);
	free(run_report(cut, out, 0, msg));
	cJSON *s = summary(out);
	assert_true(cJSON_IsTrue(tu_json_at(s, "source", "truncated", NULL)));
	cJSON_Delete(s);

	gz[len - 5] ^= 0x01; /* a bit of the CRC-32 */
	const char *bad = tu_write("badcrc.jsonl.gz", gz, len);
	snprintf(msg, sizeof msg, "cgmem report: %s: gzip data is corrupt (incorrect data check)", bad);
	free(run_report(bad, tu_path("out-badcrc"), 1, msg));
	free(gz);
}

/* --- inputs that are not files, outputs that are not folders -------------------------- */

static void a_directory_a_fifo_or_an_unreadable_file(void **state)
{
	const char *dir = tu_path("adir");
	mkdir(dir, 0755);
	char msg[600];
	snprintf(msg, sizeof msg, "cgmem report: %s: is a directory, not a trace file", dir);
	free(run_report(dir, tu_path("out-dir"), 1, msg));

	const char *fifo = tu_path("afifo");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	snprintf(msg, sizeof msg, "cgmem report: %s: the trace is empty", fifo);
	free(run_report(fifo, tu_path("out-fifo"), 1, msg));

	const char *locked = tu_write("locked.jsonl", META, (size_t)-1);
	chmod(locked, 0);
	if (geteuid() != 0) {
		snprintf(msg, sizeof msg, "cgmem report: %s: Permission denied", locked);
		free(run_report(locked, tu_path("out-locked"), 1, msg));
	}
	chmod(locked, 0644);
}

static void output_paths_that_are_not_folders(void **state)
{
	char text[1024];
	size_t n = (size_t)sprintf(text, META ROOT MEMF, 1ull, "a", 8ull, "alloc");
	const char *p = tu_write("ok.jsonl", text, n);
	const char *file = tu_write("out-isfile", "precious", 8);
	char msg[600];
	snprintf(msg, sizeof msg, "cgmem report: %s: exists and is not a folder", file);
	snapshot before = take();
	char *se;
	assert_int_equal(tu_run(NULL, &se, NULL, "report", p, "-o", file, NULL), 1);
	assert_non_null(strstr(se, msg));
	free(se);
	assert_unchanged(&before);
	free(before.e);
	char *kept = tu_read(file, NULL);
	assert_string_equal(kept, "precious");
	free(kept);

	const char *target = tu_path("elsewhere");
	mkdir(target, 0755);
	const char *link = tu_path("out-link");
	assert_int_equal(symlink(target, link), 0);
	before = take();
	assert_int_equal(tu_run(NULL, &se, NULL, "report", p, "-o", link, NULL), 1);
	assert_non_null(strstr(se, "out-link: is a symbolic link"));
	free(se);
	assert_unchanged(&before);
	free(before.e);

	if (geteuid() != 0) {
		const char *ro = tu_path("out-ro");
		mkdir(ro, 0555);
		char inside[600];
		snprintf(inside, sizeof inside, "%s/report", ro);
		assert_int_equal(tu_run(NULL, &se, NULL, "report", p, "-o", inside, NULL), 1);
		assert_non_null(strstr(se, "Permission denied"));
		free(se);
	}
}

static void names_with_markup_quotes_newlines_dots_and_10000_characters(void **state)
{
	char *longname = malloc(10001);
	memset(longname, 'n', 10000);
	longname[10000] = '\0';
	size_t cap = 40000, n = 0;
	char *text = malloc(cap);
	n += (size_t)sprintf(text, META);
	n += (size_t)sprintf(text + n, "{\"kind\":\"span_start\",\"id\":\"s\",\"name\":\"<script>alert(1)</script>\\\"q\\n../../etc\","
			     "\"start_ns\":0,\"span_kind\":\"module\",\"step\":\"forward\"}\n");
	n += (size_t)sprintf(text + n, "{\"kind\":\"span_start\",\"id\":\"../x\",\"parent_id\":\"s\",\"name\":\"%s\","
			     "\"start_ns\":1,\"span_kind\":\"op\"}\n", longname);
	n += (size_t)sprintf(text + n, "{\"kind\":\"memory\",\"timestamp_ns\":2,\"tensor_id\":\"../../evil\",\"span_id\":\"../x\","
			     "\"op_name\":\"%s\",\"device\":\"../cuda:0\",\"bytes\":64,\"action\":\"alloc\",\"dtype\":\"f32\"}\n",
			     longname);
	const char *p = tu_write("names.jsonl", text, n);
	free(text);
	free(longname);
	const char *out = tu_path("out-names");
	free(run_report(p, out, 0, NULL));
	/* the device's odd name became a safe file name inside the folder */
	char chart[600];
	snprintf(chart, sizeof chart, "%s/timeline.---cuda-0.png", out);
	assert_true(tu_exists(chart));
	cJSON *s = summary(out);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(s, "devices", "0", "name", NULL)), "../cuda:0");
	cJSON_Delete(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(an_empty_file),
		cmocka_unit_test(binary_garbage),
		cmocka_unit_test(nul_bytes_and_invalid_utf8_inside_lines),
		cmocka_unit_test(a_100_mb_line_is_skipped_as_too_long),
		cmocka_unit_test(json_nested_100000_deep),
		cmocka_unit_test(numbers_of_every_wrong_kind),
		cmocka_unit_test(a_million_ids_never_freed),
		cmocka_unit_test(strings_beyond_the_memory_limit_stop_with_a_clear_error),
		cmocka_unit_test(frees_twice_allocs_and_time_going_backwards),
		cmocka_unit_test(duplicate_and_missing_meta),
		cmocka_unit_test(gzip_cut_short_or_with_a_bad_crc),
		cmocka_unit_test(a_directory_a_fifo_or_an_unreadable_file),
		cmocka_unit_test(output_paths_that_are_not_folders),
		cmocka_unit_test(names_with_markup_quotes_newlines_dots_and_10000_characters),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
