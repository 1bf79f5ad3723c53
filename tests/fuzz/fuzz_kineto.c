/* libFuzzer target: PyTorch profiler traces (src/ingest/kineto*.c) and
 * export_memory_timeline raw files (memtimeline_raw.c), read leniently and
 * strictly with event limits small enough that events are overlong.
 *   byte 0   bits 0-1 what is put in front of the rest: nothing,
 *            {"traceEvents":[, [ (a raw file's array), or a Kineto header
 *            with deviceProperties; bits 2-3 the event limit (1 MiB, 48,
 *            200 or 2000 bytes); bit 4 the whole gzip-compressed, bit 5 as
 *            two gzip members split at byte 1's share of the length
 *   byte 1   where the second member begins
 *   the rest the events
 * Lenient and strict reading must agree: strict succeeds exactly when the
 * lenient reading found no bad event, and then reads the same records.
 * What succeeds goes through every pass and summary.json.
 *   build-fuzz/tests/fuzz/fuzz_kineto tests/fuzz/corpus_kineto */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "analysis.h"
#include "ingest.h"
#include "sink.h"
#include "summary_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_kineto: strict and lenient reading disagree: %s\n", what);
	abort();
}

/* One gzip member of n bytes at p appended to out (room checked by caller). */
static size_t gzip_member(unsigned char *out, size_t room, const unsigned char *p, size_t n)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	z.next_in = (Bytef *)p;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)room;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		abort();
	size_t len = z.total_out;
	deflateEnd(&z);
	return len;
}

static bool is_event_format(const cg_timeline *tl)
{
	return tl->source.lines_are_events;
}

static void total_records(const cg_timeline *tl, uint64_t *n)
{
	*n = 0;
	for (int k = 0; k < CG_KIND_COUNT; k++)
		*n += tl->source.records[k];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	static const char *const heads[4] = {
		"", "{\"traceEvents\":[", "[",
		("{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"GPU\",\"totalGlobalMem\":1024}],"
		 "\"traceEvents\":[")};
	static const size_t limits[4] = {(size_t)1 << 20, 48, 200, 2000};
	unsigned flags = data[0], at = data[1];
	data += 2;
	size -= 2;
	const char *head = heads[flags & 3];
	size_t hlen = strlen(head), n = hlen + size;
	unsigned char *text = malloc(n + 1);
	memcpy(text, head, hlen);
	memcpy(text + hlen, data, size);
	unsigned char *input = text;
	if (flags & 16) {
		size_t room = compressBound((uLong)n) + 64;
		unsigned char *gz = malloc(2 * room);
		size_t first = flags & 32 ? n * at / 255 : n;
		size_t len = gzip_member(gz, room, text, first);
		if (first < n)
			len += gzip_member(gz + len, room, text + first, n - first);
		free(text);
		input = gz;
		n = len;
	}

	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	o.max_line_bytes = limits[flags >> 2 & 3];
	o.max_string_bytes = 8 << 20;
	o.threads = 1;
	cg_timeline *lenient = NULL, *strict = NULL;
	cg_error err = CG_ERROR_INIT;
	int rc = cg_ingest_memory(&lenient, input, n, "fuzz.json", &o, &err);
	o.strict = true;
	int src = cg_ingest_memory(&strict, input, n, "fuzz.json", &o, &err);
	if (src == 0 && rc < 0)
		fail("strict read what lenient could not");
	if (rc == 0 && is_event_format(lenient)) {
		if (lenient->source.bad_lines == 0 && src < 0)
			fail("strict failed without a bad event");
		if (lenient->source.bad_lines > 0 && src == 0)
			fail("strict read a trace with a bad event");
		if (src == 0) {
			uint64_t r[2];
			total_records(lenient, &r[0]);
			total_records(strict, &r[1]);
			if (r[0] != r[1] || lenient->nmem != strict->nmem || lenient->nspans != strict->nspans ||
			    lenient->source.lines != strict->source.lines)
				fail("other records");
		}
	}
	if (rc == 0) {
		cg_analysis_options ao = CG_ANALYSIS_OPTIONS_INIT;
		ao.threads = 1;
		cg_analysis *a;
		if (cg_analysis_run(&a, lenient, &ao, &err) == 0) {
			cg_sink *s = cg_sink_memory();
			cg_summary_json_write(s, a, false);
			cg_sink_close(s, NULL);
			cg_analysis_free(a);
		}
	}
	cg_timeline_free(lenient);
	cg_timeline_free(strict);
	free(input);
	return 0;
}
