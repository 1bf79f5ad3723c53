/* Chart 2: what is live at a device's peak, as horizontal bars by category
 * and by the phase that allocated it (each phase bar split by category),
 * two panels on one bar scale so their lengths compare. */
#include "chart_draw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"
#include "xalloc.h"

typedef struct bar {
	const char *label;
	char sub[200];		    /* a grey line under the label ("setup:model, data"), or "" */
	uint64_t bytes;
	uint64_t seg[CG_CAT_COUNT]; /* the bar's bytes by category, drawn in stack order */
	cg_category color;	    /* one-colour bars: their category */
	bool split;		    /* drawn in segments by category */
} bar;

typedef struct panel {
	const char *header;
	bar bars[CG_CAT_COUNT];
	size_t n;
	char note[300];
	double x0, x1, bar_x0;
} panel;

/* Largest first; equal bars keep the order they were added in (stack order). */
static void sort_bars(panel *p)
{
	for (size_t i = 1; i < p->n; i++) {
		bar b = p->bars[i];
		size_t j = i;
		for (; j > 0 && p->bars[j - 1].bytes < b.bytes; j--)
			p->bars[j] = p->bars[j - 1];
		p->bars[j] = b;
	}
}

static void category_panel(panel *p, const cg_timeline *tl, const cg_liveset_device *ls)
{
	memset(p, 0, sizeof *p);
	p->header = tl->source.categories_inferred ? "by category (inferred)" : "by category";
	size_t nmissing = 0, n = 0;
	n += (size_t)snprintf(p->note, sizeof p->note, "nothing live at the peak:");
	for (int s = 0; s < CG_CAT_COUNT; s++) {
		cg_category cat = cg_chart_stack_order[s];
		if (ls->by_category[cat] == 0) {
			/* Only categories the trace could have named are worth a word. */
			if (tl->source.categories_known && cat != CG_CAT_BASELINE && n < sizeof p->note)
				n += (size_t)snprintf(p->note + n, sizeof p->note - n, "%s %s", nmissing++ ? "," : "",
						      cg_category_name(cat));
			continue;
		}
		bar *b = &p->bars[p->n++];
		memset(b, 0, sizeof *b);
		b->label = cg_chart_category_label(cat);
		b->bytes = ls->by_category[cat];
		b->seg[cat] = b->bytes;
		b->color = cat;
	}
	if (!nmissing)
		p->note[0] = '\0';
	sort_bars(p);
}

/* Counts per span name, for naming the spans that hold phase-less memory. */
typedef struct name_bytes {
	cg_str name;
	uint64_t bytes;
} name_bytes;

static int cmp_name_bytes(const void *pa, const void *pb)
{
	const name_bytes *a = pa, *b = pb;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return a->name < b->name ? -1 : a->name > b->name;
}

/* "setup:model, data": the named spans (see cg_chart_named_span) that
 * allocated the live memory without a phase, most bytes first. One pass
 * over the live allocations with an open-addressing table of names. */
static void no_phase_spans(const cg_timeline *tl, const cg_liveset_device *ls, char *buf, size_t size)
{
	size_t nslots = 64, used = 0;
	name_bytes *slots = cg_calloc(nslots, sizeof *slots);
	bool before_trace = false, outside = false;
	for (size_t i = 0; i < ls->nallocs; i++) {
		const cg_live_alloc *la = &ls->allocs[i];
		if (cg_live_alloc_phase(tl, la) != CG_PHASE_NONE || la->bytes == 0)
			continue;
		if (la->alloc == CG_NONE) {
			before_trace = true;
			continue;
		}
		uint32_t s = cg_chart_named_span(tl, tl->mem[la->alloc].span);
		if (s == CG_NONE) {
			outside = true;
			continue;
		}
		if (used * 2 >= nslots) {
			name_bytes *old = slots;
			size_t nold = nslots;
			nslots *= 2;
			slots = cg_calloc(nslots, sizeof *slots);
			for (size_t k = 0; k < nold; k++)
				if (old[k].bytes) {
					size_t h = (old[k].name * 2654435761u) & (nslots - 1);
					while (slots[h].bytes)
						h = (h + 1) & (nslots - 1);
					slots[h] = old[k];
				}
			cg_free(old);
		}
		cg_str name = tl->spans[s].name;
		size_t h = (name * 2654435761u) & (nslots - 1);
		while (slots[h].bytes && slots[h].name != name)
			h = (h + 1) & (nslots - 1);
		if (!slots[h].bytes) {
			slots[h].name = name;
			used++;
		}
		/* live bytes of one device fit in 64 bits (finalize checked) */
		slots[h].bytes += la->bytes;
	}
	size_t n = 0;
	for (size_t k = 0; k < nslots; k++)
		if (slots[k].bytes)
			slots[n++] = slots[k];
	qsort(slots, n, sizeof *slots, cmp_name_bytes);
	size_t len = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < n && k < 4 && len < size; k++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", k ? ", " : "", cg_timeline_str(tl, slots[k].name));
	if (before_trace && len < size)
		len += (size_t)snprintf(buf + len, size - len, "%sbefore the trace", len ? ", " : "");
	if (outside && len < size)
		snprintf(buf + len, size - len, "%soutside any span", len ? ", " : "");
	cg_free(slots);
}

static void phase_panel(panel *p, const cg_timeline *tl, const cg_liveset_device *ls)
{
	memset(p, 0, sizeof *p);
	p->header = "by phase that allocated it";
	for (int ph = 0; ph < CG_PHASE_COUNT; ph++) {
		if (ls->by_phase[ph] == 0)
			continue;
		bar *b = &p->bars[p->n++];
		memset(b, 0, sizeof *b);
		b->label = ph == CG_PHASE_NONE ? "no phase" : cg_phase_name((cg_phase)ph);
		b->bytes = ls->by_phase[ph];
		memcpy(b->seg, ls->by_phase_category[ph], sizeof b->seg);
		b->split = true;
		if (ph == CG_PHASE_NONE)
			no_phase_spans(tl, ls, b->sub, sizeof b->sub);
	}
	snprintf(p->note, sizeof p->note, "each bar is split by category, colours as on the left");
	sort_bars(p);
}

/* The panels worth drawing: categories when they tell something (two
 * bars, or one named category), phases when the pairing lists them and
 * there are two or more. */
static bool shows_categories(const cg_timeline *tl, const cg_liveset_device *ls)
{
	int n = 0;
	for (int c = 0; c < CG_CAT_COUNT; c++)
		n += ls->by_category[c] != 0;
	return n >= 2 || (n == 1 && cg_source_has_categories(&tl->source));
}

static bool shows_phases(const cg_liveset_device *ls)
{
	int n = 0;
	for (int p = 0; p < CG_PHASE_COUNT; p++)
		n += ls->by_phase[p] != 0;
	return ls->listed && n >= 2;
}

const char *cg_chart_breakdown_skip(const cg_analysis *a, uint32_t d)
{
	const cg_liveset_device *ls = &a->at_peak->devices[d];
	if (a->tl->devices[d].mem_count == 0)
		return "no memory records on this device";
	if (ls->bytes == 0)
		return "nothing is live at the peak";
	if (!shows_categories(a->tl, ls) && !shows_phases(ls))
		return a->tl->source.pairing_known ? "the trace records neither categories nor phases"
						   : "the trace records no categories, and the phases of live memory need "
						     "frees paired with allocations, which this trace does not allow";
	return NULL;
}

/* --- drawing --------------------------------------------------------------- */

typedef struct layout {
	double top;	/* top of the first row */
	double pitch;	/* row height */
	double scale;	/* px per byte, shared by both panels */
	uint64_t peak;
} layout;

static void value_texts(const bar *b, uint64_t peak, char *bytes, size_t bsize, char *pct, size_t psize)
{
	cg_fmt_bytes(bytes, bsize, b->bytes);
	cg_fmt_percent(pct, psize, peak ? (double)b->bytes / (double)peak : 0);
}

static double label_column(cg_chart *c, const panel *panels, size_t npanels)
{
	double w = 0;
	for (size_t k = 0; k < npanels; k++) {
		for (size_t i = 0; i < panels[k].n; i++) {
			cg_chart_font(c, CG_TYPE_LABEL, false);
			double lw = cg_chart_text_width(c, panels[k].bars[i].label);
			cg_chart_font(c, CG_TYPE_SMALL, false);
			double sw = cg_chart_text_width(c, panels[k].bars[i].sub);
			/* A long list of spans is cut rather than squeezing the bars. */
			if (sw > 200)
				sw = 200;
			if (lw > w)
				w = lw;
			if (sw > w)
				w = sw;
		}
	}
	return w < 90 ? 90 : w;
}

/* The largest px-per-byte at which every bar and its label fit its panel. */
static double bar_scale(cg_chart *c, const panel *panels, size_t npanels, uint64_t peak)
{
	double s = -1;
	char bytes[32], pct[32];
	for (size_t k = 0; k < npanels; k++) {
		for (size_t i = 0; i < panels[k].n; i++) {
			const bar *b = &panels[k].bars[i];
			value_texts(b, peak, bytes, sizeof bytes, pct, sizeof pct);
			double room = panels[k].x1 - panels[k].bar_x0 - 10 - cg_chart_value_label(c, 0, 0, bytes, pct, false);
			if (room < 2)
				room = 2;
			double bs = room / (double)b->bytes;
			if (s < 0 || bs < s)
				s = bs;
		}
	}
	return s < 0 ? 1 : s;
}

static void draw_bar(cg_chart *c, const layout *l, const panel *p, const bar *b, double y)
{
	double h = l->pitch * 0.55, len = (double)b->bytes * l->scale;
	if (len < 2)
		len = 2;
	if (!b->split) {
		cg_chart_box(c, p->bar_x0, y - h / 2, len, h, cg_chart_category_color(b->color));
	} else {
		/* Segments in stack order, each drawn in full; then a white
		 * seam, on whole device pixels so it stays white, where two
		 * segments both wide enough to keep their colour beside it meet. */
		double prev_w = 0;
		uint64_t done = 0;
		for (int s = 0; s < CG_CAT_COUNT; s++) {
			cg_category cat = cg_chart_stack_order[s];
			if (!b->seg[cat])
				continue;
			double w = len * (double)b->seg[cat] / (double)b->bytes;
			double from = p->bar_x0 + len * (double)done / (double)b->bytes;
			cg_chart_box(c, from, y - h / 2, w, h, cg_chart_category_color(cat));
			if (prev_w >= 3 && w >= 3) {
				double seam = floor(from * c->scale) / c->scale;
				cg_chart_box(c, seam, y - h / 2, 1 / c->scale, h, cg_rgb_hex(0xFFFFFF));
			}
			done += b->seg[cat];
			prev_w = w;
		}
	}
	char bytes[32], pct[32];
	value_texts(b, l->peak, bytes, sizeof bytes, pct, sizeof pct);
	cg_chart_value_label(c, p->bar_x0 + len + 10, y + 6, bytes, pct, true);
}

static void draw_panel(cg_chart *c, const layout *l, const panel *p)
{
	cg_chart_font(c, CG_TYPE_LABEL, true);
	cg_chart_color(c, CG_INK);
	cg_chart_text(c, p->x0, l->top - 34, CG_LEFT, p->header);
	cg_chart_hline(c, p->x0, p->x1, l->top - 13, 0xCCCCCC);
	double label_w = p->bar_x0 - 12 - p->x0;
	for (size_t i = 0; i < p->n; i++) {
		const bar *b = &p->bars[i];
		double cy = l->top + l->pitch * ((double)i + 0.5);
		cg_chart_font(c, CG_TYPE_LABEL, false);
		cg_chart_color(c, CG_INK);
		char *sub = NULL;
		if (b->sub[0] && l->pitch >= 40) { /* two lines need the room */
			cg_chart_font(c, CG_TYPE_SMALL, false);
			sub = cg_chart_elide(c, b->sub, label_w, false, 3);
		}
		cg_chart_font(c, CG_TYPE_LABEL, false);
		cg_chart_text(c, p->bar_x0 - 12, sub ? cy - 2 : cy + 6, CG_RIGHT, b->label);
		if (sub) {
			cg_chart_font(c, CG_TYPE_SMALL, false);
			cg_chart_color(c, CG_FOOTNOTE);
			cg_chart_text(c, p->bar_x0 - 12, cy + 15, CG_RIGHT, sub);
			cg_free(sub);
		}
		draw_bar(c, l, p, b, cy);
	}
	double bottom = l->top + l->pitch * (double)p->n;
	/* just left of the bars, so a 2-px bar stays visible beside it */
	cg_chart_vline(c, p->bar_x0 - 1, l->top - 6, bottom + 6, CG_INK);
	if (p->note[0]) {
		cg_chart_font(c, CG_TYPE_SMALL, false);
		cg_chart_color(c, CG_FOOTNOTE);
		char *note = cg_chart_elide(c, p->note, p->x1 - p->bar_x0, false, 3);
		if (note)
			cg_chart_text(c, p->bar_x0, bottom + 26, CG_LEFT, note);
		cg_free(note);
	}
}

void cg_chart_breakdown(cg_chart *c, const cg_analysis *a, uint32_t d, const char *run_name)
{
	const cg_timeline *tl = a->tl;
	const cg_liveset_device *ls = &a->at_peak->devices[d];
	const cg_peak_device *pk = &a->peak->devices[d];
	panel panels[2];
	size_t np = 0;
	bool cats = shows_categories(tl, ls), phases = shows_phases(ls);
	if (cats)
		category_panel(&panels[np++], tl, ls);
	if (phases)
		phase_panel(&panels[np++], tl, ls);

	/* Two panels side by side with a 60-px gutter, or one across the page. */
	double inner = c->width - 2 * CG_MARGIN;
	for (size_t k = 0; k < np; k++) {
		panels[k].x0 = CG_MARGIN + (double)k * (inner + 60) / (double)np;
		panels[k].x1 = panels[k].x0 + (np == 2 ? (inner - 60) / 2 : inner);
	}
	double label_w = label_column(c, panels, np);
	for (size_t k = 0; k < np; k++)
		panels[k].bar_x0 = panels[k].x0 + label_w + 12;

	layout l;
	l.peak = ls->bytes;
	l.top = 152;
	size_t rows = 1;
	for (size_t k = 0; k < np; k++)
		if (panels[k].n > rows)
			rows = panels[k].n;
	/* Rows fill the space down to the notes above the footnote, at most 84 px each. */
	l.pitch = (c->height - 66 - l.top) / (double)rows;
	if (l.pitch > 84)
		l.pitch = 84;
	l.scale = bar_scale(c, panels, np, l.peak);

	/* The test reads the geometry back: x in bytes from the first panel's
	 * bar origin, y in rows. */
	c->plot = (cg_rect){panels[0].bar_x0, l.top, panels[0].x1, l.top + l.pitch * (double)rows};
	c->x_max = (panels[0].x1 - panels[0].bar_x0) / l.scale;
	c->y_max = (double)rows;

	char title[512], subtitle[512], footnote[512], bytes[32], when[32], count[32], exact[32];
	cg_chart_title(c, title, sizeof title, "What is live at the peak", run_name, tl, d);
	cg_fmt_bytes(bytes, sizeof bytes, ls->bytes);
	cg_timeline_fmt_time(tl, when, sizeof when, pk->peak_t_ns);
	if (cats && phases)
		snprintf(subtitle, sizeof subtitle,
			 "%s live at %s, split by memory category%s and by the phase of the span that allocated it "
			 "\xc2\xb7 both panels share one bar scale", bytes, when,
			 tl->source.categories_inferred ? " (inferred)" : "");
	else if (cats)
		snprintf(subtitle, sizeof subtitle, "%s live at %s, by memory category%s \xc2\xb7 %s", bytes, when,
			 tl->source.categories_inferred ? " (inferred)" : "",
			 !ls->listed ? "phases not known: this trace's frees cannot be paired with allocations"
				     : "no phases in this trace");
	else
		snprintf(subtitle, sizeof subtitle, "%s live at %s, by the phase of the span that allocated it, split "
			 "by category \xc2\xb7 the trace records no categories", bytes, when);
	if (ls->listed)
		snprintf(footnote, sizeof footnote, "%s \xc2\xb7 %s allocations live at the peak \xc2\xb7 percentages are "
			 "of the peak (%s B)", cg_chart_source_name(tl), cg_fmt_count(count, sizeof count, ls->count),
			 cg_fmt_count(exact, sizeof exact, ls->bytes));
	else
		snprintf(footnote, sizeof footnote, "%s \xc2\xb7 percentages are of the peak (%s B)",
			 cg_chart_source_name(tl), cg_fmt_count(exact, sizeof exact, ls->bytes));
	cg_chart_frame(c, title, subtitle, footnote);
	for (size_t k = 0; k < np; k++)
		draw_panel(c, &l, &panels[k]);
}
