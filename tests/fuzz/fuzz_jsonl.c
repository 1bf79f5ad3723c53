/* libFuzzer target: the fast JSONL scanner against cJSON, the parser of
 * record. Any line the scanner accepts must give the fields cJSON gives.
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
	/* The parsers need a NUL after the line, as ingest provides. */
	char *line = malloc(size + 1);
	if (!line)
		return 0;
	if (size)
		memcpy(line, data, size);
	line[size] = '\0';
	int accepted;
	const char *why = jd_compare(fast, ref, line, size, &accepted);
	if (why) {
		fprintf(stderr, "fuzz_jsonl: %s\n", why);
		abort();
	}
	free(line);
	return 0;
}
