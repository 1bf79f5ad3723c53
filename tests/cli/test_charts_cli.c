/* The charts of a report on a real sample: every chart listed, drawn or
 * skipped with a reason, through every layer in one process; and through
 * the binary: well-formed SVG, the size, scale and formats asked for,
 * byte-identical output for the same input, usage errors. (The charts'
 * unit tests: tests/render/chart.) */
#include "ingestutil.h"
#include "runutil.h"

#include <string.h>

#include "analysis.h"
#include "charts.h"
#include "outdir.h"

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

/* The first n bytes equal to needle in d[0..len), or NULL (memmem is not C11). */
static const char *find_bytes(const char *d, size_t len, const char *needle, size_t n)
{
	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(d + i, needle, n) == 0)
			return d + i;
	return NULL;
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
	/* --scale 2 is 144 dpi: 144 / 0.0254 = 5669.29 -> 5669 (0x1625)
	 * pixels per metre, before the pixels; the title is the chart's */
	char hidpi[700];
	snprintf(hidpi, sizeof hidpi, "%s/timeline.cpu.png", out);
	size_t len;
	char *d = tu_read(hidpi, &len);
	assert_non_null(d);
	const char *phys = find_bytes(d, len, "pHYs\0\0\x16\x25\0\0\x16\x25\x01", 13);
	static const char title[] = "tEXtTitle\0Live memory by category ? mlp_adam (cpu)";
	const char *text = find_bytes(d, len, title, sizeof title - 1);
	const char *idat = find_bytes(d, len, "IDAT", 4);
	assert_non_null(phys);
	assert_non_null(text);
	assert_true(phys < idat && text < idat);
	static const char itext[] = "iTXtTitle\0\0\0\0\0Live memory by category \xe2\x80\x94 mlp_adam (cpu)";
	assert_non_null(find_bytes(d, len, itext, sizeof itext - 1));
	free(d);
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

/* Every Markdown link of report.md ("](NAME)") names a file in dir, or
 * for the contents ("](#ID)") an anchor of the page; returns how many file
 * links there are and how many end with ext. */
static size_t check_links(const char *dir, const char *ext, size_t *with_ext)
{
	size_t links = 0;
	char mdpath[700];
	snprintf(mdpath, sizeof mdpath, "%s/report.md", dir);
	char *md = tu_read(mdpath, NULL);
	assert_non_null(md);
	*with_ext = 0;
	for (char *p = strstr(md, "]("); p; p = strstr(p, "](")) {
		p += 2;
		char *end = strchr(p, ')');
		assert_non_null(end);
		char path[700];
		if (*p == '#') {
			snprintf(path, sizeof path, "<a id=\"%.*s\"></a>", (int)(end - p - 1), p + 1);
			if (!strstr(md, path))
				fail_msg("report.md links #%.*s, which it has no anchor for", (int)(end - p - 1), p + 1);
			continue;
		}
		snprintf(path, sizeof path, "%s/%.*s", dir, (int)(end - p), p);
		if (!tu_exists(path))
			fail_msg("report.md links %s, which was not written", path);
		size_t k = strlen(ext);
		if ((size_t)(end - p) > k && memcmp(end - k, ext, k) == 0)
			++*with_ext;
		links++;
	}
	free(md);
	return links;
}

static void report_md_links_the_chart_files_that_were_written(void **state)
{
	static const char *const formats[][2] = {
		{"svg", ".svg"}, {"png", ".png"}, {"png,svg", ".png"}, {"svg,png", ".png"},
	};
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
		char name[32];
		snprintf(name, sizeof name, "links%zu", i);
		const char *out = tu_path(name);
		assert_int_equal(tu_run(NULL, NULL, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", out, "-q",
					"--no-trace", "--formats", formats[i][0], NULL),
				 0);
		size_t with_ext, links = check_links(out, formats[i][1], &with_ext);
		assert_int_equal(links, NKINDS - 1); /* one per chart drawn: all but fragmentation */
		assert_int_equal(with_ext, links);
	}
}

/* --hidpi-names: the PNGs are NAME@2x.png at --scale 2 (144 dpi), the
 * SVGs keep their names, and report.md and report.html link those files. */
static void hidpi_names_name_the_pngs_for_their_scale(void **state)
{
	const char *out = tu_path("hidpi");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", out, "-q", "--no-trace",
				"--scale", "2", "--hidpi-names", NULL),
			 0);
	char path[700];
	snprintf(path, sizeof path, "%s/timeline.cpu@2x.png", out);
	unsigned w, h;
	assert_true(png_size(path, &w, &h));
	assert_int_equal(w, 3200); /* 1600 x 900 at 2 */
	assert_int_equal(h, 1800);
	snprintf(path, sizeof path, "%s/timeline.cpu.png", out);
	assert_false(tu_exists(path));
	snprintf(path, sizeof path, "%s/timeline.cpu.svg", out);
	assert_true(tu_exists(path));
	size_t with_ext, links = check_links(out, "@2x.png", &with_ext);
	assert_int_equal(links, NKINDS - 1);
	assert_int_equal(with_ext, links);
	snprintf(path, sizeof path, "%s/report.html", out);
	char *html = tu_read(path, NULL);
	assert_non_null(html);
	assert_non_null(strstr(html, "<a href=\"timeline.cpu@2x.png\">PNG</a>"));
	assert_null(strstr(html, "timeline.cpu.png"));
	free(html);

	/* at --scale 1 the names are the usual ones; without PNGs the option names nothing */
	out = tu_path("hidpi1");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", out, "-q", "--no-trace",
				"--hidpi-names", "--formats", "png", NULL),
			 0);
	snprintf(path, sizeof path, "%s/timeline.cpu.png", out);
	assert_true(tu_exists(path));
	char *err;
	assert_int_equal(tu_run(NULL, &err, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", tu_path("hidpi2"),
				"--hidpi-names", "--formats", "svg", NULL),
			 2);
	assert_non_null(strstr(err, "cgmem report: --hidpi-names names PNGs, and --formats writes none\n"));
	free(err);
}

/* How often needle occurs in d[0..len). */
static size_t count_bytes(const char *d, size_t len, const char *needle)
{
	size_t n = 0, k = strlen(needle);
	for (const char *p = d; (p = find_bytes(p, len - (size_t)(p - d), needle, k)); p += k)
		n++;
	return n;
}

/* A PDF text string as cairo writes /Title: <FEFF then UTF-16BE in hex>.
 * s is UTF-8 of the Basic Multilingual Plane. */
static void pdf_hex_title(const char *s, char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "/Title <FEFF");
	const unsigned char *u = (const unsigned char *)s;
	while (*u && n + 6 < size) {
		unsigned cp;
		if (*u < 0x80)
			cp = *u++;
		else if (*u < 0xe0)
			cp = (unsigned)(u[0] & 0x1f) << 6 | (u[1] & 0x3f), u += 2;
		else
			cp = (unsigned)(u[0] & 0x0f) << 12 | (unsigned)(u[1] & 0x3f) << 6 | (u[2] & 0x3f), u += 3;
		n += (size_t)snprintf(buf + n, size - n, "%04X", cp);
	}
	snprintf(buf + n, size - n, ">");
}

static void pdf_charts_are_one_vector_page_with_embedded_fonts(void **state)
{
	const char *out = tu_path("pdf"), *again = tu_path("pdf2");
	for (int run = 0; run < 2; run++)
		assert_int_equal(tu_run(NULL, NULL, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", run ? again : out,
					"-q", "--no-trace", "--width", "1000", "--height", "600", "--formats", "pdf",
					NULL),
				 0);
	size_t drawn = 0;
	for (size_t k = 0; k < NKINDS; k++) {
		char path[700];
		snprintf(path, sizeof path, "%s/%s.cpu.png", out, kinds[k]);
		assert_false(tu_exists(path));
		snprintf(path, sizeof path, "%s/%s.cpu.svg", out, kinds[k]);
		assert_false(tu_exists(path));
		size_t n, n2;
		char *pdf = report_file(out, kinds[k], "pdf", &n);
		if (k == 4) {
			assert_null(pdf); /* no fragmentation chart for a CPU without reserved bytes */
			continue;
		}
		assert_non_null(pdf);
		drawn++;
		assert_true(n > 100);
		assert_memory_equal(pdf, "%PDF-", 5);
		assert_memory_equal(pdf + n - 6, "%%EOF\n", 6);
		/* one page, the canvas at 1 pt a pixel */
		assert_int_equal(count_bytes(pdf, n, "/Type /Page") - count_bytes(pdf, n, "/Type /Pages"), 1);
		assert_non_null(find_bytes(pdf, n, "/MediaBox [ 0 0 1000 600 ]", 26));
		/* text is text: a font resource and the font program embedded */
		assert_true(count_bytes(pdf, n, "/Font") >= 1);
		assert_true(count_bytes(pdf, n, "/FontFile2") >= 1);
		assert_non_null(find_bytes(pdf, n, "DejaVuSans", 10));
		/* no date: the same trace gives the same bytes */
		assert_int_equal(count_bytes(pdf, n, "/CreationDate"), 0);
		char *pdf2 = report_file(again, kinds[k], "pdf", &n2);
		assert_non_null(pdf2);
		assert_int_equal(n, n2);
		assert_memory_equal(pdf, pdf2, n);
		free(pdf2);
		if (k == 0) {
			char title[600];
			pdf_hex_title("Live memory by category \xe2\x80\x94 mlp_adam (cpu)", title, sizeof title);
			assert_non_null(find_bytes(pdf, n, title, strlen(title)));
		}
		free(pdf);
	}
	assert_int_equal(drawn, NKINDS - 1);
	/* report.md links the PDFs (as links: Markdown does not show a PDF
	 * inline); report.html links them under each figure */
	size_t with_ext;
	assert_int_equal(check_links(out, ".pdf", &with_ext), NKINDS - 1);
	assert_int_equal(with_ext, NKINDS - 1);
	char path[700];
	snprintf(path, sizeof path, "%s/report.md", out);
	char *md = tu_read(path, NULL);
	assert_non_null(strstr(md, "\n[Live memory by category on cpu](timeline.cpu.pdf)\n"));
	assert_null(strstr(md, "!["));
	free(md);
	snprintf(path, sizeof path, "%s/report.html", out);
	char *html = tu_read(path, NULL);
	assert_non_null(strstr(html, "<a href=\"timeline.cpu.pdf\">Live memory by category on cpu (PDF)</a>"));
	free(html);
	/* beside a PNG, report.md shows the PNG */
	out = tu_path("pngpdf");
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", out, "-q", "--no-trace",
				"--formats", "pdf,png", NULL),
			 0);
	assert_int_equal(check_links(out, ".png", &with_ext), NKINDS - 1);
	assert_int_equal(with_ext, NKINDS - 1);
	snprintf(path, sizeof path, "%s/timeline.cpu.pdf", out);
	assert_true(tu_exists(path));
}

static void bad_chart_options_are_usage_errors(void **state)
{
	static const char *const bad[][2] = {
		{"--width", "799"},	 {"--width", "12x"},   {"--height", "449"},	{"--height", "100000"},
		{"--scale", "0"},	 {"--scale", "nan"},   {"--scale", "5"},	{"--formats", "jpeg"},
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
		cmocka_unit_test(every_chart_is_listed_drawn_or_skipped_with_a_reason),
		cmocka_unit_test(report_charts_are_well_formed_sized_and_deterministic),
		cmocka_unit_test(size_scale_and_formats_come_from_the_command_line),
		cmocka_unit_test(hidpi_names_name_the_pngs_for_their_scale),
		cmocka_unit_test(report_md_links_the_chart_files_that_were_written),
		cmocka_unit_test(pdf_charts_are_one_vector_page_with_embedded_fonts),
		cmocka_unit_test(bad_chart_options_are_usage_errors),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	cg_charts_shutdown();
	return rc;
}
