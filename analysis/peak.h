/* Peak pass: per device, the maximum of live bytes, when it is first
 * reached, and the record that reached it. */
#ifndef CG_PEAK_H
#define CG_PEAK_H

#include <stdint.h>

#include "timeline.h"

typedef struct cg_peak_device {
	uint64_t peak_bytes;
	uint64_t peak_t_ns;	  /* time of the record that first reached it */
	uint32_t peak_index;	  /* that record, index into tl->mem; CG_NONE: before any record */
	uint32_t reached_times;	  /* records after which live bytes rose to the peak */
	uint32_t live_at_peak;	  /* allocations live at that moment */
	uint64_t initial_bytes;	  /* live before the first record (before-trace and baseline) */
	uint64_t live_at_end;
	uint32_t live_count_at_end;
	uint64_t allocations;
	uint64_t frees;
	uint64_t bytes_allocated; /* sum over allocations; saturates at 2^64 - 1 */
	uint64_t first_t_ns, last_t_ns;
} cg_peak_device;

typedef struct cg_peak_result {
	uint32_t ndevices;
	cg_peak_device *devices; /* indexed like tl->devices */
	/* Device indices, the largest peak first, equal peaks in device order:
	 * which devices a report or its charts show when there are too many. */
	uint32_t *by_peak;
} cg_peak_result;

/* Computes the peak of every device in one pass over the memory records. */
int cg_peak_run(cg_peak_result **out, const cg_timeline *tl, cg_error *err);
void cg_peak_free(cg_peak_result *r);

#endif
