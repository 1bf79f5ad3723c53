#include "pathtree.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* The path trie of the whole span forest: one node per distinct span path
 * (spans of one name under one parent path share it), built once for all
 * devices; each device's tree is the part its allocations touch. */
typedef struct trie {
	const cg_timeline *tl;
	cg_pathnode *nodes; /* kind, name, phase, parent (a trie index), first_ns */
	size_t nnodes, cap;
	uint32_t *slots; /* open addressing: (parent, name) -> node; CG_NONE empty */
	size_t nslots;
	uint32_t *node_of_span;
} trie;

static uint64_t slot_hash(uint32_t parent, cg_str name)
{
	uint64_t h = ((uint64_t)parent << 32 | name) * 0x9E3779B97F4A7C15ull;
	return h ^ (h >> 29);
}

static uint32_t new_node(cg_pathnode **nodes, size_t *n, size_t *cap, cg_pathnode node)
{
	CG_GROW(*nodes, *cap, *n + 1);
	(*nodes)[*n] = node;
	return (uint32_t)(*n)++;
}

static void rehash(trie *b, size_t nslots)
{
	cg_free(b->slots);
	b->nslots = nslots;
	b->slots = cg_malloc(nslots * sizeof *b->slots);
	memset(b->slots, 0xff, nslots * sizeof *b->slots);
	for (size_t i = 1; i < b->nnodes; i++) {
		const cg_pathnode *n = &b->nodes[i];
		size_t s = slot_hash(n->parent, n->name) & (nslots - 1);
		while (b->slots[s] != CG_NONE)
			s = (s + 1) & (nslots - 1);
		b->slots[s] = (uint32_t)i;
	}
}

/* The child of parent named after span s, created when missing; merges the
 * span's start time and phase into it. */
static uint32_t child_for_span(trie *b, uint32_t parent, uint32_t s)
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
		n = new_node(&b->nodes, &b->nnodes, &b->cap,
			     (cg_pathnode){.name = sp->name, .kind = CG_PATHNODE_SPAN, .phase = sp->phase,
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

/* Maps every span to its trie node, resolving each chain of unresolved
 * ancestors from the top down, so each span is visited once. Spans at
 * depth CG_PATHTREE_MAX_DEPTH or deeper count as their ancestor there. */
static void build_trie(trie *b)
{
	const cg_timeline *tl = b->tl;
	size_t n = tl->nspans ? tl->nspans : 1;
	b->node_of_span = cg_malloc(n * sizeof *b->node_of_span);
	memset(b->node_of_span, 0xff, n * sizeof *b->node_of_span);
	uint32_t *chain = cg_malloc(n * sizeof *chain);
	rehash(b, 64);
	new_node(&b->nodes, &b->nnodes, &b->cap,
		 (cg_pathnode){.kind = CG_PATHNODE_ROOT, .phase = CG_PHASE_NONE, .parent = CG_NONE});
	for (size_t s = 0; s < tl->nspans; s++) {
		size_t len = 0;
		uint32_t x = (uint32_t)s;
		while (x != CG_NONE && b->node_of_span[x] == CG_NONE && len < tl->nspans) {
			chain[len++] = x;
			x = tl->spans[x].parent;
		}
		uint32_t parent = x == CG_NONE || b->node_of_span[x] == CG_NONE ? 0 : b->node_of_span[x];
		while (len > 0) {
			uint32_t y = chain[--len];
			if (tl->spans[y].depth < CG_PATHTREE_MAX_DEPTH)
				parent = child_for_span(b, parent, y);
			b->node_of_span[y] = parent;
		}
	}
	cg_free(chain);
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
static void flatten(const cg_pathnode *local, size_t n, cg_pathtree *t)
{
	uint32_t *first = cg_calloc(n + 1, sizeof *first); /* children of i: kids[first[i] .. first[i+1]) */
	kid *kids = cg_malloc(n * sizeof *kids);
	for (size_t i = 1; i < n; i++) {
		const cg_pathnode *x = &local[i];
		kids[i - 1] = (kid){x->first_ns, x->parent, (uint32_t)i, x->kind != CG_PATHNODE_SPAN};
		first[x->parent + 1]++;
	}
	for (size_t i = 0; i < n; i++)
		first[i + 1] += first[i];
	if (n > 2)
		qsort(kids, n - 1, sizeof *kids, cmp_kid);

	t->nnodes = (uint32_t)n;
	t->nodes = cg_malloc(n * sizeof *t->nodes);
	uint32_t *stack = cg_malloc(n * sizeof *stack);
	uint32_t *pos = cg_malloc(n * sizeof *pos); /* old index -> pre-order index */
	size_t top = 0, out = 0;
	stack[top++] = 0;
	while (top > 0) {
		uint32_t i = stack[--top];
		cg_pathnode node = local[i];
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
}

/* One device's tree: the trie nodes its allocations touch, their
 * ancestors, and the nodes for memory from before the trace. stamp and
 * slot_of (per trie node) are shared by all inputs: a node belongs to this
 * tree when its stamp is mark. */
typedef struct local {
	const trie *b;
	cg_pathnode *nodes;
	size_t n, cap;
	uint32_t *stamp, *slot_of, mark;
	uint32_t *chain;
} local;

static uint32_t local_node(local *l, uint32_t tn)
{
	size_t len = 0;
	for (; l->stamp[tn] != l->mark; tn = l->b->nodes[tn].parent)
		l->chain[len++] = tn; /* the root is always stamped: this ends */
	uint32_t parent = l->slot_of[tn];
	while (len > 0) {
		uint32_t x = l->chain[--len];
		cg_pathnode node = l->b->nodes[x];
		node.parent = parent;
		parent = new_node(&l->nodes, &l->n, &l->cap, node);
		l->stamp[x] = l->mark;
		l->slot_of[x] = parent;
	}
	return parent;
}

static void build_one(const trie *b, local *l, const cg_pathtree_input *in, cg_pathtree *t)
{
	const cg_timeline *tl = b->tl;
	l->n = 0;
	l->mark++;
	new_node(&l->nodes, &l->n, &l->cap, b->nodes[0]);
	l->stamp[0] = l->mark;
	l->slot_of[0] = 0;
	if (in->baseline_bytes)
		new_node(&l->nodes, &l->n, &l->cap,
			 (cg_pathnode){.kind = CG_PATHNODE_BEFORE_PROFILING, .phase = CG_PHASE_NONE, .parent = 0,
				       .own_bytes = in->baseline_bytes});
	if (in->before_trace_count || in->before_trace_bytes)
		new_node(&l->nodes, &l->n, &l->cap,
			 (cg_pathnode){.kind = CG_PATHNODE_BEFORE_TRACE, .phase = CG_PHASE_NONE, .parent = 0,
				       .own_bytes = in->before_trace_bytes, .own_count = in->before_trace_count});
	for (size_t k = 0; k < in->nallocs; k++) {
		const cg_mem *m = &tl->mem[in->allocs[k]];
		uint32_t tn = m->span == CG_NONE || m->span >= tl->nspans ? 0 : b->node_of_span[m->span];
		uint32_t x = local_node(l, tn);
		l->nodes[x].own_bytes += m->bytes;
		l->nodes[x].own_count++;
	}
	flatten(l->nodes, l->n, t);
}

int cg_pathtree_run(cg_pathtree_result **out, const cg_timeline *tl, const cg_pathtree_input *in, uint32_t n,
		    cg_error *err)
{
	(void)err;
	cg_pathtree_result *r = cg_calloc(1, sizeof *r);
	r->ntrees = n;
	r->trees = cg_calloc(n ? n : 1, sizeof *r->trees);
	trie b = {.tl = tl};
	build_trie(&b);
	local l = {.b = &b};
	l.stamp = cg_calloc(b.nnodes, sizeof *l.stamp);
	l.slot_of = cg_malloc(b.nnodes * sizeof *l.slot_of);
	l.chain = cg_malloc(b.nnodes * sizeof *l.chain);
	for (uint32_t i = 0; i < n; i++)
		if (in[i].build)
			build_one(&b, &l, &in[i], &r->trees[i]);
	cg_free(l.nodes);
	cg_free(l.stamp);
	cg_free(l.slot_of);
	cg_free(l.chain);
	cg_free(b.nodes);
	cg_free(b.slots);
	cg_free(b.node_of_span);
	*out = r;
	return 0;
}

void cg_pathtree_free(cg_pathtree_result *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; i < r->ntrees; i++)
		cg_free(r->trees[i].nodes);
	cg_free(r->trees);
	cg_free(r);
}
