/* libFuzzer target: the two readers of a snapshot's trace entries, the
 * fast path (pickle_fast.c) and the general unpickler, on any input (a
 * pickle PROTO header is put in front of inputs that lack one).
 * They must give the same result code, the same error message and, on
 * success, the same timeline field by field (snap_digest.h); anything
 * else aborts.
 *   build-fuzz/tests/fuzz/fuzz_snapshot_paths tests/fuzz/corpus_snapshot_paths */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snap_digest.h"
#include "snapshot_ingest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int read_one(const uint8_t *data, size_t size, cg_snap_parser parser, cg_error *err, snap_digest *g)
{
	cg_reader *r;
	if (cg_reader_open_memory(&r, data, size, "fuzz.pickle", NULL, err) < 0)
		return -1000;
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	o.max_string_bytes = 8 << 20;
	o.threads = 1;
	o.stack_full = size & 1;
	cg_timeline *tl;
	int rc = cg_snapshot_ingest_with(&tl, r, "fuzz.pickle", &o, parser, NULL, err);
	cg_reader_close(r);
	if (rc == 0) {
		snap_digest_of(g, tl);
		cg_timeline_free(tl);
	}
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = NULL;
	if (size < 2 || data[0] != 0x80) {
		buf = malloc(size + 2);
		if (!buf)
			return 0;
		buf[0] = 0x80;
		buf[1] = 4;
		memcpy(buf + 2, data, size);
		data = buf;
		size += 2;
	}
	cg_error ef = CG_ERROR_INIT, eg = CG_ERROR_INIT;
	snap_digest f = {0}, g = {0};
	int rf = read_one(data, size, CG_SNAP_PARSER_FAST, &ef, &f);
	int rg = read_one(data, size, CG_SNAP_PARSER_GENERAL, &eg, &g);
	if (rf != rg || strcmp(ef.msg, eg.msg) != 0) {
		fprintf(stderr, "fast: %d \"%s\"\ngeneral: %d \"%s\"\n", rf, ef.msg, rg, eg.msg);
		abort();
	}
	if (f.n != g.n || (f.n && memcmp(f.d, g.d, f.n) != 0)) {
		fprintf(stderr, "the timelines differ\n");
		abort();
	}
	free(f.d);
	free(g.d);
	free(buf);
	return 0;
}
