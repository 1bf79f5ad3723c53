/* Lifetimes pass: how long allocations lived (free time minus allocation
 * time), as a histogram with logarithmic buckets per category, and the
 * temporaries: allocations freed before the span that made them ended.
 *
 * Buckets have four per decade of nanoseconds: bucket 0 holds lifetimes of
 * 0 ns, bucket b (1 <= b < CG_LIFETIME_BUCKETS - 1) holds
 * [10^((b-1)/4), 10^(b/4)) ns rounded up to whole nanoseconds, and the last
 * one everything from 10^19.25 ns on. cg_lifetime_bucket_lower/upper give
 * the exact integer bounds.
 *
 *     cg_lifetimes_result *lt;
 *     cg_lifetimes_run(&lt, tl, 0, &err);
 *     for (size_t i = 0; i < lt->devices[0].ncells; i++) ...cells[i].bucket, .count...
 *     cg_lifetimes_free(lt);
 *
 * Without pairing (tl->source.pairing_known false) nothing is known:
 * available is false. */
#ifndef CG_LIFETIMES_H
#define CG_LIFETIMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timeline.h"

#define CG_LIFETIME_BUCKETS 79

/* One non-empty histogram cell. */
typedef struct cg_lifetime_cell {
	uint8_t category; /* cg_category of the allocation */
	uint8_t bucket;
	uint64_t count;
	uint64_t bytes;
} cg_lifetime_cell;

typedef struct cg_lifetimes_device {
	bool available;
	cg_lifetime_cell *cells;  /* by category, then bucket */
	size_t ncells;
	uint64_t ended_count;	  /* allocations freed (or ended by a reuse of their id) in the trace */
	uint64_t ended_bytes;
	uint64_t never_freed_count; /* still live when the trace ends */
	uint64_t never_freed_bytes;
	uint64_t before_trace_count; /* freed in the trace, allocated before it: lifetime unknown */
	uint64_t before_trace_bytes;
	uint64_t temporaries_count;  /* freed before the span that allocated them ended */
	uint64_t temporaries_bytes;
	uint64_t temporaries_count_by_category[CG_CAT_COUNT];
	uint64_t temporaries_bytes_by_category[CG_CAT_COUNT];
} cg_lifetimes_device;

typedef struct cg_lifetimes_result {
	uint32_t ndevices;
	cg_lifetimes_device *devices;
} cg_lifetimes_result;

/* Devices on up to threads threads (0: every usable CPU). */
int cg_lifetimes_run(cg_lifetimes_result **out, const cg_timeline *tl, unsigned threads, cg_error *err);
void cg_lifetimes_free(cg_lifetimes_result *r);

/* The bucket of a lifetime, and a bucket's bounds: [lower, upper) in ns;
 * upper of the last bucket is UINT64_MAX (unbounded). */
unsigned cg_lifetime_bucket(uint64_t ns);
uint64_t cg_lifetime_bucket_lower(unsigned b);
uint64_t cg_lifetime_bucket_upper(unsigned b);

#endif
