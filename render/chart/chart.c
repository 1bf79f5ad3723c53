#include "chart.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "png.h"
#include "pngqueue.h"
#include "svgids.h"
#include "units.h"
#include "utf8.h"
#include "xalloc.h"

static cairo_status_t svg_append(void *sink, const unsigned char *data, unsigned int n)
{
	cg_sink_write(sink, data, n);
	return CAIRO_STATUS_SUCCESS;
}

int cg_chart_open(cg_chart *c, const char *path, cg_chart_format format, const cg_chart_size *size,
		  cg_error *err)
{
	return cg_chart_open_queued(c, path, format, size, NULL, err);
}

int cg_chart_open_queued(cg_chart *c, const char *path, cg_chart_format format, const cg_chart_size *size,
			 cg_png_queue *q, cg_error *err)
{
	cg_chart_size def = CG_CHART_SIZE_INIT;
	if (!size)
		size = &def;
	memset(c, 0, sizeof *c);
	c->format = format;
	c->width = size->width;
	c->height = size->height;
	c->scale = format == CG_CHART_PNG ? size->scale : 1.0;
	c->path = cg_strdup(path);
	if (format == CG_CHART_SVG) {
		/* the file now (its errors at once), the drawing into memory: its
		 * surface ids are renumbered at close */
		int rc = cg_sink_open(&c->svg_file, path, 0, err);
		if (rc < 0) {
			cg_free(c->path);
			return rc;
		}
		c->svg = cg_sink_memory();
		c->surface = cairo_svg_surface_create_for_stream(svg_append, c->svg, c->width, c->height);
		cairo_svg_surface_set_document_unit(c->surface, CAIRO_SVG_UNIT_PX);
	} else if (format == CG_CHART_PDF) {
		c->surface = cairo_pdf_surface_create(path, c->width, c->height);
		/* cairo dates the file now unless told otherwise ("" leaves the
		 * date out): the same trace must give the same bytes. */
		cairo_pdf_surface_set_metadata(c->surface, CAIRO_PDF_METADATA_CREATE_DATE, "");
		cairo_pdf_surface_set_metadata(c->surface, CAIRO_PDF_METADATA_CREATOR, "cgmem");
	} else {
		int w = (int)lround(c->width * c->scale), h = (int)lround(c->height * c->scale);
		c->surface = q ? cg_png_queue_surface(q, w, h) : cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
	}
	c->cr = cairo_create(c->surface);
	if (cairo_status(c->cr) != CAIRO_STATUS_SUCCESS) {
		int rc = cg_error_set(err, CG_EIO, "%s: cannot draw: %s", path,
				      cairo_status_to_string(cairo_status(c->cr)));
		cairo_destroy(c->cr);
		cairo_surface_destroy(c->surface);
		cg_sink_close(c->svg, NULL);
		cg_sink_close(c->svg_file, NULL);
		cg_free(c->path);
		return rc;
	}
	cairo_scale(c->cr, c->scale, c->scale);
	cairo_set_source_rgb(c->cr, 1, 1, 1);
	cairo_paint(c->cr);
	return 0;
}

int cg_chart_close(cg_chart *c, cg_error *err)
{
	return cg_chart_close_queued(c, NULL, err);
}

int cg_chart_close_queued(cg_chart *c, cg_png_queue *q, cg_error *err)
{
	int rc = 0;
	cairo_status_t st = cairo_status(c->cr);
	cairo_destroy(c->cr);
	if (st == CAIRO_STATUS_SUCCESS && c->format == CG_CHART_PNG) {
		cairo_surface_flush(c->surface);
		if (q) {
			cg_png_queue_push(q, c->surface, c->path, c->title, c->scale); /* q owns them now */
			return 0;
		}
		cg_png_image image = cg_png_image_of(c->surface);
		image.title = c->title;
		image.scale = c->scale;
		rc = cg_png_write(&image, c->path, err);
	}
	cairo_surface_finish(c->surface);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(c->surface);
	if (st != CAIRO_STATUS_SUCCESS && rc == 0)
		rc = cg_error_set(err, CG_EIO, "%s: %s", c->path, cairo_status_to_string(st));
	cairo_surface_destroy(c->surface);
	if (c->svg) {
		size_t n;
		const char *text = cg_sink_data(c->svg, &n);
		if (rc == 0)
			cg_svg_write_renumbered(c->svg_file, text, n);
		int closed = cg_sink_close(c->svg_file, rc == 0 ? err : NULL);
		if (rc == 0)
			rc = closed;
		cg_sink_close(c->svg, NULL);
	}
	cg_free(c->path);
	cg_free(c->title);
	return rc;
}

/* --- style ---------------------------------------------------------------- */

cg_rgb cg_rgb_hex(unsigned hex)
{
	return (cg_rgb){((hex >> 16) & 0xff) / 255.0, ((hex >> 8) & 0xff) / 255.0, (hex & 0xff) / 255.0};
}

cg_rgb cg_chart_category_color(cg_category c)
{
	static const unsigned colors[CG_CAT_COUNT] = {
		[CG_CAT_PARAMETER] = 0x0072B2,	     [CG_CAT_OPTIMIZER_STATE] = 0x56B4E9,
		[CG_CAT_INPUT] = 0xF0E442,	     [CG_CAT_TEMPORARY] = 0xD55E00,
		[CG_CAT_ACTIVATION] = 0xE69F00,	     [CG_CAT_GRADIENT] = 0x009E73,
		[CG_CAT_AUTOGRAD_DETAIL] = 0xCC79A7, [CG_CAT_UNKNOWN] = 0x999999,
		[CG_CAT_BASELINE] = 0xCFCFCF, /* light: memory that was simply there */
	};
	return cg_rgb_hex(c < CG_CAT_COUNT ? colors[c] : 0x999999);
}

cg_rgb cg_chart_phase_color(cg_phase p)
{
	static const unsigned colors[CG_PHASE_COUNT] = {0xDDDDDD, 0x77AADD, 0xEE8866, 0xEEDD88};
	return cg_rgb_hex(p < CG_PHASE_COUNT ? colors[p] : 0xDDDDDD);
}

cg_rgb cg_chart_lane_color(cg_phase p)
{
	static const unsigned colors[CG_PHASE_COUNT] = {0xF6F6F6, 0xC9DDF1, 0xF8CFC2, 0xF3E7AE};
	return cg_rgb_hex(p < CG_PHASE_COUNT ? colors[p] : 0xF6F6F6);
}

/* Long-lived memory at the bottom, short-lived on top; memory from before
 * profiling under everything. */
const cg_category cg_chart_stack_order[CG_CAT_COUNT] = {
	CG_CAT_BASELINE, CG_CAT_PARAMETER, CG_CAT_OPTIMIZER_STATE, CG_CAT_GRADIENT, CG_CAT_INPUT,
	CG_CAT_ACTIVATION, CG_CAT_TEMPORARY, CG_CAT_AUTOGRAD_DETAIL, CG_CAT_UNKNOWN,
};

void cg_chart_rgb(cg_chart *c, cg_rgb rgb)
{
	cairo_set_source_rgb(c->cr, rgb.r, rgb.g, rgb.b);
}

void cg_chart_color(cg_chart *c, unsigned hex)
{
	cg_chart_rgb(c, cg_rgb_hex(hex));
}

/* --- text ----------------------------------------------------------------- */

void cg_chart_font(cg_chart *c, double size, bool bold)
{
	cairo_select_font_face(c->cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
			       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(c->cr, size);
}

/* s as valid UTF-8: s itself, or a copy in *copy (the caller frees it)
 * with each byte that starts no character replaced by U+FFFD. Names from
 * JSON documents (PyTorch traces) reach the charts unchecked, and cairo
 * would put the whole chart in an error state for one bad byte. */
static const char *valid_utf8(const char *s, char **copy)
{
	size_t n = strlen(s), bad;
	*copy = NULL;
	if (cg_utf8_check(s, n, &bad) == CG_UTF8_OK)
		return s;
	char *out = cg_malloc(n * 3 + 1), *o = out;
	while (n) {
		if (cg_utf8_check(s, n, &bad) == CG_UTF8_OK)
			bad = n;
		memcpy(o, s, bad);
		o += bad;
		s += bad;
		n -= bad;
		if (n) {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			s++;
			n--;
		}
	}
	*o = '\0';
	*copy = out;
	return out;
}

double cg_chart_text_width(cg_chart *c, const char *s)
{
	char *copy;
	cairo_text_extents_t e;
	cairo_text_extents(c->cr, valid_utf8(s, &copy), &e);
	cg_free(copy);
	return e.x_advance;
}

void cg_chart_text(cg_chart *c, double x, double y, cg_align align, const char *s)
{
	char *copy;
	s = valid_utf8(s, &copy);
	double w = align == CG_LEFT ? 0 : cg_chart_text_width(c, s);
	cairo_move_to(c->cr, align == CG_LEFT ? x : align == CG_CENTER ? x - w / 2 : x - w, y);
	cairo_show_text(c->cr, s);
	cg_free(copy);
}

static char *elide(cg_chart *c, const char *s, double width, bool middle, size_t min_chars);

/* Byte offsets of character boundaries of a UTF-8 string. */
static size_t char_starts(const char *s, size_t *starts, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; s[i] && n < max; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			starts[n++] = i;
	return n;
}

static char *join(const char *s, size_t head, const char *tail)
{
	size_t tlen = tail ? strlen(tail) : 0;
	char *r = cg_malloc(head + 3 + tlen + 1);
	memcpy(r, s, head);
	memcpy(r + head, "\xe2\x80\xa6", 3);
	if (tail)
		memcpy(r + head + 3, tail, tlen);
	r[head + 3 + tlen] = '\0';
	return r;
}

char *cg_chart_elide(cg_chart *c, const char *s, double width, bool middle, size_t min_chars)
{
	char *copy;
	s = valid_utf8(s, &copy);
	char *r = elide(c, s, width, middle, min_chars);
	cg_free(copy);
	return r;
}

/* cg_chart_elide on valid UTF-8: cuts only between characters. */
static char *elide(cg_chart *c, const char *s, double width, bool middle, size_t min_chars)
{
	if (cg_chart_text_width(c, s) <= width)
		return cg_strdup(s);
	size_t len = strlen(s);
	size_t *starts = cg_malloc((len + 1) * sizeof *starts);
	size_t n = char_starts(s, starts, len + 1);
	starts[n] = len;
	char *best = NULL;
	/* Longest k (characters kept) that fits; binary search on k. */
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t k = (lo + hi + 1) / 2;
		char *cand;
		if (middle && k >= 12) {
			size_t head = (k + 1) / 2, tail = k - head;
			cand = join(s, starts[head], s + starts[n - tail]);
		} else {
			cand = join(s, starts[k], NULL);
		}
		if (cg_chart_text_width(c, cand) <= width) {
			cg_free(best);
			best = cand;
			lo = k;
		} else {
			cg_free(cand);
			hi = k - 1;
		}
	}
	cg_free(starts);
	if (lo < min_chars || !best) {
		cg_free(best);
		return NULL;
	}
	return best;
}

void cg_chart_frame(cg_chart *c, const char *title, const char *subtitle, const char *footnote)
{
	cg_chart_frame_narrow(c, title, subtitle, c->width - 2 * CG_MARGIN, footnote);
}

void cg_chart_frame_narrow(cg_chart *c, const char *title, const char *subtitle, double subtitle_width,
			   const char *footnote)
{
	cg_free(c->title);
	c->title = cg_strdup(title);
	if (c->format == CG_CHART_PDF) {
		char *copy;
		cairo_pdf_surface_set_metadata(c->surface, CAIRO_PDF_METADATA_TITLE, valid_utf8(title, &copy));
		cg_free(copy);
	}
	cairo_save(c->cr);
	cg_chart_color(c, CG_INK);
	cg_chart_font(c, CG_TYPE_TITLE, true);
	char *t = cg_chart_elide(c, title, c->width - 2 * CG_MARGIN, false, 1);
	if (t)
		cg_chart_text(c, CG_MARGIN, 44, CG_LEFT, t);
	cg_free(t);
	if (subtitle && *subtitle) {
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_font(c, CG_TYPE_LABEL, false);
		char *s = cg_chart_elide(c, subtitle, subtitle_width, false, 1);
		if (s)
			cg_chart_text(c, CG_MARGIN, 70, CG_LEFT, s);
		cg_free(s);
	}
	if (footnote && *footnote) {
		cg_chart_color(c, CG_FOOTNOTE);
		cg_chart_font(c, CG_TYPE_NOTE, false);
		char *f = cg_chart_elide(c, footnote, c->width - 2 * CG_MARGIN, false, 1);
		if (f)
			cg_chart_text(c, CG_MARGIN, c->height - 18, CG_LEFT, f);
		cg_free(f);
	}
	cairo_restore(c->cr);
}

double cg_chart_value_label(cg_chart *c, double x, double y, const char *bold, const char *grey, bool draw)
{
	cg_chart_font(c, CG_TYPE_LABEL, true);
	double wb = cg_chart_text_width(c, bold);
	if (draw) {
		cg_chart_color(c, CG_INK);
		cg_chart_text(c, x, y, CG_LEFT, bold);
	}
	if (!grey || !*grey)
		return wb;
	cg_chart_font(c, CG_TYPE_LABEL, false);
	double gap = 8, wg = cg_chart_text_width(c, grey);
	if (draw) {
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, x + wb + gap, y, CG_LEFT, grey);
	}
	return wb + gap + wg;
}

double cg_chart_crisp(const cg_chart *c, double v)
{
	double s = c->scale;
	/* A 1-px line is s device pixels wide: centre it on a pixel when s is odd. */
	long w = lround(s);
	double offset = (w % 2) ? 0.5 : 0.0;
	return (floor(v * s) + offset) / s;
}

void cg_chart_hline(cg_chart *c, double x0, double x1, double y, unsigned hex)
{
	cairo_save(c->cr);
	cg_chart_color(c, hex);
	cairo_set_line_width(c->cr, 1);
	double cy = cg_chart_crisp(c, y);
	cairo_move_to(c->cr, x0, cy);
	cairo_line_to(c->cr, x1, cy);
	cairo_stroke(c->cr);
	cairo_restore(c->cr);
}

void cg_chart_vline(cg_chart *c, double x, double y0, double y1, unsigned hex)
{
	cairo_save(c->cr);
	cg_chart_color(c, hex);
	cairo_set_line_width(c->cr, 1);
	double cx = cg_chart_crisp(c, x);
	cairo_move_to(c->cr, cx, y0);
	cairo_line_to(c->cr, cx, y1);
	cairo_stroke(c->cr);
	cairo_restore(c->cr);
}

void cg_chart_box(cg_chart *c, double x, double y, double w, double h, cg_rgb fill)
{
	cg_chart_rgb(c, fill);
	cairo_rectangle(c->cr, x, y, w, h);
	cairo_fill(c->cr);
}

/* --- legends -------------------------------------------------------------- */

double cg_chart_legend_header(cg_chart *c, double x, double y, double width, const char *left, const char *right)
{
	cg_chart_font(c, CG_TYPE_SMALL, true);
	cg_chart_color(c, CG_SECONDARY);
	cg_chart_text(c, x, y, CG_LEFT, left);
	if (right) {
		cg_chart_font(c, CG_TYPE_SMALL, false);
		cg_chart_color(c, CG_FOOTNOTE);
		cg_chart_text(c, x + width, y, CG_RIGHT, right);
	}
	return y + 27;
}

/* The name, cut to leave room for the value. */
static void legend_text(cg_chart *c, double x, double y, double width, const char *name, const char *value)
{
	double vw = 0;
	if (value) {
		cg_chart_font(c, CG_TYPE_SMALL, false);
		vw = cg_chart_text_width(c, value) + 10;
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, x + width, y, CG_RIGHT, value);
	}
	cg_chart_font(c, CG_TYPE_LABEL, false);
	cg_chart_color(c, CG_INK);
	char *n = cg_chart_elide(c, name, width - 22 - vw, false, 1);
	if (n)
		cg_chart_text(c, x + 22, y, CG_LEFT, n);
	cg_free(n);
}

double cg_chart_legend_swatch(cg_chart *c, double x, double y, double width, cg_rgb swatch, const char *name,
			      const char *value)
{
	cg_chart_box(c, x, y - 13, 14, 14, swatch);
	legend_text(c, x, y, width, name, value);
	return y + 26;
}

double cg_chart_legend_line(cg_chart *c, double x, double y, double width, unsigned color, const double *dash,
			    const char *name, const char *value)
{
	cairo_save(c->cr);
	cairo_set_line_width(c->cr, 2);
	if (dash)
		cairo_set_dash(c->cr, dash, 2, 0);
	cg_chart_color(c, color);
	cairo_move_to(c->cr, x, y - 6);
	cairo_line_to(c->cr, x + 16, y - 6);
	cairo_stroke(c->cr);
	cairo_restore(c->cr);
	legend_text(c, x, y, width, name, value);
	return y + 26;
}

double cg_chart_legend_row(cg_chart *c, double x_right, double y, const cg_legend_item *items, size_t n, bool draw)
{
	const double swatch = 13, pad = 7, gap = 22;
	cg_chart_font(c, CG_TYPE_SMALL, false);
	double total = 0;
	for (size_t i = 0; i < n; i++)
		total += (i ? gap : 0) + swatch + pad + cg_chart_text_width(c, items[i].name);
	if (!draw)
		return total;
	double x = x_right - total;
	for (size_t i = 0; i < n; i++) {
		cg_chart_box(c, x, y - 11, swatch, swatch, items[i].color);
		x += swatch + pad;
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, x, y, CG_LEFT, items[i].name);
		x += cg_chart_text_width(c, items[i].name) + gap;
	}
	return total;
}

/* --- ticks ---------------------------------------------------------------- */

const char *cg_bytes_unit(double max, double *divisor)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	int u = 0;
	double d = 1;
	while (u < 6 && max >= d * 1024) {
		d *= 1024;
		u++;
	}
	*divisor = d;
	return units[u];
}

static int decimals_for(double step_in_units)
{
	int d = 0;
	while (d < 6 && fabs(step_in_units * pow(10, d) - round(step_in_units * pow(10, d))) > 1e-9)
		d++;
	return d;
}

/* The smallest step of 1, 2, 5 x 10^k (k >= 0) that covers max in at most
 * max_intervals intervals. */
static double step_125(double max, int max_intervals)
{
	static const double mult[] = {1, 2, 5};
	for (double p = 1;; p *= 10)
		for (int k = 0; k < 3; k++)
			if (max / (mult[k] * p) <= max_intervals)
				return mult[k] * p;
}

void cg_ticks_bytes(cg_ticks *t, double max, int max_intervals)
{
	if (max < 1)
		max = 1;
	double step = 1;
	while (ceil(max / step) > max_intervals)
		step *= 2;
	int intervals = (int)ceil(max / step);
	if (intervals < 1)
		intervals = 1;
	t->kind = CG_TICKS_BYTES;
	t->count = intervals + 1;
	t->step = step;
	t->max = step * intervals;
	t->unit = cg_bytes_unit(t->max, &t->divisor);
	t->decimals = decimals_for(step / t->divisor);
}

void cg_ticks_count(cg_ticks *t, double max, int max_intervals)
{
	if (max < 1)
		max = 1;
	double step = step_125(max, max_intervals);
	int intervals = (int)ceil(max / step - 1e-9);
	t->kind = CG_TICKS_COUNT;
	t->count = intervals + 1;
	t->step = step;
	t->max = step * intervals;
	t->divisor = 1;
	t->unit = "";
	t->decimals = 0;
}

void cg_ticks_grow(cg_ticks *t)
{
	t->count++;
	t->max += t->step;
	if (t->kind != CG_TICKS_BYTES)
		return;
	double d;
	const char *u = cg_bytes_unit(t->max, &d);
	if (d != t->divisor) {
		t->divisor = d;
		t->unit = u;
		t->decimals = decimals_for(t->step / d);
	}
}

void cg_ticks_time(cg_ticks *t, double max_ns, int max_intervals)
{
	if (max_ns < 1)
		max_ns = 1;
	double step = step_125(max_ns, max_intervals);
	if (max_ns >= 1e8) {
		t->divisor = 1e9;
		t->unit = "s";
	} else if (max_ns >= 1e5) {
		t->divisor = 1e6;
		t->unit = "ms";
	} else if (max_ns >= 1e2) {
		t->divisor = 1e3;
		t->unit = "\xc2\xb5s";
	} else {
		t->divisor = 1;
		t->unit = "ns";
	}
	t->kind = CG_TICKS_TIME;
	t->step = step;
	t->count = (int)floor(max_ns / step + 1e-9) + 1;
	t->max = max_ns;
	t->decimals = decimals_for(step / t->divisor);
}

int cg_ticks_fit(double length, double min_gap)
{
	double n = floor(length / min_gap);
	return n < 2 ? 2 : n > 10 ? 10 : (int)n;
}

char *cg_ticks_label(const cg_ticks *t, int i, char *buf, size_t size)
{
	if (t->kind == CG_TICKS_COUNT)
		return cg_fmt_count(buf, size, (uint64_t)llround(i * t->step));
	snprintf(buf, size, "%.*f", t->decimals, i * t->step / t->divisor);
	return buf;
}

/* --- axes ----------------------------------------------------------------- */

void cg_chart_axis_left(cg_chart *c, const cg_rect *plot, const cg_ticks *t, const char *title)
{
	char buf[32];
	cairo_save(c->cr);
	cg_chart_font(c, CG_TYPE_TICK, false);
	for (int i = 0; i < t->count; i++) {
		double y = plot->y1 - (plot->y1 - plot->y0) * (i * t->step) / t->max;
		if (i > 0)
			cg_chart_hline(c, plot->x0, plot->x1, y, CG_GRID);
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, plot->x0 - 8, y + 5, CG_RIGHT, cg_ticks_label(t, i, buf, sizeof buf));
	}
	cg_chart_font(c, CG_TYPE_LABEL, false);
	cg_chart_color(c, CG_SECONDARY);
	cairo_translate(c->cr, CG_MARGIN + 10, (plot->y0 + plot->y1) / 2);
	cairo_rotate(c->cr, -M_PI / 2);
	cg_chart_text(c, 0, 0, CG_CENTER, title);
	cairo_restore(c->cr);
}

void cg_chart_axis_bottom(cg_chart *c, const cg_rect *plot, const cg_ticks *t, const char *title)
{
	char buf[32];
	cairo_save(c->cr);
	cg_chart_hline(c, plot->x0, plot->x1, plot->y1, CG_AXES);
	cg_chart_font(c, CG_TYPE_TICK, false);
	for (int i = 0; i < t->count; i++) {
		double x = plot->x0 + (plot->x1 - plot->x0) * (i * t->step) / t->max;
		cg_chart_vline(c, x, plot->y1, plot->y1 + 5, CG_AXES);
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, x, plot->y1 + 22, CG_CENTER, cg_ticks_label(t, i, buf, sizeof buf));
	}
	cg_chart_font(c, CG_TYPE_LABEL, false);
	cg_chart_color(c, CG_SECONDARY);
	cg_chart_text(c, (plot->x0 + plot->x1) / 2, plot->y1 + 50, CG_CENTER, title);
	cairo_restore(c->cr);
}
