/* The analysis as text for a terminal, what `cgmem summary` prints: the
 * header and the verdict on how the trace ends (FAIL when a device ran
 * out of memory or the trace was cut off, warn when a device was nearly
 * full, else ok), then per device its key figures, what was live at the
 * peak (by category, phase and span path), figures over time and per
 * step, checkpoints, the allocator replay, leaks, lifetimes and the end
 * of the trace, then gradients. With brief, per device only the peak,
 * what filled it and the largest allocations then.
 *
 * Binary units; no line wider than the width (longer ones are cut with
 * "…", tables and span paths are fitted to it); a column of a list that
 * holds nothing for any of its rows (the format records no category,
 * phase, op, shape or dtype) is left out; names from the trace with their
 * controls escaped (termtext.h). The renderer never looks at the
 * terminal: the command line decides width and colour. */
#ifndef CG_SUMMARY_TEXT_H
#define CG_SUMMARY_TEXT_H

#include <stdbool.h>

#include "analysis.h"
#include "sink.h"

/* Widths are clamped to this range. */
#define CG_SUMMARY_TEXT_MIN_WIDTH 80
#define CG_SUMMARY_TEXT_MAX_WIDTH 512
/* --brief lists this many allocations at the peak (fewer with a smaller --top). */
#define CG_SUMMARY_TEXT_BRIEF_TOP 5

typedef struct cg_summary_text_options {
	unsigned width; /* columns (clamped to MIN..MAX_WIDTH) */
	bool color;	/* SGR escapes: FAIL bold red, the peak bold */
	bool brief;	/* the peak, what filled it, the verdict, the top five */
} cg_summary_text_options;

#define CG_SUMMARY_TEXT_OPTIONS_INIT {100, false, false}

/* Writes the summary of a into out; o NULL: CG_SUMMARY_TEXT_OPTIONS_INIT. */
void cg_summary_text_write(cg_sink *out, const cg_analysis *a, const cg_summary_text_options *o);

#endif
