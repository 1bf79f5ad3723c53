/* A report stopped while it writes, through the binary: killed (-9) at 20
 * moments spread over its writing (more until 10 have struck), the earlier
 * report is intact every
 * time and the next run removes what the killed one left; SIGTERM, SIGINT
 * and SIGHUP leave nothing and end the process by the same signal; a file
 * over the size limit is an error, not a SIGXFSZ death; two runs on one
 * output at once both finish and leave one complete report. (The same
 * through the API, with out of memory: tests/render/output/test_outdir.c.) */
#include "runutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "outdir.h"

/* The largest sample, so that writing takes long enough to be hit. */
#define SAMPLE "leak_loss_history.jsonl"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	if (s <= 0)
		return;
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Temporary folders (and old reports moved aside) in dir, of this
 * version (.cgmem-tmp-*) or an earlier one (.OUT.cgmem-tmp-*). */
static size_t debris(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		n += strstr(e->d_name, "cgmem-tmp-") != NULL || strstr(e->d_name, "cgmem-old-") != NULL;
	closedir(d);
	return n;
}

/* Starts `cgmem report SAMPLE -o out -q`, stderr into err_path (NULL: none),
 * with a file size limit of fsize bytes (0: none). */
static pid_t start_report(const char *out, const char *err_path, rlim_t fsize)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		int err = err_path ? open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : null;
		dup2(null, 0);
		dup2(null, 1);
		dup2(err, 2);
		/* whatever our runner ignores, the report gets the defaults */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGXFSZ, SIG_DFL);
		if (fsize) {
			struct rlimit r = {fsize, fsize};
			setrlimit(RLIMIT_FSIZE, &r);
		}
		execl(CGMEM_BIN, "cgmem", "report", tu_sample(SAMPLE), "-o", out, "-q", (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int wait_for(pid_t pid)
{
	int status;
	while (waitpid(pid, &status, 0) < 0)
		assert_int_equal(errno, EINTR);
	return status;
}

/* Waits until the run has made its temporary folder in dir; false when it
 * ended first (*status then says how). */
static bool wait_for_tmp(pid_t pid, const char *dir, int *status)
{
	double give_up = now() + 120;
	while (debris(dir) == 0) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return false;
		if (now() > give_up)
			fail_msg("no temporary folder appeared in 120 s");
		sleep_s(0.0002);
	}
	return true;
}

/* A folder's files and their bytes. */
typedef struct snap {
	size_t n;
	char *names[128];
	char *data[128];
	size_t len[128];
} snap;

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void take_snap(snap *s, const char *dir)
{
	memset(s, 0, sizeof *s);
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			assert_true(s->n < 128);
			s->names[s->n++] = strdup(e->d_name);
		}
	closedir(d);
	qsort(s->names, s->n, sizeof s->names[0], by_name);
	for (size_t i = 0; i < s->n; i++) {
		char path[1200];
		snprintf(path, sizeof path, "%s/%s", dir, s->names[i]);
		s->data[i] = tu_read(path, &s->len[i]);
		assert_non_null(s->data[i]);
	}
}

static void free_snap(snap *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->names[i]);
		free(s->data[i]);
	}
}

/* dir holds exactly the files of s, byte for byte. */
static void assert_same(const snap *s, const char *dir)
{
	snap now_;
	take_snap(&now_, dir);
	assert_int_equal(now_.n, s->n);
	for (size_t i = 0; i < s->n; i++) {
		assert_string_equal(now_.names[i], s->names[i]);
		if (now_.len[i] != s->len[i] || memcmp(now_.data[i], s->data[i], s->len[i]) != 0)
			fail_msg("%s/%s changed", dir, s->names[i]);
	}
	free_snap(&now_);
}

/* Writes the report that later runs must leave intact; returns how long
 * the run took from its temporary folder's appearing to its end. */
static double first_report(const char *out, snap *s)
{
	pid_t pid = start_report(out, NULL, 0);
	int status;
	assert_true(wait_for_tmp(pid, tu_tmpdir(), &status));
	double t0 = now();
	status = wait_for(pid);
	double w = now() - t0;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(debris(tu_tmpdir()), 0);
	take_snap(s, out);
	assert_true(s->n > 10);
	return w;
}

static void a_report_killed_at_20_moments_leaves_the_old_one_and_no_debris_after_the_next_run(void **state)
{
	char *out = strdup(tu_path("out"));
	snap old;
	double w = first_report(out, &old);
	int left = 0, kills = 0;
	/* 20 moments, then more rounds of them until 10 kills have struck
	 * mid-writing (at most 60 kills): moments timed from the first run
	 * miss the writing when later runs are faster (11-19 of 20 struck on
	 * a loaded machine); every kill is checked, struck or not. */
	for (int i = 0; kills < 20 || (left < 10 && kills < 60); i = (i + 1) % 20, kills++) {
		pid_t pid = start_report(out, NULL, 0);
		int status;
		assert_true(wait_for_tmp(pid, tu_tmpdir(), &status));
		/* moments spread over the writing, from the folder's making on */
		sleep_s(w * i / 20);
		kill(pid, SIGKILL);
		wait_for(pid);
		assert_same(&old, out);
		left += debris(tu_tmpdir()) > 0;
		/* the next run removes what the killed one left, and writes the
		 * same report */
		char *err;
		assert_int_equal(tu_run(NULL, &err, NULL, "report", tu_sample(SAMPLE), "-o", out, "-q", NULL), 0);
		assert_string_equal(err, "");
		free(err);
		assert_int_equal(debris(tu_tmpdir()), 0);
		assert_same(&old, out);
	}
	print_message("%d of %d kills left a temporary folder; the next run removed each\n", left, kills);
	assert_true(left >= 10);
	free_snap(&old);
	free(out);
}

/* SIGTERM, SIGINT and SIGHUP: the run removes its temporary folder itself
 * and ends by the signal (the shell's 128 + N). */
static void a_signal_removes_the_temporary_folder_and_ends_the_run_by_it(void **state)
{
	char *out = strdup(tu_path("out"));
	snap old;
	double w = first_report(out, &old);
	static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
	for (size_t k = 0; k < 3; k++) {
		for (int at = 0; at < 3; at++) {
			pid_t pid = start_report(out, tu_path("sig.err"), 0);
			int status;
			assert_true(wait_for_tmp(pid, tu_tmpdir(), &status));
			/* at once, a third and two thirds into the writing */
			sleep_s(w * at / 3);
			kill(pid, sigs[k]);
			status = wait_for(pid);
			if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
				/* only a signal sent late may miss the run */
				print_message("signal %d came after the run ended; not counted\n", sigs[k]);
				assert_true(at > 0);
				continue;
			}
			if (!WIFSIGNALED(status) || WTERMSIG(status) != sigs[k])
				fail_msg("signal %d: the run ended with status %#x", sigs[k], status);
			/* nothing left, without a next run */
			assert_int_equal(debris(tu_tmpdir()), 0);
			assert_same(&old, out);
			char *err = tu_read(tu_path("sig.err"), NULL);
			assert_string_equal(err, "");
			free(err);
		}
	}
	free_snap(&old);
	free(out);
}

/* Without a shell that ignores SIGXFSZ for it, a write past the limit is
 * an error (EFBIG), and the folder is abandoned on the error path. */
static void a_file_size_limit_is_an_error_not_a_signal(void **state)
{
	char *out = strdup(tu_path("out"));
	snap old;
	first_report(out, &old);
	pid_t pid = start_report(out, tu_path("xfsz.err"), 64 << 10);
	int status = wait_for(pid);
	if (!WIFEXITED(status))
		fail_msg("the run ended with status %#x", status);
	assert_int_equal(WEXITSTATUS(status), 1);
	char *err = tu_read(tu_path("xfsz.err"), NULL);
	assert_non_null(strstr(err, "File too large"));
	free(err);
	assert_int_equal(debris(tu_tmpdir()), 0);
	assert_same(&old, out);
	free_snap(&old);
	free(out);
}

/* Two runs on one output at once: neither removes the other's temporary
 * folder (each holds its lock), both finish, and one complete report is
 * left — also when the folder did not exist before. */
static void two_runs_on_one_output_at_once_both_finish(void **state)
{
	char *out = strdup(tu_path("out"));
	snap old;
	first_report(out, &old);
	for (int round = 0; round < 6; round++) {
		if (round % 2)
			assert_int_equal(cg_remove_tree(out), 0);
		pid_t a = start_report(out, tu_path("a.err"), 0);
		pid_t b = start_report(out, tu_path("b.err"), 0);
		int sa = wait_for(a), sb = wait_for(b);
		char *ea = tu_read(tu_path("a.err"), NULL), *eb = tu_read(tu_path("b.err"), NULL);
		if (!WIFEXITED(sa) || WEXITSTATUS(sa) != 0 || !WIFEXITED(sb) || WEXITSTATUS(sb) != 0)
			fail_msg("round %d: statuses %#x and %#x: %s / %s", round, sa, sb, ea, eb);
		assert_string_equal(ea, "");
		assert_string_equal(eb, "");
		free(ea);
		free(eb);
		assert_int_equal(debris(tu_tmpdir()), 0);
		assert_same(&old, out);
	}
	free_snap(&old);
	free(out);
}

static int teardown(void **state)
{
	tu_cleanup();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(a_report_killed_at_20_moments_leaves_the_old_one_and_no_debris_after_the_next_run,
					  teardown),
		cmocka_unit_test_teardown(a_signal_removes_the_temporary_folder_and_ends_the_run_by_it, teardown),
		cmocka_unit_test_teardown(a_file_size_limit_is_an_error_not_a_signal, teardown),
		cmocka_unit_test_teardown(two_runs_on_one_output_at_once_both_finish, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
