/* Allocator-replay pass: replays each device's allocation timeline through
 * a model of PyTorch's CUDA caching allocator, to estimate the bytes it
 * would hold reserved, their peak, and how fragmented they would be; then
 * again with expandable segments ("would expandable_segments:True have
 * saved this run?"). These are estimates: the model has one stream, no
 * memory limit, no empty_cache, and it sees the trace's sizes only.
 *
 * The model (docs/analysis.md, "Allocator replay"): sizes are rounded up
 * to multiples of 512 bytes (at least 512); rounded sizes up to 1 MiB come
 * from the small pool, larger ones from the large pool; a request takes the
 * best-fitting cached free block of its pool (smallest size, then lowest
 * address); without one a segment is mapped: 2 MiB for the small pool,
 * 20 MiB for requests under 10 MiB, else the size rounded up to 2 MiB. A
 * block is split when the rest is at least 512 bytes (small pool) or more
 * than 1 MiB (large pool); freed blocks merge with free neighbours in their
 * segment; segments are never returned. With expandable segments, each pool
 * is one segment that grows at its end by pages of 2 MiB (small) or 20 MiB
 * (large) when no free block fits.
 *
 *     cg_replay_input in = {peak_after, end_after};   // per device, as for cg_liveset_run
 *     cg_replay_result *rp;
 *     cg_replay_run(&rp, tl, &in, &err);
 *     rp->devices[0].standard.peak_reserved ...
 *     cg_replay_free(rp);
 */
#ifndef CG_REPLAY_H
#define CG_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "timeline.h"

/* The constants of c10/cuda/CUDACachingAllocator.cpp, with its names. */
#define CG_CUDA_MIN_BLOCK_SIZE 512ull	      /* kMinBlockSize: sizes round up to multiples of this */
#define CG_CUDA_SMALL_SIZE 1048576ull	      /* kSmallSize: largest request of the small pool (1 MiB) */
#define CG_CUDA_SMALL_BUFFER 2097152ull	      /* kSmallBuffer: small-pool segment (2 MiB) */
#define CG_CUDA_LARGE_BUFFER 20971520ull      /* kLargeBuffer: segment for requests < kMinLargeAlloc (20 MiB) */
#define CG_CUDA_MIN_LARGE_ALLOC 10485760ull   /* kMinLargeAlloc: from here a segment fits the request (10 MiB) */
#define CG_CUDA_ROUND_LARGE 2097152ull	      /* kRoundLarge: such segments round up to this (2 MiB) */
/* Expandable segments map pages of kSmallBuffer (small pool) or kLargeBuffer (large pool). */

/* The model's state at one moment. */
typedef struct cg_replay_state {
	uint64_t reserved;     /* bytes in segments (mapped pages, with expandable segments) */
	uint64_t allocated;    /* bytes in allocated blocks (rounded, unsplit remainders included) */
	uint64_t live;	       /* the timeline's live bytes (requested sizes) */
	uint64_t largest_free; /* the largest free block */
	uint64_t total_free;   /* reserved - allocated: all free blocks */
	double frag_reserved;  /* (reserved - live) / reserved; 0 when nothing is reserved */
	double frag_largest;   /* TensorFlow's 1 - largest_free / total_free; 0 when nothing is free */
} cg_replay_state;

/* A change of reserved bytes: from t_ns on, reserved is this. */
typedef struct cg_replay_point {
	uint64_t t_ns;
	uint64_t reserved;
} cg_replay_point;

typedef struct cg_replay_variant {
	uint64_t peak_reserved;	/* the largest reserved bytes (the last, as segments are kept) */
	uint64_t peak_t_ns;	/* when first reached */
	uint64_t segments;	/* segments mapped; with expandable segments, pages */
	cg_replay_state at_peak; /* after the record of the live peak */
	cg_replay_state at_end;	 /* at the end moment */
	uint64_t initial_reserved; /* before the first record (baseline and before-trace allocations) */
	cg_replay_point *series; /* reserved over time: its change points, in time order */
	uint32_t nseries;
	uint64_t *at_checkpoint; /* reserved at each of the device's checkpoints (cg_checkpoints order) */
	uint32_t ncheckpoints;
} cg_replay_variant;

typedef struct cg_replay_device {
	bool available;		/* false without pairing, or when sizes overflow the model */
	const char *unavailable_reason; /* static text when not available */
	cg_replay_variant standard;
	cg_replay_variant expandable;
	int64_t saved_bytes;	/* standard.peak_reserved - expandable.peak_reserved (may be negative) */
} cg_replay_device;

typedef struct cg_replay_result {
	uint32_t ndevices;
	cg_replay_device *devices;
} cg_replay_result;

typedef struct cg_replay_input {
	const uint32_t *peak_after; /* per device: the live peak's record (CG_NONE: before any) */
	const uint32_t *end_after;  /* per device: the end moment's record */
	unsigned threads;	    /* devices and variants replay in parallel; 0: on every core */
} cg_replay_input;

int cg_replay_run(cg_replay_result **out, const cg_timeline *tl, const cg_replay_input *in, cg_error *err);
void cg_replay_free(cg_replay_result *r);

/* The model's size rules, exposed for tests and docs; each returns false
 * when the result does not fit in 64 bits. */
bool cg_replay_round_size(uint64_t bytes, uint64_t *out);
bool cg_replay_segment_size(uint64_t rounded, uint64_t *out);

#endif
