/* Checkpoints pass: at each device_memory checkpoint, the device's capacity
 * (used + free), used, reserved, the timeline's live bytes at that time,
 * the allocator's fragmentation (reserved - live) / reserved and the memory
 * outside the allocator (used - reserved); then the largest fragmentation
 * and the checkpoint nearest the peak.
 *
 * PyTorch profiler checkpoints carry only reserved bytes (has_used false):
 * the outside-allocator figure is then unknown; capacity is the device's
 * (deviceProperties) when the trace states it, and headroom capacity -
 * reserved; fragmentation still works.
 *
 *     cg_checkpoints_result *cp;
 *     cg_checkpoints_run(&cp, tl, peak_t_ns, &err);   // peak_t_ns[d] per device
 *     const cg_checkpoints_device *d = &cp->devices[0];
 *     if (d->nearest_peak != CG_NONE) ...d->list[d->nearest_peak].free_bytes...
 *     cg_checkpoints_free(cp);
 */
#ifndef CG_CHECKPOINTS_H
#define CG_CHECKPOINTS_H

#include <stdbool.h>
#include <stdint.h>

#include "timeline.h"

typedef struct cg_checkpoint {
	uint32_t devmem;	  /* index into tl->devmem */
	uint64_t t_ns;
	uint64_t live_bytes;	  /* the timeline's live bytes after its records up to t_ns */
	bool has_used;		  /* used_bytes and free_bytes recorded */
	bool has_reserved;	  /* reserved_bytes recorded */
	bool has_capacity;	  /* has_used and used + free fits in 64 bits, or the device's capacity known */
	bool has_headroom;	  /* free_bytes is known */
	uint64_t used_bytes;
	uint64_t free_bytes;	  /* the headroom: capacity - used, or without used capacity - reserved */
	uint64_t capacity_bytes;  /* used + free, or the device's capacity (cg_device.capacity_bytes) */
	uint64_t reserved_bytes;
	bool has_fragmentation;	  /* has_reserved and reserved > 0 */
	double fragmentation;	  /* (reserved - live) / reserved; below 0 when live exceeds reserved */
	int64_t outside_allocator; /* used - reserved, when has_used and has_reserved */
} cg_checkpoint;

typedef struct cg_checkpoints_device {
	uint32_t count;
	cg_checkpoint *list;	    /* in time order */
	uint32_t max_fragmentation; /* index into list: the largest fragmentation, first reached; CG_NONE: none known */
	uint32_t nearest_peak;	    /* index into list: nearest the peak in time (earlier on ties); CG_NONE: no checkpoints */
} cg_checkpoints_device;

typedef struct cg_checkpoints_result {
	uint32_t ndevices;
	cg_checkpoints_device *devices;
} cg_checkpoints_result;

/* peak_t_ns[d]: the time of device d's peak. *out belongs to the caller. */
int cg_checkpoints_run(cg_checkpoints_result **out, const cg_timeline *tl, const uint64_t *peak_t_ns,
		       cg_error *err);
void cg_checkpoints_free(cg_checkpoints_result *r);

#endif
