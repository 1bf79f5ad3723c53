/* What the chart modules share, below the two entry points (charts.h for
 * the report, chart_diff.h for diff): drawing one chart into its files,
 * each chart's draw and skip functions, and the titles and names they
 * have in common. Internal to render/chart and its tests: it is the one
 * chart header that includes cairo (through chart.h). */
#ifndef CG_CHART_DRAW_H
#define CG_CHART_DRAW_H

#include <stddef.h>

#include "chart.h"
#include "chart_diff.h"
#include "charts.h"

/* Draws one chart into NAME.png and NAME.svg in od (the formats o asks
 * for), calling draw(c, ctx) for each. PNGs are handed to q when it is not
 * NULL, else written at once. Returns 0, or CG_EIO naming the file. */
typedef void (*cg_chart_draw_fn)(cg_chart *c, const void *ctx);
int cg_charts_render(cg_outdir *od, const cg_charts_options *o, struct cg_png_queue *q, const char *name,
		     cg_chart_draw_fn draw, const void *ctx, cg_error *err);

/* The charts of one device, each drawing into an open chart. Each has a
 * rule saying whether it applies: NULL when it does, else the reason it is
 * not drawn, in plain words ("nothing was freed on this device"). */
void cg_chart_timeline(cg_chart *c, const cg_analysis *a, uint32_t device, const char *run_name);
const char *cg_chart_timeline_skip(const cg_analysis *a, uint32_t device);
void cg_chart_breakdown(cg_chart *c, const cg_analysis *a, uint32_t device, const char *run_name);
const char *cg_chart_breakdown_skip(const cg_analysis *a, uint32_t device);
void cg_chart_icicle(cg_chart *c, const cg_analysis *a, uint32_t device, const char *run_name);
const char *cg_chart_icicle_skip(const cg_analysis *a, uint32_t device);
void cg_chart_top_allocations(cg_chart *c, const cg_analysis *a, uint32_t device, const char *run_name);
const char *cg_chart_top_allocations_skip(const cg_analysis *a, uint32_t device);
/* The x axis of a chart over the trace's time, and its title into title:
 * seconds since the start, or entry numbers for a snapshot without
 * time_us (source.time_is_index). */
void cg_chart_time_axis(cg_ticks *x, const cg_timeline *tl, double t_end, int max_intervals, char *title,
			size_t size);

void cg_chart_fragmentation(cg_chart *c, const cg_analysis *a, uint32_t device, const char *run_name);
const char *cg_chart_fragmentation_skip(const cg_analysis *a, uint32_t device);
void cg_chart_segments(cg_chart *c, const cg_analysis *a, uint32_t device, const char *run_name);
const char *cg_chart_segments_skip(const cg_analysis *a, uint32_t device);
void cg_chart_lifetimes(cg_chart *c, const cg_analysis *a, uint32_t device, const char *run_name);
const char *cg_chart_lifetimes_skip(const cg_analysis *a, uint32_t device);

/* --- shared by the charts --- */

/* "<what> — <run> (<device>)": the title of a device's chart, with the
 * run's name cut in the middle when the title would not fit the chart's
 * width, so the device stays. */
void cg_chart_title(cg_chart *c, char *buf, size_t size, const char *what, const char *run_name,
		    const cg_timeline *tl, uint32_t device);
/* The name a category goes by in charts: "before profiling" for the baseline. */
const char *cg_chart_category_label(cg_category c);
/* The span an allocation is shown under: the nearest span, itself or an
 * ancestor, that is a function or module rather than an op ("AddmmBackward0"
 * for aten::mm); for a PyTorch stack its nearest nn.Module, else its nearest
 * frame that is neither an op nor plumbing (frames.h); the span itself when
 * there is none; CG_NONE for none. */
uint32_t cg_chart_named_span(const cg_timeline *tl, uint32_t span);

/* Each diff chart for device i of v->diff, drawn into an open chart. They
 * set c->plot: the timeline's data area (x_max 1: the whole of each run;
 * y_max in bytes), and the change chart's bars (x from -x_max to +x_max
 * bytes, zero in the middle). */
void cg_chart_diff_timeline(cg_chart *c, const cg_diff_view *v, size_t device);
void cg_chart_diff_change(cg_chart *c, const cg_diff_view *v, size_t device);

#endif
