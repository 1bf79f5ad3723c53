/* libFuzzer target: the fast JSONL scanner against cJSON, the parser of
 * record. Any line the scanner accepts must give the fields cJSON gives;
 * the lines of one input share one scanner, as a trace's lines do.
 *   cmake -B build-fuzz -DCGMEM_FUZZ=ON -DCMAKE_C_COMPILER=clang
 *   cmake --build build-fuzz --target fuzz_jsonl
 *   build-fuzz/tests/fuzz/fuzz_jsonl tests/fuzz/corpus_jsonl */
#include <stdint.h>

#include "jsonl_diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static cg_jsonl_parser *fast, *ref;
	if (!fast) {
		fast = cg_jsonl_parser_new();
		ref = cg_jsonl_parser_new();
	}
	/* Each line of the input in turn, so the scanner learns line shapes
	 * from some and reads others by them. The parsers need a NUL after
	 * the line, as ingest provides. */
	const uint8_t *end = data + size;
	for (const uint8_t *at = data;;) {
		const uint8_t *nl = memchr(at, '\n', (size_t)(end - at));
		size_t len = (size_t)((nl ? nl : end) - at);
		char *line = malloc(len + 1);
		if (!line)
			return 0;
		if (len)
			memcpy(line, at, len);
		line[len] = '\0';
		int accepted;
		const char *why = jd_compare(fast, ref, line, len, &accepted);
		if (why) {
			fprintf(stderr, "fuzz_jsonl: %s\n", why);
			abort();
		}
		free(line);
		if (!nl)
			return 0;
		at = nl + 1;
	}
}
