/* The lists of allocations in the terminal summary (live at the peak, at
 * the end, the last before the end), laid out for the width: a column
 * that holds nothing for every row of a list (no category, phase, op,
 * shape or dtype recorded) is left out, and on a narrow terminal the
 * times move to the second line of each entry. Internal to render/. */
#ifndef CG_SUMMARY_ALLOCS_H
#define CG_SUMMARY_ALLOCS_H

#include <stddef.h>
#include <stdint.h>

#include "summary_lines.h"
#include "timeline.h"

typedef struct cg_alloc_row {
	uint32_t alloc; /* index into tl->mem, or CG_NONE: allocated before the trace */
	uint32_t end;	/* its free (or the id's reuse), CG_NONE: never */
	uint64_t bytes;
} cg_alloc_row;

/* Two lines per row: size, category, phase, op, shape, dtype, when; then
 * the span path. */
void cg_summary_allocs_write(cg_lines *w, const cg_timeline *tl, const cg_alloc_row *rows, size_t n);

/* One line per row, for --brief: size, category, op, span path. */
void cg_summary_allocs_write_brief(cg_lines *w, const cg_timeline *tl, const cg_alloc_row *rows, size_t n);

#endif
