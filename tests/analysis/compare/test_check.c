/* Limits on a run (cg_check_run): every limit holding at its exact figure
 * and failing one unit below it, devices judged one or all, growth against
 * a baseline (a device it lacks, a peak of 0, sizes whose products
 * overflow 64 bits), fragmentation without checkpoints, and the usage
 * errors. The command's lines and exit statuses are tested end to end in
 * tests/cli/test_check_cli.c, on the same runs.
 *
 * leaky (difftrace.h, cuda:0): w 100 B, then per step act 64 B and a 4 B
 * loss that is kept. Peak 100 + 64 + 3 * 4 = 176 B at t = 312; live at the
 * end 100 + 12: leaked 12 B (the parameter is no leak). Checkpoints
 * reserve 300 B at t = 120, 220, 320 where live is 168, 172, 176:
 * fragmentation 132/300 = 0.44 (the largest, at 120 ns), 0.4267, 0.4133.
 * base: the same run freeing its losses: peak 100 + 64 + 4 = 168 B at
 * t = 112. Growth (176 - 168) / 168 = 4.7619047... %. */
#include "tlbuild.h"

#include <string.h>

#include "analysis.h"
#include "check.h"
#include "difftrace.h"

typedef struct run {
	cg_timeline *tl;
	cg_analysis *a;
} run;

static run analyse(cg_timeline *tl)
{
	run r = {tl, NULL};
	assert_int_equal(cg_analysis_run(&r.a, tl, NULL, NULL), 0);
	return r;
}

static run dt_run(bool leaky)
{
	run_spec s = RUN_SPEC_INIT;
	s.loss = true;
	if (leaky) {
		s.keep_loss = true;
		s.reserved = 300;
	}
	return analyse(dt_timeline(&s));
}

/* cuda:0 peaks at 100 B (freed at the end), cuda:1 at 300 B; no spans, no checkpoints. */
static run two_devices(void)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 1, "a", NULL, "cuda:0", 100, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 2, "b", NULL, "cuda:1", 300, CG_ALLOC, CG_CAT_PARAMETER, NULL);
	tu_mem(tl, 3, "a", NULL, "cuda:0", 100, CG_FREE, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	return analyse(tl);
}

/* One device whose peak is a single allocation of bytes. */
static run one_alloc(const char *device, uint64_t bytes)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 1, "a", NULL, device, bytes, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	return analyse(tl);
}

static void release(run *r)
{
	cg_analysis_free(r->a);
	cg_timeline_free(r->tl);
}

static cg_check_result *check(const run *r, const run *baseline, const cg_check_limits *l)
{
	cg_check_result *res;
	cg_error err = CG_ERROR_INIT;
	if (cg_check_run(&res, r->a, baseline ? baseline->a : NULL, l, &err) != 0)
		fail_msg("check failed: %s", err.msg);
	return res;
}

/* All four limits; growth in millionths of a percent. */
static cg_check_limits all_limits(uint64_t peak, double fragmentation, uint64_t leaked, uint64_t growth)
{
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.peak = l.fragmentation = l.leaked = l.growth = true;
	l.max_peak = peak;
	l.max_fragmentation = fragmentation;
	l.max_leaked = leaked;
	l.max_growth_millionths = growth;
	return l;
}

/* Growth 4.7619047 %: 4.761905 % holds ((176 - 168) * 10^8 = 800,000,000
 * <= 4,761,905 * 168 = 800,000,040). */
static void every_limit_at_its_exact_figure_holds(void **state)
{
	run base = dt_run(false), leaky = dt_run(true);
	cg_check_limits l = all_limits(176, 0.44, 12, 4761905);
	cg_check_result *r = check(&leaky, &base, &l);
	assert_int_equal(r->n, 4);
	assert_int_equal(r->failed, 0);
	const cg_check_verdict *v = r->verdicts;
	for (int k = 0; k < CG_CHECK_KIND_COUNT; k++) {
		assert_int_equal(v[k].kind, k); /* in the order of the kinds */
		assert_string_equal(v[k].device, "cuda:0");
		assert_true(v[k].ok);
		assert_true(v[k].measured);
	}
	assert_int_equal(v[CG_CHECK_PEAK].bytes, 176);
	assert_int_equal(v[CG_CHECK_PEAK].t_ns, 312);
	assert_int_equal(v[CG_CHECK_FRAGMENTATION].source, CG_FRAG_CHECKPOINT);
	assert_true(v[CG_CHECK_FRAGMENTATION].value == 132.0 / 300.0);
	assert_int_equal(v[CG_CHECK_FRAGMENTATION].t_ns, 120);
	assert_int_equal(v[CG_CHECK_LEAKED].bytes, 12);
	assert_int_equal(v[CG_CHECK_GROWTH].bytes, 176);
	assert_int_equal(v[CG_CHECK_GROWTH].base_bytes, 168);
	assert_true(v[CG_CHECK_GROWTH].in_baseline);
	assert_false(v[CG_CHECK_GROWTH].unbounded);
	assert_true(v[CG_CHECK_GROWTH].value == 8.0 / 168.0 * 100.0);
	cg_check_free(r);
	release(&leaky);
	release(&base);
}

/* One unit below each: 175 B, 0.43, 11 B, 4.761904 % (4,761,904 * 168 =
 * 799,999,872 < 800,000,000). */
static void every_limit_one_unit_below_its_figure_fails(void **state)
{
	run base = dt_run(false), leaky = dt_run(true);
	cg_check_limits l = all_limits(175, 0.43, 11, 4761904);
	cg_check_result *r = check(&leaky, &base, &l);
	assert_int_equal(r->n, 4);
	assert_int_equal(r->failed, 4);
	for (size_t i = 0; i < r->n; i++) {
		assert_false(r->verdicts[i].ok);
		assert_true(r->verdicts[i].measured); /* known, and over the limit */
	}
	assert_int_equal(r->verdicts[CG_CHECK_PEAK].bytes, 176);
	assert_int_equal(r->verdicts[CG_CHECK_LEAKED].bytes, 12);
	cg_check_free(r);
	release(&leaky);
	release(&base);
}

static void only_the_limits_asked_for_are_judged(void **state)
{
	run leaky = dt_run(true);
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.leaked = true;
	l.max_leaked = 8;
	cg_check_result *r = check(&leaky, NULL, &l);
	assert_int_equal(r->n, 1);
	assert_int_equal(r->verdicts[0].kind, CG_CHECK_LEAKED);
	assert_false(r->verdicts[0].ok); /* 12 B > 8 B */
	assert_int_equal(r->failed, 1);
	cg_check_free(r);
	l = (cg_check_limits)CG_CHECK_LIMITS_INIT;
	r = check(&leaky, NULL, &l);
	assert_int_equal(r->n, 0);
	assert_int_equal(r->failed, 0);
	cg_check_free(r);
	release(&leaky);
}

static void every_device_is_judged_unless_one_is_named(void **state)
{
	run two = two_devices();
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.peak = true;
	l.max_peak = 200;
	cg_check_result *r = check(&two, NULL, &l);
	assert_int_equal(r->n, 2);
	assert_string_equal(r->verdicts[0].device, "cuda:0");
	assert_int_equal(r->verdicts[0].bytes, 100);
	assert_true(r->verdicts[0].ok);
	assert_string_equal(r->verdicts[1].device, "cuda:1");
	assert_int_equal(r->verdicts[1].bytes, 300);
	assert_false(r->verdicts[1].ok);
	assert_int_equal(r->failed, 1);
	cg_check_free(r);

	l.device = "cuda:1";
	r = check(&two, NULL, &l);
	assert_int_equal(r->n, 1);
	assert_string_equal(r->verdicts[0].device, "cuda:1");
	assert_int_equal(r->failed, 1);
	cg_check_free(r);
	release(&two);
}

static void a_device_the_run_lacks_or_growth_without_baseline_is_a_usage_error(void **state)
{
	run two = two_devices();
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.peak = true;
	l.max_peak = 200;
	l.device = "cuda:7";
	cg_check_result dummy, *r = &dummy; /* set to NULL on failure */
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_check_run(&r, two.a, NULL, &l, &err), CG_EUSAGE);
	assert_null(r);
	assert_string_equal(err.msg, "test.jsonl has no device named 'cuda:7'");
	/* a prefix of a name is not the name */
	l.device = "cuda";
	assert_int_equal(cg_check_run(&r, two.a, NULL, &l, NULL), CG_EUSAGE);

	l = (cg_check_limits)CG_CHECK_LIMITS_INIT;
	l.growth = true;
	l.max_growth_millionths = 5000000;
	r = &dummy;
	assert_int_equal(cg_check_run(&r, two.a, NULL, &l, &err), CG_EUSAGE);
	assert_null(r);
	assert_non_null(strstr(err.msg, "baseline"));
	release(&two);
}

/* two against base: cuda:0 from 168 B to 100 B is -68/168 = -40.476 %;
 * cuda:1 is not in the baseline: its growth has no bound. */
static void a_device_the_baseline_lacks_grew_without_bound(void **state)
{
	run base = dt_run(false), two = two_devices();
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.growth = true;
	l.max_growth_millionths = 5000000;
	cg_check_result *r = check(&two, &base, &l);
	assert_int_equal(r->n, 2);
	const cg_check_verdict *v = r->verdicts;
	assert_true(v[0].ok);
	assert_true(v[0].in_baseline);
	assert_int_equal(v[0].base_bytes, 168);
	assert_true(v[0].value == -(68.0 / 168.0 * 100.0));
	assert_false(v[1].ok);
	assert_false(v[1].in_baseline);
	assert_true(v[1].unbounded);
	assert_int_equal(v[1].base_bytes, 0);
	assert_int_equal(v[1].bytes, 300);
	assert_int_equal(r->failed, 1);
	cg_check_free(r);
	release(&two);
	release(&base);
}

/* A baseline device whose peak is 0: any growth is unbounded; no growth is 0 %. */
static void growth_from_a_peak_of_zero_is_unbounded(void **state)
{
	run zero = one_alloc("cuda:0", 0), some = one_alloc("cuda:0", 1);
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.growth = true;
	l.max_growth_millionths = UINT64_MAX;
	cg_check_result *r = check(&some, &zero, &l);
	assert_true(r->verdicts[0].in_baseline);
	assert_true(r->verdicts[0].unbounded);
	assert_false(r->verdicts[0].ok);
	cg_check_free(r);
	r = check(&zero, &zero, &l);
	assert_false(r->verdicts[0].unbounded);
	assert_true(r->verdicts[0].ok);
	assert_true(r->verdicts[0].value == 0.0);
	cg_check_free(r);
	release(&some);
	release(&zero);
}

/* Base 2^63 B, new 2^63 + 2^62 B: exactly 50 % growth, whose products
 * (2^62 * 10^8 and 5 * 10^7 * 2^63) overflow 64 bits. 50 % holds, one
 * millionth less fails. */
static void growth_is_judged_exactly_beyond_64_bit_products(void **state)
{
	run base = one_alloc("cuda:0", 1ull << 63), grown = one_alloc("cuda:0", (1ull << 63) + (1ull << 62));
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.growth = true;
	l.max_growth_millionths = 50000000;
	cg_check_result *r = check(&grown, &base, &l);
	assert_true(r->verdicts[0].ok);
	assert_true(r->verdicts[0].value == 50.0);
	cg_check_free(r);
	l.max_growth_millionths = 49999999;
	r = check(&grown, &base, &l);
	assert_false(r->verdicts[0].ok);
	cg_check_free(r);
	release(&grown);
	release(&base);

	/* 2^64 - 1 against 1 B: growth (2^64 - 2) * 100 %, over even the largest limit */
	base = one_alloc("cuda:0", 1);
	grown = one_alloc("cuda:0", UINT64_MAX);
	l.max_growth_millionths = UINT64_MAX;
	r = check(&grown, &base, &l);
	assert_false(r->verdicts[0].ok);
	assert_false(r->verdicts[0].unbounded);
	assert_int_equal(r->verdicts[0].bytes, UINT64_MAX);
	cg_check_free(r);
	release(&grown);
	release(&base);
}

/* Without checkpoints: the replay's estimate on a GPU, nothing on a CPU,
 * and n/a when neither can be known. */
static void fragmentation_without_checkpoints(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 1, "a", NULL, "cuda:0", 100, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 1, "b", NULL, "cpu", 100, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.fragmentation = true;
	l.max_fragmentation = 0.5;
	cg_check_result *r;
	assert_int_equal(cg_check_run(&r, a, NULL, &l, NULL), 0);
	assert_int_equal(r->n, 2);
	/* 100 B in a 2 MiB small-pool segment */
	assert_int_equal(r->verdicts[0].source, CG_FRAG_REPLAY);
	assert_true(r->verdicts[0].value == (2097152.0 - 100.0) / 2097152.0);
	assert_false(r->verdicts[0].ok);
	assert_int_equal(r->verdicts[1].source, CG_FRAG_NOT_APPLICABLE);
	assert_true(r->verdicts[1].ok);
	assert_int_equal(r->failed, 1);
	cg_check_free(r);
	cg_analysis_free(a);
	cg_timeline_free(tl);

	tl = tu_tl_new();
	tl->source.pairing_known = false;
	tu_mem(tl, 1, "a", NULL, "cuda:0", 100, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	assert_int_equal(cg_check_run(&r, a, NULL, &l, NULL), 0);
	assert_int_equal(r->verdicts[0].source, CG_FRAG_UNKNOWN);
	assert_false(r->verdicts[0].measured);
	/* a limit that cannot be judged is n/a, not a failure (issue 19) */
	assert_true(r->verdicts[0].ok);
	assert_int_equal(r->failed, 0);
	assert_int_equal(cg_check_outcome_of(&r->verdicts[0]), CG_CHECK_NOT_APPLICABLE);
	cg_check_free(r);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

/* The bytes judged are the leaks pass's candidates: the kept losses. */
static void leaked_bytes_are_the_leak_candidates(void **state)
{
	run leaky = dt_run(true);
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.leaked = true;
	l.max_leaked = UINT64_MAX;
	cg_check_result *r = check(&leaky, NULL, &l);
	assert_int_equal(r->verdicts[0].bytes, 12);
	assert_int_equal(leaky.a->leaks->devices[0].bytes, 12);
	assert_int_equal(leaky.a->leaks->devices[0].count, 3);
	cg_check_free(r);
	release(&leaky);
}

static void limits_are_named_by_their_options(void **state)
{
	assert_string_equal(cg_check_kind_name(CG_CHECK_PEAK), "max-peak");
	assert_string_equal(cg_check_kind_name(CG_CHECK_FRAGMENTATION), "max-fragmentation");
	assert_string_equal(cg_check_kind_name(CG_CHECK_LEAKED), "max-leaked");
	assert_string_equal(cg_check_kind_name(CG_CHECK_GROWTH), "max-growth");
	cg_check_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_limit_at_its_exact_figure_holds),
		cmocka_unit_test(every_limit_one_unit_below_its_figure_fails),
		cmocka_unit_test(only_the_limits_asked_for_are_judged),
		cmocka_unit_test(every_device_is_judged_unless_one_is_named),
		cmocka_unit_test(a_device_the_run_lacks_or_growth_without_baseline_is_a_usage_error),
		cmocka_unit_test(a_device_the_baseline_lacks_grew_without_bound),
		cmocka_unit_test(growth_from_a_peak_of_zero_is_unbounded),
		cmocka_unit_test(growth_is_judged_exactly_beyond_64_bit_products),
		cmocka_unit_test(fragmentation_without_checkpoints),
		cmocka_unit_test(leaked_bytes_are_the_leak_candidates),
		cmocka_unit_test(limits_are_named_by_their_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
