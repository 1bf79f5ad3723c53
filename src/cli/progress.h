/* The progress line on a terminal while a large file is read: ingest's
 * progress callback (cg_progress_fn, cgmem.h), drawn on stderr; then the
 * stages after reading (analysing, charts, trace, report), so that a long
 * run never leaves the terminal silent.
 *
 *     cg_progress_line p;
 *     cg_progress_line_init(&p, isatty(2) ? stderr : NULL, "run.jsonl");
 *     o.progress = cg_progress_line_draw;
 *     o.progress_ctx = &p;
 *     ...cg_ingest...
 *     cg_progress_line_stage(&p, "analysing run.jsonl");
 *     ...
 *     cg_progress_line_end(&p);
 */
#ifndef CG_PROGRESS_H
#define CG_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct cg_progress_line {
	FILE *out; /* NULL: silent */
	char name[256]; /* escaped for the terminal (termtext.h), cut if long */
	double start, last;
	bool shown;
} cg_progress_line;

/* Starts a display on out, or a silent one when out is NULL. */
void cg_progress_line_init(cg_progress_line *p, FILE *out, const char *name);
/* A cg_progress_fn whose ctx is the cg_progress_line: redraws at most a
 * few times a second, and erases the line when done. */
void cg_progress_line_draw(void *ctx, uint64_t bytes_read, uint64_t file_bytes, bool done);

/* Says what comes after reading ("analysing run.jsonl", "drawing the
 * charts"): what, cgmem's own text (names in it escaped by the caller),
 * then "...", drawn at once in place of the line before, on a silent
 * display nothing. Stages are few, so they are not rate-limited. */
void cg_progress_line_stage(cg_progress_line *p, const char *what);
/* Erases the line, if one is shown, before other output reaches the
 * terminal. */
void cg_progress_line_end(cg_progress_line *p);

/* Seconds on a monotonic clock. */
double cg_now(void);

#endif
