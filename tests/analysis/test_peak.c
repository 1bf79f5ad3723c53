/* Peak pass: the largest live bytes per device, when first reached, by
 * which record, and how many times; the devices ranked by peak. Every
 * answer is worked out by hand. */
#include "tlbuild.h"

#include "peak.h"

#define A CG_ALLOC
#define F CG_FREE

static cg_peak_result *peak(const cg_timeline *tl)
{
	cg_peak_result *p;
	assert_int_equal(cg_peak_run(&p, tl, NULL), 0);
	return p;
}

static void ties_for_the_peak_keep_the_first_time_and_count_the_returns(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 1, "a", NULL, "cuda:0", 100, A, CG_CAT_ACTIVATION, NULL); /* 100 */
	tu_mem(tl, 2, "b", NULL, "cuda:0", 50, A, CG_CAT_ACTIVATION, NULL);  /* 150: first peak */
	tu_mem(tl, 3, "b", NULL, "cuda:0", 50, F, CG_CAT_ACTIVATION, NULL);  /* 100 */
	tu_mem(tl, 4, "c", NULL, "cuda:0", 50, A, CG_CAT_ACTIVATION, NULL);  /* 150 again */
	tu_mem(tl, 5, "d", NULL, "cuda:0", 0, A, CG_CAT_ACTIVATION, NULL);   /* 150, not a new rise */
	tu_mem(tl, 6, "a", NULL, "cuda:0", 100, F, CG_CAT_ACTIVATION, NULL); /* 50 */
	tu_tl_finalize(tl);
	cg_peak_result *p = peak(tl);
	const cg_peak_device *d = &p->devices[0];
	assert_int_equal(d->peak_bytes, 150);
	assert_int_equal(d->peak_t_ns, 2);
	assert_int_equal(tl->mem[d->peak_index].t_ns, 2);
	assert_int_equal(d->reached_times, 2);
	assert_int_equal(d->live_at_peak, 2); /* a and b */
	assert_int_equal(d->live_at_end, 50);
	assert_int_equal(d->live_count_at_end, 2); /* c and the empty d */
	assert_int_equal(d->allocations, 4);
	assert_int_equal(d->frees, 2);
	assert_int_equal(d->bytes_allocated, 200);
	cg_peak_free(p);
	cg_timeline_free(tl);
}

static void frees_of_tensors_from_before_the_trace_count_from_the_start(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 10, "x", NULL, "cuda:0", 30, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 20, "old", NULL, "cuda:0", 80, F, CG_CAT_PARAMETER, NULL); /* live since before t=10 */
	tu_mem(tl, 30, "y", NULL, "cuda:0", 60, A, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	cg_peak_result *p = peak(tl);
	const cg_peak_device *d = &p->devices[0];
	/* 80 at the start, 110 after x, 30 after the free, 90 after y */
	assert_int_equal(d->initial_bytes, 80);
	assert_int_equal(d->peak_bytes, 110);
	assert_int_equal(d->peak_t_ns, 10);
	assert_int_equal(d->live_at_end, 90);
	cg_peak_free(p);
	cg_timeline_free(tl);
}

static void memory_before_profiling_is_live_from_the_start(void **state)
{
	cg_timeline *tl = tu_tl_new();
	uint16_t dev = tu_device(tl, "cuda:0");
	tl->devices[dev].baseline_bytes = 1000;
	tu_mem(tl, 5, "x", NULL, "cuda:0", 10, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 6, "x", NULL, "cuda:0", 10, F, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	cg_peak_result *p = peak(tl);
	assert_int_equal(p->devices[0].peak_bytes, 1010);
	assert_int_equal(p->devices[0].initial_bytes, 1000);
	assert_int_equal(p->devices[0].live_at_end, 1000);
	cg_peak_free(p);
	cg_timeline_free(tl);
}

static void a_reused_id_is_a_new_allocation(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 1, "p", NULL, "cuda:0", 40, A, CG_CAT_TEMPORARY, NULL);
	tu_mem(tl, 2, "p", NULL, "cuda:0", 40, F, CG_CAT_TEMPORARY, NULL);
	tu_mem(tl, 3, "p", NULL, "cuda:0", 70, A, CG_CAT_TEMPORARY, NULL);
	/* an allocation of an id still live ends the earlier one: 70 -> 25 */
	tu_mem(tl, 4, "p", NULL, "cuda:0", 25, A, CG_CAT_TEMPORARY, NULL);
	tu_tl_finalize(tl);
	cg_peak_result *p = peak(tl);
	assert_int_equal(p->devices[0].peak_bytes, 70);
	assert_int_equal(p->devices[0].peak_t_ns, 3);
	assert_int_equal(p->devices[0].live_at_end, 25);
	cg_peak_free(p);
	cg_timeline_free(tl);
}

static void each_device_has_its_own_peak(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 1, "a", NULL, "cuda:0", 100, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 2, "a", NULL, "cuda:1", 300, A, CG_CAT_ACTIVATION, NULL); /* same id, other device */
	tu_mem(tl, 3, "a", NULL, "cuda:0", 100, F, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 4, "b", NULL, "cuda:0", 150, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 5, "a", NULL, "cuda:1", 300, F, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	cg_peak_result *p = peak(tl);
	assert_int_equal(p->ndevices, 2);
	assert_int_equal(p->devices[0].peak_bytes, 150);
	assert_int_equal(p->devices[0].peak_t_ns, 4);
	assert_int_equal(p->devices[1].peak_bytes, 300);
	assert_int_equal(p->devices[1].peak_t_ns, 2);
	assert_int_equal(p->devices[1].live_at_end, 0);
	cg_peak_free(p);
	cg_timeline_free(tl);
}

static void a_device_without_records_peaks_at_nothing(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_devmem(tl, 5, "cuda:0", 10, 90, UINT64_MAX);
	tu_tl_finalize(tl);
	cg_peak_result *p = peak(tl);
	assert_int_equal(p->devices[0].peak_bytes, 0);
	assert_int_equal(p->devices[0].peak_index, CG_NONE);
	assert_int_equal(p->devices[0].reached_times, 0);
	cg_peak_free(p);
	cg_timeline_free(tl);
}

/* Peaks: d0 50, d1 200, d2 50, d3 300, d4 none (a checkpoint only), d5
 * 200: largest first, equal peaks in device order: d3, d1, d5, d0, d2, d4. */
static void devices_by_peak_are_largest_first_and_equal_peaks_in_device_order(void **state)
{
	cg_timeline *tl = tu_tl_new();
	static const uint64_t bytes[6] = {50, 200, 50, 300, 0, 200};
	for (int d = 0; d < 6; d++) {
		char name[16];
		snprintf(name, sizeof name, "cuda:%d", d);
		if (d == 4)
			tu_devmem(tl, 1, name, 10, 90, UINT64_MAX);
		else
			tu_mem(tl, (uint64_t)(10 - d), "x", NULL, name, bytes[d], A, CG_CAT_ACTIVATION, NULL);
	}
	tu_tl_finalize(tl);
	cg_peak_result *p = peak(tl);
	assert_int_equal(p->ndevices, 6);
	static const uint32_t order[6] = {3, 1, 5, 0, 2, 4};
	for (int k = 0; k < 6; k++)
		assert_int_equal(p->by_peak[k], order[k]);
	cg_peak_free(p);
	cg_timeline_free(tl);
}

/* 1000 devices of 8 B each and one of 9 B in the middle: the 9 B device,
 * then every other in device order (a sort must not shuffle the ties). */
static void many_equal_peaks_keep_device_order(void **state)
{
	enum { N = 1001, BIG = 500 };
	cg_timeline *tl = tu_tl_new();
	for (int d = 0; d < N; d++) {
		char name[16];
		snprintf(name, sizeof name, "cpu:%d", d);
		tu_mem(tl, (uint64_t)(N - d), "x", NULL, name, d == BIG ? 9 : 8, A, CG_CAT_INPUT, NULL);
	}
	tu_tl_finalize(tl);
	cg_peak_result *p = peak(tl);
	assert_int_equal(p->by_peak[0], BIG);
	for (uint32_t k = 1, d = 0; k < N; k++, d++) {
		if (d == BIG)
			d++;
		assert_int_equal(p->by_peak[k], d);
	}
	cg_peak_free(p);
	cg_timeline_free(tl);
}

/* Only spans: no devices, nothing to rank; freeing nothing is allowed. */
static void a_timeline_without_devices_has_no_peaks(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "r", NULL, "run", 0, 10, CG_PHASE_NONE);
	tu_tl_finalize(tl);
	cg_peak_result *p = peak(tl);
	assert_int_equal(p->ndevices, 0);
	cg_peak_free(p);
	cg_peak_free(NULL);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ties_for_the_peak_keep_the_first_time_and_count_the_returns),
		cmocka_unit_test(frees_of_tensors_from_before_the_trace_count_from_the_start),
		cmocka_unit_test(memory_before_profiling_is_live_from_the_start),
		cmocka_unit_test(a_reused_id_is_a_new_allocation),
		cmocka_unit_test(each_device_has_its_own_peak),
		cmocka_unit_test(a_device_without_records_peaks_at_nothing),
		cmocka_unit_test(devices_by_peak_are_largest_first_and_equal_peaks_in_device_order),
		cmocka_unit_test(many_equal_peaks_keep_device_order),
		cmocka_unit_test(a_timeline_without_devices_has_no_peaks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
