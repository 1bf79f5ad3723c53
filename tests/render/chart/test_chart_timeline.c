/* Timeline of live memory: the stacked columns reach the live bytes in the
 * colour of the category on top, at any pixel density, and a spike far
 * narrower than a pixel keeps its full height. */
#include "chartutil.h"

#include <string.h>

/* 100 B of parameters from t=0; 300 B of activations from 1 µs to 2 µs; the
 * run (span "root") lasts 10 µs. Peak: 400 B at t = 1000 ns. */
static cg_timeline *pixel_run(void)
{
	cg_timeline *tl = tu_tl_new();
	tu_meta(tl, "run_id", "pix");
	tu_span(tl, "a", NULL, "root", 0, UINT64_MAX, CG_PHASE_NONE);
	tu_mem(tl, 0, "w", "a", "cpu", 100, CG_ALLOC, CG_CAT_PARAMETER, NULL);
	tu_mem(tl, 1000, "x", "a", "cpu", 300, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 2000, "x", "a", "cpu", 300, CG_FREE, CG_CAT_UNKNOWN, NULL);
	tu_span_end(tl, "a", 10000);
	tu_tl_finalize(tl);
	return tl;
}

static void draw_timeline(cg_chart *c, cg_analysis **a, const cg_timeline *tl, double scale)
{
	assert_int_equal(cg_analysis_run(a, tl, NULL, NULL), 0);
	cg_chart_size size = {1600, 900, scale};
	assert_int_equal(cg_chart_open(c, tu_path("t.png"), CG_CHART_PNG, &size, NULL), 0);
	cg_chart_timeline(c, *a, 0, "pix");
}

static void check_peak_column(double scale)
{
	cg_chart c;
	cg_analysis *a;
	cg_timeline *tl = pixel_run();
	draw_timeline(&c, &a, tl, scale);
	const cg_rect *p = &c.plot;
	double xs = (p->x1 - p->x0) / c.x_max, ys = (p->y1 - p->y0) / c.y_max;
	/* x from 0 to the end of the run, y from 0 with whole steps above 400 B */
	assert_true(c.x_max == 10000);
	assert_true(c.y_max >= 400);
	double x_mid = p->x0 + 1500 * xs;  /* inside the plateau at 400 B */
	double y_top = p->y1 - 400 * ys;   /* top of the stack at the peak */
	double y_param = p->y1 - 100 * ys; /* top of the parameters */
	unsigned activation = tc_hex(cg_chart_category_color(CG_CAT_ACTIVATION));
	unsigned parameter = tc_hex(cg_chart_category_color(CG_CAT_PARAMETER));
	/* the peak column reaches the peak's height, in the colour of the category on top */
	assert_int_equal(tc_pixel(&c, x_mid, y_top + 3), activation);
	assert_int_equal(tc_pixel(&c, x_mid, y_param + 3), parameter);
	assert_int_equal(tc_pixel(&c, x_mid, y_param - 3), activation);
	/* after the free only the parameters remain: background above them */
	double x_late = p->x0 + 6000 * xs;
	assert_int_equal(tc_pixel(&c, x_late, y_param + 3), parameter);
	assert_int_equal(tc_pixel(&c, x_late, y_param - 40), 0xFFFFFF);
	/* and nothing is drawn above the plot's right part */
	assert_int_equal(tc_pixel(&c, p->x0 + 8000 * xs, p->y0 + 30), 0xFFFFFF);
	tc_close(&c, a);
	cg_timeline_free(tl);
}

static void the_peak_column_reaches_the_peak_in_the_top_category_colour(void **state)
{
	check_peak_column(1.0);
}

static void hidpi_keeps_the_layout(void **state)
{
	check_peak_column(2.0);
}

static void a_one_nanosecond_spike_is_still_drawn_at_full_height(void **state)
{
	/* 1 GiB for 1 ns in a run of 1 s: far narrower than a pixel. The
	 * records name a span "a" the trace never starts. */
	cg_timeline *tl = tu_tl_new();
	tu_meta(tl, "run_id", "pix");
	tu_mem(tl, 0, "w", "a", "cpu", 1048576, CG_ALLOC, CG_CAT_PARAMETER, NULL);
	tu_mem(tl, 500000000, "s", "a", "cpu", 1073741824, CG_ALLOC, CG_CAT_TEMPORARY, NULL);
	tu_mem(tl, 500000001, "s", "a", "cpu", 1073741824, CG_FREE, CG_CAT_UNKNOWN, NULL);
	tu_mem(tl, 1000000000, "w", "a", "cpu", 1048576, CG_FREE, CG_CAT_UNKNOWN, NULL);
	tu_tl_finalize(tl);
	cg_chart c;
	cg_analysis *a;
	draw_timeline(&c, &a, tl, 1.0);
	const cg_rect *p = &c.plot;
	double x = p->x0 + (p->x1 - p->x0) * 0.5;
	double y = p->y1 - (p->y1 - p->y0) * (1073741824.0 + 1048576.0) / c.y_max;
	unsigned temporary = tc_hex(cg_chart_category_color(CG_CAT_TEMPORARY));
	/* the column holding t = 0.5 s, a few pixels under the top */
	bool found = false;
	for (int dx = -1; dx <= 1; dx++)
		if (tc_pixel(&c, x + dx, y + 30) == temporary)
			found = true;
	assert_true(found);
	tc_close(&c, a);
	cg_timeline_free(tl);
}

static void a_device_without_memory_records_is_not_drawn_and_says_why(void **state)
{
	/* cuda:0 appears only in a checkpoint */
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 10, "a", NULL, "cpu", 100, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_devmem(tl, 20, "cuda:0", 1000, 5000, UINT64_MAX);
	tu_tl_finalize(tl);
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	assert_null(cg_chart_timeline_skip(a, 0));
	assert_string_equal(cg_chart_timeline_skip(a, 1), "no memory records on this device");
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

/* A forward pass of 2,000 op spans, one after another (as PyTorch's
 * inferred forward phase has): each far narrower than a pixel, yet together
 * one band, drawn, not "too short to show". */
static void many_short_phase_spans_in_a_row_draw_one_band(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_meta(tl, "run_id", "pix");
	tu_span(tl, "root", NULL, "step", 0, UINT64_MAX, CG_PHASE_NONE);
	char id[32];
	for (int k = 0; k < 2000; k++) {
		snprintf(id, sizeof id, "op%d", k);
		tu_span(tl, id, "root", "aten::mm", (uint64_t)k * 5, (uint64_t)k * 5 + 4, CG_PHASE_FORWARD);
	}
	tu_mem(tl, 0, "w", "root", "cpu", 100, CG_ALLOC, CG_CAT_PARAMETER, NULL);
	tu_mem(tl, 9000, "x", "op1800", "cpu", 300, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_span_end(tl, "root", 20000);
	tu_tl_finalize(tl);
	cg_chart c;
	cg_analysis *a;
	draw_timeline(&c, &a, tl, 1.0);
	/* the band covers 0..10 µs of the 20 µs run: a quarter of the way in,
	 * the phase lane (above the plot) holds forward's tint */
	const cg_rect *p = &c.plot;
	double x = p->x0 + (p->x1 - p->x0) * 0.25;
	unsigned forward = tc_hex(cg_chart_lane_color(CG_PHASE_FORWARD));
	bool found = false;
	for (double y = 0; y < p->y0 && !found; y++)
		found = tc_pixel(&c, x, y) == forward;
	assert_true(found);
	tc_close(&c, a);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_peak_column_reaches_the_peak_in_the_top_category_colour),
		cmocka_unit_test(hidpi_keeps_the_layout),
		cmocka_unit_test(a_one_nanosecond_spike_is_still_drawn_at_full_height),
		cmocka_unit_test(a_device_without_memory_records_is_not_drawn_and_says_why),
		cmocka_unit_test(many_short_phase_spans_in_a_row_draw_one_band),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	cg_charts_shutdown();
	return rc;
}
