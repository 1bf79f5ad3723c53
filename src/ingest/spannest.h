/* Nesting timed ranges by containment, per thread, the way a profiler's
 * complete events ("ph": "X") nest on a call stack, and finding the
 * innermost range around each instant.
 *
 * Real traces are not perfectly nested. A range may end a microsecond after
 * the range around it (rounding): it is clipped to end there. Or a long
 * range may begin inside a short one (PyTorch opens "ProfilerStep#N" from
 * inside a Python call that returns just after): it is not clipped but made
 * a sibling of the short one, placed under the nearest range that holds it.
 * Either way children lie inside their parents; both are counted.
 *
 *     cg_nest_span *s = ...; cg_nest_point *p = ...;
 *     cg_nest_counts c;
 *     cg_nest_build(s, ns, p, np, &c);
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
	bool reparented;    /* out: it outlived a range it began in, and became its sibling */
} cg_nest_span;

typedef struct cg_nest_counts {
	uint64_t clipped;
	uint64_t reparented;
} cg_nest_counts;

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
 * starting there is the inner; where siblings overlap, the later one. A
 * range that overlaps the end of the range it began in is clipped when the
 * part sticking out is no longer than the part inside, else re-parented.
 * counts may be NULL. */
void cg_nest_build(cg_nest_span *spans, size_t nspans, cg_nest_point *points, size_t npoints,
		   cg_nest_counts *counts);

#endif
