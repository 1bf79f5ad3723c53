/* libFuzzer target: the report's charts (render/chart), the PNG encoder
 * (render/output/png.c) and the output folder (render/output/outdir.c).
 *   byte 0   chart width, 800 + 4 * (b & 63)
 *   byte 1   chart height, 450 + 4 * (b & 63)
 *   byte 2   bits 0-2 the PNG scale (0.5 to 2), bits 3-4 the formats (PNG,
 *            SVG, both), bit 5 how many devices get charts (1-2), bit 7
 *            the folder is committed (else aborted)
 *   byte 3   bit 0: the rest is not a trace but an image for cg_png_write,
 *            read back and compared pixel by pixel
 *   the rest a trace in any format (plain or gzip): ingest, analysis, every
 *            chart of every device into an output folder in the process's
 *            temporary folder.
 * Sizes stay inside what `report` accepts (--width >= 800, --height >= 450,
 * --scale 0.5-4), kept small so that each input costs milliseconds.
 *   build-fuzz/tests/fuzz/fuzz_charts tests/fuzz/corpus_charts */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "analysis.h"
#include "charts.h"
#include "fuzz_tmpdir.h"
#include "ingest.h"
#include "outdir.h"
#include "png.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_charts: %s\n", what);
	abort();
}

static bool shutdown_registered;

static void charts_shutdown(void)
{
	cg_charts_shutdown();
}

static void draw_charts(const uint8_t *hdr, const uint8_t *data, size_t size)
{
	static const double scales[8] = {0.5, 0.75, 1, 1.25, 1.5, 2, 1, 0.5};
	cg_charts_options o = CG_CHARTS_OPTIONS_INIT;
	o.size.width = CG_CHART_MIN_WIDTH + 4 * (hdr[0] & 63);
	o.size.height = CG_CHART_MIN_HEIGHT + 4 * (hdr[1] & 63);
	o.size.scale = scales[hdr[2] & 7];
	unsigned formats = hdr[2] >> 3 & 3;
	o.png = formats != 1;
	o.svg = formats != 0;
	o.max_devices = 1 + (hdr[2] >> 5 & 1);
	bool commit = hdr[2] >> 7;

	cg_ingest_options io = CG_INGEST_OPTIONS_INIT;
	io.max_line_bytes = 1 << 20;
	io.max_string_bytes = 8 << 20;
	io.threads = 1;
	cg_timeline *tl = NULL;
	cg_analysis *a = NULL;
	cg_error err = CG_ERROR_INIT;
	cg_analysis_options ao = CG_ANALYSIS_OPTIONS_INIT;
	ao.threads = 1;
	ao.top_n = 5;
	if (cg_ingest_memory(&tl, data, size, "fuzz.jsonl", &io, &err) < 0 || cg_analysis_run(&a, tl, &ao, &err) < 0)
		goto cleanup;
	if (!shutdown_registered) {
		atexit(charts_shutdown);
		shutdown_registered = true;
	}

	char out[128];
	snprintf(out, sizeof out, "%s/out", fuzz_tmpdir());
	cg_outdir *od;
	if (cg_outdir_begin(&od, out, true, &err) < 0)
		fail(err.msg);
	cg_chart_list list = {0};
	int rc = cg_charts_write(od, a, &o, &list, &err);
	if (rc < 0)
		fail(err.msg); /* a folder of our own in /tmp: nothing may fail */
	for (size_t i = 0; i < list.n; i++)
		if (!list.items[i].name || !list.items[i].title)
			fail("a chart without a name or a title");
	cg_chart_list_free(&list);
	if (commit) {
		if (cg_outdir_commit(od, &err) < 0)
			fail(err.msg);
	} else {
		cg_outdir_abort(od);
	}
cleanup:
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

/* --- PNG round trip ---------------------------------------------------------- */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Reads back what cg_png_write wrote: the signature, IHDR (8-bit RGB),
 * every chunk's CRC, the IDAT stream inflated to unfiltered rows, IEND;
 * the pixels must be the image's. */
static void check_png(const unsigned char *f, size_t n, const cg_png_image *im)
{
	static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
	if (n < 8 || memcmp(f, sig, 8) != 0)
		fail("no PNG signature");
	size_t row = 1 + 3 * (size_t)im->width, want = row * (size_t)im->height;
	unsigned char *rows = malloc(want + 1);
	z_stream z;
	memset(&z, 0, sizeof z);
	if (inflateInit(&z) != Z_OK)
		fail("inflateInit");
	z.next_out = rows;
	z.avail_out = (uInt)(want + 1);
	bool ihdr = false, iend = false, zend = false;
	for (size_t at = 8; at < n && !iend;) {
		if (n - at < 12)
			fail("a chunk cut short");
		uint32_t len = be32(f + at);
		if (len > n - at - 12)
			fail("a chunk longer than the file");
		const unsigned char *type = f + at + 4, *body = f + at + 8;
		if (be32(body + len) != (uint32_t)crc32(0, type, len + 4))
			fail("a chunk's CRC is wrong");
		if (memcmp(type, "IHDR", 4) == 0) {
			if (len != 13 || be32(body) != (uint32_t)im->width || be32(body + 4) != (uint32_t)im->height ||
			    body[8] != 8 || body[9] != 2 || body[10] || body[11] || body[12])
				fail("IHDR is not the image's");
			ihdr = true;
		} else if (memcmp(type, "IDAT", 4) == 0) {
			if (!ihdr || zend)
				fail("IDAT out of place");
			z.next_in = (Bytef *)body;
			z.avail_in = len;
			int rc = inflate(&z, Z_NO_FLUSH);
			if (rc == Z_STREAM_END)
				zend = true;
			else if (rc != Z_OK && !(rc == Z_BUF_ERROR && len == 0))
				fail("IDAT does not inflate");
		} else if (memcmp(type, "IEND", 4) == 0) {
			iend = true;
			if (at + 12 + len != n)
				fail("bytes after IEND");
		}
		at += 12 + (size_t)len;
	}
	if (!iend || !zend || z.total_out != want)
		fail("the image data is incomplete");
	inflateEnd(&z);
	for (int y = 0; y < im->height; y++) {
		const unsigned char *r = rows + (size_t)y * row;
		const uint32_t *px = (const uint32_t *)(im->data + (size_t)y * (size_t)im->stride);
		if (r[0] != 0)
			fail("a filtered row");
		for (int x = 0; x < im->width; x++) {
			const unsigned char *p = r + 1 + 3 * (size_t)x;
			if (p[0] != (px[x] >> 16 & 255) || p[1] != (px[x] >> 8 & 255) || p[2] != (px[x] & 255))
				fail("a pixel differs");
		}
	}
	free(rows);
}

/* width and height 1-256 from the first bytes, the stride a little more
 * than a row, the pixels the rest of the input repeated. */
static void png_round_trip(const uint8_t *data, size_t size)
{
	if (size < 4)
		return;
	cg_png_image im = {.width = 1 + data[0], .height = 1 + data[1]};
	im.stride = 4 * (im.width + (data[2] & 7));
	data += 3;
	size -= 3;
	size_t bytes = (size_t)im.stride * (size_t)im.height;
	unsigned char *px = malloc(bytes);
	for (size_t i = 0; i < bytes; i++)
		px[i] = data[i % size];
	im.data = px;
	char path[128];
	snprintf(path, sizeof path, "%s/image.png", fuzz_tmpdir());
	cg_error err = CG_ERROR_INIT;
	if (cg_png_write(&im, path, &err) < 0)
		fail(err.msg);
	FILE *f = fopen(path, "rb");
	if (!f)
		fail("cannot read the PNG back");
	size_t cap = 1 << 16, n = 0, k;
	unsigned char *buf = malloc(cap);
	while ((k = fread(buf + n, 1, cap - n, f)) > 0)
		if ((n += k) == cap)
			buf = realloc(buf, cap *= 2);
	fclose(f);
	check_png(buf, n, &im);
	free(buf);
	free(px);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	if (data[3] & 1)
		png_round_trip(data + 4, size - 4);
	else
		draw_charts(data, data + 4, size - 4);
	return 0;
}
