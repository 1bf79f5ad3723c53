#include "align.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

const char *cg_align_mode_name(cg_align_mode m)
{
	return m == CG_ALIGN_PHASES ? "phases" : "start";
}

typedef struct win_sort {
	cg_align_window w;
	uint32_t span;
} win_sort;

static int cmp_window(const void *a, const void *b)
{
	const win_sort *x = a, *y = b;
	if (x->w.start_ns != y->w.start_ns)
		return x->w.start_ns < y->w.start_ns ? -1 : 1;
	return x->span < y->span ? -1 : x->span > y->span;
}

/* The outermost span of each phase stretch, in time order. */
static void find_windows(const cg_timeline *tl, cg_align_window **out, uint32_t *n)
{
	win_sort *ws = cg_malloc((tl->nspans ? tl->nspans : 1) * sizeof *ws);
	size_t k = 0;
	for (size_t i = 0; i < tl->nspans; i++) {
		const cg_span *s = &tl->spans[i];
		cg_phase parent = s->parent == CG_NONE ? CG_PHASE_NONE : (cg_phase)tl->spans[s->parent].phase;
		if (s->step == CG_PHASE_NONE || s->phase == parent)
			continue;
		uint64_t end = s->end_ns > s->start_ns ? s->end_ns : s->start_ns;
		ws[k++] = (win_sort){{s->start_ns, end, s->phase}, (uint32_t)i};
	}
	if (k > 1)
		qsort(ws, k, sizeof *ws, cmp_window);
	*out = cg_malloc((k ? k : 1) * sizeof **out);
	for (size_t i = 0; i < k; i++)
		(*out)[i] = ws[i].w;
	*n = (uint32_t)k;
	cg_free(ws);
}

static double norm(const cg_align *al, int side, uint64_t t)
{
	return (double)t / (double)al->duration_ns[side];
}

static void add_knot(cg_align *al, uint64_t b, uint64_t n)
{
	if (al->nknots > 0) {
		/* a knot must not go back in either run (windows can nest or overlap) */
		uint32_t last = al->nknots - 1;
		if (b < al->knot_ns[0][last] || n < al->knot_ns[1][last])
			return;
		if (b == al->knot_ns[0][last] && n == al->knot_ns[1][last])
			return;
	}
	if (b > al->duration_ns[0] || n > al->duration_ns[1])
		return;
	al->knot_ns[0][al->nknots] = b;
	al->knot_ns[1][al->nknots] = n;
	al->knot_at[al->nknots] = (norm(al, 0, b) + norm(al, 1, n)) / 2;
	al->nknots++;
}

void cg_align_run(cg_align **out, const cg_timeline *base, const cg_timeline *new_tl, cg_align_mode mode)
{
	cg_align *al = cg_calloc(1, sizeof *al);
	const cg_timeline *tl[2] = {base, new_tl};
	al->mode = mode;
	for (int s = 0; s < 2; s++) {
		al->duration_ns[s] = tl[s]->last_t_ns ? tl[s]->last_t_ns : 1;
		find_windows(tl[s], &al->windows[s], &al->nwindows[s]);
	}
	if (mode == CG_ALIGN_PHASES) {
		uint32_t n = al->nwindows[0] < al->nwindows[1] ? al->nwindows[0] : al->nwindows[1];
		while (al->matched < n && al->windows[0][al->matched].phase == al->windows[1][al->matched].phase)
			al->matched++;
	}
	size_t most = 2 + 2 * (size_t)al->matched;
	for (int s = 0; s < 2; s++)
		al->knot_ns[s] = cg_malloc(most * sizeof *al->knot_ns[s]);
	al->knot_at = cg_malloc(most * sizeof *al->knot_at);
	add_knot(al, 0, 0);
	for (uint32_t k = 0; k < al->matched; k++) {
		const cg_align_window *b = &al->windows[0][k], *w = &al->windows[1][k];
		add_knot(al, b->start_ns, w->start_ns);
		add_knot(al, b->end_ns, w->end_ns);
	}
	/* Refused only when it equals the knot before, which then ends both runs. */
	add_knot(al, al->duration_ns[0], al->duration_ns[1]);
	*out = al;
}

void cg_align_free(cg_align *al)
{
	if (!al)
		return;
	for (int s = 0; s < 2; s++) {
		cg_free(al->windows[s]);
		cg_free(al->knot_ns[s]);
	}
	cg_free(al->knot_at);
	cg_free(al);
}

double cg_align_at(const cg_align *al, int side, uint64_t t)
{
	const uint64_t *k = al->knot_ns[side];
	uint32_t n = al->nknots;
	if (t >= k[n - 1])
		return 1.0;
	/* the last knot at or before t */
	uint32_t lo = 0, hi = n - 1;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (k[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	double span = (double)(k[hi] - k[lo]);
	double f = span > 0 ? (double)(t - k[lo]) / span : 0.0;
	return al->knot_at[lo] + f * (al->knot_at[hi] - al->knot_at[lo]);
}
