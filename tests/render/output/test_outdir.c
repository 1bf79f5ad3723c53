/* The output folder (outdir.h), through its API: files go into a
 * temporary folder beside the target, which commit moves into place in one
 * rename and abort removes; a folder holding files cgmem did not write, a
 * file and a symbolic link are refused. The same behaviour through the
 * binary is tested in tests/cli/test_outdir_cli.c. */
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "outdir.h"

/* Entries of dir but . and .. (0 when it cannot be read). */
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

/* Does any entry of dir have a name containing part? */
static bool any_entry_with(const char *dir, const char *part)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	bool found = false;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		found |= strstr(e->d_name, part) != NULL;
	closedir(d);
	return found;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Writes name with text into the folder being made. */
static void put_in(cg_outdir *od, const char *name, const char *text)
{
	char *p = cg_outdir_path(od, name);
	put(p, text);
	free(p);
}

/* The text of dir/name; fails when it is missing. */
static char *text_of(const char *dir, const char *name)
{
	char p[700];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	char *s = tu_read(p, NULL);
	if (!s)
		fail_msg("%s is missing", p);
	return s;
}

static void assert_text(const char *dir, const char *name, const char *expected)
{
	char *s = text_of(dir, name);
	assert_string_equal(s, expected);
	free(s);
}

/* A folder written by cgmem (through begin and commit) holding names. */
static void make_report(const char *dir, const char *const *names, const char *text)
{
	cg_outdir *od;
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_outdir_begin(&od, dir, false, &err), 0);
	for (size_t i = 0; names[i]; i++)
		put_in(od, names[i], text);
	assert_int_equal(cg_outdir_commit(od, &err), 0);
}

static void a_new_folder_gets_the_files_and_a_manifest(void **state)
{
	const char *dir = tu_path("new");
	cg_outdir *od;
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_outdir_begin(&od, dir, false, &err), 0);
	assert_non_null(od);
	/* nothing appears at the target before commit */
	assert_false(tu_exists(dir));
	/* the files go into a hidden folder beside the target, so that the
	 * final rename stays on one file system */
	const char *tmp = cg_outdir_dir(od);
	char prefix[600];
	snprintf(prefix, sizeof prefix, "%s/.cgmem-tmp-", tu_tmpdir());
	assert_int_equal(strncmp(tmp, prefix, strlen(prefix)), 0);
	/* ".cgmem-tmp-", 16 hex digits of the target's tag, "-", 6 random */
	assert_int_equal(strlen(tmp) - strlen(tu_tmpdir()) - 1, 34);
	struct stat st;
	assert_int_equal(stat(tmp, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	char *p = cg_outdir_path(od, "summary.json");
	char expected[700];
	snprintf(expected, sizeof expected, "%s/summary.json", tmp);
	assert_string_equal(p, expected);
	put(p, "{}");
	free(p);
	put_in(od, "report.md", "# r\n");
	ino_t tmp_inode = st.st_ino;
	assert_int_equal(cg_outdir_commit(od, &err), 0);

	/* the folder that was written is the one now at the target: a rename */
	assert_int_equal(stat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_ino, tmp_inode);
	assert_text(dir, "summary.json", "{}");
	assert_text(dir, "report.md", "# r\n");
	/* the manifest lists what was written, one name a line */
	assert_text(dir, CG_OUTDIR_MANIFEST, "summary.json\nreport.md\n");
	assert_int_equal(entries(dir), 3);
	/* and nothing is left beside it */
	assert_int_equal(entries(tu_tmpdir()), 1);
}

/* mkdtemp makes a private folder; a report is shared as any other file. */
static void the_folder_gets_the_usual_permissions(void **state)
{
	mode_t old = umask(022);
	const char *dir = tu_path("perm");
	make_report(dir, (const char *const[]){"a", NULL}, "x");
	struct stat st;
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0755);
	umask(old);
}

/* Two outputs of one name would overwrite each other: the second is
 * refused, and so is the manifest's name. */
static void a_name_asked_for_twice_is_refused(void **state)
{
	const char *dir = tu_path("twice");
	cg_outdir *od;
	assert_int_equal(cg_outdir_begin(&od, dir, false, NULL), 0);
	char *a = cg_outdir_path(od, "chart.png");
	assert_non_null(a);
	assert_null(cg_outdir_path(od, "chart.png"));
	cg_error err = CG_ERROR_INIT;
	char *b = (char *)"not NULL";
	assert_int_equal(cg_outdir_file(od, "chart.png", &b, &err), CG_EUSAGE);
	assert_null(b);
	char expected[700];
	snprintf(expected, sizeof expected, "%s: two files of the report are both named 'chart.png'", dir);
	assert_string_equal(err.msg, expected);
	assert_int_equal(cg_outdir_file(od, CG_OUTDIR_MANIFEST, &b, &err), CG_EUSAGE);
	assert_null(b);
	put(a, "png");
	free(a);
	/* a name asked for but never written is listed too: it is cgmem's */
	free(cg_outdir_path(od, "never.svg"));
	assert_int_equal(cg_outdir_commit(od, NULL), 0);
	assert_text(dir, CG_OUTDIR_MANIFEST, "chart.png\nnever.svg\n");
}

static void an_earlier_report_is_replaced_as_a_whole(void **state)
{
	const char *dir = tu_path("again");
	make_report(dir, (const char *const[]){"summary.json", "old.png", NULL}, "old");
	cg_outdir *od;
	cg_error err = CG_ERROR_INIT;
	/* cgmem's own folder needs no force */
	assert_int_equal(cg_outdir_begin(&od, dir, false, &err), 0);
	put_in(od, "summary.json", "new");
	/* until commit, the old report is there as it was */
	assert_text(dir, "summary.json", "old");
	assert_text(dir, "old.png", "old");
	assert_int_equal(cg_outdir_commit(od, &err), 0);
	assert_text(dir, "summary.json", "new");
	/* a file of the old report that the new one does not write is gone */
	assert_false(tu_exists(tu_path("again/old.png")));
	assert_text(dir, CG_OUTDIR_MANIFEST, "summary.json\n");
	/* neither the new folder's temporary name nor the old report is left */
	assert_int_equal(entries(tu_tmpdir()), 1);
	assert_false(any_entry_with(tu_tmpdir(), "cgmem-tmp"));
	assert_false(any_entry_with(tu_tmpdir(), "cgmem-old"));
}

static void abort_leaves_the_old_report_intact(void **state)
{
	const char *dir = tu_path("kept");
	make_report(dir, (const char *const[]){"summary.json", NULL}, "old");
	cg_outdir *od;
	assert_int_equal(cg_outdir_begin(&od, dir, false, NULL), 0);
	put_in(od, "summary.json", "half");
	put_in(od, "extra.md", "half");
	char *tmp = strdup(cg_outdir_dir(od));
	cg_outdir_abort(od);
	assert_false(tu_exists(tmp));
	free(tmp);
	assert_text(dir, "summary.json", "old");
	assert_text(dir, CG_OUTDIR_MANIFEST, "summary.json\n");
	assert_int_equal(entries(dir), 2);
	assert_int_equal(entries(tu_tmpdir()), 1);
	/* a new folder aborted leaves nothing at all */
	assert_int_equal(cg_outdir_begin(&od, tu_path("never"), false, NULL), 0);
	put_in(od, "a", "a");
	cg_outdir_abort(od);
	assert_false(tu_exists(tu_path("never")));
	assert_int_equal(entries(tu_tmpdir()), 1);
	cg_outdir_abort(NULL); /* a no-op */
}

/* When the manifest cannot be written the commit fails and the old report
 * stays (someone removed the temporary folder under us). */
static void a_failed_commit_leaves_the_old_report_intact(void **state)
{
	const char *dir = tu_path("failed");
	make_report(dir, (const char *const[]){"summary.json", NULL}, "old");
	cg_outdir *od;
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_outdir_begin(&od, dir, false, &err), 0);
	put_in(od, "summary.json", "new");
	assert_int_equal(cg_remove_tree(cg_outdir_dir(od)), 0);
	assert_int_equal(cg_outdir_commit(od, &err), CG_EIO);
	assert_non_null(strstr(err.msg, CG_OUTDIR_MANIFEST));
	assert_text(dir, "summary.json", "old");
	assert_int_equal(entries(tu_tmpdir()), 1);
}

static void a_folder_with_other_files_is_refused_unless_forced(void **state)
{
	const char *dir = tu_path("mine");
	assert_int_equal(mkdir(dir, 0755), 0);
	tu_write("mine/notes.txt", "keep me", 7);
	cg_outdir *od = (cg_outdir *)&od; /* not NULL: begin must clear it */
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_outdir_begin(&od, dir, false, &err), CG_EIO);
	assert_null(od);
	assert_non_null(strstr(err.msg, "mine: holds files cgmem did not write (notes.txt); use --force"));
	/* refused before anything was made */
	assert_int_equal(entries(tu_tmpdir()), 1);
	assert_text(dir, "notes.txt", "keep me");

	assert_int_equal(cg_outdir_begin(&od, dir, true, &err), 0);
	put_in(od, "summary.json", "{}");
	assert_int_equal(cg_outdir_commit(od, &err), 0);
	assert_false(tu_exists(tu_path("mine/notes.txt")));
	assert_text(dir, "summary.json", "{}");
}

/* A file added to cgmem's folder later is not cgmem's: the manifest says
 * which names are, exactly (a name that only starts like one is not). */
static void a_file_added_to_a_report_is_a_stranger(void **state)
{
	const char *dir = tu_path("added");
	make_report(dir, (const char *const[]){"summary.json", NULL}, "{}");
	tu_write("added/summary", "mine", 4);
	cg_error err = CG_ERROR_INIT;
	cg_outdir *od;
	assert_int_equal(cg_outdir_begin(&od, dir, false, &err), CG_EIO);
	assert_non_null(strstr(err.msg, "(summary)"));
	assert_int_equal(unlink(tu_path("added/summary")), 0);

	/* without its manifest, every file is a stranger */
	assert_int_equal(unlink(tu_path("added/" CG_OUTDIR_MANIFEST)), 0);
	assert_int_equal(cg_outdir_begin(&od, dir, false, &err), CG_EIO);
	assert_non_null(strstr(err.msg, "(summary.json)"));
	assert_text(dir, "summary.json", "{}");
}

/* An empty folder holds nothing to lose. */
static void an_empty_folder_is_accepted(void **state)
{
	const char *dir = tu_path("empty");
	assert_int_equal(mkdir(dir, 0755), 0);
	cg_outdir *od;
	assert_int_equal(cg_outdir_begin(&od, dir, false, NULL), 0);
	put_in(od, "a.txt", "a");
	assert_int_equal(cg_outdir_commit(od, NULL), 0);
	assert_text(dir, "a.txt", "a");
}

static void a_file_or_a_symlink_is_not_an_output_folder(void **state)
{
	const char *file = tu_write("afile", "x", 1);
	cg_outdir *od;
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_outdir_begin(&od, file, false, &err), CG_EIO);
	assert_non_null(strstr(err.msg, "afile: exists and is not a folder"));
	assert_int_equal(cg_outdir_begin(&od, file, true, &err), CG_EIO);
	assert_text(tu_tmpdir(), "afile", "x");

	const char *target = tu_path("target");
	assert_int_equal(mkdir(target, 0755), 0);
	const char *link = tu_path("link");
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(cg_outdir_begin(&od, link, false, &err), CG_EIO);
	assert_non_null(strstr(err.msg, "link: is a symbolic link"));
	/* force does not make a symlink acceptable */
	assert_int_equal(cg_outdir_begin(&od, link, true, &err), CG_EIO);
	assert_null(od);
	assert_int_equal(entries(target), 0);
	/* nor one that points nowhere */
	const char *dangling = tu_path("dangling");
	assert_int_equal(symlink(tu_path("nowhere"), dangling), 0);
	assert_int_equal(cg_outdir_begin(&od, dangling, true, &err), CG_EIO);
	assert_non_null(strstr(err.msg, "dangling: is a symbolic link"));
	assert_false(tu_exists(tu_path("nowhere")));
	assert_false(any_entry_with(tu_tmpdir(), "cgmem-tmp"));
}

static void a_missing_parent_is_a_clear_error(void **state)
{
	cg_outdir *od;
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_outdir_begin(&od, tu_path("no/such/parent/out"), false, &err), CG_EIO);
	assert_null(od);
	assert_non_null(strstr(err.msg, "no/such/parent: cannot create the output folder there: "
					"No such file or directory"));
}

static void an_empty_name_is_a_usage_error(void **state)
{
	cg_outdir *od;
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_outdir_begin(&od, "", false, &err), CG_EUSAGE);
	assert_null(od);
	assert_non_null(strstr(err.msg, "empty"));
}

/* A relative name without a slash is made in the current folder, and a
 * trailing slash names the same folder. */
static void relative_names_and_trailing_slashes(void **state)
{
	char cwd[1024];
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(tu_tmpdir()), 0);
	make_report("rel", (const char *const[]){"a", NULL}, "1");
	make_report("rel/", (const char *const[]){"b", NULL}, "2");
	assert_int_equal(chdir(cwd), 0);
	const char *dir = tu_path("rel");
	assert_text(dir, "b", "2");
	assert_false(tu_exists(tu_path("rel/a")));
	assert_int_equal(entries(tu_tmpdir()), 1);
}

/* What begin says when the parent is read-only; run as a user without
 * root's rights to write anywhere. */
static int begin_in_read_only_parent(const char *ro)
{
	char out[700];
	snprintf(out, sizeof out, "%s/out", ro);
	cg_outdir *od;
	cg_error err = CG_ERROR_INIT;
	if (cg_outdir_begin(&od, out, false, &err) != CG_EIO)
		return 1;
	if (!strstr(err.msg, "cannot create the output folder there: Permission denied"))
		return 2;
	return tu_exists(out) ? 3 : 0;
}

static void a_read_only_parent_is_a_clear_error(void **state)
{
	const char *ro = tu_path("ro");
	assert_int_equal(mkdir(ro, 0555), 0);
	if (geteuid() != 0) {
		assert_int_equal(begin_in_read_only_parent(ro), 0);
		return;
	}
	/* Root writes anywhere: a child process drops to nobody. The test
	 * folder (mkdtemp's, private) must let it in. */
	assert_int_equal(chmod(tu_tmpdir(), 0755), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(77);
		_exit(begin_in_read_only_parent(ro));
	}
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	assert_int_equal(chmod(tu_tmpdir(), 0700), 0);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77) {
		print_message("cannot drop root's rights here: skipped\n");
		skip();
	}
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* cg_remove_tree removes a tree without following symbolic links: what a
 * link inside points to survives. */
static void remove_tree_removes_everything_but_what_links_point_to(void **state)
{
	/* tu_path's buffers rotate: keep copies */
	char *outside = strdup(tu_path("outside")), *root = strdup(tu_path("tree"));
	assert_int_equal(mkdir(outside, 0755), 0);
	tu_write("outside/precious", "keep", 4);
	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(mkdir(tu_path("tree/a"), 0755), 0);
	assert_int_equal(mkdir(tu_path("tree/a/b"), 0755), 0);
	tu_write("tree/top", "1", 1);
	tu_write("tree/a/mid", "2", 1);
	tu_write("tree/a/b/deep", "3", 1);
	tu_write("tree/a/b/.hidden", "4", 1);
	assert_int_equal(symlink(outside, tu_path("tree/a/link")), 0);
	assert_int_equal(symlink(tu_path("outside/precious"), tu_path("tree/filelink")), 0);
	assert_int_equal(cg_remove_tree(root), 0);
	assert_false(tu_exists(root));
	assert_text(outside, "precious", "keep");
	assert_int_equal(entries(outside), 1);
	/* a tree that is not there is an error */
	assert_true(cg_remove_tree(root) != 0);
	free(root);
	free(outside);
	/* a single file is a tree of one */
	const char *lone = tu_write("lone", "x", 1);
	assert_int_equal(cg_remove_tree(lone), 0);
	assert_false(tu_exists(lone));
}

/* Each test starts in a fresh temporary folder, so counts of its entries
 * say what was left behind. */
static int teardown(void **state)
{
	tu_cleanup();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(a_new_folder_gets_the_files_and_a_manifest, teardown),
		cmocka_unit_test_teardown(the_folder_gets_the_usual_permissions, teardown),
		cmocka_unit_test_teardown(a_name_asked_for_twice_is_refused, teardown),
		cmocka_unit_test_teardown(an_earlier_report_is_replaced_as_a_whole, teardown),
		cmocka_unit_test_teardown(abort_leaves_the_old_report_intact, teardown),
		cmocka_unit_test_teardown(a_failed_commit_leaves_the_old_report_intact, teardown),
		cmocka_unit_test_teardown(a_folder_with_other_files_is_refused_unless_forced, teardown),
		cmocka_unit_test_teardown(a_file_added_to_a_report_is_a_stranger, teardown),
		cmocka_unit_test_teardown(an_empty_folder_is_accepted, teardown),
		cmocka_unit_test_teardown(a_file_or_a_symlink_is_not_an_output_folder, teardown),
		cmocka_unit_test_teardown(a_missing_parent_is_a_clear_error, teardown),
		cmocka_unit_test_teardown(an_empty_name_is_a_usage_error, teardown),
		cmocka_unit_test_teardown(relative_names_and_trailing_slashes, teardown),
		cmocka_unit_test_teardown(a_read_only_parent_is_a_clear_error, teardown),
		cmocka_unit_test_teardown(remove_tree_removes_everything_but_what_links_point_to, teardown),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
