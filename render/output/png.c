#include "png.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "utf8.h"
#include "xalloc.h"

typedef struct writer {
	FILE *f;
	z_stream z;
	unsigned char out[65536]; /* one IDAT chunk's data */
	bool failed;
} writer;

static void put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static void chunk(writer *w, const char *type, const unsigned char *data, size_t n)
{
	unsigned char head[8], crc[4];
	put_u32(head, (uint32_t)n);
	memcpy(head + 4, type, 4);
	uLong c = crc32(0L, head + 4, 4);
	if (n)
		c = crc32(c, data, (uInt)n);
	put_u32(crc, (uint32_t)c);
	if (fwrite(head, 1, 8, w->f) != 8 || (n && fwrite(data, 1, n, w->f) != n) || fwrite(crc, 1, 4, w->f) != 4)
		w->failed = true;
}

/* Deflates what is in z's input; each full output buffer becomes an IDAT
 * chunk, and so does the rest when the stream finishes. */
static void pump(writer *w, int flush)
{
	for (;;) {
		int rc = deflate(&w->z, flush);
		if (rc == Z_STREAM_ERROR) {
			w->failed = true;
			return;
		}
		if (w->z.avail_out == 0) {
			chunk(w, "IDAT", w->out, sizeof w->out);
			w->z.next_out = w->out;
			w->z.avail_out = sizeof w->out;
			continue;
		}
		/* room left: all input taken (Z_NO_FLUSH), or the stream is done */
		if (flush != Z_FINISH)
			return;
		if (rc == Z_STREAM_END) {
			if (w->z.avail_out < sizeof w->out)
				chunk(w, "IDAT", w->out, sizeof w->out - w->z.avail_out);
			return;
		}
	}
}

unsigned long cg_png_pixels_per_metre(double scale)
{
	if (!(scale > 0))
		scale = 1;
	return (unsigned long)lround(72.0 * scale / 0.0254);
}

/* Title as tEXt holds it: ISO 8859-1 without control characters (PNG
 * spec 11.3.4.3); each other character, and each byte that starts no
 * character, becomes '?'. Returns the length written to out (which holds
 * strlen(title) bytes); *lossy tells whether anything was replaced. */
static size_t latin1(const char *title, unsigned char *out, bool *lossy)
{
	const unsigned char *s = (const unsigned char *)title;
	size_t n = 0;
	*lossy = false;
	while (*s) {
		unsigned cp = '?';
		bool kept = true;
		if (*s < 0x80) {
			cp = *s++;
		} else if ((s[0] == 0xc2 || s[0] == 0xc3) && (s[1] & 0xc0) == 0x80) {
			cp = (unsigned)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
			s += 2;
		} else {
			kept = false;
			s++;
			while ((*s & 0xc0) == 0x80) /* the rest of the character */
				s++;
		}
		if (!kept || cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) {
			cp = '?';
			*lossy = true;
		}
		out[n++] = (unsigned char)cp;
	}
	return n;
}

/* The title as tEXt, and as iTXt too when tEXt had to change it (an
 * em dash, a CJK device name) and the title is valid UTF-8. */
static void text_chunks(writer *w, const char *title)
{
	static const char keyword[] = "Title";
	size_t k = sizeof keyword; /* with its NUL separator */
	size_t len = strlen(title);
	unsigned char *data = cg_malloc(k + 4 + len);
	memcpy(data, keyword, k);
	bool lossy;
	size_t n = latin1(title, data + k, &lossy);
	chunk(w, "tEXt", data, k + n);
	size_t bad;
	if (lossy && cg_utf8_check(title, len, &bad) == CG_UTF8_OK) {
		/* keyword NUL, not compressed, method 0, no language tag NUL, no
		 * translated keyword NUL, the text (PNG spec 11.3.4.5) */
		memcpy(data + k, "\0\0\0\0", 4);
		memcpy(data + k + 4, title, len);
		chunk(w, "iTXt", data, k + 4 + len);
	}
	cg_free(data);
}

int cg_png_write(const cg_png_image *image, const char *path, cg_error *err)
{
	int width = image->width, height = image->height, stride = image->stride;
	const unsigned char *data = image->data;
	if (!data || width <= 0 || height <= 0 || stride < width * 4)
		return cg_error_set(err, CG_EIO, "%s: no image to write", path);

	writer *w = cg_calloc(1, sizeof *w);
	w->f = fopen(path, "wb");
	if (!w->f) {
		int rc = cg_error_set(err, CG_EIO, "%s: cannot write: %s", path, strerror(errno));
		cg_free(w);
		return rc;
	}
	static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
	if (fwrite(signature, 1, 8, w->f) != 8)
		w->failed = true;
	unsigned char ihdr[13];
	put_u32(ihdr, (uint32_t)width);
	put_u32(ihdr + 4, (uint32_t)height);
	ihdr[8] = 8;  /* bits per sample */
	ihdr[9] = 2;  /* RGB */
	ihdr[10] = 0; /* deflate */
	ihdr[11] = 0; /* adaptive filtering, filter type per row */
	ihdr[12] = 0; /* not interlaced */
	chunk(w, "IHDR", ihdr, sizeof ihdr);
	static const unsigned char srgb[1] = {0}; /* rendering intent: perceptual */
	chunk(w, "sRGB", srgb, sizeof srgb);
	unsigned char phys[9];
	uint32_t ppm = (uint32_t)cg_png_pixels_per_metre(image->scale);
	put_u32(phys, ppm);
	put_u32(phys + 4, ppm);
	phys[8] = 1; /* unit: the metre */
	chunk(w, "pHYs", phys, sizeof phys);
	if (image->title)
		text_chunks(w, image->title);

	if (deflateInit(&w->z, 1) != Z_OK) {
		fclose(w->f);
		cg_free(w);
		return cg_error_set(err, CG_EIO, "%s: cannot start compressing", path);
	}
	w->z.next_out = w->out;
	w->z.avail_out = sizeof w->out;
	size_t row_bytes = 1 + (size_t)width * 3;
	unsigned char *row = cg_malloc(row_bytes);
	row[0] = 0; /* filter: none */
	for (int y = 0; y < height && !w->failed; y++) {
		const uint32_t *px = (const uint32_t *)(const void *)(data + (size_t)y * (size_t)stride);
		unsigned char *o = row + 1;
		for (int x = 0; x < width; x++, o += 3) {
			uint32_t v = px[x];
			o[0] = (unsigned char)(v >> 16);
			o[1] = (unsigned char)(v >> 8);
			o[2] = (unsigned char)v;
		}
		w->z.next_in = row;
		w->z.avail_in = (uInt)row_bytes;
		pump(w, Z_NO_FLUSH);
	}
	if (!w->failed)
		pump(w, Z_FINISH);
	deflateEnd(&w->z);
	cg_free(row);
	chunk(w, "IEND", NULL, 0);
	bool failed = w->failed;
	if (fclose(w->f) != 0)
		failed = true;
	cg_free(w);
	if (failed)
		return cg_error_set(err, CG_EIO, "%s: cannot write the PNG: %s", path, errno ? strerror(errno) : "error");
	return 0;
}
