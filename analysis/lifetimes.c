#include "lifetimes.h"

#include <string.h>

#include "checked.h"
#include "parallel.h"
#include "xalloc.h"

/* edges[k] = ceil(10^(k/4)): the smallest whole number of nanoseconds in
 * bucket k + 1. Computed with 60-digit decimals (Python's decimal module),
 * so the bucket of a lifetime is exact integer comparison, with no
 * floating-point rounding at the edges. */
static const uint64_t edges[CG_LIFETIME_BUCKETS - 1] = {
	1ull, 2ull, 4ull, 6ull, 10ull, 18ull, 32ull, 57ull, 100ull, 178ull, 317ull, 563ull, 1000ull,
	1779ull, 3163ull, 5624ull, 10000ull, 17783ull, 31623ull, 56235ull, 100000ull, 177828ull,
	316228ull, 562342ull, 1000000ull, 1778280ull, 3162278ull, 5623414ull, 10000000ull, 17782795ull,
	31622777ull, 56234133ull, 100000000ull, 177827942ull, 316227767ull, 562341326ull, 1000000000ull,
	1778279411ull, 3162277661ull, 5623413252ull, 10000000000ull, 17782794101ull, 31622776602ull,
	56234132520ull, 100000000000ull, 177827941004ull, 316227766017ull, 562341325191ull,
	1000000000000ull, 1778279410039ull, 3162277660169ull, 5623413251904ull, 10000000000000ull,
	17782794100390ull, 31622776601684ull, 56234132519035ull, 100000000000000ull, 177827941003893ull,
	316227766016838ull, 562341325190350ull, 1000000000000000ull, 1778279410038923ull,
	3162277660168380ull, 5623413251903491ull, 10000000000000000ull, 17782794100389229ull,
	31622776601683794ull, 56234132519034909ull, 100000000000000000ull, 177827941003892281ull,
	316227766016837934ull, 562341325190349081ull, 1000000000000000000ull, 1778279410038922802ull,
	3162277660168379332ull, 5623413251903490804ull, 10000000000000000000ull, 17782794100389228013ull,
};

unsigned cg_lifetime_bucket(uint64_t ns)
{
	/* how many edges are <= ns */
	unsigned lo = 0, hi = CG_LIFETIME_BUCKETS - 1;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		if (edges[mid] <= ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t cg_lifetime_bucket_lower(unsigned b)
{
	return b == 0 || b >= CG_LIFETIME_BUCKETS ? 0 : edges[b - 1];
}

uint64_t cg_lifetime_bucket_upper(unsigned b)
{
	return b < CG_LIFETIME_BUCKETS - 1 ? edges[b] : UINT64_MAX;
}

static void add_sat(uint64_t *acc, uint64_t v)
{
	if (!cg_add_u64(*acc, v, acc))
		*acc = UINT64_MAX;
}

typedef struct hist {
	uint64_t count[CG_CAT_COUNT][CG_LIFETIME_BUCKETS];
	uint64_t bytes[CG_CAT_COUNT][CG_LIFETIME_BUCKETS];
} hist;

/* Keeps only the non-empty cells: a trace may name thousands of devices. */
static void compress(const hist *h, cg_lifetimes_device *o)
{
	size_t n = 0;
	for (int c = 0; c < CG_CAT_COUNT; c++)
		for (int b = 0; b < CG_LIFETIME_BUCKETS; b++)
			n += h->count[c][b] != 0;
	o->cells = cg_malloc((n ? n : 1) * sizeof *o->cells);
	for (int c = 0; c < CG_CAT_COUNT; c++)
		for (int b = 0; b < CG_LIFETIME_BUCKETS; b++)
			if (h->count[c][b])
				o->cells[o->ncells++] = (cg_lifetime_cell){(uint8_t)c, (uint8_t)b, h->count[c][b],
									   h->bytes[c][b]};
}

/* How many records ahead an allocation's free and span are fetched: each
 * is a miss in a table larger than the caches, which the loop otherwise
 * waits for in turn (85 ms of 3.4 M allocations at 10 M lines). */
#define AHEAD 16

static void fetch_ahead(const cg_timeline *tl, const cg_mem *m)
{
	if (m->action == CG_FREE || m->pair == CG_NONE)
		return;
	__builtin_prefetch(&tl->mem[m->pair]);
	if (m->span != CG_NONE)
		__builtin_prefetch(&tl->spans[m->span].end_ns);
}

static void device_lifetimes(const cg_timeline *tl, const cg_device *dev, hist *h, cg_lifetimes_device *o)
{
	memset(h, 0, sizeof *h);
	o->available = true;
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		const cg_mem *m = &tl->mem[dev->mem_first + k];
		if (k + AHEAD < dev->mem_count)
			fetch_ahead(tl, m + AHEAD);
		if (m->action == CG_FREE) {
			if (m->flags & CG_MEM_PREEXISTING) {
				o->before_trace_count++;
				add_sat(&o->before_trace_bytes, m->bytes);
			}
			continue;
		}
		if (m->pair == CG_NONE) {
			o->never_freed_count++;
			add_sat(&o->never_freed_bytes, m->bytes);
			continue;
		}
		const cg_mem *end = &tl->mem[m->pair];
		unsigned b = cg_lifetime_bucket(end->t_ns - m->t_ns); /* sorted: end comes later */
		h->count[m->category][b]++;
		add_sat(&h->bytes[m->category][b], m->bytes);
		o->ended_count++;
		add_sat(&o->ended_bytes, m->bytes);
		if (end->action == CG_FREE && m->span != CG_NONE && end->t_ns <= tl->spans[m->span].end_ns) {
			o->temporaries_count++;
			add_sat(&o->temporaries_bytes, m->bytes);
			o->temporaries_count_by_category[m->category]++;
			add_sat(&o->temporaries_bytes_by_category[m->category], m->bytes);
		}
	}
	compress(h, o);
}

typedef struct devices_job {
	const cg_timeline *tl;
	cg_lifetimes_result *r;
} devices_job;

static void device_job(void *ctx, size_t d)
{
	devices_job *j = ctx;
	hist *h = cg_malloc(sizeof *h);
	device_lifetimes(j->tl, &j->tl->devices[d], h, &j->r->devices[d]);
	cg_free(h);
}

int cg_lifetimes_run(cg_lifetimes_result **out, const cg_timeline *tl, unsigned threads, cg_error *err)
{
	(void)err;
	cg_lifetimes_result *r = cg_calloc(1, sizeof *r);
	r->ndevices = tl->ndevices;
	r->devices = cg_calloc(tl->ndevices ? tl->ndevices : 1, sizeof *r->devices);
	devices_job j = {tl, r};
	if (tl->source.pairing_known)
		cg_parallel_for(tl->ndevices, threads, device_job, &j);
	*out = r;
	return 0;
}

void cg_lifetimes_free(cg_lifetimes_result *r)
{
	if (!r)
		return;
	for (uint32_t d = 0; d < r->ndevices; d++)
		cg_free(r->devices[d].cells);
	cg_free(r->devices);
	cg_free(r);
}
