/* Infer pass: the memory category of each block of a trace that records
 * none (PyTorch profiler traces), from when and where it is allocated and
 * freed relative to the steps, their phases and the ops. The rule and the
 * measurements behind it are in docs/pytorch-traces.md, "Inferred
 * categories".
 *
 * It is the one pass whose result is written back into the timeline: the
 * driver runs it after finalize and before every other pass, so peaks,
 * breakdowns and charts all read the inferred categories.
 *
 *     cg_infer_step w[n];                  // the steps' time windows, in time order
 *     cg_infer_result *r;
 *     cg_infer_run(&r, tl, w, n, &err);
 *     cg_infer_apply(tl, r);               // tl->source.categories_inferred = true
 *     cg_infer_free(r);
 */
#ifndef CG_INFER_H
#define CG_INFER_H

#include <stdbool.h>
#include <stdint.h>

#include "timeline.h"

/* A step's time window (cg_steps_result's steps, as plain data). */
typedef struct cg_infer_step {
	uint64_t start_ns, end_ns;
} cg_infer_step;

typedef struct cg_infer_result {
	uint8_t *category; /* for each tl->mem record: cg_category (a free: its allocation's) */
	size_t nmem;
	uint64_t inferred; /* allocations given a category other than unknown */
} cg_infer_result;

/* Whether tl is a trace whose categories are inferred: a PyTorch profiler
 * Chrome trace (the one kind the rule is measured on; allocator snapshots
 * keep theirs unknown) whose frees pair with their allocations (a trace
 * without Addr, PyTorch ~1.9, has no lifetimes to infer from). */
bool cg_infer_applies(const cg_timeline *tl);

/* Infers a category for every memory record of tl. steps are the run's
 * steps in time order (nsteps may be 0). Records that already have a
 * category other than unknown (memory from before profiling) keep it.
 * A run without steps counts as one step from its start to its end.
 * *out belongs to the caller. Fails only on overflow of sizes (CG_ELIMIT). */
int cg_infer_run(cg_infer_result **out, const cg_timeline *tl, const cg_infer_step *steps, uint32_t nsteps,
		 cg_error *err);
/* Writes r's categories into tl (which r was computed from) and marks the
 * source's categories as inferred. */
void cg_infer_apply(cg_timeline *tl, const cg_infer_result *r);
void cg_infer_free(cg_infer_result *r);

#endif
