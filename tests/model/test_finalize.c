/* Finalize: from a timeline being built to one that is read (spans
 * resolved, memory sorted and paired, first_t_ns set), once; and the
 * baseline ingest sets afterwards. Lines are numbered from 2 in call order
 * (tlbuild.h). */
#include "tlbuild.h"

#include <string.h>

#include "finalize.h"

#define A CG_ALLOC
#define F CG_FREE

static void finalizing_twice_changes_nothing(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "r", NULL, "root", 0, UINT64_MAX, CG_PHASE_NONE);	/* never ends: an anomaly */
	tu_span(tl, "a", "r", "step", 5, 20, CG_PHASE_FORWARD);
	tu_mem(tl, 8, "x", "a", "gpu", 8, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 7, "y", "r", "cpu", 4, A, CG_CAT_INPUT, NULL);
	tu_mem(tl, 9, "x", "a", "gpu", 8, F, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 3, "z", NULL, "gpu", 2, F, CG_CAT_INPUT, NULL); /* from before the trace */
	tu_tl_finalize(tl);
	assert_true(tl->finalized);
	size_t nmem = tl->nmem, nspans = tl->nspans;
	cg_mem *mem = malloc(nmem * sizeof *mem);
	cg_span *spans = malloc(nspans * sizeof *spans);
	cg_device devs[2];
	memcpy(mem, tl->mem, nmem * sizeof *mem);
	memcpy(spans, tl->spans, nspans * sizeof *spans);
	memcpy(devs, tl->devices, sizeof devs);
	uint64_t counts[CG_ANOM_COUNT];
	for (int a = 0; a < CG_ANOM_COUNT; a++)
		counts[a] = tl->anomalies[a].count;

	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_timeline_finalize(tl, &err), 0);
	assert_int_equal(tl->nmem, nmem);
	assert_int_equal(tl->nspans, nspans);
	assert_memory_equal(tl->mem, mem, nmem * sizeof *mem);
	assert_memory_equal(tl->spans, spans, nspans * sizeof *spans);
	assert_memory_equal(tl->devices, devs, sizeof devs);
	for (int a = 0; a < CG_ANOM_COUNT; a++)
		assert_int_equal(tl->anomalies[a].count, counts[a]);
	assert_int_equal(tl->anomalies[CG_ANOM_SPAN_NEVER_ENDED].count, 1);
	assert_int_equal(tl->anomalies[CG_ANOM_FREE_BEFORE_TRACE].count, 1);
	free(mem);
	free(spans);
	cg_timeline_free(tl);
}

static void finalize_resolves_spans_and_pairs_memory(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "s", NULL, "root", 0, 100, CG_PHASE_BACKWARD); /* lines 2, 3 */
	tu_mem(tl, 20, "x", "s", "cpu", 8, F, CG_CAT_UNKNOWN, NULL);  /* line 4 */
	tu_mem(tl, 10, "x", "s", "cpu", 8, A, CG_CAT_GRADIENT, NULL); /* line 5: earlier */
	tu_tl_finalize(tl);
	/* in time order the alloc (line 5) comes first and pairs with the free */
	assert_int_equal(tl->mem[0].line, 5);
	assert_int_equal(tl->mem[0].pair, 1);
	assert_int_equal(tl->mem[1].pair, 0);
	assert_int_equal(tl->mem[1].category, CG_CAT_GRADIENT);
	assert_int_equal(tl->mem[0].span, 0);
	assert_int_equal(cg_timeline_mem_phase(tl, &tl->mem[1]), CG_PHASE_BACKWARD);
	assert_int_equal(tl->spans[0].end_ns, 100);
	assert_int_equal(tl->devices[0].live_at_end, 0);
	cg_timeline_free(tl);
}

static void first_and_last_times_span_every_record(void **state)
{
	/* earliest: the memory record at 40; latest: the op ending at 60 + 90 */
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "s", NULL, "root", 50, 120, CG_PHASE_NONE);
	tu_mem(tl, 40, "x", "s", "cpu", 8, A, CG_CAT_INPUT, NULL);
	tu_devmem(tl, 45, "cpu", 1, 2, UINT64_MAX);
	cg_op op = {0};
	op.t_ns = 60;
	op.duration_ns = 90;
	op.line = 100;
	assert_int_equal(cg_timeline_add_op(tl, &op, NULL, 0), 0);
	tu_tl_finalize(tl);
	assert_int_equal(tl->first_t_ns, 40);
	assert_int_equal(tl->last_t_ns, 150);
	cg_timeline_free(tl);
}

static void an_empty_timeline_starts_at_zero(void **state)
{
	/* no timed record: first_t_ns is 0, not the UINT64_MAX it is built with */
	cg_timeline *tl = tu_tl_new();
	assert_int_equal(tl->first_t_ns, UINT64_MAX);
	tu_gradient(tl, "model", "w", CG_GRAD_PRESENT, true, 1.5); /* gradients carry no time */
	tu_tl_finalize(tl);
	assert_true(tl->finalized);
	assert_int_equal(tl->first_t_ns, 0);
	assert_int_equal(tl->last_t_ns, 0);
	assert_int_equal(tl->ndevices, 0);
	cg_timeline_free(tl);
}

static void a_failed_finalize_reports_and_leaves_the_timeline_unfinalized(void **state)
{
	/* 2^63 + 2^63 live bytes; a NULL error is allowed */
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 1, "x", NULL, "cpu", 1ull << 63, A, CG_CAT_INPUT, NULL);
	tu_mem(tl, 2, "y", NULL, "cpu", 1ull << 63, A, CG_CAT_INPUT, NULL);
	assert_int_equal(cg_timeline_finalize(tl, NULL), CG_EINPUT);
	assert_false(tl->finalized);
	cg_timeline_free(tl);
}

/* cpu: "p" freed at 1 (50 B from before the trace, line 2), "x" allocated
 * at 2 (100 B, line 3). Live: 50 at the start, 0 after p, 100 at the end. */
static cg_timeline *baseline_timeline(void)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 1, "p", NULL, "cpu", 50, F, CG_CAT_PARAMETER, NULL);
	tu_mem(tl, 2, "x", NULL, "cpu", 100, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 3, "y", NULL, "gpu", 7, A, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	assert_int_equal(tl->devices[0].live_at_end, 100);
	return tl;
}

static void a_baseline_is_live_from_the_start_and_replaces_the_last(void **state)
{
	cg_timeline *tl = baseline_timeline();
	cg_error err = CG_ERROR_INIT;
	const cg_device *d = &tl->devices[0];
	assert_int_equal(cg_timeline_set_baseline(tl, 0, 1000, &err), 0);
	assert_int_equal(d->baseline_bytes, 1000);
	assert_int_equal(d->initial_by_cat[CG_CAT_BASELINE], 1000);
	assert_int_equal(d->preexisting_bytes, 50); /* the frees' part is not the baseline */
	assert_int_equal(d->initial_by_cat[CG_CAT_PARAMETER], 50);
	assert_int_equal(cg_device_initial_live(d), 1050);
	assert_int_equal(d->live_at_end, 1100); /* 1050 - 50 + 100 */
	/* set again: replaced, not added */
	assert_int_equal(cg_timeline_set_baseline(tl, 0, 300, &err), 0);
	assert_int_equal(d->initial_by_cat[CG_CAT_BASELINE], 300);
	assert_int_equal(d->live_at_end, 400);
	/* the other device is untouched */
	assert_int_equal(tl->devices[1].baseline_bytes, 0);
	assert_int_equal(tl->devices[1].live_at_end, 7);
	cg_timeline_free(tl);
}

static void a_baseline_set_before_finalize_counts_too(void **state)
{
	cg_timeline *tl = tu_tl_new();
	uint16_t d = tu_device(tl, "cpu");
	tl->devices[d].baseline_bytes = 64;
	tu_mem(tl, 1, "x", NULL, "cpu", 100, A, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	assert_int_equal(tl->devices[d].initial_by_cat[CG_CAT_BASELINE], 64);
	assert_int_equal(tl->devices[d].preexisting_bytes, 0);
	assert_int_equal(tl->devices[d].live_at_end, 164);
	cg_timeline_free(tl);
}

static void a_baseline_for_a_device_that_does_not_exist_is_refused(void **state)
{
	cg_timeline *tl = baseline_timeline();
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_timeline_set_baseline(tl, 2, 10, &err), CG_EINPUT);
	assert_string_equal(err.msg, "no device 2");
	assert_int_equal(cg_timeline_set_baseline(tl, UINT16_MAX, 10, &err), CG_EINPUT);
	assert_string_equal(err.msg, "no device 65535");
	cg_timeline_free(tl);
}

static void a_baseline_that_would_overflow_is_refused_and_the_last_kept(void **state)
{
	/* Live bytes peak after x: baseline + 100. UINT64_MAX - 100 is the
	 * largest baseline that fits; one more overflows at x (line 3); and
	 * baseline + 50 before the first record overflows from UINT64_MAX - 49. */
	cg_timeline *tl = baseline_timeline();
	cg_error err = CG_ERROR_INIT;
	const cg_device *d = &tl->devices[0];
	assert_int_equal(cg_timeline_set_baseline(tl, 0, UINT64_MAX - 100, &err), 0);
	assert_int_equal(d->live_at_end, UINT64_MAX);
	assert_int_equal(cg_timeline_set_baseline(tl, 0, UINT64_MAX - 99, &err), CG_EINPUT);
	assert_string_equal(err.msg, "test.jsonl:3: live bytes on cpu exceed 2^64 - 1 bytes");
	assert_int_equal(d->baseline_bytes, UINT64_MAX - 100);
	assert_int_equal(d->initial_by_cat[CG_CAT_BASELINE], UINT64_MAX - 100);
	assert_int_equal(d->live_at_end, UINT64_MAX);
	assert_int_equal(cg_timeline_set_baseline(tl, 0, UINT64_MAX - 49, &err), CG_EINPUT);
	assert_string_equal(err.msg, "test.jsonl: bytes live on cpu before the first record exceed 2^64 - 1 bytes");
	assert_int_equal(d->baseline_bytes, UINT64_MAX - 100);
	assert_int_equal(d->live_at_end, UINT64_MAX);
	assert_int_equal(d->preexisting_bytes, 50);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(finalizing_twice_changes_nothing),
		cmocka_unit_test(finalize_resolves_spans_and_pairs_memory),
		cmocka_unit_test(first_and_last_times_span_every_record),
		cmocka_unit_test(an_empty_timeline_starts_at_zero),
		cmocka_unit_test(a_failed_finalize_reports_and_leaves_the_timeline_unfinalized),
		cmocka_unit_test(a_baseline_is_live_from_the_start_and_replaces_the_last),
		cmocka_unit_test(a_baseline_set_before_finalize_counts_too),
		cmocka_unit_test(a_baseline_for_a_device_that_does_not_exist_is_refused),
		cmocka_unit_test(a_baseline_that_would_overflow_is_refused_and_the_last_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
