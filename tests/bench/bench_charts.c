/* Times the drawing of every chart of a trace (issue 8: well under 0.3 s
 * in all, whatever the number of records). Built and run by
 * tests/bench/charts_cost.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "analysis.h"
#include "chart_draw.h"
#include "ingest.h"
#include "outdir.h"
#include "xalloc.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of the process: what the drawing costs, less disturbed than the
 * wall clock when other jobs share the machine. */
static double cpu_of(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu(void)
{
	return cpu_of(CLOCK_PROCESS_CPUTIME_ID);
}

typedef void (*draw_fn)(cg_chart *c, const cg_analysis *a, uint32_t device, const char *run_name);

/* One chart of one device in one format, drawn into dir: seconds taken. */
static double time_one(const char *dir, const char *name, draw_fn draw, const cg_analysis *a, uint32_t d,
		       cg_chart_format f)
{
	char *path = cg_asprintf("%s/%s.%s", dir, name, f == CG_CHART_PNG ? "png" : "svg");
	cg_chart c;
	cg_error err = CG_ERROR_INIT;
	double t0 = now();
	if (cg_chart_open(&c, path, f, NULL, &err) < 0) {
		fprintf(stderr, "bench: %s\n", err.msg);
		exit(1);
	}
	draw(&c, a, d, "bench");
	if (cg_chart_close(&c, &err) < 0) {
		fprintf(stderr, "bench: %s\n", err.msg);
		exit(1);
	}
	double t = now() - t0;
	cg_free(path);
	return t;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: bench_charts TRACE OUTDIR\n");
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
	cg_analysis *a;
	if (cg_analysis_run(&a, tl, NULL, &err) < 0) {
		fprintf(stderr, "bench: %s\n", err.msg);
		return 1;
	}
	double t1 = now();
	printf("%zu memory records on %u devices; ingest and analysis %.1f s\n", tl->nmem, tl->ndevices, t1 - t0);

	/* Every chart as the report writes it, into a report folder. */
	cg_outdir *od;
	if (cg_outdir_begin(&od, argv[2], true, &err) < 0) {
		fprintf(stderr, "bench: %s\n", err.msg);
		return 1;
	}
	/* Five times over: the machine is shared, the fastest run is the cost. */
	cg_chart_list list = {0};
	double best = 1e9, worst = 0, best_cpu = 1e9, best_main = 1e9;
	for (int run = 0; run < 5; run++) {
		cg_chart_list_free(&list);
		double t2 = now(), c2 = cpu(), m2 = cpu_of(CLOCK_THREAD_CPUTIME_ID);
		if (cg_charts_write(od, a, NULL, &list, &err) < 0) {
			fprintf(stderr, "bench: %s\n", err.msg);
			return 1;
		}
		double t = now() - t2, ct = cpu() - c2, mt = cpu_of(CLOCK_THREAD_CPUTIME_ID) - m2;
		best_main = mt < best_main ? mt : best_main;
		best = t < best ? t : best;
		best_cpu = ct < best_cpu ? ct : best_cpu;
		worst = t > worst ? t : worst;
	}
	size_t drawn = 0;
	for (size_t i = 0; i < list.n; i++)
		drawn += list.items[i].skipped == NULL;
	printf("all charts: %zu drawn (png + svg), %zu skipped: %.3f s wall, %.3f s CPU of which %.3f s drawing "
	       "and %.3f s compressing PNGs on the worker (fastest of 5 runs; slowest %.3f s wall)\n", drawn,
	       list.n - drawn, best, best_cpu, best_main, best_cpu - best_main, worst);

	/* Each chart of the first device on its own. */
	static const struct {
		const char *name;
		draw_fn draw;
	} kinds[] = {{"timeline", cg_chart_timeline},	    {"breakdown", cg_chart_breakdown},
		     {"icicle", cg_chart_icicle},	    {"top_allocations", cg_chart_top_allocations},
		     {"fragmentation", cg_chart_fragmentation}, {"lifetimes", cg_chart_lifetimes}};
	const char *dir = cg_outdir_dir(od);
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		if (list.n > k && list.items[k].skipped)
			continue;
		double png = time_one(dir, kinds[k].name, kinds[k].draw, a, 0, CG_CHART_PNG);
		double svg = time_one(dir, kinds[k].name, kinds[k].draw, a, 0, CG_CHART_SVG);
		printf("  %-16s png %.3f s  svg %.3f s\n", kinds[k].name, png, svg);
	}
	cg_outdir_abort(od);
	cg_chart_list_free(&list);
	cg_analysis_free(a);
	cg_timeline_free(tl);
	cg_charts_shutdown();
	return 0;
}
