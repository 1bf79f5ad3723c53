/* What every chart shares: a cairo surface (PNG, SVG or PDF), the house style
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

#include "chart_layout.h"
#include "enums.h"
#include "error.h"

/* A PDF page is the canvas with 1 px = 1 pt: the size a PNG at scale 1
 * (72 dpi) pastes at. */
typedef enum cg_chart_format { CG_CHART_PNG, CG_CHART_SVG, CG_CHART_PDF } cg_chart_format;

typedef struct cg_rect {
	double x0, y0, x1, y1;
} cg_rect;

typedef struct cg_chart {
	cairo_surface_t *surface;
	cairo_t *cr;
	cg_chart_format format;
	char *path;
	char *title; /* the last cg_chart_frame's, for the PNG's Title; or NULL */
	struct cg_sink *svg, *svg_file; /* an SVG's bytes until close, its file; else NULL */
	double width, height, scale;
	cg_rect plot; /* the data area; set by the chart */
	double x_max, y_max; /* data values at the plot's right and top edges */
} cg_chart;

int cg_chart_open(cg_chart *c, const char *path, cg_chart_format format, const cg_chart_size *size,
		  cg_error *err);
/* The same, a PNG drawn into one of q's reused buffers (to be closed by
 * cg_chart_close_queued with the same q); q NULL: as cg_chart_open. */
struct cg_png_queue;
int cg_chart_open_queued(cg_chart *c, const char *path, cg_chart_format format, const cg_chart_size *size,
			 struct cg_png_queue *q, cg_error *err);
/* Finishes the file (PNG written here) and frees the surface. Returns
 * CG_EIO when cairo reports an error at any point of the drawing. */
int cg_chart_close(cg_chart *c, cg_error *err);
/* The same, with a PNG handed to q to be written by its worker (errors
 * writing it come from cg_png_queue_finish); q NULL writes it here. */
int cg_chart_close_queued(cg_chart *c, struct cg_png_queue *q, cg_error *err);

/* --- house style (render/README of the design: Okabe-Ito categories) --- */

typedef struct cg_rgb {
	double r, g, b;
} cg_rgb;

cg_rgb cg_rgb_hex(unsigned hex);
cg_rgb cg_chart_category_color(cg_category c);
/* Pale phase fills for bars and icicles; lane tints for the timeline. */
cg_rgb cg_chart_phase_color(cg_phase p);
cg_rgb cg_chart_lane_color(cg_phase p);

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
 * footnote (grey, 18 px above the bottom), all left-aligned at the margin.
 * The title is also the file's own (a PNG's tEXt Title, a PDF's /Title). */
void cg_chart_frame(cg_chart *c, const char *title, const char *subtitle, const char *footnote);
/* The same with the subtitle cut to subtitle_width, leaving room at its
 * right for a legend row. */
void cg_chart_frame_narrow(cg_chart *c, const char *title, const char *subtitle, double subtitle_width,
			   const char *footnote);
/* "bold" in bold ink, then "grey" in grey: the label after a bar ("3.05 MiB
 * 19.7 %"). Drawn with its baseline at y from x when draw is set; returns
 * its width either way. */
double cg_chart_value_label(cg_chart *c, double x, double y, const char *bold, const char *grey, bool draw);

/* x (or y) of a 1-px line that lands on whole device pixels. */
double cg_chart_crisp(const cg_chart *c, double v);
void cg_chart_hline(cg_chart *c, double x0, double x1, double y, unsigned hex);
void cg_chart_vline(cg_chart *c, double x, double y0, double y1, unsigned hex);
void cg_chart_box(cg_chart *c, double x, double y, double w, double h, cg_rgb fill);

/* --- legends --- */

/* A legend column (as beside the timeline): a header with an optional
 * right-aligned column title, then entries with a 14-px swatch or a short
 * line, a name and an optional value right-aligned at x + width. Each
 * returns the baseline of the next row. */
double cg_chart_legend_header(cg_chart *c, double x, double y, double width, const char *left, const char *right);
double cg_chart_legend_swatch(cg_chart *c, double x, double y, double width, cg_rgb swatch, const char *name,
			      const char *value);
/* dash: NULL for a solid line, else two lengths (on, off). */
double cg_chart_legend_line(cg_chart *c, double x, double y, double width, unsigned color, const double *dash,
			    const char *name, const char *value);

/* A legend on one line (swatch, name; swatch, name ...) ending at x_right
 * on baseline y, as above the icicle. Returns its width; draws only when
 * draw is set, so a chart can measure it first. */
typedef struct cg_legend_item {
	cg_rgb color;
	const char *name;
} cg_legend_item;
double cg_chart_legend_row(cg_chart *c, double x_right, double y, const cg_legend_item *items, size_t n, bool draw);

/* --- ticks --- */

typedef enum cg_tick_kind { CG_TICKS_BYTES, CG_TICKS_TIME, CG_TICKS_COUNT } cg_tick_kind;

typedef struct cg_ticks {
	cg_tick_kind kind;
	int count;	   /* tick values: 0, step, 2 step, ... (count of them) */
	double step;	   /* in data units (bytes or ns) */
	double max;	   /* axis maximum: (count - 1) * step */
	double divisor;	   /* data units per displayed unit */
	const char *unit;  /* "MiB", "s", ...; "" for counts */
	int decimals;	   /* the same on every label */
} cg_ticks;

/* Byte axis from 0 to at least max: steps of 1, 2, 4, 8 x 2^k, at most
 * max_intervals intervals, unit from the axis maximum. */
void cg_ticks_bytes(cg_ticks *t, double max, int max_intervals);
/* Count axis from 0 to at least max: steps of 1, 2, 5 x 10^k (whole
 * numbers), at most max_intervals intervals; labels with thousands
 * separators, no unit. */
void cg_ticks_count(cg_ticks *t, double max, int max_intervals);
/* Raises the axis maximum by one step. */
void cg_ticks_grow(cg_ticks *t);
/* Time axis from 0 to max ns: steps of 1, 2, 5 x 10^k; seconds, or ms or
 * µs when the whole axis is under 0.1 s (or 0.1 ms). */
void cg_ticks_time(cg_ticks *t, double max_ns, int max_intervals);
/* How many intervals an axis of this length (px) can hold with labels at
 * least min_gap px apart: from 2 to 10. */
int cg_ticks_fit(double length, double min_gap);
/* The label of tick i: "12", "0.05", "20,000" (no unit). */
char *cg_ticks_label(const cg_ticks *t, int i, char *buf, size_t size);
/* The unit of a byte value for axis titles ("MiB") and its divisor. */
const char *cg_bytes_unit(double max, double *divisor);

/* --- axes --- */

/* Vertical axis at the plot's left: labels right-aligned 8 px left of it,
 * a 1-px grid line at every tick above 0 (under the data: draw first), and
 * the title turned along the left margin. */
void cg_chart_axis_left(cg_chart *c, const cg_rect *plot, const cg_ticks *t, const char *title);
/* Horizontal axis: the 1-px baseline (over the data: draw after it), 5-px
 * ticks, labels centred under them and the title below. */
void cg_chart_axis_bottom(cg_chart *c, const cg_rect *plot, const cg_ticks *t, const char *title);

#endif
