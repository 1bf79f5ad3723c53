/* libFuzzer target: `cgmem diff` on two fuzzed traces: the comparison
 * (analysis/compare), diff.json, the diff's charts and diff.md/diff.html
 * (render/diff_report.c) in an output folder.
 *   byte 0     bit 0 align phases (else start), bit 1 diff.html, bit 2 the
 *              charts (PNG and SVG at the smallest size report allows), bits
 *              3-5 the list length (1-8), bit 6 the folder is committed (else
 *              aborted)
 *   bytes 1-2  where the base trace ends (big-endian; past the end: at the
 *              end, the new run then an empty input)
 *   the rest   the base trace, then the new one, each in any format
 *   build-fuzz/tests/fuzz/fuzz_diff tests/fuzz/corpus_diff */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis.h"
#include "chart_diff.h"
#include "compare.h"
#include "diff_json.h"
#include "diff_report.h"
#include "fuzz_tmpdir.h"
#include "ingest.h"
#include "sink.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_diff: %s\n", what);
	abort();
}

static bool shutdown_registered;

static void charts_shutdown(void)
{
	cg_charts_shutdown();
}

static int analyse(cg_timeline **tl, cg_analysis **a, const uint8_t *data, size_t size, const char *name)
{
	cg_ingest_options io = CG_INGEST_OPTIONS_INIT;
	io.max_line_bytes = 1 << 20;
	io.max_string_bytes = 8 << 20;
	io.threads = 1;
	cg_analysis_options ao = CG_ANALYSIS_OPTIONS_INIT;
	ao.threads = 1;
	cg_error err = CG_ERROR_INIT;
	if (cg_ingest_memory(tl, data, size, name, &io, &err) < 0)
		return -1;
	return cg_analysis_run(a, *tl, &ao, &err);
}

static void write_folder(const cg_diff_view *v, unsigned flags)
{
	bool html = flags & 2, charts = flags & 4, commit = flags & 64;
	char out[128];
	snprintf(out, sizeof out, "%s/diff", fuzz_tmpdir());
	cg_error err = CG_ERROR_INIT;
	cg_outdir *od;
	if (cg_outdir_begin(&od, out, true, &err) < 0)
		fail(err.msg);
	char *path = cg_outdir_path(od, "diff.json");
	if (cg_diff_json_save(path, v, &err) < 0)
		fail(err.msg);
	cg_free(path);
	cg_chart_list list = {0};
	if (charts) {
		if (!shutdown_registered) {
			atexit(charts_shutdown);
			shutdown_registered = true;
		}
		cg_charts_options o = CG_CHARTS_OPTIONS_INIT;
		o.size.width = CG_CHART_MIN_WIDTH;
		o.size.height = CG_CHART_MIN_HEIGHT;
		if (cg_diff_charts_write(od, v, &o, &list, &err) < 0)
			fail(err.msg);
	}
	if (cg_diff_report_write(od, v, charts ? &list : NULL, html, true, &err) < 0)
		fail(err.msg);
	cg_chart_list_free(&list);
	if (commit) {
		if (cg_outdir_commit(od, &err) < 0)
			fail(err.msg);
	} else {
		cg_outdir_abort(od);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	unsigned flags = data[0];
	size_t split = (size_t)data[1] << 8 | data[2];
	data += 3;
	size -= 3;
	if (split > size)
		split = size;

	cg_timeline *tl[2] = {NULL, NULL};
	cg_analysis *a[2] = {NULL, NULL};
	cg_diff_view *v = NULL;
	cg_error err = CG_ERROR_INIT;
	if (analyse(&tl[0], &a[0], data, split, "base.jsonl") == 0 &&
	    analyse(&tl[1], &a[1], data + split, size - split, "new.jsonl") == 0 &&
	    cg_diff_view_new(&v, a[0], a[1], flags & 1 ? CG_ALIGN_PHASES : CG_ALIGN_START, 1 + (flags >> 3 & 7),
			     &err) == 0) {
		cg_sink *s = cg_sink_memory();
		cg_diff_json_write(s, v, false);
		cg_sink_close(s, NULL);
		cg_doc_free(cg_diff_report_build(v, NULL));
		write_folder(v, flags);
	}
	cg_diff_view_free(v);
	for (int k = 0; k < 2; k++) {
		cg_analysis_free(a[k]);
		cg_timeline_free(tl[k]);
	}
	return 0;
}
