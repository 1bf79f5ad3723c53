/* The PNG writer: its files read back as the same pixels; a file that
 * cannot be written is an error naming it. */
#include "testutil.h"

#include <string.h>

#include "png.h"

static void a_png_reads_back_as_the_same_pixels(void **state)
{
	cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 301, 77);
	cairo_t *cr = cairo_create(surface);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_set_source_rgb(cr, 0, 0.447, 0.698);
	cairo_rectangle(cr, 10.5, 3.25, 120.3, 50);
	cairo_fill(cr);
	cairo_set_source_rgb(cr, 0.835, 0.369, 0);
	cairo_arc(cr, 200, 40, 30, 0, 6.3);
	cairo_fill(cr);
	cairo_destroy(cr);
	const char *path = tu_path("round.png");
	assert_int_equal(cg_png_write(surface, path, NULL), 0);
	cairo_surface_t *back = cairo_image_surface_create_from_png(path);
	assert_int_equal(cairo_surface_status(back), CAIRO_STATUS_SUCCESS);
	assert_int_equal(cairo_image_surface_get_width(back), 301);
	assert_int_equal(cairo_image_surface_get_height(back), 77);
	cairo_surface_flush(surface);
	for (int y = 0; y < 77; y++) {
		const uint32_t *a = (const uint32_t *)(const void *)(cairo_image_surface_get_data(surface) +
								     (size_t)y * (size_t)cairo_image_surface_get_stride(surface));
		const uint32_t *b = (const uint32_t *)(const void *)(cairo_image_surface_get_data(back) +
								     (size_t)y * (size_t)cairo_image_surface_get_stride(back));
		for (int x = 0; x < 301; x++)
			assert_int_equal(a[x] & 0xffffff, b[x] & 0xffffff);
	}
	cairo_surface_destroy(back);
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_png_write(surface, "/nonexistent-dir/x.png", &err), CG_EIO);
	assert_non_null(strstr(err.msg, "/nonexistent-dir/x.png"));
	cairo_surface_destroy(surface);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_png_reads_back_as_the_same_pixels),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	cairo_debug_reset_static_data();
	return rc;
}
