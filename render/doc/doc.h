/* A small document model shared by report.md and report.html: headings,
 * paragraphs, key-value lists, tables, figures and call-outs. The report
 * is built once as a cg_doc and written by each backend (doc_markdown.h,
 * doc_html.h; doc_save.h writes both into an output folder), so the two
 * files always say the same thing. All text is plain: backends escape it.
 *
 *     cg_doc *d = cg_doc_new("Memory report — mlp_adam");
 *     cg_doc_heading(d, 2, "Key figures");
 *     cg_doc_table(d, 3, "lrr");                 // columns and alignment
 *     cg_doc_row(d, (const char *[]){"cpu", "15.44 MiB", "0.123 s"});
 *     cg_doc_save(d, od, "report", true, &err);   // report.md, report.html
 *     cg_doc_free(d);
 */
#ifndef CG_DOC_H
#define CG_DOC_H

#include <stdbool.h>
#include <stddef.h>

typedef enum cg_doc_kind {
	CG_DOC_HEADING,
	CG_DOC_PARAGRAPH,
	CG_DOC_NOTE,	/* secondary text */
	CG_DOC_CALLOUT, /* a warning to read first: the trace was cut, the run ran out of memory */
	CG_DOC_TABLE,
	CG_DOC_FIGURE,
	CG_DOC_CODE,
	CG_DOC_LINKS, /* a line of links to files beside the document */
	CG_DOC_DETAILS, /* a one-line summary that opens to its body's lines (a long stack) */
	CG_DOC_DATA,	/* JSON for the page's script (HTML only): name is its element's class */
} cg_doc_kind;

typedef struct cg_doc_block {
	cg_doc_kind kind;
	int level;	 /* heading level, 1-3 */
	char *text;	 /* heading, paragraph, caption, or figure title */
	char *name;	 /* figure: file name without extension; heading: what its id is
			  * made from when not its text (cg_doc_heading_key) */
	char *body;	 /* details: its lines, '\n'-separated */
	size_t ncols;	 /* table */
	char *align;	 /* table: 'l', 'r', 'k' or 'p' per column */
	char **cells;	 /* table: header row then rows, ncols each */
	size_t nrows;	 /* table rows including the header */
	size_t cells_cap;
	size_t print_rows; /* table: rows printed, the header not counted; 0: all */
	char *print_where; /* table: where the rows not printed are, besides the screen */
} cg_doc_block;

typedef struct cg_doc {
	char *title;
	cg_doc_block *blocks;
	size_t n, cap;
	char png_suffix[16]; /* figures' PNGs are NAME<suffix>.png: "" or "@2x" */
	const char *script;	 /* borrowed: JavaScript of the HTML page, or NULL (no script) */
	const char *script_hash; /* its SHA-256 in base64, for the page's Content-Security-Policy */
} cg_doc;

cg_doc *cg_doc_new(const char *title);
void cg_doc_free(cg_doc *d);

void cg_doc_heading(cg_doc *d, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void cg_doc_paragraph(cg_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cg_doc_note(cg_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cg_doc_callout(cg_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cg_doc_code(cg_doc *d, const char *text);
/* A collapsible block: summary shown, body's '\n'-separated lines behind it
 * (<details> in HTML, closed, so print shows the summary). */
void cg_doc_details(cg_doc *d, const char *summary, const char *body);
/* Starts a table; align has one letter per column: 'l' left, 'r' right
 * (numbers), 'k' left and never wrapped (keys), 'p' left, small and wrapped
 * anywhere (span paths), 's' a stack: the cell's first line, and when it
 * has more lines, those behind it as a collapsible list (cg_stack_cell).
 * The next call to cg_doc_row gives the header. */
void cg_doc_table(cg_doc *d, size_t ncols, const char *align);
void cg_doc_row(cg_doc *d, const char *const *cells);
/* On paper, the table just started prints its first n rows (the header not
 * counted) and, when it has more, a note that says how many more and where
 * they are: on screen and in `where` ("summary.json", copied; NULL: the
 * screen only). The screen and Markdown show every row. */
void cg_doc_table_print_rows(cg_doc *d, size_t n, const char *where);
/* "label: text1 · text2 · ...", each text a link to its href, a path
 * relative to the document made of [A-Za-z0-9._/-] only (links to files
 * the same folder holds, such as a rank's report). */
void cg_doc_links(cg_doc *d, const char *label, size_t n, const char *const *texts, const char *const *hrefs);
/* A chart: name.png in Markdown, name.svg inlined in HTML. */
void cg_doc_figure(cg_doc *d, const char *name, const char *title);

/* Data for the page's script: JSON text (copied), written into report.html
 * as <script type="application/json" class="NAME">, every '<' as \u003c so
 * that no string in it can end the element; left out of Markdown. */
void cg_doc_data(cg_doc *d, const char *name, const char *json);
/* cg_doc_data taking json (from cg_malloc) instead of copying it. */
void cg_doc_data_take(cg_doc *d, const char *name, char *json);
/* The page's one script (borrowed, static), with its SHA-256 in base64:
 * the page's Content-Security-Policy lets that script alone run. */
void cg_doc_set_script(cg_doc *d, const char *js, const char *sha256_base64);

/* The files of a figure that dir holds, as a set of these bits. Charts are
 * written before the report (--formats may leave any format out), so the
 * folder itself says what a document can show and link. */
enum { CG_DOC_FILE_PNG = 1, CG_DOC_FILE_SVG = 2, CG_DOC_FILE_PDF = 4 };
unsigned cg_doc_figure_files(const cg_doc *d, const char *dir, const char *name);
/* The extension of one bit of that set: "png", "svg" or "pdf". */
const char *cg_doc_file_ext(unsigned file);
/* The name of one of a figure's files: "timeline.cuda-0.svg", the PNG with
 * the document's png_suffix ("timeline.cuda-0@2x.png"). Caller frees. */
char *cg_doc_figure_file(const cg_doc *d, const char *name, unsigned file);
/* Figures' PNGs are named NAME<suffix>.png (HiDPI names: "@2x"). */
void cg_doc_set_png_suffix(cg_doc *d, const char *suffix);

/* An anchor for each heading of d, for links and a table of contents:
 * ids[i] for block i, NULL for blocks that are not headings. An id is the
 * heading's text lowercased, ASCII letters and digits kept, every other run
 * of bytes one '-' ("Memory on cuda:0" -> "memory-on-cuda-0", at most 64
 * bytes, "section" when nothing is left); a repeat gets "-2", "-3", ...,
 * the smallest not yet taken, in document order. Ids never hold '_' (the
 * inlined SVGs' ids do) and never are "contents" (the table of contents').
 * The caller frees the array with cg_doc_ids_free(ids, d->n). */
char **cg_doc_heading_ids(const cg_doc *d);
/* Makes the id of heading block i from key instead of its text: a
 * device's sections get ids of their own ("cuda-0-steps", not "steps-2"). */
void cg_doc_heading_key(cg_doc *d, size_t i, const char *key);
void cg_doc_ids_free(char **ids, size_t n);

#endif
