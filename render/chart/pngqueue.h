/* PNG files written by a worker thread while the next charts are drawn:
 * compressing a chart's pixels costs about as much as drawing it, and the
 * two need not wait for each other.
 *
 *     cg_png_queue *q = cg_png_queue_new();
 *     cg_png_queue_push(q, image, path, title, scale);  // q now owns image, path, title
 *     ...
 *     rc = cg_png_queue_finish(q, &err);        // waits for every file; frees q
 *
 * When no thread can be started, push writes the file at once. The files
 * are the same bytes either way. */
#ifndef CG_PNGQUEUE_H
#define CG_PNGQUEUE_H

#include <cairo.h>

#include "error.h"
#include "png.h"

typedef struct cg_png_queue cg_png_queue;

/* The pixels of a flushed image surface, as cg_png_write takes them. */
static inline cg_png_image cg_png_image_of(cairo_surface_t *image)
{
	return (cg_png_image){.data = cairo_image_surface_get_data(image),
			      .width = cairo_image_surface_get_width(image),
			      .height = cairo_image_surface_get_height(image),
			      .stride = cairo_image_surface_get_stride(image)};
}

cg_png_queue *cg_png_queue_new(void);
/* A blank (all zero) ARGB32 image surface of width x height pixels whose
 * pixels are a buffer q keeps: once the surface is written and destroyed,
 * the buffer goes back to q for the next chart. A fresh 5.8 MB surface
 * costs 1,400 page faults each time, 10-20 ms on a paravirtualized
 * machine; a reused one none. Never NULL: cairo reports errors through
 * the surface's status. */
cairo_surface_t *cg_png_queue_surface(cg_png_queue *q, int width, int height);
/* Queues image (a finished image surface) to be written to path with
 * title (NULL: none) and scale as cg_png_write writes them; takes
 * ownership of image, path and title (from cg_malloc). Waits while two
 * images are already waiting, so memory stays bounded. */
void cg_png_queue_push(cg_png_queue *q, cairo_surface_t *image, char *path, char *title, double scale);
/* Waits until every queued file is written, stops the worker and frees q
 * with its buffers (every surface of q's must be destroyed by then).
 * Returns 0, or the first error (CG_EIO naming the file). NULL is a no-op. */
int cg_png_queue_finish(cg_png_queue *q, cg_error *err);

#endif
