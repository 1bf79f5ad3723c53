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

/* The outermost span of each phase stretch, in time order, with its step. */
static void find_windows(const cg_analysis *a, cg_align_window **out, uint32_t *n)
{
	const cg_timeline *tl = a->tl;
	const cg_steps_result *st = a->steps;
	win_sort *ws = cg_malloc((tl->nspans ? tl->nspans : 1) * sizeof *ws);
	size_t k = 0;
	for (size_t i = 0; i < tl->nspans; i++) {
		const cg_span *s = &tl->spans[i];
		cg_phase parent = s->parent == CG_NONE ? CG_PHASE_NONE : (cg_phase)tl->spans[s->parent].phase;
		if (s->step == CG_PHASE_NONE || s->phase == parent)
			continue;
		uint64_t end = s->end_ns > s->start_ns ? s->end_ns : s->start_ns;
		uint32_t step = st->nsteps && i < st->nspans ? st->step_of_span[i] : CG_NONE;
		ws[k++] = (win_sort){{s->start_ns, end, step, s->phase, false}, (uint32_t)i};
	}
	if (k > 1)
		qsort(ws, k, sizeof *ws, cmp_window);
	*out = cg_malloc((k ? k : 1) * sizeof **out);
	for (size_t i = 0; i < k; i++)
		(*out)[i] = ws[i].w;
	*n = (uint32_t)k;
	cg_free(ws);
}

static double norm(const cg_alignment *al, int side, uint64_t t)
{
	return (double)t / (double)al->duration_ns[side];
}

static void add_knot(cg_alignment *al, uint64_t b, uint64_t n)
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

static void match_pair(cg_alignment *al, cg_align_window *x, cg_align_window *y)
{
	x->matched = y->matched = true;
	al->matched++;
	add_knot(al, x->start_ns, y->start_ns);
	add_knot(al, x->end_ns, y->end_ns);
}

/* Matches windows x[0..nx) with y[0..ny) by phase: the longest common
 * subsequence, taken from the end, so that of two candidates the later
 * one is matched (a validation forward before the training forward is
 * left out). Over the budget, in order while the phases agree. */
static void match_windows(cg_alignment *al, cg_align_window *x, uint32_t nx, cg_align_window *y, uint32_t ny)
{
	if (nx == 0 || ny == 0)
		return;
	if ((uint64_t)(nx + 1) * (ny + 1) > CG_ALIGN_MAX_CELLS) {
		for (uint32_t k = 0; k < nx && k < ny && x[k].phase == y[k].phase; k++)
			match_pair(al, &x[k], &y[k]);
		return;
	}
	size_t w = (size_t)ny + 1;
	uint32_t *len = cg_calloc(((size_t)nx + 1) * w, sizeof *len); /* len[i][j]: LCS of x[..i), y[..j) */
	for (uint32_t i = 1; i <= nx; i++)
		for (uint32_t j = 1; j <= ny; j++) {
			uint32_t up = len[(i - 1) * w + j], left = len[i * w + j - 1];
			len[i * w + j] = x[i - 1].phase == y[j - 1].phase ? len[(i - 1) * w + j - 1] + 1
									: up > left ? up : left;
		}
	uint32_t n = len[nx * w + ny];
	uint32_t *pairs = cg_malloc((n ? n : 1) * 2 * sizeof *pairs);
	uint32_t k = n, i = nx, j = ny;
	while (i > 0 && j > 0) {
		if (x[i - 1].phase == y[j - 1].phase) {
			k--;
			pairs[2 * k] = --i;
			pairs[2 * k + 1] = --j;
		} else if (len[(i - 1) * w + j] >= len[i * w + j - 1]) {
			i--;
		} else {
			j--;
		}
	}
	for (k = 0; k < n; k++)
		match_pair(al, &x[pairs[2 * k]], &y[pairs[2 * k + 1]]);
	cg_free(pairs);
	cg_free(len);
}

/* The windows of step k: a contiguous run of the sorted windows, as steps
 * follow one another; windows outside it are skipped. */
static cg_align_window *step_windows(cg_align_window *w, uint32_t n, uint32_t *pos, uint32_t k, uint32_t *count)
{
	while (*pos < n && (w[*pos].step == CG_NONE || w[*pos].step < k))
		(*pos)++;
	uint32_t first = *pos;
	while (*pos < n && w[*pos].step == k)
		(*pos)++;
	*count = *pos - first;
	return w + first;
}

void cg_align_run(cg_alignment **out, const cg_analysis *base, const cg_analysis *new_a, cg_align_mode mode)
{
	cg_alignment *al = cg_calloc(1, sizeof *al);
	const cg_analysis *a[2] = {base, new_a};
	al->mode = mode;
	for (int s = 0; s < 2; s++) {
		al->duration_ns[s] = a[s]->tl->last_t_ns ? a[s]->tl->last_t_ns : 1;
		find_windows(a[s], &al->windows[s], &al->nwindows[s]);
	}
	uint32_t nsteps = a[0]->steps->nsteps < a[1]->steps->nsteps ? a[0]->steps->nsteps : a[1]->steps->nsteps;
	size_t most = 2 + 2 * (size_t)nsteps + 2 * (size_t)(al->nwindows[0] < al->nwindows[1] ? al->nwindows[0]
												: al->nwindows[1]);
	for (int s = 0; s < 2; s++)
		al->knot_ns[s] = cg_malloc(most * sizeof *al->knot_ns[s]);
	al->knot_at = cg_malloc(most * sizeof *al->knot_at);
	add_knot(al, 0, 0);
	if (mode == CG_ALIGN_PHASES && nsteps > 0) {
		uint32_t pos[2] = {0, 0};
		for (uint32_t k = 0; k < nsteps; k++) {
			const cg_step *x = &a[0]->steps->steps[k], *y = &a[1]->steps->steps[k];
			uint32_t nx, ny;
			cg_align_window *wx = step_windows(al->windows[0], al->nwindows[0], &pos[0], k, &nx);
			cg_align_window *wy = step_windows(al->windows[1], al->nwindows[1], &pos[1], k, &ny);
			add_knot(al, x->start_ns, y->start_ns);
			match_windows(al, wx, nx, wy, ny);
			add_knot(al, x->end_ns, y->end_ns);
			al->steps_matched++;
		}
	} else if (mode == CG_ALIGN_PHASES) {
		match_windows(al, al->windows[0], al->nwindows[0], al->windows[1], al->nwindows[1]);
	}
	/* Refused only when it equals the knot before, which then ends both runs. */
	add_knot(al, al->duration_ns[0], al->duration_ns[1]);
	*out = al;
}

void cg_align_free(cg_alignment *al)
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

double cg_align_at(const cg_alignment *al, int side, uint64_t t)
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
