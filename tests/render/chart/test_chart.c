/* The chart context (chart.h): nice ticks for bytes (1, 2, 4, 8 x 2^k),
 * counts and time (1, 2, 5 x 10^k) and their labels and units, how many
 * fit an axis, text cut to a width without splitting a character, lines on
 * whole device pixels, PNG and SVG files opened and closed (and the error
 * for a path that cannot be written), and a palette whose colours differ. */
#include "chartutil.h"

#include <math.h>
#include <string.h>

#include "utf8.h"
#include "xalloc.h"

#define MIB 1048576.0

static void label_is(const cg_ticks *t, int i, const char *want)
{
	char buf[32];
	assert_string_equal(cg_ticks_label(t, i, buf, sizeof buf), want);
}

static void byte_ticks_are_powers_of_two_under_a_unit_from_the_axis_maximum(void **state)
{
	cg_ticks t;
	/* 1000 B in at most 5 intervals: 128 B needs 8, 256 B needs 4; the axis
	 * reaches 1024 B = 1 KiB, so labels are KiB with 2 decimals (0.25) */
	cg_ticks_bytes(&t, 1000, 5);
	assert_int_equal(t.kind, CG_TICKS_BYTES);
	assert_true(t.step == 256 && t.count == 5 && t.max == 1024);
	assert_string_equal(t.unit, "KiB");
	assert_true(t.divisor == 1024);
	assert_int_equal(t.decimals, 2);
	label_is(&t, 0, "0.00");
	label_is(&t, 1, "0.25");
	label_is(&t, 4, "1.00");
	/* 22 MiB in 6: steps of 4 MiB (2 MiB needs 11) up to 24 MiB, whole MiB */
	cg_ticks_bytes(&t, 22 * MIB, 6);
	assert_true(t.step == 4 * MIB && t.count == 7 && t.max == 24 * MIB);
	assert_string_equal(t.unit, "MiB");
	assert_int_equal(t.decimals, 0);
	label_is(&t, 6, "24");
	/* nothing to show: an axis of 1 B */
	cg_ticks_bytes(&t, 0, 5);
	assert_true(t.step == 1 && t.count == 2 && t.max == 1);
	assert_string_equal(t.unit, "B");
	label_is(&t, 1, "1");
}

static void byte_ticks_take_the_smallest_power_of_two_that_fits(void **state)
{
	/* for any maximum: a power of two, at most max_intervals intervals
	 * covering it, and half the step would need more */
	for (double max = 1; max < 1e15; max = max * 1.37 + 3) {
		for (int n = 2; n <= 10; n++) {
			cg_ticks t;
			cg_ticks_bytes(&t, max, n);
			int e;
			assert_true(frexp(t.step, &e) == 0.5); /* exactly 2^(e - 1) */
			assert_true(t.count - 1 <= n);
			assert_true(t.max >= max && t.max == t.step * (t.count - 1));
			assert_true(t.max - t.step < max);
			if (t.step > 1)
				assert_true(ceil(max / (t.step / 2)) > n);
		}
	}
}

static void growing_a_byte_axis_can_change_its_unit(void **state)
{
	cg_ticks t;
	/* 768 B in 3 steps of 256 B: bytes, no decimals */
	cg_ticks_bytes(&t, 768, 3);
	assert_string_equal(t.unit, "B");
	label_is(&t, 3, "768");
	/* one more step reaches 1024 B: now KiB, 256 B being 0.25 KiB */
	cg_ticks_grow(&t);
	assert_true(t.count == 5 && t.max == 1024);
	assert_string_equal(t.unit, "KiB");
	assert_int_equal(t.decimals, 2);
	label_is(&t, 3, "0.75");
	label_is(&t, 4, "1.00");
}

static void count_ticks_are_one_two_five_with_thousands_separators(void **state)
{
	cg_ticks t;
	/* 37 in at most 5: 5 would need 8 intervals, 10 needs 4 (to 40) */
	cg_ticks_count(&t, 37, 5);
	assert_int_equal(t.kind, CG_TICKS_COUNT);
	assert_true(t.step == 10 && t.count == 5 && t.max == 40);
	assert_string_equal(t.unit, "");
	label_is(&t, 4, "40");
	/* 20,000 in 4: 5,000 fits exactly */
	cg_ticks_count(&t, 20000, 4);
	assert_true(t.step == 5000 && t.count == 5 && t.max == 20000);
	label_is(&t, 1, "5,000");
	label_is(&t, 4, "20,000");
	/* 3 in 10: whole numbers, never 0.5 */
	cg_ticks_count(&t, 3, 10);
	assert_true(t.step == 1 && t.count == 4);
	cg_ticks_grow(&t);
	assert_true(t.count == 5 && t.max == 4);
	label_is(&t, 4, "4");
}

static void time_ticks_are_one_two_five_in_a_unit_for_the_whole_axis(void **state)
{
	cg_ticks t;
	/* 1 s in 5: 0.2 s (0.1 s would need 10) */
	cg_ticks_time(&t, 1e9, 5);
	assert_int_equal(t.kind, CG_TICKS_TIME);
	assert_true(t.step == 2e8 && t.count == 6 && t.max == 1e9);
	assert_string_equal(t.unit, "s");
	label_is(&t, 1, "0.2");
	label_is(&t, 5, "1.0");
	/* 1.1 s in 5: 0.2 s would need 5.5, so 0.5 s; the axis ends at the data */
	cg_ticks_time(&t, 1.1e9, 5);
	assert_true(t.step == 5e8 && t.count == 3 && t.max == 1.1e9);
	label_is(&t, 2, "1.0");
	/* under 0.1 s: ms; under 0.1 ms: µs; under 100 ns: ns */
	cg_ticks_time(&t, 50e6, 5);
	assert_string_equal(t.unit, "ms");
	assert_true(t.step == 1e7);
	label_is(&t, 5, "50");
	cg_ticks_time(&t, 10000, 4);
	assert_string_equal(t.unit, "\xc2\xb5s");
	assert_true(t.step == 5000 && t.count == 3);
	label_is(&t, 1, "5");
	cg_ticks_time(&t, 50, 5);
	assert_string_equal(t.unit, "ns");
	assert_true(t.step == 10 && t.count == 6);
	label_is(&t, 5, "50");
	/* a step under the unit gets the decimals it needs: 20 µs in ms */
	cg_ticks_time(&t, 1e5, 5);
	assert_string_equal(t.unit, "ms");
	assert_true(t.step == 2e4);
	label_is(&t, 1, "0.02");
}

static void an_axis_holds_between_two_and_ten_intervals(void **state)
{
	assert_int_equal(cg_ticks_fit(100, 30), 3);
	assert_int_equal(cg_ticks_fit(300, 30), 10);
	assert_int_equal(cg_ticks_fit(10, 30), 2);
	assert_int_equal(cg_ticks_fit(0, 30), 2);
	assert_int_equal(cg_ticks_fit(10000, 10), 10);
}

static void byte_units_are_binary_and_stop_at_exbibytes(void **state)
{
	double d;
	assert_string_equal(cg_bytes_unit(0, &d), "B");
	assert_true(d == 1);
	assert_string_equal(cg_bytes_unit(1023, &d), "B");
	assert_string_equal(cg_bytes_unit(1024, &d), "KiB");
	assert_true(d == 1024);
	assert_string_equal(cg_bytes_unit(MIB - 1, &d), "KiB");
	assert_string_equal(cg_bytes_unit(3.0 * 1073741824.0, &d), "GiB");
	assert_true(d == 1073741824.0);
	assert_string_equal(cg_bytes_unit(ldexp(1, 63), &d), "EiB");
	assert_true(d == ldexp(1, 60));
	/* past 2^64 there is no larger unit */
	assert_string_equal(cg_bytes_unit(1e30, &d), "EiB");
	assert_true(d == ldexp(1, 60));
}

/* A chart to measure text in, at the label size. */
static void open_text_chart(cg_chart *c)
{
	cg_chart_size size = {800, 450, 1.0};
	assert_int_equal(cg_chart_open(c, tu_path("text.png"), CG_CHART_PNG, &size, NULL), 0);
	cg_chart_font(c, CG_TYPE_LABEL, false);
}

/* Characters of valid UTF-8. */
static size_t chars(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static bool ends_with_ellipsis(const char *s)
{
	size_t n = strlen(s);
	return n >= 3 && memcmp(s + n - 3, "\xe2\x80\xa6", 3) == 0;
}

static void text_that_fits_is_kept_and_longer_text_is_cut_at_the_end(void **state)
{
	cg_chart c;
	open_text_chart(&c);
	const char *s = "autograd::engine::evaluate_function: AddmmBackward0";
	double w = cg_chart_text_width(&c, s);
	char *r = cg_chart_elide(&c, s, w, false, 1);
	assert_string_equal(r, s);
	cg_free(r);
	/* half the width: a prefix and "…", as long as fits */
	r = cg_chart_elide(&c, s, w / 2, false, 1);
	assert_non_null(r);
	assert_true(ends_with_ellipsis(r));
	size_t keep = strlen(r) - 3;
	assert_memory_equal(r, s, keep);
	assert_true(cg_chart_text_width(&c, r) <= w / 2);
	/* one character more would not fit */
	char *longer = cg_malloc(keep + 5);
	memcpy(longer, s, keep + 1);
	memcpy(longer + keep + 1, "\xe2\x80\xa6", 4);
	assert_true(cg_chart_text_width(&c, longer) > w / 2);
	cg_free(longer);
	cg_free(r);
	tc_close(&c, NULL);
}

static void middle_cuts_keep_both_ends_when_twelve_characters_survive(void **state)
{
	cg_chart c;
	open_text_chart(&c);
	const char *s = "run/train_step#0/backward/autograd::engine::evaluate_function: AddmmBackward0/aten::mm";
	double w = cg_chart_text_width(&c, s);
	char *r = cg_chart_elide(&c, s, w / 2, true, 1);
	assert_non_null(r);
	assert_true(cg_chart_text_width(&c, r) <= w / 2);
	const char *dots = strstr(r, "\xe2\x80\xa6");
	assert_non_null(dots);
	size_t head = (size_t)(dots - r), tail = strlen(dots + 3);
	/* a prefix, "…", a suffix; the head one character longer at most */
	assert_memory_equal(r, s, head);
	assert_string_equal(dots + 3, s + strlen(s) - tail);
	assert_true(head >= tail && head <= tail + 1);
	assert_true(head + tail >= 12);
	cg_free(r);
	/* room for fewer than 12 characters: cut at the end instead */
	r = cg_chart_elide(&c, s, cg_chart_text_width(&c, "run/train\xe2\x80\xa6"), true, 1);
	assert_non_null(r);
	assert_string_equal(r, "run/train\xe2\x80\xa6");
	cg_free(r);
	tc_close(&c, NULL);
}

static void too_few_characters_give_nothing_at_all(void **state)
{
	cg_chart c;
	open_text_chart(&c);
	const char *s = "optimizer_state";
	/* room for "op…" only */
	double w = cg_chart_text_width(&c, "op\xe2\x80\xa6");
	char *r = cg_chart_elide(&c, s, w, false, 2);
	assert_string_equal(r, "op\xe2\x80\xa6");
	cg_free(r);
	assert_null(cg_chart_elide(&c, s, w, false, 3));
	/* narrower than the ellipsis itself */
	assert_null(cg_chart_elide(&c, s, 1, false, 0));
	tc_close(&c, NULL);
}

static void cuts_fall_between_characters_and_bad_bytes_become_replacement_characters(void **state)
{
	cg_chart c;
	open_text_chart(&c);
	/* two-, three- and four-byte characters in a row */
	const char *s = "\xc3\xa9t\xc3\xa9 \xe2\x82\xac\xe2\x82\xac\xe2\x82\xac \xf0\x9f\x98\x80\xf0\x9f\x98\x80 "
			"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9";
	double w = cg_chart_text_width(&c, s);
	for (int middle = 0; middle < 2; middle++) {
		for (double f = 0.1; f < 1; f += 0.05) {
			char *r = cg_chart_elide(&c, s, w * f, middle, 1);
			if (!r)
				continue;
			size_t bad;
			assert_int_equal(cg_utf8_check(r, strlen(r), &bad), CG_UTF8_OK);
			assert_true(chars(r) <= chars(s));
			cg_free(r);
		}
	}
	/* a stray byte, a reversed BOM and a sequence cut short: measured and
	 * cut as U+FFFD, and the result is valid UTF-8 */
	const char *bad_text = "Res\xff\xfeNet \xe2\x80 and a long tail after the bad bytes";
	char *r = cg_chart_elide(&c, bad_text, 1e6, false, 1);
	assert_string_equal(r, "Res\xef\xbf\xbd\xef\xbf\xbdNet \xef\xbf\xbd\xef\xbf\xbd and a long tail after the bad bytes");
	cg_free(r);
	r = cg_chart_elide(&c, bad_text, cg_chart_text_width(&c, bad_text) / 2, true, 1);
	assert_non_null(r);
	size_t off;
	assert_int_equal(cg_utf8_check(r, strlen(r), &off), CG_UTF8_OK);
	cg_free(r);
	assert_int_equal(cairo_status(c.cr), CAIRO_STATUS_SUCCESS);
	tc_close(&c, NULL);
}

static void one_pixel_lines_land_on_whole_device_pixels(void **state)
{
	cg_chart c;
	cg_chart_size size = {800, 450, 1.0};
	/* scale 1: a 1-px line is centred on a pixel, x.5 */
	assert_int_equal(cg_chart_open(&c, tu_path("crisp.png"), CG_CHART_PNG, &size, NULL), 0);
	assert_true(cg_chart_crisp(&c, 10.7) == 10.5);
	assert_true(cg_chart_crisp(&c, 10.0) == 10.5);
	cg_chart_hline(&c, 100, 300, 50.3, CG_AXES);
	/* exactly one row of ink, white on either side */
	assert_int_equal(tc_pixel(&c, 200, 50), CG_AXES);
	assert_int_equal(tc_pixel(&c, 200, 49), 0xFFFFFF);
	assert_int_equal(tc_pixel(&c, 200, 51), 0xFFFFFF);
	cg_chart_vline(&c, 400.9, 100, 200, CG_AXES);
	assert_int_equal(tc_pixel(&c, 400, 150), CG_AXES);
	assert_int_equal(tc_pixel(&c, 399, 150), 0xFFFFFF);
	assert_int_equal(tc_pixel(&c, 401, 150), 0xFFFFFF);
	tc_close(&c, NULL);
	/* scale 2: two device pixels wide, on a device pixel's edge */
	size.scale = 2;
	assert_int_equal(cg_chart_open(&c, tu_path("crisp2.png"), CG_CHART_PNG, &size, NULL), 0);
	assert_true(cg_chart_crisp(&c, 10.7) == 10.5);
	assert_true(cg_chart_crisp(&c, 10.2) == 10.0);
	cg_chart_hline(&c, 100, 300, 50.3, CG_AXES); /* at 50.0: device rows 99 and 100 */
	assert_int_equal(tc_pixel(&c, 200, 49.5), CG_AXES);
	assert_int_equal(tc_pixel(&c, 200, 50.0), CG_AXES);
	assert_int_equal(tc_pixel(&c, 200, 49.0), 0xFFFFFF);
	assert_int_equal(tc_pixel(&c, 200, 50.5), 0xFFFFFF);
	tc_close(&c, NULL);
	/* scale 3: odd again, centred on a device pixel */
	size.scale = 3;
	assert_int_equal(cg_chart_open(&c, tu_path("crisp3.png"), CG_CHART_PNG, &size, NULL), 0);
	assert_true(fabs(cg_chart_crisp(&c, 10.2) - 30.5 / 3) < 1e-12);
	tc_close(&c, NULL);
}

/* Does d[0..n) hold s? (A PDF holds NUL bytes: strstr would stop.) */
static bool holds(const char *d, size_t n, const char *s)
{
	size_t k = strlen(s);
	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(d + i, s, k) == 0)
			return true;
	return false;
}

static void png_svg_and_pdf_files_are_written_at_close(void **state)
{
	cg_chart c;
	cg_chart_size size = {800, 450, 2.0};
	const char *png = tu_path("open.png");
	assert_int_equal(cg_chart_open(&c, png, CG_CHART_PNG, &size, NULL), 0);
	assert_true(c.width == 800 && c.height == 450 && c.scale == 2);
	cg_chart_frame(&c, "Title", "subtitle", "footnote");
	assert_false(tu_exists(png));
	assert_int_equal(cg_chart_close(&c, NULL), 0);
	size_t n;
	unsigned char *d = (unsigned char *)tu_read(png, &n);
	assert_non_null(d);
	assert_true(n > 24);
	assert_memory_equal(d, "\x89PNG", 4);
	/* IHDR: 1600 x 900 device pixels */
	assert_int_equal((unsigned)d[16] << 24 | (unsigned)d[17] << 16 | (unsigned)d[18] << 8 | d[19], 1600);
	assert_int_equal((unsigned)d[20] << 24 | (unsigned)d[21] << 16 | (unsigned)d[22] << 8 | d[23], 900);
	free(d);
	/* an SVG is in logical pixels whatever the scale */
	const char *svg = tu_path("open.svg");
	assert_int_equal(cg_chart_open(&c, svg, CG_CHART_SVG, &size, NULL), 0);
	assert_true(c.scale == 1);
	cg_chart_frame(&c, "Title", "subtitle", "footnote");
	assert_int_equal(cg_chart_close(&c, NULL), 0);
	char *text = tu_read(svg, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "<svg"));
	assert_non_null(strstr(text, "width=\"800px\" height=\"450px\""));
	free(text);
	/* a PDF page is the canvas at 1 pt a pixel whatever the scale, its
	 * /Title the chart's title */
	const char *pdf = tu_path("open.pdf");
	assert_int_equal(cg_chart_open(&c, pdf, CG_CHART_PDF, &size, NULL), 0);
	assert_true(c.scale == 1);
	cg_chart_frame(&c, "T\xc3\xaftle", "subtitle", "footnote");
	assert_int_equal(cg_chart_close(&c, NULL), 0);
	text = tu_read(pdf, &n);
	assert_non_null(text);
	assert_memory_equal(text, "%PDF-", 5);
	assert_true(holds(text, n, "/MediaBox [ 0 0 800 450 ]"));
	/* "Tïtle" in UTF-16BE: T U+00EF t l e */
	assert_true(holds(text, n, "/Title <FEFF005400EF0074006C0065>"));
	free(text);
	/* NULL size: the default 1600 x 900 */
	assert_int_equal(cg_chart_open(&c, tu_path("default.png"), CG_CHART_PNG, NULL, NULL), 0);
	assert_true(c.width == 1600 && c.height == 900 && c.scale == 1);
	tc_close(&c, NULL);
}

static void a_path_that_cannot_be_written_is_an_io_error_naming_it(void **state)
{
	char bad[700];
	snprintf(bad, sizeof bad, "%s/no/such/folder/x.png", tu_tmpdir());
	cg_chart c;
	cg_error err = CG_ERROR_INIT;
	/* a PNG is drawn in memory: the error comes when it is written */
	assert_int_equal(cg_chart_open(&c, bad, CG_CHART_PNG, NULL, &err), 0);
	assert_int_equal(cg_chart_close(&c, &err), CG_EIO);
	assert_int_equal(err.code, CG_EIO);
	assert_non_null(strstr(err.msg, bad));
	assert_false(tu_exists(bad));
	/* an SVG is written as it is drawn: the error comes at once */
	snprintf(bad, sizeof bad, "%s/no/such/folder/x.svg", tu_tmpdir());
	cg_error err2 = CG_ERROR_INIT;
	assert_int_equal(cg_chart_open(&c, bad, CG_CHART_SVG, NULL, &err2), CG_EIO);
	assert_int_equal(err2.code, CG_EIO);
	assert_non_null(strstr(err2.msg, bad));
	/* so is a PDF */
	snprintf(bad, sizeof bad, "%s/no/such/folder/x.pdf", tu_tmpdir());
	cg_error err3 = CG_ERROR_INIT;
	assert_int_equal(cg_chart_open(&c, bad, CG_CHART_PDF, NULL, &err3), CG_EIO);
	assert_int_equal(err3.code, CG_EIO);
	assert_non_null(strstr(err3.msg, bad));
}

static void category_and_phase_colours_are_all_different(void **state)
{
	unsigned cat[CG_CAT_COUNT];
	for (int i = 0; i < CG_CAT_COUNT; i++) {
		cat[i] = tc_category((cg_category)i);
		assert_int_not_equal(cat[i], 0xFFFFFF); /* never the background */
		for (int k = 0; k < i; k++)
			assert_int_not_equal(cat[i], cat[k]);
	}
	/* the Okabe-Ito blue for parameters, the hex exactly */
	assert_int_equal(cat[CG_CAT_PARAMETER], 0x0072B2);
	for (int i = 0; i < CG_PHASE_COUNT; i++) {
		unsigned fill = tc_hex(cg_chart_phase_color((cg_phase)i)), lane = tc_hex(cg_chart_lane_color((cg_phase)i));
		assert_int_not_equal(fill, 0xFFFFFF);
		assert_int_not_equal(lane, 0xFFFFFF);
		for (int k = 0; k < i; k++) {
			assert_int_not_equal(fill, tc_hex(cg_chart_phase_color((cg_phase)k)));
			assert_int_not_equal(lane, tc_hex(cg_chart_lane_color((cg_phase)k)));
		}
	}
	/* every category is somewhere in the stack, once */
	bool seen[CG_CAT_COUNT] = {false};
	for (int i = 0; i < CG_CAT_COUNT; i++) {
		assert_false(seen[cg_chart_stack_order[i]]);
		seen[cg_chart_stack_order[i]] = true;
	}
	assert_int_equal(cg_chart_stack_order[0], CG_CAT_BASELINE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(byte_ticks_are_powers_of_two_under_a_unit_from_the_axis_maximum),
		cmocka_unit_test(byte_ticks_take_the_smallest_power_of_two_that_fits),
		cmocka_unit_test(growing_a_byte_axis_can_change_its_unit),
		cmocka_unit_test(count_ticks_are_one_two_five_with_thousands_separators),
		cmocka_unit_test(time_ticks_are_one_two_five_in_a_unit_for_the_whole_axis),
		cmocka_unit_test(an_axis_holds_between_two_and_ten_intervals),
		cmocka_unit_test(byte_units_are_binary_and_stop_at_exbibytes),
		cmocka_unit_test(text_that_fits_is_kept_and_longer_text_is_cut_at_the_end),
		cmocka_unit_test(middle_cuts_keep_both_ends_when_twelve_characters_survive),
		cmocka_unit_test(too_few_characters_give_nothing_at_all),
		cmocka_unit_test(cuts_fall_between_characters_and_bad_bytes_become_replacement_characters),
		cmocka_unit_test(one_pixel_lines_land_on_whole_device_pixels),
		cmocka_unit_test(png_svg_and_pdf_files_are_written_at_close),
		cmocka_unit_test(a_path_that_cannot_be_written_is_an_io_error_naming_it),
		cmocka_unit_test(category_and_phase_colours_are_all_different),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	cg_charts_shutdown();
	return rc;
}
