/* The Chrome trace (trace.json or trace.json.gz) that Perfetto and
 * chrome://tracing open: spans and ops as nested slices on the host, memory
 * as counter tracks per device, the peak as an instant, edges as flows.
 *
 *     cg_chrome_options o = CG_CHROME_OPTIONS_INIT;
 *     if (cg_chrome_trace_save("out/trace.json.gz", a, &o, &err) < 0) ...;
 *
 * Events are written one at a time through a buffered, optionally gzip
 * sink: the whole JSON is never held in memory. */
#ifndef CG_CHROME_TRACE_H
#define CG_CHROME_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis.h"
#include "sink.h"

typedef struct cg_chrome_options {
	bool full;		    /* every memory record as a counter sample */
	size_t max_counter_samples; /* otherwise, about this many counter events in all */
	int gzip_level;		    /* for .gz files */
	/* Called once, on the writing thread, when the slices (spans, ops and
	 * flows) are written and their working memory, about 24 bytes a span
	 * and op, is freed: what is left, the memory counters, needs little.
	 * For callers that write the trace beside other memory-hungry work;
	 * not called when cg_chrome_trace_save cannot create its file. NULL:
	 * none. */
	void (*slices_done)(void *arg);
	void *slices_done_arg;
} cg_chrome_options;

/* zlib level 1: the trace is large and written once; speed matters more
 * than the last 10 % of size. */
#define CG_CHROME_OPTIONS_INIT {false, 1000000, 1, NULL, NULL}

/* Writes the trace for a to out. */
void cg_chrome_trace_write(cg_sink *out, const cg_analysis *a, const cg_chrome_options *o);

/* Writes it to path, gzip-compressed when path ends in ".gz". */
int cg_chrome_trace_save(const char *path, const cg_analysis *a, const cg_chrome_options *o,
			 cg_error *err);

/* Formats nanoseconds as microseconds with exactly three decimals
 * ("1234.567"), with integer arithmetic. Returns the length. */
size_t cg_chrome_ts(char *buf, size_t size, uint64_t ns);

#endif
