/* Alignment of two runs on one time axis, for comparing them: each run's
 * time is normalised to its duration (0 at the trace's start, 1 at its
 * last time), and with phase alignment the boundaries of matching phase
 * windows land at the same place.
 *
 * A phase window is an outermost span of a phase (a span with a step of
 * its own whose parent has another phase), as the report's phase lane
 * draws them. Windows are matched in time order while their phases agree
 * (forward with forward, ...): the longest common prefix of the two
 * sequences. Each matched window gives two knots (its start and its end in
 * both runs); a knot's place on the common axis is the mean of its two
 * normalised times, and between knots time maps linearly.
 *
 *     cg_align *al;
 *     cg_align_run(&al, base_tl, new_tl, CG_ALIGN_PHASES);
 *     double x = cg_align_at(al, CG_ALIGN_NEW, t_ns);   // 0..1
 *     cg_align_free(al);
 */
#ifndef CG_ALIGN_H
#define CG_ALIGN_H

#include <stdint.h>

#include "timeline.h"

typedef enum cg_align_mode {
	CG_ALIGN_START,	 /* plain time: each run's time over its duration */
	CG_ALIGN_PHASES, /* phase boundaries aligned */
} cg_align_mode;

enum { CG_ALIGN_BASE = 0, CG_ALIGN_NEW = 1 };

typedef struct cg_align_window {
	uint64_t start_ns, end_ns;
	uint8_t phase; /* cg_phase */
} cg_align_window;

typedef struct cg_align {
	cg_align_mode mode;
	uint64_t duration_ns[2];     /* each run's last time (at least 1) */
	cg_align_window *windows[2]; /* each run's phase windows, by start time */
	uint32_t nwindows[2];
	uint32_t matched;	     /* windows matched (phases agree in order); 0 with CG_ALIGN_START */
	/* Knots: times in each run that map to the same place, increasing in
	 * both; the first is (0, 0) at 0, the last the durations at 1. */
	uint32_t nknots;
	uint64_t *knot_ns[2];
	double *knot_at;
} cg_align;

/* Builds the alignment of base and new. Never fails; *out belongs to the
 * caller. */
void cg_align_run(cg_align **out, const cg_timeline *base, const cg_timeline *new_tl, cg_align_mode mode);
void cg_align_free(cg_align *al);

/* Where time t_ns of run side (CG_ALIGN_BASE or CG_ALIGN_NEW) lies on the
 * common axis: 0 at the start, 1 at the run's end (times past it map to 1). */
double cg_align_at(const cg_align *al, int side, uint64_t t_ns);

const char *cg_align_mode_name(cg_align_mode m);

#endif
