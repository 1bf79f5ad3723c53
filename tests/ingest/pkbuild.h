/* Helpers of the unpickler's tests (test_pickle.c, test_pickle_limits.c):
 * pickles built byte by byte, loading from memory or a file, expected
 * errors, the generated files' folder, and a counting allocator. Header
 * only, every function static inline. */
#ifndef CG_PKBUILD_H
#define CG_PKBUILD_H

#include "testutil.h"

#include <string.h>

#include "pickle.h"
#include "reader.h"
#include "xalloc.h"

#define MILLION 1000000
/* A string literal and its length (it may hold NUL bytes). */
#define LIT(s) s, sizeof(s) - 1

/* --- bytes built by hand --------------------------------------------- */

typedef struct bytes {
	unsigned char *d;
	size_t n, cap;
} bytes;

static inline void put(bytes *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->d = realloc(b->d, b->cap);
		assert_non_null(b->d);
	}
	memcpy(b->d + b->n, p, n);
	b->n += n;
}

static inline void put_str(bytes *b, const char *s) { put(b, s, strlen(s)); }

static inline void put_byte(bytes *b, unsigned c)
{
	unsigned char x = (unsigned char)c;
	put(b, &x, 1);
}

static inline void put_repeat(bytes *b, unsigned c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put_byte(b, c);
}

static inline void put_le(bytes *b, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		put_byte(b, (unsigned)(v >> (8 * i)) & 0xff);
}

/* A protocol 4 header, then s (n bytes; (size_t)-1: a C string). */
static inline bytes pickle_of(const char *s, size_t n)
{
	bytes b = {0};
	put(&b, "\x80\x04", 2);
	put(&b, s, n == (size_t)-1 ? strlen(s) : n);
	return b;
}

/* --- loading --------------------------------------------------------- */

typedef struct loaded {
	cg_pickle *pk;
	const cg_pk *root;
	cg_error err;
	int rc;
} loaded;

static inline loaded load_bytes(const void *data, size_t n, const cg_pickle_options *o)
{
	loaded l = {NULL, NULL, CG_ERROR_INIT, 0};
	cg_reader *r;
	assert_int_equal(cg_reader_open_memory(&r, data, n, "t.pickle", NULL, &l.err), 0);
	l.rc = cg_pickle_load(&l.pk, r, o, &l.root, &l.err);
	cg_reader_close(r);
	if (l.rc < 0) {
		assert_null(l.pk);
		assert_null(l.root);
	} else {
		assert_non_null(l.root);
	}
	return l;
}

static inline loaded load_file(const char *path, const cg_pickle_options *o)
{
	loaded l = {NULL, NULL, CG_ERROR_INIT, 0};
	cg_reader *r;
	assert_int_equal(cg_reader_open(&r, path, NULL, &l.err), 0);
	l.rc = cg_pickle_load(&l.pk, r, o, &l.root, &l.err);
	cg_reader_close(r);
	return l;
}

/* The load fails with CG_EINPUT and a message that starts with want. */
static inline void expect_error(const bytes *b, const cg_pickle_options *o, const char *want)
{
	loaded l = load_bytes(b->d, b->n, o);
	if (l.rc != CG_EINPUT || strncmp(l.err.msg, want, strlen(want)) != 0)
		fail_msg("rc %d, message \"%s\"; wanted \"%s\"", l.rc, l.err.msg, want);
}

static inline void expect_error_str(const char *body, size_t n, const char *want)
{
	bytes b = pickle_of(body, n);
	expect_error(&b, NULL, want);
	free(b.d);
}

static inline const char *pickles_path(const char *name)
{
	static char path[4][1024];
	static int k;
	k = (k + 1) % 4;
	snprintf(path[k], sizeof path[k], "%s/%s", PICKLES_DIR, name);
	return path[k];
}

/* --- a counting allocator -------------------------------------------- */

/* One set of counters per test program. */
static size_t live_bytes, peak_bytes, total_bytes;

static inline void count_up(size_t n)
{
	live_bytes += n;
	total_bytes += n;
	if (live_bytes > peak_bytes)
		peak_bytes = live_bytes;
}

static inline void *counting_malloc(size_t n)
{
	size_t *p = malloc(n + 16);
	if (!p)
		return NULL;
	p[0] = n;
	count_up(n);
	return (char *)p + 16;
}

/* As a moving realloc: both blocks are live for a moment. */
static inline void *counting_realloc(void *q, size_t n)
{
	if (!q)
		return counting_malloc(n);
	size_t *p = (size_t *)((char *)q - 16), old = p[0];
	count_up(n);
	p = realloc(p, n + 16);
	if (!p)
		return NULL;
	p[0] = n;
	live_bytes -= old;
	return (char *)p + 16;
}

static inline void counting_free(void *q)
{
	if (!q)
		return;
	size_t *p = (size_t *)((char *)q - 16);
	live_bytes -= p[0];
	free(p);
}

static inline void start_counting(void)
{
	static const cg_allocator counting = {counting_malloc, counting_realloc, counting_free};
	live_bytes = peak_bytes = total_bytes = 0;
	cg_set_allocator(&counting);
}

#endif
