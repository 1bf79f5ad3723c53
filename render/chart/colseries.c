#include "colseries.h"

#include "xalloc.h"

void cg_columns_init(cg_columns *c, size_t n, uint64_t t_end)
{
	c->n = n ? n : 1;
	c->t_end = t_end ? t_end : 1;
	c->cur = 0;
	c->lo = 1; /* empty: the first question seeks */
	c->hi = 0;
}

/* ceil(k t_end / n): the first time of column k */
static uint64_t column_start(const cg_columns *c, size_t k)
{
	__uint128_t num = (__uint128_t)k * c->t_end;
	return (uint64_t)((num + c->n - 1) / c->n);
}

size_t cg_columns_seek(cg_columns *c, uint64_t t)
{
	size_t k = (size_t)((__uint128_t)t * c->n / c->t_end);
	if (k >= c->n)
		k = c->n - 1;
	c->cur = k;
	c->lo = k == 0 ? 0 : column_start(c, k);
	c->hi = k + 1 >= c->n ? UINT64_MAX : column_start(c, k + 1);
	return k;
}

void cg_colseries_init(cg_colseries *s, size_t ncols, uint64_t t_end)
{
	s->ncols = ncols ? ncols : 1;
	s->t_end = t_end ? t_end : 1;
	cg_columns_init(&s->cols, s->ncols, s->t_end);
	s->enter = cg_calloc(s->ncols, sizeof *s->enter);
	s->lo = cg_calloc(s->ncols, sizeof *s->lo);
	s->hi = cg_calloc(s->ncols, sizeof *s->hi);
	s->last = cg_calloc(s->ncols, sizeof *s->last);
	s->first = s->ncols;
	s->cur = 0;
	s->max = 0;
	s->any = false;
}

/* Columns after cur up to (not including) c hold the value leaving cur. */
static void carry(cg_colseries *s, size_t c)
{
	double v = s->last[s->cur];
	while (s->cur + 1 < c) {
		s->cur++;
		s->enter[s->cur] = s->lo[s->cur] = s->hi[s->cur] = s->last[s->cur] = v;
	}
}

void cg_colseries_add(cg_colseries *s, uint64_t t, double v)
{
	size_t c = cg_columns_of(&s->cols, t);
	if (!s->any) {
		s->any = true;
		s->first = s->cur = c;
		s->enter[c] = s->lo[c] = s->hi[c] = v;
		s->max = v;
	} else if (c > s->cur) {
		carry(s, c);
		double in = s->last[s->cur];
		s->cur = c;
		s->enter[c] = s->lo[c] = s->hi[c] = in;
	}
	if (v < s->lo[s->cur])
		s->lo[s->cur] = v;
	if (v > s->hi[s->cur])
		s->hi[s->cur] = v;
	if (v > s->max)
		s->max = v;
	s->last[s->cur] = v;
}

void cg_colseries_finish(cg_colseries *s)
{
	if (s->any)
		carry(s, s->ncols);
}

void cg_colseries_free(cg_colseries *s)
{
	cg_free(s->enter);
	cg_free(s->lo);
	cg_free(s->hi);
	cg_free(s->last);
	s->enter = s->lo = s->hi = s->last = NULL;
}

typedef struct pen {
	cairo_t *cr;
	double x, y;
	bool down;
} pen;

/* Moves to (x, y) with a horizontal then a vertical segment, leaving out
 * points that do not turn, so a flat stretch is one segment. */
static void step_to(pen *p, double x, double y)
{
	if (!p->down) {
		cairo_move_to(p->cr, x, y);
		p->down = true;
	} else if (y != p->y) {
		cairo_line_to(p->cr, x, p->y);
		cairo_line_to(p->cr, x, y);
	}
	p->x = x;
	p->y = y;
}

void cg_colseries_path(cairo_t *cr, const cg_colseries *s, const cg_rect *plot, double y_max,
		       cg_colseries_style style)
{
	if (!s->any || y_max <= 0)
		return;
	double w = (plot->x1 - plot->x0) / (double)s->ncols, h = plot->y1 - plot->y0;
#define Y(v) (plot->y1 - h * ((v) < y_max ? (v) : y_max) / y_max)
	pen p = {cr, 0, 0, false};
	if (style == CG_COLSERIES_AREA)
		step_to(&p, plot->x0 + (double)s->first * w, plot->y1);
	for (size_t k = s->first; k <= s->cur && k < s->ncols; k++) {
		double x = plot->x0 + (double)k * w;
		if (style == CG_COLSERIES_AREA) {
			step_to(&p, x, Y(s->hi[k]));
			continue;
		}
		step_to(&p, x, Y(s->enter[k]));
		if (s->lo[k] != s->hi[k]) {
			step_to(&p, x, Y(s->hi[k]));
			step_to(&p, x, Y(s->lo[k]));
		}
		step_to(&p, x, Y(s->last[k]));
	}
	double x_end = plot->x0 + (double)(s->cur + 1) * w;
	cairo_line_to(cr, x_end, p.y);
	if (style == CG_COLSERIES_AREA) {
		cairo_line_to(cr, x_end, plot->y1);
		cairo_close_path(cr);
	}
#undef Y
}
