/* Over-time pass: per device, each category's own maximum; per phase, the
 * peak reached while the phase ran and the bytes its records allocated and
 * freed; per step, the peak while the step ran and the bytes live at its end
 * (the growth between steps).
 *
 * "While X ran" is a time window: a step's window is its span's
 * [start_ns, end_ns]; a phase's windows are those of its outermost spans
 * (a span with that phase whose parent has another). The peak in a window
 * is the largest of the live bytes entering it and after each record inside
 * it. Windows are answered in one sweep per device (a monotonic stack over
 * the live series), so the pass is O(n log n) whatever the windows.
 *
 *     cg_overtime_input in = {nsteps, step_start, step_end, step_of_span, nspans};
 *     cg_overtime_result *ot;
 *     cg_overtime_run(&ot, tl, &in, &err);
 *     ot->devices[0].steps[2].peak_bytes ...
 *     cg_overtime_free(ot);
 */
#ifndef CG_OVERTIME_H
#define CG_OVERTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "timeline.h"

/* At most this many (device, window) pairs are evaluated: devices beyond
 * it get no step or phase-peak figures (timed false). Only traces built to
 * have thousands of devices and of steps reach it. */
#define CG_OVERTIME_MAX_CELLS (1u << 22)

typedef struct cg_overtime_input {
	uint32_t nsteps;
	const uint64_t *step_start; /* each step's window, in step order */
	const uint64_t *step_end;
	const uint32_t *step_of_span; /* nspans entries: a span's step or CG_NONE; NULL without steps */
	uint32_t nspans;
	uint64_t max_cells; /* (device, window) pairs to evaluate at most; 0: CG_OVERTIME_MAX_CELLS */
	unsigned threads;   /* devices on up to this many threads; 0: every usable CPU */
} cg_overtime_input;

typedef struct cg_category_max {
	uint64_t bytes;	/* the category's largest live bytes */
	uint64_t t_ns;	/* first time it held them (the device's first record: from the start) */
} cg_category_max;

typedef struct cg_phase_stats {
	bool ran;		  /* a span of this phase exists (never for none) */
	uint64_t peak_bytes;	  /* largest live bytes while it ran */
	uint64_t peak_t_ns;	  /* first time reached (a window's start: live when it began) */
	uint64_t allocated_bytes; /* by its records */
	uint64_t freed_bytes;	  /* released by its records */
	uint64_t allocations;
	uint64_t frees;
} cg_phase_stats;

typedef struct cg_step_stats {
	uint64_t live_at_start;	  /* live bytes when the step began */
	uint64_t peak_bytes;	  /* largest live bytes while it ran */
	uint64_t peak_t_ns;
	uint32_t peak_after;	  /* the peak's moment: after this record (index into tl->mem); CG_NONE: before any */
	uint64_t live_at_end;	  /* after its last record */
	int64_t growth;		  /* live_at_end minus the previous step's (step 0: minus live_at_start) */
	uint64_t allocated_bytes; /* by records of spans inside the step */
	uint64_t freed_bytes;
	uint64_t allocations;
	uint64_t frees;
} cg_step_stats;

typedef struct cg_overtime_device {
	bool timed;	 /* steps and phase peaks evaluated: it has records, within CG_OVERTIME_MAX_CELLS */
	cg_category_max categories[CG_CAT_COUNT];
	cg_phase_stats phases[CG_PHASE_COUNT];
	uint32_t nsteps;	/* the input's steps when timed, else 0 */
	cg_step_stats *steps;
} cg_overtime_device;

typedef struct cg_overtime_result {
	uint32_t ndevices;
	cg_overtime_device *devices;
} cg_overtime_result;

int cg_overtime_run(cg_overtime_result **out, const cg_timeline *tl, const cg_overtime_input *in, cg_error *err);
void cg_overtime_free(cg_overtime_result *r);

#endif
