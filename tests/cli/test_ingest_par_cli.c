/* The command-line half of tests/ingest/test_ingest_par.c: the report of
 * a sample is the same whatever the thread count and the parser, and the
 * options that choose them are checked. */
#define _GNU_SOURCE /* sched_setaffinity */
#include "runutil.h"

#include <sched.h>
#include <string.h>
#include <unistd.h>

static char *summary_with(const char *outname, const char *opt1, const char *opt2)
{
	char *so, *se;
	const char *out = tu_path(outname);
	int rc = tu_run(&so, &se, NULL, "report", tu_sample("leak_loss_history.jsonl"), "-o", out, "-q",
			"--no-trace", opt1, opt2, NULL);
	if (rc != 0)
		fail_msg("cgmem report %s %s exited %d: %s", opt1, opt2 ? opt2 : "", rc, se);
	free(so);
	free(se);
	char path[600];
	snprintf(path, sizeof path, "%s/summary.json", out);
	char *text = tu_read(path, NULL);
	assert_non_null(text);
	return text;
}

static void the_report_is_the_same_for_any_thread_count_and_parser(void **state)
{
	char *one = summary_with("out-t1", "--threads=1", NULL);
	char *three = summary_with("out-t3", "--threads=3", NULL);
	char *cjson = summary_with("out-cj", "--parser=cjson", "--threads=2");
	/* summary.json names no output folder, so the files compare whole. */
	assert_string_equal(one, three);
	assert_string_equal(one, cjson);
	free(one);
	free(three);
	free(cjson);

	char *so, *se;
	assert_int_equal(tu_run(&so, &se, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", tu_path("x"),
				"--threads", "0", NULL), 2);
	assert_non_null(strstr(se, "--threads: '0' is not a number from 1 to 64"));
	free(so);
	free(se);
	assert_int_equal(tu_run(&so, &se, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", tu_path("x"),
				"--parser", "simd", NULL), 2);
	assert_non_null(strstr(se, "--parser: 'simd' is not fast or cjson"));
	free(so);
	free(se);
	assert_int_equal(tu_run(&so, &se, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", tu_path("y"),
				"-q", "--no-trace", "--stats", NULL), 0);
	assert_non_null(strstr(se, "stats: ingest "));
	assert_non_null(strstr(se, "7207 lines, 1160621 bytes read"));
	assert_non_null(strstr(se, "1064 memory records"));
	free(so);
	free(se);
}

/* The --stats line of a report of mlp_adam.jsonl run by `sh -c CMD`
 * (CMD ends with the binary, which gets the arguments). */
static char *stats_under(const char *prefix)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "%s %s report %s -o %s -q --no-trace --stats 2>%s", prefix, CGMEM_BIN,
		 tu_sample("mlp_adam.jsonl"), tu_path("aff"), tu_path("aff.err"));
	int rc = system(cmd);
	assert_int_equal(rc, 0);
	char *text = tu_read(tu_path("aff.err"), NULL);
	assert_non_null(text);
	return text;
}

static unsigned online(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : (unsigned)n;
}

/* taskset (and Slurm, which sets the same mask) allows one CPU: one
 * thread by default, not one per core of the machine. */
static void taskset_to_one_cpu_runs_one_thread(void **state)
{
	if (access("/usr/bin/taskset", X_OK) != 0 && access("/bin/taskset", X_OK) != 0)
		skip();
	cpu_set_t mask;
	assert_int_equal(sched_getaffinity(0, sizeof mask, &mask), 0);
	int first = 0;
	while (first < CPU_SETSIZE && !CPU_ISSET(first, &mask))
		first++;
	char prefix[64], want[96];
	snprintf(prefix, sizeof prefix, "taskset -c %d", first);
	char *text = stats_under(prefix);
	snprintf(want, sizeof want, ", threads 1 (CPUs: %u online, 1 usable)\n", online());
	if (!strstr(text, want))
		fail_msg("no '%s' in: %s", want, text);
	free(text);
	/* --threads still wins over the mask */
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "taskset -c %d %s report %s -o %s -q --no-trace --stats --threads 3 2>%s", first,
		 CGMEM_BIN, tu_sample("mlp_adam.jsonl"), tu_path("aff3"), tu_path("aff3.err"));
	assert_int_equal(system(cmd), 0);
	text = tu_read(tu_path("aff3.err"), NULL);
	assert_non_null(strstr(text, ", threads 3 (CPUs: "));
	free(text);
}

/* The mask is inherited: the test narrows its own to two CPUs (when it
 * has two), and cgmem, started from it, uses two threads. */
static void an_inherited_mask_of_two_cpus_runs_two_threads(void **state)
{
	cpu_set_t old, two;
	assert_int_equal(sched_getaffinity(0, sizeof old, &old), 0);
	if (CPU_COUNT(&old) < 2)
		skip();
	CPU_ZERO(&two);
	for (int c = 0, n = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &old)) {
			CPU_SET(c, &two);
			n++;
		}
	assert_int_equal(sched_setaffinity(0, sizeof two, &two), 0);
	char *text = stats_under("exec");
	assert_int_equal(sched_setaffinity(0, sizeof old, &old), 0);
	char want[96];
	snprintf(want, sizeof want, ", threads 2 (CPUs: %u online, 2 usable)\n", online());
	if (!strstr(text, want))
		fail_msg("no '%s' in: %s", want, text);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_report_is_the_same_for_any_thread_count_and_parser),
		cmocka_unit_test(taskset_to_one_cpu_runs_one_thread),
		cmocka_unit_test(an_inherited_mask_of_two_cpus_runs_two_threads),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
