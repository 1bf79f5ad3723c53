#include "liveset.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

cg_category cg_live_alloc_category(const cg_timeline *tl, const cg_live_alloc *a)
{
	uint32_t i = a->alloc != CG_NONE ? a->alloc : a->end;
	return i == CG_NONE ? CG_CAT_UNKNOWN : (cg_category)tl->mem[i].category;
}

uint64_t cg_liveset_unlisted_baseline(const cg_timeline *tl, const cg_liveset_device *ls)
{
	uint64_t listed = 0;
	for (size_t i = 0; ls->listed && i < ls->nallocs; i++)
		if (cg_live_alloc_category(tl, &ls->allocs[i]) == CG_CAT_BASELINE)
			listed += ls->allocs[i].bytes; /* a part of by_category[CG_CAT_BASELINE]: cannot overflow */
	uint64_t all = ls->by_category[CG_CAT_BASELINE];
	return all > listed ? all - listed : 0;
}

cg_phase cg_live_alloc_phase(const cg_timeline *tl, const cg_live_alloc *a)
{
	return a->alloc == CG_NONE ? CG_PHASE_NONE : cg_timeline_mem_phase(tl, &tl->mem[a->alloc]);
}

/* Largest first; among equals the earliest allocation (before the trace
 * counts as earliest), so the order does not depend on the sort. */
static int cmp_live(const void *pa, const void *pb)
{
	const cg_live_alloc *a = pa, *b = pb;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	uint64_t ka = a->alloc == CG_NONE ? 0 : (uint64_t)a->alloc + 1;
	uint64_t kb = b->alloc == CG_NONE ? 0 : (uint64_t)b->alloc + 1;
	if (ka != kb)
		return ka < kb ? -1 : 1;
	uint64_t ea = a->end == CG_NONE ? UINT64_MAX : a->end, eb = b->end == CG_NONE ? UINT64_MAX : b->end;
	return ea < eb ? -1 : ea > eb;
}

/* Running sums per category up to the moment: right with or without pairing. */
static void sum_categories(const cg_timeline *tl, const cg_device *dev, uint32_t last, cg_liveset_device *out)
{
	memcpy(out->by_category, dev->initial_by_cat, sizeof out->by_category);
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		const cg_mem *m = &tl->mem[dev->mem_first + k];
		if (m->flags & CG_MEM_PREEXISTING)
			out->count_by_category[m->category]++;
	}
	for (uint32_t k = 0; k < last; k++) {
		uint32_t i = dev->mem_first + k;
		const cg_mem *m = &tl->mem[i];
		if (m->action == CG_ALLOC) {
			out->by_category[m->category] += m->bytes;
			out->count_by_category[m->category]++;
			uint32_t r = cg_timeline_mem_replaced(tl, i);
			if (r != CG_NONE) {
				assert(out->by_category[tl->mem[r].category] >= tl->mem[r].bytes);
				out->by_category[tl->mem[r].category] -= tl->mem[r].bytes;
				out->count_by_category[tl->mem[r].category]--;
			}
		} else if (!(m->flags & CG_MEM_DOUBLE_FREE)) {
			/* A paired free carries its allocation's category. */
			assert(out->by_category[m->category] >= m->bytes);
			out->by_category[m->category] -= m->bytes;
			out->count_by_category[m->category]--;
		}
	}
	for (int c = 0; c < CG_CAT_COUNT; c++) {
		out->bytes += out->by_category[c];
		out->count += out->count_by_category[c];
	}
}

static void add_listed(const cg_timeline *tl, cg_liveset_device *out, size_t *cap, cg_live_alloc a)
{
	CG_GROW(out->allocs, *cap, out->nallocs + 1);
	out->allocs[out->nallocs++] = a;
	cg_phase p = cg_live_alloc_phase(tl, &a);
	cg_category c = cg_live_alloc_category(tl, &a);
	out->by_phase[p] += a.bytes;
	out->by_phase_category[p][c] += a.bytes;
}

/* The allocations themselves: made up to the moment and ended after it,
 * plus those from before the trace that are freed after it. */
static void list_allocs(const cg_timeline *tl, const cg_device *dev, uint32_t last, cg_liveset_device *out)
{
	size_t cap = 0;
	out->listed = true;
	out->by_phase[CG_PHASE_NONE] = dev->baseline_bytes;
	out->by_phase_category[CG_PHASE_NONE][CG_CAT_BASELINE] = dev->baseline_bytes;
	uint32_t moment = last == 0 ? 0 : dev->mem_first + last - 1;
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		uint32_t i = dev->mem_first + k;
		const cg_mem *m = &tl->mem[i];
		if (k < last && m->action == CG_ALLOC && (m->pair == CG_NONE || m->pair > moment))
			add_listed(tl, out, &cap, (cg_live_alloc){i, m->pair, m->bytes});
		else if (k >= last && (m->flags & CG_MEM_PREEXISTING))
			add_listed(tl, out, &cap, (cg_live_alloc){CG_NONE, i, m->bytes});
	}
	if (out->nallocs > 1)
		qsort(out->allocs, out->nallocs, sizeof *out->allocs, cmp_live);
}

void cg_liveset_device_at(cg_liveset_device *o, const cg_timeline *tl, uint32_t d, uint32_t after)
{
	const cg_device *dev = &tl->devices[d];
	memset(o, 0, sizeof *o);
	o->after = after;
	/* last: how many of the device's records come at or before the moment */
	uint32_t last = 0;
	if (after != CG_NONE && after >= dev->mem_first && after - dev->mem_first < dev->mem_count)
		last = after - dev->mem_first + 1;
	else
		o->after = CG_NONE;
	sum_categories(tl, dev, last, o);
	if (tl->source.pairing_known)
		list_allocs(tl, dev, last, o);
}

/* Moments of the sweep, ordered by how many of the device's records come
 * at or before them. */
typedef struct sweep_moment {
	uint32_t last;
	size_t j;
} sweep_moment;

static int cmp_sweep(const void *pa, const void *pb)
{
	const sweep_moment *a = pa, *b = pb;
	if (a->last != b->last)
		return a->last < b->last ? -1 : 1;
	return a->j < b->j ? -1 : a->j > b->j;
}

/* One moment of the sweep from its running state: the sums as
 * sum_categories leaves them, the list as list_allocs builds it (the live
 * allocations in record order, then the blocks from before the trace freed
 * after the moment), sorted by the same total order. */
static void sweep_emit(const cg_timeline *tl, const cg_device *dev, cg_liveset_device *o, uint32_t last,
		       const uint64_t *by_cat, const uint64_t *count_by_cat, const uint32_t *live, size_t nlive,
		       const uint32_t *pre, size_t npre)
{
	memcpy(o->by_category, by_cat, sizeof o->by_category);
	memcpy(o->count_by_category, count_by_cat, sizeof o->count_by_category);
	for (int c = 0; c < CG_CAT_COUNT; c++) {
		o->bytes += o->by_category[c];
		o->count += o->count_by_category[c];
	}
	if (!tl->source.pairing_known)
		return;
	size_t cap = 0;
	o->listed = true;
	o->by_phase[CG_PHASE_NONE] = dev->baseline_bytes;
	o->by_phase_category[CG_PHASE_NONE][CG_CAT_BASELINE] = dev->baseline_bytes;
	for (size_t i = 0; i < nlive; i++)
		add_listed(tl, o, &cap, (cg_live_alloc){live[i], tl->mem[live[i]].pair, tl->mem[live[i]].bytes});
	for (size_t i = 0; i < npre; i++)
		if (pre[i] - dev->mem_first >= last)
			add_listed(tl, o, &cap, (cg_live_alloc){CG_NONE, pre[i], tl->mem[pre[i]].bytes});
	if (o->nallocs > 1)
		qsort(o->allocs, o->nallocs, sizeof *o->allocs, cmp_live);
}

void cg_liveset_device_many(cg_liveset_device *out, const cg_timeline *tl, uint32_t d, const uint32_t *after,
			    size_t n)
{
	const cg_device *dev = &tl->devices[d];
	sweep_moment *order = cg_calloc(n ? n : 1, sizeof *order);
	for (size_t j = 0; j < n; j++) {
		cg_liveset_device *o = &out[j];
		memset(o, 0, sizeof *o);
		o->after = after[j];
		uint32_t last = 0;
		if (after[j] != CG_NONE && after[j] >= dev->mem_first && after[j] - dev->mem_first < dev->mem_count)
			last = after[j] - dev->mem_first + 1;
		else
			o->after = CG_NONE;
		order[j] = (sweep_moment){last, j};
	}
	qsort(order, n, sizeof *order, cmp_sweep);

	uint64_t by_cat[CG_CAT_COUNT], count_by_cat[CG_CAT_COUNT] = {0};
	memcpy(by_cat, dev->initial_by_cat, sizeof by_cat);
	uint32_t *pre = NULL;
	size_t npre = 0, pre_cap = 0;
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		const cg_mem *m = &tl->mem[dev->mem_first + k];
		if (m->flags & CG_MEM_PREEXISTING) {
			count_by_cat[m->category]++;
			CG_GROW(pre, pre_cap, npre + 1);
			pre[npre++] = dev->mem_first + k;
		}
	}
	/* live: the allocations made so far and not ended by the moment, in
	 * record order; filtered at each moment, appended to between them. */
	uint32_t *live = NULL;
	size_t nlive = 0, live_cap = 0;
	uint32_t k = 0;
	for (size_t s = 0; s < n; s++) {
		uint32_t last = order[s].last;
		for (; k < last; k++) {
			uint32_t i = dev->mem_first + k;
			const cg_mem *m = &tl->mem[i];
			if (m->action == CG_ALLOC) {
				by_cat[m->category] += m->bytes;
				count_by_cat[m->category]++;
				uint32_t r = cg_timeline_mem_replaced(tl, i);
				if (r != CG_NONE) {
					assert(by_cat[tl->mem[r].category] >= tl->mem[r].bytes);
					by_cat[tl->mem[r].category] -= tl->mem[r].bytes;
					count_by_cat[tl->mem[r].category]--;
				}
				if (tl->source.pairing_known) {
					CG_GROW(live, live_cap, nlive + 1);
					live[nlive++] = i;
				}
			} else if (!(m->flags & CG_MEM_DOUBLE_FREE)) {
				assert(by_cat[m->category] >= m->bytes);
				by_cat[m->category] -= m->bytes;
				count_by_cat[m->category]--;
			}
		}
		uint32_t moment = last == 0 ? 0 : dev->mem_first + last - 1;
		size_t kept = 0;
		for (size_t i = 0; i < nlive; i++) {
			uint32_t p = tl->mem[live[i]].pair;
			if (p == CG_NONE || p > moment)
				live[kept++] = live[i];
		}
		nlive = kept;
		sweep_emit(tl, dev, &out[order[s].j], last, by_cat, count_by_cat, live, nlive, pre, npre);
	}
	cg_free(live);
	cg_free(pre);
	cg_free(order);
}

void cg_liveset_device_clear(cg_liveset_device *ls)
{
	if (!ls)
		return;
	cg_free(ls->allocs);
	memset(ls, 0, sizeof *ls);
}

int cg_liveset_run(cg_liveset_result **out, const cg_timeline *tl, const uint32_t *after, cg_error *err)
{
	(void)err;
	cg_liveset_result *r = cg_calloc(1, sizeof *r);
	r->ndevices = tl->ndevices;
	r->devices = cg_calloc(tl->ndevices ? tl->ndevices : 1, sizeof *r->devices);
	for (uint32_t d = 0; d < tl->ndevices; d++)
		cg_liveset_device_at(&r->devices[d], tl, d, after[d]);
	*out = r;
	return 0;
}

void cg_liveset_free(cg_liveset_result *r)
{
	if (!r)
		return;
	for (uint32_t d = 0; d < r->ndevices; d++)
		cg_free(r->devices[d].allocs);
	cg_free(r->devices);
	cg_free(r);
}
