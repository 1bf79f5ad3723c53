/* The allocation lists of the terminal summary (summary_allocs.h). */
#include "summary_allocs.h"

#include <stdio.h>
#include <string.h>

#include "stackview.h"
#include "termtext.h"
#include "units.h"
#include "xalloc.h"

enum { CAT, PHASE, OP, SHAPE, DTYPE, WHEN, NCOLS };

/* Widest a column is drawn (op and shape shrink first on a narrow
 * terminal, down to their minimum), in columns. */
static const size_t cap[NCOLS] = {15, 9, 40, 16, 8, 40};
static const size_t least[NCOLS] = {15, 9, 8, 8, 8, 0};

typedef struct cells {
	char text[NCOLS][192]; /* escaped for the terminal */
	bool holds[NCOLS];     /* the trace recorded something for it */
} cells;

static void put_text(cells *c, int col, const char *s, bool holds)
{
	cg_termtext_escape(c->text[col], sizeof c->text[col], s, strlen(s));
	c->holds[col] = holds;
}

static void fill(cells *c, const cg_timeline *tl, const cg_alloc_row *r)
{
	const cg_mem *m = &tl->mem[r->alloc != CG_NONE ? r->alloc : r->end];
	char shape[128], when[96], t1[32], t2[32];
	put_text(c, CAT, cg_category_name((cg_category)m->category), m->category != CG_CAT_UNKNOWN);
	if (r->alloc == CG_NONE) {
		/* allocated before the trace: its tensor's name, no shape or dtype */
		put_text(c, PHASE, cg_phase_name(CG_PHASE_NONE), false);
		char id[CG_TENSOR_ID_BUF];
		size_t id_len;
		bool named = !cg_tensor_id_empty(m->tensor);
		put_text(c, OP, named ? cg_timeline_tensor_text(tl, m->tensor, id, &id_len) : "?", named);
		put_text(c, SHAPE, "", false);
		put_text(c, DTYPE, "", false);
		snprintf(when, sizeof when, "before the trace \xe2\x86\x92 %s", cg_timeline_fmt_time(tl, t2, 32, m->t_ns));
		put_text(c, WHEN, when, true);
		return;
	}
	cg_phase phase = cg_timeline_mem_phase(tl, m);
	put_text(c, PHASE, cg_phase_name(phase), phase != CG_PHASE_NONE);
	put_text(c, OP, cg_timeline_mem_op(tl, m) != CG_STR_EMPTY ? cg_timeline_str(tl, cg_timeline_mem_op(tl, m)) : "?", cg_timeline_mem_op(tl, m) != CG_STR_EMPTY);
	cg_timeline_shape_format(tl, cg_timeline_mem_shape(tl, m), shape, sizeof shape);
	put_text(c, SHAPE, shape, strcmp(shape, "[]") != 0 && shape[0]);
	put_text(c, DTYPE, cg_timeline_str(tl, tl->dtypes[cg_timeline_mem_dtype(tl, m)].name), cg_timeline_mem_dtype(tl, m) != 0);
	cg_timeline_fmt_time(tl, t1, sizeof t1, m->t_ns);
	if (!tl->source.pairing_known)
		snprintf(when, sizeof when, "%s", t1);
	else if (r->end == CG_NONE)
		snprintf(when, sizeof when, "%s \xe2\x86\x92 never", t1);
	else
		snprintf(when, sizeof when, "%s \xe2\x86\x92 %s", t1, cg_timeline_fmt_time(tl, t2, sizeof t2, tl->mem[r->end].t_ns));
	put_text(c, WHEN, when, true);
}

static cells *fill_all(const cg_timeline *tl, const cg_alloc_row *rows, size_t n, bool shown[NCOLS], size_t width[NCOLS])
{
	cells *c = cg_calloc(n ? n : 1, sizeof *c);
	for (int k = 0; k < NCOLS; k++)
		shown[k] = k == WHEN, width[k] = 0;
	for (size_t i = 0; i < n; i++) {
		fill(&c[i], tl, &rows[i]);
		for (int k = 0; k < NCOLS; k++) {
			shown[k] |= c[i].holds[k];
			size_t w = cg_text_width(c[i].text[k]);
			if (w > width[k])
				width[k] = w;
		}
	}
	for (int k = 0; k < NCOLS; k++)
		if (width[k] > cap[k])
			width[k] = cap[k];
	return c;
}

/* The row's width: "    " + size + "  " + the columns shown, one space
 * apart (the times only when inline). */
static size_t row_width(const bool shown[NCOLS], const size_t width[NCOLS], bool when_inline)
{
	size_t total = 4 + 10 + 1;
	for (int k = 0; k < NCOLS; k++)
		if (shown[k] && (k != WHEN || when_inline))
			total += 1 + width[k];
	return total;
}

static void shrink(size_t *col, size_t least_w, size_t *total, size_t limit)
{
	if (*total <= limit || *col <= least_w)
		return;
	size_t by = *total - limit < *col - least_w ? *total - limit : *col - least_w;
	*col -= by;
	*total -= by;
}

static void strip_trailing(char *row)
{
	size_t n = strlen(row);
	while (n > 0 && row[n - 1] == ' ')
		row[--n] = '\0';
}

void cg_summary_allocs_write(cg_lines *w, const cg_timeline *tl, const cg_alloc_row *rows, size_t n)
{
	bool shown[NCOLS];
	size_t width[NCOLS];
	cells *c = fill_all(tl, rows, n, shown, width);
	bool when_inline = row_width(shown, width, true) <= w->width;
	size_t total = row_width(shown, width, when_inline);
	shrink(&width[OP], least[OP], &total, w->width);
	shrink(&width[SHAPE], least[SHAPE], &total, w->width);
	/* a row's cells take at most sum(cap) columns of 6 bytes: 1024 more bytes */
	size_t size = CG_LINES_BYTES(w->width) + 1024;
	char *row = cg_malloc(size), *line = cg_malloc(size), *fitted = cg_malloc(size);
	char path[CG_SPAN_PATH_MAX], b[32];
	for (size_t i = 0; i < n; i++) {
		snprintf(row, size, "    ");
		cg_lines_cell(row, size, cg_fmt_bytes(b, sizeof b, rows[i].bytes), 10, true);
		strcat(row, " ");
		for (int k = 0; k < NCOLS; k++) {
			if (!shown[k] || (k == WHEN && !when_inline))
				continue;
			strcat(row, " ");
			cg_lines_cell(row, size, c[i].text[k], k == WHEN ? cg_text_width(c[i].text[k]) : width[k], false);
		}
		strip_trailing(row);
		cg_lines_put(w, row);
		const cg_mem *m = &tl->mem[rows[i].alloc != CG_NONE ? rows[i].alloc : rows[i].end];
		path[0] = '\0';
		if (rows[i].alloc != CG_NONE)
			cg_stack_span_where(tl, m->span, path, sizeof path);
		char lead[256];
		snprintf(lead, sizeof lead, "%16s%s%s", "", when_inline ? "" : c[i].text[WHEN], when_inline ? "" : "  ");
		size_t used = cg_text_width(lead), room = w->width > used ? w->width - used : 1;
		snprintf(line, size, "%s%s", lead, cg_lines_fit(fitted, size, path[0] ? path : "(no span)", room));
		cg_lines_put(w, line);
	}
	cg_free(fitted);
	cg_free(line);
	cg_free(row);
	cg_free(c);
}

void cg_summary_allocs_write_brief(cg_lines *w, const cg_timeline *tl, const cg_alloc_row *rows, size_t n)
{
	bool shown[NCOLS];
	size_t width[NCOLS];
	cells *c = fill_all(tl, rows, n, shown, width);
	size_t size = CG_LINES_BYTES(w->width) + 1024;
	char *row = cg_malloc(size), *fitted = cg_malloc(size);
	char path[CG_SPAN_PATH_MAX], b[32];
	for (size_t i = 0; i < n; i++) {
		snprintf(row, size, "    ");
		cg_lines_cell(row, size, cg_fmt_bytes(b, sizeof b, rows[i].bytes), 10, true);
		/* two spaces after the size and before the path, one between */
		static const int brief_cols[] = {CAT, OP};
		const char *sep = "  ";
		for (size_t j = 0; j < sizeof brief_cols / sizeof brief_cols[0]; j++)
			if (shown[brief_cols[j]]) {
				strcat(row, sep);
				cg_lines_cell(row, size, c[i].text[brief_cols[j]], width[brief_cols[j]], false);
				sep = " ";
			}
		strcat(row, "  ");
		const cg_mem *m = &tl->mem[rows[i].alloc != CG_NONE ? rows[i].alloc : rows[i].end];
		path[0] = '\0';
		if (rows[i].alloc != CG_NONE)
			cg_stack_span_where(tl, m->span, path, sizeof path);
		size_t used = cg_text_width(row), room = w->width > used + 8 ? w->width - used : 8;
		size_t len = strlen(row);
		snprintf(row + len, size - len, "%s",
			 cg_lines_fit(fitted, size, path[0] ? path : rows[i].alloc == CG_NONE ? "(before the trace)" : "(no span)", room));
		strip_trailing(row);
		cg_lines_put(w, row);
	}
	cg_free(fitted);
	cg_free(row);
	cg_free(c);
}
