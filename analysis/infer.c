#include "infer.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* What a step's spans say about its time: backward work runs from b0 to b1
 * (the earliest start and latest end of its backward-phase spans, on any
 * thread), and forward is everything before b0. act0 is when forward
 * allocated the first block that the step frees by b1, its first
 * temporary or activation, where the model's work begins: what forward
 * allocated before it and backward leaves is the step's input. */
typedef struct window {
	uint64_t start, end;
	uint64_t b0, b1;
	uint64_t act0;
	bool backward;
} window;

/* Where in the run a moment lies. */
typedef enum where {
	W_BEFORE_STEPS,	 /* before the first step */
	W_FORWARD,	 /* in a step, before its first backward work */
	W_BACKWARD,	 /* in a step, from its first backward work to its last */
	W_OPTIMIZER,	 /* in a step, inside an optimizer-phase span */
	W_STEP_OTHER,	 /* in a step, after backward or in one without backward */
	W_BETWEEN_STEPS	 /* after a step and before the next, or after the last */
} where;

/* The last step starting at or before t, or -1. */
static long step_at(const window *w, uint32_t n, uint64_t t)
{
	long lo = 0, hi = (long)n - 1, found = -1;
	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;
		if (w[mid].start <= t) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

static window *windows(const cg_timeline *tl, const cg_infer_step *steps, uint32_t n)
{
	window *w = cg_calloc(n ? n : 1, sizeof *w);
	for (uint32_t k = 0; k < n; k++) {
		w[k].start = steps[k].start_ns;
		w[k].end = steps[k].end_ns;
	}
	for (size_t s = 0; s < tl->nspans; s++) {
		const cg_span *sp = &tl->spans[s];
		if (sp->phase != CG_PHASE_BACKWARD)
			continue;
		long k = step_at(w, n, sp->start_ns);
		if (k < 0 || sp->start_ns > w[k].end)
			continue;
		window *x = &w[k];
		uint64_t end = sp->end_ns < x->end ? sp->end_ns : x->end;
		if (!x->backward || sp->start_ns < x->b0)
			x->b0 = sp->start_ns;
		if (!x->backward || end > x->b1)
			x->b1 = end;
		x->backward = true;
	}
	for (uint32_t k = 0; k < n; k++)
		w[k].act0 = UINT64_MAX;
	for (size_t i = 0; i < tl->nmem; i++) {
		const cg_mem *m = &tl->mem[i];
		if (m->action != CG_ALLOC || m->pair == CG_NONE)
			continue;
		long k = step_at(w, n, m->t_ns);
		if (k < 0 || !w[k].backward || m->t_ns >= w[k].b0)
			continue;
		uint64_t t_free = tl->mem[m->pair].t_ns;
		if (t_free <= w[k].b1 && m->t_ns < w[k].act0)
			w[k].act0 = m->t_ns;
	}
	return w;
}

static where where_is(const cg_timeline *tl, const window *w, uint32_t n, const cg_mem *m, long *step)
{
	*step = -1;
	long k = step_at(w, n, m->t_ns);
	if (k < 0)
		return W_BEFORE_STEPS;
	*step = k;
	if (m->t_ns > w[k].end)
		return W_BETWEEN_STEPS;
	uint8_t phase = m->span == CG_NONE ? CG_PHASE_NONE : tl->spans[m->span].phase;
	if (phase == CG_PHASE_OPTIMIZER)
		return W_OPTIMIZER;
	if (!w[k].backward)
		return W_STEP_OTHER;
	if (m->t_ns < w[k].b0)
		return W_FORWARD;
	if (m->t_ns <= w[k].b1)
		return W_BACKWARD;
	return W_STEP_OTHER;
}

/* The category of allocation a, freed at t_free (UINT64_MAX: live to the end). */
static cg_category infer_one(const cg_timeline *tl, const window *w, uint32_t n, const cg_mem *a,
			     uint32_t free_span, uint64_t t_free)
{
	long k;
	where at = where_is(tl, w, n, a, &k);
	bool freed = t_free != UINT64_MAX;
	/* freed by the op that allocated it: scratch space */
	if (freed && a->span != CG_NONE && free_span == a->span && tl->spans[a->span].kind == CG_SPAN_OP)
		return CG_CAT_TEMPORARY;
	switch (at) {
	case W_BEFORE_STEPS:
		/* built before the first step and still there when it starts: the model */
		return freed && t_free < w[0].start ? CG_CAT_TEMPORARY : CG_CAT_PARAMETER;
	case W_FORWARD:
		if (freed && t_free < w[k].b0)
			return CG_CAT_TEMPORARY;
		/* kept past backward and made before the first activation: the batch */
		if ((!freed || t_free > w[k].b1) && a->t_ns < w[k].act0)
			return CG_CAT_INPUT;
		return CG_CAT_ACTIVATION;
	case W_BACKWARD:
		/* what backward frees itself is its scratch; what it leaves is the gradients */
		return freed && t_free <= w[k].b1 ? CG_CAT_TEMPORARY : CG_CAT_GRADIENT;
	case W_OPTIMIZER:
		/* kept across steps by the optimizer (Adam's moments): its state */
		return freed && t_free <= w[k].end ? CG_CAT_TEMPORARY : CG_CAT_OPTIMIZER_STATE;
	case W_STEP_OTHER:
		return freed && t_free <= w[k].end ? CG_CAT_TEMPORARY : CG_CAT_UNKNOWN;
	case W_BETWEEN_STEPS: {
		uint64_t next = (uint32_t)k + 1 < n ? w[k + 1].start : UINT64_MAX;
		return freed && t_free < next ? CG_CAT_TEMPORARY : CG_CAT_UNKNOWN;
	}
	}
	return CG_CAT_UNKNOWN;
}

bool cg_infer_applies(const cg_timeline *tl)
{
	const cg_source *s = &tl->source;
	return !s->categories_known && s->pairing_known && s->format && strncmp(s->format, "Chrome trace", 12) == 0;
}

int cg_infer_run(cg_infer_result **out, const cg_timeline *tl, const cg_infer_step *steps, uint32_t nsteps,
		 cg_error *err)
{
	(void)err;
	cg_infer_result *r = cg_calloc(1, sizeof *r);
	r->nmem = tl->nmem;
	r->category = cg_calloc(tl->nmem ? tl->nmem : 1, 1);
	/* a run without steps is one step, from its start to its end */
	const cg_infer_step whole = {0, UINT64_MAX};
	if (nsteps == 0) {
		steps = &whole;
		nsteps = 1;
	}
	window *w = windows(tl, steps, nsteps);
	for (size_t i = 0; i < tl->nmem; i++)
		r->category[i] = tl->mem[i].category;
	for (size_t i = 0; i < tl->nmem; i++) {
		const cg_mem *m = &tl->mem[i];
		if (m->action != CG_ALLOC || m->category != CG_CAT_UNKNOWN)
			continue;
		uint64_t t_free = UINT64_MAX;
		uint32_t free_span = CG_NONE;
		if (m->pair != CG_NONE) {
			t_free = tl->mem[m->pair].t_ns;
			free_span = tl->mem[m->pair].span;
		}
		cg_category c = infer_one(tl, w, nsteps, m, free_span, t_free);
		r->category[i] = (uint8_t)c;
		if (m->pair != CG_NONE && !(m->flags & CG_MEM_REPLACED))
			r->category[m->pair] = (uint8_t)c;
		if (c != CG_CAT_UNKNOWN)
			r->inferred++;
	}
	free(w);
	*out = r;
	return 0;
}

void cg_infer_apply(cg_timeline *tl, const cg_infer_result *r)
{
	if (r->nmem != tl->nmem)
		return;
	for (size_t i = 0; i < tl->nmem; i++)
		tl->mem[i].category = r->category[i];
	tl->source.categories_inferred = true;
}

void cg_infer_free(cg_infer_result *r)
{
	if (!r)
		return;
	free(r->category);
	free(r);
}
