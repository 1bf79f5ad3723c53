/* Overflow-checked arithmetic (checked.h) at its limits: true and the exact
 * result when it fits, false when it does not, by one either side. */
#include "testutil.h"

#include "checked.h"

static void u64_addition_fits_up_to_the_maximum(void **state)
{
	uint64_t r = 1;
	assert_true(cg_add_u64(0, 0, &r));
	assert_int_equal(r, 0);
	assert_true(cg_add_u64(UINT64_MAX, 0, &r));
	assert_int_equal(r, UINT64_MAX);
	assert_true(cg_add_u64(UINT64_MAX - 1, 1, &r));
	assert_int_equal(r, UINT64_MAX);
	/* 2^63 + (2^63 - 1) = 2^64 - 1 fits; 2^63 + 2^63 = 2^64 does not */
	assert_true(cg_add_u64(1ull << 63, (1ull << 63) - 1, &r));
	assert_int_equal(r, UINT64_MAX);
	assert_false(cg_add_u64(1ull << 63, 1ull << 63, &r));
	assert_false(cg_add_u64(UINT64_MAX, 1, &r));
	assert_false(cg_add_u64(1, UINT64_MAX, &r));
	assert_false(cg_add_u64(UINT64_MAX, UINT64_MAX, &r));
}

static void u64_multiplication_fits_up_to_the_maximum(void **state)
{
	uint64_t r = 1;
	assert_true(cg_mul_u64(UINT64_MAX, 0, &r));
	assert_int_equal(r, 0);
	assert_true(cg_mul_u64(0, UINT64_MAX, &r));
	assert_int_equal(r, 0);
	assert_true(cg_mul_u64(UINT64_MAX, 1, &r));
	assert_int_equal(r, UINT64_MAX);
	/* 2^64 - 1 = 3 * 0x5555555555555555 */
	assert_true(cg_mul_u64(0x5555555555555555ull, 3, &r));
	assert_int_equal(r, UINT64_MAX);
	assert_false(cg_mul_u64(0x5555555555555556ull, 3, &r));
	/* 2^32 * (2^32 - 1) = 2^64 - 2^32 fits; 2^32 * 2^32 does not */
	assert_true(cg_mul_u64(1ull << 32, (1ull << 32) - 1, &r));
	assert_int_equal(r, UINT64_MAX - ((1ull << 32) - 1));
	assert_false(cg_mul_u64(1ull << 32, 1ull << 32, &r));
	assert_false(cg_mul_u64(UINT64_MAX, 2, &r));
}

static void size_arithmetic_fits_up_to_size_max(void **state)
{
	size_t r = 1;
	assert_true(cg_add_size(SIZE_MAX - 1, 1, &r));
	assert_int_equal(r, SIZE_MAX);
	assert_false(cg_add_size(SIZE_MAX, 1, &r));
	assert_true(cg_add_size(0, 0, &r));
	assert_int_equal(r, 0);
	assert_true(cg_mul_size(SIZE_MAX / 2, 2, &r));
	assert_int_equal(r, SIZE_MAX - 1);
	assert_false(cg_mul_size(SIZE_MAX / 2 + 1, 2, &r));
	assert_true(cg_mul_size(SIZE_MAX, 0, &r));
	assert_int_equal(r, 0);
	assert_true(cg_mul_size(SIZE_MAX, 1, &r));
	assert_int_equal(r, SIZE_MAX);
}

static void the_result_may_be_an_operand(void **state)
{
	/* callers sum in place: cg_add_u64(x, b, &x) */
	uint64_t x = 5;
	assert_true(cg_add_u64(x, 7, &x));
	assert_int_equal(x, 12);
	assert_true(cg_mul_u64(x, x, &x));
	assert_int_equal(x, 144);
	size_t s = 9;
	assert_true(cg_mul_size(s, 3, &s));
	assert_int_equal(s, 27);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(u64_addition_fits_up_to_the_maximum),
		cmocka_unit_test(u64_multiplication_fits_up_to_the_maximum),
		cmocka_unit_test(size_arithmetic_fits_up_to_size_max),
		cmocka_unit_test(the_result_may_be_an_operand),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
