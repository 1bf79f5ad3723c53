/* report.html: the document as one self-contained page. */
#include "doc_html.h"
#include "doc_script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "xalloc.h"

/* Screen first; below 600 px the padding shrinks and every table scrolls
 * in its wrapper (.tw) instead of pushing the page wider. In print: no
 * page colour, figures, rows and call-outs kept whole, header rows repeated
 * on each page (real <thead>), tables at 8pt that fit the page: cells may
 * wrap (keys between names, at their <wbr>), span paths keep 28ch, and the
 * links to chart files and the contents, useless on paper, are left out.
 * To fit a big report in a few pages (issue 15), each section's charts
 * stand two abreast at its end, and a table cut for paper (print_rows)
 * prints its first rows and a note (.pn) that says so. */
static const char style[] =
	"*{box-sizing:border-box}"
	"body{margin:0;background:#f4f4f2;color:#1a1a1a;"
	"font:15px/1.5 system-ui,-apple-system,\"Segoe UI\",\"DejaVu Sans\",sans-serif}"
	"main{max-width:1360px;margin:0 auto;padding:32px 40px 64px;background:#fff;min-height:100vh;"
	"overflow-wrap:break-word}"
	"h1{font-size:28px;margin:0 0 8px}"
	"h2{font-size:20px;margin:40px 0 12px;padding-bottom:6px;border-bottom:1px solid #e2e2e2}"
	"h3{font-size:16px;margin:24px 0 8px}"
	"p{margin:0 0 12px;max-width:80ch}"
	"a{color:#0b5cad}"
	".note{color:#666;font-size:13px}"
	".callout{border-left:4px solid #d55e00;background:#fff4ec;padding:12px 16px;margin:16px 0;"
	"font-weight:600}"
	"nav{margin:16px 0 8px;font-size:14px;max-width:100ch}"
	"nav>p{font-weight:600;margin:0 0 4px}"
	"nav ol{margin:0;padding-left:22px}"
	"nav ol ol{padding-left:18px;font-size:13px}"
	".tw{overflow-x:auto;max-width:100%;margin:8px 0 20px}"
	"table{border-collapse:collapse;font-size:14px;font-variant-numeric:tabular-nums}"
	"th{text-align:left;color:#555;font-weight:600;border-bottom:2px solid #ddd;padding:6px 12px;"
	"vertical-align:bottom}"
	"td{padding:5px 12px;border-bottom:1px solid #eee;vertical-align:top}"
	"tbody tr:nth-child(even) td{background:#fafafa}"
	".k{white-space:nowrap}"
	".p{font-size:13px;color:#333;overflow-wrap:break-word;min-width:24ch}"
	".r{text-align:right;white-space:nowrap}"
	"figure{margin:20px 0 28px}"
	"figure svg,figure img{width:100%;height:auto;display:block;border:1px solid #eee}"
	"figcaption{color:#666;font-size:13px;margin-top:6px}"
	".files{font-size:13px;color:#666;margin-top:2px}"
	"details>summary{cursor:pointer}"
	".st{margin:4px 0 0;padding-left:20px;font-size:12px}"
	".pn{display:none}"
	"pre{background:#f6f6f6;padding:12px;overflow:auto;font-size:13px;white-space:pre-wrap}"
	"@media (max-width:600px){"
	"main{padding:16px 12px 40px}"
	"h1{font-size:22px}"
	"h2{font-size:18px;margin-top:28px}"
	"th,td{padding:4px 8px}"
	".s{white-space:normal}"
	".p{min-width:26ch}}"
	"@media (min-width:1000px){nav>ol{columns:2;column-gap:48px}nav>ol>li{break-inside:avoid}.p{min-width:32ch}}"
	"@page{margin:14mm 12mm}"
	"@media print{"
	"body{background:none;font-size:9.5pt;line-height:1.4}"
	"h1{font-size:18pt}h2{font-size:14pt;margin:18px 0 6px}h3{font-size:11pt;margin:12px 0 4px}"
	"p{margin:0 0 6px}.tw{margin:4px 0 8px}nav{margin:6px 0}"
	"main{max-width:none;margin:0;padding:0;min-height:0}"
	"a{color:inherit;text-decoration:none}"
	"h2,h3{break-after:avoid;page-break-after:avoid}"
	"figure,tr,.callout,pre{break-inside:avoid;page-break-inside:avoid}"
	"thead{display:table-header-group}"
	".tw{overflow:visible}"
	"table{font-size:8pt}"
	"th,td{padding:3px 5px}"
	"td{overflow-wrap:anywhere}"
	"th.r,td.s{white-space:normal}"
	".k{white-space:normal;overflow-wrap:break-word}"
	".p{font-size:inherit;min-width:28ch}"
	".files{display:none}"
	/* links without page numbers: no use on paper */
	"nav#contents{display:none}"
	/* a closed stack prints as its one summary line */
	".sk summary{list-style:none;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;max-width:36ch}"
	"tr.pm{display:none}"
	".pn{display:block}"
	/* each section's charts two abreast at its end, after its text */
	"section{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:flex-start}"
	"section>*{flex:0 0 100%;max-width:100%}"
	"section>figure{order:1;flex:0 0 49%;margin:6px 0 10px}"
	"figure svg,figure img{max-height:60mm;width:auto;max-width:100%;margin:0 auto}}";

static void put_text(cg_sink *out, const char *s)
{
	cg_escape_html(out, s, strlen(s));
}

/* Text that may break after each of the bytes in `after` (<wbr>) that does
 * not start a run of it: span paths after '/', op names after "::" and '_'
 * ("aten::<wbr>max_<wbr>pool2d"), so a narrow column wraps them between
 * names rather than inside one. */
static void put_breakable(cg_sink *out, const char *s, const char *after)
{
	const char *run = s;
	for (const char *q = s; *q; q++) {
		if (!strchr(after, *q) || q[1] == *q || !q[1])
			continue;
		cg_escape_html(out, run, (size_t)(q + 1 - run));
		cg_sink_puts(out, "<wbr>");
		run = q + 1;
	}
	put_text(out, run);
}

/* Lines of text, '\n'-separated, as the items of a list: a stack's
 * frames behind a <details>, closed, so a printed page shows the summary. */
static void put_lines(cg_sink *out, const char *s)
{
	cg_sink_puts(out, "<ol class=\"st\">");
	while (*s) {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		cg_sink_puts(out, "<li>");
		cg_escape_html(out, s, n);
		cg_sink_puts(out, "</li>");
		s += n + (e != NULL);
	}
	cg_sink_puts(out, "</ol>");
}

static void put_details(cg_sink *out, const char *summary, size_t n, const char *body)
{
	cg_sink_puts(out, "<details><summary>");
	cg_escape_html(out, summary, n);
	cg_sink_puts(out, "</summary>");
	put_lines(out, body);
	cg_sink_puts(out, "</details>");
}

/* A cell of kind 's': its first line, the rest behind it. */
static void put_stack(cg_sink *out, const char *text)
{
	const char *e = strchr(text, '\n');
	if (!e)
		put_text(out, text);
	else
		put_details(out, text, (size_t)(e - text), e + 1);
}

/* Right-aligned cells longer than this are sentences, not numbers. */
#define RIGHT_WRAP 14

/* A table in its scroll wrapper, the first row as <thead>. */
static void put_table(cg_sink *out, const cg_doc_block *b)
{
	cg_sink_puts(out, "<div class=\"tw\"><table>\n");
	for (size_t r = 0; r < b->nrows; r++) {
		if (r <= 1)
			cg_sink_puts(out, r == 0 ? "<thead>\n" : "<tbody>\n");
		/* past the rows printed: on screen only (class pm) */
		cg_sink_puts(out, b->print_rows && r > b->print_rows ? "<tr class=\"pm\">" : "<tr>");
		for (size_t c = 0; c < b->ncols; c++) {
			const char *tag = r == 0 ? "th" : "td";
			char a = b->align[c];
			const char *text = b->cells[r * b->ncols + c];
			/* a right-aligned sentence ("9.14 MiB in 32 allocations")
			 * may wrap on a small screen, a number never */
			bool sentence = a == 'r' && strlen(text) > RIGHT_WRAP;
			cg_sink_printf(out, "<%s%s>", tag,
				       sentence ? " class=\"r s\"" : a == 'r' ? " class=\"r\"" : a == 's' ? " class=\"p sk\"" : a == 'p' ? " class=\"p\"" : a == 'k' ? " class=\"k\"" : "");
			if (r > 0 && a == 's')
				put_stack(out, text);
			else if (r > 0 && (a == 'p' || a == 'k'))
				put_breakable(out, text, a == 'p' ? "/" : "/:_");
			else
				put_text(out, text);
			cg_sink_printf(out, "</%s>", tag);
		}
		cg_sink_puts(out, "</tr>\n");
		if (r == 0)
			cg_sink_puts(out, "</thead>\n");
	}
	if (b->nrows > 1)
		cg_sink_puts(out, "</tbody>\n");
	cg_sink_puts(out, "</table></div>\n");
	if (b->print_rows && b->nrows - 1 > b->print_rows) {
		/* on paper, never a silent cut */
		size_t all = b->nrows - 1;
		cg_sink_printf(out, "<p class=\"note pn\">Printed: the first %zu of these %zu rows; the other %zu are in report.html on screen", b->print_rows, all, all - b->print_rows);
		if (b->print_where) {
			cg_sink_puts(out, " and in ");
			put_text(out, b->print_where);
		}
		cg_sink_puts(out, ".</p>\n");
	}
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0, k;
	char *buf = cg_malloc(cap);
	while ((k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += k;
		if (cap - n - 1 == 0)
			buf = cg_realloc(buf, cap *= 2);
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Cairo names glyphs and clips "glyph0-1", "clip1": with several charts in
 * one page those ids would collide, so each figure's get a prefix, "f1_",
 * with an underscore that no heading's id holds (cg_doc_heading_ids). */
static void inline_svg(cg_sink *out, const char *svg, size_t len, unsigned figure)
{
	const char *p = strstr(svg, "<svg");
	if (!p)
		return;
	const char *end = svg + len, *run = p;
	char prefix[16];
	snprintf(prefix, sizeof prefix, "f%u_", figure);
	static const char *const refs[] = {"id=\"", "href=\"#", "url(#"};
	/* One pass: at each i, h or u, see whether an id or a reference starts. */
	for (const char *q = p; q < end; q++) {
		if (*q != 'i' && *q != 'h' && *q != 'u')
			continue;
		for (size_t r = 0; r < 3; r++) {
			size_t rl = strlen(refs[r]);
			if ((size_t)(end - q) >= rl && memcmp(q, refs[r], rl) == 0) {
				cg_sink_write(out, run, (size_t)(q - run) + rl);
				cg_sink_puts(out, prefix);
				run = q + rl;
				q = run - 1;
				break;
			}
		}
	}
	cg_sink_write(out, run, (size_t)(end - run));
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void base64(cg_sink *out, const unsigned char *d, size_t n)
{
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)d[i] << 16 | (i + 1 < n ? (unsigned)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
		char q[4] = {b64[v >> 18 & 63], b64[v >> 12 & 63], i + 1 < n ? b64[v >> 6 & 63] : '=',
			     i + 2 < n ? b64[v & 63] : '='};
		cg_sink_write(out, q, 4);
	}
}

/* "PNG · SVG · PDF": relative links to the chart's files in the folder,
 * those that were written. */
static void file_links(cg_sink *out, const cg_doc *d, const char *name, unsigned files)
{
	if (!files)
		return;
	cg_sink_puts(out, "<div class=\"files\">");
	const char *sep = "";
	for (unsigned f = CG_DOC_FILE_PNG; f <= CG_DOC_FILE_PDF; f <<= 1) {
		if (!(files & f))
			continue;
		char *file = cg_doc_figure_file(d, name, f);
		cg_sink_printf(out, "%s<a href=\"", sep);
		put_text(out, file);
		cg_sink_printf(out, "\">%s</a>", f == CG_DOC_FILE_PNG ? "PNG" : f == CG_DOC_FILE_SVG ? "SVG" : "PDF");
		cg_free(file);
		sep = " \xc2\xb7 ";
	}
	cg_sink_puts(out, "</div>\n");
}

static void figure(cg_sink *out, const cg_doc *d, const cg_doc_block *b, const char *dir, unsigned index)
{
	cg_sink_puts(out, "<figure>\n");
	char *path = cg_asprintf("%s/%s.svg", dir, b->name);
	size_t len;
	char *data = read_file(path, &len);
	cg_free(path);
	if (data) {
		inline_svg(out, data, len, index);
	} else {
		char *png = cg_doc_figure_file(d, b->name, CG_DOC_FILE_PNG);
		path = cg_asprintf("%s/%s", dir, png);
		cg_free(png);
		data = read_file(path, &len);
		cg_free(path);
		if (data) {
			cg_sink_puts(out, "<img alt=\"");
			put_text(out, b->text);
			cg_sink_puts(out, "\" src=\"data:image/png;base64,");
			base64(out, (const unsigned char *)data, len);
			cg_sink_puts(out, "\">");
		} else if (cg_doc_figure_files(d, dir, b->name) & CG_DOC_FILE_PDF) {
			/* only a PDF was written (--formats pdf): a page cannot
			 * show it, but it can link it */
			cg_sink_printf(out, "<a href=\"%s.pdf\">", b->name); /* file-name safe by construction */
			put_text(out, b->text);
			cg_sink_puts(out, " (PDF)</a>");
		}
	}
	cg_free(data);
	cg_sink_puts(out, "\n<figcaption>");
	put_text(out, b->text);
	cg_sink_puts(out, "</figcaption>\n");
	file_links(out, d, b->name, cg_doc_figure_files(d, dir, b->name));
	cg_sink_puts(out, "</figure>\n");
}

/* The table of contents: the h2s, each with its h3s, linked to their ids.
 * It stands before the first heading, after the call-outs a reader must see
 * first. Nothing when the document has no heading. */
static void toc(cg_sink *out, const cg_doc *d, char *const *ids)
{
	bool open2 = false, open3 = false, any = false;
	for (size_t i = 0; i < d->n; i++) {
		const cg_doc_block *b = &d->blocks[i];
		if (b->kind != CG_DOC_HEADING)
			continue;
		if (!any)
			cg_sink_puts(out, "<nav id=\"contents\" aria-label=\"Contents\">\n<p>Contents</p>\n<ol>\n");
		any = true;
		bool sub = b->level >= 3;
		if (sub && !open2) /* an h3 before any h2: an entry of its own */
			sub = false;
		if (!sub) {
			if (open3)
				cg_sink_puts(out, "</ol>\n");
			if (open2)
				cg_sink_puts(out, "</li>\n");
			open2 = b->level <= 2;
			open3 = false;
		} else if (!open3) {
			cg_sink_puts(out, "\n<ol>\n");
			open3 = true;
		}
		cg_sink_printf(out, "<li><a href=\"#%s\">", ids[i]);
		put_text(out, b->text);
		cg_sink_puts(out, "</a>");
		if (sub || !open2)
			cg_sink_puts(out, "</li>\n");
	}
	if (!any)
		return;
	if (open3)
		cg_sink_puts(out, "</ol>\n");
	if (open2)
		cg_sink_puts(out, "</li>\n");
	cg_sink_puts(out, "</ol>\n</nav>\n");
}

int cg_doc_write_html(const cg_doc *d, cg_sink *out, const char *dir, cg_error *err)
{
	(void)err;
	cg_sink_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
			  /* Nothing may run or load: a hostile string that got past the
			   * escaping still could not do anything. */
			  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
			  "style-src 'unsafe-inline'; img-src data:");
	cg_doc_html_csp_script(out, d);
	cg_sink_puts(out, "\">\n<title>");
	put_text(out, d->title);
	cg_sink_printf(out, "</title>\n<style>%s</style>\n", style);
	cg_doc_html_script(out, d);
	cg_sink_puts(out, "</head>\n<body>\n<main>\n<h1>");
	put_text(out, d->title);
	cg_sink_puts(out, "</h1>\n");
	unsigned figures = 0;
	char **ids = cg_doc_heading_ids(d);
	bool listed = false, section = false;
	for (size_t i = 0; i < d->n; i++) {
		const cg_doc_block *b = &d->blocks[i];
		if (b->kind == CG_DOC_HEADING && !listed) {
			toc(out, d, ids);
			listed = true;
		}
		switch (b->kind) {
		case CG_DOC_HEADING:
			/* an h2 and what follows it up to the next: a section */
			if (b->level <= 2) {
				cg_sink_puts(out, section ? "</section>\n<section>\n" : "<section>\n");
				section = true;
			}
			cg_sink_printf(out, "<h%d id=\"%s\">", b->level <= 2 ? 2 : 3, ids[i]);
			put_text(out, b->text);
			cg_sink_printf(out, "</h%d>\n", b->level <= 2 ? 2 : 3);
			break;
		case CG_DOC_PARAGRAPH:
			cg_sink_puts(out, "<p>");
			put_text(out, b->text);
			cg_sink_puts(out, "</p>\n");
			break;
		case CG_DOC_NOTE:
			cg_sink_puts(out, "<p class=\"note\">");
			put_text(out, b->text);
			cg_sink_puts(out, "</p>\n");
			break;
		case CG_DOC_CALLOUT:
			cg_sink_puts(out, "<div class=\"callout\">");
			put_text(out, b->text);
			cg_sink_puts(out, "</div>\n");
			break;
		case CG_DOC_TABLE:
			put_table(out, b);
			break;
		case CG_DOC_FIGURE:
			figure(out, d, b, dir, ++figures);
			break;
		case CG_DOC_DETAILS:
			put_details(out, b->text, strlen(b->text), b->body);
			cg_sink_putc(out, '\n');
			break;
		case CG_DOC_DATA:
			cg_doc_html_data(out, b);
			break;
		case CG_DOC_CODE:
			cg_sink_puts(out, "<pre>");
			put_text(out, b->text);
			cg_sink_puts(out, "</pre>\n");
			break;
		case CG_DOC_LINKS:
			cg_sink_puts(out, "<p>");
			put_text(out, b->text);
			for (size_t k = 0; k < b->nrows; k++) {
				/* hrefs are [A-Za-z0-9._/-] (doc.h) */
				cg_sink_printf(out, "%s<a href=\"%s\">", k ? " · " : ": ", b->cells[2 * k + 1]);
				put_text(out, b->cells[2 * k]);
				cg_sink_puts(out, "</a>");
			}
			cg_sink_puts(out, "</p>\n");
			break;
		}
	}
	cg_doc_ids_free(ids, d->n);
	if (section)
		cg_sink_puts(out, "</section>\n");
	cg_sink_puts(out, "</main>\n</body>\n</html>\n");
	return 0;
}
