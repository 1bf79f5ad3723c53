/* The verdicts of `cgmem check` as text (check_text.h): one line per
 * verdict, "ok" or "FAIL", the limit's option, the device, the measured
 * value and the limit; sizes as "15.44 MiB (16,190,672 B)"; the line for
 * a fragmentation that is unknown; growth with and without the device in
 * the baseline; a CPU's fragmentation, which does not apply: "n/a" with
 * the reason, as the JSON's verdict (cg_check_outcome_of). */
#include "tlbuild.h"

#include <string.h>

#include "analysis.h"
#include "check.h"
#include "check_text.h"
#include "sink.h"

#define MIB 1048576ull

/* The text for verdicts v[0..n) judged against l; caller frees. */
static char *text_of(cg_check_verdict *v, size_t n, const cg_check_limits *l)
{
	size_t failed = 0;
	for (size_t i = 0; i < n; i++)
		failed += !v[i].ok;
	cg_check_result r = {v, n, failed};
	cg_sink *s = cg_sink_memory();
	cg_check_text_write(s, &r, l);
	char *t = strdup(cg_sink_data(s, NULL));
	assert_int_equal(cg_sink_close(s, NULL), 0);
	return t;
}

static size_t lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void sizes_are_shown_in_binary_units_and_exact_bytes(void **state)
{
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.peak = l.leaked = true;
	l.max_peak = 12 * MIB;	/* 12,582,912 B */
	l.max_leaked = 512;	/* exact already: no bytes in brackets */
	cg_check_verdict v[3] = {
		/* 16,190,672 B / 2^20 = 15.4406... MiB */
		{.kind = CG_CHECK_PEAK, .device = "cpu", .ok = false, .measured = true, .bytes = 16190672},
		{.kind = CG_CHECK_PEAK, .device = "cuda:0", .ok = true, .measured = true, .bytes = 1024},
		{.kind = CG_CHECK_LEAKED, .device = "cpu", .ok = false, .measured = true, .bytes = 1000},
	};
	char *t = text_of(v, 3, &l);
	assert_string_equal(t, "FAIL  max-peak cpu: 15.44 MiB (16,190,672 B) > 12.00 MiB (12,582,912 B)\n"
			       "ok    max-peak cuda:0: 1.00 KiB (1,024 B) <= 12.00 MiB (12,582,912 B)\n"
			       "FAIL  max-leaked cpu: 1000 B > 512 B\n");
	free(t);
}

static void fragmentation_says_where_it_was_measured_or_why_not(void **state)
{
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.fragmentation = true;
	l.max_fragmentation = 0.3;
	cg_check_verdict v[3] = {
		/* (22 - 15) / 22 = 0.318181... at a checkpoint at 1 µs */
		{.kind = CG_CHECK_FRAGMENTATION, .device = "cuda:0", .ok = false, .measured = true, .value = 7.0 / 22.0,
		 .t_ns = 1000, .source = CG_FRAG_CHECKPOINT},
		{.kind = CG_CHECK_FRAGMENTATION, .device = "cuda:1", .ok = true, .measured = true, .value = 0.125,
		 .t_ns = 4000, .source = CG_FRAG_REPLAY},
		{.kind = CG_CHECK_FRAGMENTATION, .device = "cuda:2", .ok = true, .measured = false,
		 .source = CG_FRAG_UNKNOWN},
	};
	char *t = text_of(v, 3, &l);
	assert_string_equal(t, "FAIL  max-fragmentation cuda:0: 0.318182 (largest at a checkpoint at 1 \xc2\xb5s) > 0.3\n"
			       "ok    max-fragmentation cuda:1: 0.125 (estimated by the allocator replay at 4 \xc2\xb5s) <= 0.3\n"
			       "n/a   max-fragmentation cuda:2: unknown, limit 0.3 (no checkpoint records reserved bytes "
			       "and the allocator replay is not available)\n");
	free(t);
}

/* The bug of issue 19: a CPU's fragmentation (not applicable, holds) was
 * printed "FAIL ... unknown" while the JSON said ok and the exit was 0. */
static void a_limit_that_does_not_apply_is_na_with_its_reason(void **state)
{
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.fragmentation = true;
	l.max_fragmentation = 0.3;
	cg_check_verdict v = {.kind = CG_CHECK_FRAGMENTATION, .device = "cpu", .ok = true, .measured = false,
			      .source = CG_FRAG_NOT_APPLICABLE};
	char *t = text_of(&v, 1, &l);
	assert_string_equal(t, "n/a   max-fragmentation cpu: not applicable, limit 0.3 (a CPU has no caching "
			       "allocator and no checkpoint records reserved bytes)\n");
	free(t);
	assert_int_equal(cg_check_outcome_of(&v), CG_CHECK_NOT_APPLICABLE);
	assert_string_equal(cg_check_outcome_word(CG_CHECK_NOT_APPLICABLE), "n/a");

	/* judged on a hand-built run on "cpu": no checkpoints, a CPU */
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 10, "a", NULL, "cpu", 4096, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	l.peak = true;
	l.max_peak = 4095;
	cg_check_result *r;
	assert_int_equal(cg_check_run(&r, a, NULL, &l, NULL), 0);
	cg_sink *s = cg_sink_memory();
	cg_check_text_write(s, r, &l);
	assert_string_equal(cg_sink_data(s, NULL),
			    "FAIL  max-peak cpu: 4.00 KiB (4,096 B) > 4.00 KiB (4,095 B)\n" /* 4095 / 1024 = 3.999 */
			    "n/a   max-fragmentation cpu: not applicable, limit 0.3 (a CPU has no caching "
			    "allocator and no checkpoint records reserved bytes)\n");
	assert_int_equal(r->failed, 1);
	assert_int_equal(cg_sink_close(s, NULL), 0);
	cg_check_free(r);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

static void growth_is_a_signed_percentage_and_unbounded_without_the_baseline_device(void **state)
{
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.growth = true;
	l.max_growth_millionths = 2500000; /* 2.5 % */
	cg_check_verdict v[4] = {
		/* 1024 B -> 1424 B: +400 / 1024 = +39.0625 %; 1424 / 1024 = 1.39 KiB */
		{.kind = CG_CHECK_GROWTH, .device = "cpu", .ok = false, .measured = true, .bytes = 1424,
		 .value = 39.0625, .base_bytes = 1024, .in_baseline = true},
		/* 2 KiB -> 1 KiB: -50 % */
		{.kind = CG_CHECK_GROWTH, .device = "cuda:0", .ok = true, .measured = true, .bytes = 1024,
		 .value = -50, .base_bytes = 2048, .in_baseline = true},
		/* a device the baseline does not have: from 0 B, unbounded */
		{.kind = CG_CHECK_GROWTH, .device = "cuda:1", .ok = false, .measured = true, .bytes = 64,
		 .base_bytes = 0, .in_baseline = false, .unbounded = true},
		/* in the baseline with a peak of 0 B: unbounded too, no note */
		{.kind = CG_CHECK_GROWTH, .device = "cuda:2", .ok = false, .measured = true, .bytes = 8,
		 .base_bytes = 0, .in_baseline = true, .unbounded = true},
	};
	char *t = text_of(v, 4, &l);
	assert_string_equal(t, "FAIL  max-growth cpu: +39.0625 % (1.00 KiB -> 1.39 KiB) > 2.5 %\n"
			       "ok    max-growth cuda:0: -50 % (2.00 KiB -> 1.00 KiB) <= 2.5 %\n"
			       "FAIL  max-growth cuda:1: unbounded (0 B -> 64 B) > 2.5 % (not in the baseline)\n"
			       "FAIL  max-growth cuda:2: unbounded (0 B -> 8 B) > 2.5 %\n");
	free(t);
	/* the limit in millionths of a percent, without trailing zeros */
	static const struct {
		uint64_t millionths;
		const char *text;
	} limits[] = {{10000000, "10 %"}, {1, "0.000001 %"}, {0, "0 %"}, {12345678, "12.345678 %"}, {100000, "0.1 %"}};
	for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
		l.max_growth_millionths = limits[i].millionths;
		t = text_of(v, 1, &l);
		char want[128];
		snprintf(want, sizeof want, "> %s\n", limits[i].text);
		size_t n = strlen(t), w = strlen(want);
		assert_true(n >= w);
		assert_string_equal(t + n - w, want);
		free(t);
	}
}

static void no_verdicts_write_nothing(void **state)
{
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	char *t = text_of(NULL, 0, &l);
	assert_string_equal(t, "");
	free(t);
}

/* A run on "cpu" whose peak is one never-freed activation of `bytes`. */
static cg_timeline *one_allocation(uint64_t bytes)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 10, "a", NULL, "cpu", bytes, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	return tl;
}

static void a_check_of_a_hand_built_run_gives_one_line_per_limit(void **state)
{
	/* peak 16,190,672 B against 12 MiB; the same bytes leaked (an
	 * activation live at the end) against 16 MiB; growth from a baseline
	 * of 8 MiB: (16,190,672 - 8,388,608) / 8,388,608 = +93.0079 % */
	cg_timeline *tl = one_allocation(16190672), *btl = one_allocation(8 * MIB);
	cg_analysis *a, *b;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	assert_int_equal(cg_analysis_run(&b, btl, NULL, NULL), 0);
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	l.peak = l.leaked = l.growth = true;
	l.max_peak = 12 * MIB;
	l.max_leaked = 16 * MIB;
	l.max_growth_millionths = 100000000; /* 100 % */
	cg_check_result *r;
	assert_int_equal(cg_check_run(&r, a, b, &l, NULL), 0);
	cg_sink *s = cg_sink_memory();
	cg_check_text_write(s, r, &l);
	const char *t = cg_sink_data(s, NULL);
	assert_int_equal(lines(t), r->n);
	assert_string_equal(t, "FAIL  max-peak cpu: 15.44 MiB (16,190,672 B) > 12.00 MiB (12,582,912 B)\n"
			       "ok    max-leaked cpu: 15.44 MiB (16,190,672 B) <= 16.00 MiB (16,777,216 B)\n"
			       "ok    max-growth cpu: +93.0079 % (8.00 MiB -> 15.44 MiB) <= 100 %\n");
	assert_int_equal(cg_sink_close(s, NULL), 0);
	cg_check_free(r);
	cg_analysis_free(a);
	cg_analysis_free(b);
	cg_timeline_free(tl);
	cg_timeline_free(btl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sizes_are_shown_in_binary_units_and_exact_bytes),
		cmocka_unit_test(fragmentation_says_where_it_was_measured_or_why_not),
		cmocka_unit_test(a_limit_that_does_not_apply_is_na_with_its_reason),
		cmocka_unit_test(growth_is_a_signed_percentage_and_unbounded_without_the_baseline_device),
		cmocka_unit_test(no_verdicts_write_nothing),
		cmocka_unit_test(a_check_of_a_hand_built_run_gives_one_line_per_limit),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
