/* Tensor ids packed into numbers (tensorid.h): a spelling packs exactly
 * when it is the one way of writing its address and number and they fit
 * the layout its alignment gives, and a packed id reads back as written.
 * The rule is checked against a plain restatement of it with strtoull and
 * snprintf, on random spellings near the form and on every layout's edges. */
#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorid.h"

/* The rule written plainly: 1-12 hex digits, '#', 1-8 digits, each the
 * canonical spelling of its number; the address below 2^47; the number
 * below 2^14, 2^20, 2^23 or 2^26 as the address is aligned to 1, 64, 512
 * or 4096 bytes. */
static bool packs(const char *s)
{
	const char *hash = strchr(s, '#');
	if (!hash || hash == s || hash - s > 12 || !hash[1] || strlen(hash + 1) > 8)
		return false;
	if (strspn(s, "0123456789abcdef") != (size_t)(hash - s) || strspn(hash + 1, "0123456789") != strlen(hash + 1))
		return false;
	uint64_t addr = strtoull(s, NULL, 16), seq = strtoull(hash + 1, NULL, 10);
	char again[64];
	snprintf(again, sizeof again, "%" PRIx64 "#%" PRIu64, addr, seq);
	if (strcmp(again, s) != 0 || addr >= (UINT64_C(1) << 47))
		return false;
	unsigned bits = addr % 4096 == 0 ? 26 : addr % 512 == 0 ? 23 : addr % 64 == 0 ? 20 : 14;
	return seq < (UINT64_C(1) << bits);
}

static void check(const char *s)
{
	cg_tensor_id t;
	bool got = cg_tensor_id_pack(s, strlen(s), &t);
	if (got != packs(s))
		fail_msg("\"%s\": packed %d, the rule says %d", s, got, !got);
	if (!got)
		return;
	assert_false(cg_tensor_id_is_str(t));
	char buf[CG_TENSOR_ID_BUF];
	size_t n = cg_tensor_id_format(t, buf);
	assert_int_equal(n, strlen(s));
	assert_string_equal(buf, s);
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void random_spellings_pack_as_the_rule_says(void **state)
{
	(void)state;
	/* the form's characters and those just outside its ranges */
	static const char alphabet[] = "0123456789abcdef#0000F-/:`gG@x";
	uint64_t x = 88172645463325252ull;
	char s[64]; /* "%" PRIx64 "#%" PRIu64 is at most 37 */
	for (int k = 0; k < 300000; k++) {
		/* mostly the form, with a character changed now and then */
		uint64_t addr = rnd(&x) >> (rnd(&x) % 64), seq = rnd(&x) >> (rnd(&x) % 64);
		if (rnd(&x) % 2)
			addr &= ~((UINT64_C(1) << (rnd(&x) % 14)) - 1);
		int n = snprintf(s, sizeof s, "%" PRIx64 "#%" PRIu64, addr, seq);
		if (rnd(&x) % 4 == 0)
			s[rnd(&x) % (uint64_t)n] = alphabet[rnd(&x) % (sizeof alphabet - 1)];
		if (rnd(&x) % 8 == 0)
			s[rnd(&x) % (uint64_t)n + 1] = '\0';
		check(s);
	}
}

/* Each layout at the largest number it holds and one past it, at the
 * largest address of its alignment and the smallest above zero. */
static void every_layout_holds_its_range_and_no_more(void **state)
{
	(void)state;
	static const unsigned align[] = {0, 6, 9, 12}, bits[] = {14, 20, 23, 26};
	char s[64];
	for (int l = 0; l < 4; l++) {
		uint64_t top = ((UINT64_C(1) << 47) - 1) & ~((UINT64_C(1) << align[l]) - 1);
		uint64_t low = UINT64_C(1) << align[l];
		uint64_t most = (UINT64_C(1) << bits[l]) - 1;
		const uint64_t addrs[] = {top, low, top - low};
		for (int a = 0; a < 3; a++)
			for (uint64_t seq = most - 1; seq <= most + 1; seq++) {
				snprintf(s, sizeof s, "%" PRIx64 "#%" PRIu64, addrs[a], seq);
				check(s);
				cg_tensor_id t;
				assert_int_equal(cg_tensor_id_pack(s, strlen(s), &t), seq <= most);
			}
	}
	check("0#0");
	check("0#67108863");
	check("0#67108864");
	check("800000000000#0");
}

/* Distinct spellings, distinct ids: the ids pairing compares. */
static void different_spellings_never_share_an_id(void **state)
{
	(void)state;
	const char *s[] = {"0#0", "0#1", "1#0", "40#0", "200#0", "1000#0", "1000#1", "fff#4095", "1#16383",
			   "40#1048575", "200#8388607", "1000#67108863", "7ffffffff000#0", "7ffffffffe00#0"};
	size_t n = sizeof s / sizeof s[0];
	cg_tensor_id t[sizeof s / sizeof s[0]];
	for (size_t i = 0; i < n; i++)
		assert_true(cg_tensor_id_pack(s[i], strlen(s[i]), &t[i]));
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (cg_tensor_id_eq(t[i], t[j]))
				fail_msg("\"%s\" and \"%s\" share an id", s[i], s[j]);
	/* a string's id is never a packed one, and the empty string is a zeroed id */
	assert_true(cg_tensor_id_is_str(cg_tensor_id_str(UINT32_MAX)));
	assert_true(cg_tensor_id_empty((cg_tensor_id){0}));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_spellings_pack_as_the_rule_says),
		cmocka_unit_test(every_layout_holds_its_range_and_no_more),
		cmocka_unit_test(different_spellings_never_share_an_id),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
