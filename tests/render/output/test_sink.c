/* Sinks (sink.h): file and memory sinks keep every byte in order through
 * puts, putc, printf, write and in-place reservations; gzip sinks inflate
 * back to what was written; errors are sticky and come out at close, naming
 * the file. */
#include "testutil.h"

#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "sink.h"

/* Bytes that differ from position to position, so a byte out of place shows. */
static unsigned char *pattern(size_t n, unsigned seed)
{
	unsigned char *p = malloc(n ? n : 1);
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (unsigned char)(x >> 16);
	}
	return p;
}

/* Inflates a whole gzip file; asserts it is one valid stream (zlib checks
 * the CRC and the length in the trailer). */
static unsigned char *gunzip(const unsigned char *gz, size_t gz_len, size_t *out_len)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	assert_int_equal(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
	size_t cap = 1 << 16, len = 0;
	unsigned char *out = malloc(cap);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)gz_len;
	int rc;
	do {
		if (len == cap)
			out = realloc(out, cap *= 2);
		z.next_out = out + len;
		z.avail_out = (uInt)(cap - len);
		rc = inflate(&z, Z_NO_FLUSH);
		len = cap - z.avail_out;
		assert_true(rc == Z_OK || rc == Z_STREAM_END);
	} while (rc != Z_STREAM_END);
	assert_int_equal(z.avail_in, 0);
	inflateEnd(&z);
	*out_len = len;
	return out;
}

static void assert_file_is(const char *path, const void *expected, size_t n)
{
	size_t len;
	char *got = tu_read(path, &len);
	assert_non_null(got);
	assert_int_equal(len, n);
	assert_memory_equal(got, expected, n);
	free(got);
}

static void assert_gzip_file_is(const char *path, const void *expected, size_t n)
{
	size_t gz_len, len;
	unsigned char *gz = (unsigned char *)tu_read(path, &gz_len);
	assert_non_null(gz);
	unsigned char *back = gunzip(gz, gz_len, &len);
	assert_int_equal(len, n);
	assert_memory_equal(back, expected, n);
	free(back);
	free(gz);
}

static void a_memory_sink_keeps_every_kind_of_write(void **state)
{
	cg_sink *s = cg_sink_memory();
	size_t len = 99;
	assert_string_equal(cg_sink_data(s, &len), "");
	assert_int_equal(len, 0);
	cg_sink_puts(s, "ab");
	cg_sink_putc(s, 'c');
	cg_sink_printf(s, "%d-%s", 42, "x");
	cg_sink_write(s, "d\0e", 3); /* a NUL inside is data */
	cg_sink_puts(s, "");
	cg_sink_write(s, "ignored", 0);
	const char *d = cg_sink_data(s, &len);
	assert_int_equal(len, 10);
	assert_memory_equal(d, "abc42-xd\0e", 10);
	assert_int_equal(d[len], '\0'); /* NUL-terminated */
	assert_int_equal(cg_sink_written(s), 10);
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_sink_close(s, &err), 0);
	assert_int_equal(err.code, 0);
	assert_int_equal(cg_sink_close(NULL, &err), 0);
}

/* printf formats into a small buffer first; longer output takes another way. */
static void printf_longer_than_a_line_is_kept_whole(void **state)
{
	char *long_text = malloc(3001);
	memset(long_text, 'q', 3000);
	long_text[3000] = '\0';
	cg_sink *s = cg_sink_memory();
	cg_sink_printf(s, "<%s>", long_text);
	cg_sink_printf(s, "%0*d|", 700, 7);
	size_t len;
	const char *d = cg_sink_data(s, &len);
	assert_int_equal(len, 3002 + 701);
	assert_int_equal(d[0], '<');
	assert_memory_equal(d + 1, long_text, 3000);
	assert_memory_equal(d + 3001, ">", 1);
	for (size_t i = 3002; i < 3002 + 699; i++)
		assert_int_equal(d[i], '0');
	assert_memory_equal(d + 3002 + 699, "7|", 2);
	/* exactly at the edge of the small buffer: 511 and 512 characters */
	cg_sink *t = cg_sink_memory();
	cg_sink_printf(t, "%.*s", 511, long_text);
	cg_sink_printf(t, "%.*s", 512, long_text);
	assert_int_equal(cg_sink_written(t), 1023);
	assert_memory_equal(cg_sink_data(t, NULL), long_text, 1023);
	cg_sink_close(t, NULL);
	cg_sink_close(s, NULL);
	free(long_text);
}

static void a_memory_sink_grows_to_what_is_written(void **state)
{
	const size_t n = 3u << 20;
	unsigned char *in = pattern(n, 1);
	cg_sink *s = cg_sink_memory();
	for (size_t i = 0; i < n; i += 1000)
		cg_sink_write(s, in + i, n - i < 1000 ? n - i : 1000);
	size_t len;
	const char *d = cg_sink_data(s, &len);
	assert_int_equal(len, n);
	assert_memory_equal(d, in, n);
	assert_int_equal(cg_sink_written(s), n);
	cg_sink_close(s, NULL);
	free(in);
}

/* Small writes, writes larger than any buffer, characters and formatted
 * numbers, interleaved: the file holds them in order. */
static void a_file_sink_writes_everything_in_order(void **state)
{
	const size_t big = 700u << 10;
	unsigned char *in = pattern(big, 2);
	unsigned char *expected = malloc(2 * big + 1000);
	size_t n = 0;
	const char *path = tu_path("plain.bin");
	cg_sink *s;
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_sink_open(&s, path, 0, &err), 0);
	for (int round = 0; round < 2; round++) {
		cg_sink_puts(s, "head");
		memcpy(expected + n, "head", 4);
		n += 4;
		cg_sink_write(s, in, big);
		memcpy(expected + n, in, big);
		n += big;
		for (int i = 0; i < 100; i++) {
			cg_sink_putc(s, (char)('a' + i % 26));
			expected[n++] = (unsigned char)('a' + i % 26);
		}
		cg_sink_printf(s, "%u;", 4000000000u);
		memcpy(expected + n, "4000000000;", 11);
		n += 11;
	}
	assert_int_equal(cg_sink_written(s), n);
	assert_int_equal(cg_sink_close(s, &err), 0);
	assert_file_is(path, expected, n);
	free(expected);
	free(in);
}

static void opening_truncates_an_existing_file(void **state)
{
	const char *path = tu_write("old.txt", "a much longer old content", (size_t)-1);
	cg_sink *s;
	assert_int_equal(cg_sink_open(&s, path, 0, NULL), 0);
	cg_sink_puts(s, "new");
	assert_int_equal(cg_sink_close(s, NULL), 0);
	assert_file_is(path, "new", 3);
}

/* Fills a reservation of n bytes from in and commits k of them. */
static void reserve_fill_commit(cg_sink *s, const unsigned char *in, size_t n, size_t k)
{
	char *p = cg_sink_reserve(s, n);
	assert_non_null(p);
	memcpy(p, in, n); /* every reserved byte may be written */
	cg_sink_commit(s, k);
}

/* Reservations of up to CG_SINK_RESERVE_MAX, committed whole, in part or
 * not at all, at every fill of the sink's buffer: only the committed bytes
 * come out, in order (and ASan sees any write past the buffer). */
static void reservations(cg_sink *s, unsigned char *expected, size_t *n)
{
	const size_t max = CG_SINK_RESERVE_MAX;
	unsigned char *in = pattern(max, 3);
	const size_t fills[] = {0, 1, max - 1, (256u << 10) - 5, (1u << 20) - 3, 3};
	unsigned char *filler = pattern(1u << 20, 4);
	for (size_t f = 0; f < sizeof fills / sizeof *fills; f++) {
		cg_sink_write(s, filler, fills[f]);
		memcpy(expected + *n, filler, fills[f]);
		*n += fills[f];
		reserve_fill_commit(s, in, max, max);
		memcpy(expected + *n, in, max);
		*n += max;
		reserve_fill_commit(s, in, 100, 10);
		memcpy(expected + *n, in, 10);
		*n += 10;
		reserve_fill_commit(s, in, max, 0);
		reserve_fill_commit(s, in, 1, 1);
		expected[(*n)++] = in[0];
	}
	free(filler);
	free(in);
}

static size_t reservations_size(void)
{
	return 6 * (2 * CG_SINK_RESERVE_MAX + 20) + (3u << 20);
}

static void reservations_commit_what_was_written(void **state)
{
	unsigned char *expected = malloc(reservations_size());
	size_t n = 0;
	cg_sink *m = cg_sink_memory();
	reservations(m, expected, &n);
	size_t len;
	const char *d = cg_sink_data(m, &len);
	assert_int_equal(len, n);
	assert_memory_equal(d, expected, n);
	assert_int_equal(d[len], '\0');
	assert_int_equal(cg_sink_written(m), n);
	cg_sink_close(m, NULL);

	const char *paths[2] = {tu_path("reserve.bin"), tu_path("reserve.bin.gz")};
	for (int gz = 0; gz < 2; gz++) {
		cg_sink *s;
		cg_error err = CG_ERROR_INIT;
		assert_int_equal(cg_sink_open(&s, paths[gz], gz ? 1 : 0, &err), 0);
		n = 0;
		reservations(s, expected, &n);
		assert_int_equal(cg_sink_written(s), n);
		assert_int_equal(cg_sink_close(s, &err), 0);
		if (gz)
			assert_gzip_file_is(paths[gz], expected, n);
		else
			assert_file_is(paths[gz], expected, n);
	}
	free(expected);
}

/* JSON-like text, as the writers produce: compressible. */
static size_t json_lines(char *buf, size_t size)
{
	size_t n = 0;
	for (unsigned i = 0; n + 64 < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "{\"ts\":%u,\"bytes\":%u},\n", i * 7, i % 977);
	return n;
}

static void gzip_sinks_inflate_back_to_what_was_written(void **state)
{
	const size_t cap = 5u << 20;
	char *text = malloc(cap);
	size_t n = json_lines(text, cap);
	/* levels 1 to 9; above 9 is taken as 9 */
	const int levels[] = {1, 6, 9, 42};
	for (size_t l = 0; l < sizeof levels / sizeof *levels; l++) {
		const char *path = tu_path("text.json.gz");
		cg_sink *s;
		cg_error err = CG_ERROR_INIT;
		assert_int_equal(cg_sink_open(&s, path, levels[l], &err), 0);
		/* pieces of every size, some larger than a compression block */
		size_t i = 0, k = 1;
		for (unsigned step = 0; i < n; step++) {
			size_t piece = k < n - i ? k : n - i;
			if (step % 4 == 3) {
				cg_sink_putc(s, text[i]);
				piece = 1;
			} else {
				cg_sink_write(s, text + i, piece);
			}
			i += piece;
			k = k * 3 + 1; /* 1, 4, 13, ... past 3 MiB, then again */
			if (k > (3u << 20))
				k = 1;
		}
		/* what was written, before compression */
		assert_int_equal(cg_sink_written(s), n);
		assert_int_equal(cg_sink_close(s, &err), 0);
		struct stat st;
		assert_int_equal(stat(path, &st), 0);
		assert_true((size_t)st.st_size < n / 4);
		assert_gzip_file_is(path, text, n);
	}
	free(text);
}

static void an_empty_gzip_sink_is_an_empty_gzip_file(void **state)
{
	const char *path = tu_path("empty.gz");
	cg_sink *s;
	assert_int_equal(cg_sink_open(&s, path, 6, NULL), 0);
	assert_int_equal(cg_sink_written(s), 0);
	assert_int_equal(cg_sink_close(s, NULL), 0);
	assert_gzip_file_is(path, "", 0);
}

/* A few bytes stay in the buffer: the write fails at close, which says so
 * and names the file. */
static void a_full_disk_fails_at_close_naming_the_file(void **state)
{
	cg_sink *s;
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_sink_open(&s, "/dev/full", 0, &err), 0);
	cg_sink_puts(s, "hello");
	cg_sink_printf(s, "%d", 5);
	assert_int_equal(cg_sink_close(s, &err), CG_EIO);
	assert_int_equal(err.code, CG_EIO);
	assert_non_null(strstr(err.msg, "/dev/full"));
	assert_non_null(strstr(err.msg, "No space left on device"));
}

/* A write larger than the buffer fails at once; every call after it is
 * harmless, and close still reports the first error. */
static void an_error_is_sticky(void **state)
{
	const size_t big = 1u << 20;
	unsigned char *in = pattern(big, 5);
	cg_sink *s;
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_sink_open(&s, "/dev/full", 0, &err), 0);
	cg_sink_write(s, in, big);
	cg_sink_write(s, in, big);
	cg_sink_puts(s, "more");
	for (int i = 0; i < 1000; i++)
		cg_sink_putc(s, 'x');
	cg_sink_printf(s, "%s", "and more");
	reserve_fill_commit(s, in, CG_SINK_RESERVE_MAX, CG_SINK_RESERVE_MAX);
	assert_int_equal(cg_sink_close(s, &err), CG_EIO);
	assert_non_null(strstr(err.msg, "/dev/full: No space left on device"));
	free(in);
}

static void a_gzip_sink_on_a_full_disk_fails_at_close(void **state)
{
	const size_t n = 3u << 20;
	unsigned char *in = pattern(n, 6);
	for (int size = 0; size < 2; size++) {
		cg_sink *s;
		cg_error err = CG_ERROR_INIT;
		assert_int_equal(cg_sink_open(&s, "/dev/full", 1, &err), 0);
		/* a few bytes (written by the trailer at close), or blocks */
		cg_sink_write(s, in, size ? n : 10);
		assert_int_equal(cg_sink_close(s, &err), CG_EIO);
		assert_non_null(strstr(err.msg, "/dev/full"));
	}
	free(in);
}

static void a_file_that_cannot_be_created_is_an_error_naming_it(void **state)
{
	cg_sink *s = (cg_sink *)&s; /* not NULL: open must clear it */
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_sink_open(&s, "/nonexistent-dir/out.json", 0, &err), CG_EIO);
	assert_null(s);
	assert_non_null(strstr(err.msg, "/nonexistent-dir/out.json: No such file or directory"));
	/* a folder is not a file */
	assert_int_equal(cg_sink_open(&s, tu_tmpdir(), 1, &err), CG_EIO);
	assert_null(s);
	assert_non_null(strstr(err.msg, tu_tmpdir()));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_memory_sink_keeps_every_kind_of_write),
		cmocka_unit_test(printf_longer_than_a_line_is_kept_whole),
		cmocka_unit_test(a_memory_sink_grows_to_what_is_written),
		cmocka_unit_test(a_file_sink_writes_everything_in_order),
		cmocka_unit_test(opening_truncates_an_existing_file),
		cmocka_unit_test(reservations_commit_what_was_written),
		cmocka_unit_test(gzip_sinks_inflate_back_to_what_was_written),
		cmocka_unit_test(an_empty_gzip_sink_is_an_empty_gzip_file),
		cmocka_unit_test(a_full_disk_fails_at_close_naming_the_file),
		cmocka_unit_test(an_error_is_sticky),
		cmocka_unit_test(a_gzip_sink_on_a_full_disk_fails_at_close),
		cmocka_unit_test(a_file_that_cannot_be_created_is_an_error_naming_it),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
