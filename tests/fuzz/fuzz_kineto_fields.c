/* libFuzzer target: the scan of a Kineto event (kineto_fields.c) against
 * cJSON's tree. Any event text the scan accepts must be an object to cJSON
 * and give the same fields, each of the same type with the same bytes.
 *   cmake -B build-fuzz -DCGMEM_FUZZ=ON -DCMAKE_C_COMPILER=clang
 *   cmake --build build-fuzz --target fuzz_kineto_fields
 *   build-fuzz/tests/fuzz/fuzz_kineto_fields tests/fuzz/corpus_kineto_fields */
#include <stdint.h>

#include "kineto_fields_diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* its own copy, so that reading past the end is caught */
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	if (size)
		memcpy(text, data, size);
	int accepted;
	const char *why = kfd_compare(text, size, &accepted);
	if (why) {
		fprintf(stderr, "fuzz_kineto_fields: %s\n", why);
		abort();
	}
	free(text);
	return 0;
}
