#include "report.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "units.h"
#include "xalloc.h"

#define ROW(d, ...) cg_doc_row(d, (const char *const[]){__VA_ARGS__})

static void run_section(cg_doc *d, const cg_timeline *tl)
{
	const cg_source *s = &tl->source;
	char lines[32], size[32];
	cg_doc_heading(d, 2, "The run");
	bool jsonl = s->format && strncmp(s->format, "candle-graph", 12) == 0;
	if (!s->meta_seen && jsonl)
		cg_doc_note(d, "The trace has no meta record: its run metadata is unknown.");
	cg_doc_table(d, 2, "ll");
	ROW(d, "run", "value");
	ROW(d, "trace", s->display_name ? s->display_name : "");
	char fmt[128];
	snprintf(fmt, sizeof fmt, "%s%s, %s, %s %ss", s->format ? s->format : "", s->gzip ? " (gzip)" : "",
		 cg_fmt_bytes(size, sizeof size, s->data_bytes), cg_fmt_count(lines, sizeof lines, s->lines),
		 cg_timeline_position_word(tl));
	ROW(d, "format", fmt);
	for (size_t i = 0; i < tl->nmeta; i++) {
		const char *v = cg_timeline_str(tl, tl->meta[i].value);
		char cut[304];
		snprintf(cut, sizeof cut, "%.300s%s", v, strlen(v) > 300 ? "…" : "");
		ROW(d, cg_timeline_str(tl, tl->meta[i].key), cut);
	}
}

static void key_figures(cg_doc *d, const cg_analysis *a)
{
	const cg_timeline *tl = a->tl;
	cg_doc_heading(d, 2, "Key figures");
	cg_doc_table(d, 7, "lrrrrrr");
	ROW(d, "device", "peak", "first reached at", "live at the end", "never freed", "before the trace",
	    "capacity, headroom");
	for (uint32_t dv = 0; dv < tl->ndevices; dv++) {
		const cg_device *dev = &tl->devices[dv];
		const cg_peak_device *p = &a->peak->devices[dv];
		char peak[64], exact[32], at[32], end[32], never[64], n[32], before[64], cap[96], b1[32], b2[32];
		snprintf(peak, sizeof peak, "%s (%s B)", cg_fmt_bytes(b1, sizeof b1, p->peak_bytes),
			 cg_fmt_count(exact, sizeof exact, p->peak_bytes));
		cg_fmt_time(at, sizeof at, p->peak_t_ns);
		cg_fmt_bytes(end, sizeof end, p->live_at_end);
		snprintf(never, sizeof never, "%s allocations", cg_fmt_count(n, sizeof n, p->live_count_at_end));
		if (dev->baseline_bytes)
			snprintf(before, sizeof before, "%s before profiling", cg_fmt_bytes(b1, sizeof b1, dev->baseline_bytes));
		else
			snprintf(before, sizeof before, "%s in %" PRIu32 " frees", cg_fmt_bytes(b1, sizeof b1, dev->preexisting_bytes),
				 dev->preexisting_count);
		/* the last checkpoint with used and free says what the device holds */
		const cg_devmem *last = NULL;
		for (size_t i = 0; i < tl->ndevmem; i++)
			if (tl->devmem[i].device == dv && tl->devmem[i].has_used)
				last = &tl->devmem[i];
		if (last)
			snprintf(cap, sizeof cap, "%s, %s free", cg_fmt_bytes(b1, sizeof b1, last->used_bytes + last->free_bytes),
				 cg_fmt_bytes(b2, sizeof b2, last->free_bytes));
		else
			snprintf(cap, sizeof cap, "not recorded");
		ROW(d, cg_timeline_str(tl, dev->name), peak, at, end, never, before, cap);
	}
	cg_doc_note(d, "Peak: the largest live bytes after any memory record, in time order. Never freed: allocations "
		       "still live when the trace ends. Before the trace: frees of tensors the trace never saw allocated, "
		       "counted live from the start.%s",
		    tl->source.truncated ? " The trace was cut off: \"at the end\" means where it stops." : "");
}

static void charts_section(cg_doc *d, const cg_chart_list *charts)
{
	if (!charts || !charts->n)
		return;
	cg_doc_heading(d, 2, "Charts");
	for (size_t i = 0; i < charts->n; i++) {
		const cg_chart_file *f = &charts->items[i];
		if (f->skipped)
			cg_doc_note(d, "%s: not drawn (%s).", f->title, f->skipped);
		else
			cg_doc_figure(d, f->name, f->title);
	}
}

static void anomalies_section(cg_doc *d, const cg_timeline *tl)
{
	bool any = false;
	for (int k = 0; k < CG_ANOM_COUNT; k++)
		if (tl->anomalies[k].count)
			any = true;
	cg_doc_heading(d, 2, "Anomalies");
	if (!any) {
		cg_doc_paragraph(d, "None: every free matched a live allocation and every span was well formed.");
		return;
	}
	cg_doc_table(d, 3, "lrl");
	ROW(d, "what", "count", "first examples");
	for (int k = 0; k < CG_ANOM_COUNT; k++) {
		const cg_anomaly_stats *s = &tl->anomalies[k];
		if (!s->count)
			continue;
		char count[32], examples[1600] = "";
		size_t n = 0;
		for (uint32_t e = 0; e < s->nexamples && e < 3 && n < sizeof examples; e++)
			n += (size_t)snprintf(examples + n, sizeof examples - n, "%s%s", e ? "; " : "", s->examples[e]);
		ROW(d, cg_anomaly_description((cg_anomaly)k), cg_fmt_count(count, sizeof count, s->count), examples);
	}
}

static void diagnostics_section(cg_doc *d, const cg_timeline *tl)
{
	const cg_source *s = &tl->source;
	if (!s->bad_lines && !s->warnings && !s->unknown_kinds && !s->unknown_categories)
		return;
	cg_doc_heading(d, 2, "Reading the trace");
	char bad[32], warn[32];
	cg_doc_paragraph(d, "%s bad records were skipped; %s warnings. %" PRIu64 " records of unknown kinds and %" PRIu64
			    " unknown categories were counted.",
			 cg_fmt_count(bad, sizeof bad, s->bad_lines), cg_fmt_count(warn, sizeof warn, s->warnings),
			 s->unknown_kinds, s->unknown_categories);
	cg_doc_table(d, 2, "rl");
	ROW(d, cg_timeline_position_word(tl), "message");
	for (size_t i = 0; i < s->ndiags && i < 20; i++) {
		char line[32];
		snprintf(line, sizeof line, "%" PRIu64, s->diags[i].line);
		ROW(d, s->diags[i].line ? line : "", s->diags[i].msg);
	}
	if (s->bad_lines + s->warnings > 20)
		cg_doc_note(d, "The first 20 are shown; summary.json lists the first %d.", CG_MAX_DIAGS);
}

cg_doc *cg_report_build(const cg_analysis *a, const cg_chart_list *charts)
{
	const cg_timeline *tl = a->tl;
	char run[256], title[320];
	cg_chart_run_name(tl, run, sizeof run);
	snprintf(title, sizeof title, "Memory report \xe2\x80\x94 %s", run);
	cg_doc *d = cg_doc_new(title);
	if (tl->source.truncated)
		cg_doc_callout(d, "The trace was cut off: %s. Everything below is as of the last complete record.",
			       tl->source.truncation_note);
	for (size_t i = 0; i < tl->nooms; i++) {
		char t[32], b[32];
		cg_doc_callout(d, "Out of memory on %s at %s: an allocation of %s failed.",
			       cg_timeline_str(tl, tl->devices[tl->ooms[i].device].name),
			       cg_fmt_time(t, sizeof t, tl->ooms[i].t_ns), cg_fmt_bytes(b, sizeof b, tl->ooms[i].bytes));
		if (i == 2 && tl->nooms > 3) {
			cg_doc_note(d, "... and %zu more out-of-memory events.", tl->nooms - 3);
			break;
		}
	}
	char sub[1024];
	cg_chart_run_subtitle(tl, sub, sizeof sub);
	if (*sub)
		cg_doc_note(d, "%s", sub);
	key_figures(d, a);
	charts_section(d, charts);
	anomalies_section(d, tl);
	diagnostics_section(d, tl);
	run_section(d, tl);
	cg_doc_note(d, "Written by cgmem %s. summary.json holds every figure as data; trace.json.gz opens in "
		       "Perfetto or chrome://tracing.", CGMEM_VERSION);
	return d;
}

int cg_report_write(cg_outdir *od, const cg_analysis *a, const cg_chart_list *charts, bool html, cg_error *err)
{
	cg_doc *d = cg_report_build(a, charts);
	char *path = cg_outdir_path(od, "report.md");
	cg_sink *s;
	int rc = cg_sink_open(&s, path, 0, err);
	cg_free(path);
	if (rc == 0) {
		cg_doc_write_markdown(d, s);
		rc = cg_sink_close(s, err);
	}
	if (rc == 0 && html) {
		path = cg_outdir_path(od, "report.html");
		rc = cg_sink_open(&s, path, 0, err);
		cg_free(path);
		if (rc == 0) {
			rc = cg_doc_write_html(d, s, cg_outdir_dir(od), err);
			int rc2 = cg_sink_close(s, err);
			if (rc == 0)
				rc = rc2;
		}
	}
	cg_doc_free(d);
	return rc;
}
