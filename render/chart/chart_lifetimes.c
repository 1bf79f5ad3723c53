/* Chart 6: how long allocations lived (free time minus allocation time), a
 * histogram on a logarithmic time axis with the lifetimes pass's four bins
 * per decade, each bar stacked by category. */
#include "chart_draw.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "units.h"
#include "xalloc.h"

static uint64_t freed_total(const cg_lifetimes_device *lt)
{
	uint64_t n = 0;
	for (size_t i = 0; i < lt->ncells; i++)
		n += lt->cells[i].count;
	return n;
}

const char *cg_chart_lifetimes_skip(const cg_analysis *a, uint32_t d)
{
	const cg_lifetimes_device *lt = &a->lifetimes->devices[d];
	if (a->tl->devices[d].mem_count == 0)
		return "no memory records on this device";
	if (!lt->available)
		return "lifetimes need frees paired with allocations, which this trace does not allow";
	if (freed_total(lt) == 0)
		return "nothing allocated in the trace was freed on this device";
	return NULL;
}

typedef struct hist {
	uint64_t count[CG_LIFETIME_BUCKETS][CG_CAT_COUNT];
	uint64_t total[CG_LIFETIME_BUCKETS];
	uint64_t by_cat[CG_CAT_COUNT];
	unsigned b_lo, b_hi; /* non-empty buckets from 1 on */
	bool zero;	     /* bucket 0: lifetimes of 0 ns */
	uint64_t max;	     /* the tallest bar */
} hist;

static void build(hist *h, const cg_lifetimes_device *lt)
{
	memset(h, 0, sizeof *h);
	h->b_lo = CG_LIFETIME_BUCKETS;
	for (size_t i = 0; i < lt->ncells; i++) {
		const cg_lifetime_cell *cell = &lt->cells[i];
		/* counts of one device fit: they count its records */
		h->count[cell->bucket][cell->category] += cell->count;
		h->total[cell->bucket] += cell->count;
		h->by_cat[cell->category] += cell->count;
		if (cell->bucket == 0) {
			h->zero = true;
		} else {
			if (cell->bucket < h->b_lo)
				h->b_lo = cell->bucket;
			if (cell->bucket > h->b_hi)
				h->b_hi = cell->bucket;
		}
	}
	for (unsigned b = 0; b < CG_LIFETIME_BUCKETS; b++)
		if (h->total[b] > h->max)
			h->max = h->total[b];
}

/* The x axis: whole decades of ns from dec_lo to dec_hi; a slot for the
 * 0-ns bar at its left when there is one. */
typedef struct layout {
	cg_rect plot;
	double log_x0;	   /* where the log axis starts (after the 0-ns slot) */
	int dec_lo, dec_hi;
	double zero_x0, zero_x1;
	cg_ticks y;
} layout;

static double x_of_log(const layout *l, double log10_ns)
{
	return l->log_x0 + (l->plot.x1 - l->log_x0) * (log10_ns - l->dec_lo) / (l->dec_hi - l->dec_lo);
}

static double y_of(const layout *l, double count)
{
	return l->plot.y1 - (l->plot.y1 - l->plot.y0) * count / l->y.max;
}

/* "100 ns", "1 µs", "10 s", "1,000 s" */
static void decade_label(int dec, char *buf, size_t size)
{
	static const char *const units[] = {"ns", "\xc2\xb5s", "ms", "s"};
	int u = dec / 3 < 3 ? dec / 3 : 3;
	char num[24];
	cg_fmt_count(num, sizeof num, (uint64_t)llround(pow(10, dec - 3 * u)));
	snprintf(buf, size, "%s %s", num, units[u]);
}

static void draw_x_axis(cg_chart *c, const layout *l, bool zero)
{
	cg_chart_hline(c, l->zero_x0 < l->plot.x0 ? l->zero_x0 : l->plot.x0, l->plot.x1, l->plot.y1, CG_AXES);
	cg_chart_font(c, CG_TYPE_TICK, false);
	/* Label every decade, or every other one when they would touch. */
	double dec_w = (l->plot.x1 - l->log_x0) / (l->dec_hi - l->dec_lo);
	char buf[32];
	double widest = 0;
	for (int dec = l->dec_lo; dec <= l->dec_hi; dec++) {
		decade_label(dec, buf, sizeof buf);
		double w = cg_chart_text_width(c, buf);
		widest = w > widest ? w : widest;
	}
	int every = 1;
	while (every * dec_w < widest + 12 && every < l->dec_hi - l->dec_lo)
		every++;
	for (int dec = l->dec_lo; dec <= l->dec_hi; dec++) {
		double x = x_of_log(l, dec);
		cg_chart_vline(c, x, l->plot.y1, l->plot.y1 + 5, CG_AXES);
		if ((dec - l->dec_lo) % every == 0) {
			decade_label(dec, buf, sizeof buf);
			cg_chart_color(c, CG_SECONDARY);
			cg_chart_text(c, x, l->plot.y1 + 22, CG_CENTER, buf);
		}
		for (int m = 2; m <= 9 && dec < l->dec_hi; m++)
			cg_chart_vline(c, x_of_log(l, dec + log10(m)), l->plot.y1, l->plot.y1 + 3, CG_AXES);
	}
	if (zero) {
		double x = (l->zero_x0 + l->zero_x1) / 2;
		cg_chart_vline(c, x, l->plot.y1, l->plot.y1 + 5, CG_AXES);
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, x, l->plot.y1 + 22, CG_CENTER, "0");
	}
	cg_chart_font(c, CG_TYPE_LABEL, false);
	cg_chart_color(c, CG_SECONDARY);
	cg_chart_text(c, (l->plot.x0 + l->plot.x1) / 2, l->plot.y1 + 50, CG_CENTER,
		      "lifetime (free \xe2\x88\x92 alloc), log scale");
}

/* One bar: categories stacked in stack order, its count above it. */
static void draw_bar(cg_chart *c, const layout *l, const hist *h, unsigned b, double x0, double x1)
{
	double x = x0 + 1.5, w = x1 - x0 - 3;
	if (w < 1) {
		x = x0;
		w = x1 - x0;
	}
	uint64_t below = 0;
	for (int s = 0; s < CG_CAT_COUNT; s++) {
		cg_category cat = cg_chart_stack_order[s];
		uint64_t n = h->count[b][cat];
		if (!n)
			continue;
		double y0 = y_of(l, (double)(below + n)), y1 = y_of(l, (double)below);
		cg_chart_box(c, x, y0, w, y1 - y0, cg_chart_category_color(cat));
		below += n;
	}
	char buf[32];
	cg_fmt_count(buf, sizeof buf, h->total[b]);
	cg_chart_font(c, CG_TYPE_NOTE, false);
	if (cg_chart_text_width(c, buf) <= x1 - x0 - 2) { /* clear of the neighbours' counts */
		cg_chart_color(c, CG_SECONDARY);
		cg_chart_text(c, (x0 + x1) / 2, y_of(l, (double)h->total[b]) - 6, CG_CENTER, buf);
	}
}

static void draw_legend(cg_chart *c, double x, double y, const hist *h)
{
	double width = c->width - CG_MARGIN - x;
	char buf[32];
	y = cg_chart_legend_header(c, x, y, width, "category", "freed");
	for (int s = CG_CAT_COUNT; s-- > 0;) {
		cg_category cat = cg_chart_stack_order[s];
		if (h->by_cat[cat])
			y = cg_chart_legend_swatch(c, x, y, width, cg_chart_category_color(cat), cg_chart_category_label(cat),
						   cg_fmt_count(buf, sizeof buf, h->by_cat[cat]));
	}
}

/* "parameter 8, optimizer_state 24": never-freed allocations by category,
 * counted over the device's records (an allocation never freed has no pair). */
static size_t never_freed_text(const cg_timeline *tl, uint32_t d, char *buf, size_t size)
{
	const cg_device *dev = &tl->devices[d];
	uint64_t n[CG_CAT_COUNT] = {0};
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		const cg_mem *m = &tl->mem[dev->mem_first + k];
		if (m->action == CG_ALLOC && m->pair == CG_NONE)
			n[m->category]++;
	}
	size_t len = 0;
	buf[0] = '\0';
	for (int s = 0; s < CG_CAT_COUNT && len < size; s++) {
		cg_category cat = cg_chart_stack_order[s];
		char count[32];
		if (n[cat])
			len += (size_t)snprintf(buf + len, size - len, "%s%s %s", len ? ", " : "", cg_chart_category_label(cat),
						cg_fmt_count(count, sizeof count, n[cat]));
	}
	return len;
}

void cg_chart_lifetimes(cg_chart *c, const cg_analysis *a, uint32_t d, const char *run_name)
{
	const cg_timeline *tl = a->tl;
	const cg_lifetimes_device *lt = &a->lifetimes->devices[d];
	hist *h = cg_malloc(sizeof *h);
	build(h, lt);

	layout l;
	l.plot = (cg_rect){118, 112, c->width - 314, c->height - 92};
	c->plot = l.plot;
	/* bucket b covers [10^((b-1)/4), 10^(b/4)) ns */
	bool any_log = h->b_hi > 0;
	l.dec_lo = any_log ? (int)((h->b_lo - 1) / 4) : 0;
	l.dec_hi = any_log ? (int)((h->b_hi + 3) / 4) : 1;
	if (l.dec_hi <= l.dec_lo)
		l.dec_hi = l.dec_lo + 1;
	/* The 0-ns bar gets a slot as wide as one bin, 14 px left of the axis. */
	double gap = 14, bins = 4.0 * (l.dec_hi - l.dec_lo);
	l.zero_x0 = l.zero_x1 = l.plot.x0;
	l.log_x0 = l.plot.x0;
	if (h->zero) {
		double bin_w = (l.plot.x1 - l.plot.x0 - gap) / (bins + 1);
		l.zero_x1 = l.plot.x0 + bin_w;
		l.log_x0 = l.zero_x1 + gap;
	}
	cg_ticks_count(&l.y, (double)h->max, cg_ticks_fit(l.plot.y1 - l.plot.y0, 90));
	/* room above the tallest bar for its count */
	while (y_of(&l, (double)h->max) - l.plot.y0 < 24 && l.y.count < 40)
		cg_ticks_grow(&l.y);
	c->x_max = l.dec_hi;
	c->y_max = l.y.max;

	char title[512], subtitle[600], footnote[700], count[32], cats[300];
	cg_chart_title(c, title, sizeof title, "How long allocations live", run_name, tl, d);
	size_t n = (size_t)snprintf(subtitle, sizeof subtitle, "%s freed allocations by lifetime, 4 bins per decade",
				    cg_fmt_count(count, sizeof count, freed_total(lt)));
	if (!cg_source_has_categories(&tl->source)) {
		snprintf(subtitle + n, sizeof subtitle - n, " (the trace records no categories)");
	} else {
		const char *sep = tl->source.categories_inferred ? ", stacked by inferred category (bottom\xe2\x86\x92top: "
								 : ", stacked by category (bottom\xe2\x86\x92top: ";
		for (int s = 0; s < CG_CAT_COUNT && n < sizeof subtitle; s++) {
			cg_category cat = cg_chart_stack_order[s];
			if (h->by_cat[cat]) {
				n += (size_t)snprintf(subtitle + n, sizeof subtitle - n, "%s%s", sep,
						      cg_chart_category_label(cat));
				sep = ", ";
			}
		}
		if (n < sizeof subtitle)
			snprintf(subtitle + n, sizeof subtitle - n, ")");
	}
	n = (size_t)snprintf(footnote, sizeof footnote, "%s", cg_chart_source_name(tl));
	if (lt->never_freed_count && n < sizeof footnote) {
		never_freed_text(tl, d, cats, sizeof cats);
		n += (size_t)snprintf(footnote + n, sizeof footnote - n, " \xc2\xb7 not shown: %s allocations never "
				      "freed (%s)", cg_fmt_count(count, sizeof count, lt->never_freed_count), cats);
	}
	if (lt->before_trace_count && n < sizeof footnote)
		n += (size_t)snprintf(footnote + n, sizeof footnote - n, " \xc2\xb7 %s frees of allocations from before "
				      "the trace (lifetime unknown)", cg_fmt_count(count, sizeof count, lt->before_trace_count));
	if (tl->source.truncated && n < sizeof footnote)
		snprintf(footnote + n, sizeof footnote - n, " \xc2\xb7 cut off: allocations live at the cut count as "
			 "never freed");
	cg_chart_frame(c, title, subtitle, footnote);

	cg_chart_axis_left(c, &l.plot, &l.y, "allocations");
	for (unsigned b = 1; b < CG_LIFETIME_BUCKETS; b++)
		if (h->total[b])
			draw_bar(c, &l, h, b, x_of_log(&l, (b - 1) / 4.0), x_of_log(&l, b / 4.0));
	if (h->zero)
		draw_bar(c, &l, h, 0, l.zero_x0, l.zero_x1);
	draw_x_axis(c, &l, h->zero);
	draw_legend(c, l.plot.x1 + 28, l.plot.y0 + 4, h);
	cg_free(h);
}
