/* The charts of a report, drawn with cairo into PNG, SVG and PDF files.
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
#include "chart_layout.h"
#include "outdir.h"

typedef struct cg_charts_options {
	bool png, svg, pdf; /* which files to write: NAME.png, NAME.svg, NAME.pdf */
	cg_chart_size size;
	/* Charts are drawn for at most this many devices, those with the
	 * largest peaks: a trace naming thousands of devices must not take
	 * hours and fill the folder with files. */
	uint32_t max_devices;
	/* PNGs named for their scale, as HiDPI pages expect: NAME@2x.png at
	 * scale 2 (no suffix at scale 1). SVG and PDF, vector, keep NAME. */
	bool hidpi_names;
} cg_charts_options;

#define CG_CHARTS_MAX_DEVICES 32
#define CG_CHARTS_OPTIONS_INIT {true, true, false, CG_CHART_SIZE_INIT, CG_CHARTS_MAX_DEVICES, false}

/* One chart of the report: written as name.png / .svg / .pdf, or skipped
 * with the reason in plain words ("no device checkpoints in the trace"). */
typedef struct cg_chart_file {
	char *name;
	char *title;
	char *skipped;
	const char *kind; /* "timeline", ... (static), or NULL */
	uint32_t device;  /* the device's index in the timeline, or CG_NONE */
} cg_chart_file;

typedef struct cg_chart_list {
	cg_chart_file *items;
	size_t n, cap;
	char png_suffix[16]; /* what the PNGs' names hold before ".png": "" or "@2x" */
} cg_chart_list;

/* Writes every chart of every device (o NULL: the defaults) and lists them
 * in out, drawn or skipped, in report order: per device, timeline,
 * breakdown, icicle, top_allocations, fragmentation, segments (allocator
 * snapshots only), lifetimes. A device without memory records, or past
 * max_devices, gets one entry (its timeline's) saying why, and a snapshot
 * device without records its segment map still. Returns 0, or CG_EIO naming the file that could
 * not be written; out is filled either way and belongs to the caller. */
int cg_charts_write(cg_outdir *od, const cg_analysis *a, const cg_charts_options *o, cg_chart_list *out,
		    cg_error *err);
void cg_chart_list_free(cg_chart_list *l);
/* Appends a chart to l: drawn (skipped NULL) or skipped with the reason. */
void cg_chart_list_add(cg_chart_list *l, const char *name, const char *title, const char *skipped);
/* The same for chart `kind` (a static string) of timeline device `device`:
 * the report finds a device's charts by kind and device, never by name. */
void cg_chart_list_add_device(cg_chart_list *l, const char *kind, uint32_t device, const char *name,
			      const char *title, const char *skipped);

/* Names the charts and the documents that show them share. */

/* The suffix o gives PNG names before ".png": "@2x" for hidpi_names at
 * scale 2 ("@1.5x", ...), else "". */
void cg_chart_png_suffix(const cg_charts_options *o, char *buf, size_t size);

/* A device name as part of a file name: "cuda:0" -> "cuda-0". Charts of a
 * device are named "<kind>.<slug>" ("timeline.cuda-0"). Several names may
 * give one slug: name files with cg_chart_device_slugs. */
void cg_chart_device_slug(const char *device, char *buf, size_t size);

/* The longest slug cg_chart_device_slugs makes before a suffix: file names
 * stay far below NAME_MAX. */
#define CG_CHART_SLUG_MAX 127

/* One slug for each of n device names, all distinct, the same for the same
 * names in the same order: the name's slug (at most CG_CHART_SLUG_MAX
 * bytes), or when a device whose slug is its own name or an earlier device
 * already holds it, the slug and "-N" with the smallest N >= 2 still free
 * ("cuda:0", "cuda-0", "cuda/0" -> "cuda-0-2", "cuda-0", "cuda-0-3"). The array and its strings
 * are the caller's: cg_chart_slugs_free. */
char **cg_chart_device_slugs(const char *const *names, size_t n);
void cg_chart_slugs_free(char **slugs, size_t n);

/* "run <run_id> · <framework> · <model>" from the trace's metadata. */
void cg_chart_run_subtitle(const cg_timeline *tl, char *buf, size_t size);
/* The trace's file name without its folders ("<stdin>" for standard input). */
const char *cg_chart_source_name(const cg_timeline *tl);
/* A short name for the run: the file name without .jsonl/.json/.gz. */
void cg_chart_run_name(const cg_timeline *tl, char *buf, size_t size);

/* Releases the font caches cairo and fontconfig keep for the life of the
 * process, so that leak checkers see only real leaks. Call once at exit. */
void cg_charts_shutdown(void);

#endif
