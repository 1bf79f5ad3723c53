/* Alignment of two runs on one time axis, for comparing them: each run's
 * time is normalised to its duration (0 at the trace's start, 1 at its
 * last time), and with phase alignment the boundaries of matching steps
 * and phase windows land at the same place.
 *
 * A phase window is an outermost span of a phase (a span with a step of
 * its own whose parent has another phase), as the report's phase lane
 * draws them. When both runs repeat training steps (steps.h), step k of
 * one is matched with step k of the other, and inside each pair of steps
 * their phase windows are matched by phase as a longest common
 * subsequence, taken from the end (so a validation forward before the
 * training forward is the one left out). Without steps, the windows of
 * the whole runs are matched the same way. A matched step or window gives
 * two knots (its start and its end in both runs); a knot's place on the
 * common axis is the mean of its two normalised times, and between knots
 * time maps linearly.
 *
 *     cg_alignment *al;
 *     cg_align_run(&al, base_analysis, new_analysis, CG_ALIGN_PHASES);
 *     double x = cg_align_at(al, CG_ALIGN_NEW, t_ns);   // 0..1
 *     cg_align_free(al);
 */
#ifndef CG_ALIGN_H
#define CG_ALIGN_H

#include <stdint.h>

#include "analysis.h"

typedef enum cg_align_mode {
	CG_ALIGN_START,	 /* plain time: each run's time over its duration */
	CG_ALIGN_PHASES, /* phase boundaries aligned */
} cg_align_mode;

enum { CG_ALIGN_BASE = 0, CG_ALIGN_NEW = 1 };

typedef struct cg_align_window {
	uint64_t start_ns, end_ns;
	uint32_t step;	/* the step it lies in, CG_NONE outside the steps */
	uint8_t phase;	/* cg_phase */
	bool matched;	/* matched with a window of the other run */
} cg_align_window;

typedef struct cg_alignment {
	cg_align_mode mode;
	uint64_t duration_ns[2];     /* each run's last time (at least 1) */
	cg_align_window *windows[2]; /* each run's phase windows, by start time */
	uint32_t nwindows[2];
	uint32_t steps_matched;	     /* step pairs matched; 0 with CG_ALIGN_START */
	uint32_t matched;	     /* window pairs matched; 0 with CG_ALIGN_START */
	/* Knots: times in each run that map to the same place, increasing in
	 * both; the first is (0, 0) at 0, the last the durations at 1. */
	uint32_t nknots;
	uint64_t *knot_ns[2];
	double *knot_at;
} cg_alignment;

/* Builds the alignment of the runs of two analyses. Never fails; *out
 * belongs to the caller. Matching windows takes time and memory in the
 * product of their counts up to CG_ALIGN_MAX_CELLS per pair of steps
 * (or runs); beyond it windows are matched in order while their phases
 * agree. */
void cg_align_run(cg_alignment **out, const cg_analysis *base, const cg_analysis *new_a, cg_align_mode mode);

#define CG_ALIGN_MAX_CELLS (1u << 22)
void cg_align_free(cg_alignment *al);

/* Where time t_ns of run side (CG_ALIGN_BASE or CG_ALIGN_NEW) lies on the
 * common axis: 0 at the start, 1 at the run's end (times past it map to 1). */
double cg_align_at(const cg_alignment *al, int side, uint64_t t_ns);

const char *cg_align_mode_name(cg_align_mode m);

#endif
