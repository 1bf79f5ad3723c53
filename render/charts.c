#include "charts.h"

#include <fontconfig/fontconfig.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* A step is an outermost span without a phase of its own that directly
 * holds a forward span (train_step#N holding forward, backward, optimizer). */
void cg_chart_find_steps(const cg_timeline *tl, cg_steps *out)
{
	out->n = 0;
	out->start_ns = NULL;
	bool *holds = cg_calloc(tl->nspans ? tl->nspans : 1, sizeof *holds);
	for (size_t i = 0; i < tl->nspans; i++) {
		const cg_span *s = &tl->spans[i];
		if (s->step == CG_PHASE_FORWARD && s->parent != CG_NONE && tl->spans[s->parent].phase == CG_PHASE_NONE)
			holds[s->parent] = true;
	}
	size_t cap = 0;
	for (size_t i = 0; i < tl->nspans; i++) {
		if (!holds[i])
			continue;
		bool outermost = true;
		for (uint32_t p = tl->spans[i].parent; p != CG_NONE && outermost; p = tl->spans[p].parent)
			outermost = !holds[p];
		if (!outermost)
			continue;
		CG_GROW(out->start_ns, cap, out->n + 1);
		out->start_ns[out->n++] = tl->spans[i].start_ns;
	}
	if (out->n > 1)
		qsort(out->start_ns, out->n, sizeof *out->start_ns, cmp_u64);
	cg_free(holds);
}

void cg_chart_steps_free(cg_steps *s)
{
	cg_free(s->start_ns);
	s->start_ns = NULL;
	s->n = 0;
}

static void add(cg_chart_list *l, const char *name, const char *title, const char *skipped)
{
	CG_GROW(l->items, l->cap, l->n + 1);
	l->items[l->n++] = (cg_chart_file){cg_strdup(name), cg_strdup(title), skipped ? cg_strdup(skipped) : NULL};
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

typedef void (*draw_fn)(cg_chart *c, const cg_analysis *a, uint32_t device, const char *run_name);

static int render(cg_outdir *od, const cg_charts_options *o, const char *name, draw_fn draw, const cg_analysis *a,
		  uint32_t device, const char *run_name, cg_error *err)
{
	for (int f = 0; f < 2; f++) {
		if ((f == 0 && !o->png) || (f == 1 && !o->svg))
			continue;
		char file[300];
		snprintf(file, sizeof file, "%s.%s", name, f == 0 ? "png" : "svg");
		char *path = cg_outdir_path(od, file);
		cg_chart c;
		int rc = cg_chart_open(&c, path, f == 0 ? CG_CHART_PNG : CG_CHART_SVG, &o->size, err);
		cg_free(path);
		if (rc < 0)
			return rc;
		draw(&c, a, device, run_name);
		rc = cg_chart_close(&c, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int cg_charts_write(cg_outdir *od, const cg_analysis *a, const cg_charts_options *o, cg_chart_list *out,
		    cg_error *err)
{
	cg_charts_options def = CG_CHARTS_OPTIONS_INIT;
	if (!o)
		o = &def;
	const cg_timeline *tl = a->tl;
	char run[256];
	cg_chart_run_name(tl, run, sizeof run);
	for (uint32_t d = 0; d < tl->ndevices; d++) {
		char safe[128], name[160], title[300];
		cg_chart_device_slug(cg_timeline_str(tl, tl->devices[d].name), safe, sizeof safe);
		snprintf(name, sizeof name, "timeline.%s", safe);
		snprintf(title, sizeof title, "Live memory by category on %s", cg_timeline_str(tl, tl->devices[d].name));
		if (tl->devices[d].mem_count == 0) {
			add(out, name, title, "no memory records on this device");
			continue;
		}
		int rc = render(od, o, name, cg_chart_timeline, a, d, run, err);
		if (rc < 0)
			return rc;
		add(out, name, title, NULL);
	}
	return 0;
}
