#include "doc.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "xalloc.h"

cg_doc *cg_doc_new(const char *title)
{
	cg_doc *d = cg_calloc(1, sizeof *d);
	d->title = cg_strdup(title);
	return d;
}

void cg_doc_free(cg_doc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++) {
		cg_doc_block *b = &d->blocks[i];
		cg_free(b->text);
		cg_free(b->name);
		cg_free(b->body);
		cg_free(b->align);
		cg_free(b->print_where);
		for (size_t k = 0; k < b->nrows * b->ncols; k++)
			cg_free(b->cells[k]);
		cg_free(b->cells);
	}
	cg_free(d->blocks);
	cg_free(d->title);
	cg_free(d);
}

static cg_doc_block *push(cg_doc *d, cg_doc_kind kind)
{
	CG_GROW(d->blocks, d->cap, d->n + 1);
	cg_doc_block *b = &d->blocks[d->n++];
	memset(b, 0, sizeof *b);
	b->kind = kind;
	return b;
}

static char *vformat(const char *fmt, va_list ap)
{
	va_list copy;
	va_copy(copy, ap);
	int n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	char *s = cg_malloc(n > 0 ? (size_t)n + 1 : 1);
	vsnprintf(s, n > 0 ? (size_t)n + 1 : 1, fmt, ap);
	if (n <= 0)
		s[0] = '\0';
	return s;
}

#define TEXT_BLOCK(fn, kind) \
	void fn(cg_doc *d, const char *fmt, ...) \
	{ \
		va_list ap; \
		va_start(ap, fmt); \
		push(d, kind)->text = vformat(fmt, ap); \
		va_end(ap); \
	}

TEXT_BLOCK(cg_doc_paragraph, CG_DOC_PARAGRAPH)
TEXT_BLOCK(cg_doc_note, CG_DOC_NOTE)
TEXT_BLOCK(cg_doc_callout, CG_DOC_CALLOUT)

void cg_doc_heading(cg_doc *d, int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cg_doc_block *b = push(d, CG_DOC_HEADING);
	b->level = level < 1 ? 1 : level > 3 ? 3 : level;
	b->text = vformat(fmt, ap);
	va_end(ap);
}

void cg_doc_data(cg_doc *d, const char *name, const char *json)
{
	cg_doc_block *b = push(d, CG_DOC_DATA);
	b->name = cg_strdup(name);
	b->text = cg_strdup(json);
}

void cg_doc_data_take(cg_doc *d, const char *name, char *json)
{
	cg_doc_block *b = push(d, CG_DOC_DATA);
	b->name = cg_strdup(name);
	b->text = json;
}

void cg_doc_set_script(cg_doc *d, const char *js, const char *sha256_base64)
{
	d->script = js;
	d->script_hash = sha256_base64;
}

void cg_doc_code(cg_doc *d, const char *text)
{
	push(d, CG_DOC_CODE)->text = cg_strdup(text);
}

void cg_doc_details(cg_doc *d, const char *summary, const char *body)
{
	cg_doc_block *b = push(d, CG_DOC_DETAILS);
	b->text = cg_strdup(summary);
	b->body = cg_strdup(body);
}

void cg_doc_table(cg_doc *d, size_t ncols, const char *align)
{
	cg_doc_block *b = push(d, CG_DOC_TABLE);
	b->ncols = ncols;
	b->align = cg_malloc(ncols + 1);
	for (size_t i = 0; i < ncols; i++)
		b->align[i] = align && i < strlen(align) ? align[i] : 'l';
	b->align[ncols] = '\0';
}

void cg_doc_row(cg_doc *d, const char *const *cells)
{
	cg_doc_block *b = &d->blocks[d->n - 1];
	CG_GROW(b->cells, b->cells_cap, (b->nrows + 1) * b->ncols);
	for (size_t i = 0; i < b->ncols; i++)
		b->cells[b->nrows * b->ncols + i] = cg_strdup(cells[i] ? cells[i] : "");
	b->nrows++;
}

void cg_doc_table_print_rows(cg_doc *d, size_t n, const char *where)
{
	cg_doc_block *b = &d->blocks[d->n - 1];
	assert(b->kind == CG_DOC_TABLE && n > 0);
	b->print_rows = n;
	cg_free(b->print_where);
	b->print_where = where ? cg_strdup(where) : NULL;
}

void cg_doc_links(cg_doc *d, const char *label, size_t n, const char *const *texts, const char *const *hrefs)
{
	cg_doc_block *b = push(d, CG_DOC_LINKS);
	b->text = cg_strdup(label);
	b->ncols = 2;
	for (size_t i = 0; i < n; i++) {
		for (const char *p = hrefs[i]; *p; p++)
			assert((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			       strchr("._/-", *p));
		cg_doc_row(d, (const char *const[]){texts[i], hrefs[i]});
	}
}

void cg_doc_figure(cg_doc *d, const char *name, const char *title)
{
	cg_doc_block *b = push(d, CG_DOC_FIGURE);
	b->name = cg_strdup(name);
	b->text = cg_strdup(title);
}

static const char *const file_exts[] = {"png", "svg", "pdf"};

const char *cg_doc_file_ext(unsigned file)
{
	return file == CG_DOC_FILE_SVG ? file_exts[1] : file == CG_DOC_FILE_PDF ? file_exts[2] : file_exts[0];
}

char *cg_doc_figure_file(const cg_doc *d, const char *name, unsigned file)
{
	return cg_asprintf("%s%s.%s", name, file == CG_DOC_FILE_PNG ? d->png_suffix : "", cg_doc_file_ext(file));
}

unsigned cg_doc_figure_files(const cg_doc *d, const char *dir, const char *name)
{
	unsigned files = 0;
	for (unsigned f = CG_DOC_FILE_PNG; dir && f <= CG_DOC_FILE_PDF; f <<= 1) {
		char *file = cg_doc_figure_file(d, name, f);
		char *path = cg_asprintf("%s/%s", dir, file);
		if (access(path, F_OK) == 0)
			files |= f;
		cg_free(path);
		cg_free(file);
	}
	return files;
}

void cg_doc_set_png_suffix(cg_doc *d, const char *suffix)
{
	snprintf(d->png_suffix, sizeof d->png_suffix, "%s", suffix);
}

#define ID_MAX 64

static void slug(const char *s, char *buf)
{
	size_t k = 0;
	bool gap = false;
	for (; *s && k < ID_MAX; s++) {
		char c = *s;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			if (gap && k > 0) {
				if (k + 2 > ID_MAX)
					break;
				buf[k++] = '-';
			}
			buf[k++] = c;
			gap = false;
		} else {
			gap = true;
		}
	}
	buf[k] = '\0';
	if (!k)
		snprintf(buf, ID_MAX + 1, "section");
}

/* Quadratic in the number of headings, which a report keeps to a few
 * hundred (32 devices' sections at most). */
static bool id_taken(char *const *ids, size_t n, const char *id)
{
	if (strcmp(id, "contents") == 0)
		return true;
	for (size_t i = 0; i < n; i++)
		if (ids[i] && strcmp(ids[i], id) == 0)
			return true;
	return false;
}

char **cg_doc_heading_ids(const cg_doc *d)
{
	char **ids = cg_calloc(d->n ? d->n : 1, sizeof *ids);
	for (size_t i = 0; i < d->n; i++) {
		if (d->blocks[i].kind != CG_DOC_HEADING)
			continue;
		char base[ID_MAX + 1], id[ID_MAX + 24];
		slug(d->blocks[i].name ? d->blocks[i].name : d->blocks[i].text, base);
		snprintf(id, sizeof id, "%s", base);
		for (unsigned long k = 2; id_taken(ids, i, id); k++)
			snprintf(id, sizeof id, "%s-%lu", base, k);
		ids[i] = cg_strdup(id);
	}
	return ids;
}

void cg_doc_heading_key(cg_doc *d, size_t i, const char *key)
{
	if (i >= d->n || d->blocks[i].kind != CG_DOC_HEADING)
		return;
	cg_free(d->blocks[i].name);
	d->blocks[i].name = cg_strdup(key);
}

void cg_doc_ids_free(char **ids, size_t n)
{
	if (!ids)
		return;
	for (size_t i = 0; i < n; i++)
		cg_free(ids[i]);
	cg_free(ids);
}
