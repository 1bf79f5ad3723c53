/* PNG files from opaque 32-bit pixels (a cairo image surface's), written fast.
 *
 * cairo_surface_write_to_png spends about 45 ms on a 1600 x 900 chart
 * (libpng's adaptive filters and zlib level 6); a report writes a dozen
 * charts or more. Charts are flat colours on white: unfiltered rows through
 * zlib level 1 come out within 15 % of that size in about a tenth of the
 * time. The output is a plain 8-bit RGB PNG, the same bytes for the same
 * pixels. */
#ifndef CG_PNG_H
#define CG_PNG_H

#include "error.h"

/* Rows of native-endian 32-bit pixels 0xAARRGGBB, as in cairo's ARGB32
 * and RGB24 image surfaces, stride bytes apart. */
typedef struct cg_png_image {
	const unsigned char *data;
	int width, height, stride;
} cg_png_image;

/* Writes an image whose pixels are all opaque (as every chart's are: each
 * starts painted white) to path. Returns 0, or CG_EIO naming the path. */
int cg_png_write(const cg_png_image *image, const char *path, cg_error *err);

#endif
