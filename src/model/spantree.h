/* The span tree: resolves span ids into indices, applies span ends, and
 * gives each span its depth and inherited phase. Part of finalize. */
#ifndef CG_SPANTREE_H
#define CG_SPANTREE_H

#include "timeline.h"

/* Resolves parents, ends, depths and phases, and turns the span id strings
 * held by memory, op, tensor and edge records into span indices. Problems
 * (unknown, duplicate or looping spans) become anomalies, never failures. */
void cg_spantree_resolve(cg_timeline *tl);

#endif
