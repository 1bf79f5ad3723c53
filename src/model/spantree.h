/* The span tree: resolves span ids into indices, applies span ends, and
 * gives each span its depth and inherited phase. Part of finalize. */
#ifndef CG_SPANTREE_H
#define CG_SPANTREE_H

#include "timeline.h"

/* Resolves parents, ends, depths and phases, and turns the span id strings
 * held by memory, op, tensor and edge records into span indices. Problems
 * (unknown, duplicate or looping spans) become anomalies, never failures.
 * Memory records are resolved on up to threads threads (0: every usable
 * CPU); the result does not depend on how many. */
void cg_spantree_resolve(cg_timeline *tl, unsigned threads);

#endif
