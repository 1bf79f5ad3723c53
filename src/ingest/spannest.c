#include "spannest.h"

#include <stdlib.h>
#include <string.h>

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

static bool before(const cg_nest_span *a, const cg_nest_span *b)
{
	return cmp_span(a, b) < 0;
}

/* Merges the sorted runs src[lo..mid) and src[mid..hi) into dst[lo..hi). */
static void merge(const cg_nest_span *src, cg_nest_span *dst, size_t lo, size_t mid, size_t hi)
{
	size_t i = lo, j = mid, k = lo;
	while (i < mid && j < hi)
		dst[k++] = before(&src[j], &src[i]) ? src[j++] : src[i++];
	while (i < mid)
		dst[k++] = src[i++];
	while (j < hi)
		dst[k++] = src[j++];
}

/* Sorts spans by cmp_span (a total order: any sort gives the same array).
 * A profiler writes spans nearly in order, a few long runs, so this merges
 * the runs it finds, pairwise: O(n log runs), at worst O(n log n), where
 * qsort moved every span log n times. */
static void sort_spans(cg_nest_span *a, size_t n)
{
	size_t nruns = 1;
	for (size_t i = 1; i < n; i++)
		nruns += before(&a[i], &a[i - 1]);
	if (nruns == 1)
		return;
	size_t *runs = cg_malloc((nruns + 1) * sizeof *runs);
	nruns = 0;
	runs[nruns++] = 0;
	for (size_t i = 1; i < n; i++)
		if (before(&a[i], &a[i - 1]))
			runs[nruns++] = i;
	runs[nruns] = n;
	cg_nest_span *tmp = cg_malloc(n * sizeof *tmp), *src = a, *dst = tmp;
	while (nruns > 1) {
		size_t out = 0;
		for (size_t r = 0; r < nruns; r += 2) {
			if (r + 1 < nruns)
				merge(src, dst, runs[r], runs[r + 1], runs[r + 2]);
			else
				memcpy(dst + runs[r], src + runs[r], (runs[r + 1] - runs[r]) * sizeof *dst);
			runs[out++] = runs[r];
		}
		runs[out] = n;
		nruns = out;
		cg_nest_span *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof *a);
	cg_free(tmp);
	cg_free(runs);
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
		sort_spans(spans, nspans);
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
