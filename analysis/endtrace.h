/* End-of-trace pass (the post-mortem of a run that died): per device, the
 * moment the trace ends — the last out-of-memory event when there is one,
 * else the last memory record — where the run was then (span, phase, step),
 * the last checkpoint before it, the last allocations, and a verdict in
 * plain words when the trace was cut off, an out-of-memory error was
 * recorded, or the last checkpoint shows the device nearly full.
 *
 *     uint32_t after[ndevices];
 *     for (d...) cg_endtrace_moment(tl, d, &after[d], NULL);   // for cg_liveset_run
 *     cg_endtrace_input in = {...};
 *     cg_endtrace_result *e;
 *     cg_endtrace_run(&e, tl, &in, &err);
 *     if (e->devices[0].verdict) puts(e->devices[0].verdict);
 *     cg_endtrace_free(e);
 */
#ifndef CG_ENDTRACE_H
#define CG_ENDTRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "timeline.h"

/* "Nearly full": the last checkpoint's used bytes reach this share of capacity. */
#define CG_NEARLY_FULL 0.95

typedef enum cg_end_kind {
	CG_END_NO_RECORDS,    /* the device has neither memory records nor OOM events */
	CG_END_LAST_RECORD,   /* the end is the last memory record */
	CG_END_OUT_OF_MEMORY, /* the end is the last out-of-memory event */
} cg_end_kind;

typedef struct cg_endtrace_input {
	const uint64_t *live_bytes;	/* per device: live bytes at the moment */
	const uint64_t *by_category;	/* per device: CG_CAT_COUNT live bytes at the moment */
	const uint64_t *estimated_reserved; /* per device: the allocator replay's reserved bytes then; NULL: none */
	uint32_t nsteps;
	const uint32_t *step_span;	/* per step: its span */
	const uint32_t *step_of_span;	/* per span: its step or CG_NONE; NULL without steps */
	uint32_t nspans;
	unsigned last_n;		/* how many of the last allocations to list */
} cg_endtrace_input;

typedef struct cg_endtrace_device {
	uint8_t kind;		  /* cg_end_kind */
	uint32_t after;		  /* the moment: after this record (index into tl->mem); CG_NONE: before any */
	uint64_t t_ns;		  /* its time: the OOM event's, or the last record's */
	uint64_t last_record_ns;  /* the device's last memory record (0 without any) */
	uint32_t oom_count;	  /* out-of-memory events on the device */
	uint32_t oom;		  /* the one used (index into tl->ooms), or CG_NONE */
	uint32_t checkpoint;	  /* the last checkpoint (before the OOM for an OOM end): index into tl->devmem, or CG_NONE */
	bool nearly_full;	  /* that checkpoint's used >= CG_NEARLY_FULL of its capacity */
	uint64_t live_bytes;
	uint32_t span;		  /* span of the moment's record, or CG_NONE */
	uint8_t phase;		  /* its phase */
	uint32_t phase_span;	  /* the outermost span of that phase around it, or CG_NONE */
	uint64_t into_phase_ns;	  /* t_ns minus phase_span's start */
	uint32_t step;		  /* its step, or CG_NONE */
	uint32_t *last_allocs;	  /* the last allocations at or before the moment, latest first */
	uint32_t nlast;
	char *verdict;		  /* one paragraph, or NULL when nothing looks wrong */
} cg_endtrace_device;

typedef struct cg_endtrace_result {
	uint32_t ndevices;
	cg_endtrace_device *devices;
} cg_endtrace_result;

/* The end moment of device d: *after as for cg_liveset_run; *oom (may be
 * NULL) the OOM event used or CG_NONE. */
void cg_endtrace_moment(const cg_timeline *tl, uint32_t d, uint32_t *after, uint32_t *oom);

int cg_endtrace_run(cg_endtrace_result **out, const cg_timeline *tl, const cg_endtrace_input *in, cg_error *err);
void cg_endtrace_free(cg_endtrace_result *r);

#endif
