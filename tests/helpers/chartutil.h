/* Helpers for the chart tests: draw a chart of a hand-built timeline on an
 * image surface and read its pixels back at computed positions. The draw
 * functions are declared in chart_draw.h, internal to render/chart and its
 * tests. */
#ifndef CG_CHARTUTIL_H
#define CG_CHARTUTIL_H

#include "testutil.h"

#include <string.h>

#include "analysis.h"
#include "chart_draw.h"
#include "tlbuild.h"

typedef void (*tc_draw_fn)(cg_chart *c, const cg_analysis *a, uint32_t device, const char *run_name);

/* The pixel at logical (x, y) as 0xRRGGBB. */
static inline unsigned tc_pixel(cg_chart *c, double x, double y)
{
	cairo_surface_flush(c->surface);
	unsigned char *data = cairo_image_surface_get_data(c->surface);
	int stride = cairo_image_surface_get_stride(c->surface);
	int w = cairo_image_surface_get_width(c->surface), h = cairo_image_surface_get_height(c->surface);
	int px = (int)(x * c->scale), py = (int)(y * c->scale);
	if (px < 0 || py < 0 || px >= w || py >= h)
		fail_msg("pixel (%g, %g) is off the canvas", x, y);
	uint32_t v;
	memcpy(&v, data + (size_t)py * (size_t)stride + (size_t)px * 4, 4);
	return v & 0xffffff;
}

static inline unsigned tc_hex(cg_rgb c)
{
	return (unsigned)(c.r * 255 + 0.5) << 16 | (unsigned)(c.g * 255 + 0.5) << 8 | (unsigned)(c.b * 255 + 0.5);
}

static inline unsigned tc_category(cg_category c)
{
	return tc_hex(cg_chart_category_color(c));
}

/* Whether a pixel of exactly this colour lies within dy pixels above or
 * below (x, y): a 2-px line at a fractional y fully covers one row. */
static inline bool tc_near(cg_chart *c, double x, double y, int dy, unsigned hex)
{
	for (int k = -dy; k <= dy; k++)
		if (tc_pixel(c, x, y + k) == hex)
			return true;
	return false;
}

/* Analyses tl and draws one chart of device d on a PNG surface of the
 * given size; the caller closes c and frees *a. */
static inline void tc_draw(cg_chart *c, cg_analysis **a, const cg_timeline *tl, uint32_t d, tc_draw_fn draw,
			   int width, int height, double scale)
{
	assert_int_equal(cg_analysis_run(a, tl, NULL, NULL), 0);
	cg_chart_size size = {width, height, scale};
	assert_int_equal(cg_chart_open(c, tu_path("chart.png"), CG_CHART_PNG, &size, NULL), 0);
	draw(c, *a, d, "test");
}

static inline void tc_close(cg_chart *c, cg_analysis *a)
{
	assert_int_equal(cg_chart_close(c, NULL), 0);
	cg_analysis_free(a);
}

/* A small training run on "cpu", worked out by hand:
 *   setup:model allocates 4000 B of parameters at 100 ns (never freed);
 *   forward (1000-3000) allocates 1000 B of activations at 1500, freed at 7000;
 *   backward (3000-6000) allocates a 500 B temporary at 3500, freed at 3600,
 *   then 3000 B of gradients at 4000, freed at 7500.
 * Peak: 8000 B at 4000 ns = parameter 4000 + gradient 3000 + activation 1000;
 * by phase: none 4000, backward 3000, forward 1000. Lifetimes: 100 ns
 * (temporary), 3500 ns (gradient), 5500 ns (activation). */
static inline cg_timeline *tc_small_run(void)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "r", NULL, "run", 0, 10000, CG_PHASE_NONE);
	tu_span(tl, "s", "r", "setup:model", 0, 1000, CG_PHASE_NONE);
	tu_span(tl, "t", "r", "train_step#0", 1000, 9000, CG_PHASE_NONE);
	tu_span(tl, "f", "t", "forward", 1000, 3000, CG_PHASE_FORWARD);
	tu_span(tl, "b", "t", "backward", 3000, 6000, CG_PHASE_BACKWARD);
	tu_mem(tl, 100, "w", "s", "cpu", 4000, CG_ALLOC, CG_CAT_PARAMETER, "aten::empty");
	tu_mem(tl, 1500, "x", "f", "cpu", 1000, CG_ALLOC, CG_CAT_ACTIVATION, "aten::relu");
	tu_mem(tl, 3500, "tmp", "b", "cpu", 500, CG_ALLOC, CG_CAT_TEMPORARY, "aten::mm");
	tu_mem(tl, 3600, "tmp", "b", "cpu", 500, CG_FREE, CG_CAT_TEMPORARY, "aten::mm");
	tu_mem(tl, 4000, "g", "b", "cpu", 3000, CG_ALLOC, CG_CAT_GRADIENT, "aten::mm");
	tu_mem(tl, 7000, "x", "b", "cpu", 1000, CG_FREE, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 7500, "g", "b", "cpu", 3000, CG_FREE, CG_CAT_GRADIENT, NULL);
	tu_tl_finalize(tl);
	return tl;
}

typedef const char *(*tc_skip_fn)(const cg_analysis *a, uint32_t device);

/* A cuda:0 trace in a format whose frees cannot be paired (an allocation,
 * and its free when with_free): asserts skip_reason says "paired". */
static inline void tc_assert_skipped_unpaired(tc_skip_fn skip_reason, bool with_free)
{
	cg_timeline *tl = tu_tl_new();
	tl->source.pairing_known = false;
	tu_mem(tl, 10, "a", NULL, "cuda:0", 100, CG_ALLOC, CG_CAT_UNKNOWN, NULL);
	if (with_free)
		tu_mem(tl, 20, "a", NULL, "cuda:0", 100, CG_FREE, CG_CAT_UNKNOWN, NULL);
	tu_tl_finalize(tl);
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	assert_non_null(strstr(skip_reason(a, 0), "paired"));
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

#endif
