/* libFuzzer target: a whole file through ingest (every format, plain or
 * gzip) and every analysis pass, then summary.json.
 *   build-fuzz/tests/fuzz/fuzz_trace tests/fuzz/corpus_trace */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis.h"
#include "ingest.h"
#include "sink.h"
#include "summary_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
			cg_analysis_free(a);
		}
		cg_timeline_free(tl);
	}
	close(fd);
	return 0;
}
