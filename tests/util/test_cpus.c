/* The CPUs the process may use (src/util/cpus.c): the cgroup CPU quota
 * from /proc and /sys files written here under a folder of the test's
 * own, and the affinity mask, which the test narrows for itself. */
#define _GNU_SOURCE /* sched_setaffinity */
#include "testutil.h"

#include <sched.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpus.h"
#include "parallel.h"

static const char *root;

static void put(const char *rel, const char *text)
{
	tu_fake_put(root, rel, text);
}

static int fresh_root(void **state)
{
	root = tu_fake_root();
	return 0;
}

static unsigned online(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : (unsigned)n;
}

static void no_cgroup_files_is_no_quota(void **state)
{
	assert_int_equal(cg_cpus_quota_at(root), 0);
	unsigned n = cg_cpus_usable_at(root);
	assert_true(n >= 1 && n <= online());
}

/* v2: cpu.max "QUOTA PERIOD" rounds up to whole CPUs; "max" is none. */
static void a_v2_quota_is_rounded_up_to_whole_cpus(void **state)
{
	put("/proc/self/cgroup", "0::/job\n");
	put("/sys/fs/cgroup/job/cpu.max", "150000 100000\n");
	assert_int_equal(cg_cpus_quota_at(root), 2);
	put("/sys/fs/cgroup/job/cpu.max", "400000 100000\n");
	assert_int_equal(cg_cpus_quota_at(root), 4);
	put("/sys/fs/cgroup/job/cpu.max", "10000 100000\n"); /* a tenth of a CPU runs one thread */
	assert_int_equal(cg_cpus_quota_at(root), 1);
	put("/sys/fs/cgroup/job/cpu.max", "max 100000\n");
	assert_int_equal(cg_cpus_quota_at(root), 0);
	put("/sys/fs/cgroup/job/cpu.max", "garbage\n");
	assert_int_equal(cg_cpus_quota_at(root), 0);
}

/* The job /a/b may use 8 CPUs, its parent /a 3, the root no limit: the
 * parent's quota holds the child. */
static void a_v2_quota_counts_every_level_up_to_the_root(void **state)
{
	put("/proc/self/cgroup", "0::/a/b\n");
	put("/sys/fs/cgroup/a/b/cpu.max", "800000 100000\n");
	put("/sys/fs/cgroup/a/cpu.max", "250000 100000\n");
	put("/sys/fs/cgroup/cpu.max", "max 100000\n");
	assert_int_equal(cg_cpus_quota_at(root), 3);
}

/* Inside a container /proc/self/cgroup names the host's cgroup, absent
 * here; the container's own is the root of its mount. */
static void a_container_finds_its_quota_at_the_mount_root(void **state)
{
	put("/proc/self/cgroup", "0::/kubepods/burstable/pod1234/abcd\n");
	put("/sys/fs/cgroup/cpu.max", "200000 100000\n");
	assert_int_equal(cg_cpus_quota_at(root), 2);
}

/* v1: only the line with the cpu controller counts; -1 is no quota. */
static void a_v1_quota_is_cfs_quota_over_cfs_period(void **state)
{
	put("/proc/self/cgroup", "4:memory:/job\n3:cpu,cpuacct:/slurm/job7\n0::/\n");
	put("/sys/fs/cgroup/cpu,cpuacct/slurm/job7/cpu.cfs_quota_us", "300000\n");
	put("/sys/fs/cgroup/cpu,cpuacct/slurm/job7/cpu.cfs_period_us", "100000\n");
	put("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
	put("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
	put("/sys/fs/cgroup/memory/job/cpu.cfs_quota_us", "1\n"); /* not the cpu hierarchy */
	put("/sys/fs/cgroup/memory/job/cpu.cfs_period_us", "100000\n");
	assert_int_equal(cg_cpus_quota_at(root), 3);
	put("/sys/fs/cgroup/cpu,cpuacct/slurm/job7/cpu.cfs_quota_us", "50000\n");
	put("/sys/fs/cgroup/cpu,cpuacct/slurm/job7/cpu.cfs_period_us", "20000\n");
	assert_int_equal(cg_cpus_quota_at(root), 3); /* 2.5 CPUs */
	put("/sys/fs/cgroup/cpu,cpuacct/slurm/job7/cpu.cfs_quota_us", "-1\n");
	assert_int_equal(cg_cpus_quota_at(root), 0);
}

/* v1 with cpu mounted alone (as on this machine's hybrid layout). */
static void a_v1_cpu_controller_mounted_alone_is_read(void **state)
{
	put("/proc/self/cgroup", "2:cpuacct:/\n1:cpu:/batch\n0::/\n");
	put("/sys/fs/cgroup/cpu/batch/cpu.cfs_quota_us", "100000\n");
	put("/sys/fs/cgroup/cpu/batch/cpu.cfs_period_us", "100000\n");
	assert_int_equal(cg_cpus_quota_at(root), 1);
}

/* A quota lowers the usable count; it never raises it above the machine. */
static void the_usable_count_is_the_least_of_quota_mask_and_machine(void **state)
{
	put("/proc/self/cgroup", "0::/\n");
	put("/sys/fs/cgroup/cpu.max", "50000 100000\n");
	assert_int_equal(cg_cpus_usable_at(root), 1);
	put("/sys/fs/cgroup/cpu.max", "100000000 100000\n"); /* 1000 CPUs */
	assert_int_equal(cg_cpus_quota_at(root), 1000);
	assert_true(cg_cpus_usable_at(root) <= online());
}

/* The affinity mask as taskset and Slurm set it: one CPU allowed, one
 * CPU counted, whatever the machine has. */
static void an_affinity_mask_of_one_cpu_is_one_cpu(void **state)
{
	cpu_set_t old, one;
	assert_int_equal(sched_getaffinity(0, sizeof old, &old), 0);
	int first = 0;
	while (first < CPU_SETSIZE && !CPU_ISSET(first, &old))
		first++;
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
	unsigned usable = cg_cpus_usable_at(root), count = cg_cpu_count();
	assert_int_equal(sched_setaffinity(0, sizeof old, &old), 0);
	assert_int_equal(usable, 1);
	assert_int_equal(count, 1);
	assert_int_equal(cg_cpus_usable_at(root), CPU_COUNT(&old) < (int)online() ? (unsigned)CPU_COUNT(&old) : online());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(no_cgroup_files_is_no_quota, fresh_root),
		cmocka_unit_test_setup(a_v2_quota_is_rounded_up_to_whole_cpus, fresh_root),
		cmocka_unit_test_setup(a_v2_quota_counts_every_level_up_to_the_root, fresh_root),
		cmocka_unit_test_setup(a_container_finds_its_quota_at_the_mount_root, fresh_root),
		cmocka_unit_test_setup(a_v1_quota_is_cfs_quota_over_cfs_period, fresh_root),
		cmocka_unit_test_setup(a_v1_cpu_controller_mounted_alone_is_read, fresh_root),
		cmocka_unit_test_setup(the_usable_count_is_the_least_of_quota_mask_and_machine, fresh_root),
		cmocka_unit_test_setup(an_affinity_mask_of_one_cpu_is_one_cpu, fresh_root),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
