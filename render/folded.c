#include "folded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "escape.h"
#include "xalloc.h"

/* The span chain is cut as cg_timeline_span_path cuts it: the innermost
 * MAX_DEPTH spans, after a "…" frame. */
#define MAX_DEPTH 256

/* What a line's first frames are. */
enum { STACK_SPANS, STACK_BEFORE_TRACE, STACK_BASELINE, STACK_UNLISTED };

/* One allocation (or a sum) on its way into a line: what its stack is
 * made of, before the text is written. */
typedef struct item {
	uint32_t span;
	cg_str op;
	uint8_t category;
	uint8_t kind;
	uint64_t bytes;
} item;

/* A distinct stack: its text in the stacks' sink, and its bytes. */
typedef struct line {
	size_t off, len;
	const char *text; /* set once every text is written (the sink moves as it grows) */
	uint64_t bytes;
} line;

typedef struct folder {
	const cg_timeline *tl;
	const cg_steps_result *steps; /* step spans as the label (leaks); NULL: by name */
	item *items;
	size_t n, cap;
} folder;

static void add(folder *f, item it)
{
	if (!it.bytes)
		return; /* a zero-byte line draws nothing */
	CG_GROW(f->items, f->cap, f->n + 1);
	f->items[f->n++] = it;
}

static int cmp_item(const void *a, const void *b)
{
	const item *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->span != y->span)
		return x->span < y->span ? -1 : 1;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return (x->category > y->category) - (x->category < y->category);
}

static void frame(cg_sink *s, bool *first, const char *name)
{
	if (!*first)
		cg_sink_putc(s, ';');
	*first = false;
	/* An empty name would give an empty frame ("a;;b"). */
	if (!*name)
		name = "(unnamed)";
	cg_escape_folded_frame(s, name, strlen(name));
}

static bool is_step_span(const folder *f, uint32_t s)
{
	const cg_steps_result *st = f->steps;
	if (!st || !st->label || s >= st->nspans)
		return false;
	uint32_t k = st->step_of_span[s];
	return k != CG_NONE && k < st->nsteps && st->steps[k].span == s;
}

static void span_frames(cg_sink *s, bool *first, const folder *f, uint32_t span)
{
	const cg_timeline *tl = f->tl;
	if (span == CG_NONE || span >= tl->nspans) {
		frame(s, first, "(no span)");
		return;
	}
	uint32_t chain[MAX_DEPTH];
	size_t n = 0;
	for (uint32_t x = span; x != CG_NONE && n < MAX_DEPTH; x = tl->spans[x].parent)
		chain[n++] = x;
	if (n == MAX_DEPTH && tl->spans[chain[n - 1]].parent != CG_NONE)
		frame(s, first, "\xe2\x80\xa6");
	while (n > 0) {
		uint32_t x = chain[--n];
		frame(s, first, is_step_span(f, x) ? f->steps->label : cg_timeline_str(tl, tl->spans[x].name));
	}
}

/* The text of an item's stack, into s. */
static void stack_text(cg_sink *s, const folder *f, const item *it)
{
	const cg_timeline *tl = f->tl;
	bool first = true;
	switch (it->kind) {
	case STACK_BASELINE:
		frame(s, &first, "(before profiling)");
		return;
	case STACK_BEFORE_TRACE:
		frame(s, &first, "(allocated before the trace)");
		break;
	case STACK_UNLISTED:
		frame(s, &first, "(frees not paired)");
		break;
	default:
		span_frames(s, &first, f, it->span);
		if (it->op != CG_STR_EMPTY) {
			const char *op = cg_timeline_str(tl, it->op);
			/* A trace that records each op as a span too names it twice. */
			bool same = it->span != CG_NONE && it->span < tl->nspans &&
				    tl->spans[it->span].name == it->op;
			if (!same)
				frame(s, &first, op);
		}
		break;
	}
	if (tl->source.categories_known) {
		char cat[64];
		snprintf(cat, sizeof cat, "[%s]", cg_category_name((cg_category)it->category));
		frame(s, &first, cat);
	}
}

static int cmp_line(const void *a, const void *b)
{
	const line *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->text, y->text, n);
	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

/* Groups the items by stack, writes each distinct stack's text once, sorts
 * the lines by it, merges equal texts (two spans of one name under one
 * parent) and writes them. */
static void write_lines(cg_sink *out, folder *f)
{
	if (f->n > 1)
		qsort(f->items, f->n, sizeof *f->items, cmp_item);
	cg_sink *text = cg_sink_memory();
	line *lines = cg_malloc((f->n ? f->n : 1) * sizeof *lines);
	size_t nl = 0;
	for (size_t i = 0; i < f->n; i++) {
		const item *it = &f->items[i];
		if (i == 0 || cmp_item(it, &f->items[i - 1]) != 0) {
			size_t off = cg_sink_written(text);
			stack_text(text, f, it);
			lines[nl++] = (line){off, cg_sink_written(text) - off, NULL, 0};
		}
		/* Live bytes fit in 64 bits (finalize checks their sums). */
		(void)cg_add_u64(lines[nl - 1].bytes, it->bytes, &lines[nl - 1].bytes);
	}
	const char *all = cg_sink_data(text, NULL);
	for (size_t i = 0; i < nl; i++)
		lines[i].text = all + lines[i].off;
	if (nl > 1)
		qsort(lines, nl, sizeof *lines, cmp_line);
	for (size_t i = 0; i < nl;) {
		uint64_t bytes = lines[i].bytes;
		size_t j = i + 1;
		for (; j < nl && cmp_line(&lines[i], &lines[j]) == 0; j++)
			(void)cg_add_u64(bytes, lines[j].bytes, &bytes);
		cg_sink_write(out, lines[i].text, lines[i].len);
		cg_sink_printf(out, " %llu\n", (unsigned long long)bytes);
		i = j;
	}
	cg_free(lines);
	(void)cg_sink_close(text, NULL);
	cg_free(f->items);
}

/* An allocation from a live set as an item. */
static item live_item(const cg_timeline *tl, const cg_live_alloc *la)
{
	cg_category c = cg_live_alloc_category(tl, la);
	if (la->alloc == CG_NONE)
		return (item){CG_NONE, CG_STR_EMPTY, (uint8_t)c, STACK_BEFORE_TRACE, la->bytes};
	const cg_mem *m = &tl->mem[la->alloc];
	return (item){m->span, cg_timeline_mem_op(tl, m), (uint8_t)c, STACK_SPANS, la->bytes};
}

void cg_folded_peak_write(cg_sink *out, const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	const cg_liveset_device *ls = &a->at_peak->devices[d];
	folder f = {tl, NULL, NULL, 0, 0};
	if (ls->listed) {
		for (size_t i = 0; i < ls->nallocs; i++)
			add(&f, live_item(tl, &ls->allocs[i]));
		add(&f, (item){CG_NONE, CG_STR_EMPTY, CG_CAT_BASELINE, STACK_BASELINE,
			       cg_liveset_unlisted_baseline(tl, ls)});
	} else {
		/* Without pairing only the sums by category are known. */
		for (int c = 0; c < CG_CAT_COUNT; c++)
			add(&f, (item){CG_NONE, CG_STR_EMPTY, (uint8_t)c,
				       c == CG_CAT_BASELINE ? STACK_BASELINE : STACK_UNLISTED, ls->by_category[c]});
	}
	write_lines(out, &f);
}

bool cg_folded_leaks_available(const cg_analysis *a, uint32_t d)
{
	return a->leaks && d < a->leaks->ndevices && a->leaks->devices[d].available && a->leaks->devices[d].count > 0;
}

void cg_folded_leaks_write(cg_sink *out, const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	const cg_liveset_device *ls = &a->at_end->devices[d];
	folder f = {tl, a->steps, NULL, 0, 0};
	/* The candidates exactly as the leaks pass counts them (leaks.c). */
	for (size_t i = 0; i < ls->nallocs; i++) {
		const cg_live_alloc *la = &ls->allocs[i];
		if (la->alloc == CG_NONE || !cg_leaks_category_counts((cg_category)tl->mem[la->alloc].category))
			continue;
		add(&f, live_item(tl, la));
	}
	write_lines(out, &f);
}
