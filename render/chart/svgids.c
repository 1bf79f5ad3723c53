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

/* The length of the reference word + digits starting at p (after a '"'
 * or '#'), or 0 when p holds something else. */
static size_t ref_len(const char *p, const char *end, const char *word, unsigned long *id)
{
	size_t w = strlen(word);
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

/* cairo's two counters: surfaces, and images (an embedded bitmap, as the
 * ranks heat map draws) */
static const char *const words[] = {"surface", "image"};
#define NWORDS (sizeof words / sizeof *words)

void cg_svg_write_renumbered(cg_sink *out, const char *svg, size_t n)
{
	id_table t[NWORDS] = {{0}};
	const char *p = svg, *end = svg + n, *copied = svg;
	for (; p < end; p++) {
		if (p == svg || (p[-1] != '"' && p[-1] != '#') || (*p != 's' && *p != 'i'))
			continue;
		for (size_t k = 0; k < NWORDS; k++) {
			unsigned long id;
			size_t len = ref_len(p, end, words[k], &id);
			if (!len)
				continue;
			cg_sink_write(out, copied, (size_t)(p - copied));
			cg_sink_printf(out, "%s%zu", words[k], renumbered(&t[k], id));
			copied = p + len;
			p += len - 1;
			break;
		}
	}
	cg_sink_write(out, copied, (size_t)(end - copied));
	for (size_t k = 0; k < NWORDS; k++)
		cg_free(t[k].ids);
}
