/* Allocation: growth keeps contents, sizes that overflow are refused (the
 * process exits, so those cases run in a child), and every allocation goes
 * through the allocator set with cg_set_allocator. */
#include "testutil.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "strtab.h"
#include "xalloc.h"

/* --- a counting allocator --- */

static struct {
	size_t mallocs, reallocs, frees, live, last_size;
} counts;

static void *count_malloc(size_t n)
{
	counts.mallocs++;
	counts.live++;
	counts.last_size = n;
	/* garbage, so that a zeroing cg_calloc can be told from malloc's luck */
	void *p = malloc(n);
	if (p)
		memset(p, 0xaa, n);
	return p;
}

static void *count_realloc(void *p, size_t n)
{
	counts.reallocs++;
	if (!p)
		counts.live++;
	counts.last_size = n;
	return realloc(p, n);
}

static void count_free(void *p)
{
	counts.frees++;
	counts.live--;
	free(p);
}

static const cg_allocator counting = {count_malloc, count_realloc, count_free};

static int use_counting(void **state)
{
	memset(&counts, 0, sizeof counts);
	cg_set_allocator(&counting);
	return 0;
}

static int restore_allocator(void **state)
{
	cg_set_allocator(NULL);
	return 0;
}

/* --- exits, watched from a parent process --- */

/* An allocator that must not be reached: exit status 77 says it was. */
static void *reached_malloc(size_t n)
{
	_exit(77);
}

static void *reached_realloc(void *p, size_t n)
{
	_exit(77);
}

static void *null_malloc(size_t n)
{
	return NULL;
}

static void *null_realloc(void *p, size_t n)
{
	return NULL;
}

/* Runs fn in a child with allocator a; returns its exit status (-1 when a
 * signal ended it) and what it wrote to stderr. */
static int exit_status(void (*fn)(void), const cg_allocator *a, char *err, size_t errsize)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], 2);
		cg_set_allocator(a);
		fn();
		_exit(0);
	}
	close(fds[1]);
	size_t len = 0;
	ssize_t got;
	while (len + 1 < errsize && (got = read(fds[0], err + len, errsize - 1 - len)) > 0)
		len += (size_t)got;
	err[len] = '\0';
	close(fds[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void *volatile sink; /* keeps the calls below from being optimised away */

static void array_one_past_size_max(void) { sink = cg_reallocarray(NULL, SIZE_MAX / 2 + 1, 2); }
static void array_of_size_max_minus_one(void) { sink = cg_reallocarray(NULL, SIZE_MAX / 2, 2); }
static void calloc_one_past_size_max(void) { sink = cg_calloc(SIZE_MAX / 4 + 1, 4); }
/* capacities double from 16: 2^63 is reached, 2^63 + 1 would need 2^64 */
static void grow_to_2_pow_63_plus_1(void)
{
	void *p = NULL;
	size_t cap = 0;
	cg_grow(&p, &cap, ((size_t)1 << 63) + 1, 1);
}
static void grow_to_2_pow_63(void)
{
	void *p = NULL;
	size_t cap = 0;
	cg_grow(&p, &cap, (size_t)1 << 63, 1);
}
/* 2^62 + 1 elements of 2 bytes: the capacity 2^63 fits, its bytes do not */
static void grow_elements_past_size_max(void)
{
	void *p = NULL;
	size_t cap = 0;
	cg_grow(&p, &cap, ((size_t)1 << 62) + 1, 2);
}
static void malloc_ten(void) { sink = cg_malloc(10); }
static void realloc_ten(void) { sink = cg_realloc(NULL, 10); }

static const cg_allocator must_not_reach = {reached_malloc, reached_realloc, free};
static const cg_allocator fails = {null_malloc, null_realloc, free};

#define OOM_SIZE_MAX "cgmem: out of memory (allocating 18446744073709551615 bytes)\n"

static void overflowing_sizes_exit_before_asking_the_allocator(void **state)
{
	char err[256];
	assert_int_equal(exit_status(array_one_past_size_max, &must_not_reach, err, sizeof err), 1);
	assert_string_equal(err, OOM_SIZE_MAX);
	assert_int_equal(exit_status(calloc_one_past_size_max, &must_not_reach, err, sizeof err), 1);
	assert_string_equal(err, OOM_SIZE_MAX);
	assert_int_equal(exit_status(grow_to_2_pow_63_plus_1, &must_not_reach, err, sizeof err), 1);
	assert_string_equal(err, OOM_SIZE_MAX);
	assert_int_equal(exit_status(grow_elements_past_size_max, &must_not_reach, err, sizeof err), 1);
	assert_string_equal(err, OOM_SIZE_MAX);
}

static void sizes_that_just_fit_reach_the_allocator(void **state)
{
	/* one below each refused size: the allocator is asked (and exits 77) */
	char err[256];
	assert_int_equal(exit_status(array_of_size_max_minus_one, &must_not_reach, err, sizeof err), 77);
	assert_int_equal(exit_status(grow_to_2_pow_63, &must_not_reach, err, sizeof err), 77);
	assert_string_equal(err, "");
}

static void an_allocator_returning_null_ends_the_process_with_a_message(void **state)
{
	char err[256];
	assert_int_equal(exit_status(malloc_ten, &fails, err, sizeof err), 1);
	assert_string_equal(err, "cgmem: out of memory (allocating 10 bytes)\n");
	assert_int_equal(exit_status(realloc_ten, &fails, err, sizeof err), 1);
	assert_string_equal(err, "cgmem: out of memory (allocating 10 bytes)\n");
}

/* --- growth --- */

/* A bounded array doubles up to its bound and stops there; a need beyond
 * the bound is the caller's to refuse, so the bound does not cap it. */
static void growth_at_most_stops_at_the_bound(void **state)
{
	(void)state;
	int *a = NULL;
	size_t cap = 0;
	cg_grow_at_most((void **)&a, &cap, 1, sizeof *a, 100);
	assert_int_equal(cap, 16);
	cg_grow_at_most((void **)&a, &cap, 65, sizeof *a, 100); /* 16 -> 128, held to 100 */
	assert_int_equal(cap, 100);
	a[99] = 1;
	cg_grow_at_most((void **)&a, &cap, 100, sizeof *a, 100); /* fits */
	assert_int_equal(cap, 100);
	cg_grow_at_most((void **)&a, &cap, 101, sizeof *a, 100); /* past the bound: doubling */
	assert_int_equal(cap, 200);
	assert_int_equal(a[99], 1);
	cg_free(a);
}

static void growth_doubles_from_sixteen_and_keeps_the_contents(void **state)
{
	int *a = NULL;
	size_t cap = 0;
	CG_GROW(a, cap, 0);
	assert_null(a); /* nothing needed, nothing allocated */
	assert_int_equal(cap, 0);
	CG_GROW(a, cap, 1);
	assert_int_equal(cap, 16);
	for (int i = 0; i < 16; i++)
		a[i] = i * 3;
	int *before = a;
	CG_GROW(a, cap, 16); /* fits: unchanged */
	assert_ptr_equal(a, before);
	assert_int_equal(cap, 16);
	CG_GROW(a, cap, 17);
	assert_int_equal(cap, 32);
	CG_GROW(a, cap, 100); /* 32 -> 64 -> 128 */
	assert_int_equal(cap, 128);
	for (int i = 0; i < 16; i++)
		assert_int_equal(a[i], i * 3);
	a[127] = 7; /* the whole capacity is usable */
	cg_free(a);

	/* a capacity that is not a power of two doubles from itself: 10 -> 20 */
	struct pair {
		uint64_t a, b;
	} *p = cg_reallocarray(NULL, 10, sizeof *p);
	cap = 10;
	for (int i = 0; i < 10; i++)
		p[i] = (struct pair){(uint64_t)i, UINT64_MAX - (uint64_t)i};
	CG_GROW(p, cap, 11);
	assert_int_equal(cap, 20);
	for (int i = 0; i < 10; i++) {
		assert_int_equal(p[i].a, i);
		assert_int_equal(p[i].b, UINT64_MAX - (uint64_t)i);
	}
	cg_free(p);
}

static void reallocarray_keeps_the_contents(void **state)
{
	uint32_t *v = cg_reallocarray(NULL, 4, sizeof *v);
	for (uint32_t i = 0; i < 4; i++)
		v[i] = 0xdead0000u + i;
	v = cg_reallocarray(v, 1000, sizeof *v);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(v[i], 0xdead0000u + i);
	v[999] = 1;
	cg_free(v);
}

/* --- strings --- */

static void strndup_copies_exactly_n_bytes_and_terminates(void **state)
{
	char *s = cg_strndup("abcdef", 3);
	assert_string_equal(s, "abc");
	cg_free(s);
	s = cg_strndup("abc", 0);
	assert_string_equal(s, "");
	cg_free(s);
	/* bytes, not a C string: a NUL inside is copied (callers pass lengths) */
	s = cg_strndup("a\0b", 3);
	assert_memory_equal(s, "a\0b", 4);
	cg_free(s);
	s = cg_strdup("aten::mm");
	assert_string_equal(s, "aten::mm");
	cg_free(s);
}

static void asprintf_formats_any_length(void **state)
{
	char *s = cg_asprintf("%s:%d: %s", "run.jsonl", 18233, "bad");
	assert_string_equal(s, "run.jsonl:18233: bad");
	cg_free(s);
	s = cg_asprintf("%s", "");
	assert_string_equal(s, "");
	cg_free(s);
	/* longer than any fixed buffer: 5000 'x' */
	char big[5001];
	memset(big, 'x', 5000);
	big[5000] = '\0';
	s = cg_asprintf("<%s>", big);
	assert_int_equal(strlen(s), 5002);
	assert_int_equal(s[0], '<');
	assert_int_equal(s[5001], '>');
	cg_free(s);
}

/* --- the allocator --- */

static void every_function_allocates_through_the_allocator(void **state)
{
	void *m = cg_malloc(8);
	assert_int_equal(counts.mallocs, 1);
	void *c = cg_calloc(4, 4);
	assert_int_equal(counts.mallocs, 2);
	assert_int_equal(counts.last_size, 16);
	assert_memory_equal(c, (char[16]){0}, 16); /* zeroed, though count_malloc fills 0xaa */
	m = cg_realloc(m, 64);
	assert_int_equal(counts.reallocs, 1);
	void *r = cg_reallocarray(NULL, 3, 8);
	assert_int_equal(counts.reallocs, 2);
	assert_int_equal(counts.last_size, 24);
	char *d = cg_strndup("abc", 3);
	char *e = cg_strdup("xyz");
	char *f = cg_asprintf("%d", 12345);
	assert_int_equal(counts.mallocs, 5);
	void *g = NULL;
	size_t cap = 0;
	cg_grow(&g, &cap, 5, 8);
	assert_int_equal(counts.reallocs, 3);
	assert_int_equal(counts.last_size, 16 * 8);
	/* m, c, r, d, e, f, g: seven blocks (m's realloc moved, not added, one) */
	assert_int_equal(counts.live, 7);
	void *ptrs[] = {m, c, r, d, e, f, g};
	for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
		cg_free(ptrs[i]);
	cg_free(NULL); /* not passed on */
	assert_int_equal(counts.frees, 7);
	assert_int_equal(counts.live, 0);
}

static void zero_bytes_ask_for_one(void **state)
{
	/* so that a successful allocation is never NULL */
	void *p = cg_malloc(0);
	assert_non_null(p);
	assert_int_equal(counts.last_size, 1);
	p = cg_realloc(p, 0);
	assert_non_null(p);
	assert_int_equal(counts.last_size, 1);
	cg_free(p);
}

static void a_string_table_returns_every_block_it_takes(void **state)
{
	cg_strtab *t = cg_strtab_new(0);
	char buf[32];
	for (int i = 0; i < 5000; i++) {
		int n = snprintf(buf, sizeof buf, "tensor#%d", i);
		cg_str id;
		assert_int_equal(cg_strtab_intern(t, buf, (size_t)n, &id), 0);
	}
	assert_true(counts.mallocs + counts.reallocs > 3);
	cg_strtab_free(t);
	assert_int_equal(counts.live, 0);
}

/* Blocks of 4 MiB and more grow into new blocks, the old one's pages
 * handed back as they are copied: every byte arrives, at every size on
 * the way, and shrinking keeps the head. */
static void a_large_block_grows_by_copy_and_keeps_every_byte(void **state)
{
	cg_set_allocator(NULL);
	size_t n = (size_t)3 << 20;
	unsigned char *p = cg_malloc(n);
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 131 + (i >> 13));
	for (size_t want = (size_t)5 << 20; want <= (size_t)40 << 20; want = want * 2 + 4093) {
		p = cg_realloc(p, want);
		for (size_t i = 0; i < n; i++)
			if (p[i] != (unsigned char)(i * 131 + (i >> 13)))
				fail_msg("byte %zu lost growing to %zu bytes", i, want);
		for (size_t i = n; i < want; i++)
			p[i] = (unsigned char)(i * 131 + (i >> 13));
		n = want;
	}
	p = cg_realloc(p, (size_t)6 << 20);
	for (size_t i = 0; i < ((size_t)6 << 20); i++)
		if (p[i] != (unsigned char)(i * 131 + (i >> 13)))
			fail_msg("byte %zu lost shrinking", i);
	cg_free(p);
}

/* Pages go back in whole 2 MiB pages inside the range only: the bytes
 * of those read as zero, every other byte stays, and the mark moves on
 * only when something went back. */
static void pages_go_back_whole_and_inside_the_range_only(void **state)
{
	const size_t huge = (size_t)2 << 20, n = 5 * huge;
	unsigned char *block = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(block != MAP_FAILED);
	unsigned char *p = (unsigned char *)(((uintptr_t)block + huge - 1) & ~(uintptr_t)(huge - 1));
	memset(block, 7, n);
	/* [p + 100, p + 3 huge + 5): only [p + huge, p + 3 huge) is whole */
	uintptr_t released = (uintptr_t)p + 100;
	cg_release_pages(&released, (uintptr_t)p + huge - 1); /* no whole page yet */
	assert_int_equal(released, (uintptr_t)p + 100);
	cg_release_pages(&released, (uintptr_t)p + 3 * huge + 5);
	assert_int_equal(released, (uintptr_t)p + 3 * huge);
	for (unsigned char *q = block; q < block + n; q++) {
		bool gone = q >= p + huge && q < p + 3 * huge;
		if (*q != (gone ? 0 : 7))
			fail_msg("byte %td of the block is %d", q - block, *q);
	}
	munmap(block, n);
}

/* The default allocator's calloc: zeroed at every size, also a large
 * block whose pages come from the kernel, and a block freed with its
 * bytes set does not come back set. */
static void calloc_zeroes_small_and_large_blocks(void **state)
{
	cg_set_allocator(NULL);
	static const size_t sizes[] = {1, 100, 4096, (size_t)1 << 20, (size_t)9 << 20};
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		for (int round = 0; round < 2; round++) {
			unsigned char *p = cg_calloc(sizes[k], 1);
			for (size_t i = 0; i < sizes[k]; i += 997)
				assert_int_equal(p[i], 0);
			assert_int_equal(p[sizes[k] - 1], 0);
			memset(p, 0xaa, sizes[k]);
			cg_free(p);
		}
	}
}

static void restoring_the_default_stops_the_counting(void **state)
{
	cg_set_allocator(NULL);
	void *p = cg_malloc(32);
	cg_free(p);
	assert_int_equal(counts.mallocs, 0);
	assert_int_equal(counts.frees, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(overflowing_sizes_exit_before_asking_the_allocator),
		cmocka_unit_test(a_large_block_grows_by_copy_and_keeps_every_byte),
		cmocka_unit_test(pages_go_back_whole_and_inside_the_range_only),
		cmocka_unit_test(calloc_zeroes_small_and_large_blocks),
		cmocka_unit_test(sizes_that_just_fit_reach_the_allocator),
		cmocka_unit_test(an_allocator_returning_null_ends_the_process_with_a_message),
		cmocka_unit_test(growth_doubles_from_sixteen_and_keeps_the_contents),
		cmocka_unit_test(growth_at_most_stops_at_the_bound),
		cmocka_unit_test(reallocarray_keeps_the_contents),
		cmocka_unit_test(strndup_copies_exactly_n_bytes_and_terminates),
		cmocka_unit_test(asprintf_formats_any_length),
		cmocka_unit_test_setup_teardown(every_function_allocates_through_the_allocator, use_counting,
						restore_allocator),
		cmocka_unit_test_setup_teardown(zero_bytes_ask_for_one, use_counting, restore_allocator),
		cmocka_unit_test_setup_teardown(a_string_table_returns_every_block_it_takes, use_counting,
						restore_allocator),
		cmocka_unit_test_setup_teardown(restoring_the_default_stops_the_counting, use_counting,
						restore_allocator),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
