#include "chart_draw.h"

#include <fontconfig/fontconfig.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "pngqueue.h"
#include "strtab.h"
#include "xalloc.h"

static const char *meta_value(const cg_timeline *tl, const char *key)
{
	for (size_t i = 0; i < tl->nmeta; i++)
		if (tl->meta[i].is_string && strcmp(cg_timeline_str(tl, tl->meta[i].key), key) == 0)
			return cg_timeline_str(tl, tl->meta[i].value);
	return NULL;
}

void cg_chart_run_subtitle(const cg_timeline *tl, char *buf, size_t size)
{
	static const char *const keys[] = {"run_id", "framework", "model"};
	size_t n = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < 3 && n < size; k++) {
		const char *v = meta_value(tl, keys[k]);
		if (!v || !*v)
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s%s", n ? "  \xc2\xb7  " : "", k == 0 ? "run " : "", v);
	}
}

void cg_chart_title(cg_chart *c, char *buf, size_t size, const char *what, const char *run_name,
		    const cg_timeline *tl, uint32_t device)
{
	const char *dev = cg_timeline_str(tl, tl->devices[device].name);
	snprintf(buf, size, "%s \xe2\x80\x94 %s (%s)", what, run_name, dev);
	cairo_save(c->cr);
	cg_chart_font(c, CG_TYPE_TITLE, true);
	double room = c->width - 2 * CG_MARGIN;
	if (cg_chart_text_width(c, buf) > room) {
		snprintf(buf, size, "%s \xe2\x80\x94  (%s)", what, dev);
		char *run = cg_chart_elide(c, run_name, room - cg_chart_text_width(c, buf), true, 3);
		if (run)
			snprintf(buf, size, "%s \xe2\x80\x94 %s (%s)", what, run, dev);
		else
			snprintf(buf, size, "%s (%s)", what, dev);
		cg_free(run);
	}
	cairo_restore(c->cr);
}

const char *cg_chart_category_label(cg_category c)
{
	return c == CG_CAT_BASELINE ? "before profiling" : cg_category_name(c);
}

uint32_t cg_chart_named_span(const cg_timeline *tl, uint32_t span)
{
	/* a PyTorch stack: its nearest module, else its nearest frame that
	 * is neither an op nor plumbing ("<built-in method to of Tensor
	 * object at 0x…>" says nothing) */
	if (cg_stack_is_frames(tl) && span != CG_NONE) {
		uint32_t m = cg_stack_module(tl, span), s = span;
		if (m != CG_NONE)
			return m;
		for (int hops = 0; s != CG_NONE && hops < 64; hops++, s = tl->spans[s].parent)
			if (tl->spans[s].kind != CG_SPAN_OP && !cg_stack_boring(cg_timeline_str(tl, tl->spans[s].name)))
				return s;
	}
	/* Bounded: op spans nest a few levels (aten::linear > aten::addmm);
	 * a trace built as a deep chain of ops must not cost its depth per
	 * allocation. */
	uint32_t s = span;
	for (int hops = 0; s != CG_NONE && hops < 64; hops++, s = tl->spans[s].parent)
		if (tl->spans[s].kind != CG_SPAN_OP)
			return s;
	return span;
}

const char *cg_chart_source_name(const cg_timeline *tl)
{
	const char *p = tl->source.display_name ? tl->source.display_name : "trace";
	const char *slash = strrchr(p, '/');
	return slash && slash[1] ? slash + 1 : p;
}

void cg_chart_run_name(const cg_timeline *tl, char *buf, size_t size)
{
	snprintf(buf, size, "%s", cg_chart_source_name(tl));
	static const char *const ext[] = {".gz", ".jsonl", ".json", ".trace", ".pt"};
	for (int again = 1; again;) {
		again = 0;
		size_t n = strlen(buf);
		for (size_t e = 0; e < sizeof ext / sizeof ext[0]; e++) {
			size_t k = strlen(ext[e]);
			if (n > k && strcmp(buf + n - k, ext[e]) == 0) {
				buf[n - k] = '\0';
				again = 1;
				break;
			}
		}
	}
}

void cg_chart_list_add_device(cg_chart_list *l, const char *kind, uint32_t device, const char *name,
			      const char *title, const char *skipped)
{
	CG_GROW(l->items, l->cap, l->n + 1);
	l->items[l->n++] = (cg_chart_file){cg_strdup(name), cg_strdup(title), skipped ? cg_strdup(skipped) : NULL,
					   kind, device};
}

void cg_chart_list_add(cg_chart_list *l, const char *name, const char *title, const char *skipped)
{
	cg_chart_list_add_device(l, NULL, CG_NONE, name, title, skipped);
}

void cg_charts_shutdown(void)
{
	cairo_debug_reset_static_data();
	FcFini();
}

void cg_chart_list_free(cg_chart_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		cg_free(l->items[i].name);
		cg_free(l->items[i].title);
		cg_free(l->items[i].skipped);
	}
	cg_free(l->items);
	memset(l, 0, sizeof *l);
}

void cg_chart_device_slug(const char *s, char *buf, size_t size)
{
	size_t k = 0;
	for (; *s && k + 1 < size; s++) {
		char ch = *s;
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
		buf[k++] = ok ? ch : '-';
	}
	buf[k] = '\0';
}

/* Is s taken? The table's id 0 is always the empty string, so the empty
 * slug is tracked beside it. */
static bool taken(const cg_strtab *t, bool empty_taken, const char *s)
{
	cg_str id;
	return *s ? cg_strtab_find(t, s, strlen(s), &id) == 1 : empty_taken;
}

static void take(cg_strtab *t, bool *empty_taken, const char *s)
{
	cg_str id;
	if (!*s)
		*empty_taken = true;
	else
		(void)cg_strtab_intern(t, s, strlen(s), &id); /* no limit: cannot fail */
}

char **cg_chart_device_slugs(const char *const *names, size_t n)
{
	char **slugs = cg_calloc(n ? n : 1, sizeof *slugs);
	/* The next suffix to try per distinct slug (by its id in bases), so
	 * that thousands of names with one slug cost linear time. */
	cg_strtab *used = cg_strtab_new(0), *bases = cg_strtab_new(0);
	uint32_t *next = NULL;
	size_t next_cap = 0;
	bool empty_used = false;
	/* First the names that are their own slug keep it ("cuda-0" stays
	 * cuda-0 beside "cuda:0"), then every device whose slug is free... */
	for (size_t k = 0; k < 2 * n; k++) {
		size_t i = k % n;
		char base[CG_CHART_SLUG_MAX + 1];
		cg_chart_device_slug(names[i], base, sizeof base);
		if (slugs[i] || (k < n && strcmp(base, names[i]) != 0))
			continue;
		if (!taken(used, empty_used, base)) {
			take(used, &empty_used, base);
			slugs[i] = cg_strdup(base);
		}
	}
	/* ...then the others get the first free "-N" after it. */
	for (size_t i = 0; i < n; i++) {
		if (slugs[i])
			continue;
		char base[CG_CHART_SLUG_MAX + 1], cand[CG_CHART_SLUG_MAX + 16];
		cg_chart_device_slug(names[i], base, sizeof base);
		cg_str b;
		(void)cg_strtab_intern(bases, base, strlen(base), &b);
		if ((size_t)b >= next_cap) {
			size_t old = next_cap;
			CG_GROW(next, next_cap, (size_t)b + 1);
			memset(next + old, 0, (next_cap - old) * sizeof *next);
		}
		uint64_t k = next[b] < 2 ? 2 : next[b];
		for (;; k++) {
			snprintf(cand, sizeof cand, "%s-%" PRIu64, base, k);
			if (!taken(used, empty_used, cand))
				break;
		}
		next[b] = (uint32_t)(k + 1);
		take(used, &empty_used, cand);
		slugs[i] = cg_strdup(cand);
	}
	cg_free(next);
	cg_strtab_free(bases);
	cg_strtab_free(used);
	return slugs;
}

void cg_chart_slugs_free(char **slugs, size_t n)
{
	for (size_t i = 0; slugs && i < n; i++)
		cg_free(slugs[i]);
	cg_free(slugs);
}

void cg_chart_png_suffix(const cg_charts_options *o, char *buf, size_t size)
{
	if (o->hidpi_names && o->size.scale != 1)
		snprintf(buf, size, "@%gx", o->size.scale);
	else if (size)
		buf[0] = '\0';
}

int cg_charts_render(cg_outdir *od, const cg_charts_options *o, struct cg_png_queue *q, const char *name,
		     cg_chart_draw_fn draw, const void *ctx, cg_error *err)
{
	static const struct {
		cg_chart_format format;
		const char *ext;
	} formats[] = {{CG_CHART_PNG, "png"}, {CG_CHART_SVG, "svg"}, {CG_CHART_PDF, "pdf"}};
	const bool wanted[] = {o->png, o->svg, o->pdf};
	char suffix[16];
	cg_chart_png_suffix(o, suffix, sizeof suffix);
	for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
		if (!wanted[f])
			continue;
		char file[CG_CHART_SLUG_MAX + 96];
		snprintf(file, sizeof file, "%s%s.%s", name, formats[f].format == CG_CHART_PNG ? suffix : "",
			 formats[f].ext);
		char *path;
		int rc = cg_outdir_file(od, file, &path, err);
		if (rc < 0)
			return rc;
		cg_chart c;
		rc = cg_chart_open_queued(&c, path, formats[f].format, &o->size, q, err);
		cg_free(path);
		if (rc < 0)
			return rc;
		draw(&c, ctx);
		rc = cg_chart_close_queued(&c, q, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

typedef void (*draw_fn)(cg_chart *c, const cg_analysis *a, uint32_t device, const char *run_name);

/* A device chart of one analysis, as cg_charts_render draws it. */
typedef struct device_chart {
	draw_fn draw;
	const cg_analysis *a;
	uint32_t device;
	const char *run_name;
} device_chart;

static void draw_device_chart(cg_chart *c, const void *ctx)
{
	const device_chart *dc = ctx;
	dc->draw(c, dc->a, dc->device, dc->run_name);
}

/* Which devices get charts: all of them, or the max with the largest peaks. */
static bool *chosen_devices(const cg_analysis *a, uint32_t max)
{
	uint32_t n = a->tl->ndevices;
	bool *chosen = cg_calloc(n ? n : 1, sizeof *chosen);
	if (n <= max) {
		for (uint32_t d = 0; d < n; d++)
			chosen[d] = true;
		return chosen;
	}
	for (uint32_t k = 0; k < max; k++)
		chosen[a->peak->by_peak[k]] = true;
	return chosen;
}

/* The charts of a device, in the order the report shows them. */
static const struct chart_kind {
	const char *name;  /* file name: <name>.<device slug>.png */
	const char *title; /* for the report: "<title> on <device>" */
	draw_fn draw;
	const char *(*skip)(const cg_analysis *a, uint32_t device);
	bool snapshot_only; /* listed for allocator snapshots only, drawn even without memory records */
} kinds[] = {
	{"timeline", "Live memory by category", cg_chart_timeline, cg_chart_timeline_skip, false},
	{"breakdown", "Breakdown at the peak", cg_chart_breakdown, cg_chart_breakdown_skip, false},
	{"icicle", "Memory at the peak by span", cg_chart_icicle, cg_chart_icicle_skip, false},
	{"top_allocations", "Largest allocations live at the peak", cg_chart_top_allocations,
	 cg_chart_top_allocations_skip, false},
	{"fragmentation", "Reserved bytes and fragmentation", cg_chart_fragmentation,
	 cg_chart_fragmentation_skip, false},
	{"segments", "Allocator segments at the snapshot", cg_chart_segments, cg_chart_segments_skip, true},
	{"lifetimes", "Allocation lifetimes", cg_chart_lifetimes, cg_chart_lifetimes_skip, false},
};

int cg_charts_write(cg_outdir *od, const cg_analysis *a, const cg_charts_options *o, cg_chart_list *out,
		    cg_error *err)
{
	cg_charts_options def = CG_CHARTS_OPTIONS_INIT;
	if (!o)
		o = &def;
	cg_chart_png_suffix(o, out->png_suffix, sizeof out->png_suffix);
	const cg_timeline *tl = a->tl;
	char run[256];
	cg_chart_run_name(tl, run, sizeof run);
	bool *charted = chosen_devices(a, o->max_devices);
	char too_many[160];
	snprintf(too_many, sizeof too_many, "charts are drawn for the %" PRIu32 " devices with the largest peaks, of %"
		 PRIu32, o->max_devices, tl->ndevices);
	/* PNGs are compressed by a worker while the next chart is drawn. */
	/* Device names that differ only in characters a file name cannot
	 * hold ("cuda:0", "cuda/0") must not share files. */
	const char **names = cg_calloc(tl->ndevices ? tl->ndevices : 1, sizeof *names);
	for (uint32_t d = 0; d < tl->ndevices; d++)
		names[d] = cg_timeline_str(tl, tl->devices[d].name);
	char **slugs = cg_chart_device_slugs(names, tl->ndevices);
	cg_free(names);
	cg_png_queue *q = cg_png_queue_new();
	int rc = 0;
	for (uint32_t d = 0; d < tl->ndevices && rc == 0; d++) {
		const char *device = cg_timeline_str(tl, tl->devices[d].name);
		const char *slug = slugs[d];
		char name[CG_CHART_SLUG_MAX + 64], title[400];
		if (!charted[d] && tl->devices[d].mem_count) {
			snprintf(name, sizeof name, "%s.%s", kinds[0].name, slug);
			snprintf(title, sizeof title, "%s on %s", kinds[0].title, device);
			cg_chart_list_add_device(out, kinds[0].name, d, name, title, too_many);
			continue;
		}
		bool empty = tl->devices[d].mem_count == 0;
		for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && rc == 0; k++) {
			if (kinds[k].snapshot_only && !tl->snapshot)
				continue;
			/* A device without records has nothing to chart over time:
			 * one line (the timeline's) says so; a snapshot's segments
			 * are still drawn. */
			if (empty && k > 0 && !kinds[k].snapshot_only)
				continue;
			snprintf(name, sizeof name, "%s.%s", kinds[k].name, slug);
			snprintf(title, sizeof title, "%s on %s", kinds[k].title, device);
			const char *skipped = kinds[k].skip(a, d);
			if (skipped) {
				cg_chart_list_add_device(out, kinds[k].name, d, name, title, skipped);
				continue;
			}
			device_chart dc = {kinds[k].draw, a, d, run};
			rc = cg_charts_render(od, o, q, name, draw_device_chart, &dc, err);
			if (rc == 0)
				cg_chart_list_add_device(out, kinds[k].name, d, name, title, NULL);
		}
	}
	cg_chart_slugs_free(slugs, tl->ndevices);
	cg_free(charted);
	cg_error qerr = CG_ERROR_INIT;
	int qrc = cg_png_queue_finish(q, &qerr);
	if (rc == 0 && qrc < 0) {
		rc = qrc;
		if (err)
			*err = qerr;
	}
	return rc;
}

void cg_chart_time_axis(cg_ticks *x, const cg_timeline *tl, double t_end, int max_intervals, char *title,
			size_t size)
{
	if (tl->source.time_is_index) {
		cg_ticks_count(x, t_end, max_intervals);
		snprintf(title, size, "trace entry (the snapshot records no time_us)");
	} else {
		cg_ticks_time(x, t_end, max_intervals);
		snprintf(title, size, "time since trace start (%s)", x->unit);
	}
}
