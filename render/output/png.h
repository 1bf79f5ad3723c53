/* PNG files from opaque 32-bit pixels (a cairo image surface's), written fast.
 *
 * cairo_surface_write_to_png spends about 45 ms on a 1600 x 900 chart
 * (libpng's adaptive filters and zlib level 6); a report writes a dozen
 * charts or more. Charts are flat colours on white: unfiltered rows through
 * zlib level 1 come out within 15 % of that size in about a tenth of the
 * time. The output is a plain 8-bit RGB PNG, the same bytes for the same
 * pixels.
 *
 * Before the pixels come sRGB (the colours are sRGB, rendering intent
 * perceptual), pHYs (72 dpi times the chart's scale, so a HiDPI chart
 * pastes at its logical size) and the chart's title as a tEXt chunk
 * (keyword "Title", Latin-1 as the PNG spec asks: characters outside it
 * become '?'), followed by an iTXt chunk with the exact UTF-8 title when
 * tEXt could not hold it. */
#ifndef CG_PNG_H
#define CG_PNG_H

#include "error.h"

/* Rows of native-endian 32-bit pixels 0xAARRGGBB, as in cairo's ARGB32
 * and RGB24 image surfaces, stride bytes apart. */
typedef struct cg_png_image {
	const unsigned char *data;
	int width, height, stride;
	double scale;	   /* pixels per 1/72 inch; 0 counts as 1 (72 dpi) */
	const char *title; /* UTF-8, or NULL: no text chunk */
} cg_png_image;

/* The pHYs density of scale (pixels per 1/72 inch), in pixels per metre:
 * round(72 * scale / 0.0254), 2835 at 1 and 5669 at 2. */
unsigned long cg_png_pixels_per_metre(double scale);

/* Writes an image whose pixels are all opaque (as every chart's are: each
 * starts painted white) to path. Returns 0, or CG_EIO naming the path. */
int cg_png_write(const cg_png_image *image, const char *path, cg_error *err);

#endif
