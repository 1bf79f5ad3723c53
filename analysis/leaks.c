#include "leaks.h"

#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "xalloc.h"

bool cg_leaks_category_counts(cg_category c)
{
	return c != CG_CAT_PARAMETER && c != CG_CAT_OPTIMIZER_STATE && c != CG_CAT_BASELINE;
}

uint64_t cg_leaks_candidate_bytes(const uint64_t by_category[CG_CAT_COUNT])
{
	uint64_t sum = 0;
	for (int c = 0; c < CG_CAT_COUNT; c++)
		if (cg_leaks_category_counts((cg_category)c) && !cg_add_u64(sum, by_category[c], &sum))
			return UINT64_MAX;
	return sum;
}

/* Deeper chains are cut, as cg_timeline_span_path cuts them, and paths
 * end at CG_SPAN_PATH_MAX: a trace of huge span names cannot make every
 * group's path huge. */
#define MAX_DEPTH 256

static bool is_step_span(const cg_leaks_input *in, uint32_t s)
{
	if (!in->step_of_span || s >= in->nspans)
		return false;
	uint32_t k = in->step_of_span[s];
	return k != CG_NONE && k < in->nsteps && in->step_span[k] == s;
}

static void append(char *buf, size_t *len, const char *s, size_t n)
{
	if (*len + n >= CG_SPAN_PATH_MAX) {
		n = CG_SPAN_PATH_MAX - 1 - *len;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--; /* end between characters */
	}
	memcpy(buf + *len, s, n);
	*len += n;
}

/* The span path of s with step spans written as the steps' label. */
static char *group_path(const cg_timeline *tl, const cg_leaks_input *in, uint32_t s)
{
	if (s == CG_NONE || s >= tl->nspans)
		return cg_strdup("");
	uint32_t chain[MAX_DEPTH];
	size_t n = 0;
	for (uint32_t x = s; x != CG_NONE && n < MAX_DEPTH; x = tl->spans[x].parent)
		chain[n++] = x;
	char buf[CG_SPAN_PATH_MAX];
	size_t len = 0;
	if (n == MAX_DEPTH && tl->spans[chain[n - 1]].parent != CG_NONE)
		append(buf, &len, "\xe2\x80\xa6/", 4);
	while (n > 0) {
		uint32_t x = chain[--n];
		bool label = is_step_span(in, x) && in->step_label;
		const char *name = label ? in->step_label : cg_timeline_str(tl, tl->spans[x].name);
		append(buf, &len, name, strlen(name));
		if (n)
			append(buf, &len, "/", 1);
	}
	return cg_strndup(buf, len);
}

/* A leak candidate on its way into a group. */
typedef struct cand {
	uint32_t alloc;
	uint32_t span;
	cg_str op;
	uint32_t step;
	uint32_t group;
	const char *path; /* borrowed from the per-span path cache */
} cand;

static int cmp_span_op(const void *a, const void *b)
{
	const cand *x = a, *y = b;
	if (x->span != y->span)
		return x->span < y->span ? -1 : 1;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return x->alloc < y->alloc ? -1 : x->alloc > y->alloc;
}

static int cmp_path_op(const void *a, const void *b)
{
	const cand *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	if (c)
		return c;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return x->alloc < y->alloc ? -1 : x->alloc > y->alloc;
}

static int cmp_group_step(const void *a, const void *b)
{
	const cand *x = a, *y = b;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return x->step < y->step ? -1 : x->step > y->step;
}

static int cmp_groups(const void *a, const void *b)
{
	const cg_leak_group *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	int c = strcmp(x->path, y->path);
	if (c)
		return c;
	return x->example < y->example ? -1 : x->example > y->example;
}

static void add_sat(uint64_t *acc, uint64_t v)
{
	if (!cg_add_u64(*acc, v, acc))
		*acc = UINT64_MAX;
}

/* Groups the candidates by (path, op). Paths are computed once per span. */
static void group_candidates(const cg_timeline *tl, const cg_leaks_input *in, cand *c, size_t n,
			     cg_leaks_device *o)
{
	qsort(c, n, sizeof *c, cmp_span_op);
	char **paths = cg_malloc((n ? n : 1) * sizeof *paths);
	size_t npaths = 0;
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || c[i].span != c[i - 1].span)
			paths[npaths++] = group_path(tl, in, c[i].span);
		c[i].path = paths[npaths - 1];
	}
	qsort(c, n, sizeof *c, cmp_path_op);
	size_t cap = 0;
	for (size_t i = 0; i < n; i++) {
		const cg_mem *m = &tl->mem[c[i].alloc];
		if (i == 0 || strcmp(c[i].path, c[i - 1].path) != 0 || c[i].op != c[i - 1].op) {
			CG_GROW(o->groups, cap, o->ngroups + 1);
			o->groups[o->ngroups++] = (cg_leak_group){cg_strdup(c[i].path), c[i].op, m->category, 0, 0, 0,
								 m->t_ns, m->t_ns, c[i].alloc};
		}
		cg_leak_group *g = &o->groups[o->ngroups - 1];
		c[i].group = (uint32_t)(o->ngroups - 1);
		add_sat(&g->bytes, m->bytes);
		g->count++;
		if (g->category != m->category)
			g->category = CG_LEAKS_MIXED;
		if (m->t_ns < g->first_ns)
			g->first_ns = m->t_ns;
		if (m->t_ns > g->last_ns)
			g->last_ns = m->t_ns;
		if (c[i].alloc < g->example)
			g->example = c[i].alloc;
	}
	/* Distinct steps per group. */
	qsort(c, n, sizeof *c, cmp_group_step);
	for (size_t i = 0; i < n; i++)
		if (c[i].step != CG_NONE && (i == 0 || c[i].group != c[i - 1].group || c[i].step != c[i - 1].step))
			o->groups[c[i].group].steps++;
	if (o->ngroups > 1)
		qsort(o->groups, o->ngroups, sizeof *o->groups, cmp_groups);
	for (size_t i = 0; i < npaths; i++)
		cg_free(paths[i]);
	cg_free(paths);
}

static void device_leaks(const cg_timeline *tl, const cg_leaks_input *in, uint32_t d, cg_leaks_device *o)
{
	bool per_step = !in->per_step || in->per_step[d];
	o->nsteps = per_step ? in->nsteps : 0;
	o->step_bytes = cg_calloc(o->nsteps ? o->nsteps : 1, sizeof *o->step_bytes);
	o->step_count = cg_calloc(o->nsteps ? o->nsteps : 1, sizeof *o->step_count);
	if (!tl->source.pairing_known)
		return;
	o->available = true;
	size_t nlive = in->nlive[d];
	cand *c = cg_malloc((nlive ? nlive : 1) * sizeof *c);
	size_t n = 0;
	for (size_t k = 0; k < nlive; k++) {
		uint32_t i = in->live_allocs[d][k];
		const cg_mem *m = &tl->mem[i];
		if (!cg_leaks_category_counts((cg_category)m->category))
			continue;
		uint32_t step = in->step_of_span && m->span != CG_NONE && m->span < in->nspans
					? in->step_of_span[m->span] : CG_NONE;
		c[n++] = (cand){i, m->span, cg_timeline_mem_op(tl, m), step, 0, NULL};
		add_sat(&o->bytes, m->bytes);
		o->count++;
		if (!per_step) {
			/* no per-step figures for this device */
		} else if (step < o->nsteps) {
			add_sat(&o->step_bytes[step], m->bytes);
			o->step_count[step]++;
		} else {
			add_sat(&o->outside_steps_bytes, m->bytes);
			o->outside_steps_count++;
		}
	}
	for (uint32_t k = 0; k < o->nsteps; k++)
		if (o->step_count[k])
			o->leaking_steps++;
	group_candidates(tl, in, c, n, o);
	cg_free(c);
}

int cg_leaks_run(cg_leaks_result **out, const cg_timeline *tl, const cg_leaks_input *in, cg_error *err)
{
	(void)err;
	cg_leaks_result *r = cg_calloc(1, sizeof *r);
	r->ndevices = tl->ndevices;
	r->devices = cg_calloc(tl->ndevices ? tl->ndevices : 1, sizeof *r->devices);
	for (uint32_t d = 0; d < tl->ndevices; d++)
		device_leaks(tl, in, d, &r->devices[d]);
	*out = r;
	return 0;
}

void cg_leaks_free(cg_leaks_result *r)
{
	if (!r)
		return;
	for (uint32_t d = 0; d < r->ndevices; d++) {
		cg_leaks_device *o = &r->devices[d];
		for (size_t g = 0; g < o->ngroups; g++)
			cg_free(o->groups[g].path);
		cg_free(o->groups);
		cg_free(o->step_bytes);
		cg_free(o->step_count);
	}
	cg_free(r->devices);
	cg_free(r);
}
