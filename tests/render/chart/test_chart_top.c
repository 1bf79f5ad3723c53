/* Largest allocations at the peak: one bar per allocation, in size order,
 * each as long as its bytes and in its category's colour. */
#include "chartutil.h"

typedef struct geometry {
	double x0, px_per_byte, top, pitch;
} geometry;

/* The chart leaves its geometry in c: x in bytes from the bars' origin,
 * y in rows. */
static geometry geometry_of(const cg_chart *c)
{
	return (geometry){c->plot.x0, (c->plot.x1 - c->plot.x0) / c->x_max, c->plot.y0,
			  (c->plot.y1 - c->plot.y0) / c->y_max};
}

static void bar(cg_chart *c, const geometry *g, int row, uint64_t bytes, unsigned color)
{
	double y = g->top + g->pitch * (row + 0.5), end = g->x0 + (double)bytes * g->px_per_byte;
	assert_int_equal(tc_pixel(c, g->x0 + 2, y), color);
	assert_int_equal(tc_pixel(c, end - 3, y), color);
	/* past the end: the row's background (zebra on odd rows) until the label */
	assert_int_equal(tc_pixel(c, end + 4, y), row % 2 ? 0xF7F7F7 : 0xFFFFFF);
}

static void the_bars_come_in_size_order_as_long_as_their_bytes(void **state)
{
	cg_timeline *tl = tc_small_run();
	cg_chart c;
	cg_analysis *a;
	tc_draw(&c, &a, tl, 0, cg_chart_top_allocations, 1600, 900, 1.0);
	geometry g = geometry_of(&c);
	/* live at the peak: parameter 4000, gradient 3000, activation 1000 */
	assert_true(c.y_max == 3);
	bar(&c, &g, 0, 4000, tc_category(CG_CAT_PARAMETER));
	bar(&c, &g, 1, 3000, tc_category(CG_CAT_GRADIENT));
	bar(&c, &g, 2, 1000, tc_category(CG_CAT_ACTIVATION));
	/* nothing is drawn past the last row */
	assert_int_equal(tc_pixel(&c, g.x0 + 2, g.top + g.pitch * 3.5), 0xFFFFFF);
	tc_close(&c, a);
	cg_timeline_free(tl);
}

static void at_most_fifteen_rows_and_fewer_when_the_height_is_short(void **state)
{
	cg_timeline *tl = tu_tl_new();
	char id[16];
	for (int i = 0; i < 40; i++) {
		snprintf(id, sizeof id, "t%d", i);
		tu_mem(tl, (uint64_t)i * 10, id, NULL, "cpu", 1000 + (uint64_t)i, CG_ALLOC, CG_CAT_ACTIVATION, "aten::empty");
	}
	tu_tl_finalize(tl);
	cg_chart c;
	cg_analysis *a;
	tc_draw(&c, &a, tl, 0, cg_chart_top_allocations, 1600, 900, 1.0);
	assert_true(c.y_max == 15);
	geometry g = geometry_of(&c);
	/* the largest (t39: 1039 B) first, the 15th (t25: 1025 B) last */
	bar(&c, &g, 0, 1039, tc_category(CG_CAT_ACTIVATION));
	bar(&c, &g, 14, 1025, tc_category(CG_CAT_ACTIVATION));
	tc_close(&c, a);

	tc_draw(&c, &a, tl, 0, cg_chart_top_allocations, CG_CHART_MIN_WIDTH, CG_CHART_MIN_HEIGHT, 1.0);
	assert_true(c.y_max < 15 && c.y_max >= 8);
	assert_true(c.plot.y1 <= c.height - 40);
	tc_close(&c, a);
	cg_timeline_free(tl);
}

static void without_pairing_it_is_not_drawn_and_says_why(void **state)
{
	tc_assert_skipped_unpaired(cg_chart_top_allocations_skip, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_bars_come_in_size_order_as_long_as_their_bytes),
		cmocka_unit_test(at_most_fifteen_rows_and_fewer_when_the_height_is_short),
		cmocka_unit_test(without_pairing_it_is_not_drawn_and_says_why),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	cg_charts_shutdown();
	return rc;
}
