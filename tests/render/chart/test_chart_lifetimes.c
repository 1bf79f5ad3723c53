/* Lifetimes histogram: bars on the log axis where their bins are, stacked
 * by category in stack order, as tall as their counts. */
#include "chartutil.h"

typedef struct geometry {
	const cg_rect *p;
	double dec_lo, dec_hi;
} geometry;

/* x of a lifetime of 10^e ns: the axis runs over whole decades from the
 * smallest bin's to the largest's. */
static double x_of(const geometry *g, double e)
{
	return g->p->x0 + (g->p->x1 - g->p->x0) * (e - g->dec_lo) / (g->dec_hi - g->dec_lo);
}

static double y_of(const cg_chart *c, double count)
{
	return c->plot.y1 - (c->plot.y1 - c->plot.y0) * count / c->y_max;
}

static void bars_stand_in_their_bins_stacked_in_stack_order(void **state)
{
	cg_timeline *tl = tc_small_run();
	cg_chart c;
	cg_analysis *a;
	tc_draw(&c, &a, tl, 0, cg_chart_lifetimes, 1600, 900, 1.0);
	/* lifetimes: 100 ns (bin [10^2, 10^2.25)), 3500 and 5500 ns (bin [10^3.5, 10^3.75)):
	 * the axis runs from 100 ns to 10 µs */
	geometry g = {&c.plot, 2, 4};
	assert_true(c.x_max == 4);
	/* two in the tallest bin; one step of room above it for its count */
	assert_true(c.y_max == 3);
	double mid15 = x_of(&g, 3.625), mid9 = x_of(&g, 2.125);
	assert_int_equal(tc_pixel(&c, mid15, y_of(&c, 0.5)), tc_category(CG_CAT_GRADIENT));
	assert_int_equal(tc_pixel(&c, mid15, y_of(&c, 1.5)), tc_category(CG_CAT_ACTIVATION));
	assert_int_equal(tc_pixel(&c, mid15 + 20, y_of(&c, 2) - 3), 0xFFFFFF);
	assert_int_equal(tc_pixel(&c, mid9, y_of(&c, 0.5)), tc_category(CG_CAT_TEMPORARY));
	assert_int_equal(tc_pixel(&c, mid9, y_of(&c, 1.5)), 0xFFFFFF);
	/* 3 px of white between neighbouring bins: the bin after is empty */
	assert_int_equal(tc_pixel(&c, x_of(&g, 3.75) + 0.5, y_of(&c, 0.5)), 0xFFFFFF);
	assert_int_equal(tc_pixel(&c, x_of(&g, 3.25), y_of(&c, 0.5)), 0xFFFFFF);
	tc_close(&c, a);
	cg_timeline_free(tl);
}

static void zero_lifetimes_get_a_bar_of_their_own_left_of_the_axis(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 100, "a", NULL, "cpu", 10, CG_ALLOC, CG_CAT_TEMPORARY, NULL);
	tu_mem(tl, 100, "a", NULL, "cpu", 10, CG_FREE, CG_CAT_TEMPORARY, NULL);
	tu_mem(tl, 200, "b", NULL, "cpu", 10, CG_ALLOC, CG_CAT_INPUT, NULL);
	tu_mem(tl, 1200, "b", NULL, "cpu", 10, CG_FREE, CG_CAT_INPUT, NULL);
	tu_tl_finalize(tl);
	cg_chart c;
	cg_analysis *a;
	tc_draw(&c, &a, tl, 0, cg_chart_lifetimes, 1600, 900, 1.0);
	/* the 0-ns bar starts at the plot's left edge; the 1000 ns one is far right of it */
	assert_int_equal(tc_pixel(&c, c.plot.x0 + 20, y_of(&c, 0.5)), tc_category(CG_CAT_TEMPORARY));
	assert_int_equal(tc_pixel(&c, c.plot.x1 - 20, y_of(&c, 0.5)), 0xFFFFFF);
	tc_close(&c, a);
	cg_timeline_free(tl);
}

static void nothing_freed_or_no_pairing_is_not_drawn_and_says_why(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 10, "a", NULL, "cpu", 100, CG_ALLOC, CG_CAT_PARAMETER, NULL);
	tu_tl_finalize(tl);
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	assert_string_equal(cg_chart_lifetimes_skip(a, 0), "nothing allocated in the trace was freed on this device");
	cg_analysis_free(a);
	cg_timeline_free(tl);

	tc_assert_skipped_unpaired(cg_chart_lifetimes_skip, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bars_stand_in_their_bins_stacked_in_stack_order),
		cmocka_unit_test(zero_lifetimes_get_a_bar_of_their_own_left_of_the_axis),
		cmocka_unit_test(nothing_freed_or_no_pairing_is_not_drawn_and_says_why),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	cg_charts_shutdown();
	return rc;
}
