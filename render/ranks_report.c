#include "ranks_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "chart_ranks.h"
#include "doc.h"
#include "doc_save.h"
#include "units.h"
#include "xalloc.h"

static const char *bytes(char *buf, size_t n, int64_t v)
{
	return v < 0 ? cg_fmt_bytes_signed(buf, n, v) : cg_fmt_bytes(buf, n, (uint64_t)v);
}

/* "2026-11-30 10:00:01.100 UTC" */
static const char *wall(char *buf, size_t n, int64_t unix_ns)
{
	time_t secs = (time_t)(unix_ns / 1000000000);
	int64_t ms = unix_ns % 1000000000 / 1000000;
	if (unix_ns < 0) {
		snprintf(buf, n, "%" PRId64 " ns", unix_ns);
		return buf;
	}
	struct tm tm;
	gmtime_r(&secs, &tm);
	snprintf(buf, n, "%04d-%02d-%02d %02d:%02d:%02d.%03d UTC", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec, (int)ms);
	return buf;
}

/* "ends at 2.800 s", "out of memory at 2.390 s", "cut off at 1.100 s" */
static const char *ending(char *buf, size_t n, const cg_rank *r)
{
	char t[32];
	cg_fmt_time(t, sizeof t, (uint64_t)(r->stop_ns > 0 ? r->stop_ns : 0));
	static const char *const what[CG_RANK_STOP_COUNT] = {"ends", "out of memory", "cut off"};
	snprintf(buf, n, "%s at %s", what[r->stop], t);
	return buf;
}

static void list_i64(char *buf, size_t n, const int64_t *v, size_t k)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < k && used < n; i++)
		used += (size_t)snprintf(buf + used, n - used, "%s%" PRId64, i ? ", " : "", v[i]);
}

static void findings(cg_doc *d, const cg_rankset *s, const cg_ranks_result *f)
{
	char b1[32], b2[32], b3[32], t[32], w[48], e[64];
	for (size_t i = 0; i < s->n; i++) {
		const cg_rank *r = &s->ranks[i];
		if (r->stop != CG_RANK_STOP_END)
			cg_doc_callout(d, "Rank %" PRId64 " (%s): %s%s%s.", r->rank, r->file, ending(e, sizeof e, r),
				       r->has_wall ? ", " : "", r->has_wall ? wall(w, sizeof w, r->stop_unix_ns) : "");
	}
	if (f->nmissing) {
		char list[512];
		list_i64(list, sizeof list, f->missing, f->nmissing);
		cg_doc_callout(d, "Missing: %zu of %" PRId64 " ranks have no file: %s.", f->nmissing, f->world_size, list);
	}
	if (f->nbeyond) {
		char list[512];
		list_i64(list, sizeof list, f->beyond, f->nbeyond);
		cg_doc_callout(d, "Ranks at or past world_size %" PRId64 ": %s.", f->world_size, list);
	}
	if (f->world_disagrees)
		cg_doc_callout(d, "The ranks' traces disagree on world_size (the largest, %" PRId64 ", is used).",
			       f->world_size);
	if (f->peak.count) {
		const cg_rank *r = &s->ranks[f->peak.max_at.rank];
		const cg_rank_device *dv = &r->devices[f->peak.max_at.device];
		cg_doc_paragraph(d, "Highest peak: rank %" PRId64 " on %s, %s at %s%s%s%s%s.", r->rank, dv->name,
				 bytes(b1, sizeof b1, dv->peak_bytes),
				 dv->has_peak_time ? cg_fmt_time(t, sizeof t, (uint64_t)dv->peak_time_ns) : "an unknown time",
				 dv->step ? " in " : "", dv->step ? dv->step : "", dv->phase ? ", " : "",
				 dv->phase ? dv->phase : "");
		if (f->peak.median_bytes > 0)
			cg_doc_paragraph(d, "Imbalance of the peaks over %zu rank and device rows: max / median %.2f "
					 "(%s / %s), max − min %s.", f->peak.count, f->peak.max_over_median,
					 bytes(b1, sizeof b1, f->peak.max_bytes), bytes(b2, sizeof b2, f->peak.median_bytes),
					 bytes(b3, sizeof b3, f->peak.max_bytes - f->peak.min_bytes));
	}
	if (f->has_first_stop) {
		const cg_rank *r = &s->ranks[f->first_stop];
		cg_doc_paragraph(d, "First to stop by the wall clock: rank %" PRId64 ", %s (%s; %zu of %zu ranks give "
				 "the wall clock).", r->rank, wall(w, sizeof w, r->stop_unix_ns), ending(e, sizeof e, r),
				 f->nwall, s->n);
	} else {
		cg_doc_paragraph(d, "First to stop: unknown, no rank's trace gives the wall clock.");
	}
	if (f->noutliers) {
		char list[1024];
		size_t used = 0;
		list[0] = '\0';
		for (size_t i = 0; i < f->noutliers && used < sizeof list; i++) {
			const cg_rank *r = &s->ranks[f->outliers[i].rank];
			const cg_rank_device *dv = &r->devices[f->outliers[i].device];
			used += (size_t)snprintf(list + used, sizeof list - used, "%srank %" PRId64 " %s (%s)",
						 i ? ", " : "", r->rank, dv->name, bytes(b1, sizeof b1, dv->peak_bytes));
		}
		cg_doc_paragraph(d, "Outliers (peak more than %d median absolute deviations, %s, from the median): %s.",
				 CG_RANKS_OUTLIER_MADS, bytes(b2, sizeof b2, f->mad_bytes), list);
	} else {
		cg_doc_paragraph(d, "Outliers: none (no peak is more than %d median absolute deviations from the "
				 "median).", CG_RANKS_OUTLIER_MADS);
	}
}

static void rows_table(cg_doc *d, const cg_rankset *s)
{
	cg_doc_heading(d, 2, "Ranks");
	cg_doc_table(d, 10, "rklrllrlll");
	cg_doc_row(d, (const char *[]){"rank", "device", "peak", "when", "step", "phase", "headroom", "end",
				       "stopped (wall clock)", "report"});
	for (size_t i = 0; i < s->n; i++) {
		const cg_rank *r = &s->ranks[i];
		for (size_t k = 0; k < r->ndevices; k++) {
			const cg_rank_device *dv = &r->devices[k];
			char rank[24], peak[32], when[32], head[32], end[64], w[48], link[48];
			snprintf(rank, sizeof rank, "%" PRId64, r->rank);
			snprintf(link, sizeof link, "ranks/%" PRId64 "/", r->rank);
			bytes(peak, sizeof peak, dv->peak_bytes);
			if (dv->has_peak_time)
				cg_fmt_time(when, sizeof when, (uint64_t)dv->peak_time_ns);
			else
				snprintf(when, sizeof when, "—");
			if (dv->has_capacity)
				bytes(head, sizeof head, dv->capacity_bytes - dv->peak_bytes);
			else
				snprintf(head, sizeof head, "—");
			ending(end, sizeof end, r);
			if (dv->oom && r->stop == CG_RANK_STOP_OOM)
				; /* the device that ran out says so */
			else if (r->stop == CG_RANK_STOP_OOM)
				snprintf(end, sizeof end, "another device ran out");
			cg_doc_row(d, (const char *[]){rank, dv->name, peak, when, dv->step ? dv->step : "—",
						       dv->phase ? dv->phase : "—", head, end,
						       r->has_wall ? wall(w, sizeof w, r->stop_unix_ns) : "—", link});
		}
	}
}

static void phase_table(cg_doc *d, const cg_rankset *s, const cg_ranks_result *f)
{
	bool any = false;
	for (int p = 0; p < CG_PHASE_COUNT; p++)
		any |= f->phase[p].count > 0;
	cg_doc_heading(d, 2, "Imbalance by phase");
	if (!any) {
		cg_doc_note(d, "No rank's trace gives phases (forward, backward, optimizer).");
		return;
	}
	cg_doc_table(d, 7, "lrrrrrr");
	cg_doc_row(d, (const char *[]){"phase", "rows", "max", "rank", "median", "max / median", "max − min"});
	for (int p = 0; p < CG_PHASE_COUNT; p++) {
		const cg_ranks_spread *sp = &f->phase[p];
		if (!sp->count)
			continue;
		char rows[24], mx[32], rk[24], med[32], ratio[24], diff[32];
		snprintf(rows, sizeof rows, "%zu", sp->count);
		snprintf(rk, sizeof rk, "%" PRId64, s->ranks[sp->max_at.rank].rank);
		if (sp->median_bytes > 0)
			snprintf(ratio, sizeof ratio, "%.2f", sp->max_over_median);
		else
			snprintf(ratio, sizeof ratio, "—");
		cg_doc_row(d, (const char *[]){cg_phase_name((cg_phase)p), rows, bytes(mx, sizeof mx, sp->max_bytes), rk,
					       bytes(med, sizeof med, sp->median_bytes), ratio,
					       bytes(diff, sizeof diff, sp->max_bytes - sp->min_bytes)});
	}
}

/* Links to each rank's own report in ranks/N/ (cgmem report writes them;
 * cgmem merge, which has no timelines, writes the same top report). */
static void rank_links(cg_doc *d, const cg_rankset *s)
{
	char **texts = cg_malloc((s->n ? s->n : 1) * sizeof *texts), **hrefs = cg_malloc((s->n ? s->n : 1) * sizeof *hrefs);
	for (size_t i = 0; i < s->n; i++) {
		texts[i] = cg_asprintf("rank %" PRId64, s->ranks[i].rank);
		hrefs[i] = cg_asprintf("ranks/%" PRId64 "/report.html", s->ranks[i].rank);
	}
	cg_doc_links(d, "Each rank's own report", s->n, (const char *const *)texts, (const char *const *)hrefs);
	for (size_t i = 0; i < s->n; i++) {
		cg_free(texts[i]);
		cg_free(hrefs[i]);
	}
	cg_free(texts);
	cg_free(hrefs);
}

static void files_table(cg_doc *d, const cg_rankset *s)
{
	cg_doc_heading(d, 2, "Files");
	rank_links(d, s);
	cg_doc_note(d, "The reports in ranks/N/ are written by cgmem report FILE...; cgmem merge writes this top "
		       "report alone. How a rank's number is found: docs/ranks.md.");
	cg_doc_table(d, 4, "rlll");
	cg_doc_row(d, (const char *[]){"rank", "file", "rank from", "format"});
	for (size_t i = 0; i < s->n; i++) {
		const cg_rank *r = &s->ranks[i];
		char rank[24];
		snprintf(rank, sizeof rank, "%" PRId64, r->rank);
		cg_doc_row(d, (const char *[]){rank, r->file, cg_rank_from_name(r->from), r->format ? r->format : "—"});
	}
}

int cg_ranks_report_write(cg_outdir *od, const cg_rankset *s, const cg_ranks_result *f, bool chart, bool html,
			  cg_error *err)
{
	char title[96];
	snprintf(title, sizeof title, "Memory report — %zu ranks", s->n);
	cg_doc *d = cg_doc_new(title);
	cg_doc_heading(d, 2, "Findings");
	findings(d, s, f);
	if (chart) {
		cg_doc_figure(d, CG_CHART_RANKS_NAME, "Peak per rank, by category at the peak");
		cg_doc_figure(d, CG_CHART_RANKS_HEATMAP_NAME, "Live memory per rank over time (trace time)");
		cg_doc_figure(d, CG_CHART_RANKS_TIMELINES_NAME, "Highest and median rank over time");
	}
	rows_table(d, s);
	phase_table(d, s, f);
	files_table(d, s);
	int rc = cg_doc_save(d, od, "report", html, err);
	cg_doc_free(d);
	return rc;
}
