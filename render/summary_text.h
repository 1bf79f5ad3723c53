/* The analysis as text for a terminal, what `cgmem summary` prints: the
 * header, then per device its key figures, what was live at the peak (by
 * category, phase and span path), figures over time and per step,
 * checkpoints, the allocator replay, leaks, lifetimes and the end of the
 * trace, then gradients. Binary units; no line wider than 100 columns
 * (longer ones are cut with "…"); names from the trace with their controls
 * escaped (termtext.h). */
#ifndef CG_SUMMARY_TEXT_H
#define CG_SUMMARY_TEXT_H

#include "analysis.h"
#include "sink.h"

/* Writes the summary of a into out. */
void cg_summary_text_write(cg_sink *out, const cg_analysis *a);

#endif
