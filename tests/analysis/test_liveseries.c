/* The live series (liveseries.h) against its definition computed plainly:
 * each record's bucket floor(t n / end) by a 128-bit division, the value of
 * a bucket the largest live bytes entering it and after each of its
 * records. Random traces with times bunched, spread, equal, at the buckets'
 * edges and past end_ns. */
#include "tlbuild.h"

#include <string.h>

#include "liveseries.h"

__extension__ typedef unsigned __int128 u128;

static void plain_series(const cg_timeline *tl, uint32_t d, uint64_t end_ns, uint64_t *out, size_t n)
{
	const cg_device *dev = &tl->devices[d];
	uint64_t live = cg_device_initial_live(dev);
	size_t cur = 0;
	out[0] = live;
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		uint32_t i = dev->mem_first + k;
		uint64_t t = tl->mem[i].t_ns;
		size_t b = n <= 1 || end_ns == 0 || t >= end_ns ? n - 1 : (size_t)((u128)t * n / end_ns);
		while (cur < b)
			out[++cur] = live;
		live = cg_timeline_live_after(tl, i, live);
		if (live > out[cur])
			out[cur] = live;
	}
	while (cur + 1 < n)
		out[++cur] = live;
}

static void the_series_is_its_definition_on_random_traces(void **state)
{
	(void)state;
	uint64_t x = 0x853c49e6748fea9bull;
	for (int round = 0; round < 60; round++) {
		cg_timeline *tl = tu_tl_new();
		/* scales from a few ns to most of 64 bits */
		unsigned shift = (unsigned)(round * 7 % 50);
		uint64_t t = 0;
		for (int i = 0; i < 3000; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			t += (x % 4 == 0) ? 0 : (x >> 8) % 1000 << shift >> 3;
			char id[16];
			snprintf(id, sizeof id, "t%u", (unsigned)(x >> 20) % 300);
			tu_mem(tl, t, id, NULL, "cuda:0", (x >> 30) % 4096 + 1, (x >> 40) % 3 ? CG_ALLOC : CG_FREE,
			       CG_CAT_ACTIVATION, NULL);
		}
		tu_tl_finalize(tl);
		/* end_ns at the last record, before it, past it, and a bucket's edge */
		uint64_t ends[] = {tl->last_t_ns, tl->last_t_ns / 2 + 1, tl->last_t_ns * 2 + 3, 256, 1, 0};
		for (size_t e = 0; e < sizeof ends / sizeof ends[0]; e++) {
			uint64_t got[CG_LIVE_SERIES_BUCKETS], want[CG_LIVE_SERIES_BUCKETS];
			size_t n = cg_live_series(tl, 0, ends[e], got);
			assert_int_equal(n, ends[e] == 0 ? 1 : CG_LIVE_SERIES_BUCKETS);
			plain_series(tl, 0, ends[e], want, n);
			for (size_t b = 0; b < n; b++)
				if (got[b] != want[b])
					fail_msg("round %d, end %llu: bucket %zu is %llu, expected %llu", round,
						 (unsigned long long)ends[e], b, (unsigned long long)got[b],
						 (unsigned long long)want[b]);
		}
		cg_timeline_free(tl);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_series_is_its_definition_on_random_traces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
