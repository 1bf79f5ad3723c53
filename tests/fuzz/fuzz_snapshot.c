/* libFuzzer target: the whole snapshot path. Any input is read as an
 * allocator snapshot (a pickle PROTO header is put in front of inputs that
 * lack one), then every analysis pass, summary.json, and the report's
 * document with its allocator-state sections.
 *   build-fuzz/tests/fuzz/fuzz_snapshot tests/fuzz/corpus_snapshot */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "ingest.h"
#include "report.h"
#include "sink.h"
#include "summary_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	o.max_string_bytes = 8 << 20;
	o.threads = 1;
	o.stack_full = size & 1;
	cg_timeline *tl;
	cg_error err;
	if (cg_ingest_memory(&tl, data, size, "fuzz.pickle", &o, &err) == 0) {
		cg_analysis_options ao = CG_ANALYSIS_OPTIONS_INIT;
		ao.threads = 1;
		cg_analysis *a;
		if (cg_analysis_run(&a, tl, &ao, &err) == 0) {
			cg_sink *s = cg_sink_memory();
			cg_summary_json_write(s, a, false);
			cg_sink_close(s, NULL);
			cg_doc_free(cg_report_build(a, NULL));
			cg_analysis_free(a);
		}
		cg_timeline_free(tl);
	}
	free(buf);
	return 0;
}
