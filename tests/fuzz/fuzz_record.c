/* libFuzzer target: JSONL lines through the record parser into a timeline,
 * then finalize and the peak, as ingest does with each line.
 *   build-fuzz/tests/fuzz/fuzz_record tests/fuzz/corpus_record
 * The input is split at newlines; each line is one record. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "finalize.h"
#include "jsonl.h"
#include "record.h"
#include "timeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static cg_jsonl_parser *parser;
	if (!parser)
		parser = cg_jsonl_parser_new();
	cg_timeline_limits lim = {.max_string_bytes = 1 << 20};
	cg_timeline *tl = cg_timeline_new(&lim);
	char *copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	uint32_t line = 1;
	for (char *p = copy, *end = copy + size; p <= end; line++) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		p[len] = '\0';
		const cg_fields *f;
		char msg[512];
		if (cg_jsonl_parse(parser, p, len, &f, msg, sizeof msg) == 0 &&
		    cg_record_add(tl, f, line, msg, sizeof msg) < 0)
			break; /* a limit: ingest stops there too */
		p += len + 1;
	}
	cg_error err;
	if (cg_timeline_finalize(tl, &err) == 0) {
		cg_analysis *a;
		if (cg_analysis_run(&a, tl, NULL, &err) == 0)
			cg_analysis_free(a);
	}
	cg_timeline_free(tl);
	free(copy);
	return 0;
}
