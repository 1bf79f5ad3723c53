/* cg_u64_decimal writes what "%" PRIu64 writes, at every length. */
#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>

#include "decimal.h"

static void check(uint64_t v)
{
	char want[32], got[CG_U64_DECIMAL_MAX + 1];
	snprintf(want, sizeof want, "%" PRIu64, v);
	char *end = cg_u64_decimal(got, v);
	*end = '\0';
	assert_string_equal(got, want);
}

static void every_length_and_its_edges(void **state)
{
	(void)state;
	check(0);
	check(UINT64_MAX);
	for (uint64_t p = 1; p <= UINT64_MAX / 10; p *= 10) {
		check(p - 1);
		check(p);
		check(p + 1);
		check(p * 10 - 1);
	}
	for (uint64_t v = 0; v < 1000; v++)
		check(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_length_and_its_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
