/* The prefault thread makes the pages ahead of a region's used part
 * present, never more than CG_PREFAULT_AHEAD past it, never changes a
 * byte, and lets go of a region before its owner moves it. */
#include "testutil.h"

#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "prefault.h"
#include "xalloc.h"

#define MB ((size_t)1 << 20)

/* Pages of p[from .. to) resident, in 4 KiB pages. */
static size_t resident(const char *p, size_t from, size_t to)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + from) & ~(uintptr_t)(page - 1), b = (uintptr_t)p + to;
	size_t n = (b - a + page - 1) / page, count = 0;
	unsigned char *vec = malloc(n);
	assert_int_equal(mincore((void *)a, b - a, vec), 0);
	for (size_t i = 0; i < n; i++)
		count += vec[i] & 1;
	free(vec);
	return count;
}

/* Waits (at most 10 s) until want pages of p[from .. to) are resident. */
static bool wait_resident(const char *p, size_t from, size_t to, size_t want)
{
	for (int i = 0; i < 1000; i++) {
		if (resident(p, from, to) >= want)
			return true;
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	}
	return false;
}

static void pages_ahead_are_made_present_and_no_further(void **state)
{
	cg_prefault *pf = cg_prefault_start();
	if (!pf) /* one CPU, or a kernel without MADV_POPULATE_WRITE */
		skip();
	size_t len = 160 * MB, page = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	memcpy(p, "head", 4); /* written before: kept */
	cg_prefault_region(pf, 1, p, len);
	cg_prefault_used(pf, 1, 0);
	assert_true(wait_resident(p, 0, CG_PREFAULT_AHEAD, CG_PREFAULT_AHEAD / page));
	cg_prefault_used(pf, 1, 64 * MB);
	assert_true(wait_resident(p, 64 * MB, 64 * MB + CG_PREFAULT_AHEAD, CG_PREFAULT_AHEAD / page));
	/* beyond used + ahead nothing is touched, even after a while */
	nanosleep(&(struct timespec){0, 100000000}, NULL);
	assert_int_equal(resident(p, 64 * MB + CG_PREFAULT_AHEAD + 4 * MB, len), 0);
	assert_memory_equal(p, "head", 4);
	for (size_t i = 4; i < 64 * MB + CG_PREFAULT_AHEAD; i += page)
		if (p[i])
			fail_msg("byte %zu changed", i);
	/* let go: the mapping may go, nothing more is made present */
	cg_prefault_region(pf, 1, NULL, 0);
	assert_int_equal(munmap(p, len), 0);
	cg_prefault_used(pf, 1, 100 * MB);
	cg_prefault_stop(pf);
}

static void a_thread_never_started_takes_every_call(void **state)
{
	cg_prefault_region(NULL, 0, NULL, 0);
	cg_prefault_used(NULL, 0, 1);
	cg_prefault_stop(NULL);
	cg_prefault *pf = cg_prefault_start();
	cg_prefault_used(pf, CG_PREFAULT_REGIONS, 1); /* a region that is not */
	cg_prefault_region(pf, CG_PREFAULT_REGIONS, NULL, 0);
	cg_prefault_stop(pf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pages_ahead_are_made_present_and_no_further),
		cmocka_unit_test(a_thread_never_started_takes_every_call),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
