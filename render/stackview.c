#include "stackview.h"

#include <stdio.h>
#include <string.h>

#include "utf8.h"
#include "xalloc.h"

/* A text buffer that, once full, ends in "…" at a character boundary. */
typedef struct text {
	char *buf;
	size_t size, len;
	bool cut;
} text;

static void put(text *t, const char *s, size_t n)
{
	if (t->cut || t->size < 4)
		return;
	size_t room = t->size - 1 - t->len;
	if (n <= room) {
		memcpy(t->buf + t->len, s, n);
		t->len += n;
		t->buf[t->len] = '\0';
		return;
	}
	/* room for "…" (3 bytes) after a whole-character prefix */
	size_t keep = room >= 3 ? cg_utf8_prefix(s, n, room - 3) : 0;
	if (room < 3) {
		t->len = cg_utf8_prefix(t->buf, t->len, t->size - 4);
		keep = 0;
	}
	memcpy(t->buf + t->len, s, keep);
	t->len += keep;
	memcpy(t->buf + t->len, "\xe2\x80\xa6", 4);
	t->len += 3;
	t->cut = true;
}

static void puts_(text *t, const char *s)
{
	put(t, s, strlen(s));
}

/* A frame's name with the separator's character shown as '<' and line
 * breaks as spaces, so neither can be read as a boundary of frames. */
static void put_name(text *t, const char *s)
{
	const char *run = s;
	for (const char *q = s; *q; q++) {
		/* byte by byte: a name may end before three bytes are read */
		bool sep = q[0] == '\xe2' && q[1] == '\x80' && q[2] == '\xb9';
		if (!sep && *q != '\n' && *q != '\r')
			continue;
		put(t, run, (size_t)(q - run));
		put(t, sep ? "<" : " ", 1);
		if (sep)
			q += 2;
		run = q + 1;
	}
	puts_(t, run);
}

static size_t count_folded(const char *const *names, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += cg_stack_boring(names[i]);
	return k;
}

static void put_short(text *t, const char *const *names, size_t n)
{
	size_t folded = count_folded(names, n), shown = 0;
	for (size_t i = n; i-- > 0;) {
		if (cg_stack_boring(names[i]))
			continue;
		if (shown == CG_STACK_SHORT_FRAMES) {
			puts_(t, CG_STACK_SEP "\xe2\x80\xa6");
			break;
		}
		if (shown++)
			puts_(t, CG_STACK_SEP);
		put_name(t, names[i]);
	}
	if (shown == 0 && n) /* all folded: show the innermost anyway */
		put_name(t, names[n - 1]);
	if (shown < n) {
		char tail[96];
		snprintf(tail, sizeof tail, " (%zu frame%s%s", n, n == 1 ? "" : "s", folded ? ", " : ")");
		puts_(t, tail);
		if (folded) {
			snprintf(tail, sizeof tail, "%zu folded)", folded);
			puts_(t, tail);
		}
	}
}

char *cg_stack_short(const char *const *names, size_t n, char *buf, size_t size)
{
	if (!size)
		return buf;
	buf[0] = '\0';
	text t = {buf, size, 0, false};
	put_short(&t, names, n);
	return buf;
}

/* Grows a heap text: the cell has no length limit but the trace's. */
static char *cat(char *s, size_t *len, const char *add)
{
	size_t n = strlen(add);
	s = cg_realloc(s, *len + n + 1);
	memcpy(s + *len, add, n + 1);
	*len += n;
	return s;
}

char *cg_stack_cell(const char *const *names, size_t n)
{
	char line[CG_SPAN_PATH_MAX];
	cg_stack_short(names, n, line, sizeof line);
	size_t len = 0, folded = count_folded(names, n), kept = n - folded;
	char *s = cat(NULL, &len, line);
	if (kept <= CG_STACK_SHORT_FRAMES && !folded)
		return s;
	for (size_t i = n; i-- > 0;) {
		if (cg_stack_boring(names[i]))
			continue;
		text t = {line, sizeof line, 0, false};
		line[0] = '\0';
		put_name(&t, names[i]);
		s = cat(s, &len, "\n");
		s = cat(s, &len, line);
	}
	if (folded) {
		snprintf(line, sizeof line, "\n(%zu frame%s folded: multiprocessing, <string>, nn/modules/module.py, "
					    "built-in methods; summary.json has them)",
			 folded, folded == 1 ? "" : "s");
		s = cat(s, &len, line);
	}
	return s;
}

const char **cg_stack_span_names(const cg_timeline *tl, uint32_t span, size_t *n)
{
	size_t depth = 0;
	for (uint32_t s = span; s != CG_NONE && s < tl->nspans; s = tl->spans[s].parent)
		depth++;
	const char **names = cg_malloc((depth ? depth : 1) * sizeof *names);
	size_t k = depth;
	for (uint32_t s = span; s != CG_NONE && s < tl->nspans; s = tl->spans[s].parent)
		names[--k] = cg_timeline_str(tl, tl->spans[s].name);
	*n = depth;
	return names;
}

char *cg_stack_span_text(const cg_timeline *tl, uint32_t span, char *buf, size_t size)
{
	if (!size)
		return buf;
	if (!cg_stack_is_frames(tl)) {
		/* one byte more than shown: a path that fills it was cut */
		char path[CG_SPAN_PATH_MAX + 1];
		cg_timeline_span_path(tl, span, path, sizeof path);
		buf[0] = '\0';
		text t = {buf, size, 0, false};
		puts_(&t, path);
		if (strlen(path) == sizeof path - 1 && !t.cut)
			puts_(&t, "\xe2\x80\xa6");
		return buf;
	}
	size_t n;
	const char **names = cg_stack_span_names(tl, span, &n);
	cg_stack_short(names, n, buf, size);
	cg_free(names);
	return buf;
}

char *cg_stack_span_where(const cg_timeline *tl, uint32_t span, char *buf, size_t size)
{
	uint32_t m = cg_stack_is_frames(tl) ? cg_stack_module(tl, span) : CG_NONE;
	if (m == CG_NONE || size < 4)
		return cg_stack_span_text(tl, span, buf, size);
	char path[CG_SPAN_PATH_MAX];
	cg_stack_span_text(tl, span, path, sizeof path);
	buf[0] = '\0';
	text t = {buf, size, 0, false};
	put_name(&t, cg_timeline_str(tl, tl->spans[m].name));
	puts_(&t, " \xc2\xb7 ");
	puts_(&t, path);
	return buf;
}

char *cg_stack_span_cell(const cg_timeline *tl, uint32_t span)
{
	if (!cg_stack_is_frames(tl)) {
		char path[CG_SPAN_PATH_MAX + 8];
		return cg_strdup(cg_stack_span_text(tl, span, path, sizeof path));
	}
	size_t n;
	const char **names = cg_stack_span_names(tl, span, &n);
	char *cell = cg_stack_cell(names, n);
	cg_free(names);
	uint32_t m = cg_stack_module(tl, span);
	if (m == CG_NONE)
		return cell;
	/* the nearest module first: where in the model it was allocated */
	char *where = cg_asprintf("%s \xc2\xb7 %s", cg_timeline_str(tl, tl->spans[m].name), cell);
	cg_free(cell);
	return where;
}

char cg_stack_column(const cg_timeline *tl)
{
	return cg_stack_is_frames(tl) ? 's' : 'p';
}
