/* The charts of a report: every chart listed in report order, drawn or
 * skipped with a reason, in the formats and size asked for, the same bytes
 * for the same input; the devices with the largest peaks only; names that
 * are not UTF-8. (The same on a real sample, through the command line:
 * tests/cli/test_charts_cli.c; each chart's pixels: test_chart_*.c.) */
#include "chartutil.h"

#include <string.h>

#include "outdir.h"

static const char *const kinds[] = {"timeline", "breakdown", "icicle", "top_allocations", "fragmentation", "lifetimes"};
#define NKINDS (sizeof kinds / sizeof kinds[0])

/* The PNG's width and height from its IHDR chunk. */
static bool png_size(const char *path, unsigned *w, unsigned *h)
{
	size_t n;
	unsigned char *d = (unsigned char *)tu_read(path, &n);
	if (!d || n < 24 || memcmp(d, "\x89PNG", 4) != 0) {
		free(d);
		return false;
	}
	*w = (unsigned)d[16] << 24 | (unsigned)d[17] << 16 | (unsigned)d[18] << 8 | d[19];
	*h = (unsigned)d[20] << 24 | (unsigned)d[21] << 16 | (unsigned)d[22] << 8 | d[23];
	free(d);
	return true;
}

static char *chart_file(const cg_outdir *od, const char *kind, const char *ext, size_t *n)
{
	char path[700];
	snprintf(path, sizeof path, "%s/%s.cpu.%s", cg_outdir_dir(od), kind, ext);
	return tu_read(path, n);
}

/* Removes the digits of cairo's "surfaceN" ids, which count the surfaces
 * made in the process; returns the new length. */
static size_t drop_surface_ids(char *s)
{
	char *o = s;
	for (const char *p = s; *p;) {
		if (strncmp(p, "surface", 7) == 0) {
			memmove(o, p, 7);
			o += 7;
			for (p += 7; *p >= '0' && *p <= '9'; p++)
				;
			continue;
		}
		*o++ = *p++;
	}
	*o = '\0';
	return (size_t)(o - s);
}

static void every_chart_of_a_cpu_run_is_listed_in_report_order(void **state)
{
	/* chartutil's small run on "cpu": a CPU records no reserved bytes, so
	 * its fragmentation chart is the one skipped */
	cg_timeline *tl = tc_small_run();
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	cg_outdir *od;
	assert_int_equal(cg_outdir_begin(&od, tu_path("small"), false, NULL), 0);
	cg_charts_options o = CG_CHARTS_OPTIONS_INIT;
	o.png = false; /* SVG only */
	cg_chart_list list = {0};
	assert_int_equal(cg_charts_write(od, a, &o, &list, NULL), 0);
	assert_int_equal(list.n, NKINDS);
	for (size_t k = 0; k < NKINDS; k++) {
		char name[64];
		snprintf(name, sizeof name, "%s.cpu", kinds[k]);
		assert_string_equal(list.items[k].name, name);
		assert_non_null(strstr(list.items[k].title, " on cpu"));
		size_t n;
		char *png = chart_file(od, kinds[k], "png", &n), *svg = chart_file(od, kinds[k], "svg", &n);
		assert_null(png);
		/* drawn, or skipped with a reason and no file */
		assert_true((svg != NULL) == (list.items[k].skipped == NULL));
		if (svg)
			assert_non_null(strstr(svg, "width=\"1600px\""));
		free(svg);
	}
	assert_non_null(list.items[4].skipped);
	assert_non_null(strstr(list.items[4].skipped, "CPU"));
	cg_chart_list_free(&list);
	cg_outdir_abort(od);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

static void charts_come_in_the_size_and_formats_asked_for_and_the_same_bytes_twice(void **state)
{
	cg_timeline *tl = tc_small_run();
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	cg_charts_options o = CG_CHARTS_OPTIONS_INIT;
	o.size = (cg_chart_size){1000, 600, 2.0};
	cg_outdir *od[2];
	for (int r = 0; r < 2; r++) {
		assert_int_equal(cg_outdir_begin(&od[r], tu_path(r ? "twice2" : "twice1"), false, NULL), 0);
		cg_chart_list list = {0};
		assert_int_equal(cg_charts_write(od[r], a, &o, &list, NULL), 0);
		cg_chart_list_free(&list);
	}
	size_t drawn = 0;
	for (size_t k = 0; k < NKINDS; k++) {
		size_t n[2];
		char *svg[2] = {chart_file(od[0], kinds[k], "svg", &n[0]), chart_file(od[1], kinds[k], "svg", &n[1])};
		if (k == 4) { /* fragmentation: not for a CPU */
			assert_null(svg[0]);
			continue;
		}
		drawn++;
		/* SVG in logical pixels, PNG at twice the density */
		assert_non_null(svg[0]);
		assert_non_null(svg[1]);
		assert_non_null(strstr(svg[0], "width=\"1000px\" height=\"600px\""));
		/* byte for byte the same, but for the ids cairo numbers per
		 * process (two runs of the binary: tests/cli/test_charts_cli.c) */
		n[0] = drop_surface_ids(svg[0]);
		n[1] = drop_surface_ids(svg[1]);
		assert_int_equal(n[0], n[1]);
		assert_memory_equal(svg[0], svg[1], n[0]);
		char *png[2] = {chart_file(od[0], kinds[k], "png", &n[0]), chart_file(od[1], kinds[k], "png", &n[1])};
		assert_non_null(png[0]);
		assert_non_null(png[1]);
		assert_int_equal(n[0], n[1]);
		assert_memory_equal(png[0], png[1], n[0]);
		char path[700];
		snprintf(path, sizeof path, "%s/%s.cpu.png", cg_outdir_dir(od[0]), kinds[k]);
		unsigned w, h;
		assert_true(png_size(path, &w, &h));
		assert_int_equal(w, 2000);
		assert_int_equal(h, 1200);
		for (int r = 0; r < 2; r++) {
			free(svg[r]);
			free(png[r]);
		}
	}
	assert_int_equal(drawn, NKINDS - 1);
	cg_outdir_abort(od[0]);
	cg_outdir_abort(od[1]);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

static void only_the_devices_with_the_largest_peaks_get_charts(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 10, "a", NULL, "cuda:0", 100, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 10, "b", NULL, "cuda:1", 300, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 10, "c", NULL, "cuda:2", 200, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	cg_outdir *od;
	assert_int_equal(cg_outdir_begin(&od, tu_path("many"), false, NULL), 0);
	cg_charts_options o = CG_CHARTS_OPTIONS_INIT;
	o.png = false;
	o.max_devices = 2;
	cg_chart_list list = {0};
	assert_int_equal(cg_charts_write(od, a, &o, &list, NULL), 0);
	/* cuda:0 has the smallest peak: one entry, saying why */
	assert_string_equal(list.items[0].name, "timeline.cuda-0");
	assert_non_null(list.items[0].skipped);
	assert_non_null(strstr(list.items[0].skipped, "the 2 devices with the largest peaks, of 3"));
	assert_string_equal(list.items[1].name, "timeline.cuda-1");
	assert_null(list.items[1].skipped);
	assert_int_equal(list.n, 1 + 2 * NKINDS);
	char path[700];
	snprintf(path, sizeof path, "%s/timeline.cuda-0.svg", cg_outdir_dir(od));
	assert_false(tu_exists(path));
	snprintf(path, sizeof path, "%s/timeline.cuda-2.svg", cg_outdir_dir(od));
	assert_true(tu_exists(path));
	cg_chart_list_free(&list);
	cg_outdir_abort(od);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

static void names_that_are_not_utf8_are_drawn_with_replacement_characters(void **state)
{
	/* PyTorch traces are JSON documents whose names reach the charts unchecked */
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "a", NULL, "Res\xff\xfeNet \xe2\x80", 0, 100, CG_PHASE_FORWARD);
	tu_mem(tl, 10, "x", "a", "cu\xff" "da", 100, CG_ALLOC, CG_CAT_ACTIVATION, "op\xc3");
	tu_mem(tl, 20, "x", "a", "cu\xff" "da", 100, CG_FREE, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	static const tc_draw_fn draws[] = {cg_chart_timeline, cg_chart_breakdown, cg_chart_icicle, cg_chart_top_allocations,
					   cg_chart_lifetimes};
	for (size_t k = 0; k < sizeof draws / sizeof draws[0]; k++) {
		cg_chart c;
		cg_analysis *a;
		tc_draw(&c, &a, tl, 0, draws[k], 1600, 900, 1.0);
		assert_int_equal(cairo_status(c.cr), CAIRO_STATUS_SUCCESS);
		tc_close(&c, a);
	}
	cg_timeline_free(tl);
}

/* Slugs are distinct, whatever the names: a name that is its own slug
 * keeps it, the others take the first free -N in order, also when a
 * literal name already looks like a suffixed one; long names are cut at
 * CG_CHART_SLUG_MAX bytes first. Worked by hand. */
static void device_slugs_are_distinct_and_deterministic(void **state)
{
	char a[201], b[201], a127[CG_CHART_SLUG_MAX + 1];
	memset(a, 'A', 150);
	memset(a + 150, 'x', 50);
	a[200] = '\0';
	memcpy(b, a, 201);
	memset(b + 150, 'y', 50);
	memset(a127, 'A', CG_CHART_SLUG_MAX);
	a127[CG_CHART_SLUG_MAX] = '\0';
	const char *names[] = {"cuda:0", "cuda-0", "cuda/0", "cuda-0-2", "cuda 0", a, b, "", "cpu"};
	size_t n = sizeof names / sizeof names[0];
	char **slugs = cg_chart_device_slugs(names, n);
	char a127_2[CG_CHART_SLUG_MAX + 3];
	snprintf(a127_2, sizeof a127_2, "%s-2", a127);
	const char *expected[] = {"cuda-0-3", "cuda-0", "cuda-0-4", "cuda-0-2", "cuda-0-5", a127, a127_2, "", "cpu"};
	for (size_t i = 0; i < n; i++)
		assert_string_equal(slugs[i], expected[i]);
	/* the same names give the same slugs */
	char **again = cg_chart_device_slugs(names, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(again[i], slugs[i]);
	cg_chart_slugs_free(again, n);
	cg_chart_slugs_free(slugs, n);
	cg_chart_slugs_free(cg_chart_device_slugs(NULL, 0), 0);
}

/* 20,000 distinct names of one slug ("d" and four punctuation marks):
 * numbered in order, each from where the last stopped. */
static void many_names_of_one_slug_are_numbered_in_order(void **state)
{
	enum { N = 20000 };
	static const char marks[] = "!#$%&()*+,;<=>?";
	char **names = malloc(N * sizeof *names);
	for (int i = 0; i < N; i++) {
		names[i] = malloc(6);
		int v = i;
		names[i][0] = 'd';
		for (int k = 1; k <= 4; k++, v /= 15)
			names[i][k] = marks[v % 15];
		names[i][5] = '\0';
	}
	char **slugs = cg_chart_device_slugs((const char *const *)names, N);
	assert_string_equal(slugs[0], "d----");
	for (int i = 1; i < N; i++) {
		char want[32];
		snprintf(want, sizeof want, "d-----%d", i + 1);
		assert_string_equal(slugs[i], want);
	}
	cg_chart_slugs_free(slugs, N);
	for (int i = 0; i < N; i++)
		free(names[i]);
	free(names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_chart_of_a_cpu_run_is_listed_in_report_order),
		cmocka_unit_test(charts_come_in_the_size_and_formats_asked_for_and_the_same_bytes_twice),
		cmocka_unit_test(only_the_devices_with_the_largest_peaks_get_charts),
		cmocka_unit_test(names_that_are_not_utf8_are_drawn_with_replacement_characters),
		cmocka_unit_test(device_slugs_are_distinct_and_deterministic),
		cmocka_unit_test(many_names_of_one_slug_are_numbered_in_order),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	cg_charts_shutdown();
	return rc;
}
