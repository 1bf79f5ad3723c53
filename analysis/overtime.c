#include "overtime.h"

#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "parallel.h"
#include "xalloc.h"

/* A time window whose peak is wanted. Positions index the live series of a
 * device: v[0] is live before its first record, v[j + 1] after record j. */
typedef struct window {
	uint64_t t0, t1;
	uint32_t l, r;	/* the window covers v[l .. r] */
	uint32_t owner; /* step index, or CG_NONE - 1 - phase */
	uint64_t max, end, start; /* start: v[l], the live bytes entering it */
	uint32_t argmax;
} window;

#define PHASE_OWNER(p) (CG_NONE - 1 - (uint32_t)(p))

static int cmp_by_r(const void *a, const void *b)
{
	const window *x = a, *y = b;
	return x->r < y->r ? -1 : x->r > y->r;
}

/* Number of the device's records with time < t (strict) or <= t. */
static uint32_t count_before(const cg_timeline *tl, const cg_device *dev, uint64_t t, bool inclusive)
{
	uint32_t lo = 0, hi = dev->mem_count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint64_t x = tl->mem[dev->mem_first + mid].t_ns;
		if (x < t || (inclusive && x == t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int64_t difference(uint64_t a, uint64_t b)
{
	if (a >= b)
		return a - b > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(a - b);
	return b - a > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)(b - a);
}

/* The phases' windows: outermost spans of each phase, merged where they
 * overlap so no moment counts twice. */
static window *phase_windows(const cg_timeline *tl, size_t *n)
{
	window *w = NULL;
	size_t cap = 0, k = 0;
	for (size_t i = 0; i < tl->nspans; i++) {
		const cg_span *s = &tl->spans[i];
		if (s->phase == CG_PHASE_NONE || (s->parent != CG_NONE && tl->spans[s->parent].phase == s->phase))
			continue;
		CG_GROW(w, cap, k + 1);
		w[k++] = (window){.t0 = s->start_ns, .t1 = s->end_ns, .owner = PHASE_OWNER(s->phase)};
	}
	*n = k;
	return w;
}

static int cmp_owner_t0(const void *a, const void *b)
{
	const window *x = a, *y = b;
	if (x->owner != y->owner)
		return x->owner < y->owner ? -1 : 1;
	return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

static size_t merge_windows(window *w, size_t n)
{
	if (n == 0)
		return 0;
	qsort(w, n, sizeof *w, cmp_owner_t0);
	size_t k = 0;
	for (size_t i = 1; i < n; i++) {
		if (w[i].owner == w[k].owner && w[i].t0 <= w[k].t1) {
			if (w[i].t1 > w[k].t1)
				w[k].t1 = w[i].t1;
		} else {
			w[++k] = w[i];
		}
	}
	return k + 1;
}

typedef struct stack_entry {
	uint32_t pos;
	uint64_t value;
} stack_entry;

/* A window's start position, to visit the windows in order of l too. */
typedef struct start_entry {
	uint32_t l, q;
} start_entry;

static int cmp_by_l(const void *a, const void *b)
{
	const start_entry *x = a, *y = b;
	return x->l < y->l ? -1 : x->l > y->l;
}

/* Answers every window in one sweep of the live series: the stack holds
 * the positions whose value no later position exceeds, so the first entry
 * at or after a window's start is the first maximum inside it. */
static void answer_windows(const cg_timeline *tl, const cg_device *dev, window *w, size_t n)
{
	if (n == 0)
		return;
	for (size_t q = 0; q < n; q++) {
		w[q].l = count_before(tl, dev, w[q].t0, false);
		w[q].r = count_before(tl, dev, w[q].t1, true);
		if (w[q].r < w[q].l)
			w[q].r = w[q].l;
	}
	qsort(w, n, sizeof *w, cmp_by_r);
	start_entry *starts = cg_malloc(n * sizeof *starts);
	for (size_t q = 0; q < n; q++)
		starts[q] = (start_entry){w[q].l, (uint32_t)q};
	qsort(starts, n, sizeof *starts, cmp_by_l);
	stack_entry *st = NULL;
	size_t cap = 0, top = 0, q = 0, next_start = 0;
	uint64_t live = cg_device_initial_live(dev);
	/* l <= r, so every start is seen before the last window ends the loop */
	for (uint32_t j = 0; j <= dev->mem_count && q < n; j++) {
		if (j > 0)
			live = cg_timeline_live_after(tl, dev->mem_first + j - 1, live);
		for (; next_start < n && starts[next_start].l == j; next_start++)
			w[starts[next_start].q].start = live;
		while (top > 0 && st[top - 1].value < live)
			top--;
		CG_GROW(st, cap, top + 1);
		st[top++] = (stack_entry){j, live};
		for (; q < n && w[q].r == j; q++) {
			size_t lo = 0, hi = top;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (st[mid].pos < w[q].l)
					lo = mid + 1;
				else
					hi = mid;
			}
			w[q].max = st[lo].value;
			w[q].argmax = st[lo].pos;
			w[q].end = live;
		}
	}
	cg_free(st);
	cg_free(starts);
}

/* When a window's maximum was first reached: its start when it is the
 * value entering the window, else the time of the record that made it. */
static uint64_t argmax_time(const cg_timeline *tl, const cg_device *dev, const window *w)
{
	return w->argmax == w->l ? w->t0 : tl->mem[dev->mem_first + w->argmax - 1].t_ns;
}

static void add_u64(uint64_t *acc, uint64_t v)
{
	if (!cg_add_u64(*acc, v, acc))
		*acc = UINT64_MAX;
}

/* Category maxima and per-phase / per-step allocated and freed bytes. */
static void sweep_records(const cg_timeline *tl, const cg_device *dev, const cg_overtime_input *in,
			  cg_overtime_device *o)
{
	uint64_t cat[CG_CAT_COUNT];
	memcpy(cat, dev->initial_by_cat, sizeof cat);
	uint64_t t_start = dev->mem_count ? tl->mem[dev->mem_first].t_ns : 0;
	for (int c = 0; c < CG_CAT_COUNT; c++)
		o->categories[c] = (cg_category_max){cat[c], t_start};
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		uint32_t i = dev->mem_first + k;
		const cg_mem *m = &tl->mem[i];
		uint64_t added = cg_mem_added(m), removed = cg_timeline_mem_removed(tl, i);
		cg_phase_stats *ph = &o->phases[cg_timeline_mem_phase(tl, m)];
		uint32_t step = in->step_of_span && m->span != CG_NONE && m->span < in->nspans
					? in->step_of_span[m->span] : CG_NONE;
		cg_step_stats *st = step < o->nsteps ? &o->steps[step] : NULL;
		if (m->action == CG_ALLOC) {
			ph->allocations++;
			add_u64(&ph->allocated_bytes, added);
			if (st) {
				st->allocations++;
				add_u64(&st->allocated_bytes, added);
			}
			cat[m->category] += added;
			uint32_t r = cg_timeline_mem_replaced(tl, i);
			if (r != CG_NONE)
				cat[tl->mem[r].category] -= removed;
		} else if (!(m->flags & CG_MEM_DOUBLE_FREE)) {
			ph->frees++;
			if (st)
				st->frees++;
			cat[m->category] -= removed;
		}
		add_u64(&ph->freed_bytes, removed);
		if (st)
			add_u64(&st->freed_bytes, removed);
		if (cat[m->category] > o->categories[m->category].bytes)
			o->categories[m->category] = (cg_category_max){cat[m->category], m->t_ns};
	}
}

static void device_windows(const cg_timeline *tl, const cg_device *dev, const cg_overtime_input *in,
			   const window *phase_w, size_t nphase_w, cg_overtime_device *o)
{
	size_t n = in->nsteps + nphase_w;
	window *w = cg_malloc((n ? n : 1) * sizeof *w);
	for (uint32_t k = 0; k < in->nsteps; k++)
		w[k] = (window){.t0 = in->step_start[k], .t1 = in->step_end[k], .owner = k};
	if (nphase_w)
		memcpy(w + in->nsteps, phase_w, nphase_w * sizeof *w);
	answer_windows(tl, dev, w, n);
	for (size_t q = 0; q < n; q++) {
		const window *x = &w[q];
		uint64_t when = argmax_time(tl, dev, x);
		if (x->owner < in->nsteps) {
			cg_step_stats *s = &o->steps[x->owner];
			/* live entering the window: the first value of the series in it */
			s->peak_bytes = x->max;
			s->peak_t_ns = when;
			s->peak_after = x->argmax == 0 ? CG_NONE : dev->mem_first + x->argmax - 1;
			s->live_at_start = x->start;
			s->live_at_end = x->end;
			continue;
		}
		cg_phase_stats *p = &o->phases[CG_NONE - 1 - x->owner];
		if (!p->ran || x->max > p->peak_bytes || (x->max == p->peak_bytes && when < p->peak_t_ns)) {
			p->peak_bytes = x->max;
			p->peak_t_ns = when;
		}
		p->ran = true;
	}
	cg_free(w);
}

/* Each step's growth: live bytes at its end against the previous step's
 * end (the first step: against its start). */
static void step_growth(const cg_overtime_input *in, cg_overtime_device *o)
{
	for (uint32_t k = 0; k < in->nsteps; k++) {
		uint64_t before = k ? o->steps[k - 1].live_at_end : o->steps[k].live_at_start;
		o->steps[k].growth = difference(o->steps[k].live_at_end, before);
	}
}

typedef struct devices_job {
	const cg_timeline *tl;
	const cg_overtime_input *in;
	const window *phase_w;
	size_t nphase_w;
	cg_overtime_result *r;
} devices_job;

static void device_job(void *ctx, size_t d)
{
	const devices_job *j = ctx;
	const cg_device *dev = &j->tl->devices[d];
	cg_overtime_device *o = &j->r->devices[d];
	sweep_records(j->tl, dev, j->in, o);
	if (o->timed) {
		device_windows(j->tl, dev, j->in, j->phase_w, j->nphase_w, o);
		step_growth(j->in, o);
	}
}

int cg_overtime_run(cg_overtime_result **out, const cg_timeline *tl, const cg_overtime_input *in, cg_error *err)
{
	(void)err;
	cg_overtime_result *r = cg_calloc(1, sizeof *r);
	r->ndevices = tl->ndevices;
	r->devices = cg_calloc(tl->ndevices ? tl->ndevices : 1, sizeof *r->devices);
	size_t nphase_w;
	window *phase_w = phase_windows(tl, &nphase_w);
	nphase_w = merge_windows(phase_w, nphase_w);
	/* Windows cost devices x windows: a trace that multiplies both gets
	 * them for its first devices only. */
	uint64_t cells = 0, per_device = (uint64_t)in->nsteps + nphase_w;
	uint64_t max_cells = in->max_cells ? in->max_cells : CG_OVERTIME_MAX_CELLS;
	for (uint32_t d = 0; d < tl->ndevices; d++) {
		cg_overtime_device *o = &r->devices[d];
		o->timed = tl->devices[d].mem_count > 0 && cells + per_device <= max_cells;
		if (o->timed)
			cells += per_device;
		o->nsteps = o->timed ? in->nsteps : 0;
		o->steps = cg_calloc(o->nsteps ? o->nsteps : 1, sizeof *o->steps);
	}
	devices_job j = {tl, in, phase_w, nphase_w, r};
	cg_parallel_for(tl->ndevices, in->threads, device_job, &j);
	cg_free(phase_w);
	*out = r;
	return 0;
}

void cg_overtime_free(cg_overtime_result *r)
{
	if (!r)
		return;
	for (uint32_t d = 0; d < r->ndevices; d++)
		cg_free(r->devices[d].steps);
	cg_free(r->devices);
	cg_free(r);
}
