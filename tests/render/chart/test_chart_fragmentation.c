/* Reserved bytes and fragmentation: the recorded reserved line, the live
 * area under it and the fragmentation on its own 0-100 % axis, each where
 * the numbers put it; and the reasons it is not drawn. */
#include "chartutil.h"

#define MIB 1048576ull

/* On cuda:0: 15 MiB allocated at 100 ns, freed at 9500; the allocator
 * recorded 22 MiB reserved at 1000 and 9000 ns; the run lasts 10 µs.
 * Fragmentation at the checkpoints: (22 - 15) / 22 = 31.8 %. The replay
 * maps one 16 MiB segment (20 MiB with expandable segments). */
static cg_timeline *gpu_run(void)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "r", NULL, "run", 0, 10000, CG_PHASE_NONE);
	tu_mem(tl, 100, "a", "r", "cuda:0", 15 * MIB, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_devmem(tl, 1000, "cuda:0", UINT64_MAX, 0, 22 * MIB);
	tu_devmem(tl, 9000, "cuda:0", UINT64_MAX, 0, 22 * MIB);
	tu_mem(tl, 9500, "a", "r", "cuda:0", 15 * MIB, CG_FREE, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	return tl;
}

static void reserved_live_and_fragmentation_are_where_the_numbers_put_them(void **state)
{
	cg_timeline *tl = gpu_run();
	cg_chart c;
	cg_analysis *a;
	tc_draw(&c, &a, tl, 0, cg_chart_fragmentation, 1600, 900, 1.0);
	assert_int_equal(a->replay->devices[0].standard.peak_reserved, 16 * MIB);
	const cg_rect *p = &c.plot;
	assert_true(c.x_max == 10000);
	assert_true(c.y_max == 24.0 * MIB); /* 22 MiB rounded up to whole 4 MiB steps */
	double xs = (p->x1 - p->x0) / c.x_max, h = p->y1 - p->y0;
	double x = p->x0 + 5000 * xs;
	/* the recorded reserved line at 22 MiB */
	assert_true(tc_near(&c, x, p->y1 - h * 22.0 / 24.0, 2, 0x7A0177));
	/* the live bytes as a grey area up to 15 MiB, white above it */
	assert_int_equal(tc_pixel(&c, x, p->y1 - h * 10.0 / 24.0), 0xD4D4D4);
	assert_int_equal(tc_pixel(&c, x, p->y1 - h * 18.0 / 24.0), 0xFFFFFF);
	/* fragmentation 7/22 of the way up the plot, on the right axis */
	assert_true(tc_near(&c, x, p->y1 - h * 7.0 / 22.0, 2, 0xE66100));
	/* before the first checkpoint there is no recorded line */
	assert_int_equal(tc_pixel(&c, p->x0 + 500 * xs, p->y1 - h * 22.0 / 24.0), 0xFFFFFF);
	tc_close(&c, a);
	cg_timeline_free(tl);
}

static void devices_with_nothing_reserved_to_compare_are_not_drawn_and_say_why(void **state)
{
	/* a CPU: no caching allocator, and the trace records no reserved bytes */
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 10, "a", NULL, "cpu", 100, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_devmem(tl, 20, "cpu", 1000, 5000, 0);
	tu_tl_finalize(tl);
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	assert_non_null(strstr(cg_chart_fragmentation_skip(a, 0), "CPU"));
	cg_analysis_free(a);
	cg_timeline_free(tl);

	/* a GPU without checkpoints, in a format whose frees cannot be paired */
	tc_assert_skipped_unpaired(cg_chart_fragmentation_skip, false);

	/* a GPU without checkpoints but with pairing: the replay's estimate is drawn */
	tl = tu_tl_new();
	tu_mem(tl, 10, "a", NULL, "cuda:0", 100, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	assert_null(cg_chart_fragmentation_skip(a, 0));
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reserved_live_and_fragmentation_are_where_the_numbers_put_them),
		cmocka_unit_test(devices_with_nothing_reserved_to_compare_are_not_drawn_and_say_why),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	cg_charts_shutdown();
	return rc;
}
