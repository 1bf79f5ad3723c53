/* Test helpers of the model layer: timelines built by hand. */
#ifndef CG_TLBUILD_H
#define CG_TLBUILD_H

#include "testutil.h"

#include "enums.h"
#include "timeline.h"

/* Building a timeline by hand, for pass tests whose answers are worked
 * out on paper. Each helper asserts success; lines are numbered in call
 * order from 2. Call tu_tl_finalize before running passes; before it the
 * test may set tl->source.pairing_known, categories_known, truncated and
 * devices[d].baseline_bytes (make the device with tu_device first). */
cg_timeline *tu_tl_new(void);
uint16_t tu_device(cg_timeline *tl, const char *name);
/* A span from start to end (end UINT64_MAX: never ended); parent NULL for a root. */
void tu_span(cg_timeline *tl, const char *id, const char *parent, const char *name, uint64_t start, uint64_t end,
	     cg_phase step);
/* The end of span id (started with end UINT64_MAX), duration after its start. */
void tu_span_end(cg_timeline *tl, const char *id, uint64_t duration);
/* A run metadata entry, as a meta record's member ("run_id": "dt"). */
void tu_meta(cg_timeline *tl, const char *key, const char *value);
/* An allocation or free; span and op may be NULL. */
void tu_mem(cg_timeline *tl, uint64_t t, const char *tensor, const char *span, const char *device, uint64_t bytes,
	    cg_action action, cg_category category, const char *op);
/* A device_memory checkpoint; used UINT64_MAX: not recorded (then free is
 * ignored); reserved UINT64_MAX: not recorded. */
/* The same with a shape ([4, 16]: dims {4, 16}, ndims 2). */
void tu_mem_shaped(cg_timeline *tl, uint64_t t, const char *tensor, const char *span, const char *device,
		   uint64_t bytes, cg_action action, cg_category category, const char *op, const uint64_t *dims,
		   size_t ndims);
void tu_devmem(cg_timeline *tl, uint64_t t, const char *device, uint64_t used, uint64_t free_bytes,
	       uint64_t reserved);
void tu_oom(cg_timeline *tl, uint64_t t, const char *device, uint64_t bytes);
void tu_gradient(cg_timeline *tl, const char *root, const char *key, cg_grad_state state, bool has_norm,
		 double norm);
void tu_tl_finalize(cg_timeline *tl);
/* The index into tl->mem of the record at a line (after finalize). */
uint32_t tu_mem_at_line(const cg_timeline *tl, uint32_t line);

#endif
