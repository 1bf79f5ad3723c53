/* libFuzzer target: a whole file through ingest (every format, plain or
 * gzip) and every analysis pass, then summary.json; then the run compared
 * with itself (which must change nothing) into diff.json, and every
 * check limit judged against itself.
 *   build-fuzz/tests/fuzz/fuzz_trace tests/fuzz/corpus_trace */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <stdlib.h>

#include "align.h"
#include "analysis.h"
#include "check.h"
#include "diff.h"
#include "diff_json.h"
#include "ingest.h"
#include "sink.h"
#include "summary_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A run against itself: no change anywhere, and every limit judged. */
static void compare_with_itself(const cg_analysis *a)
{
	cg_diff_result *d;
	if (cg_diff_run(&d, a, a, NULL) < 0)
		return;
	for (size_t i = 0; i < d->ndevices; i++) {
		const cg_diff_device *dev = &d->devices[i];
		if (cg_diff_changed(dev->peak) || dev->nchanged || dev->ngroups)
			abort();
	}
	cg_alignment *al;
	cg_align_run(&al, a, a, CG_ALIGN_PHASES);
	cg_diff_view v = {{a, a}, d, al, 5};
	cg_sink *s = cg_sink_memory();
	cg_diff_json_write(s, &v, false);
	cg_sink_close(s, NULL);
	cg_align_free(al);
	cg_diff_free(d);
	cg_check_limits l = {true, true, true, true, 1, 0.5, 1, 0, NULL};
	cg_check_result *r;
	if (cg_check_run(&r, a, a, &l, NULL) == 0)
		cg_check_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("trace", 0);
	if (fd < 0)
		return 0;
	for (size_t done = 0; done < size;) {
		ssize_t k = write(fd, data + done, size - done);
		if (k <= 0) {
			close(fd);
			return 0;
		}
		done += (size_t)k;
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	o.max_line_bytes = 1 << 20;
	o.max_string_bytes = 8 << 20;
	o.threads = 1;
	cg_timeline *tl;
	cg_error err;
	if (cg_ingest(&tl, path, &o, &err) == 0) {
		cg_analysis *a;
		if (cg_analysis_run(&a, tl, NULL, &err) == 0) {
			cg_sink *s = cg_sink_memory();
			cg_summary_json_write(s, a, false);
			cg_sink_close(s, NULL);
			compare_with_itself(a);
			cg_analysis_free(a);
		}
		cg_timeline_free(tl);
	}
	close(fd);
	return 0;
}
