/* Steps pass: finds the repeating training-step spans of a run
 * ("train_step#0", "train_step#1", ...) and gives every span the step it
 * belongs to. Devices do not matter here: steps are spans.
 *
 * The rule (docs/analysis.md, "Steps"): torch.profiler's "ProfilerStep#N"
 * ranges, when the run has any, are the steps (the outermost ones, in time
 * order, however many). Otherwise a candidate is a span without a
 * phase of its own that contains a forward-phase span. Candidates are
 * grouped by depth and name prefix (the name without its trailing digits);
 * a group with at least two members repeats. The steps are the repeating
 * group whose members cover the most phases (forward, backward, optimizer),
 * then the one with the most members, then the shallowest, then the one
 * that starts first.
 *
 *     cg_steps_result *st;
 *     cg_steps_run(&st, tl, &err);
 *     uint32_t k = st->step_of_span[tl->mem[i].span];   // CG_NONE: outside every step
 *     cg_steps_free(st);
 */
#ifndef CG_STEPS_H
#define CG_STEPS_H

#include <stdint.h>

#include "timeline.h"

typedef struct cg_step {
	uint32_t span;	   /* index into tl->spans */
	uint64_t start_ns; /* the span's start and end */
	uint64_t end_ns;
} cg_step;

typedef struct cg_steps_result {
	uint32_t nsteps;      /* 0 when the run does not repeat steps */
	cg_step *steps;	      /* in time order; step k is steps[k] */
	char *prefix;	      /* the steps' shared name prefix ("train_step#"); NULL without steps */
	char *label;	      /* prefix + "*" ("train_step#*"), or the name when it has no number */
	uint32_t *step_of_span; /* for each span: the step it lies in (itself or an ancestor), or CG_NONE */
	uint32_t nspans;
} cg_steps_result;

/* Finds the steps. Never fails on input; *out belongs to the caller. */
int cg_steps_run(cg_steps_result **out, const cg_timeline *tl, cg_error *err);
void cg_steps_free(cg_steps_result *r);

/* The step of memory record m (via its span), or CG_NONE. */
static inline uint32_t cg_steps_of_mem(const cg_steps_result *r, const cg_mem *m)
{
	return m->span == CG_NONE || m->span >= r->nspans ? CG_NONE : r->step_of_span[m->span];
}

/* Length of the name prefix used to group step candidates: the name
 * without its trailing ASCII digits (the whole name when it has none). */
size_t cg_steps_prefix_len(const char *name, size_t len);

#endif
