#include "spannest.h"

#include <stdlib.h>

#include "xalloc.h"

#define NONE UINT32_MAX

static int cmp_span(const void *a, const void *b)
{
	const cg_nest_span *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end) /* the longer one encloses the shorter */
		return x->end > y->end ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_point(const void *a, const void *b)
{
	const cg_nest_point *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

typedef struct stack {
	uint32_t *items;
	size_t n, cap;
} stack;

/* Places span i under the innermost open span that contains it. Spans
 * arrive by start time, so every open span started at or before it. */
static void place(cg_nest_span *spans, uint32_t i, stack *st, cg_nest_counts *c)
{
	cg_nest_span *s = &spans[i];
	s->clipped = s->reparented = false;
	while (st->n > 0) {
		const cg_nest_span *top = &spans[st->items[st->n - 1]];
		if (s->end <= top->end)
			break; /* inside */
		if (top->end <= s->start) {
			st->n--; /* top ended before s began */
			continue;
		}
		/* s overlaps top's end. Unsigned: both differences are positive
		 * but may not fit in int64. */
		uint64_t outside = (uint64_t)s->end - (uint64_t)top->end;
		uint64_t inside = (uint64_t)top->end - (uint64_t)s->start;
		if (outside <= inside) {
			s->end = top->end;
			s->clipped = true;
			c->clipped++;
			break;
		}
		st->n--;
		if (!s->reparented)
			c->reparented++;
		s->reparented = true;
	}
	s->parent = st->n > 0 ? st->items[st->n - 1] : NONE;
	CG_GROW(st->items, st->cap, st->n + 1);
	st->items[st->n++] = i;
}

void cg_nest_build(cg_nest_span *spans, size_t nspans, cg_nest_point *points, size_t npoints,
		   cg_nest_counts *counts)
{
	cg_nest_counts c = {0, 0};
	if (nspans > 1)
		qsort(spans, nspans, sizeof *spans, cmp_span);
	if (npoints > 1)
		qsort(points, npoints, sizeof *points, cmp_point);
	stack st = {NULL, 0, 0};
	size_t i = 0, j = 0;
	while (i < nspans || j < npoints) {
		/* The next thread with anything on it. */
		uint32_t thread;
		if (i < nspans && (j >= npoints || spans[i].thread <= points[j].thread))
			thread = spans[i].thread;
		else
			thread = points[j].thread;
		st.n = 0;
		for (; j < npoints && points[j].thread == thread; j++) {
			cg_nest_point *p = &points[j];
			for (; i < nspans && spans[i].thread == thread && spans[i].start <= p->t; i++)
				place(spans, (uint32_t)i, &st, &c);
			while (st.n > 0 && spans[st.items[st.n - 1]].end < p->t)
				st.n--;
			p->span = st.n > 0 ? st.items[st.n - 1] : NONE;
		}
		for (; i < nspans && spans[i].thread == thread; i++)
			place(spans, (uint32_t)i, &st, &c);
	}
	cg_free(st.items);
	if (counts)
		*counts = c;
}
