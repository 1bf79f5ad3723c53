#include "liveseries.h"

__extension__ typedef unsigned __int128 u128;

size_t cg_live_series_bucket(uint64_t t, size_t n, uint64_t end_ns)
{
	if (n <= 1 || end_ns == 0 || t >= end_ns)
		return n ? n - 1 : 0;
	/* t n fits 128 bits whatever t; the quotient is below n */
	return (size_t)(((u128)t * n) / end_ns);
}

/* The first time of bucket b < n: the least t with t n / end_ns >= b. */
static uint64_t bucket_start(size_t b, size_t n, uint64_t end_ns)
{
	if (b >= n || end_ns == 0)
		return UINT64_MAX;
	return (uint64_t)(((u128)b * end_ns + n - 1) / n); /* at most end_ns */
}

size_t cg_live_series(const cg_timeline *tl, uint32_t d, uint64_t end_ns, uint64_t out[CG_LIVE_SERIES_BUCKETS])
{
	const cg_device *dev = &tl->devices[d];
	size_t n = end_ns == 0 ? 1 : CG_LIVE_SERIES_BUCKETS;
	uint64_t live = cg_device_initial_live(dev);
	size_t cur = 0;
	uint64_t next = bucket_start(1, n, end_ns);
	out[0] = live;
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		uint32_t i = dev->mem_first + k;
		/* a record before the next bucket's start stays in this one: a
		 * 128-bit division only where the bucket may change */
		if (tl->mem[i].t_ns >= next) {
			size_t b = cg_live_series_bucket(tl->mem[i].t_ns, n, end_ns);
			while (cur < b)
				out[++cur] = live; /* the live bytes entering each bucket */
			next = bucket_start(cur + 1, n, end_ns);
		}
		live = cg_timeline_live_after(tl, i, live);
		if (live > out[cur])
			out[cur] = live;
	}
	while (cur + 1 < n)
		out[++cur] = live;
	return n;
}
