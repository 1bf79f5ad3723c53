/* Column series: a series reduced to pixel columns keeps every extreme, so
 * the drawn maximum is the series' maximum whatever the number of points. */
#include "testutil.h"

#include <string.h>

#include "colseries.h"

static void a_spike_inside_a_column_keeps_its_height(void **state)
{
	/* 10 columns over 1000 ns: column k holds [100 k, 100 k + 100) */
	cg_colseries s;
	cg_colseries_init(&s, 10, 1000);
	cg_colseries_add(&s, 0, 5);
	cg_colseries_add(&s, 250, 7);
	cg_colseries_add(&s, 251, 1000); /* 1 ns long */
	cg_colseries_add(&s, 252, 6);
	cg_colseries_add(&s, 730, 2);
	cg_colseries_finish(&s);
	assert_int_equal(s.first, 0);
	/* column 2 enters at 5, reaches 1000, leaves at 6 */
	assert_true(s.enter[2] == 5 && s.hi[2] == 1000 && s.lo[2] == 5 && s.last[2] == 6);
	/* columns between points hold the value */
	for (int k = 3; k < 7; k++)
		assert_true(s.enter[k] == 6 && s.lo[k] == 6 && s.hi[k] == 6 && s.last[k] == 6);
	assert_true(s.lo[7] == 2 && s.hi[7] == 6 && s.last[7] == 2);
	/* the last value to the right edge */
	assert_true(s.last[9] == 2 && s.hi[9] == 2);
	assert_true(s.max == 1000);
	cg_colseries_free(&s);
}

static void a_series_starts_at_its_first_point(void **state)
{
	cg_colseries s;
	cg_colseries_init(&s, 10, 1000);
	cg_colseries_add(&s, 420, 3);
	cg_colseries_finish(&s);
	assert_int_equal(s.first, 4);
	assert_int_equal(s.cur, 9);
	cg_colseries_free(&s);
	/* a time past the end falls in the last column */
	cg_colseries_init(&s, 10, 1000);
	cg_colseries_add(&s, 5000, 3);
	assert_int_equal(s.first, 9);
	cg_colseries_finish(&s);
	cg_colseries_free(&s);
}

/* The highest point of the path cairo holds. */
static double path_top(cairo_t *cr)
{
	cairo_path_t *path = cairo_copy_path(cr);
	double top = 1e9;
	for (int i = 0; i < path->num_data; i += path->data[i].header.length)
		if (path->data[i].header.type != CAIRO_PATH_CLOSE_PATH && path->data[i + 1].point.y < top)
			top = path->data[i + 1].point.y;
	cairo_path_destroy(path);
	return top;
}

static void the_drawn_maximum_is_the_series_maximum_however_many_points(void **state)
{
	cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 200, 100);
	cairo_t *cr = cairo_create(surface);
	cg_rect plot = {0, 0, 200, 100};
	cg_colseries s;
	cg_colseries_init(&s, 200, 1000000);
	/* a million points, one spike of 1 ns at 777,777 ns */
	for (uint64_t t = 0; t < 1000000; t++)
		cg_colseries_add(&s, t, t == 777777 ? 90 : (double)(t % 7));
	cg_colseries_finish(&s);
	for (int style = 0; style < 2; style++) {
		cairo_new_path(cr);
		cg_colseries_path(cr, &s, &plot, 100, (cg_colseries_style)style);
		assert_true(path_top(cr) == 10.0); /* y of 90 on a 0-100 axis, 100 px tall */
	}
	cg_colseries_free(&s);
	cairo_destroy(cr);
	cairo_surface_destroy(surface);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_spike_inside_a_column_keeps_its_height),
		cmocka_unit_test(a_series_starts_at_its_first_point),
		cmocka_unit_test(the_drawn_maximum_is_the_series_maximum_however_many_points),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	cairo_debug_reset_static_data();
	return rc;
}
