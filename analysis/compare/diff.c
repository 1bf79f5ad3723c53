#include "diff.h"

#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "xalloc.h"

/* Paths are cut at CG_SPAN_PATH_MAX, as leak-group paths are. */
/* A trie key kind beside cg_pathnode_kind: (parent, a step span's own
 * name) -> the node of its label, so tree nodes named "train_step#1" find
 * the path "train_step#*". */
#define KIND_ALIAS 8

bool cg_diff_percent(cg_diff_pair p, double *out)
{
	if (p.v[0] == 0)
		return false;
	bool grew;
	uint64_t m = cg_diff_magnitude(p, &grew);
	double pct = (double)m / (double)p.v[0] * 100.0;
	*out = m == 0 ? 0.0 : grew ? pct : -pct; /* no "-0" */
	return true;
}

static void add_sat(uint64_t *acc, uint64_t v)
{
	if (!cg_add_u64(*acc, v, acc))
		*acc = UINT64_MAX;
}

/* ---- the path trie ------------------------------------------------------ */

typedef struct slot {
	uint32_t parent;
	cg_str name;
	uint8_t kind;
	uint32_t value; /* CG_NONE: empty */
} slot;

typedef struct trie {
	cg_diff_result *r;
	size_t cap;
	slot *slots;
	size_t nslots, nused;
} trie;

static uint64_t slot_hash(uint32_t parent, uint8_t kind, cg_str name)
{
	uint64_t h = ((uint64_t)parent << 32 | name) * 0x9E3779B97F4A7C15ull;
	h ^= (uint64_t)kind * 0xC2B2AE3D27D4EB4Full;
	return h ^ (h >> 29);
}

static void rehash(trie *t, size_t nslots)
{
	slot *old = t->slots;
	size_t nold = t->nslots;
	t->slots = cg_malloc(nslots * sizeof *t->slots);
	for (size_t i = 0; i < nslots; i++)
		t->slots[i].value = CG_NONE;
	t->nslots = nslots;
	for (size_t i = 0; i < nold; i++) {
		if (old[i].value == CG_NONE)
			continue;
		size_t s = slot_hash(old[i].parent, old[i].kind, old[i].name) & (nslots - 1);
		while (t->slots[s].value != CG_NONE)
			s = (s + 1) & (nslots - 1);
		t->slots[s] = old[i];
	}
	cg_free(old);
}

static slot *find_slot(trie *t, uint32_t parent, uint8_t kind, cg_str name)
{
	if ((t->nused + 1) * 2 >= t->nslots)
		rehash(t, t->nslots * 2);
	size_t s = slot_hash(parent, kind, name) & (t->nslots - 1);
	while (t->slots[s].value != CG_NONE) {
		slot *x = &t->slots[s];
		if (x->parent == parent && x->kind == kind && x->name == name)
			return x;
		s = (s + 1) & (t->nslots - 1);
	}
	t->slots[s] = (slot){parent, name, kind, CG_NONE};
	return &t->slots[s];
}

static uint32_t new_path(trie *t, uint32_t parent, uint8_t kind, cg_str name)
{
	cg_diff_result *r = t->r;
	size_t c = t->cap;
	CG_GROW(r->path_parent, c, r->npaths + 1);
	c = t->cap;
	CG_GROW(r->path_kind, c, r->npaths + 1);
	CG_GROW(r->path_name, t->cap, r->npaths + 1);
	r->path_parent[r->npaths] = parent;
	r->path_kind[r->npaths] = kind;
	r->path_name[r->npaths] = name;
	return r->npaths++;
}

/* The child of parent of that kind and name, created when missing. */
static uint32_t child(trie *t, uint32_t parent, uint8_t kind, cg_str name)
{
	slot *s = find_slot(t, parent, kind, name);
	if (s->value == CG_NONE) {
		s->value = new_path(t, parent, kind, name);
		t->nused++;
	}
	return s->value;
}

static void alias(trie *t, uint32_t parent, cg_str own_name, uint32_t path)
{
	slot *s = find_slot(t, parent, KIND_ALIAS, own_name);
	if (s->value == CG_NONE) {
		s->value = path;
		t->nused++;
	}
}

static cg_str intern(cg_diff_result *r, const char *s, size_t n)
{
	cg_str id = CG_STR_EMPTY;
	/* The table has no limit: this cannot fail. */
	(void)cg_strtab_intern(r->names, s, n, &id);
	return id;
}

static cg_str intern_str(cg_diff_result *r, const cg_timeline *tl, cg_str s)
{
	return intern(r, cg_timeline_str(tl, s), cg_strtab_len(tl->strings, s));
}

/* Is span s one of the run's steps (as the leaks pass decides)? */
static bool is_step(const cg_steps_result *st, uint32_t s)
{
	if (!st->nsteps || s >= st->nspans)
		return false;
	uint32_t k = st->step_of_span[s];
	return k != CG_NONE && k < st->nsteps && st->steps[k].span == s;
}

/* The path of every span of a run, steps by their label; spans at depth
 * CG_PATHTREE_MAX_DEPTH or deeper take their ancestor's path, as the
 * span-path trees count them. Each span is resolved once. */
static uint32_t *span_paths(trie *t, const cg_analysis *a)
{
	const cg_timeline *tl = a->tl;
	size_t n = tl->nspans ? tl->nspans : 1;
	uint32_t *path = cg_malloc(n * sizeof *path);
	memset(path, 0xff, n * sizeof *path);
	uint32_t *chain = cg_malloc(n * sizeof *chain);
	cg_str label = CG_STR_EMPTY;
	if (a->steps->label)
		label = intern(t->r, a->steps->label, strlen(a->steps->label));
	for (size_t s = 0; s < tl->nspans; s++) {
		size_t len = 0;
		uint32_t x = (uint32_t)s;
		while (x != CG_NONE && path[x] == CG_NONE && len < tl->nspans) {
			chain[len++] = x;
			x = tl->spans[x].parent;
		}
		uint32_t parent = x == CG_NONE || path[x] == CG_NONE ? 0 : path[x];
		while (len > 0) {
			uint32_t y = chain[--len];
			if (tl->spans[y].depth < CG_PATHTREE_MAX_DEPTH) {
				cg_str own = intern_str(t->r, tl, tl->spans[y].name);
				if (is_step(a->steps, y) && a->steps->label) {
					uint32_t p = child(t, parent, CG_PATHNODE_SPAN, label);
					alias(t, parent, own, p);
					parent = p;
				} else {
					parent = child(t, parent, CG_PATHNODE_SPAN, own);
				}
			}
			path[y] = parent;
		}
	}
	cg_free(chain);
	return path;
}

/* The path of a tree node named name under path parent. */
static uint32_t tree_child(trie *t, uint32_t parent, cg_str name)
{
	slot *s = find_slot(t, parent, KIND_ALIAS, name);
	if (s->value != CG_NONE)
		return s->value;
	/* find_slot claimed an empty slot for the alias: give it back by
	 * pointing it at the plain child, which is what the alias would be */
	uint32_t p = child(t, parent, CG_PATHNODE_SPAN, name);
	s = find_slot(t, parent, KIND_ALIAS, name);
	s->value = p;
	t->nused++;
	return p;
}

char *cg_diff_path(const cg_diff_result *r, uint32_t p, char *buf, size_t size)
{
	uint32_t chain[CG_PATHTREE_MAX_DEPTH + 2];
	size_t n = 0;
	for (uint32_t x = p; x != CG_NONE && x != 0 && n < sizeof chain / sizeof chain[0]; x = r->path_parent[x])
		chain[n++] = x;
	size_t cap = size < CG_SPAN_PATH_MAX ? size : CG_SPAN_PATH_MAX;
	size_t len = 0;
	if (cap == 0)
		return buf;
	while (n > 0) {
		uint32_t x = chain[--n];
		const char *name = r->path_kind[x] == CG_PATHNODE_BEFORE_TRACE	   ? "(before the trace)"
				   : r->path_kind[x] == CG_PATHNODE_BEFORE_PROFILING ? "(before profiling)"
										     : cg_strtab_get(r->names, r->path_name[x]);
		size_t k = strlen(name);
		bool cut = len + k + (n ? 1 : 0) >= cap;
		if (len + k >= cap) {
			k = cap - 1 - len;
			while (k > 0 && ((unsigned char)name[k] & 0xc0) == 0x80)
				k--; /* end between characters */
		}
		memcpy(buf + len, name, k);
		len += k;
		if (cut)
			break;
		if (n)
			buf[len++] = '/';
	}
	buf[len] = '\0';
	return buf;
}

/* ---- one device: the merged tree ------------------------------------------ */

typedef struct local {
	uint32_t *stamp, *slot; /* per path: stamp == mark when the device has a node for it */
	size_t nstamp;
	uint32_t mark;
	cg_diff_node *nodes;
	size_t n, cap;
	uint32_t *chain;
} local;

static void ensure_stamps(local *l, size_t npaths)
{
	if (npaths <= l->nstamp)
		return;
	size_t want = npaths * 2;
	l->stamp = cg_reallocarray(l->stamp, want, sizeof *l->stamp);
	l->slot = cg_reallocarray(l->slot, want, sizeof *l->slot);
	l->chain = cg_reallocarray(l->chain, want, sizeof *l->chain);
	memset(l->stamp + l->nstamp, 0, (want - l->nstamp) * sizeof *l->stamp);
	l->nstamp = want;
}

/* The device's node for path p, created with its missing ancestors. */
static uint32_t local_node(local *l, const cg_diff_result *r, uint32_t p)
{
	size_t len = 0;
	uint32_t x = p;
	for (; x != CG_NONE && l->stamp[x] != l->mark; x = r->path_parent[x])
		l->chain[len++] = x;
	uint32_t parent = x == CG_NONE ? CG_NONE : l->slot[x];
	while (len > 0) {
		uint32_t y = l->chain[--len];
		CG_GROW(l->nodes, l->cap, l->n + 1);
		l->nodes[l->n] = (cg_diff_node){.path = y, .parent = parent, .kind = r->path_kind[y]};
		l->stamp[y] = l->mark;
		parent = l->slot[y] = (uint32_t)l->n++;
	}
	return parent;
}

static void merge_tree(trie *t, local *l, const cg_timeline *tl, const cg_pathtree *tree, int side)
{
	if (!tree->nnodes)
		return;
	uint32_t *pid = cg_malloc(tree->nnodes * sizeof *pid);
	for (uint32_t i = 0; i < tree->nnodes; i++) {
		const cg_pathnode *node = &tree->nodes[i];
		uint32_t p = 0;
		if (node->kind == CG_PATHNODE_SPAN && node->parent != CG_NONE)
			p = tree_child(t, pid[node->parent], intern_str(t->r, tl, node->name));
		else if (node->kind != CG_PATHNODE_ROOT)
			p = child(t, 0, node->kind, CG_STR_EMPTY);
		pid[i] = p;
		ensure_stamps(l, t->r->npaths);
		uint32_t k = local_node(l, t->r, p); /* may move l->nodes */
		cg_diff_node *d = &l->nodes[k];
		d->sides |= (uint8_t)(1u << side);
		add_sat(&d->own.v[side], node->own_bytes);
		add_sat(&d->total.v[side], node->total_bytes);
		add_sat(&d->own_count.v[side], node->own_count);
		add_sat(&d->total_count.v[side], node->total_count);
	}
	cg_free(pid);
}

/* Lays the device's nodes out in pre-order, children in the order they
 * were first seen (the base run's order, then nodes only in the new run). */
static void preorder(local *l, cg_diff_device *dev)
{
	size_t n = l->n;
	uint32_t *first = cg_calloc(n + 1, sizeof *first);
	uint32_t *kids = cg_malloc((n ? n : 1) * sizeof *kids);
	for (size_t i = 1; i < n; i++)
		first[l->nodes[i].parent + 1]++;
	for (size_t i = 0; i < n; i++)
		first[i + 1] += first[i];
	uint32_t *fill = cg_malloc((n ? n : 1) * sizeof *fill);
	memcpy(fill, first, (n ? n : 1) * sizeof *fill);
	for (size_t i = 1; i < n; i++) /* parents come before their children */
		kids[fill[l->nodes[i].parent]++] = (uint32_t)i;
	dev->nodes = cg_malloc((n ? n : 1) * sizeof *dev->nodes);
	dev->nnodes = (uint32_t)n;
	uint32_t *pos = cg_malloc((n ? n : 1) * sizeof *pos), *stack = fill;
	size_t top = 0, out = 0;
	if (n)
		stack[top++] = 0;
	while (top > 0) {
		uint32_t i = stack[--top];
		cg_diff_node node = l->nodes[i];
		pos[i] = (uint32_t)out;
		if (i != 0) {
			node.parent = pos[node.parent];
			node.depth = dev->nodes[node.parent].depth + 1;
		}
		dev->nodes[out++] = node;
		for (uint32_t k = first[i + 1]; k > first[i]; k--)
			stack[top++] = kids[k - 1];
	}
	cg_free(pos);
	cg_free(first);
	cg_free(kids);
	cg_free(fill);
}

static const cg_diff_node *sort_nodes; /* qsort has no context argument */

static int cmp_changed(const void *pa, const void *pb)
{
	const cg_diff_node *x = &sort_nodes[*(const uint32_t *)pa], *y = &sort_nodes[*(const uint32_t *)pb];
	uint64_t ox = cg_diff_magnitude(x->own, NULL), oy = cg_diff_magnitude(y->own, NULL);
	if (ox != oy)
		return ox > oy ? -1 : 1;
	uint64_t tx = cg_diff_magnitude(x->total, NULL), ty = cg_diff_magnitude(y->total, NULL);
	if (tx != ty)
		return tx > ty ? -1 : 1;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return a < b ? -1 : a > b;
}

static void list_changed(cg_diff_device *dev)
{
	dev->changed = cg_malloc((dev->nnodes ? dev->nnodes : 1) * sizeof *dev->changed);
	for (uint32_t i = 0; i < dev->nnodes; i++) {
		const cg_diff_node *x = &dev->nodes[i];
		bool own = cg_diff_changed(x->own);
		if (own || (i != 0 && cg_diff_changed(x->total)))
			dev->changed[dev->nchanged++] = i;
	}
	sort_nodes = dev->nodes;
	if (dev->nchanged > 1)
		qsort(dev->changed, dev->nchanged, sizeof *dev->changed, cmp_changed);
	sort_nodes = NULL;
}

/* ---- one device: allocations at one peak only ------------------------------ */

typedef struct akey {
	uint32_t path;
	cg_str op, shape;
	uint64_t size;
} akey;

typedef struct aentry {
	akey key;
	uint64_t count[2];
	uint32_t example[2];
	uint32_t slot; /* where it sits in the table, so clearing costs the entries, not the table */
} aentry;

typedef struct amap {
	aentry *entries;
	size_t n, cap;
	uint32_t *slots; /* entry index or CG_NONE */
	size_t nslots;
} amap;

static uint64_t akey_hash(const akey *k)
{
	uint64_t h = ((uint64_t)k->path << 32 | k->op) * 0x9E3779B97F4A7C15ull;
	h ^= ((uint64_t)k->shape << 7) * 0xC2B2AE3D27D4EB4Full;
	h ^= k->size * 0x165667B19E3779F9ull;
	return h ^ (h >> 31);
}

static bool akey_eq(const akey *a, const akey *b)
{
	return a->path == b->path && a->op == b->op && a->shape == b->shape && a->size == b->size;
}

static aentry *amap_get(amap *m, const akey *k)
{
	if ((m->n + 1) * 2 >= m->nslots) {
		cg_free(m->slots);
		m->nslots = m->nslots ? m->nslots * 2 : 64;
		m->slots = cg_malloc(m->nslots * sizeof *m->slots);
		memset(m->slots, 0xff, m->nslots * sizeof *m->slots);
		for (size_t i = 0; i < m->n; i++) {
			size_t s = akey_hash(&m->entries[i].key) & (m->nslots - 1);
			while (m->slots[s] != CG_NONE)
				s = (s + 1) & (m->nslots - 1);
			m->slots[s] = (uint32_t)i;
			m->entries[i].slot = (uint32_t)s;
		}
	}
	size_t s = akey_hash(k) & (m->nslots - 1);
	while (m->slots[s] != CG_NONE) {
		if (akey_eq(&m->entries[m->slots[s]].key, k))
			return &m->entries[m->slots[s]];
		s = (s + 1) & (m->nslots - 1);
	}
	CG_GROW(m->entries, m->cap, m->n + 1);
	m->entries[m->n] = (aentry){*k, {0, 0}, {CG_NONE, CG_NONE}, (uint32_t)s};
	m->slots[s] = (uint32_t)m->n;
	return &m->entries[m->n++];
}

/* Empties the table for the next device in time proportional to its
 * entries: one device with a million live allocations must not make every
 * other device clear a table of millions of slots. */
static void amap_clear(amap *m)
{
	for (size_t i = 0; i < m->n; i++)
		m->slots[m->entries[i].slot] = CG_NONE;
	m->n = 0;
}

static void count_allocs(trie *t, amap *m, const cg_analysis *a, const uint32_t *span_path, uint32_t d, int side)
{
	const cg_timeline *tl = a->tl;
	const cg_liveset_device *ls = &a->at_peak->devices[d];
	for (size_t i = 0; i < ls->nallocs; i++) {
		const cg_live_alloc *la = &ls->allocs[i];
		uint32_t rec = la->alloc != CG_NONE ? la->alloc : la->end;
		if (rec == CG_NONE)
			continue;
		const cg_mem *mem = &tl->mem[rec];
		akey k;
		if (la->alloc == CG_NONE)
			k.path = child(t, 0, CG_PATHNODE_BEFORE_TRACE, CG_STR_EMPTY);
		else
			k.path = mem->span == CG_NONE || mem->span >= tl->nspans ? 0 : span_path[mem->span];
		uint32_t shape = cg_timeline_mem_shape(tl, mem);
		k.op = intern_str(t->r, tl, cg_timeline_mem_op(tl, mem));
		k.shape = intern(t->r, cg_strtab_get(tl->shapes, shape), cg_strtab_len(tl->shapes, shape));
		k.size = la->bytes;
		aentry *e = amap_get(m, &k);
		if (e->count[side]++ == 0)
			e->example[side] = rec;
	}
}

static int cmp_group(const void *pa, const void *pb)
{
	const cg_diff_alloc_group *x = pa, *y = pb;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->side != y->side)
		return x->side < y->side ? -1 : 1;
	if (x->path != y->path)
		return x->path < y->path ? -1 : 1;
	return x->example < y->example ? -1 : x->example > y->example;
}

static void list_groups(amap *m, cg_diff_device *dev)
{
	size_t cap = 0;
	for (size_t i = 0; i < m->n; i++) {
		const aentry *e = &m->entries[i];
		if (e->count[0] == e->count[1])
			continue;
		int side = e->count[1] > e->count[0] ? CG_DIFF_NEW : CG_DIFF_BASE;
		cg_diff_alloc_group g = {(uint8_t)side, e->key.path, e->example[side], e->key.size, 0, 0,
					 {{e->count[0], e->count[1]}}};
		g.count = e->count[side] - e->count[1 - side];
		if (!cg_mul_u64(g.count, g.size, &g.bytes))
			g.bytes = UINT64_MAX;
		add_sat(&dev->only_count.v[side], g.count);
		add_sat(&dev->only_bytes.v[side], g.bytes);
		CG_GROW(dev->groups, cap, dev->ngroups + 1);
		dev->groups[dev->ngroups++] = g;
	}
	if (dev->ngroups > 1)
		qsort(dev->groups, dev->ngroups, sizeof *dev->groups, cmp_group);
}

/* ---- devices ------------------------------------------------------------------ */

static void device_figures(cg_diff_device *dev, const cg_analysis *const a[2])
{
	for (int s = 0; s < 2; s++) {
		uint32_t d = dev->index[s];
		if (d == CG_NONE)
			continue;
		const cg_liveset_device *pk = &a[s]->at_peak->devices[d];
		dev->peak.v[s] = a[s]->peak->devices[d].peak_bytes;
		dev->peak_t_ns.v[s] = a[s]->peak->devices[d].peak_t_ns;
		dev->live_at_end.v[s] = a[s]->at_end->devices[d].bytes;
		dev->leaked_at_end.v[s] = cg_leaks_candidate_bytes(a[s]->at_end->devices[d].by_category);
		for (int c = 0; c < CG_CAT_COUNT; c++)
			dev->by_category[c].v[s] = pk->by_category[c];
		for (int p = 0; p < CG_PHASE_COUNT; p++)
			dev->by_phase[p].v[s] = pk->by_phase[p];
	}
	dev->listed = dev->index[0] != CG_NONE && dev->index[1] != CG_NONE &&
		      a[0]->at_peak->devices[dev->index[0]].listed && a[1]->at_peak->devices[dev->index[1]].listed;
	if (!dev->listed)
		memset(dev->by_phase, 0, sizeof dev->by_phase);
}

static void match_devices(cg_diff_result *r, const cg_analysis *const a[2])
{
	const cg_timeline *b = a[0]->tl, *n = a[1]->tl;
	size_t most = (size_t)b->ndevices + n->ndevices;
	r->devices = cg_calloc(most ? most : 1, sizeof *r->devices);
	cg_str *base_ids = cg_malloc((b->ndevices ? b->ndevices : 1) * sizeof *base_ids);
	for (uint32_t d = 0; d < b->ndevices; d++) {
		base_ids[d] = intern_str(r, b, b->devices[d].name);
		r->devices[r->ndevices++] = (cg_diff_device){.index = {d, CG_NONE}};
	}
	uint32_t nids = cg_strtab_count(r->names);
	uint32_t *base_of = cg_malloc((nids ? nids : 1) * sizeof *base_of);
	memset(base_of, 0xff, (nids ? nids : 1) * sizeof *base_of);
	for (uint32_t d = 0; d < b->ndevices; d++)
		base_of[base_ids[d]] = d;
	for (uint32_t d = 0; d < n->ndevices; d++) {
		cg_str id = intern_str(r, n, n->devices[d].name);
		if (id < nids && base_of[id] != CG_NONE)
			r->devices[base_of[id]].index[1] = d;
		else
			r->devices[r->ndevices++] = (cg_diff_device){.index = {CG_NONE, d}};
	}
	cg_free(base_of);
	cg_free(base_ids);
}

int cg_diff_run(cg_diff_result **out, const cg_analysis *base, const cg_analysis *new_a, cg_error *err)
{
	(void)err;
	const cg_analysis *a[2] = {base, new_a};
	cg_diff_result *r = cg_calloc(1, sizeof *r);
	r->names = cg_strtab_new(0);
	match_devices(r, a);

	trie t = {.r = r};
	rehash(&t, 64);
	new_path(&t, CG_NONE, CG_PATHNODE_ROOT, CG_STR_EMPTY);
	uint32_t *span_path[2] = {span_paths(&t, base), span_paths(&t, new_a)};
	local l = {0};
	amap m = {0};
	for (size_t i = 0; i < r->ndevices; i++) {
		cg_diff_device *dev = &r->devices[i];
		device_figures(dev, a);
		if (!dev->listed)
			continue;
		l.n = 0;
		l.mark++;
		ensure_stamps(&l, r->npaths);
		local_node(&l, r, 0);
		amap_clear(&m);
		for (int s = 0; s < 2; s++) {
			uint32_t d = dev->index[s];
			merge_tree(&t, &l, a[s]->tl, &a[s]->peak_trees->trees[d], s);
			count_allocs(&t, &m, a[s], span_path[s], d, s);
		}
		preorder(&l, dev);
		list_changed(dev);
		list_groups(&m, dev);
	}
	/* Strings are stable once nothing more is interned. */
	for (size_t i = 0; i < r->ndevices; i++) {
		int s = r->devices[i].index[0] != CG_NONE ? 0 : 1;
		const cg_timeline *tl = a[s]->tl;
		cg_str own = tl->devices[r->devices[i].index[s]].name, id = CG_STR_EMPTY;
		cg_strtab_find(r->names, cg_timeline_str(tl, own), cg_strtab_len(tl->strings, own), &id);
		r->devices[i].name = cg_strtab_get(r->names, id);
	}
	cg_free(l.stamp);
	cg_free(l.slot);
	cg_free(l.chain);
	cg_free(l.nodes);
	cg_free(m.entries);
	cg_free(m.slots);
	cg_free(t.slots);
	cg_free(span_path[0]);
	cg_free(span_path[1]);
	*out = r;
	return 0;
}

void cg_diff_free(cg_diff_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->ndevices; i++) {
		cg_free(r->devices[i].nodes);
		cg_free(r->devices[i].changed);
		cg_free(r->devices[i].groups);
	}
	cg_free(r->devices);
	cg_strtab_free(r->names);
	cg_free(r->path_parent);
	cg_free(r->path_kind);
	cg_free(r->path_name);
	cg_free(r);
}
