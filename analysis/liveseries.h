/* A device's live bytes over time, downsampled to a few buckets for the
 * charts across the ranks of a job (docs/summary-format.md, live_series).
 * Bucket k of n holds the times t with floor(t n / end_ns) = k, the last
 * also everything later; its value is the largest of the live bytes
 * entering it and after each record in it. So the series' maximum is the
 * device's peak exactly, held by the bucket of the peak's time, and a 1-ns
 * spike is not lost. Integers only: it round-trips through JSON byte-exact.
 *
 *     uint64_t v[CG_LIVE_SERIES_BUCKETS];
 *     size_t n = cg_live_series(tl, d, tl->last_t_ns, v);
 */
#ifndef CG_LIVESERIES_H
#define CG_LIVESERIES_H

#include <stddef.h>
#include <stdint.h>

#include "timeline.h"

#define CG_LIVE_SERIES_BUCKETS 256

/* The bucket of time t among n over [0, end_ns]. */
size_t cg_live_series_bucket(uint64_t t, size_t n, uint64_t end_ns);

/* Fills out[0..n) for device d over [0, end_ns] and returns n:
 * CG_LIVE_SERIES_BUCKETS, or 1 when end_ns is 0. */
size_t cg_live_series(const cg_timeline *tl, uint32_t d, uint64_t end_ns, uint64_t out[CG_LIVE_SERIES_BUCKETS]);

#endif
