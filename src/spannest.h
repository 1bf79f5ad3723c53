/* Nesting timed ranges by containment, per thread, the way a profiler's
 * complete events ("ph": "X") nest on a call stack, and finding the
 * innermost range around each instant.
 *
 * Real traces are not perfectly nested: a child may end a microsecond after
 * its parent (rounding), or two ranges may overlap. Such a range is clipped
 * to end where its parent ends, so the result is always a tree whose
 * children lie inside their parents; the number clipped is returned.
 *
 *     cg_nest_span *s = ...; cg_nest_point *p = ...;
 *     uint64_t clipped = cg_nest_build(s, ns, p, np);
 *     // s is now sorted; s[i].parent and p[j].span index into it
 */
#ifndef CG_SPANNEST_H
#define CG_SPANNEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cg_nest_span {
	int64_t start, end; /* end >= start; end is lowered when clipped */
	uint32_t thread;
	uint32_t order;	    /* breaks ties: the position in the file */
	uint32_t payload;   /* the caller's own index, carried along */
	uint32_t parent;    /* out: index into the sorted array, or UINT32_MAX */
	bool clipped;	    /* out: it ended after its parent and was cut there */
} cg_nest_span;

typedef struct cg_nest_point {
	int64_t t;
	uint32_t thread;
	uint32_t order;
	uint32_t payload;
	uint32_t span; /* out: innermost span containing t on its thread, or UINT32_MAX */
} cg_nest_point;

/* Sorts spans by (thread, start, longest first, order) and points by
 * (thread, t, order); sets every parent and every point's span. A point at
 * a span's start or end is inside it; of two spans that touch, the one
 * starting there is the inner. Returns the number of spans clipped. */
uint64_t cg_nest_build(cg_nest_span *spans, size_t nspans, cg_nest_point *points, size_t npoints);

#endif
