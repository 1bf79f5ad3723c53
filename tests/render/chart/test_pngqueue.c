/* The PNG queue: every image pushed is written, the same bytes as writing
 * it directly, more images than the queue holds at once included; write
 * errors come back from finish, the first one; a chart closed into the
 * queue is the file closed directly, also when drawn into one of the
 * queue's reused buffers; finish(NULL) is a no-op. */
#include "testutil.h"

#include <string.h>

#include "chart.h"
#include "charts.h"
#include "pngqueue.h"
#include "xalloc.h"

/* An opaque image, different for each k: a colour and a bar at row k. */
static cairo_surface_t *image(int k)
{
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 64, 48);
	cairo_t *cr = cairo_create(s);
	cairo_set_source_rgb(cr, (k % 5) / 4.0, (k % 3) / 2.0, 1.0 - (k % 7) / 6.0);
	cairo_paint(cr);
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_rectangle(cr, 0, k % 48, 64, 3);
	cairo_fill(cr);
	cairo_destroy(cr);
	cairo_surface_flush(s);
	assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
	return s;
}

/* Files x and y (paths) hold the same bytes. */
static void assert_same_file(const char *x, const char *y)
{
	size_t n1, n2;
	char *a = tu_read(x, &n1), *b = tu_read(y, &n2);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(n1, n2);
	assert_memory_equal(a, b, n1);
	free(a);
	free(b);
}

static void every_queued_png_is_the_same_bytes_as_written_directly(void **state)
{
	/* 9 images: more than the 2 that wait at a time */
	enum { N = 9 };
	cg_png_queue *q = cg_png_queue_new();
	char direct[N][64], queued[N][64];
	for (int k = 0; k < N; k++) {
		cairo_surface_t *s = image(k);
		snprintf(direct[k], sizeof direct[k], "direct%d.png", k);
		snprintf(queued[k], sizeof queued[k], "queued%d.png", k);
		cg_png_image img = cg_png_image_of(s);
		assert_int_equal(cg_png_write(&img, tu_path(direct[k]), NULL), 0);
		cg_png_queue_push(q, s, cg_strdup(tu_path(queued[k])), NULL, 1); /* q owns s and the path */
	}
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_png_queue_finish(q, &err), 0);
	assert_int_equal(err.code, 0);
	size_t first_len = 0;
	for (int k = 0; k < N; k++) {
		size_t n1, n2;
		char *a = tu_read(tu_path(direct[k]), &n1), *b = tu_read(tu_path(queued[k]), &n2);
		assert_non_null(a);
		assert_non_null(b);
		assert_memory_equal(a, "\x89PNG", 4);
		assert_int_equal(n1, n2);
		assert_memory_equal(a, b, n1);
		/* and the images really differ from one another */
		if (k == 0)
			first_len = n1;
		else {
			char *first = tu_read(tu_path(direct[0]), NULL);
			assert_true(n1 != first_len || memcmp(first, a, n1) != 0);
			free(first);
		}
		free(a);
		free(b);
	}
}

static void a_write_error_comes_back_from_finish_and_the_others_are_written(void **state)
{
	char bad1[700], bad2[700];
	snprintf(bad1, sizeof bad1, "%s/missing/one.png", tu_tmpdir());
	snprintf(bad2, sizeof bad2, "%s/missing/two.png", tu_tmpdir());
	cg_png_queue *q = cg_png_queue_new();
	cg_png_queue_push(q, image(1), cg_strdup(tu_path("good1.png")), NULL, 1);
	cg_png_queue_push(q, image(2), cg_strdup(bad1), NULL, 1);
	cg_png_queue_push(q, image(3), cg_strdup(tu_path("good2.png")), NULL, 1);
	cg_png_queue_push(q, image(4), cg_strdup(bad2), NULL, 1);
	cg_png_queue_push(q, image(5), cg_strdup(tu_path("good3.png")), NULL, 1);
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_png_queue_finish(q, &err), CG_EIO);
	assert_int_equal(err.code, CG_EIO);
	/* the first error, naming its file */
	assert_non_null(strstr(err.msg, bad1));
	assert_null(strstr(err.msg, bad2));
	assert_true(tu_exists(tu_path("good1.png")));
	assert_true(tu_exists(tu_path("good2.png")));
	assert_true(tu_exists(tu_path("good3.png")));
	assert_false(tu_exists(bad1));
}

static void a_chart_closed_into_the_queue_is_the_file_closed_directly(void **state)
{
	cg_chart_size size = {800, 450, 1.0};
	const char *paths[2] = {tu_path("chart-direct.png"), tu_path("chart-queued.png")};
	cg_png_queue *q = cg_png_queue_new();
	for (int k = 0; k < 2; k++) {
		cg_chart c;
		assert_int_equal(cg_chart_open(&c, paths[k], CG_CHART_PNG, &size, NULL), 0);
		cg_chart_frame(&c, "Live memory", "run pq", "footnote");
		cg_chart_box(&c, 100, 100, 200, 50, cg_chart_category_color(CG_CAT_GRADIENT));
		assert_int_equal(k ? cg_chart_close_queued(&c, q, NULL) : cg_chart_close(&c, NULL), 0);
	}
	assert_int_equal(cg_png_queue_finish(q, NULL), 0);
	assert_same_file(paths[0], paths[1]);
}

/* Charts drawn into the queue's reused buffers are the files drawn into
 * cairo's own surfaces, three in a row (each after an opaque red one in
 * the same buffer), and a buffer handed back comes out blank. */
static void a_chart_drawn_into_a_reused_buffer_is_the_file_drawn_afresh(void **state)
{
	cg_chart_size size = {800, 450, 1.0};
	cg_png_queue *q = cg_png_queue_new();
	cairo_surface_t *red = cg_png_queue_surface(q, 800, 450);
	assert_int_equal(cairo_surface_status(red), CAIRO_STATUS_SUCCESS);
	unsigned char *pixels = cairo_image_surface_get_data(red);
	cairo_t *cr = cairo_create(red);
	cairo_set_source_rgb(cr, 1, 0, 0);
	cairo_paint(cr);
	cairo_destroy(cr);
	cairo_surface_destroy(red); /* its buffer goes back to q */
	cairo_surface_t *again = cg_png_queue_surface(q, 800, 450);
	assert_ptr_equal(cairo_image_surface_get_data(again), pixels); /* reused... */
	size_t bytes = (size_t)cairo_image_surface_get_stride(again) * 450;
	unsigned char *zero = calloc(1, bytes);
	assert_memory_equal(pixels, zero, bytes); /* ...and blank */
	free(zero);
	cairo_surface_destroy(again);

	enum { N = 3 };
	for (int k = 0; k < N; k++) {
		char direct[32], pooled[32];
		snprintf(direct, sizeof direct, "fresh%d.png", k);
		snprintf(pooled, sizeof pooled, "pooled%d.png", k);
		for (int pass = 0; pass < 2; pass++) {
			cg_chart c;
			const char *path = tu_path(pass ? pooled : direct);
			assert_int_equal(cg_chart_open_queued(&c, path, CG_CHART_PNG, &size, pass ? q : NULL, NULL), 0);
			cg_chart_frame(&c, "Live memory", "run pq", "footnote");
			cg_chart_box(&c, 100 + 50 * k, 100, 200, 50, cg_chart_category_color(CG_CAT_GRADIENT));
			assert_int_equal(cg_chart_close_queued(&c, pass ? q : NULL, NULL), 0);
		}
	}
	assert_int_equal(cg_png_queue_finish(q, NULL), 0);
	for (int k = 0; k < N; k++) {
		char direct[32], pooled[32];
		snprintf(direct, sizeof direct, "fresh%d.png", k);
		snprintf(pooled, sizeof pooled, "pooled%d.png", k);
		assert_same_file(tu_path(direct), tu_path(pooled));
	}
}

static void finishing_nothing_succeeds(void **state)
{
	assert_int_equal(cg_png_queue_finish(NULL, NULL), 0);
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_png_queue_finish(cg_png_queue_new(), &err), 0);
	assert_int_equal(err.code, 0);
	/* an error without a cg_error to fill still comes back as a code */
	char bad[700];
	snprintf(bad, sizeof bad, "%s/missing/x.png", tu_tmpdir());
	cg_png_queue *q = cg_png_queue_new();
	cg_png_queue_push(q, image(0), cg_strdup(bad), NULL, 1);
	assert_int_equal(cg_png_queue_finish(q, NULL), CG_EIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_queued_png_is_the_same_bytes_as_written_directly),
		cmocka_unit_test(a_write_error_comes_back_from_finish_and_the_others_are_written),
		cmocka_unit_test(a_chart_closed_into_the_queue_is_the_file_closed_directly),
		cmocka_unit_test(a_chart_drawn_into_a_reused_buffer_is_the_file_drawn_afresh),
		cmocka_unit_test(finishing_nothing_succeeds),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	cg_charts_shutdown(); /* the fonts the chart case loaded */
	return rc;
}
