#include "gradients.h"

#include <math.h>
#include <stdlib.h>

#include "xalloc.h"

typedef struct ref {
	cg_str root, key;
	uint32_t index; /* into tl->gradients */
} ref;

static int cmp_ref(const void *a, const void *b)
{
	const ref *x = a, *y = b;
	if (x->root != y->root)
		return x->root < y->root ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_problem(const void *a, const void *b)
{
	const cg_gradient_problem *x = a, *y = b;
	return x->first_line < y->first_line ? -1 : x->first_line > y->first_line;
}

static bool bad_norm(const cg_gradient *g)
{
	return g->has_norm && !isfinite(g->norm);
}

int cg_gradients_run(cg_gradients_result **out, const cg_timeline *tl, cg_error *err)
{
	(void)err;
	cg_gradients_result *r = cg_calloc(1, sizeof *r);
	size_t n = tl->ngradients;
	r->records = n;
	ref *refs = cg_malloc((n ? n : 1) * sizeof *refs);
	for (size_t i = 0; i < n; i++) {
		const cg_gradient *g = &tl->gradients[i];
		if (g->state < CG_GRAD_STATE_COUNT)
			r->by_state[g->state]++;
		if (bad_norm(g))
			r->non_finite_norms++;
		refs[i] = (ref){g->root, g->key, (uint32_t)i};
	}
	/* Group the records by parameter. */
	qsort(refs, n, sizeof *refs, cmp_ref);
	size_t cap = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		cg_gradient_problem p = {refs[i].root, refs[i].key, 0, 0, 0, UINT32_MAX};
		for (; j < n && refs[j].root == refs[i].root && refs[j].key == refs[i].key; j++) {
			const cg_gradient *g = &tl->gradients[refs[j].index];
			bool missing = g->state == CG_GRAD_MISSING;
			bool non_finite = g->state == CG_GRAD_NON_FINITE || bad_norm(g);
			p.records++;
			p.missing += missing;
			p.non_finite += non_finite;
			if ((missing || non_finite) && g->line < p.first_line)
				p.first_line = g->line;
		}
		r->parameters++;
		if (p.missing || p.non_finite) {
			CG_GROW(r->problems, cap, r->nproblems + 1);
			r->problems[r->nproblems++] = p;
		}
		i = j;
	}
	if (r->nproblems > 1)
		qsort(r->problems, r->nproblems, sizeof *r->problems, cmp_problem);
	cg_free(refs);
	*out = r;
	return 0;
}

void cg_gradients_free(cg_gradients_result *r)
{
	if (!r)
		return;
	cg_free(r->problems);
	cg_free(r);
}
