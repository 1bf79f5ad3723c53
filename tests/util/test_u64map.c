/* The 64-bit key map (u64map.h) against a plain array of every key's value,
 * through random puts, takes and clears: removal shifts the keys after a
 * hole back, and each must stay reachable, across the table's wrap too. */
#include "testutil.h"

#include <string.h>

#include "u64map.h"

#define KEYS 600

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Keys far apart and close together: small numbers, and the same numbers
 * with the top bit set (packed tensor ids have it). */
static uint64_t key_of(unsigned k)
{
	return k % 2 ? (uint64_t)k : (uint64_t)k | (UINT64_C(1) << 63);
}

static void random_operations_match_a_plain_array(void **state)
{
	(void)state;
	uint32_t want[KEYS + 1];
	uint64_t x = 0x9E3779B97F4A7C15ull;
	cg_u64map m = {0};
	for (int round = 0; round < 4; round++) {
		memset(want, 0, sizeof want);
		cg_u64map_clear(&m);
		/* few keys live at a time in some rounds, many in others */
		unsigned span = round % 2 ? KEYS : 40;
		for (int op = 0; op < 200000; op++) {
			unsigned k = 1 + (unsigned)(rnd(&x) % span);
			switch (rnd(&x) % 3) {
			case 0: {
				uint32_t *v = cg_u64map_slot(&m, key_of(k));
				assert_int_equal(*v, want[k]);
				*v = want[k] = (uint32_t)(rnd(&x) % 1000) + 1;
				break;
			}
			case 1:
				assert_int_equal(cg_u64map_take(&m, key_of(k)), want[k]);
				want[k] = 0;
				break;
			default:
				assert_int_equal(cg_u64map_get(&m, key_of(k)), want[k]);
			}
		}
		size_t live = 0;
		for (unsigned k = 1; k <= KEYS; k++) {
			assert_int_equal(cg_u64map_get(&m, key_of(k)), want[k]);
			live += want[k] != 0;
		}
		assert_int_equal(m.used, live);
	}
	cg_u64map_free(&m);
	/* an empty map answers, and taking from it changes nothing */
	assert_int_equal(cg_u64map_take(&m, 5), 0);
	assert_int_equal(cg_u64map_get(&m, 5), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_operations_match_a_plain_array),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
