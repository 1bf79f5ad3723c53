#include "devgroup.h"

#include "parallel.h"
#include "xalloc.h"

/* One sequential pass writes each device's records at its own cursor in
 * the output. Pages of the input go back to the system as the pass leaves
 * them, so memory peaks near one array, not two; and unlike a permutation
 * applied in place, nothing is read or written at random. The records are
 * cut into one run per thread: each counts its run, then copies it to the
 * cursors the counts give it, which keeps the order of a single pass. */
typedef struct grouping {
	const cg_timeline *tl;
	const cg_mem *in;
	size_t n;
	cg_mem *out;
	size_t nruns;
	size_t *at; /* [run * ndevices + device]: counts, then cursors */
} grouping;

static void count_run(void *ctx, size_t run)
{
	grouping *g = ctx;
	size_t *count = g->at + run * g->tl->ndevices, i, end;
	cg_parallel_run_range(g->n, g->nruns, run, &i, &end);
	for (; i < end; i++)
		count[cg_timeline_mem_device(g->tl, &g->in[i])]++;
}

/* Whole pages of the run go back as it is copied (xalloc.h); a page the
 * run shares with its neighbour stays (the neighbour may still read it),
 * as does the array's first (the allocator's header lies just before it). */
static void copy_run(void *ctx, size_t run)
{
	grouping *g = ctx;
	size_t *next = g->at + run * g->tl->ndevices, i, end;
	cg_parallel_run_range(g->n, g->nruns, run, &i, &end);
	uintptr_t released = (uintptr_t)&g->in[i];
	for (size_t k = 0; i < end; i++, k++) {
		g->out[next[cg_timeline_mem_device(g->tl, &g->in[i])]++] = g->in[i];
		if ((k & 8191) == 8191)
			cg_release_pages(&released, (uintptr_t)&g->in[i + 1]);
	}
}

/* in[0 .. n) grouped by device into out, in's pages released. */
static void group(const cg_timeline *tl, const cg_mem *in, size_t n, cg_mem *out, unsigned threads)
{
	size_t nd = tl->ndevices;
	grouping g = {tl, in, n, out, cg_parallel_runs(n, threads, CG_PARALLEL_MIN_ITEMS), NULL};
	g.at = cg_calloc(g.nruns * nd, sizeof *g.at);
	cg_parallel_for(g.nruns, (unsigned)g.nruns, count_run, &g);
	size_t start = 0; /* device by device, run by run: counts become cursors */
	for (size_t d = 0; d < nd; d++) {
		for (size_t r = 0; r < g.nruns; r++) {
			size_t c = g.at[r * nd + d];
			g.at[r * nd + d] = start;
			start += c;
		}
	}
	cg_parallel_for(g.nruns, (unsigned)g.nruns, copy_run, &g);
	cg_free(g.at);
}

void cg_group_by_device(cg_timeline *tl, unsigned threads)
{
	cg_mem *out = cg_malloc((tl->nmem ? tl->nmem : 1) * sizeof *out);
	group(tl, tl->mem, tl->nmem, out, threads);
	cg_free(tl->mem);
	tl->mem = out;
	tl->mem_cap = tl->nmem;
}

void cg_timeline_split_devices(cg_timeline *tl)
{
	tl->split_devices = true;
}

void cg_timeline_join_devices(cg_timeline *tl, unsigned threads)
{
	tl->split_devices = false;
	if (tl->nmem_rest) {
		/* mem holds device 0's records, and any of the others' from
		 * before the split, all earlier than those in mem_rest */
		CG_GROW(tl->mem, tl->mem_cap, tl->nmem + tl->nmem_rest);
		group(tl, tl->mem_rest, tl->nmem_rest, tl->mem + tl->nmem, threads);
		tl->nmem += tl->nmem_rest;
		tl->mem_regrouped = true;
	}
	cg_free(tl->mem_rest);
	tl->mem_rest = NULL;
	tl->nmem_rest = tl->mem_rest_cap = 0;
}
