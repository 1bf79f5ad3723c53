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
} cg_charts_options;

#define CG_CHARTS_OPTIONS_INIT {true, true, CG_CHART_SIZE_INIT}

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

int cg_charts_write(cg_outdir *od, const cg_analysis *a, const cg_charts_options *o, cg_chart_list *out,
		    cg_error *err);
void cg_chart_list_free(cg_chart_list *l);

/* Releases the font caches cairo and fontconfig keep for the life of the
 * process, so that leak checkers see only real leaks. Call once at exit. */
void cg_charts_shutdown(void);

/* The charts, each drawing into an open chart. */
void cg_chart_timeline(cg_chart *c, const cg_analysis *a, uint32_t device, const char *run_name);

/* --- shared by the charts --- */

/* A device name as part of a file name: "cuda:0" -> "cuda-0". Charts of a
 * device are named "<kind>.<slug>" ("timeline.cuda-0"). */
void cg_chart_device_slug(const char *device, char *buf, size_t size);

/* "run <run_id> · <framework> · <model>" from the trace's metadata. */
void cg_chart_run_subtitle(const cg_timeline *tl, char *buf, size_t size);
/* The trace's file name without its folders ("<stdin>" for standard input). */
const char *cg_chart_source_name(const cg_timeline *tl);
/* A short name for the run: the file name without .jsonl/.json/.gz. */
void cg_chart_run_name(const cg_timeline *tl, char *buf, size_t size);

/* Training steps: start times of the repeating step spans. */
typedef struct cg_steps {
	uint64_t *start_ns;
	size_t n;
} cg_steps;
void cg_chart_find_steps(const cg_timeline *tl, cg_steps *out);
void cg_chart_steps_free(cg_steps *s);

#endif
