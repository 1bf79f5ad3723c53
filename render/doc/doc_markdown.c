/* report.md: the document as GitHub-flavoured Markdown. */
#include "doc_markdown.h"

#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "xalloc.h"

static void put_text(cg_sink *out, const char *s)
{
	cg_escape_markdown(out, s, strlen(s));
}

/* A stack cell's lines (cg_stack_cell) joined by <br>: a table row is
 * one line of Markdown. */
static void put_cell(cg_sink *out, const char *s)
{
	for (const char *e; (e = strchr(s, '\n')) != NULL; s = e + 1) {
		cg_escape_markdown(out, s, (size_t)(e - s));
		cg_sink_puts(out, "<br>");
	}
	put_text(out, s);
}

static void put_table(cg_sink *out, const cg_doc_block *b)
{
	for (size_t r = 0; r < b->nrows; r++) {
		cg_sink_puts(out, "|");
		for (size_t c = 0; c < b->ncols; c++) {
			cg_sink_putc(out, ' ');
			if (r > 0 && b->align[c] == 's')
				put_cell(out, b->cells[r * b->ncols + c]);
			else
				put_text(out, b->cells[r * b->ncols + c]);
			cg_sink_puts(out, " |");
		}
		cg_sink_putc(out, '\n');
		if (r == 0) {
			cg_sink_puts(out, "|");
			for (size_t c = 0; c < b->ncols; c++)
				cg_sink_puts(out, b->align[c] == 'r' ? "---:|" : "---|");
			cg_sink_putc(out, '\n');
		}
	}
	cg_sink_putc(out, '\n');
}

/* Indented code: nothing in the text can close it. */
static void code(cg_sink *out, const char *s)
{
	cg_sink_puts(out, "    ");
	for (; *s; s++) {
		cg_sink_putc(out, *s);
		if (*s == '\n' && s[1])
			cg_sink_puts(out, "    ");
	}
	cg_sink_puts(out, "\n\n");
}

/* The file a figure shows: its PNG, else its SVG, else its PDF, whichever
 * was written into dir (--formats may leave any of them out); the PNG when
 * dir is NULL or holds none of them. */
static unsigned figure_file(const cg_doc *d, const char *dir, const char *name)
{
	unsigned files = cg_doc_figure_files(d, dir, name);
	for (unsigned f = CG_DOC_FILE_PNG; f <= CG_DOC_FILE_PDF; f <<= 1)
		if (files & f)
			return f;
	return CG_DOC_FILE_PNG;
}

/* One line linking the h2s, before the first heading as in report.html.
 * The links point at anchors of our own (cg_doc_heading_ids, written into
 * each h2): a viewer's own heading ids differ from one to the next. */
static void contents(cg_sink *out, const cg_doc *d, char *const *ids)
{
	const char *sep = "Contents: ";
	for (size_t i = 0; i < d->n; i++) {
		const cg_doc_block *b = &d->blocks[i];
		if (b->kind != CG_DOC_HEADING || b->level > 2)
			continue;
		cg_sink_printf(out, "%s[", sep);
		put_text(out, b->text);
		cg_sink_printf(out, "](#%s)", ids[i]);
		sep = " \xc2\xb7 ";
	}
	if (*sep != 'C')
		cg_sink_puts(out, "\n\n");
}

void cg_doc_write_markdown(const cg_doc *d, cg_sink *out)
{
	cg_doc_write_markdown_in(d, out, NULL);
}

void cg_doc_write_markdown_in(const cg_doc *d, cg_sink *out, const char *dir)
{
	cg_sink_puts(out, "# ");
	put_text(out, d->title);
	cg_sink_puts(out, "\n\n");
	char **ids = cg_doc_heading_ids(d);
	bool listed = false;
	for (size_t i = 0; i < d->n; i++) {
		const cg_doc_block *b = &d->blocks[i];
		if (b->kind == CG_DOC_HEADING && !listed) {
			contents(out, d, ids);
			listed = true;
		}
		switch (b->kind) {
		case CG_DOC_HEADING:
			cg_sink_puts(out, b->level <= 2 ? "## " : "### ");
			put_text(out, b->text);
			/* ids are [a-z0-9-] only: nothing to escape */
			if (b->level <= 2)
				cg_sink_printf(out, " <a id=\"%s\"></a>", ids[i]);
			cg_sink_puts(out, "\n\n");
			break;
		case CG_DOC_PARAGRAPH:
			put_text(out, b->text);
			cg_sink_puts(out, "\n\n");
			break;
		case CG_DOC_NOTE:
			cg_sink_puts(out, "*");
			put_text(out, b->text);
			cg_sink_puts(out, "*\n\n");
			break;
		case CG_DOC_CALLOUT:
			cg_sink_puts(out, "> **");
			put_text(out, b->text);
			cg_sink_puts(out, "**\n\n");
			break;
		case CG_DOC_TABLE:
			put_table(out, b);
			break;
		case CG_DOC_FIGURE: {
			unsigned f = figure_file(d, dir, b->name);
			/* an image, or for a PDF (which Markdown viewers do not
			 * show inline) a link */
			cg_sink_puts(out, f == CG_DOC_FILE_PDF ? "[" : "![");
			put_text(out, b->text);
			char *file = cg_doc_figure_file(d, b->name, f);
			cg_sink_printf(out, "](%s)\n\n", file); /* file-name safe by construction */
			cg_free(file);
			break;
		}
		case CG_DOC_DETAILS:
			put_text(out, b->text);
			cg_sink_puts(out, "\n\n");
			code(out, b->body);
			break;
		case CG_DOC_DATA: /* for the HTML page's script */
			break;
		case CG_DOC_CODE:
			code(out, b->text);
			break;
		case CG_DOC_LINKS:
			put_text(out, b->text);
			for (size_t k = 0; k < b->nrows; k++) {
				cg_sink_puts(out, k ? " · [" : ": [");
				put_text(out, b->cells[2 * k]);
				cg_sink_printf(out, "](%s)", b->cells[2 * k + 1]); /* [A-Za-z0-9._/-] (doc.h) */
			}
			cg_sink_puts(out, "\n\n");
			break;
		}
	}
	cg_doc_ids_free(ids, d->n);
}
