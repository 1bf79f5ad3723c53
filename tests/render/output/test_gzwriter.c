/* The parallel gzip writer: any gzip reader gets the input back (zlib
 * checks the CRC and length in the trailer), and the bytes do not depend
 * on the number of threads. */
#include "testutil.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "gzwriter.h"
#include "sink.h"

/* Compressible but not trivial: JSON-like lines with varying numbers. */
static unsigned char *make_input(size_t n)
{
	unsigned char *p = malloc(n ? n : 1);
	uint32_t x = 12345;
	for (size_t i = 0; i < n;) {
		char line[96];
		x = x * 1103515245u + 12345u;
		int k = snprintf(line, sizeof line, "{\"ph\":\"C\",\"ts\":%u,\"args\":{\"bytes\":%u}},\n", x >> 8, x % 9973);
		for (int j = 0; j < k && i < n; j++)
			p[i++] = (unsigned char)line[j];
	}
	return p;
}

/* Inflates a whole gzip file; asserts it is one valid stream. */
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
	assert_int_equal(z.avail_in, 0); /* nothing after the trailer */
	inflateEnd(&z);
	*out_len = len;
	return out;
}

/* Writes input through a gzwriter in pieces of at most piece bytes. */
static unsigned char *gzip_with(const unsigned char *in, size_t n, unsigned threads, size_t piece, size_t *gz_len)
{
	const char *path = tu_path("w.gz");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	cg_gzwriter *g = cg_gzwriter_new(fd, 1, threads);
	char *block = cg_gzwriter_block(g);
	size_t used = 0;
	for (size_t i = 0; i < n;) {
		size_t k = n - i < piece ? n - i : piece;
		if (k > CG_GZWRITER_BLOCK - used)
			k = CG_GZWRITER_BLOCK - used;
		memcpy(block + used, in + i, k);
		used += k;
		i += k;
		if (used == CG_GZWRITER_BLOCK) {
			block = cg_gzwriter_push(g, block, used);
			used = 0;
		}
	}
	assert_int_equal(cg_gzwriter_finish(g, block, used), 0);
	assert_int_equal(close(fd), 0);
	unsigned char *gz = (unsigned char *)tu_read(path, gz_len);
	assert_non_null(gz);
	return gz;
}

static void round_trips_at_every_size_and_thread_count(void **state)
{
	const size_t B = CG_GZWRITER_BLOCK;
	const size_t sizes[] = {0, 1, 1000, B - 1, B, B + 1, 3 * B + 12345};
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		size_t n = sizes[s];
		unsigned char *in = make_input(n);
		size_t ref_len;
		unsigned char *ref = gzip_with(in, n, 1, n ? n : 1, &ref_len);
		size_t back_len;
		unsigned char *back = gunzip(ref, ref_len, &back_len);
		assert_int_equal(back_len, n);
		assert_memory_equal(back, in, n);
		/* More threads, smaller pieces: the same file. */
		const unsigned threads[] = {2, 5};
		for (size_t t = 0; t < 2; t++) {
			size_t len;
			unsigned char *gz = gzip_with(in, n, threads[t], 4099, &len);
			assert_int_equal(len, ref_len);
			assert_memory_equal(gz, ref, len);
			free(gz);
		}
		if (n > 2 * B)
			assert_true(ref_len < n / 3); /* the dictionary carries over blocks */
		free(back);
		free(ref);
		free(in);
	}
}

/* Through a gzip sink, with writes larger than a block and in-place
 * reservations mixed in, as the Chrome trace writer does. */
static void sink_round_trips_mixed_writes(void **state)
{
	const size_t n = 5 * CG_GZWRITER_BLOCK / 2;
	unsigned char *in = make_input(n);
	const char *path = tu_path("s.json.gz");
	cg_sink *s;
	cg_error err = {0};
	assert_int_equal(cg_sink_open(&s, path, 1, &err), 0);
	size_t i = 0, step = 0;
	while (i < n) {
		size_t k = (step++ % 3 == 0) ? 3 * CG_GZWRITER_BLOCK / 2 : 777;
		if (k > n - i)
			k = n - i;
		if (step % 3 == 2 && k <= CG_SINK_RESERVE_MAX) {
			char *p = cg_sink_reserve(s, k);
			memcpy(p, in + i, k);
			cg_sink_commit(s, k);
		} else {
			cg_sink_write(s, in + i, k);
		}
		i += k;
	}
	assert_int_equal(cg_sink_close(s, &err), 0);
	size_t gz_len, back_len;
	unsigned char *gz = (unsigned char *)tu_read(path, &gz_len);
	unsigned char *back = gunzip(gz, gz_len, &back_len);
	assert_int_equal(back_len, n);
	assert_memory_equal(back, in, n);
	free(back);
	free(gz);
	free(in);
}

static int teardown(void **state)
{
	tu_cleanup();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trips_at_every_size_and_thread_count),
		cmocka_unit_test(sink_round_trips_mixed_writes),
	};
	return cmocka_run_group_tests(tests, NULL, teardown);
}
