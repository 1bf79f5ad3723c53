#include "liveseries.h"

__extension__ typedef unsigned __int128 u128;

size_t cg_live_series_bucket(uint64_t t, size_t n, uint64_t end_ns)
{
	if (n <= 1 || end_ns == 0 || t >= end_ns)
		return n ? n - 1 : 0;
	/* t n fits 128 bits whatever t; the quotient is below n */
	return (size_t)(((u128)t * n) / end_ns);
}

size_t cg_live_series(const cg_timeline *tl, uint32_t d, uint64_t end_ns, uint64_t out[CG_LIVE_SERIES_BUCKETS])
{
	const cg_device *dev = &tl->devices[d];
	size_t n = end_ns == 0 ? 1 : CG_LIVE_SERIES_BUCKETS;
	uint64_t live = cg_device_initial_live(dev);
	size_t cur = 0;
	out[0] = live;
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		uint32_t i = dev->mem_first + k;
		size_t b = cg_live_series_bucket(tl->mem[i].t_ns, n, end_ns);
		while (cur < b)
			out[++cur] = live; /* the live bytes entering each bucket */
		live = cg_timeline_live_after(tl, i, live);
		if (live > out[cur])
			out[cur] = live;
	}
	while (cur + 1 < n)
		out[++cur] = live;
	return n;
}
