/* The output folder through the binary: `cgmem report -o DIR` writes it
 * completely or not at all (the unit tests of outdir.h are in
 * tests/render/output/test_outdir.c). */
#include "runutil.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outdir.h"

static int report(const char *dir, const char *extra, char **err)
{
	return tu_run(NULL, err, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", dir, "-q", extra, NULL);
}

static size_t entries(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void a_new_folder_gets_the_report_and_a_manifest(void **state)
{
	const char *dir = tu_path("new");
	assert_int_equal(report(dir, NULL, NULL), 0);
	char p[600];
	snprintf(p, sizeof p, "%s/summary.json", dir);
	assert_true(tu_exists(p));
	snprintf(p, sizeof p, "%s/" CG_OUTDIR_MANIFEST, dir);
	char *manifest = tu_read(p, NULL);
	assert_non_null(strstr(manifest, "summary.json\n"));
	free(manifest);
	/* nothing is left beside it */
	assert_int_equal(entries(tu_tmpdir()) - 2, 1); /* .stdout/.stderr of tu_run */
}

static void an_earlier_report_is_replaced(void **state)
{
	const char *dir = tu_path("again");
	assert_int_equal(report(dir, NULL, NULL), 0);
	char p[600];
	snprintf(p, sizeof p, "%s/summary.json", dir);
	tu_write("again/summary.json", "stale", 5);
	assert_int_equal(report(dir, NULL, NULL), 0);
	char *s = tu_read(p, NULL);
	assert_non_null(strstr(s, "cgmem/summary/1"));
	free(s);
}

static void a_folder_with_other_files_is_refused_unless_forced(void **state)
{
	const char *dir = tu_path("mine");
	assert_int_equal(mkdir(dir, 0755), 0);
	tu_write("mine/notes.txt", "keep me", 7);
	char *err;
	assert_int_equal(report(dir, NULL, &err), 1);
	assert_non_null(strstr(err, "holds files cgmem did not write (notes.txt); use --force"));
	free(err);
	char *notes = tu_read(tu_path("mine/notes.txt"), NULL);
	assert_string_equal(notes, "keep me");
	free(notes);
	assert_int_equal(entries(dir), 1);

	assert_int_equal(report(dir, "--force", NULL), 0);
	assert_false(tu_exists(tu_path("mine/notes.txt")));
	assert_true(tu_exists(tu_path("mine/summary.json")));
}

static void a_file_or_a_symlink_is_not_an_output_folder(void **state)
{
	const char *file = tu_write("afile", "x", 1);
	char *err;
	assert_int_equal(report(file, NULL, &err), 1);
	assert_non_null(strstr(err, "afile: exists and is not a folder"));
	free(err);

	const char *target = tu_path("target");
	assert_int_equal(mkdir(target, 0755), 0);
	const char *link = tu_path("link");
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(report(link, NULL, &err), 1);
	assert_non_null(strstr(err, "link: is a symbolic link"));
	free(err);
	assert_int_equal(entries(target), 0);
	/* --force does not make a symlink acceptable */
	assert_int_equal(report(link, "--force", NULL), 1);
}

static void a_missing_parent_is_a_clear_error(void **state)
{
	char *err;
	assert_int_equal(report(tu_path("no/such/parent/out"), NULL, &err), 1);
	assert_non_null(strstr(err, "cannot create the output folder there: No such file or directory"));
	free(err);
}

/* A write that fails half-way (the file size limit stands in for a full
 * disk, and works even for root) leaves the earlier report untouched. */
static void a_failure_half_way_leaves_the_old_report_intact(void **state)
{
	const char *dir = tu_path("intact");
	assert_int_equal(report(dir, NULL, NULL), 0);
	char p[600];
	snprintf(p, sizeof p, "%s/summary.json", dir);
	char *before = tu_read(p, NULL);

	char cmd[2048];
	snprintf(cmd, sizeof cmd, "trap '' XFSZ; ulimit -f 1; exec '%s' report '%s' -o '%s' -q 2>'%s'",
		 CGMEM_BIN, tu_sample("leak_loss_history.jsonl"), dir, tu_path("xfsz.err"));
	int status = system(cmd);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
	char *err = tu_read(tu_path("xfsz.err"), NULL);
	assert_non_null(strstr(err, "File too large"));
	free(err);

	char *after = tu_read(p, NULL);
	assert_string_equal(before, after);
	free(before);
	free(after);
	/* no temporary folder is left behind */
	DIR *d = opendir(tu_tmpdir());
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		assert_null(strstr(e->d_name, "cgmem-tmp"));
	closedir(d);
}

static void a_read_only_parent_is_a_clear_error(void **state)
{
	if (geteuid() == 0)
		skip(); /* root writes anywhere; the test above covers failure for root */
	const char *ro = tu_path("ro");
	assert_int_equal(mkdir(ro, 0555), 0);
	char *err;
	assert_int_equal(report(tu_path("ro/out"), NULL, &err), 1);
	assert_non_null(strstr(err, "Permission denied"));
	free(err);
}

/* --trace may not take a name the report gives a file of its own: the
 * Chrome trace would replace it. A usage error, before anything is read. */
static void a_trace_named_like_the_reports_own_files_is_refused(void **state)
{
	char *dir = strdup(tu_path("own"));
	char inside[700];
	snprintf(inside, sizeof inside, "%s/summary.json", dir); /* the folder's own path, as --trace takes it */
	const char *const names[] = {"summary.json", inside};
	for (size_t i = 0; i < 2; i++) {
		char *err;
		char opt[800];
		snprintf(opt, sizeof opt, "--trace=%s", names[i]);
		assert_int_equal(tu_run(NULL, &err, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", dir, opt, NULL),
				 2);
		char expected[1000];
		snprintf(expected, sizeof expected,
			 "cgmem report: --trace: '%s' is the name of a file the report writes itself; choose another "
			 "name\nTry 'cgmem help report'.\n",
			 names[i]);
		assert_string_equal(err, expected);
		free(err);
	}
	assert_false(tu_exists(dir));
	/* another .json name is the trace's */
	assert_int_equal(report(dir, "--trace=summary2.json", NULL), 0);
	char p[600];
	snprintf(p, sizeof p, "%s/summary.json", dir);
	char *s = tu_read(p, NULL);
	assert_non_null(strstr(s, "cgmem/summary/1"));
	free(s);
	snprintf(p, sizeof p, "%s/summary2.json", dir);
	s = tu_read(p, NULL);
	assert_non_null(strstr(s, "traceEvents"));
	free(s);
	free(dir);
}

/* As summary and check: lines that cannot be written are exit 1, with a
 * message; the report folder, already complete, stays. */
static void a_full_standard_output_is_exit_1_and_the_report_stays(void **state)
{
	const char *dir = tu_path("full");
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "exec '%s' report '%s' -o '%s' >/dev/full 2>'%s'", CGMEM_BIN,
		 tu_sample("mlp_adam.jsonl"), dir, tu_path("full.err"));
	int status = system(cmd);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
	char *err = tu_read(tu_path("full.err"), NULL);
	char expected[800];
	snprintf(expected, sizeof expected,
		 "cgmem report: cannot write to standard output: No space left on device (the report in %s is "
		 "complete)\n",
		 dir);
	assert_string_equal(err, expected);
	free(err);
	char p[600];
	snprintf(p, sizeof p, "%s/summary.json", dir);
	assert_true(tu_exists(p));
	snprintf(p, sizeof p, "%s/report.html", dir);
	assert_true(tu_exists(p));
}

/* A folder name of NAME_MAX bytes is legal: written, then replaced. */
static void an_output_name_of_255_bytes_works(void **state)
{
	char name[256];
	memset(name, 'r', 255);
	name[255] = '\0';
	char *dir = strdup(tu_path(name));
	char *err;
	assert_int_equal(report(dir, NULL, &err), 0);
	assert_string_equal(err, "");
	free(err);
	assert_int_equal(report(dir, NULL, &err), 0);
	free(err);
	char p[900];
	snprintf(p, sizeof p, "%s/report.md", dir);
	assert_true(tu_exists(p));
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_new_folder_gets_the_report_and_a_manifest),
		cmocka_unit_test(an_earlier_report_is_replaced),
		cmocka_unit_test(a_folder_with_other_files_is_refused_unless_forced),
		cmocka_unit_test(a_file_or_a_symlink_is_not_an_output_folder),
		cmocka_unit_test(a_missing_parent_is_a_clear_error),
		cmocka_unit_test(a_failure_half_way_leaves_the_old_report_intact),
		cmocka_unit_test(a_read_only_parent_is_a_clear_error),
		cmocka_unit_test(a_trace_named_like_the_reports_own_files_is_refused),
		cmocka_unit_test(a_full_standard_output_is_exit_1_and_the_report_stays),
		cmocka_unit_test(an_output_name_of_255_bytes_works),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
