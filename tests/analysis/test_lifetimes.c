/* Lifetimes pass: log-scaled lifetime buckets per category, temporaries,
 * and what has no lifetime (never freed, allocated before the trace). */
#include "tlbuild.h"

#include "lifetimes.h"

#define A CG_ALLOC
#define F CG_FREE

static void buckets_have_four_per_decade_with_exact_integer_edges(void **state)
{
	/* bucket 0: 0 ns; bucket b: [ceil(10^((b-1)/4)), ceil(10^(b/4))) */
	assert_int_equal(cg_lifetime_bucket(0), 0);
	assert_int_equal(cg_lifetime_bucket(1), 1);	/* [1, 2) */
	assert_int_equal(cg_lifetime_bucket(2), 2);	/* [2, 4): 10^0.25 = 1.78 */
	assert_int_equal(cg_lifetime_bucket(3), 2);
	assert_int_equal(cg_lifetime_bucket(4), 3);	/* [4, 6): 10^0.5 = 3.16 */
	assert_int_equal(cg_lifetime_bucket(9), 4);	/* [6, 10): 10^0.75 = 5.62 */
	assert_int_equal(cg_lifetime_bucket(10), 5);	/* [10, 18) */
	assert_int_equal(cg_lifetime_bucket(17), 5);
	assert_int_equal(cg_lifetime_bucket(18), 6);	/* 10^1.25 = 17.78 */
	assert_int_equal(cg_lifetime_bucket(999), 12);
	assert_int_equal(cg_lifetime_bucket(1000), 13);
	assert_int_equal(cg_lifetime_bucket(1000000000), 37); /* 1 s */
	assert_int_equal(cg_lifetime_bucket(UINT64_MAX), CG_LIFETIME_BUCKETS - 1);
	assert_int_equal(cg_lifetime_bucket_lower(0), 0);
	assert_int_equal(cg_lifetime_bucket_upper(0), 1);
	assert_int_equal(cg_lifetime_bucket_lower(5), 10);
	assert_int_equal(cg_lifetime_bucket_upper(5), 18);
	assert_int_equal(cg_lifetime_bucket_lower(37), 1000000000);
	assert_int_equal(cg_lifetime_bucket_upper(CG_LIFETIME_BUCKETS - 1), UINT64_MAX);
	for (unsigned b = 1; b < CG_LIFETIME_BUCKETS; b++) {
		assert_int_equal(cg_lifetime_bucket(cg_lifetime_bucket_lower(b)), b);
		assert_int_equal(cg_lifetime_bucket(cg_lifetime_bucket_lower(b) - 1), b - 1);
	}
}

static uint64_t cell_count(const cg_lifetimes_device *d, cg_category c, unsigned b)
{
	for (size_t i = 0; i < d->ncells; i++)
		if (d->cells[i].category == c && d->cells[i].bucket == b)
			return d->cells[i].count;
	return 0;
}

static void lifetimes_are_bucketed_per_category(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "op", NULL, "aten::mm", 100, 200, CG_PHASE_NONE);
	tu_span(tl, "op2", NULL, "aten::add", 300, 310, CG_PHASE_NONE);
	tu_mem(tl, 100, "t", "op", "cuda:0", 64, A, CG_CAT_TEMPORARY, NULL);	/* lives 50 ns: freed inside its span */
	tu_mem(tl, 150, "t", "op", "cuda:0", 64, F, CG_CAT_TEMPORARY, NULL);
	tu_mem(tl, 101, "o", "op", "cuda:0", 32, A, CG_CAT_ACTIVATION, NULL); /* lives 1000 ns: outlives its span */
	tu_mem(tl, 1101, "o", NULL, "cuda:0", 32, F, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 102, "p", "op", "cuda:0", 8, A, CG_CAT_ACTIVATION, NULL);	/* lives 57 ns */
	tu_mem(tl, 159, "p", "op", "cuda:0", 8, F, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 300, "q", "op2", "cuda:0", 16, A, CG_CAT_TEMPORARY, NULL); /* 0 ns, ends at its span's end */
	tu_mem(tl, 300, "q", "op2", "cuda:0", 16, F, CG_CAT_TEMPORARY, NULL);
	tu_mem(tl, 400, "r", NULL, "cuda:0", 4, A, CG_CAT_GRADIENT, NULL);	/* no span: never a temporary */
	tu_mem(tl, 405, "r", NULL, "cuda:0", 4, F, CG_CAT_GRADIENT, NULL);
	tu_mem(tl, 500, "w", NULL, "cuda:0", 1000, A, CG_CAT_PARAMETER, NULL); /* never freed */
	tu_mem(tl, 600, "old", NULL, "cuda:0", 77, F, CG_CAT_INPUT, NULL);	/* from before the trace */
	tu_tl_finalize(tl);
	cg_lifetimes_result *r;
	assert_int_equal(cg_lifetimes_run(&r, tl, 0, NULL), 0);
	const cg_lifetimes_device *d = &r->devices[0];
	assert_true(d->available);
	/* 50 ns: [32, 57) is bucket 7; 57 ns: [57, 100) bucket 8; 1000 ns: bucket 13; 5 ns: [4, 6) bucket 3 */
	assert_int_equal(cell_count(d, CG_CAT_TEMPORARY, 7), 1);
	assert_int_equal(cell_count(d, CG_CAT_ACTIVATION, 8), 1);
	assert_int_equal(cell_count(d, CG_CAT_ACTIVATION, 13), 1);
	assert_int_equal(cell_count(d, CG_CAT_TEMPORARY, 0), 1);
	assert_int_equal(cell_count(d, CG_CAT_GRADIENT, 3), 1);
	assert_int_equal(d->ncells, 5);
	assert_int_equal(d->ended_count, 5);
	assert_int_equal(d->ended_bytes, 64 + 32 + 8 + 16 + 4);
	assert_int_equal(d->never_freed_count, 1);
	assert_int_equal(d->never_freed_bytes, 1000);
	assert_int_equal(d->before_trace_count, 1);
	assert_int_equal(d->before_trace_bytes, 77);
	/* temporaries: t, p and q were freed before their span ended */
	assert_int_equal(d->temporaries_count, 3);
	assert_int_equal(d->temporaries_bytes, 64 + 8 + 16);
	assert_int_equal(d->temporaries_count_by_category[CG_CAT_TEMPORARY], 2);
	assert_int_equal(d->temporaries_bytes_by_category[CG_CAT_ACTIVATION], 8);
	cg_lifetimes_free(r);
	cg_timeline_free(tl);
}

static void without_pairing_lifetimes_are_not_known(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tl->source.pairing_known = false;
	tu_mem(tl, 1, "a", NULL, "cuda:0", 10, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 2, "a", NULL, "cuda:0", 10, F, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	cg_lifetimes_result *r;
	cg_lifetimes_run(&r, tl, 0, NULL);
	assert_false(r->devices[0].available);
	assert_int_equal(r->devices[0].ncells, 0);
	assert_int_equal(r->devices[0].ended_count, 0);
	cg_lifetimes_free(r);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buckets_have_four_per_decade_with_exact_integer_edges),
		cmocka_unit_test(lifetimes_are_bucketed_per_category),
		cmocka_unit_test(without_pairing_lifetimes_are_not_known),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
