/* Times ingest and analysis of one trace: analysis must cost less than
 * ingest (issue 3). Built and run by tests/bench/analysis_cost.sh. */
#include <stdio.h>
#include <time.h>

#include "analysis.h"
#include "ingest.h"
#include "xalloc.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: bench_analysis TRACE\n");
		return 2;
	}
	cg_ingest_options io = CG_INGEST_OPTIONS_INIT;
	cg_error err = CG_ERROR_INIT;
	cg_timeline *tl;
	double t0 = now();
	if (cg_ingest(&tl, argv[1], &io, &err) < 0) {
		fprintf(stderr, "bench: %s\n", err.msg);
		return 1;
	}
	double t1 = now();
	cg_analysis *a;
	if (cg_analysis_run(&a, tl, NULL, &err) < 0) {
		fprintf(stderr, "bench: %s\n", err.msg);
		return 1;
	}
	double t2 = now();
	/* the most expensive pass on its own, for the record */
	uint32_t *peak = cg_malloc((tl->ndevices ? tl->ndevices : 1) * sizeof *peak);
	for (uint32_t d = 0; d < tl->ndevices; d++)
		peak[d] = a->peak->devices[d].peak_index;
	cg_replay_input in = {peak, peak, 0};
	cg_replay_result *r;
	double t3 = now();
	cg_replay_run(&r, tl, &in, &err);
	double t4 = now();
	printf("%zu memory records, %zu spans, %llu lines\n", tl->nmem, tl->nspans,
	       (unsigned long long)tl->source.lines);
	printf("ingest    %.3f s\nanalysis  %.3f s (%.0f %% of ingest)\n  of which allocator replay %.3f s\n",
	       t1 - t0, t2 - t1, 100.0 * (t2 - t1) / (t1 - t0), t4 - t3);
	cg_replay_free(r);
	cg_free(peak);
	cg_analysis_free(a);
	cg_timeline_free(tl);
	return 0;
}
