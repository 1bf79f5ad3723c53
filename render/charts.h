/* The charts of a report, drawn with cairo into PNG and SVG files.
 *
 *     cg_charts_options o = CG_CHARTS_OPTIONS_INIT;
 *     cg_chart_list list = {0};
 *     rc = cg_charts_write(od, a, &o, &list, &err);   // files into the output folder
 *     ...list.items[i].name, .title, .skipped...
 *     cg_chart_list_free(&list);
 */
#ifndef CG_CHARTS_H
#define CG_CHARTS_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis.h"
#include "chart.h"
#include "outdir.h"

typedef struct cg_charts_options {
	bool png, svg;
	cg_chart_size size;
	/* Charts are drawn for at most this many devices, those with the
	 * largest peaks: a trace naming thousands of devices must not take
	 * hours and fill the folder with files. */
	uint32_t max_devices;
} cg_charts_options;

#define CG_CHARTS_MAX_DEVICES 32
#define CG_CHARTS_OPTIONS_INIT {true, true, CG_CHART_SIZE_INIT, CG_CHARTS_MAX_DEVICES}

/* One chart of the report: written as name.png / name.svg, or skipped
 * with the reason in plain words ("no device checkpoints in the trace"). */
typedef struct cg_chart_file {
	char *name;
	char *title;
	char *skipped;
} cg_chart_file;

typedef struct cg_chart_list {
	cg_chart_file *items;
	size_t n, cap;
} cg_chart_list;

/* Writes every chart of every device (o NULL: the defaults) and lists them
 * in out, drawn or skipped, in report order: per device, timeline,
 * breakdown, icicle, top_allocations, fragmentation, lifetimes. A device
 * without memory records, or past max_devices, gets one entry (its
 * timeline's) saying why. Returns 0, or CG_EIO naming the file that could
 * not be written; out is filled either way and belongs to the caller. */
int cg_charts_write(cg_outdir *od, const cg_analysis *a, const cg_charts_options *o, cg_chart_list *out,
		    cg_error *err);
void cg_chart_list_free(cg_chart_list *l);
/* Appends a chart to l: drawn (skipped NULL) or skipped with the reason. */
void cg_chart_list_add(cg_chart_list *l, const char *name, const char *title, const char *skipped);

/* Draws one chart into NAME.png and NAME.svg in od (the formats o asks
 * for), calling draw(c, ctx) for each. PNGs are handed to q when it is not
 * NULL, else written at once. Returns 0, or CG_EIO naming the file. */
typedef void (*cg_chart_draw_fn)(cg_chart *c, const void *ctx);
int cg_charts_render(cg_outdir *od, const cg_charts_options *o, struct cg_png_queue *q, const char *name,
		     cg_chart_draw_fn draw, const void *ctx, cg_error *err);

/* Releases the font caches cairo and fontconfig keep for the life of the
 * process, so that leak checkers see only real leaks. Call once at exit. */
void cg_charts_shutdown(void);

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
void cg_chart_fragmentation(cg_chart *c, const cg_analysis *a, uint32_t device, const char *run_name);
const char *cg_chart_fragmentation_skip(const cg_analysis *a, uint32_t device);
void cg_chart_lifetimes(cg_chart *c, const cg_analysis *a, uint32_t device, const char *run_name);
const char *cg_chart_lifetimes_skip(const cg_analysis *a, uint32_t device);

/* --- shared by the charts --- */

/* A device name as part of a file name: "cuda:0" -> "cuda-0". Charts of a
 * device are named "<kind>.<slug>" ("timeline.cuda-0"). */
void cg_chart_device_slug(const char *device, char *buf, size_t size);

/* "run <run_id> · <framework> · <model>" from the trace's metadata. */
void cg_chart_run_subtitle(const cg_timeline *tl, char *buf, size_t size);
/* "<what> — <run> (<device>)": the title of a device's chart, with the
 * run's name cut in the middle when the title would not fit the chart's
 * width, so the device stays. */
void cg_chart_title(cg_chart *c, char *buf, size_t size, const char *what, const char *run_name,
		    const cg_timeline *tl, uint32_t device);
/* The name a category goes by in charts: "before profiling" for the baseline. */
const char *cg_chart_category_label(cg_category c);
/* The span an allocation is shown under: the nearest span, itself or an
 * ancestor, that is a function or module rather than an op ("AddmmBackward0"
 * for aten::mm); the span itself when there is none; CG_NONE for none. */
uint32_t cg_chart_named_span(const cg_timeline *tl, uint32_t span);
/* The trace's file name without its folders ("<stdin>" for standard input). */
const char *cg_chart_source_name(const cg_timeline *tl);
/* A short name for the run: the file name without .jsonl/.json/.gz. */
void cg_chart_run_name(const cg_timeline *tl, char *buf, size_t size);

#endif
