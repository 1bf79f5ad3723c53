/* Breakdown at the peak: bars where their bytes say, in their category's
 * colour, one scale for both panels, and the reasons it is not drawn. */
#include "chartutil.h"

/* The small run of chartutil.h plus 2000 B of activations allocated in
 * backward at 3800 ns (freed at 8000). Peak: 10000 B at 4000 ns.
 *   by category: parameter 4000, gradient 3000, activation 3000 (1000 + 2000)
 *   by phase:    backward 5000 (gradient 3000 + activation 2000), none 4000, forward 1000 */
static cg_timeline *split_run(void)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "r", NULL, "run", 0, 10000, CG_PHASE_NONE);
	tu_span(tl, "s", "r", "setup:model", 0, 1000, CG_PHASE_NONE);
	tu_span(tl, "t", "r", "train_step#0", 1000, 9000, CG_PHASE_NONE);
	tu_span(tl, "f", "t", "forward", 1000, 3000, CG_PHASE_FORWARD);
	tu_span(tl, "b", "t", "backward", 3000, 6000, CG_PHASE_BACKWARD);
	tu_mem(tl, 100, "w", "s", "cpu", 4000, CG_ALLOC, CG_CAT_PARAMETER, "aten::empty");
	tu_mem(tl, 1500, "x", "f", "cpu", 1000, CG_ALLOC, CG_CAT_ACTIVATION, "aten::relu");
	tu_mem(tl, 3800, "y", "b", "cpu", 2000, CG_ALLOC, CG_CAT_ACTIVATION, "aten::relu");
	tu_mem(tl, 4000, "g", "b", "cpu", 3000, CG_ALLOC, CG_CAT_GRADIENT, "aten::mm");
	tu_mem(tl, 7000, "x", "b", "cpu", 1000, CG_FREE, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 7500, "g", "b", "cpu", 3000, CG_FREE, CG_CAT_GRADIENT, NULL);
	tu_mem(tl, 8000, "y", "b", "cpu", 2000, CG_FREE, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	return tl;
}

typedef struct geometry {
	double x0, px_per_byte, pitch, top, right_x0;
} geometry;

/* The chart leaves its geometry in c: x in bytes from the first panel's
 * bar origin, y in rows. The second panel is the first moved right by
 * half the inner width plus half the 60-px gutter between them. */
static geometry geometry_of(const cg_chart *c)
{
	geometry g;
	g.x0 = c->plot.x0;
	g.px_per_byte = (c->plot.x1 - c->plot.x0) / c->x_max;
	g.top = c->plot.y0;
	g.pitch = (c->plot.y1 - c->plot.y0) / c->y_max;
	g.right_x0 = g.x0 + (c->width - 2 * CG_MARGIN + 60) / 2;
	return g;
}

static double row_y(const geometry *g, int row)
{
	return g->top + g->pitch * (row + 0.5);
}

/* The bar of `bytes` starting at x0 ends there: its colour 3 px inside,
 * white 4 px past it (the label starts 10 px past). */
static void bar_ends(cg_chart *c, double x0, const geometry *g, int row, uint64_t bytes, unsigned color)
{
	double end = x0 + (double)bytes * g->px_per_byte;
	assert_int_equal(tc_pixel(c, end - 3, row_y(g, row)), color);
	assert_int_equal(tc_pixel(c, end + 4, row_y(g, row)), 0xFFFFFF);
}

static void the_longest_bar_ends_where_its_bytes_say_in_its_category_colour(void **state)
{
	cg_timeline *tl = split_run();
	cg_chart c;
	cg_analysis *a;
	tc_draw(&c, &a, tl, 0, cg_chart_breakdown, 1600, 900, 1.0);
	assert_int_equal(a->peak->devices[0].peak_bytes, 10000);
	geometry g = geometry_of(&c);
	/* by category, largest first; equal bars in stack order */
	bar_ends(&c, g.x0, &g, 0, 4000, tc_category(CG_CAT_PARAMETER));
	bar_ends(&c, g.x0, &g, 1, 3000, tc_category(CG_CAT_GRADIENT));
	bar_ends(&c, g.x0, &g, 2, 3000, tc_category(CG_CAT_ACTIVATION));
	/* nothing below the last bar */
	assert_int_equal(tc_pixel(&c, g.x0 + 100, row_y(&g, 3)), 0xFFFFFF);
	tc_close(&c, a);
	cg_timeline_free(tl);
}

static void both_panels_share_one_scale_and_phase_bars_are_split_by_category(void **state)
{
	cg_timeline *tl = split_run();
	cg_chart c;
	cg_analysis *a;
	tc_draw(&c, &a, tl, 0, cg_chart_breakdown, 1600, 900, 1.0);
	geometry g = geometry_of(&c);
	/* backward: gradient then activation, in stack order, on the same px per byte as the left panel */
	double y = row_y(&g, 0);
	assert_int_equal(tc_pixel(&c, g.right_x0 + 1500 * g.px_per_byte, y), tc_category(CG_CAT_GRADIENT));
	assert_int_equal(tc_pixel(&c, g.right_x0 + 4000 * g.px_per_byte, y), tc_category(CG_CAT_ACTIVATION));
	bar_ends(&c, g.right_x0, &g, 0, 5000, tc_category(CG_CAT_ACTIVATION));
	/* a 1-px white seam where the categories meet */
	bool seam = false;
	for (int dx = -1; dx <= 1; dx++)
		seam |= tc_pixel(&c, g.right_x0 + 3000 * g.px_per_byte + dx, y) == 0xFFFFFF;
	assert_true(seam);
	bar_ends(&c, g.right_x0, &g, 1, 4000, tc_category(CG_CAT_PARAMETER)); /* no phase */
	bar_ends(&c, g.right_x0, &g, 2, 1000, tc_category(CG_CAT_ACTIVATION)); /* forward */
	tc_close(&c, a);
	cg_timeline_free(tl);
}

static void the_bars_stay_in_their_panel_at_the_smallest_size(void **state)
{
	cg_timeline *tl = split_run();
	cg_chart c;
	cg_analysis *a;
	tc_draw(&c, &a, tl, 0, cg_chart_breakdown, CG_CHART_MIN_WIDTH, CG_CHART_MIN_HEIGHT, 1.0);
	geometry g = geometry_of(&c);
	/* the widest bar and its label fit before the second panel's labels */
	double end = g.x0 + 4000 * g.px_per_byte;
	assert_true(end > g.x0 + 2);
	assert_true(end < (c.width - 60) / 2);
	bar_ends(&c, g.x0, &g, 0, 4000, tc_category(CG_CAT_PARAMETER));
	tc_close(&c, a);
	cg_timeline_free(tl);
}

static void a_trace_without_categories_or_pairing_is_not_drawn_and_says_why(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tl->source.categories_known = false;
	tl->source.pairing_known = false;
	tu_mem(tl, 10, "a", NULL, "cuda:0", 100, CG_ALLOC, CG_CAT_UNKNOWN, NULL);
	tu_mem(tl, 20, "a", NULL, "cuda:0", 100, CG_FREE, CG_CAT_UNKNOWN, NULL);
	tu_tl_finalize(tl);
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	const char *why = cg_chart_breakdown_skip(a, 0);
	assert_non_null(why);
	assert_non_null(strstr(why, "no categories"));
	cg_analysis_free(a);
	cg_timeline_free(tl);

	/* nothing live at the peak: an empty allocation */
	tl = tu_tl_new();
	tu_mem(tl, 10, "a", NULL, "cpu", 0, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	assert_string_equal(cg_chart_breakdown_skip(a, 0), "nothing is live at the peak");
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

static void one_phase_only_draws_the_category_panel_across_the_page(void **state)
{
	/* every allocation outside any phase: the phase panel would be one bar */
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 10, "a", NULL, "cpu", 3000, CG_ALLOC, CG_CAT_PARAMETER, NULL);
	tu_mem(tl, 20, "b", NULL, "cpu", 1000, CG_ALLOC, CG_CAT_INPUT, NULL);
	tu_tl_finalize(tl);
	cg_chart c;
	cg_analysis *a;
	tc_draw(&c, &a, tl, 0, cg_chart_breakdown, 1600, 900, 1.0);
	assert_null(cg_chart_breakdown_skip(a, 0));
	geometry g = geometry_of(&c);
	/* one panel: its bars may reach past the middle of the page */
	assert_true(c.plot.x1 > c.width - CG_MARGIN - 1);
	bar_ends(&c, g.x0, &g, 0, 3000, tc_category(CG_CAT_PARAMETER));
	bar_ends(&c, g.x0, &g, 1, 1000, tc_category(CG_CAT_INPUT));
	assert_true(g.x0 + 3000 * g.px_per_byte > c.width / 2);
	tc_close(&c, a);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_longest_bar_ends_where_its_bytes_say_in_its_category_colour),
		cmocka_unit_test(both_panels_share_one_scale_and_phase_bars_are_split_by_category),
		cmocka_unit_test(the_bars_stay_in_their_panel_at_the_smallest_size),
		cmocka_unit_test(a_trace_without_categories_or_pairing_is_not_drawn_and_says_why),
		cmocka_unit_test(one_phase_only_draws_the_category_panel_across_the_page),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	cg_charts_shutdown();
	return rc;
}
