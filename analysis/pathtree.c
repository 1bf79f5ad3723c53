#include "pathtree.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* Nodes while building, before they are put in pre-order. */
typedef struct builder {
	const cg_timeline *tl;
	cg_pathnode *nodes;
	size_t nnodes, cap;
	uint32_t *slots; /* open addressing: (parent, name) -> node; CG_NONE empty */
	size_t nslots;
	uint32_t *node_of_span;
} builder;

static uint64_t slot_hash(uint32_t parent, cg_str name)
{
	uint64_t h = ((uint64_t)parent << 32 | name) * 0x9E3779B97F4A7C15ull;
	return h ^ (h >> 29);
}

static uint32_t new_node(builder *b, cg_pathnode n)
{
	CG_GROW(b->nodes, b->cap, b->nnodes + 1);
	b->nodes[b->nnodes] = n;
	return (uint32_t)b->nnodes++;
}

static void rehash(builder *b, size_t nslots)
{
	cg_free(b->slots);
	b->nslots = nslots;
	b->slots = cg_malloc(nslots * sizeof *b->slots);
	memset(b->slots, 0xff, nslots * sizeof *b->slots);
	for (size_t i = 1; i < b->nnodes; i++) {
		const cg_pathnode *n = &b->nodes[i];
		if (n->kind != CG_PATHNODE_SPAN)
			continue;
		size_t s = slot_hash(n->parent, n->name) & (nslots - 1);
		while (b->slots[s] != CG_NONE)
			s = (s + 1) & (nslots - 1);
		b->slots[s] = (uint32_t)i;
	}
}

/* The child of parent named after span s, created when missing; merges the
 * span's start time and phase into it. */
static uint32_t child_for_span(builder *b, uint32_t parent, uint32_t s)
{
	const cg_span *sp = &b->tl->spans[s];
	if (b->nnodes * 2 >= b->nslots)
		rehash(b, b->nslots * 2);
	size_t slot = slot_hash(parent, sp->name) & (b->nslots - 1);
	uint32_t n;
	while ((n = b->slots[slot]) != CG_NONE) {
		if (b->nodes[n].parent == parent && b->nodes[n].name == sp->name)
			break;
		slot = (slot + 1) & (b->nslots - 1);
	}
	if (n == CG_NONE) {
		n = new_node(b, (cg_pathnode){.name = sp->name, .kind = CG_PATHNODE_SPAN, .phase = sp->phase,
					      .parent = parent, .first_ns = sp->start_ns});
		b->slots[slot] = n;
		return n;
	}
	cg_pathnode *node = &b->nodes[n];
	if (sp->start_ns < node->first_ns)
		node->first_ns = sp->start_ns;
	if (node->phase != sp->phase)
		node->phase = CG_PATHTREE_MIXED;
	return n;
}

/* The node of span s: resolves the chain of unresolved ancestors from the
 * top down, each span once. */
static uint32_t node_of(builder *b, uint32_t s, uint32_t *chain)
{
	size_t len = 0;
	uint32_t x = s;
	while (x != CG_NONE && b->node_of_span[x] == CG_NONE && len < b->tl->nspans) {
		chain[len++] = x;
		x = b->tl->spans[x].parent;
	}
	uint32_t parent = x == CG_NONE || b->node_of_span[x] == CG_NONE ? 0 : b->node_of_span[x];
	while (len > 0) {
		uint32_t y = chain[--len];
		parent = child_for_span(b, parent, y);
		b->node_of_span[y] = parent;
	}
	return b->node_of_span[s];
}

/* A child in the sort that groups children by parent: special nodes first
 * (they come from before the trace), then time of first appearance, then
 * creation order. */
typedef struct kid {
	uint64_t first_ns;
	uint32_t parent;
	uint32_t node;
	bool special;
} kid;

static int cmp_kid(const void *pa, const void *pb)
{
	const kid *x = pa, *y = pb;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->special != y->special)
		return x->special ? -1 : 1;
	if (x->first_ns != y->first_ns)
		return x->first_ns < y->first_ns ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* Lays the nodes out in pre-order with sorted children, then sums totals
 * from the leaves up. Iterative: span chains can be deep. */
static cg_pathtree *flatten(builder *b)
{
	size_t n = b->nnodes;
	uint32_t *first = cg_calloc(n + 1, sizeof *first); /* children of i: kids[first[i] .. first[i+1]) */
	kid *kids = cg_malloc(n * sizeof *kids);
	for (size_t i = 1; i < n; i++) {
		const cg_pathnode *x = &b->nodes[i];
		kids[i - 1] = (kid){x->first_ns, x->parent, (uint32_t)i, x->kind != CG_PATHNODE_SPAN};
		first[x->parent + 1]++;
	}
	for (size_t i = 0; i < n; i++)
		first[i + 1] += first[i];
	if (n > 2)
		qsort(kids, n - 1, sizeof *kids, cmp_kid);

	cg_pathtree *t = cg_calloc(1, sizeof *t);
	t->nnodes = (uint32_t)n;
	t->nodes = cg_malloc(n * sizeof *t->nodes);
	uint32_t *stack = cg_malloc(n * sizeof *stack);
	uint32_t *pos = cg_malloc(n * sizeof *pos); /* old index -> pre-order index */
	size_t top = 0, out = 0;
	stack[top++] = 0;
	while (top > 0) {
		uint32_t i = stack[--top];
		cg_pathnode node = b->nodes[i];
		pos[i] = (uint32_t)out;
		node.nchildren = first[i + 1] - first[i];
		if (i == 0) {
			node.parent = CG_NONE;
			node.depth = 0;
		} else {
			node.parent = pos[node.parent];
			node.depth = t->nodes[node.parent].depth + 1;
		}
		node.total_bytes = node.own_bytes;
		node.total_count = node.own_count;
		t->nodes[out++] = node;
		for (uint32_t k = first[i + 1]; k > first[i]; k--)
			stack[top++] = kids[k - 1].node;
	}
	for (size_t i = n; i-- > 1;) {
		cg_pathnode *p = &t->nodes[t->nodes[i].parent];
		p->total_bytes += t->nodes[i].total_bytes;
		p->total_count += t->nodes[i].total_count;
	}
	/* Subtree ends: a node's subtree ends where its next sibling or an
	 * ancestor's next sibling begins. */
	for (size_t i = 0; i < n; i++)
		t->nodes[i].subtree_end = (uint32_t)n;
	for (size_t i = 1; i < n; i++) {
		/* node i starts right after the subtree of every node on the path
		 * from i - 1 up to (not including) i's parent */
		for (uint32_t j = (uint32_t)i - 1; j != t->nodes[i].parent; j = t->nodes[j].parent)
			t->nodes[j].subtree_end = (uint32_t)i;
	}
	cg_free(pos);
	cg_free(first);
	cg_free(kids);
	cg_free(stack);
	return t;
}

int cg_pathtree_build(cg_pathtree **out, const cg_timeline *tl, const cg_pathtree_input *in, cg_error *err)
{
	(void)err;
	builder b = {.tl = tl};
	b.node_of_span = cg_malloc((tl->nspans ? tl->nspans : 1) * sizeof *b.node_of_span);
	memset(b.node_of_span, 0xff, (tl->nspans ? tl->nspans : 1) * sizeof *b.node_of_span);
	uint32_t *chain = cg_malloc((tl->nspans ? tl->nspans : 1) * sizeof *chain);
	rehash(&b, 64);
	new_node(&b, (cg_pathnode){.kind = CG_PATHNODE_ROOT, .phase = CG_PHASE_NONE, .parent = CG_NONE});
	if (in->baseline_bytes)
		new_node(&b, (cg_pathnode){.kind = CG_PATHNODE_BEFORE_PROFILING, .phase = CG_PHASE_NONE,
					   .own_bytes = in->baseline_bytes});
	if (in->before_trace_count || in->before_trace_bytes)
		new_node(&b, (cg_pathnode){.kind = CG_PATHNODE_BEFORE_TRACE, .phase = CG_PHASE_NONE,
					   .own_bytes = in->before_trace_bytes, .own_count = in->before_trace_count});
	for (size_t k = 0; k < in->nallocs; k++) {
		const cg_mem *m = &tl->mem[in->allocs[k]];
		uint32_t node = m->span == CG_NONE || m->span >= tl->nspans ? 0 : node_of(&b, m->span, chain);
		b.nodes[node].own_bytes += m->bytes;
		b.nodes[node].own_count++;
	}
	*out = flatten(&b);
	cg_free(chain);
	cg_free(b.node_of_span);
	cg_free(b.slots);
	cg_free(b.nodes);
	return 0;
}

void cg_pathtree_free(cg_pathtree *t)
{
	if (!t)
		return;
	cg_free(t->nodes);
	cg_free(t);
}
