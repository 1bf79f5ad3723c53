/* Span paths shown to a reader. A candle-graph path is a few names joined
 * by '/' ("run/train_step#0/forward") and keeps that look. A PyTorch trace's
 * path is a Python stack of 20-60 frames whose names hold '/' themselves
 * ("transformers/pipelines/base.py(1266): forward"): it is shown as frames,
 * innermost first, joined by " \u2039 " (a name's own U+2039 is shown as '<',
 * so the separator never occurs in a frame), with the frames that say
 * nothing about the model folded away and counted (cg_stack_boring).
 * summary.json keeps every path whole; only what a reader sees changes.
 * docs/pytorch-traces.md ("Stacks in the report") describes the forms. */
#ifndef CG_STACKVIEW_H
#define CG_STACKVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frames.h"
#include "timeline.h"

/* The separator of frames, innermost first: " ‹ ". */
#define CG_STACK_SEP " \xe2\x80\xb9 "
/* How many frames a short form shows before "…". */
#define CG_STACK_SHORT_FRAMES 3

/* A stack of n names, root first. The short form, innermost relevant frame
 * first: the first CG_STACK_SHORT_FRAMES kept frames and, when there are
 * more or some were folded, " ‹ … (N frames, K folded)". Never cut silently:
 * a form longer than size ends in "…" at a character boundary. Returns buf. */
char *cg_stack_short(const char *const *names, size_t n, char *buf, size_t size);

/* A table cell of kind 's' (cg_doc_table): the short form, then, when it
 * does not show every frame, one line per kept frame innermost first and a
 * last line counting the folded ones ("\n"-separated; a name's own line
 * breaks become spaces). Caller frees. */
char *cg_stack_cell(const char *const *names, size_t n);

/* The names of span's path, root first, into a new array (caller frees
 * the array, not the names, which tl owns); *n their count. */
const char **cg_stack_span_names(const cg_timeline *tl, uint32_t span, size_t *n);

/* The path of span as a reader sees it in one line: the '/' path for
 * other formats (ending in "…" when cut by size), else the short form;
 * "" outside any span. Returns buf. */
char *cg_stack_span_text(const cg_timeline *tl, uint32_t span, char *buf, size_t size);

/* As cg_stack_span_text, with the nearest module first for stacks:
 * "nn.Module: Owlv2Attention_1 · aten::bmm ‹ … (42 frames, 13 folded)". */
char *cg_stack_span_where(const cg_timeline *tl, uint32_t span, char *buf, size_t size);

/* The cell of span for a column of kind cg_stack_column(tl). Caller frees. */
char *cg_stack_span_cell(const cg_timeline *tl, uint32_t span);

/* The doc column kind of span paths: 's' for stacks, 'p' for paths. */
char cg_stack_column(const cg_timeline *tl);

#endif
