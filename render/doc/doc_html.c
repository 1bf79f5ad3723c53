/* report.html: the document as one self-contained page. */
#include "doc_html.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "xalloc.h"

static const char style[] =
	"*{box-sizing:border-box}"
	"body{margin:0;background:#f4f4f2;color:#1a1a1a;"
	"font:15px/1.5 system-ui,-apple-system,\"Segoe UI\",\"DejaVu Sans\",sans-serif}"
	"main{max-width:1180px;margin:0 auto;padding:32px 40px 64px;background:#fff;min-height:100vh}"
	"h1{font-size:28px;margin:0 0 8px}"
	"h2{font-size:20px;margin:40px 0 12px;padding-bottom:6px;border-bottom:1px solid #e2e2e2}"
	"h3{font-size:16px;margin:24px 0 8px}"
	"p{margin:0 0 12px;max-width:80ch}"
	".note{color:#666;font-size:13px}"
	".callout{border-left:4px solid #d55e00;background:#fff4ec;padding:12px 16px;margin:16px 0;"
	"font-weight:600}"
	"table{border-collapse:collapse;margin:8px 0 20px;font-size:14px;"
	"font-variant-numeric:tabular-nums}"
	"th{text-align:left;color:#555;font-weight:600;border-bottom:2px solid #ddd;padding:6px 12px}"
	"td{padding:5px 12px;border-bottom:1px solid #eee;vertical-align:top}"
	"tr:nth-child(even) td{background:#fafafa}"
	".k{white-space:nowrap}"
	".p{font-size:13px;color:#333;overflow-wrap:anywhere;min-width:24ch}"
	".r{text-align:right;white-space:nowrap}"
	"figure{margin:20px 0 28px}"
	"figure svg,figure img{width:100%;height:auto;display:block;border:1px solid #eee}"
	"figcaption{color:#666;font-size:13px;margin-top:6px}"
	"pre{background:#f6f6f6;padding:12px;overflow:auto;font-size:13px;white-space:pre-wrap}";

static void put_text(cg_sink *out, const char *s)
{
	cg_escape_html(out, s, strlen(s));
}

static void put_table(cg_sink *out, const cg_doc_block *b)
{
	cg_sink_puts(out, "<table>\n");
	for (size_t r = 0; r < b->nrows; r++) {
		cg_sink_puts(out, "<tr>");
		for (size_t c = 0; c < b->ncols; c++) {
			const char *tag = r == 0 ? "th" : "td";
			char a = b->align[c];
			cg_sink_printf(out, "<%s%s>", tag, a == 'r' ? " class=\"r\"" : a == 'p' ? " class=\"p\"" : a == 'k' ? " class=\"k\"" : "");
			put_text(out, b->cells[r * b->ncols + c]);
			cg_sink_printf(out, "</%s>", tag);
		}
		cg_sink_puts(out, "</tr>\n");
	}
	cg_sink_puts(out, "</table>\n");
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
 * one page those ids would collide, so each figure's get a prefix. */
static void inline_svg(cg_sink *out, const char *svg, size_t len, unsigned figure)
{
	const char *p = strstr(svg, "<svg");
	if (!p)
		return;
	const char *end = svg + len, *run = p;
	char prefix[16];
	snprintf(prefix, sizeof prefix, "f%u-", figure);
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

static bool pdf_written(const char *dir, const char *name)
{
	char *path = cg_asprintf("%s/%s.pdf", dir, name);
	bool found = access(path, F_OK) == 0;
	cg_free(path);
	return found;
}

static void figure(cg_sink *out, const cg_doc_block *b, const char *dir, unsigned index)
{
	cg_sink_puts(out, "<figure>\n");
	char *path = cg_asprintf("%s/%s.svg", dir, b->name);
	size_t len;
	char *data = read_file(path, &len);
	cg_free(path);
	if (data) {
		inline_svg(out, data, len, index);
	} else {
		path = cg_asprintf("%s/%s.png", dir, b->name);
		data = read_file(path, &len);
		cg_free(path);
		if (data) {
			cg_sink_puts(out, "<img alt=\"");
			put_text(out, b->text);
			cg_sink_puts(out, "\" src=\"data:image/png;base64,");
			base64(out, (const unsigned char *)data, len);
			cg_sink_puts(out, "\">");
		} else if (pdf_written(dir, b->name)) {
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
	cg_sink_puts(out, "</figcaption>\n</figure>\n");
}

int cg_doc_write_html(const cg_doc *d, cg_sink *out, const char *dir, cg_error *err)
{
	(void)err;
	cg_sink_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
			  /* Nothing may run or load: a hostile string that got past the
			   * escaping still could not do anything. */
			  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
			  "style-src 'unsafe-inline'; img-src data:\">\n<title>");
	put_text(out, d->title);
	cg_sink_printf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n<h1>", style);
	put_text(out, d->title);
	cg_sink_puts(out, "</h1>\n");
	unsigned figures = 0;
	for (size_t i = 0; i < d->n; i++) {
		const cg_doc_block *b = &d->blocks[i];
		switch (b->kind) {
		case CG_DOC_HEADING:
			cg_sink_printf(out, "<h%d>", b->level <= 2 ? 2 : 3);
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
			figure(out, b, dir, ++figures);
			break;
		case CG_DOC_CODE:
			cg_sink_puts(out, "<pre>");
			put_text(out, b->text);
			cg_sink_puts(out, "</pre>\n");
			break;
		}
	}
	cg_sink_puts(out, "</main>\n</body>\n</html>\n");
	return 0;
}
