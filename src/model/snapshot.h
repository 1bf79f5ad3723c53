/* What only a CUDA caching-allocator snapshot knows, as the file says it:
 * the allocator's segments and blocks at dump time, every trace entry in
 * its ring-buffer order, the OOM entries and the recorded settings. The
 * memory records, spans and reserved-bytes checkpoints built from the same
 * file live in the timeline as for any trace; this is the rest.
 *
 * A timeline read from a snapshot has tl->snapshot set; for every other
 * format it is NULL. cg_snapshot_replay() is the reconstruction both the
 * reader (for the memory before the trace) and the analysis use. */
#ifndef CG_SNAPSHOT_H
#define CG_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "strtab.h"

/* A block's state (docs/snapshot-format.md §4). */
typedef enum cg_block_state {
	CG_BLOCK_ALLOCATED, /* active_allocated */
	CG_BLOCK_PENDING,   /* active_pending_free / active_awaiting_free: freed, stream uses pending */
	CG_BLOCK_INACTIVE,  /* free, cached by the allocator */
	CG_BLOCK_UNKNOWN,   /* a state this reader does not know (counted) */
	CG_BLOCK_STATE_COUNT
} cg_block_state;

typedef enum cg_segment_pool { CG_POOL_LARGE, CG_POOL_SMALL, CG_POOL_OTHER } cg_segment_pool;

/* Trace actions (§6); others are skipped and counted. */
typedef enum cg_snap_action {
	CG_SNAP_ALLOC,
	CG_SNAP_FREE_REQUESTED,
	CG_SNAP_FREE_COMPLETED,
	CG_SNAP_SEGMENT_ALLOC,
	CG_SNAP_SEGMENT_FREE,
	CG_SNAP_SEGMENT_MAP,
	CG_SNAP_SEGMENT_UNMAP,
	CG_SNAP_SNAPSHOT,
	CG_SNAP_OOM,
	CG_SNAP_ACTION_COUNT
} cg_snap_action;

typedef struct cg_snap_block {
	uint64_t address;   /* recorded, or the segment's address plus the blocks before it (legacy) */
	uint64_t size;	    /* bytes of the block (rounded) */
	uint64_t requested; /* requested_size (legacy: history[0].real_size; else size); stale when inactive */
	cg_str top_frame;   /* "file:line function" of frames[0], CG_STR_EMPTY without frames */
	uint16_t nframes;   /* frames recorded (capped at 65535) */
	uint8_t state;	    /* cg_block_state */
} cg_snap_block;

typedef struct cg_snap_segment {
	uint64_t address;
	uint64_t total_size;
	uint64_t allocated_size; /* as recorded */
	uint64_t active_size;
	uint64_t requested_size;
	uint64_t stream;
	uint32_t block_first; /* into snapshot->blocks */
	uint32_t block_count;
	uint16_t device;      /* index into tl->devices */
	uint8_t pool;	      /* cg_segment_pool */
	bool expandable;
	bool has_sums;	      /* allocated_size, active_size, requested_size were all present */
} cg_snap_segment;

/* One trace entry, in the file's order. index is its position in its
 * device's trace. For oom, addr is the device's free bytes (device_free). */
typedef struct cg_snap_entry {
	uint64_t t_ns; /* the timeline's time of the entry */
	uint64_t addr;
	uint64_t size; /* requested bytes (alloc, free_*), range bytes (segment_*), request (oom) */
	uint32_t index;
	uint16_t device;
	uint8_t action; /* cg_snap_action */
} cg_snap_entry;

/* Live bytes over a device's trace by one definition (docs/snapshot-format.md
 * §9), reconstructed backwards from the blocks live at dump time. */
typedef enum cg_snap_series {
	CG_SERIES_ACTIVE,    /* alloc .. free_completed: what memory_viz draws; cgmem's "peak" */
	CG_SERIES_ALLOCATED, /* alloc .. free_requested: torch.cuda.memory_allocated() (requested bytes) */
	CG_SERIES_COUNT
} cg_snap_series;

typedef struct cg_snap_replay {
	uint64_t before_first; /* live before entry 0 */
	uint64_t peak;	       /* the largest live bytes, before_first included */
	int64_t peak_index;    /* entry index after which it is first reached; -1: before the first */
	uint64_t peak_t_ns;
	uint64_t at_end;       /* forward replay's end */
	uint64_t end_segments; /* the same from the final blocks */
	uint64_t issues;       /* entries that contradict the state (alloc of a dead address, ...) */
	bool end_matches;
} cg_snap_replay;

/* Reserved bytes over the trace from segment_* entries, walked backwards
 * from the final segments. */
typedef struct cg_snap_reserved {
	uint64_t before_first;
	uint64_t max;
	int64_t max_index; /* -1: before the first entry */
	uint64_t max_t_ns;
	uint64_t at_end;
	uint64_t end_segments;
	uint64_t issues;
	bool end_matches;
	uint64_t events; /* segment_* entries */
} cg_snap_reserved;

/* Per device (indexed as tl->devices). */
typedef struct cg_snap_device {
	uint32_t seg_first, seg_count;	   /* into segments (segments are grouped by device) */
	uint32_t entry_first, entry_count; /* into entries */
	uint64_t trace_entries;		   /* entries in the file's trace, unknown actions included */
	uint64_t unknown_actions;
	uint64_t with_frames;		   /* entries with at least one frame */
	bool has_trace;			   /* device_traces has a list for this device */
	/* The trace replayed by each definition and for reserved bytes
	 * (cg_snapshot_replay, cg_snapshot_reserved below): done once, by
	 * the reader, which needs them for the memory before the trace and
	 * the reserved checkpoints; the analysis reads them. */
	cg_snap_replay series[CG_SERIES_COUNT];
	cg_snap_reserved reserved;
	uint64_t memviz_max;			 /* cg_snapshot_memviz_max, worked out by the reader too */
	uint64_t entries_by_action[CG_SNAP_ACTION_COUNT]; /* entries of each action */
} cg_snap_device;

typedef struct cg_snapshot {
	cg_snap_segment *segments;
	size_t nsegments;
	cg_snap_block *blocks;
	size_t nblocks;
	cg_snap_entry *entries; /* grouped by device, file order within one */
	size_t nentries, entries_cap;
	cg_snap_device *devices;
	uint32_t ndevices;

	int protocol;	      /* pickle protocol */
	bool list_form;	      /* the top level was the bare segment list */
	bool legacy_blocks;   /* blocks had the 2.0 layout (history, no address) */
	bool has_time;	      /* entries carry time_us: t_ns is epoch-based; else t_ns = index */
	uint64_t memo_puts, memo_gets;
	uint64_t unknown_keys;	 /* keys no part of cgmem reads, all levels */
	uint64_t unknown_states; /* blocks in CG_BLOCK_UNKNOWN */
	uint64_t strings_not_utf8; /* frame strings that were not valid UTF-8 (lone surrogates), distinct */
	uint64_t annotations;	 /* external_annotations entries */

	/* allocator_settings, verbatim as JSON text, in the file's order */
	struct cg_snap_setting {
		cg_str key;
		cg_str json;
	} *settings;
	size_t nsettings;
	bool expandable_segments; /* settings say expandable_segments: true */
	int64_t max_split_size;	  /* -1: no limit or not recorded */
} cg_snapshot;

cg_snapshot *cg_snapshot_new(void);
void cg_snapshot_free(cg_snapshot *s);


/* Replays device d's trace for one series. Returns 0, or CG_ELIMIT when a
 * sum does not fit in 64 bits. */
int cg_snapshot_replay(const cg_snapshot *s, uint32_t d, cg_snap_series series, cg_snap_replay *out,
		       cg_error *err);
int cg_snapshot_reserved(const cg_snapshot *s, uint32_t d, cg_snap_reserved *out, cg_error *err);

/* The blocks of device d in use at the dump (allocated or pending) whose
 * address no alloc entry of the trace names: allocated before the trace
 * and live throughout it. Indices into s->blocks, in order, into *out
 * (caller frees); returns how many. */
size_t cg_snapshot_blocks_before_trace(const cg_snapshot *s, uint32_t d, uint32_t **out);

/* The y-axis maximum of memory_viz's "Active Memory Timeline" for device
 * d: torch/utils/viz/MemoryViz.js process_alloc_data replayed, with its
 * quirks (docs/snapshot-format.md §9): a free_requested directly followed by
 * the free_completed of its address is one free, pre-trace memory is
 * seeded from active_allocated blocks only, and the maximum is taken
 * after each action, from 0. For users comparing the two tools. */
uint64_t cg_snapshot_memviz_max(const cg_snapshot *s, uint32_t d);

const char *cg_block_state_name(cg_block_state st);
const char *cg_snap_action_name(cg_snap_action a);
const char *cg_segment_pool_name(cg_segment_pool p);

#endif
