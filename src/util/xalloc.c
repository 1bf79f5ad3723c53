#include "xalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#ifdef __GLIBC__
#include <malloc.h>
#endif

static cg_allocator current = {malloc, realloc, free};

void cg_set_allocator(const cg_allocator *a)
{
	if (a)
		current = *a;
	else
		current = (cg_allocator){malloc, realloc, free};
}

static void out_of_memory(size_t n)
{
	fprintf(stderr, "cgmem: out of memory (allocating %zu bytes)\n", n);
	exit(1);
}

#define HUGE_BYTES ((size_t)4 << 20)
#define PAGE	   ((uintptr_t)4096)

/* Large arrays in huge pages where the kernel offers them on request
 * (transparent_hugepage "madvise"): filling 400 MB in 4 KiB pages takes a
 * fault each, 10 us apiece on a paravirtualized machine; in 2 MiB pages
 * it takes a twentieth of that. The advice covers the pages of the whole
 * block, so that a mapping of its own stays one (realloc moves it with
 * mremap, which fails across two). */
static void *huge_pages(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (n >= HUGE_BYTES) {
		uintptr_t from = (uintptr_t)p & ~(PAGE - 1);
		uintptr_t to = ((uintptr_t)p + n + PAGE - 1) & ~(PAGE - 1);
		madvise((void *)from, to - from, MADV_HUGEPAGE);
	}
#else
	(void)n;
#endif
	return p;
}

void *cg_malloc(size_t n)
{
	void *p = current.malloc(n ? n : 1);
	if (!p)
		out_of_memory(n);
	return huge_pages(p, n);
}

void *cg_calloc(size_t count, size_t size)
{
	size_t n;
	if (__builtin_mul_overflow(count, size, &n))
		out_of_memory(SIZE_MAX);
	if (current.malloc != malloc) {
		void *p = cg_malloc(n);
		memset(p, 0, n);
		return p;
	}
	/* calloc knows memory fresh from the kernel is zero: a large table's
	 * pages are zeroed as they are first used (those never used, never)
	 * instead of all at once here, where 64 MB of hash slots stopped a
	 * merging thread for 0.1 s */
	void *p = calloc(n ? n : 1, 1);
	if (!p)
		out_of_memory(n);
	return huge_pages(p, n);
}

void cg_release_pages(uintptr_t *released, uintptr_t to)
{
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t from = (*released + huge - 1) & ~(huge - 1), end = to & ~(huge - 1);
	if (end > from) {
#if defined(__linux__) && defined(MADV_DONTNEED)
		madvise((void *)from, end - from, MADV_DONTNEED);
#endif
		*released = end;
	}
}

/* Copies n bytes from src, a block about to be freed, handing its pages
 * back as they are copied: the two blocks never add up. */
static void copy_releasing(char *dst, char *src, size_t n)
{
	const size_t step = (size_t)2 << 20;
	uintptr_t released = (uintptr_t)src;
	for (size_t at = 0; at < n; at += step) {
		size_t k = n - at < step ? n - at : step;
		memcpy(dst + at, src + at, k);
		cg_release_pages(&released, (uintptr_t)src + at + k);
	}
}

void *cg_realloc(void *p, size_t n)
{
#ifdef __GLIBC__
	/* A large block grows into a new one: glibc would move its pages with
	 * mremap, and on a paravirtualized machine each moved page costs
	 * about a fault again when next touched (0.3 s for 360 MB). */
	if (p && n >= HUGE_BYTES && current.realloc == realloc) {
		size_t old = malloc_usable_size(p);
		if (old < n) {
			void *q = cg_malloc(n);
			copy_releasing(q, p, old);
			free(p);
			return q;
		}
	}
#endif
	void *q = current.realloc(p, n ? n : 1);
	if (!q)
		out_of_memory(n);
	return huge_pages(q, n);
}

void *cg_reallocarray(void *p, size_t count, size_t size)
{
	size_t n;
	if (__builtin_mul_overflow(count, size, &n))
		out_of_memory(SIZE_MAX);
	return cg_realloc(p, n);
}

char *cg_strndup(const char *s, size_t n)
{
	char *d = cg_malloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *cg_strdup(const char *s)
{
	return cg_strndup(s, strlen(s));
}

char *cg_asprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		out_of_memory(0);
	char *s = cg_malloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

void cg_free(void *p)
{
	if (p)
		current.free(p);
}

void cg_grow_at_most(void **items, size_t *cap, size_t need, size_t elem_size, size_t most)
{
	if (need <= *cap)
		return;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (__builtin_mul_overflow(ncap, 2, &ncap))
			out_of_memory(SIZE_MAX);
	}
	if (ncap > most && most >= need)
		ncap = most;
	*items = cg_reallocarray(*items, ncap, elem_size);
	*cap = ncap;
}

void cg_grow(void **items, size_t *cap, size_t need, size_t elem_size)
{
	cg_grow_at_most(items, cap, need, elem_size, SIZE_MAX);
}
