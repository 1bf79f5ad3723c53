/* What every chart shares: a cairo surface (PNG or SVG), the house style
 * (palette, type, frame), text measurement and elision, and nice ticks.
 *
 *     cg_chart c;
 *     if (cg_chart_open(&c, "out/x.png", CG_CHART_PNG, &size, &err) < 0) ...;
 *     cg_chart_frame(&c, "Title", "subtitle", "footnote");
 *     ...draw with c.cr inside c.plot...
 *     rc = cg_chart_close(&c, &err);   // writes the PNG, checks cairo's status once
 *
 * Coordinates are logical pixels of a width x height canvas (1600 x 900 by
 * default); scale only multiplies the PNG's pixel density (2 for HiDPI). */
#ifndef CG_CHART_H
#define CG_CHART_H

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "enums.h"
#include "error.h"

typedef enum cg_chart_format { CG_CHART_PNG, CG_CHART_SVG } cg_chart_format;

typedef struct cg_chart_size {
	int width, height; /* logical pixels */
	double scale;	   /* PNG pixels per logical pixel */
} cg_chart_size;

#define CG_CHART_SIZE_INIT {1600, 900, 1.0}
/* Smallest canvas the layout fits in. */
#define CG_CHART_MIN_WIDTH 800
#define CG_CHART_MIN_HEIGHT 450

typedef struct cg_rect {
	double x0, y0, x1, y1;
} cg_rect;

typedef struct cg_chart {
	cairo_surface_t *surface;
	cairo_t *cr;
	cg_chart_format format;
	char *path;
	double width, height, scale;
	cg_rect plot; /* the data area; set by the chart */
	double x_max, y_max; /* data values at the plot's right and top edges */
} cg_chart;

int cg_chart_open(cg_chart *c, const char *path, cg_chart_format format, const cg_chart_size *size,
		  cg_error *err);
/* Finishes the file (PNG written here) and frees the surface. Returns
 * CG_EIO when cairo reports an error at any point of the drawing. */
int cg_chart_close(cg_chart *c, cg_error *err);

/* --- house style (render/README of the design: Okabe-Ito categories) --- */

typedef struct cg_rgb {
	double r, g, b;
} cg_rgb;

cg_rgb cg_rgb_hex(unsigned hex);
cg_rgb cg_chart_category_color(cg_category c);
/* Pale phase fills for bars and icicles; lane tints for the timeline. */
cg_rgb cg_chart_phase_color(cg_phase p);
cg_rgb cg_chart_lane_color(cg_phase p);
/* Categories from the bottom of a stack to its top. */
extern const cg_category cg_chart_stack_order[CG_CAT_COUNT];

#define CG_INK 0x1A1A1A
#define CG_SECONDARY 0x555555
#define CG_FOOTNOTE 0x888888
#define CG_GRID 0xE8E8E8
#define CG_AXES 0x444444

void cg_chart_color(cg_chart *c, unsigned hex);
void cg_chart_rgb(cg_chart *c, cg_rgb rgb);

/* Type sizes in logical px. */
enum {
	CG_TYPE_TITLE = 26,
	CG_TYPE_LABEL = 16, /* subtitle, axis titles, labels, legend */
	CG_TYPE_TICK = 15,
	CG_TYPE_SMALL = 14, /* lanes, headers */
	CG_TYPE_NOTE = 13,  /* footnote */
};
#define CG_MARGIN 40.0

/* --- text --- */

typedef enum cg_align { CG_LEFT, CG_CENTER, CG_RIGHT } cg_align;

void cg_chart_font(cg_chart *c, double size, bool bold);
double cg_chart_text_width(cg_chart *c, const char *s);
/* Draws s with its baseline at y, aligned on x. */
void cg_chart_text(cg_chart *c, double x, double y, cg_align align, const char *s);
/* s cut to fit width with "…": at the end, or in the middle when middle is
 * set and at least 12 characters survive. Returns a new string (caller
 * frees), or NULL when fewer than min_chars characters would show. */
char *cg_chart_elide(cg_chart *c, const char *s, double width, bool middle, size_t min_chars);

/* Title (bold, baseline 44), subtitle (baseline 70, cut to fit) and a
 * footnote (grey, 18 px above the bottom), all left-aligned at the margin. */
void cg_chart_frame(cg_chart *c, const char *title, const char *subtitle, const char *footnote);

/* x (or y) of a 1-px line that lands on whole device pixels. */
double cg_chart_crisp(const cg_chart *c, double v);
void cg_chart_hline(cg_chart *c, double x0, double x1, double y, unsigned hex);
void cg_chart_vline(cg_chart *c, double x, double y0, double y1, unsigned hex);
void cg_chart_box(cg_chart *c, double x, double y, double w, double h, cg_rgb fill);

/* --- ticks --- */

typedef struct cg_ticks {
	int count;	   /* tick values: 0, step, 2 step, ... (count of them) */
	double step;	   /* in data units (bytes or ns) */
	double max;	   /* axis maximum: (count - 1) * step */
	double divisor;	   /* data units per displayed unit */
	const char *unit;  /* "MiB", "s", ... */
	int decimals;	   /* the same on every label */
} cg_ticks;

/* Byte axis from 0 to at least max: steps of 1, 2, 4, 8 x 2^k, at most
 * max_intervals intervals, unit from the axis maximum. */
void cg_ticks_bytes(cg_ticks *t, double max, int max_intervals);
/* Raises the axis maximum by one step. */
void cg_ticks_grow(cg_ticks *t);
/* Time axis from 0 to max ns: steps of 1, 2, 5 x 10^k; seconds, or ms or
 * µs when the whole axis is under 0.1 s (or 0.1 ms). */
void cg_ticks_time(cg_ticks *t, double max_ns, int max_intervals);
/* The label of tick i: "12", "0.05" (no unit). */
char *cg_ticks_label(const cg_ticks *t, int i, char *buf, size_t size);
/* The unit of a byte value for axis titles ("MiB") and its divisor. */
const char *cg_bytes_unit(double max, double *divisor);

#endif
