/* The charts of cgmem diff: pixels where the numbers say (runs from
 * tests/helpers/difftrace.h, figures worked out in
 * tests/analysis/compare/test_diff.c). Well-formed SVG, the requested size
 * and the same bytes for the same input, through the command line:
 * tests/cli/test_chart_diff_cli.c. */
#include "chartutil.h"

#include <math.h>
#include <string.h>

#include "compare.h"
#include "difftrace.h"

typedef struct fixture {
	cg_timeline *tl[2];
	cg_analysis *a[2];
	cg_diff_view *v;
	cg_chart c;
} fixture;

static void open_chart(fixture *f, const run_spec *b, const run_spec *n, cg_align_mode mode, double scale)
{
	f->tl[0] = dt_timeline(b);
	f->tl[1] = dt_timeline(n);
	for (int s = 0; s < 2; s++)
		assert_int_equal(cg_analysis_run(&f->a[s], f->tl[s], NULL, NULL), 0);
	assert_int_equal(cg_diff_view_new(&f->v, f->a[0], f->a[1], mode, 20, NULL), 0);
	cg_chart_size size = {1600, 900, scale};
	assert_int_equal(cg_chart_open(&f->c, tu_path("d.png"), CG_CHART_PNG, &size, NULL), 0);
}

static void close_chart(fixture *f)
{
	assert_int_equal(cg_chart_close(&f->c, NULL), 0);
	cg_diff_view_free(f->v);
	for (int s = 0; s < 2; s++) {
		cg_analysis_free(f->a[s]);
		cg_timeline_free(f->tl[s]);
	}
}

/* Base: 164 B from t = 111 to 140, 100 B otherwise; new: 228 B then. Both
 * runs end at 400 ns, so with plain time t sits at t / 400 of the axis. */
static void check_overlay(double scale)
{
	run_spec base = RUN_SPEC_INIT, grown = RUN_SPEC_INIT;
	grown.act_bytes = 128;
	fixture f;
	open_chart(&f, &base, &grown, CG_ALIGN_START, scale);
	cg_chart *c = &f.c;
	cg_chart_diff_timeline(c, f.v, 0);
	const cg_rect *p = &c->plot;
	assert_true(c->x_max == 1);
	assert_true(c->y_max >= 228);
	double xs = p->x1 - p->x0, ys = (p->y1 - p->y0) / c->y_max;
	double x_in = p->x0 + xs * 135.0 / 400.0;  /* both activations live */
	double x_out = p->x0 + xs * 150.0 / 400.0; /* both freed: 100 B each */
	/* the base run is a grey area up to its live bytes */
	assert_int_equal(tc_pixel(c, x_in, p->y1 - 50 * ys), CG_DIFF_BASE_FILL);
	assert_int_equal(tc_pixel(c, x_in, p->y1 - 150 * ys), CG_DIFF_BASE_FILL);
	/* the new run's line at 228 B, nothing between the two */
	assert_int_equal(tc_pixel(c, x_in, p->y1 - 228 * ys), CG_DIFF_NEW_LINE);
	assert_int_equal(tc_pixel(c, x_in, p->y1 - 180 * ys), 0xFFFFFF);
	/* once freed, the area ends below 130 B and the new line is at 100 B */
	assert_int_equal(tc_pixel(c, x_out, p->y1 - 130 * ys), 0xFFFFFF);
	assert_int_equal(tc_pixel(c, x_out, p->y1 - 50 * ys), CG_DIFF_BASE_FILL);
	assert_int_equal(tc_pixel(c, x_out, p->y1 - 100 * ys), CG_DIFF_NEW_LINE);
	close_chart(&f);
}

static void the_overlay_draws_each_run_at_its_live_bytes(void **state)
{
	check_overlay(1.0);
}

static void hidpi_keeps_the_overlay(void **state)
{
	check_overlay(2.0);
}

/* difftrace times both runs alike, so with phases aligned every knot
 * pairs equal times and the axis is the plain one: the wiring, checked. */
static void phase_alignment_reaches_the_chart(void **state)
{
	run_spec base = RUN_SPEC_INIT, grown = RUN_SPEC_INIT;
	grown.act_bytes = 128;
	fixture f;
	open_chart(&f, &base, &grown, CG_ALIGN_PHASES, 1.0);
	assert_int_equal(f.v->align->steps_matched, 3);
	assert_int_equal(f.v->align->matched, 3);
	cg_chart_diff_timeline(&f.c, f.v, 0);
	const cg_rect *p = &f.c.plot;
	double ys = (p->y1 - p->y0) / f.c.y_max;
	assert_int_equal(tc_pixel(&f.c, p->x0 + (p->x1 - p->x0) * 135.0 / 400.0, p->y1 - 228 * ys), CG_DIFF_NEW_LINE);
	close_chart(&f);
}

/* Runs of one colour down a pixel column: how many, and their middles. */
static int runs_of(cg_chart *c, double x, unsigned color, double *mids, int max)
{
	int n = 0;
	double start = -1;
	for (double y = c->plot.y0; y <= c->plot.y1 + 1; y += 1.0 / c->scale) {
		bool in = y <= c->plot.y1 && tc_pixel(c, x, y) == color;
		if (in && start < 0)
			start = y;
		if (!in && start >= 0) {
			if (n < max)
				mids[n] = (start + y) / 2;
			n++;
			start = -1;
		}
	}
	return n;
}

/* How far a bar of this colour reaches from the zero line at height y. */
static double bar_length(cg_chart *c, double zero, double y, unsigned color, int dir)
{
	double x = zero + dir * 2;
	while (x > 0 && x < c->width - 1 && tc_pixel(c, x, y) == color)
		x += dir / c->scale;
	return fabs(x - zero);
}

/* Base: act 128 B; new: act 64 B and 200 B of optimizer state. At the
 * peaks: optimizer_state and the span path of opt grew by 200 B,
 * activation and the path of fc1 shrank by 64 B, the 100 B parameter did
 * not change. The axis reaches 256 B (steps of 64 B). */
static void change_bars_are_as_long_as_the_changes(void **state)
{
	run_spec base = RUN_SPEC_INIT, adam = RUN_SPEC_INIT;
	base.act_bytes = 128;
	adam.opt = true;
	fixture f;
	open_chart(&f, &base, &adam, CG_ALIGN_START, 1.0);
	cg_chart *c = &f.c;
	cg_chart_diff_change(c, f.v, 0);
	assert_true(c->x_max == 256);
	double zero = (c->plot.x0 + c->plot.x1) / 2, half = (c->plot.x1 - c->plot.x0) / 2;
	double grew[4], shrank[4];
	assert_int_equal(runs_of(c, zero + 3, CG_DIFF_GREW, grew, 4), 2);
	assert_int_equal(runs_of(c, zero - 3, CG_DIFF_SHRANK, shrank, 4), 2);
	for (int k = 0; k < 2; k++) {
		assert_true(fabs(bar_length(c, zero, grew[k], CG_DIFF_GREW, 1) - 200.0 / 256.0 * half) <= 2);
		assert_true(fabs(bar_length(c, zero, shrank[k], CG_DIFF_SHRANK, -1) - 64.0 / 256.0 * half) <= 2);
	}
	/* categories come first, largest change first: optimizer state above activation */
	assert_true(grew[0] < shrank[0]);
	/* nothing grew or shrank to the far side */
	assert_int_equal(runs_of(c, zero - 3, CG_DIFF_GREW, grew, 4), 0);
	assert_int_equal(runs_of(c, zero + 3, CG_DIFF_SHRANK, shrank, 4), 0);
	close_chart(&f);
}

static void no_change_draws_no_bars(void **state)
{
	run_spec base = RUN_SPEC_INIT;
	fixture f;
	open_chart(&f, &base, &base, CG_ALIGN_START, 1.0);
	cg_chart *c = &f.c;
	cg_chart_diff_change(c, f.v, 0);
	double zero = (c->plot.x0 + c->plot.x1) / 2, mids[4];
	assert_int_equal(runs_of(c, zero + 3, CG_DIFF_GREW, mids, 4), 0);
	assert_int_equal(runs_of(c, zero - 3, CG_DIFF_SHRANK, mids, 4), 0);
	close_chart(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_overlay_draws_each_run_at_its_live_bytes),
		cmocka_unit_test(hidpi_keeps_the_overlay),
		cmocka_unit_test(phase_alignment_reaches_the_chart),
		cmocka_unit_test(change_bars_are_as_long_as_the_changes),
		cmocka_unit_test(no_change_draws_no_bars),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	cg_charts_shutdown();
	return rc;
}
