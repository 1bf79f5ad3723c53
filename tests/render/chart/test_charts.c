/* Charts: pixels where the numbers say, well-formed SVG, requested sizes,
 * byte-identical output for the same input. */
#include "chartutil.h"

#include <string.h>

#include "analysis.h"
#include "charts.h"
#include "outdir.h"

#define META "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"run_id\":\"pix\"}\n"
/* 100 B of parameters from t=0; 300 B of activations from 1 µs to 2 µs; the
 * run lasts 10 µs. Peak: 400 B at t = 1000 ns. */
static const char pixel_trace[] = META
	"{\"kind\":\"span_start\",\"id\":\"a\",\"name\":\"root\",\"start_ns\":0,\"span_kind\":\"function\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":0,\"tensor_id\":\"w\",\"span_id\":\"a\",\"device\":\"cpu\",\"bytes\":100,"
	"\"action\":\"alloc\",\"dtype\":\"f32\",\"category\":\"parameter\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":1000,\"tensor_id\":\"x\",\"span_id\":\"a\",\"device\":\"cpu\",\"bytes\":300,"
	"\"action\":\"alloc\",\"dtype\":\"f32\",\"category\":\"activation\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":2000,\"tensor_id\":\"x\",\"span_id\":\"a\",\"device\":\"cpu\",\"bytes\":300,"
	"\"action\":\"free\",\"dtype\":\"f32\"}\n"
	"{\"kind\":\"span_end\",\"id\":\"a\",\"duration_ns\":10000}\n";

static void draw_timeline(cg_chart *c, cg_analysis **a, cg_timeline **tl, const char *trace, double scale)
{
	*tl = tu_ingest_text(trace);
	assert_int_equal(cg_analysis_run(a, *tl, NULL, NULL), 0);
	cg_chart_size size = {1600, 900, scale};
	assert_int_equal(cg_chart_open(c, tu_path("t.png"), CG_CHART_PNG, &size, NULL), 0);
	cg_chart_timeline(c, *a, 0, "pix");
}

static void check_peak_column(double scale)
{
	cg_chart c;
	cg_analysis *a;
	cg_timeline *tl;
	draw_timeline(&c, &a, &tl, pixel_trace, scale);
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
	assert_int_equal(cg_chart_close(&c, NULL), 0);
	cg_analysis_free(a);
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
	/* 1 GiB for 1 ns in a run of 1 s: far narrower than a pixel. */
	char trace[4096];
	snprintf(trace, sizeof trace, META
		 "{\"kind\":\"memory\",\"timestamp_ns\":0,\"tensor_id\":\"w\",\"span_id\":\"a\",\"device\":\"cpu\",\"bytes\":1048576,"
		 "\"action\":\"alloc\",\"dtype\":\"f32\",\"category\":\"parameter\"}\n"
		 "{\"kind\":\"memory\",\"timestamp_ns\":500000000,\"tensor_id\":\"s\",\"span_id\":\"a\",\"device\":\"cpu\",\"bytes\":1073741824,"
		 "\"action\":\"alloc\",\"dtype\":\"f32\",\"category\":\"temporary\"}\n"
		 "{\"kind\":\"memory\",\"timestamp_ns\":500000001,\"tensor_id\":\"s\",\"span_id\":\"a\",\"device\":\"cpu\",\"bytes\":1073741824,"
		 "\"action\":\"free\",\"dtype\":\"f32\"}\n"
		 "{\"kind\":\"memory\",\"timestamp_ns\":1000000000,\"tensor_id\":\"w\",\"span_id\":\"a\",\"device\":\"cpu\",\"bytes\":1048576,"
		 "\"action\":\"free\",\"dtype\":\"f32\"}\n");
	cg_chart c;
	cg_analysis *a;
	cg_timeline *tl;
	draw_timeline(&c, &a, &tl, trace, 1.0);
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
	assert_int_equal(cg_chart_close(&c, NULL), 0);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

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

static const char *const kinds[] = {"timeline", "breakdown", "icicle", "top_allocations", "fragmentation", "lifetimes"};
#define NKINDS (sizeof kinds / sizeof kinds[0])

static char *report_file(const char *dir, const char *name, const char *ext, size_t *n)
{
	char path[700];
	snprintf(path, sizeof path, "%s/%s.cpu.%s", dir, name, ext);
	return tu_read(path, n);
}

static void every_chart_is_listed_drawn_or_skipped_with_a_reason(void **state)
{
	cg_timeline *tl = NULL;
	cg_ingest_options io = CG_INGEST_OPTIONS_INIT;
	assert_int_equal(cg_ingest(&tl, tu_sample("mlp_adam.jsonl"), &io, NULL), 0);
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	cg_outdir *od;
	assert_int_equal(cg_outdir_begin(&od, tu_path("list"), false, NULL), 0);
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
		char png[700], svg[700];
		snprintf(png, sizeof png, "%s/%s.png", cg_outdir_dir(od), name);
		snprintf(svg, sizeof svg, "%s/%s.svg", cg_outdir_dir(od), name);
		assert_false(tu_exists(png));
		/* drawn, or skipped with a reason and no file */
		assert_true(tu_exists(svg) == (list.items[k].skipped == NULL));
	}
	/* a CPU with no reserved bytes recorded: no fragmentation chart */
	assert_non_null(list.items[4].skipped);
	assert_non_null(strstr(list.items[4].skipped, "CPU"));
	cg_chart_list_free(&list);
	cg_outdir_abort(od);
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

static void report_charts_are_well_formed_sized_and_deterministic(void **state)
{
	const char *out1 = tu_path("c1"), *out2 = tu_path("c2");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", out1, "-q", "--no-trace", NULL), 0);
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", out2, "-q", "--no-trace", NULL), 0);
	size_t drawn = 0;
	for (size_t k = 0; k < NKINDS; k++) {
		size_t n1, n2;
		char *s1 = report_file(out1, kinds[k], "svg", &n1), *s2 = report_file(out2, kinds[k], "svg", &n2);
		if (!s1) {
			assert_null(s2);
			continue;
		}
		drawn++;
		/* byte for byte the same: no timestamps, no random ids */
		assert_non_null(s2);
		assert_int_equal(n1, n2);
		assert_memory_equal(s1, s2, n1);
		assert_non_null(strstr(s1, "width=\"1600px\""));
		free(s1);
		free(s2);
		char cmd[800];
		snprintf(cmd, sizeof cmd, "xmllint --noout '%s/%s.cpu.svg' 2>&1", out1, kinds[k]);
		assert_int_equal(system(cmd), 0);
		char png[700];
		snprintf(png, sizeof png, "%s/%s.cpu.png", out1, kinds[k]);
		unsigned w, h;
		assert_true(png_size(png, &w, &h));
		assert_int_equal(w, 1600);
		assert_int_equal(h, 900);
	}
	assert_int_equal(drawn, NKINDS - 1); /* all but fragmentation */
}

static void size_scale_and_formats_come_from_the_command_line(void **state)
{
	const char *out = tu_path("opts");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", out, "-q", "--no-trace",
				"--width", "1000", "--height", "600", "--scale", "2", "--formats", "png", NULL),
			 0);
	for (size_t k = 0; k < NKINDS; k++) {
		char png[700], svg[700];
		snprintf(png, sizeof png, "%s/%s.cpu.png", out, kinds[k]);
		snprintf(svg, sizeof svg, "%s/%s.cpu.svg", out, kinds[k]);
		assert_false(tu_exists(svg));
		unsigned w, h;
		if (k == 4)
			continue; /* not drawn for a CPU without reserved bytes */
		assert_true(png_size(png, &w, &h));
		assert_int_equal(w, 2000);
		assert_int_equal(h, 1200);
	}
	out = tu_path("svgonly");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", out, "-q", "--no-trace",
				"--width", "1000", "--height", "600", "--formats", "svg", NULL),
			 0);
	size_t n;
	char *svg = report_file(out, "timeline", "svg", &n);
	assert_non_null(svg);
	assert_non_null(strstr(svg, "width=\"1000px\" height=\"600px\""));
	free(svg);
	char png[700];
	snprintf(png, sizeof png, "%s/timeline.cpu.png", out);
	assert_false(tu_exists(png));
}

static void bad_chart_options_are_usage_errors(void **state)
{
	static const char *const bad[][2] = {
		{"--width", "799"},	 {"--width", "12x"},   {"--height", "449"},	{"--height", "100000"},
		{"--scale", "0"},	 {"--scale", "nan"},   {"--scale", "5"},	{"--formats", "pdf"},
		{"--formats", "png,"}, {"--formats", ""},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *out = NULL, *err = NULL;
		int rc = tu_run(&out, &err, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", tu_path("bad"), "-q",
				bad[i][0], bad[i][1], NULL);
		assert_int_equal(rc, 2);
		assert_non_null(strstr(err, bad[i][0]));
		assert_false(tu_exists(tu_path("bad")));
		free(out);
		free(err);
	}
	/* a PNG too big to hold in memory */
	char *out = NULL, *err = NULL;
	assert_int_equal(tu_run(&out, &err, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", tu_path("bad"), "-q",
				"--width", "5000", "--scale", "2", NULL),
			 2);
	assert_non_null(strstr(err, "8192"));
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_peak_column_reaches_the_peak_in_the_top_category_colour),
		cmocka_unit_test(hidpi_keeps_the_layout),
		cmocka_unit_test(a_one_nanosecond_spike_is_still_drawn_at_full_height),
		cmocka_unit_test(every_chart_is_listed_drawn_or_skipped_with_a_reason),
		cmocka_unit_test(only_the_devices_with_the_largest_peaks_get_charts),
		cmocka_unit_test(names_that_are_not_utf8_are_drawn_with_replacement_characters),
		cmocka_unit_test(report_charts_are_well_formed_sized_and_deterministic),
		cmocka_unit_test(size_scale_and_formats_come_from_the_command_line),
		cmocka_unit_test(bad_chart_options_are_usage_errors),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	cg_charts_shutdown();
	return rc;
}
