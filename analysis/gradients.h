/* Gradients pass: how many gradient records had each state, and the
 * parameters whose gradient was missing or not finite (a non_finite state,
 * or a norm that is NaN or infinite).
 *
 *     cg_gradients_result *g;
 *     cg_gradients_run(&g, tl, &err);
 *     g->by_state[CG_GRAD_MISSING] ...
 *     for (size_t i = 0; i < g->nproblems; i++) ...g->problems[i].key...
 *     cg_gradients_free(g);
 */
#ifndef CG_GRADIENTS_H
#define CG_GRADIENTS_H

#include <stddef.h>
#include <stdint.h>

#include "timeline.h"

/* A parameter (root + key) with at least one bad gradient record. */
typedef struct cg_gradient_problem {
	cg_str root;
	cg_str key;
	uint64_t missing;    /* records with state missing */
	uint64_t non_finite; /* records with state non_finite, or a NaN/infinite norm */
	uint64_t records;    /* all its records */
	uint32_t first_line; /* its first bad record */
} cg_gradient_problem;

typedef struct cg_gradients_result {
	uint64_t records;
	uint64_t by_state[CG_GRAD_STATE_COUNT];
	uint64_t non_finite_norms; /* records whose norm is NaN or infinite, whatever their state */
	uint64_t parameters;	   /* distinct root + key */
	cg_gradient_problem *problems; /* in order of their first bad record */
	size_t nproblems;
} cg_gradients_result;

int cg_gradients_run(cg_gradients_result **out, const cg_timeline *tl, cg_error *err);
void cg_gradients_free(cg_gradients_result *r);

#endif
