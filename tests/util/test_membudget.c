/* The memory the process may still use, from /proc and /sys files written
 * here under a folder of the test's own (the rlimits are the test's real
 * ones, unlimited unless the test runs under ulimit). */
#include "testutil.h"

#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "membudget.h"

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

static void unlimited_rlimits(void)
{
	struct rlimit rl;
	if ((getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) ||
	    (getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY))
		skip();
}

static void nothing_known_is_no_limit(void **state)
{
	unlimited_rlimits();
	assert_true(cg_memory_budget_at(root) == UINT64_MAX);
}

static void mem_available_bounds_the_budget(void **state)
{
	unlimited_rlimits();
	put("/proc/meminfo", "MemTotal:       16000000 kB\nMemFree:         1000 kB\nMemAvailable:    2000 kB\n");
	assert_int_equal(cg_memory_budget_at(root), 2000 * 1024);
}

/* v2: the cgroup /a/b has 600,000 B left, its parent /a 50,000 B, the root
 * no limit ("max"): the parent's headroom is the budget. */
static void a_v2_cgroup_counts_every_level_up_to_the_root(void **state)
{
	unlimited_rlimits();
	put("/proc/self/cgroup", "0::/a/b\n");
	put("/sys/fs/cgroup/a/b/memory.max", "1000000\n");
	put("/sys/fs/cgroup/a/b/memory.current", "400000\n");
	put("/sys/fs/cgroup/a/memory.max", "500000\n");
	put("/sys/fs/cgroup/a/memory.current", "450000\n");
	put("/sys/fs/cgroup/memory.max", "max\n");
	put("/proc/meminfo", "MemAvailable:    2000 kB\n");
	assert_int_equal(cg_memory_budget_at(root), 50000);
	/* Usage over the limit leaves nothing. */
	put("/sys/fs/cgroup/a/memory.current", "600000\n");
	assert_int_equal(cg_memory_budget_at(root), 0);
}

/* v1: only the line whose controllers include memory counts; v1's "no
 * limit" is a huge number, and the limit less the usage is the budget. */
static void a_v1_memory_cgroup_is_its_limit_less_its_usage(void **state)
{
	unlimited_rlimits();
	put("/proc/self/cgroup", "5:cpu,cpuacct:/x\n4:memory:/job\n0::/\n");
	put("/sys/fs/cgroup/memory/job/memory.limit_in_bytes", "3000000\n");
	put("/sys/fs/cgroup/memory/job/memory.usage_in_bytes", "1000000\n");
	put("/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
	put("/sys/fs/cgroup/memory/memory.usage_in_bytes", "5000000\n");
	put("/sys/fs/cgroup/cpu,cpuacct/x/memory.limit_in_bytes", "1\n");
	assert_int_equal(cg_memory_budget_at(root), 2000000);
}

/* RLIMIT_AS less the address space mapped now (statm's first field, in
 * pages), lowered for this test only. */
static void the_address_space_limit_counts_what_is_mapped(void **state)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	skip(); /* their shadow memory needs terabytes of address space */
#endif
	struct rlimit old;
	assert_int_equal(getrlimit(RLIMIT_AS, &old), 0);
	long page = sysconf(_SC_PAGESIZE);
	uint64_t limit = (uint64_t)1 << 40;
	if (old.rlim_max != RLIM_INFINITY && old.rlim_max < limit)
		skip();
	struct rlimit rl = {(rlim_t)limit, old.rlim_max};
	assert_int_equal(setrlimit(RLIMIT_AS, &rl), 0);
	put("/proc/self/statm", "1000 200 100 10 0 500 0\n");
	uint64_t b = cg_memory_budget_at(root);
	assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
	assert_int_equal(b, limit - 1000 * (uint64_t)page);
}

/* Beside v1 ("hybrid"), systemd mounts the unified v2 hierarchy at
 * /sys/fs/cgroup/unified: a limit set there counts too (the CPU quota's
 * walk, shared through cgroup.h). */
static void a_v2_limit_in_the_hybrid_unified_folder_counts(void **state)
{
	unlimited_rlimits();
	put("/proc/self/cgroup", "4:memory:/\n0::/job\n");
	put("/sys/fs/cgroup/unified/job/memory.max", "700000\n");
	put("/sys/fs/cgroup/unified/job/memory.current", "100000\n");
	assert_int_equal(cg_memory_budget_at(root), 600000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(nothing_known_is_no_limit, fresh_root),
		cmocka_unit_test_setup(mem_available_bounds_the_budget, fresh_root),
		cmocka_unit_test_setup(a_v2_cgroup_counts_every_level_up_to_the_root, fresh_root),
		cmocka_unit_test_setup(a_v1_memory_cgroup_is_its_limit_less_its_usage, fresh_root),
		cmocka_unit_test_setup(the_address_space_limit_counts_what_is_mapped, fresh_root),
		cmocka_unit_test_setup(a_v2_limit_in_the_hybrid_unified_folder_counts, fresh_root),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
