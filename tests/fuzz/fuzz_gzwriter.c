/* libFuzzer target: the gzip writer behind every trace.json.gz
 * (render/output/gzwriter.c), directly and through a gzip sink. The input
 * is a small program that builds the bytes to compress and where blocks
 * end:
 *   byte 0     level (1-9), and bit 4: through cg_sink_open instead
 *   byte 1     worker threads of the two writers compared (1-4 each)
 *   then ops   00nnnnnn  n+1 literal bytes from the input
 *              01nnnnnn  d: the last d+1 bytes repeated to (n+1) * 512 bytes
 *              10nnnnnn  s: (n+1) * 2 KiB, zeros (s even) or noise seeded by s
 *              11nnnnnn  end the block here (n odd: also an empty block)
 * Both writers write into memory files; each file is inflated with zlib
 * and must be exactly one gzip member holding the bytes, and the two
 * files must be the same bytes (they do not depend on the threads).
 *   build-fuzz/tests/fuzz/fuzz_gzwriter tests/fuzz/corpus_gzwriter */
#define _GNU_SOURCE /* memfd_create */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <zlib.h>

#include "gzwriter.h"
#include "sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Bounds what one input may ask for: a little more than the writer's
 * block, so that one input can fill a block and go on. */
#define MAX_TOTAL (CG_GZWRITER_BLOCK + ((size_t)64 << 10))

typedef struct plan {
	unsigned char *bytes;
	size_t len;
	size_t *cuts; /* block ends, offsets into bytes, ascending */
	size_t ncuts;
} plan;

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_gzwriter: %s\n", what);
	abort();
}

static void append(plan *p, const void *src, size_t n)
{
	memcpy(p->bytes + p->len, src, n);
	p->len += n;
}

static void cut(plan *p)
{
	p->cuts[p->ncuts++] = p->len;
}

static void make_plan(plan *p, const uint8_t *in, const uint8_t *end)
{
	p->bytes = malloc(MAX_TOTAL);
	p->cuts = malloc(((size_t)(end - in) + 1) * 2 * sizeof *p->cuts);
	p->len = p->ncuts = 0;
	while (in < end) {
		unsigned op = *in++, n = (op & 63) + 1;
		unsigned arg = in < end ? *in : 0;
		size_t room = MAX_TOTAL - p->len;
		switch (op >> 6) {
		case 0:
			if (n > (size_t)(end - in))
				n = (unsigned)(end - in);
			if (n > room)
				n = (unsigned)room;
			append(p, in, n);
			in += n;
			break;
		case 1: {
			in += in < end;
			size_t d = arg + 1, want = (size_t)n * 512;
			if (d > p->len)
				d = p->len;
			if (want > room)
				want = room;
			for (size_t k = 0; d && k < want; k++)
				p->bytes[p->len + k] = p->bytes[p->len - d + k % d];
			p->len += d ? want : 0;
			break;
		}
		case 2: {
			in += in < end;
			size_t want = (size_t)n << 11;
			if (want > room)
				want = room;
			uint32_t x = arg * 2654435761u + 1;
			for (size_t k = 0; k < want; k++) {
				x = x * 1103515245u + 12345u;
				p->bytes[p->len + k] = arg & 1 ? (unsigned char)(x >> 24) : 0;
			}
			p->len += want;
			break;
		}
		default:
			cut(p);
			if (n & 1)
				cut(p);
			break;
		}
	}
}

/* The bytes through a writer of its own, block by block as planned (a
 * block longer than the writer's is cut where it fills). */
static void write_direct(int fd, const plan *p, int level, unsigned threads)
{
	cg_gzwriter *g = cg_gzwriter_new(fd, level, threads);
	char *block = cg_gzwriter_block(g);
	size_t from = 0;
	for (size_t c = 0; c <= p->ncuts; c++) {
		size_t to = c < p->ncuts ? p->cuts[c] : p->len;
		do {
			size_t n = to - from < CG_GZWRITER_BLOCK ? to - from : CG_GZWRITER_BLOCK;
			memcpy(block, p->bytes + from, n);
			from += n;
			if (c == p->ncuts && from == to) {
				if (cg_gzwriter_finish(g, block, n) != 0)
					fail("finish failed on a memory file");
				return;
			}
			block = cg_gzwriter_push(g, block, n);
		} while (from < to);
	}
}

/* The same bytes through a gzip sink, each planned piece written in one
 * call, alternating the sink's ways of taking bytes. */
static void write_sink(int fd, const plan *p, int level)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	cg_sink *s;
	cg_error err;
	if (cg_sink_open(&s, path, level, &err) < 0)
		fail(err.msg);
	size_t from = 0;
	for (size_t c = 0; c <= p->ncuts; c++) {
		size_t to = c < p->ncuts ? p->cuts[c] : p->len;
		size_t n = to - from;
		if (c % 3 == 1 && n <= CG_SINK_RESERVE_MAX) {
			char *at = cg_sink_reserve(s, n);
			memcpy(at, p->bytes + from, n);
			cg_sink_commit(s, n);
		} else if (c % 3 == 2 && n == 1) {
			cg_sink_putc(s, (char)p->bytes[from]);
		} else {
			cg_sink_write(s, p->bytes + from, n);
		}
		from = to;
	}
	if (cg_sink_written(s) != p->len)
		fail("the sink counted other bytes");
	if (cg_sink_close(s, &err) < 0)
		fail(err.msg);
}

/* The whole memory file (caller frees). */
static unsigned char *file_bytes(int fd, size_t *len)
{
	off_t n = lseek(fd, 0, SEEK_END);
	unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
	if (n < 0 || pread(fd, buf, (size_t)n, 0) != n)
		fail("cannot read the memory file back");
	*len = (size_t)n;
	return buf;
}

/* One gzip member holding exactly p's bytes, and nothing after it. */
static void check_inflates(const unsigned char *gz, size_t len, const plan *p)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		fail("inflateInit2");
	unsigned char *out = malloc(p->len + 1);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)(p->len + 1);
	int rc = inflate(&z, Z_FINISH);
	if (rc != Z_STREAM_END)
		fail("the stream does not inflate to its end");
	if (z.avail_in != 0)
		fail("bytes after the gzip member");
	if (z.total_out != p->len || memcmp(out, p->bytes, p->len) != 0)
		fail("the inflated bytes are not the input");
	inflateEnd(&z);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	int level = 1 + data[0] % 9;
	bool sink = data[0] >> 4 & 1;
	unsigned threads[2] = {1 + (data[1] & 3), 1 + (data[1] >> 2 & 3)};
	plan p;
	make_plan(&p, data + 2, data + size);

	unsigned char *out[2] = {NULL, NULL};
	size_t len[2];
	for (int w = 0; w < (sink ? 1 : 2); w++) {
		int fd = memfd_create("gz", 0);
		if (fd < 0)
			fail("memfd_create");
		if (sink)
			write_sink(fd, &p, level);
		else
			write_direct(fd, &p, level, threads[w]);
		out[w] = file_bytes(fd, &len[w]);
		close(fd);
		check_inflates(out[w], len[w], &p);
	}
	if (!sink && (len[0] != len[1] || memcmp(out[0], out[1], len[0]) != 0))
		fail("the bytes depend on the number of threads");
	free(out[0]);
	free(out[1]);
	free(p.bytes);
	free(p.cuts);
	return 0;
}
