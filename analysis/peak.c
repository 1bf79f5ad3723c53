#include "peak.h"

#include <stdlib.h>

#include "checked.h"
#include "xalloc.h"

/* Live bytes are evaluated after every record in time order, as PyTorch's
 * "Total Allocated" is: the peak is the largest of those values. */
static void device_peak(const cg_timeline *tl, const cg_device *dev, cg_peak_device *out)
{
	uint64_t live = cg_device_initial_live(dev);
	uint32_t count = dev->preexisting_count;
	out->initial_bytes = live;
	out->peak_bytes = live;
	out->peak_index = CG_NONE;
	out->live_at_peak = count;
	out->reached_times = live > 0 ? 1 : 0;
	if (dev->mem_count) {
		out->first_t_ns = tl->mem[dev->mem_first].t_ns;
		out->last_t_ns = tl->mem[dev->mem_first + dev->mem_count - 1].t_ns;
	}
	/* Memory live before the first record was there from the trace's start. */
	out->peak_t_ns = tl->first_t_ns;
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		uint32_t i = dev->mem_first + k;
		const cg_mem *m = &tl->mem[i];
		uint64_t before = live;
		live = cg_timeline_live_after(tl, i, live);
		if (m->action == CG_ALLOC) {
			out->allocations++;
			if (!cg_add_u64(out->bytes_allocated, m->bytes, &out->bytes_allocated))
				out->bytes_allocated = UINT64_MAX;
			if (!(m->flags & CG_MEM_REPLACES))
				count++;
		} else {
			out->frees++;
			if (!(m->flags & CG_MEM_DOUBLE_FREE))
				count--;
		}
		if (live > out->peak_bytes) {
			out->peak_bytes = live;
			out->peak_t_ns = m->t_ns;
			out->peak_index = i;
			out->reached_times = 1;
			out->live_at_peak = count;
		} else if (live == out->peak_bytes && before < live) {
			out->reached_times++;
		}
	}
	out->live_at_end = live;
	out->live_count_at_end = dev->live_count_at_end;
}

typedef struct ranked {
	uint64_t peak;
	uint32_t device;
} ranked;

/* Larger peak first; equal peaks in device order. */
static int cmp_ranked(const void *pa, const void *pb)
{
	const ranked *a = pa, *b = pb;
	if (a->peak != b->peak)
		return a->peak > b->peak ? -1 : 1;
	return a->device < b->device ? -1 : a->device > b->device;
}

static uint32_t *rank_by_peak(const cg_peak_result *r)
{
	size_t n = r->ndevices;
	ranked *rk = cg_malloc((n ? n : 1) * sizeof *rk);
	for (uint32_t d = 0; d < n; d++)
		rk[d] = (ranked){r->devices[d].peak_bytes, d};
	qsort(rk, n, sizeof *rk, cmp_ranked);
	uint32_t *order = cg_malloc((n ? n : 1) * sizeof *order);
	for (size_t k = 0; k < n; k++)
		order[k] = rk[k].device;
	cg_free(rk);
	return order;
}

int cg_peak_run(cg_peak_result **out, const cg_timeline *tl, cg_error *err)
{
	(void)err;
	cg_peak_result *r = cg_calloc(1, sizeof *r);
	r->ndevices = tl->ndevices;
	r->devices = cg_calloc(tl->ndevices ? tl->ndevices : 1, sizeof *r->devices);
	for (uint32_t d = 0; d < tl->ndevices; d++)
		device_peak(tl, &tl->devices[d], &r->devices[d]);
	r->by_peak = rank_by_peak(r);
	*out = r;
	return 0;
}

void cg_peak_free(cg_peak_result *r)
{
	if (!r)
		return;
	cg_free(r->devices);
	cg_free(r->by_peak);
	cg_free(r);
}
