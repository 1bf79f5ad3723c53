#include "spantree.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "parallel.h"
#include "xalloc.h"

enum { UNVISITED, ON_PATH, DONE };

static uint32_t lookup(const uint32_t *span_of, uint32_t nstrings, cg_str id)
{
	return id != CG_STR_EMPTY && id < nstrings ? span_of[id] : CG_NONE;
}

/* Keeps the first span of each id, drops later ones, and maps id -> index. */
static uint32_t *index_spans(cg_timeline *tl, uint32_t nstrings)
{
	uint32_t *span_of = cg_malloc((size_t)nstrings * sizeof *span_of);
	memset(span_of, 0xff, (size_t)nstrings * sizeof *span_of);
	size_t kept = 0;
	for (size_t i = 0; i < tl->nspans; i++) {
		cg_span *s = &tl->spans[i];
		if (span_of[s->id] != CG_NONE) {
			cg_timeline_anomaly(tl, CG_ANOM_DUPLICATE_SPAN,
					    "line %u: span \"%s\" already started at line %u",
					    s->line, cg_timeline_str(tl, s->id),
					    tl->spans[span_of[s->id]].line);
			continue;
		}
		span_of[s->id] = (uint32_t)kept;
		tl->spans[kept++] = *s;
	}
	tl->nspans = kept;
	return span_of;
}

static void resolve_parents(cg_timeline *tl, const uint32_t *span_of, uint32_t nstrings)
{
	for (size_t i = 0; i < tl->nspans; i++) {
		cg_span *s = &tl->spans[i];
		cg_str parent_id = s->parent;
		s->parent = lookup(span_of, nstrings, parent_id);
		if (parent_id != CG_STR_EMPTY && s->parent == CG_NONE)
			cg_timeline_anomaly(tl, CG_ANOM_UNKNOWN_SPAN,
					    "line %u: span \"%s\" names parent \"%s\", which never started",
					    s->line, cg_timeline_str(tl, s->id),
					    cg_timeline_str(tl, parent_id));
	}
}

static void apply_ends(cg_timeline *tl, const uint32_t *span_of, uint32_t nstrings)
{
	for (size_t i = 0; i < tl->nspan_ends; i++) {
		const struct cg_span_end_rec *e = &tl->span_ends[i];
		uint32_t s = lookup(span_of, nstrings, e->id);
		if (s == CG_NONE) {
			cg_timeline_anomaly(tl, CG_ANOM_SPAN_END_WITHOUT_START,
					    "line %u: end of span \"%s\", which never started",
					    e->line, cg_timeline_str(tl, e->id));
			continue;
		}
		cg_span *sp = &tl->spans[s];
		if (sp->flags & CG_SPAN_ENDED)
			continue;
		if (!cg_add_u64(sp->start_ns, e->duration_ns, &sp->end_ns))
			sp->end_ns = UINT64_MAX;
		sp->flags |= CG_SPAN_ENDED;
		if (sp->end_ns > tl->last_t_ns)
			tl->last_t_ns = sp->end_ns;
	}
	cg_free(tl->span_ends);
	tl->span_ends = NULL;
	tl->nspan_ends = tl->span_ends_cap = 0;
	cg_free(tl->span_by_id);
	cg_free(tl->end_waits);
	tl->span_by_id = NULL;
	tl->end_waits = NULL;
	tl->span_by_id_cap = tl->end_waits_cap = 0;

	/* A span still open when the trace stops was running until its end. */
	for (size_t i = 0; i < tl->nspans; i++) {
		cg_span *s = &tl->spans[i];
		if (s->flags & CG_SPAN_ENDED)
			continue;
		s->end_ns = tl->last_t_ns > s->start_ns ? tl->last_t_ns : s->start_ns;
		cg_timeline_anomaly(tl, CG_ANOM_SPAN_NEVER_ENDED, "line %u: span \"%s\" (%s) never ended",
				    s->line, cg_timeline_str(tl, s->id), cg_timeline_str(tl, s->name));
	}
}

static void settle(cg_timeline *tl, uint32_t x)
{
	cg_span *s = &tl->spans[x];
	if (s->parent == CG_NONE) {
		s->depth = 0;
		s->phase = s->step;
	} else {
		const cg_span *p = &tl->spans[s->parent];
		s->depth = p->depth + 1;
		s->phase = s->step != CG_PHASE_NONE ? s->step : p->phase;
	}
}

/* Depth and inherited phase, walking each chain once; a loop in the parent
 * links is cut where it closes, and the span there becomes a root. */
static void settle_all(cg_timeline *tl)
{
	size_t n = tl->nspans;
	uint8_t *state = cg_calloc(n ? n : 1, 1);
	uint32_t *path = cg_malloc((n ? n : 1) * sizeof *path);
	for (size_t i = 0; i < n; i++) {
		if (state[i] == DONE)
			continue;
		size_t len = 0;
		uint32_t s = (uint32_t)i;
		while (s != CG_NONE && state[s] == UNVISITED) {
			state[s] = ON_PATH;
			path[len++] = s;
			s = tl->spans[s].parent;
		}
		if (s != CG_NONE && state[s] == ON_PATH) {
			cg_span *c = &tl->spans[s];
			char idbuf[CG_SPAN_ID_BUF];
			size_t idlen;
			cg_timeline_anomaly(tl, CG_ANOM_SPAN_CYCLE,
					    "line %u: span \"%s\" is its own ancestor", c->line,
					    cg_timeline_span_id(tl, s, idbuf, &idlen));
			c->parent = CG_NONE;
			settle(tl, s);
			state[s] = DONE;
		}
		while (len > 0) {
			uint32_t x = path[--len];
			if (state[x] == DONE)
				continue;
			settle(tl, x);
			state[x] = DONE;
		}
	}
	cg_free(state);
	cg_free(path);
}

static uint32_t resolve_ref(cg_timeline *tl, const uint32_t *span_of, uint32_t nstrings,
			    cg_str id, uint32_t line, const char *what)
{
	uint32_t s = lookup(span_of, nstrings, id);
	if (id != CG_STR_EMPTY && s == CG_NONE)
		cg_timeline_anomaly(tl, CG_ANOM_UNKNOWN_SPAN, "line %u: %s names span \"%s\", which never started",
				    line, what, cg_timeline_str(tl, id));
	return s;
}

typedef struct unknown_ref {
	uint32_t line;
	cg_str id;
} unknown_ref;

static int cmp_line(const void *a, const void *b)
{
	const unknown_ref *x = a, *y = b;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Memory records resolved in runs, one a thread; each run keeps the
 * unknown references it met, reported afterwards in record order. */
typedef struct mem_runs {
	cg_timeline *tl;
	const uint32_t *span_of;
	uint32_t nstrings;
	size_t nruns;
	struct run_refs {
		unknown_ref *refs;
		size_t n, cap;
	} *run;
} mem_runs;

static void resolve_run(void *ctx, size_t k)
{
	mem_runs *r = ctx;
	size_t i, end;
	cg_parallel_run_range(r->tl->nmem, r->nruns, k, &i, &end);
	struct run_refs *out = &r->run[k];
	for (; i < end; i++) {
		cg_mem *m = &r->tl->mem[i];
		cg_str id = m->span;
		m->span = lookup(r->span_of, r->nstrings, id);
		if (id != CG_STR_EMPTY && m->span == CG_NONE) {
			CG_GROW(out->refs, out->cap, out->n + 1);
			out->refs[out->n++] = (unknown_ref){m->line, id};
		}
	}
}

/* The memory records' span fields. Records grouped by device before
 * finalize (mem_regrouped) are out of file order: those naming no span are
 * then reported sorted by line, as records in file order would report them. */
static void resolve_mem(cg_timeline *tl, const uint32_t *span_of, uint32_t nstrings, unsigned threads)
{
	mem_runs r = {tl, span_of, nstrings, cg_parallel_runs(tl->nmem, threads, CG_PARALLEL_MIN_ITEMS), NULL};
	r.run = cg_calloc(r.nruns, sizeof *r.run);
	cg_parallel_for(r.nruns, (unsigned)r.nruns, resolve_run, &r);
	unknown_ref *unknown = NULL;
	size_t n = 0, cap = 0;
	for (size_t k = 0; k < r.nruns; k++) {
		if (r.run[k].n) {
			CG_GROW(unknown, cap, n + r.run[k].n);
			memcpy(unknown + n, r.run[k].refs, r.run[k].n * sizeof *unknown);
			n += r.run[k].n;
		}
		cg_free(r.run[k].refs);
	}
	cg_free(r.run);
	if (tl->mem_regrouped && n)
		qsort(unknown, n, sizeof *unknown, cmp_line); /* a line holds one record */
	for (size_t k = 0; k < n; k++)
		resolve_ref(tl, span_of, nstrings, unknown[k].id, unknown[k].line, "memory record");
	cg_free(unknown);
}

/* Spans added resolved (spans_indexed): parents, ends and the records'
 * span fields are indices already; only depths and phases are left. */
static void resolve_indexed(cg_timeline *tl)
{
	assert(tl->nspan_ends == 0 && tl->nops == 0 && tl->nop_refs == 0 && tl->ntensors == 0 && tl->nedges == 0);
	for (size_t i = 0; i < tl->nmem; i++)
		assert(tl->mem[i].span == CG_NONE || tl->mem[i].span < tl->nspans);
	settle_all(tl);
}

void cg_spantree_resolve(cg_timeline *tl, unsigned threads)
{
	if (tl->spans_indexed) {
		resolve_indexed(tl);
		return;
	}
	uint32_t nstrings = cg_strtab_count(tl->strings);
	uint32_t *span_of = index_spans(tl, nstrings);
	resolve_parents(tl, span_of, nstrings);
	apply_ends(tl, span_of, nstrings);
	settle_all(tl);

	resolve_mem(tl, span_of, nstrings, threads);
	for (size_t i = 0; i < tl->nops; i++)
		tl->ops[i].span = resolve_ref(tl, span_of, nstrings, tl->ops[i].span, tl->ops[i].line, "op");
	for (size_t i = 0; i < tl->nop_refs; i++)
		resolve_ref(tl, span_of, nstrings, tl->op_refs[i].span, tl->op_refs[i].line, "op");
	for (size_t i = 0; i < tl->ntensors; i++)
		tl->tensors[i].span = resolve_ref(tl, span_of, nstrings, tl->tensors[i].span,
						  tl->tensors[i].line, "tensor");
	for (size_t i = 0; i < tl->nedges; i++) {
		cg_edge *e = &tl->edges[i];
		e->from_span = resolve_ref(tl, span_of, nstrings, e->from_span, e->line, "edge");
		e->to_span = resolve_ref(tl, span_of, nstrings, e->to_span, e->line, "edge");
	}
	cg_free(span_of);
}
