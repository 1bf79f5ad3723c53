/* Allocator-state pass, for timelines read from a CUDA allocator snapshot
 * (tl->snapshot): per device, the segments and blocks at dump time summed
 * up — reserved, allocated, active, free; pools; the largest free block;
 * fragmentation by both definitions; rounding waste; what empty_cache()
 * could return — the trace replayed by both live-bytes definitions and for
 * reserved bytes, the consistency checks of docs/snapshot-format.md §10, and
 * with an OOM entry a verdict in plain words. Every figure is defined in
 * docs/analysis.md ("Allocator state").
 *
 *     cg_allocstate_result *as;
 *     cg_allocstate_run(&as, tl, &err);     // as->ndevices == 0 without a snapshot
 *     as->devices[0].reserved ...
 *     cg_allocstate_free(as);
 */
#ifndef CG_ALLOCSTATE_H
#define CG_ALLOCSTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "snapshot.h"
#include "timeline.h"

/* The verdict on an OOM entry. */
typedef enum cg_oom_cause {
	CG_OOM_NONE,	      /* no oom entry in the trace */
	CG_OOM_TOTAL_SIZE,    /* the request exceeded free device memory plus the allocator's free cache */
	CG_OOM_FRAGMENTATION, /* enough free in total, but no free block (nor the device) could hold it */
} cg_oom_cause;

#define CG_ALLOCSTATE_TOP 10

typedef struct cg_allocstate_device {
	uint16_t device; /* index into tl->devices */
	bool has_segments;
	uint64_t segments;
	uint64_t segments_by_pool[3]; /* cg_segment_pool */
	uint64_t segments_expandable;
	uint64_t blocks;
	uint64_t blocks_by_state[CG_BLOCK_STATE_COUNT];
	uint64_t bytes_by_state[CG_BLOCK_STATE_COUNT];

	uint64_t reserved;  /* sum of total_size */
	uint64_t allocated; /* allocated blocks' size */
	uint64_t active;    /* allocated + pending */
	uint64_t inactive;  /* free blocks' size (cached, not in use) */
	uint64_t allocated_requested; /* allocated blocks' requested_size */
	uint64_t active_requested;
	uint64_t rounding_waste; /* sum over active blocks of size - requested_size */
	uint64_t largest_free;	 /* the largest inactive block, 0 when none */
	uint64_t largest_free_address;
	uint32_t largest_free_block; /* index into snapshot->blocks, CG_NONE when none */
	double frag_reserved;	     /* (reserved - allocated) / reserved; 0 when nothing reserved */
	double frag_largest;	     /* 1 - largest_free / inactive; 0 when nothing free */
	uint64_t releasable;	     /* bytes of wholly free segments: what empty_cache() could return */
	uint64_t releasable_segments;
	/* The largest active (allocated or pending) blocks, largest first,
	 * lower address first on ties: indices into snapshot->blocks. */
	uint32_t top_blocks[CG_ALLOCSTATE_TOP];
	uint32_t ntop_blocks;

	/* docs/snapshot-format.md §10: counts of segments or blocks that fail each check */
	uint64_t total_ne_blocks;     /* total_size != sum of block sizes */
	uint64_t sums_disagree;	      /* recorded allocated/active/requested_size != block sums */
	uint64_t address_mismatch;    /* current block address != reconstructed */
	bool consistent;	      /* every check passed and both replays end at the segments */

	/* The trace, replayed (zeroed when the device has no trace). */
	bool has_trace;
	uint64_t entries;
	uint64_t entries_by_action[CG_SNAP_ACTION_COUNT];
	cg_snap_replay series[CG_SERIES_COUNT];
	cg_snap_reserved reserved_trace;
	uint64_t memviz_max; /* what memory_viz's Active Memory Timeline peaks at (cg_snapshot_memviz_max) */
	/* the timeline's own peak (active series) minus the recorded
	 * reserved at that moment is what the report shows beside the
	 * allocator replay's estimate */

	/* The last oom entry of the device. */
	cg_oom_cause oom_cause;
	uint64_t oom_index;	  /* its entry index */
	uint64_t oom_request;	  /* bytes asked for */
	uint64_t oom_device_free; /* bytes free on the device then */
	uint64_t oom_count;
	/* Would the request have fitted with expandable segments: all free
	 * memory (device free + cached free) is at least the request. */
	bool oom_fits_expandable;
} cg_allocstate_device;

typedef struct cg_allocstate_result {
	uint32_t ndevices; /* 0 when the timeline is not from a snapshot */
	cg_allocstate_device *devices;
} cg_allocstate_result;

int cg_allocstate_run(cg_allocstate_result **out, const cg_timeline *tl, cg_error *err);
void cg_allocstate_free(cg_allocstate_result *r);

/* The verdict as one or two sentences into buf, every figure from *d:
 * "The run asked for 2.00 GiB with 1.31 GiB free on the device; ...".
 * Empty when d has no oom entry. Returns buf. */
char *cg_allocstate_verdict(const cg_allocstate_device *d, char *buf, size_t size);

#endif
