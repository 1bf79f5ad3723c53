/* A step series over time (live bytes, reserved bytes, a percentage)
 * reduced to pixel columns in one pass: for each column the value entering
 * it, the lowest and highest it takes inside it, and the value leaving it.
 * Drawn from that, a spike one nanosecond long still reaches its height, so
 * the drawn maximum is the series' maximum, and drawing costs O(points +
 * columns) however many points there are.
 *
 *     cg_colseries s;
 *     cg_colseries_init(&s, ncols, t_end);
 *     for (...) cg_colseries_add(&s, t_ns, value);     // in time order
 *     cg_colseries_finish(&s);
 *     cg_colseries_path(c->cr, &s, &plot, y_max, CG_COLSERIES_LINE);
 *     cairo_stroke(c->cr);
 *     cg_colseries_free(&s);
 */
#ifndef CG_COLSERIES_H
#define CG_COLSERIES_H

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chart.h"

/* Which pixel column a time falls in: column k of n holds the times t
 * with floor(t n / t_end) = k (the last also everything later). Times
 * asked in order mostly stay in the column asked before, which is answered
 * without a division. */
typedef struct cg_columns {
	uint64_t t_end;
	size_t n;
	size_t cur;
	uint64_t lo, hi; /* the times of column cur: [lo, hi) */
} cg_columns;

void cg_columns_init(cg_columns *c, size_t n, uint64_t t_end);
size_t cg_columns_seek(cg_columns *c, uint64_t t);

static inline size_t cg_columns_of(cg_columns *c, uint64_t t)
{
	return t >= c->lo && t < c->hi ? c->cur : cg_columns_seek(c, t);
}

typedef struct cg_colseries {
	size_t ncols;
	cg_columns cols;
	uint64_t t_end;	/* time at the right edge of the last column */
	double *enter, *lo, *hi, *last;
	size_t first;	/* first column with a value; ncols while there is none */
	size_t cur;	/* the column of the latest point */
	double max;	/* the largest value added */
	bool any;
} cg_colseries;

void cg_colseries_init(cg_colseries *s, size_t ncols, uint64_t t_end);
/* From time t on the series is v. Points must come in time order; the
 * series starts at its first point. */
void cg_colseries_add(cg_colseries *s, uint64_t t, double v);
/* Holds the last value to the right edge. */
void cg_colseries_finish(cg_colseries *s);
void cg_colseries_free(cg_colseries *s);

typedef enum cg_colseries_style {
	CG_COLSERIES_LINE, /* a step line through every column's range */
	CG_COLSERIES_AREA, /* a closed area from 0 up to each column's highest value */
} cg_colseries_style;

/* Adds the series to cairo's current path, y from 0 at the plot's bottom to
 * y_max at its top (values above are drawn at the top); the caller strokes
 * or fills it. */
void cg_colseries_path(cairo_t *cr, const cg_colseries *s, const cg_rect *plot, double y_max,
		       cg_colseries_style style);

#endif
