/* The level-1 deflate encoder: zlib's inflate is the oracle. It checks
 * every block header, rejects codes longer than 15 bits or whose lengths
 * do not form a complete code, and gives back bytes that must be the
 * input; chunks are inflated as one stream, each with the input before it
 * as window. */
#include "testutil.h"

#include <string.h>
#include <zlib.h>

#include "deflate.h"

static uint32_t rng = 2463534242u;

static uint32_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/* Compresses in[0..n) in chunks of chunk bytes (the last may be shorter),
 * each with up to 32 KiB before it as dictionary, as the gzip writer does. */
static unsigned char *compress_chunks(const unsigned char *in, size_t n, size_t chunk, size_t *out_len)
{
	size_t nchunks = n ? (n + chunk - 1) / chunk : 1;
	unsigned char *out = malloc(nchunks * cg_deflate_bound(chunk));
	cg_deflater *d = cg_deflater_new();
	size_t len = 0, off = 0;
	do {
		size_t k = n - off < chunk ? n - off : chunk;
		size_t dict = off < 32768 ? off : 32768;
		size_t w = cg_deflate_chunk(d, in + off, dict, k, off + k == n, out + len);
		assert_true(w + 8 <= cg_deflate_bound(k));
		len += w;
		off += k;
	} while (off < n);
	cg_deflater_free(d);
	*out_len = len;
	return out;
}

/* Inflates a raw deflate stream that must end exactly at its end. */
static void assert_inflates_to(const unsigned char *z_in, size_t z_len, const unsigned char *want, size_t n)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	assert_int_equal(inflateInit2(&z, -MAX_WBITS), Z_OK);
	unsigned char *back = malloc(n + 1);
	z.next_in = (Bytef *)z_in;
	z.avail_in = (uInt)z_len;
	z.next_out = back;
	z.avail_out = (uInt)n + 1;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	assert_int_equal(z.avail_in, 0);
	assert_int_equal(z.total_out, n);
	assert_memory_equal(back, want, n);
	inflateEnd(&z);
	free(back);
}

static size_t round_trip(const unsigned char *in, size_t n, size_t chunk)
{
	size_t len;
	unsigned char *out = compress_chunks(in, n, chunk, &len);
	assert_inflates_to(out, len, in, n);
	free(out);
	return len;
}

/* Bytes of one of five kinds: noise, two letters, near repeats, zeros,
 * JSON-like text with repeats 300 bytes back. */
static void fill(unsigned char *p, size_t n, int kind)
{
	static const char json[] = "{\"ph\":\"C\",\"ts\":12.345,\"args\":{\"bytes\":6789}},\n";
	for (size_t i = 0; i < n; i++) {
		uint32_t r = next_random();
		switch (kind) {
		case 0: p[i] = (unsigned char)r; break;
		case 1: p[i] = "ab"[r & 1]; break;
		case 2: p[i] = i >= 8 && r % 8 ? p[i - 1 - r / 8 % 7] : (unsigned char)(r >> 8); break;
		case 3: p[i] = 0; break;
		default: p[i] = i > 300 && r % 50 ? p[i - 300 + r / 64 % 3] : (unsigned char)json[r / 64 % (sizeof json - 1)];
		}
	}
}

static void random_inputs_of_every_kind_round_trip(void **state)
{
	for (int t = 0; t < 600; t++) {
		size_t n = next_random() % (t < 400 ? 3000 : 200000);
		unsigned char *in = malloc(n + 1);
		fill(in, n, t % 5);
		size_t chunk = next_random() % 3 == 0 ? (size_t)1 << 20 : 1 + next_random() % (n + 1);
		round_trip(in, n, chunk);
		free(in);
	}
}

static void empty_input_and_empty_chunks(void **state)
{
	unsigned char none[1] = {0};
	assert_true(round_trip(none, 0, 1) <= 8);
	cg_deflater *d = cg_deflater_new();
	unsigned char out[256], in[5] = "abcde";
	/* Empty chunks after one that is not: the first keeps the stream
	 * open, the last ends it. */
	size_t n = cg_deflate_chunk(d, in, 0, 5, false, out);
	n += cg_deflate_chunk(d, in + 5, 5, 0, false, out + n);
	n += cg_deflate_chunk(d, in + 5, 5, 0, true, out + n);
	cg_deflater_free(d);
	assert_inflates_to(out, n, in, 5);
}

/* Matches of every length 4-258 at distances across the whole window,
 * each stopped by a byte that differs; the codes and extra bits of each
 * length and distance must come back as the same bytes. */
static void every_length_and_distance_round_trips(void **state)
{
	const size_t dists[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 24, 25, 32, 33, 64, 65, 128, 129, 256,
				257, 512, 513, 1024, 1025, 2048, 2049, 4096, 4097, 8192, 8193, 16384, 16385, 32767, 32768};
	size_t cap = 1u << 20, n = 0;
	unsigned char *in = malloc(cap);
	fill(in, 32768, 0);
	n = 32768;
	for (size_t len = 4; len <= 258; len++) {
		size_t di = len % (sizeof dists / sizeof *dists);
		size_t d = dists[di];
		assert_true(n + len + 1 <= cap);
		for (size_t k = 0; k < len; k++, n++)
			in[n] = in[n - d];
		in[n] = (unsigned char)(in[n - d] + 1);
		n++;
		for (int k = 0; k < 40; k++)
			in[n++] = (unsigned char)next_random();
	}
	round_trip(in, n, n);
	round_trip(in, n, 65536);
	free(in);
}

/* Symbol counts that grow like Fibonacci's numbers make Huffman's tree
 * 26 deep: the lengths must be cut to 15 bits and still form a complete
 * code. */
static void skewed_counts_stay_within_fifteen_bits(void **state)
{
	size_t cap = 600000, n = 0;
	unsigned char *in = malloc(cap);
	size_t a = 1, b = 1;
	for (int s = 0; s < 27; s++) {
		for (size_t k = 0; k < a && n < cap; k++)
			in[n++] = (unsigned char)(s * 7);
		size_t c = a + b;
		a = b;
		b = c;
	}
	for (size_t i = n; i > 1; i--) { /* shuffle: few matches, the counts stay */
		size_t j = next_random() % i;
		unsigned char t = in[i - 1];
		in[i - 1] = in[j];
		in[j] = t;
	}
	size_t len = round_trip(in, n, n);
	assert_true(len < n / 2); /* coded, not stored: 27 symbols need under 8 bits */
	free(in);
}

/* Noise is stored: the output is the input and 5 bytes a block (a block
 * holds 32,768 symbols, here as many bytes). */
static void noise_is_stored(void **state)
{
	size_t n = 1 << 20;
	unsigned char *in = malloc(n);
	fill(in, n, 0);
	size_t len = round_trip(in, n, n);
	assert_true(len <= n + 5 * (n / 32768 + 1) + 16);
	free(in);
}

/* On JSON lines the encoder is meant for, no larger than zlib's level 1. */
static void json_lines_compress_as_well_as_zlib_level_1(void **state)
{
	size_t n = 4 << 20, used = 0;
	unsigned char *in = malloc(n + 128);
	for (uint32_t i = 0; used < n; i++) {
		int k = snprintf((char *)in + used, 128, "{\"ph\":\"C\",\"name\":\"live memory\",\"pid\":2,\"ts\":%u.%03u,"
						      "\"args\":{\"bytes\":%u}},\n",
				 1000 + i * 7, next_random() % 1000, (next_random() % 4096) * 512);
		used += (size_t)k;
	}
	n = used;
	size_t ours = round_trip(in, n, 1 << 20);
	uLongf zlen = compressBound(n);
	unsigned char *z = malloc(zlen);
	assert_int_equal(compress2(z, &zlen, in, n, 1), Z_OK);
	assert_true(ours <= zlen);
	free(z);
	free(in);
}

/* A chunk's bytes do not depend on what the encoder did before: each
 * gzip worker has its own, with its own history. */
static void a_chunk_compresses_the_same_after_other_chunks(void **state)
{
	size_t n = 300000;
	unsigned char *in = malloc(2 * n);
	fill(in, n, 0);
	fill(in + n, n, 4);
	size_t cap = cg_deflate_bound(n);
	unsigned char *fresh = malloc(cap), *used = malloc(cap);
	cg_deflater *a = cg_deflater_new(), *b = cg_deflater_new();
	size_t a_len = cg_deflate_chunk(a, in + n, 32768, n, false, fresh);
	cg_deflate_chunk(b, in, 0, n, false, used);
	size_t b_len = cg_deflate_chunk(b, in + n, 32768, n, false, used);
	assert_int_equal(a_len, b_len);
	assert_memory_equal(fresh, used, a_len);
	cg_deflater_free(a);
	cg_deflater_free(b);
	free(fresh);
	free(used);
	free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_inputs_of_every_kind_round_trip),
		cmocka_unit_test(empty_input_and_empty_chunks),
		cmocka_unit_test(every_length_and_distance_round_trips),
		cmocka_unit_test(skewed_counts_stay_within_fifteen_bits),
		cmocka_unit_test(noise_is_stored),
		cmocka_unit_test(json_lines_compress_as_well_as_zlib_level_1),
		cmocka_unit_test(a_chunk_compresses_the_same_after_other_chunks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
