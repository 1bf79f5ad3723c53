/* Span-path tree pass: bytes of a set of live allocations by the span path
 * that allocated them, as a tree where each node holds its own bytes and
 * its children's — the data of a flame (icicle) graph of memory.
 *
 * Spans with the same name under the same parent path are merged into one
 * node, as a flame graph merges them; children are in time order of first
 * appearance. Nodes come in pre-order: node 0 is the root ("all"), a node's
 * children follow it, and its subtree ends at subtree_end.
 *
 * The path structure is that of the whole span forest, built once; each
 * input (one per device) gets the part its allocations touch. Spans at
 * depth CG_PATHTREE_MAX_DEPTH or deeper (roots have depth 0) count as
 * their ancestor just above it, so a tree is never deeper than that.
 *
 *     cg_pathtree_input in[1] = {{true, allocs, nallocs, before_trace_bytes, before_trace_count, baseline}};
 *     cg_pathtree_result *r;
 *     cg_pathtree_run(&r, tl, in, 1, &err);
 *     const cg_pathtree *t = &r->trees[0];
 *     for (uint32_t i = 0; i < t->nnodes; i++) ...t->nodes[i].depth, .total_bytes...
 *     cg_pathtree_free(r);
 */
#ifndef CG_PATHTREE_H
#define CG_PATHTREE_H

#include <stdbool.h>
#include <stdint.h>

#include "timeline.h"

typedef enum cg_pathnode_kind {
	CG_PATHNODE_ROOT,	      /* everything; its own bytes: allocations made outside any span */
	CG_PATHNODE_SPAN,	      /* spans of one name under one parent path */
	CG_PATHNODE_BEFORE_TRACE,     /* allocated before the trace began (freed in it) */
	CG_PATHNODE_BEFORE_PROFILING, /* the baseline allocated before profiling started */
} cg_pathnode_kind;

/* Spans this deep or deeper count as their ancestor just above: a deep
 * chain of spans (a recursion, or a trace built to be one) cannot make
 * every device's tree as deep as itself. */
#define CG_PATHTREE_MAX_DEPTH 256

/* A node's phase when its merged spans do not share one. */
#define CG_PATHTREE_MIXED CG_PHASE_COUNT

typedef struct cg_pathnode {
	cg_str name;	      /* span name (CG_PATHNODE_SPAN); CG_STR_EMPTY otherwise */
	uint8_t kind;	      /* cg_pathnode_kind */
	uint8_t phase;	      /* cg_phase of its spans, or CG_PATHTREE_MIXED */
	uint32_t depth;	      /* 0 for the root */
	uint32_t parent;      /* node index; CG_NONE for the root */
	uint32_t nchildren;
	uint32_t subtree_end; /* one past the last node of its subtree */
	uint64_t own_bytes;   /* allocated directly in its spans */
	uint64_t total_bytes; /* own + all descendants' */
	uint64_t own_count;   /* allocations */
	uint64_t total_count;
	uint64_t first_ns;    /* earliest start of its spans (0 for the special nodes) */
	/* Phase and first_ns cover every span of the trace with this path. */
} cg_pathnode;

typedef struct cg_pathtree {
	uint32_t nnodes;    /* 0 when not built */
	cg_pathnode *nodes; /* pre-order; NULL when not built */
} cg_pathtree;

typedef struct cg_pathtree_result {
	uint32_t ntrees;
	cg_pathtree *trees; /* trees[i] for input i */
} cg_pathtree_result;

typedef struct cg_pathtree_input {
	bool build;		     /* false: leave this tree empty */
	const uint32_t *allocs;	     /* alloc records (indices into tl->mem) */
	size_t nallocs;
	uint64_t before_trace_bytes; /* live allocations made before the trace began */
	uint64_t before_trace_count;
	uint64_t baseline_bytes;     /* allocated before profiling */
} cg_pathtree_input;

/* Builds the trees of the n inputs. *out belongs to the caller. Never
 * fails on input. */
int cg_pathtree_run(cg_pathtree_result **out, const cg_timeline *tl, const cg_pathtree_input *in, uint32_t n,
		    cg_error *err);
void cg_pathtree_free(cg_pathtree_result *r);

#endif
