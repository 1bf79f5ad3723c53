/* The output folder (outdir.h), through its API: files go into a
 * temporary folder beside the target, which commit moves into place in one
 * rename and abort removes; a folder holding files cgmem did not write, a
 * file and a symbolic link are refused. The same behaviour through the
 * binary is tested in tests/cli/test_outdir_cli.c. */
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "outdir.h"
#include "xalloc.h"

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

static void assert_text(const char *dir, const char *name, const char *expected)
{
	char *s = tu_read_in(dir, name, NULL);
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

/* Names of entries of dir that start with prefix, counted. */
static size_t entries_starting(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

/* The first entry of dir starting with prefix, copied into buf. */
static bool entry_starting(const char *dir, const char *prefix, char *buf, size_t size)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	bool found = false;
	struct dirent *e;
	while (!found && (e = readdir(d)) != NULL)
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
			snprintf(buf, size, "%.63s", e->d_name);
			found = true;
		}
	closedir(d);
	return found;
}

/* A name of NAME_MAX bytes is a legal folder name: its temporary folder's
 * name does not grow with it. */
static void a_target_name_of_255_bytes_is_written_and_replaced(void **state)
{
	char name[256];
	memset(name, 'n', 255);
	name[255] = '\0';
	char *dir = strdup(tu_path(name));
	make_report(dir, (const char *const[]){"summary.json", NULL}, "first");
	assert_text(dir, "summary.json", "first");
	make_report(dir, (const char *const[]){"summary.json", NULL}, "second");
	assert_text(dir, "summary.json", "second");
	assert_int_equal(entries(tu_tmpdir()), 1);
	free(dir);
}

/* What a run killed while writing leaves: its temporary folder, with a
 * file in it (a child that begins and is killed). */
static void killed_run(const char *dir)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		cg_outdir *od;
		if (cg_outdir_begin(&od, dir, false, NULL) < 0)
			_exit(1);
		put_in(od, "summary.json", "half");
		kill(getpid(), SIGKILL);
		_exit(2);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
}

static void stale_folders_of_the_same_output_are_removed(void **state)
{
	char *dir = strdup(tu_path("out")), *other = strdup(tu_path("other"));
	make_report(dir, (const char *const[]){"summary.json", NULL}, "old");
	/* each run removes what the one killed before it left */
	for (int i = 0; i < 3; i++) {
		killed_run(dir);
		assert_int_equal(entries_starting(tu_tmpdir(), ".cgmem-tmp-"), 1);
	}
	killed_run(other);
	assert_int_equal(entries_starting(tu_tmpdir(), ".cgmem-tmp-"), 2);
	assert_text(dir, "summary.json", "old");
	cg_outdir *od;
	assert_int_equal(cg_outdir_begin(&od, dir, false, NULL), 0);
	/* begin removed out's; other's is not out's to remove: other's and
	 * this run's own are left */
	assert_int_equal(entries_starting(tu_tmpdir(), ".cgmem-tmp-"), 2);
	cg_outdir_abort(od);
	assert_int_equal(entries_starting(tu_tmpdir(), ".cgmem-tmp-"), 1);
	assert_text(dir, "summary.json", "old");
	assert_int_equal(cg_outdir_begin(&od, other, false, NULL), 0);
	cg_outdir_abort(od);
	assert_int_equal(entries_starting(tu_tmpdir(), ".cgmem-tmp-"), 0);
	free(dir);
	free(other);
}

/* A folder being written is locked by its run: a second run on the same
 * output (here in the same process, as the lock is per open file) leaves
 * it alone, and both commit. */
static void a_live_runs_folder_is_left_alone(void **state)
{
	const char *dir = tu_path("live");
	cg_outdir *a, *b;
	assert_int_equal(cg_outdir_begin(&a, dir, false, NULL), 0);
	put_in(a, "a.txt", "a");
	assert_int_equal(cg_outdir_begin(&b, dir, false, NULL), 0);
	assert_true(tu_exists(cg_outdir_dir(a)));
	put_in(b, "b.txt", "b");
	assert_int_equal(cg_outdir_commit(a, NULL), 0);
	assert_int_equal(cg_outdir_commit(b, NULL), 0);
	assert_text(dir, "b.txt", "b");
	assert_false(tu_exists(tu_path("live/a.txt")));
	assert_int_equal(entries(tu_tmpdir()), 1);
}

/* A run on a file system without an atomic exchange moves the old report
 * aside (locked) before it moves the new one in; killed between the two,
 * it leaves the old report aside and no target: the next run puts the old
 * report back before anything else. */
static void an_old_report_left_aside_is_put_back(void **state)
{
	char *dir = strdup(tu_path("aside"));
	make_report(dir, (const char *const[]){"summary.json", NULL}, "old");
	killed_run(dir);
	char tmp[64], old[64];
	assert_true(entry_starting(tu_tmpdir(), ".cgmem-tmp-", tmp, sizeof tmp));
	/* the old report, aside under the name such a run gives it */
	snprintf(old, sizeof old, ".cgmem-old-%s", tmp + strlen(".cgmem-tmp-"));
	char from[700], to[700];
	snprintf(to, sizeof to, "%s/%s", tu_tmpdir(), old);
	assert_int_equal(rename(dir, to), 0);
	snprintf(from, sizeof from, "%s/%s", tu_tmpdir(), tmp);
	cg_outdir *od;
	assert_int_equal(cg_outdir_begin(&od, dir, false, NULL), 0);
	assert_text(dir, "summary.json", "old");
	cg_outdir_abort(od);
	assert_text(dir, "summary.json", "old");
	assert_false(tu_exists(from));
	assert_false(tu_exists(to));
	assert_int_equal(entries(tu_tmpdir()), 1);
	free(dir);
}

/* Runs body in a child process that caught the signals as cgmem does, and
 * returns its wait status. */
static int in_child(void (*body)(const char *dir), const char *dir)
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		cg_outdir_catch_signals();
		body(dir);
		_exit(0);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

static int signal_to_send;

static void begin_then_signal(const char *dir)
{
	cg_outdir *od;
	if (cg_outdir_begin(&od, dir, false, NULL) < 0)
		_exit(1);
	put_in(od, "summary.json", "half");
	raise(signal_to_send);
	_exit(2);
}

static void *write_files(void *arg)
{
	const char *tmp = arg;
	for (unsigned i = 0;; i++) {
		char p[700];
		snprintf(p, sizeof p, "%s/f%u.png", tmp, i % 1000);
		FILE *f = fopen(p, "w");
		if (f) {
			fputs("pixels", f);
			fclose(f);
		}
	}
	return NULL;
}

/* As charts do: worker threads write files into the folder while the
 * signal comes. Two of them create files about as fast as the handler
 * unlinks them, which kept a listing of the folder from ever ending. */
static void begin_then_signal_while_threads_write(const char *dir)
{
	cg_outdir *od;
	if (cg_outdir_begin(&od, dir, false, NULL) < 0)
		_exit(1);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, write_files, (void *)cg_outdir_dir(od));
	struct timespec ts = {0, 20 * 1000 * 1000};
	nanosleep(&ts, NULL);
	raise(signal_to_send);
	_exit(2);
}

static void signals_remove_the_folder_and_end_the_process_by_the_signal(void **state)
{
	const char *dir = tu_path("sig");
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (int threaded = 0; threaded < 2; threaded++)
		for (size_t k = 0; k < 3; k++) {
			make_report(dir, (const char *const[]){"summary.json", NULL}, "old");
			signal_to_send = sigs[k];
			int status = in_child(threaded ? begin_then_signal_while_threads_write : begin_then_signal, dir);
			assert_true(WIFSIGNALED(status));
			assert_int_equal(WTERMSIG(status), sigs[k]);
			assert_text(dir, "summary.json", "old");
			/* only the old report is left */
			assert_int_equal(entries(tu_tmpdir()), 1);
		}
}

static void *failing_malloc(size_t n)
{
	(void)n;
	return NULL;
}

static void begin_then_run_out_of_memory(const char *dir)
{
	cg_outdir *od;
	if (cg_outdir_begin(&od, dir, false, NULL) < 0)
		_exit(3);
	put_in(od, "summary.json", "half");
	cg_set_allocator(&(cg_allocator){failing_malloc, realloc, free});
	cg_malloc(100); /* exits through cgmem's out-of-memory path */
	_exit(2);
}

static void running_out_of_memory_removes_the_folder(void **state)
{
	const char *dir = tu_path("oom");
	make_report(dir, (const char *const[]){"summary.json", NULL}, "old");
	int status = in_child(begin_then_run_out_of_memory, dir);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
	assert_text(dir, "summary.json", "old");
	assert_int_equal(entries(tu_tmpdir()), 1);
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
		cmocka_unit_test_teardown(a_target_name_of_255_bytes_is_written_and_replaced, teardown),
		cmocka_unit_test_teardown(stale_folders_of_the_same_output_are_removed, teardown),
		cmocka_unit_test_teardown(a_live_runs_folder_is_left_alone, teardown),
		cmocka_unit_test_teardown(an_old_report_left_aside_is_put_back, teardown),
		cmocka_unit_test_teardown(signals_remove_the_folder_and_end_the_process_by_the_signal, teardown),
		cmocka_unit_test_teardown(running_out_of_memory_removes_the_folder, teardown),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
