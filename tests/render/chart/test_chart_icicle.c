/* Icicle of the memory at the peak by span path: boxes as wide as their
 * bytes, in their phase's colour, children under their parent in time
 * order, labels that never leave their box. */
#include "chartutil.h"

typedef struct geometry {
	double x0, width, top, pitch;
	uint64_t total;
} geometry;

/* The chart leaves its geometry in c: x in bytes across the full width,
 * y in rows. */
static geometry geometry_of(const cg_chart *c)
{
	return (geometry){c->plot.x0, c->plot.x1 - c->plot.x0, c->plot.y0, (c->plot.y1 - c->plot.y0) / c->y_max,
			  (uint64_t)c->x_max};
}

static double x_at(const geometry *g, uint64_t bytes)
{
	return g->x0 + g->width * (double)bytes / (double)g->total;
}

/* A point of a row clear of its labels (they sit at its top left). */
static double low_in_row(const geometry *g, int row)
{
	return g->top + g->pitch * row + g->pitch - 6;
}

static unsigned phase(cg_phase p)
{
	return tc_hex(cg_chart_phase_color(p));
}

static void the_root_span_spans_the_full_width_and_children_follow_their_bytes(void **state)
{
	cg_timeline *tl = tc_small_run();
	cg_chart c;
	cg_analysis *a;
	tc_draw(&c, &a, tl, 0, cg_chart_icicle, 1600, 900, 1.0);
	geometry g = geometry_of(&c);
	/* the synthetic root has one child holding everything: the chart starts at "run" */
	assert_int_equal(g.total, 8000);
	assert_true(c.y_max == 3);
	double y0 = low_in_row(&g, 0), y1 = low_in_row(&g, 1), y2 = low_in_row(&g, 2);
	unsigned none = phase(CG_PHASE_NONE);
	/* row 0: run, edge to edge */
	assert_int_equal(tc_pixel(&c, g.x0 + 1, y0), none);
	assert_int_equal(tc_pixel(&c, g.x0 + g.width - 3, y0), none);
	assert_int_equal(tc_pixel(&c, g.x0 - 3, y0), 0xFFFFFF);
	assert_int_equal(tc_pixel(&c, g.x0 + g.width + 2, y0), 0xFFFFFF);
	/* row 1: setup:model (4000 B) then train_step#0 (4000 B), 1 px of white between */
	assert_int_equal(tc_pixel(&c, x_at(&g, 2000), y1), none);
	assert_int_equal(tc_pixel(&c, x_at(&g, 6000), y1), none);
	assert_int_equal(tc_pixel(&c, x_at(&g, 4000) - 0.5, y1), 0xFFFFFF);
	/* row 2, under train_step#0 only: forward (1000 B) then backward (3000 B) */
	assert_int_equal(tc_pixel(&c, x_at(&g, 2000), y2), 0xFFFFFF);
	assert_int_equal(tc_pixel(&c, x_at(&g, 4500), y2), phase(CG_PHASE_FORWARD));
	assert_int_equal(tc_pixel(&c, x_at(&g, 6500), y2), phase(CG_PHASE_BACKWARD));
	assert_int_equal(tc_pixel(&c, x_at(&g, 7990), y2), phase(CG_PHASE_BACKWARD));
	/* rows are 2 px apart */
	assert_int_equal(tc_pixel(&c, x_at(&g, 6000), g.top + g.pitch - 1), 0xFFFFFF);
	/* and nothing below the last row */
	assert_int_equal(tc_pixel(&c, x_at(&g, 6500), low_in_row(&g, 3)), 0xFFFFFF);
	tc_close(&c, a);
	cg_timeline_free(tl);
}

static void a_long_name_is_cut_to_its_box(void **state)
{
	/* 1000 B under a long name beside 7000 B: the name must stop before its box ends */
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "r", NULL, "run", 0, 1000, CG_PHASE_NONE);
	tu_span(tl, "l", "r", "autograd::engine::evaluate_function: AddmmBackward0 of a very long module path", 0, 100,
		CG_PHASE_BACKWARD);
	tu_span(tl, "o", "r", "optimizer", 100, 900, CG_PHASE_OPTIMIZER);
	tu_mem(tl, 10, "a", "l", "cpu", 1000, CG_ALLOC, CG_CAT_GRADIENT, NULL);
	tu_mem(tl, 200, "b", "o", "cpu", 7000, CG_ALLOC, CG_CAT_OPTIMIZER_STATE, NULL);
	tu_tl_finalize(tl);
	cg_chart c;
	cg_analysis *a;
	tc_draw(&c, &a, tl, 0, cg_chart_icicle, 1600, 900, 1.0);
	geometry g = geometry_of(&c);
	double edge = x_at(&g, 1000), top = g.top + g.pitch; /* row 1 */
	/* along the name's line, the first pixels past the box are the
	 * optimizer box's fill, not ink */
	unsigned opt = phase(CG_PHASE_OPTIMIZER);
	for (double y = top + 8; y < top + 26; y += 1)
		for (double dx = 1; dx < 6; dx += 1)
			assert_int_equal(tc_pixel(&c, edge + dx, y), opt);
	/* and the box does hold some text: dark pixels inside it */
	bool ink = false;
	for (double x = g.x0 + 7; x < edge - 7 && !ink; x += 1)
		for (double y = top + 8; y < top + 26 && !ink; y += 1)
			ink = tc_pixel(&c, x, y) < 0x808080;
	assert_true(ink);
	tc_close(&c, a);
	cg_timeline_free(tl);
}

static void memory_from_before_profiling_is_left_out_when_it_dwarfs_the_trace(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_device(tl, "cuda:0");
	tu_span(tl, "r", NULL, "forward", 0, 1000, CG_PHASE_FORWARD);
	tu_mem(tl, 10, "a", "r", "cuda:0", 1000, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tl->devices[0].baseline_bytes = 1000000;
	tu_tl_finalize(tl);
	cg_chart c;
	cg_analysis *a;
	tc_draw(&c, &a, tl, 0, cg_chart_icicle, 1600, 900, 1.0);
	geometry g = geometry_of(&c);
	/* the width is the 1000 B allocated in the trace, drawn from its span */
	assert_int_equal(g.total, 1000);
	assert_int_equal(tc_pixel(&c, g.x0 + g.width / 2, low_in_row(&g, 0)), phase(CG_PHASE_FORWARD));
	tc_close(&c, a);
	cg_timeline_free(tl);
}

/* run > a > b > {c: 3000 B, d > e > f: 1000 B}: the chart starts at b, where
 * the bytes split, and the chain d > e > f is one box: 2 rows, not 4. */
static void a_chain_of_single_children_is_one_row(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "r", NULL, "run", 0, 1000, CG_PHASE_NONE);
	tu_span(tl, "a", "r", "a", 0, 1000, CG_PHASE_NONE);
	tu_span(tl, "b", "a", "b", 0, 1000, CG_PHASE_NONE);
	tu_span(tl, "c", "b", "c", 0, 100, CG_PHASE_NONE);
	tu_span(tl, "d", "b", "d", 100, 900, CG_PHASE_NONE);
	tu_span(tl, "e", "d", "e", 100, 900, CG_PHASE_NONE);
	tu_span(tl, "f", "e", "f", 100, 900, CG_PHASE_NONE);
	tu_mem(tl, 10, "x", "c", "cpu", 3000, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 200, "y", "f", "cpu", 1000, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	cg_chart c;
	cg_analysis *a;
	tc_draw(&c, &a, tl, 0, cg_chart_icicle, 1600, 900, 1.0);
	geometry g = geometry_of(&c);
	assert_int_equal(g.total, 4000);
	assert_true(c.y_max == 2);
	/* row 1: c then the chain's one box, nothing in row 2 */
	unsigned none = phase(CG_PHASE_NONE);
	assert_int_equal(tc_pixel(&c, x_at(&g, 1500), low_in_row(&g, 1)), none);
	assert_int_equal(tc_pixel(&c, x_at(&g, 3500), low_in_row(&g, 1)), none);
	assert_int_equal(tc_pixel(&c, x_at(&g, 3500), low_in_row(&g, 2)), 0xFFFFFF);
	tc_close(&c, a);
	cg_timeline_free(tl);
}

/* run > {big: 99,500 B > {p: 60,000 B, q: 39,500 B}, small: 500 B}: big
 * holds 99.5 % of the peak, nearly all (at most 1 % left out), so the chart
 * starts there: 99,500 B across, rows big and p|q. */
static void the_chart_starts_at_the_deepest_node_holding_nearly_all_the_peak(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "r", NULL, "run", 0, 1000, CG_PHASE_NONE);
	tu_span(tl, "big", "r", "big", 0, 900, CG_PHASE_NONE);
	tu_span(tl, "p", "big", "p", 0, 100, CG_PHASE_NONE);
	tu_span(tl, "q", "big", "q", 100, 900, CG_PHASE_NONE);
	tu_span(tl, "small", "r", "small", 900, 1000, CG_PHASE_NONE);
	tu_mem(tl, 10, "x", "p", "cpu", 60000, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 200, "y", "q", "cpu", 39500, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 950, "z", "small", "cpu", 500, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	cg_chart c;
	cg_analysis *a;
	tc_draw(&c, &a, tl, 0, cg_chart_icicle, 1600, 900, 1.0);
	geometry g = geometry_of(&c);
	assert_int_equal(g.total, 99500);
	assert_true(c.y_max == 2);
	tc_close(&c, a);
	cg_timeline_free(tl);
	/* 1,001 B outside (just over 1 %): the chart keeps the whole peak */
	tl = tu_tl_new();
	tu_span(tl, "r", NULL, "run", 0, 1000, CG_PHASE_NONE);
	tu_span(tl, "big", "r", "big", 0, 900, CG_PHASE_NONE);
	tu_span(tl, "small", "r", "small", 900, 1000, CG_PHASE_NONE);
	tu_mem(tl, 10, "x", "big", "cpu", 98999, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 950, "z", "small", "cpu", 1001, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	tc_draw(&c, &a, tl, 0, cg_chart_icicle, 1600, 900, 1.0);
	g = geometry_of(&c);
	assert_int_equal(g.total, 100000);
	tc_close(&c, a);
	cg_timeline_free(tl);
}

static void without_pairing_or_spans_it_is_not_drawn_and_says_why(void **state)
{
	tc_assert_skipped_unpaired(cg_chart_icicle_skip, false);

	cg_timeline *tl = tu_tl_new();
	cg_analysis *a;
	tu_mem(tl, 10, "a", NULL, "cpu", 100, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	assert_non_null(strstr(cg_chart_icicle_skip(a, 0), "outside any span"));
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_root_span_spans_the_full_width_and_children_follow_their_bytes),
		cmocka_unit_test(a_long_name_is_cut_to_its_box),
		cmocka_unit_test(memory_from_before_profiling_is_left_out_when_it_dwarfs_the_trace),
		cmocka_unit_test(a_chain_of_single_children_is_one_row),
		cmocka_unit_test(the_chart_starts_at_the_deepest_node_holding_nearly_all_the_peak),
		cmocka_unit_test(without_pairing_or_spans_it_is_not_drawn_and_says_why),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	cg_charts_shutdown();
	return rc;
}
