#include "svgids.h"

#include <string.h>

#include "xalloc.h"

typedef struct {
	unsigned long *ids;
	size_t n, cap;
} id_table;

static size_t renumbered(id_table *t, unsigned long id)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->ids[i] == id)
			return i + 1;
	CG_GROW(t->ids, t->cap, t->n + 1);
	t->ids[t->n++] = id;
	return t->n;
}

/* The length of the reference "surface" + digits starting at p (after a
 * '"' or '#'), or 0 when p holds something else. */
static size_t surface_ref_len(const char *p, const char *end, unsigned long *id)
{
	static const char word[] = "surface";
	size_t w = sizeof word - 1;
	if ((size_t)(end - p) <= w || memcmp(p, word, w) != 0)
		return 0;
	const char *d = p + w;
	unsigned long v = 0;
	while (d < end && *d >= '0' && *d <= '9' && v < 100000000UL)
		v = v * 10 + (unsigned long)(*d++ - '0');
	if (d == p + w || d == end || (*d != '"' && *d != ')'))
		return 0;
	*id = v;
	return (size_t)(d - p);
}

void cg_svg_write_renumbered(cg_sink *out, const char *svg, size_t n)
{
	id_table t = {0};
	const char *p = svg, *end = svg + n, *copied = svg;
	while (p < end) {
		const char *q = memchr(p, 's', (size_t)(end - p));
		if (!q)
			break;
		unsigned long id;
		size_t len = q > svg && (q[-1] == '"' || q[-1] == '#') ? surface_ref_len(q, end, &id) : 0;
		if (!len) {
			p = q + 1;
			continue;
		}
		cg_sink_write(out, copied, (size_t)(q - copied));
		cg_sink_printf(out, "surface%zu", renumbered(&t, id));
		copied = p = q + len;
	}
	cg_sink_write(out, copied, (size_t)(end - copied));
	cg_free(t.ids);
}
