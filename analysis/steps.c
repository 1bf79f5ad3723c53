#include "steps.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

#define UNKNOWN (CG_NONE - 1)

size_t cg_steps_prefix_len(const char *name, size_t len)
{
	while (len > 0 && name[len - 1] >= '0' && name[len - 1] <= '9')
		len--;
	return len;
}

typedef struct candidate {
	const char *name;
	size_t plen;
	uint64_t start_ns;
	uint32_t depth;
	uint32_t span;
} candidate;

static int cmp_candidate(const void *a, const void *b)
{
	const candidate *x = a, *y = b;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	size_t n = x->plen < y->plen ? x->plen : y->plen;
	int c = memcmp(x->name, y->name, n);
	if (c)
		return c;
	if (x->plen != y->plen)
		return x->plen < y->plen ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->span < y->span ? -1 : x->span > y->span;
}

static bool same_group(const candidate *x, const candidate *y)
{
	return x->depth == y->depth && x->plen == y->plen && memcmp(x->name, y->name, x->plen) == 0;
}

/* For each span, which phases (bit 1 << phase) run inside it, below it.
 * Each (span, phase) bit is set once, so this is linear. */
static uint8_t *phases_inside(const cg_timeline *tl)
{
	uint8_t *bits = cg_calloc(tl->nspans ? tl->nspans : 1, 1);
	for (size_t i = 0; i < tl->nspans; i++) {
		const cg_span *s = &tl->spans[i];
		if (s->phase == CG_PHASE_NONE)
			continue;
		uint8_t bit = (uint8_t)(1u << s->phase);
		for (uint32_t p = s->parent; p != CG_NONE && !(bits[p] & bit); p = tl->spans[p].parent)
			bits[p] |= bit;
	}
	return bits;
}

static int popcount8(uint8_t v)
{
	int n = 0;
	for (; v; v &= (uint8_t)(v - 1))
		n++;
	return n;
}

typedef struct group {
	size_t first, count; /* range in the sorted candidates */
	int coverage;
	uint64_t start_ns;
	uint32_t depth;
} group;

/* Is a a better choice of steps than b? */
static bool better(const group *a, const group *b)
{
	if (a->coverage != b->coverage)
		return a->coverage > b->coverage;
	if (a->count != b->count)
		return a->count > b->count;
	if (a->depth != b->depth)
		return a->depth < b->depth;
	return a->start_ns < b->start_ns;
}

/* Picks the steps among the candidates; returns false when none repeat. */
static bool choose(candidate *c, size_t n, const uint8_t *bits, group *best)
{
	qsort(c, n, sizeof *c, cmp_candidate);
	bool found = false;
	for (size_t i = 0; i < n;) {
		group g = {i, 0, 0, UINT64_MAX, c[i].depth};
		uint8_t cover = 0;
		size_t j = i;
		for (; j < n && same_group(&c[i], &c[j]); j++) {
			cover |= bits[c[j].span];
			if (c[j].start_ns < g.start_ns)
				g.start_ns = c[j].start_ns;
		}
		g.count = j - i;
		g.coverage = popcount8(cover);
		if (g.count >= 2 && (!found || better(&g, best))) {
			*best = g;
			found = true;
		}
		i = j;
	}
	return found;
}

/* Each span's step: its own when it is a step span, else its nearest
 * ancestor's. Walks each chain once, filling the path on the way back. */
static void fill_step_of_span(const cg_timeline *tl, uint32_t *step_of)
{
	size_t n = tl->nspans;
	uint32_t *path = cg_malloc((n ? n : 1) * sizeof *path);
	for (size_t i = 0; i < n; i++) {
		size_t len = 0;
		uint32_t s = (uint32_t)i;
		while (s != CG_NONE && step_of[s] == UNKNOWN && len < n) {
			path[len++] = s;
			s = tl->spans[s].parent;
		}
		uint32_t v = s == CG_NONE || step_of[s] == UNKNOWN ? CG_NONE : step_of[s];
		while (len > 0)
			step_of[path[--len]] = v;
	}
	cg_free(path);
}

/* torch.profiler's own step ranges: "ProfilerStep#" and a number. */
static bool profiler_step(const cg_timeline *tl, uint32_t i)
{
	static const char prefix[] = "ProfilerStep#";
	const size_t k = sizeof prefix - 1;
	const char *name = cg_timeline_str(tl, tl->spans[i].name);
	size_t len = cg_strtab_len(tl->strings, tl->spans[i].name);
	return len > k && memcmp(name, prefix, k) == 0 && cg_steps_prefix_len(name, len) == k;
}

static int cmp_start(const void *a, const void *b)
{
	const candidate *x = a, *y = b;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->span < y->span ? -1 : x->span > y->span;
}

/* The outermost ProfilerStep#N ranges, in time order: torch.profiler
 * opens one per prof.step(), so they are the steps however many there are
 * and whatever is below them (PyTorch records no forward range). */
static size_t profiler_steps(const cg_timeline *tl, candidate *c)
{
	size_t n = 0;
	for (size_t i = 0; i < tl->nspans; i++) {
		if (!profiler_step(tl, (uint32_t)i))
			continue;
		bool outermost = true;
		for (uint32_t p = tl->spans[i].parent; p != CG_NONE && outermost; p = tl->spans[p].parent)
			outermost = !profiler_step(tl, p);
		if (!outermost)
			continue;
		const cg_span *s = &tl->spans[i];
		const char *name = cg_timeline_str(tl, s->name);
		c[n++] = (candidate){name, sizeof "ProfilerStep#" - 1, s->start_ns, s->depth, (uint32_t)i};
	}
	qsort(c, n, sizeof *c, cmp_start);
	return n;
}

int cg_steps_run(cg_steps_result **out, const cg_timeline *tl, cg_error *err)
{
	(void)err;
	cg_steps_result *r = cg_calloc(1, sizeof *r);
	r->nspans = (uint32_t)tl->nspans;
	r->step_of_span = cg_malloc((tl->nspans ? tl->nspans : 1) * sizeof *r->step_of_span);
	for (size_t i = 0; i < tl->nspans; i++)
		r->step_of_span[i] = UNKNOWN;

	uint8_t *bits = phases_inside(tl);
	candidate *c = cg_malloc((tl->nspans ? tl->nspans : 1) * sizeof *c);
	size_t n = profiler_steps(tl, c);
	group g = {0, n, 0, 0, 0};
	bool found = n > 0;
	for (size_t i = 0; i < tl->nspans && !found; i++) {
		const cg_span *s = &tl->spans[i];
		if (s->phase != CG_PHASE_NONE || !(bits[i] & (1u << CG_PHASE_FORWARD)))
			continue;
		const char *name = cg_timeline_str(tl, s->name);
		size_t len = cg_strtab_len(tl->strings, s->name);
		c[n++] = (candidate){name, cg_steps_prefix_len(name, len), s->start_ns, s->depth, (uint32_t)i};
	}
	if (!found)
		found = choose(c, n, bits, &g);
	if (found) {
		/* The sort put each group's members in time order. */
		r->nsteps = (uint32_t)g.count;
		r->steps = cg_malloc(g.count * sizeof *r->steps);
		for (size_t k = 0; k < g.count; k++) {
			const cg_span *s = &tl->spans[c[g.first + k].span];
			r->steps[k] = (cg_step){c[g.first + k].span, s->start_ns, s->end_ns};
			r->step_of_span[c[g.first + k].span] = (uint32_t)k;
		}
		const candidate *f = &c[g.first];
		bool numbered = false;
		for (size_t k = 0; k < g.count; k++)
			numbered |= c[g.first + k].plen < cg_strtab_len(tl->strings, tl->spans[c[g.first + k].span].name);
		r->prefix = cg_strndup(f->name, f->plen);
		r->label = numbered ? cg_asprintf("%s*", r->prefix) : cg_strdup(r->prefix);
	}
	fill_step_of_span(tl, r->step_of_span);
	cg_free(c);
	cg_free(bits);
	*out = r;
	return 0;
}

void cg_steps_free(cg_steps_result *r)
{
	if (!r)
		return;
	cg_free(r->steps);
	cg_free(r->prefix);
	cg_free(r->label);
	cg_free(r->step_of_span);
	cg_free(r);
}
