#include "replay.h"

#include <string.h>

#include "checked.h"
#include "parallel.h"
#include "snapshot.h"
#include "xalloc.h"

enum { SMALL, LARGE, NPOOLS };

/* A block of a segment. Blocks of one segment form a list in address
 * order; free blocks also sit in their pool's free set (below), where best
 * fit finds the smallest block of at least the size asked, the lowest
 * address among equals, as PyTorch's std::set lower_bound does. */
typedef struct blk {
	uint64_t addr, size;
	uint32_t prev, next;  /* address neighbours in the segment, or CG_NONE */
	uint32_t left, right; /* treap children */
	uint32_t prio;
	uint8_t pool;
	bool allocated;
} blk;

/* The free blocks of a pool. Every size the allocator makes is a multiple
 * of 512 bytes, and a trace uses few distinct sizes: below 32 MiB each
 * size is a class of its own, a treap of its blocks by address, found
 * from a bitmap of the classes that hold any; larger sizes share one
 * treap by (size, addr). Best fit is then a bit search and the leftmost
 * node of a treap of a block or two, instead of a descent through every
 * free block. The class arrays grow to the largest class used. */
#define CLASS_BYTES CG_CUDA_MIN_BLOCK_SIZE
#define MAX_CLASS_WORDS 1024 /* 65,536 classes: sizes below 32 MiB */
#define SUMMARY_WORDS (MAX_CLASS_WORDS / 64)

typedef struct freeset {
	uint32_t *root;			 /* per class, of nwords * 64 */
	uint64_t *bits;			 /* class c holds a block */
	uint64_t summary[SUMMARY_WORDS]; /* bits[w] is not 0 */
	size_t nwords;
	uint32_t large; /* sizes of no class */
} freeset;

typedef struct model {
	bool expandable;
	uint64_t max_split; /* max_split_size as recorded by a snapshot; UINT64_MAX: no limit (the default) */
	blk *b;
	size_t nb, cap;
	uint32_t free_slots; /* reusable block slots, linked through next */
	freeset free[NPOOLS];
	uint32_t tail[NPOOLS]; /* expandable: the last block of each pool's segment */
	uint64_t mapped[NPOOLS];
	uint64_t next_addr;
	uint64_t reserved, allocated, segments;
	uint32_t rng;
	bool overflow;
} model;

bool cg_replay_round_size(uint64_t bytes, uint64_t *out)
{
	if (bytes < CG_CUDA_MIN_BLOCK_SIZE) {
		*out = CG_CUDA_MIN_BLOCK_SIZE;
		return true;
	}
	uint64_t up;
	if (!cg_add_u64(bytes, CG_CUDA_MIN_BLOCK_SIZE - 1, &up))
		return false;
	*out = up / CG_CUDA_MIN_BLOCK_SIZE * CG_CUDA_MIN_BLOCK_SIZE;
	return true;
}

static bool round_up(uint64_t v, uint64_t unit, uint64_t *out)
{
	uint64_t up;
	if (!cg_add_u64(v, unit - 1, &up))
		return false;
	*out = up / unit * unit;
	return true;
}

bool cg_replay_segment_size(uint64_t rounded, uint64_t *out)
{
	if (rounded <= CG_CUDA_SMALL_SIZE)
		*out = CG_CUDA_SMALL_BUFFER;
	else if (rounded < CG_CUDA_MIN_LARGE_ALLOC)
		*out = CG_CUDA_LARGE_BUFFER;
	else
		return round_up(rounded, CG_CUDA_ROUND_LARGE, out);
	return true;
}

/* ---- treap of free blocks ---- */

static bool key_less(const blk *x, const blk *y)
{
	return x->size != y->size ? x->size < y->size : x->addr < y->addr;
}

/* The treap operations walk down by links instead of recursing: the
 * replay runs them for every record. Max-heap on prio. */
static uint32_t merge(model *m, uint32_t l, uint32_t r)
{
	uint32_t root, *link = &root;
	while (l != CG_NONE && r != CG_NONE) {
		if (m->b[l].prio > m->b[r].prio) {
			*link = l;
			link = &m->b[l].right;
			l = m->b[l].right;
		} else {
			*link = r;
			link = &m->b[r].left;
			r = m->b[r].left;
		}
	}
	*link = l != CG_NONE ? l : r;
	return root;
}

/* Splits t into keys less than x's (*l) and the rest (*r). */
static void split(model *m, uint32_t t, const blk *x, uint32_t *l, uint32_t *r)
{
	while (t != CG_NONE) {
		if (key_less(&m->b[t], x)) {
			*l = t;
			l = &m->b[t].right;
			t = m->b[t].right;
		} else {
			*r = t;
			r = &m->b[t].left;
			t = m->b[t].left;
		}
	}
	*l = *r = CG_NONE;
}

static void tree_insert(model *m, uint32_t *link, uint32_t x)
{
	blk *b = &m->b[x];
	m->rng ^= m->rng << 13;
	m->rng ^= m->rng >> 17;
	m->rng ^= m->rng << 5;
	b->prio = m->rng;
	while (*link != CG_NONE && m->b[*link].prio > b->prio)
		link = key_less(b, &m->b[*link]) ? &m->b[*link].left : &m->b[*link].right;
	split(m, *link, b, &b->left, &b->right);
	*link = x;
}

static void tree_remove(model *m, uint32_t *link, uint32_t x)
{
	while (*link != x && *link != CG_NONE)
		link = key_less(&m->b[x], &m->b[*link]) ? &m->b[*link].left : &m->b[*link].right;
	if (*link == x)
		*link = merge(m, m->b[x].left, m->b[x].right);
}

/* The smallest block of the treap with at least size bytes (lowest
 * address among equals), or CG_NONE. */
static uint32_t tree_best_fit(const model *m, uint32_t t, uint64_t size)
{
	uint32_t found = CG_NONE;
	while (t != CG_NONE) {
		if (m->b[t].size >= size) {
			found = t;
			t = m->b[t].left;
		} else {
			t = m->b[t].right;
		}
	}
	return found;
}

static uint32_t tree_first(const model *m, uint32_t t)
{
	while (m->b[t].left != CG_NONE)
		t = m->b[t].left;
	return t;
}

static uint32_t tree_last(const model *m, uint32_t t)
{
	while (t != CG_NONE && m->b[t].right != CG_NONE)
		t = m->b[t].right;
	return t;
}

/* ---- free sets ---- */

static void freeset_free(freeset *f)
{
	cg_free(f->root);
	cg_free(f->bits);
}

/* The class of a size, or SIZE_MAX for the large treap. */
static size_t class_of(uint64_t size)
{
	return size % CLASS_BYTES == 0 && size / CLASS_BYTES < MAX_CLASS_WORDS * 64 ? (size_t)(size / CLASS_BYTES)
										   : SIZE_MAX;
}

/* The treap a block of size lives in, the class arrays grown to hold it. */
static uint32_t *home(freeset *f, uint64_t size, size_t *cls)
{
	size_t c = *cls = class_of(size);
	if (c == SIZE_MAX)
		return &f->large;
	if (c / 64 >= f->nwords) {
		size_t n = f->nwords ? f->nwords : 4;
		while (n <= c / 64)
			n *= 2;
		if (n > MAX_CLASS_WORDS)
			n = MAX_CLASS_WORDS;
		f->root = cg_realloc(f->root, n * 64 * sizeof *f->root);
		f->bits = cg_realloc(f->bits, n * sizeof *f->bits);
		memset(f->root + f->nwords * 64, 0xff, (n - f->nwords) * 64 * sizeof *f->root);
		memset(f->bits + f->nwords, 0, (n - f->nwords) * sizeof *f->bits);
		f->nwords = n;
	}
	return &f->root[c];
}

static void free_insert(model *m, uint32_t x)
{
	freeset *f = &m->free[m->b[x].pool];
	size_t c;
	uint32_t *root = home(f, m->b[x].size, &c);
	tree_insert(m, root, x);
	if (c != SIZE_MAX) {
		f->bits[c / 64] |= 1ull << (c % 64);
		f->summary[c / 4096] |= 1ull << (c / 64 % 64);
	}
}

static void free_remove(model *m, uint32_t x)
{
	freeset *f = &m->free[m->b[x].pool];
	size_t c;
	uint32_t *root = home(f, m->b[x].size, &c);
	tree_remove(m, root, x);
	if (c != SIZE_MAX && *root == CG_NONE && !(f->bits[c / 64] &= ~(1ull << (c % 64))))
		f->summary[c / 4096] &= ~(1ull << (c / 64 % 64));
}

/* The first class from c on that holds a block, or SIZE_MAX. */
static size_t next_class(const freeset *f, size_t c)
{
	size_t w = c / 64;
	if (w >= f->nwords)
		return SIZE_MAX;
	uint64_t word = f->bits[w] & (~0ull << (c % 64));
	if (word)
		return w * 64 + (size_t)__builtin_ctzll(word);
	if (++w == f->nwords)
		return SIZE_MAX;
	size_t sw = w / 64;
	uint64_t sum = f->summary[sw] & (~0ull << (w % 64));
	while (!sum) {
		if (++sw == SUMMARY_WORDS)
			return SIZE_MAX;
		sum = f->summary[sw];
	}
	w = sw * 64 + (size_t)__builtin_ctzll(sum);
	return w * 64 + (size_t)__builtin_ctzll(f->bits[w]);
}

/* The smallest free block of the pool with at least size bytes (lowest
 * address among equals), or CG_NONE. */
static uint32_t best_fit(const model *m, int pool, uint64_t size)
{
	const freeset *f = &m->free[pool];
	uint32_t best = CG_NONE;
	uint64_t want = size / CLASS_BYTES + (size % CLASS_BYTES != 0);
	size_t c = want < MAX_CLASS_WORDS * 64 ? next_class(f, (size_t)want) : SIZE_MAX;
	if (c != SIZE_MAX)
		best = tree_first(m, f->root[c]);
	uint32_t large = tree_best_fit(m, f->large, size);
	if (large != CG_NONE && (best == CG_NONE || key_less(&m->b[large], &m->b[best])))
		best = large;
	return best;
}

static uint64_t largest_free(const model *m)
{
	uint64_t best = 0;
	for (int p = 0; p < NPOOLS; p++) {
		const freeset *f = &m->free[p];
		uint32_t t = tree_last(m, f->large);
		if (t != CG_NONE && m->b[t].size > best)
			best = m->b[t].size;
		for (size_t sw = SUMMARY_WORDS; sw-- > 0;) {
			if (!f->summary[sw])
				continue;
			size_t w = sw * 64 + 63 - (size_t)__builtin_clzll(f->summary[sw]);
			uint64_t size = (uint64_t)(w * 64 + 63 - (size_t)__builtin_clzll(f->bits[w])) * CLASS_BYTES;
			if (size > best)
				best = size;
			break;
		}
	}
	return best;
}

/* ---- blocks and segments ---- */

static uint32_t new_block(model *m, uint64_t addr, uint64_t size, int pool)
{
	uint32_t x;
	if (m->free_slots != CG_NONE) {
		x = m->free_slots;
		m->free_slots = m->b[x].next;
	} else {
		CG_GROW(m->b, m->cap, m->nb + 1);
		x = (uint32_t)m->nb++;
	}
	m->b[x] = (blk){.addr = addr, .size = size, .prev = CG_NONE, .next = CG_NONE,
			.left = CG_NONE, .right = CG_NONE, .pool = (uint8_t)pool};
	return x;
}

static void drop_block(model *m, uint32_t x)
{
	m->b[x].next = m->free_slots;
	m->free_slots = x;
}

static void add_reserved(model *m, uint64_t bytes)
{
	if (!cg_add_u64(m->reserved, bytes, &m->reserved))
		m->overflow = true;
	m->segments++;
}

/* A block of at least size bytes that no free block could give: a new
 * segment, or the expandable segment grown at its end. */
static uint32_t map_more(model *m, int pool, uint64_t size)
{
	if (!m->expandable) {
		uint64_t seg;
		if (!cg_replay_segment_size(size, &seg) || !cg_add_u64(m->next_addr, seg, &m->next_addr)) {
			m->overflow = true;
			return CG_NONE;
		}
		add_reserved(m, seg);
		return new_block(m, m->next_addr - seg, seg, pool);
	}
	uint64_t page = pool == SMALL ? CG_CUDA_SMALL_BUFFER : CG_CUDA_LARGE_BUFFER, grow;
	uint32_t tail = m->tail[pool];
	bool extend = tail != CG_NONE && !m->b[tail].allocated;
	uint64_t have = extend ? m->b[tail].size : 0;
	if (!round_up(size - have, page, &grow) || m->mapped[pool] > UINT64_MAX - grow) {
		m->overflow = true;
		return CG_NONE;
	}
	m->mapped[pool] += grow;
	if (!cg_add_u64(m->reserved, grow, &m->reserved))
		m->overflow = true;
	m->segments += grow / page;
	if (extend) {
		free_remove(m, tail);
		m->b[tail].size += grow;
		return tail;
	}
	uint32_t x = new_block(m, m->mapped[pool] - grow, grow, pool);
	m->b[x].prev = tail;
	if (tail != CG_NONE)
		m->b[tail].next = x;
	m->tail[pool] = x;
	return x;
}

/* Blocks of max_split_size or more are never split (should_split in
 * CUDACachingAllocator.cpp). */
static bool should_split(const model *m, int pool, uint64_t size, uint64_t remaining)
{
	if (pool == SMALL)
		return remaining >= CG_CUDA_MIN_BLOCK_SIZE;
	return size < m->max_split && remaining > CG_CUDA_SMALL_SIZE;
}

/* get_free_block's rules for max_split_size: a request under it takes no
 * oversized block, and one at or over it a block at most kLargeBuffer
 * larger. As best fit finds the smallest block, a refusal stands. */
static bool fits_split_rules(const model *m, uint64_t size, uint64_t block)
{
	if (size < m->max_split)
		return block < m->max_split;
	return block - size < CG_CUDA_LARGE_BUFFER;
}

/* Allocates bytes; returns the block or CG_NONE (nothing for 0 bytes, as
 * PyTorch hands out no memory for empty tensors, or on overflow). */
static uint32_t model_alloc(model *m, uint64_t bytes)
{
	uint64_t size;
	if (bytes == 0)
		return CG_NONE;
	if (!cg_replay_round_size(bytes, &size)) {
		m->overflow = true;
		return CG_NONE;
	}
	int pool = size <= CG_CUDA_SMALL_SIZE ? SMALL : LARGE;
	uint32_t x = best_fit(m, pool, size);
	if (x != CG_NONE && pool == LARGE && m->max_split != UINT64_MAX && !fits_split_rules(m, size, m->b[x].size))
		x = CG_NONE;
	if (x != CG_NONE)
		free_remove(m, x);
	else if ((x = map_more(m, pool, size)) == CG_NONE)
		return CG_NONE;
	uint64_t remaining = m->b[x].size - size;
	if (should_split(m, pool, size, remaining)) {
		uint32_t rest = new_block(m, m->b[x].addr + size, remaining, pool);
		m->b[x].size = size;
		m->b[rest].prev = x;
		m->b[rest].next = m->b[x].next;
		if (m->b[x].next != CG_NONE)
			m->b[m->b[x].next].prev = rest;
		m->b[x].next = rest;
		if (m->tail[pool] == x)
			m->tail[pool] = rest;
		free_insert(m, rest);
	}
	m->b[x].allocated = true;
	m->allocated += m->b[x].size;
	return x;
}

/* Merges free block y (after x in address order) into x. */
static void absorb(model *m, uint32_t x, uint32_t y)
{
	m->b[x].size += m->b[y].size;
	m->b[x].next = m->b[y].next;
	if (m->b[y].next != CG_NONE)
		m->b[m->b[y].next].prev = x;
	if (m->tail[m->b[y].pool] == y)
		m->tail[m->b[y].pool] = x;
	drop_block(m, y);
}

static void model_free(model *m, uint32_t x)
{
	if (x == CG_NONE)
		return;
	m->allocated -= m->b[x].size;
	m->b[x].allocated = false;
	uint32_t p = m->b[x].prev, n = m->b[x].next;
	if (n != CG_NONE && !m->b[n].allocated) {
		free_remove(m, n);
		absorb(m, x, n);
	}
	if (p != CG_NONE && !m->b[p].allocated) {
		free_remove(m, p);
		absorb(m, p, x);
		x = p;
	}
	free_insert(m, x);
}

static cg_replay_state snapshot(const model *m, uint64_t live)
{
	cg_replay_state s = {m->reserved, m->allocated, live, largest_free(m), m->reserved - m->allocated, 0, 0};
	if (s.reserved)
		s.frag_reserved = ((double)s.reserved - (double)live) / (double)s.reserved;
	if (s.total_free)
		s.frag_largest = 1.0 - (double)s.largest_free / (double)s.total_free;
	return s;
}

static void add_point(cg_replay_variant *v, size_t *cap, uint64_t t, uint64_t reserved)
{
	if (v->nseries && v->series[v->nseries - 1].t_ns == t) {
		v->series[v->nseries - 1].reserved = reserved;
		return;
	}
	CG_GROW(v->series, *cap, (size_t)v->nseries + 1);
	v->series[v->nseries++] = (cg_replay_point){t, reserved};
}

typedef struct device_ctx {
	const cg_timeline *tl;
	const cg_device *dev;
	uint32_t peak_k, end_k; /* device-local positions of the moments: after record k - 1; 0 before any */
	size_t devmem_first;
	uint32_t *block_of;	/* device-local record -> its block (allocs, and frees from before the trace) */
} device_ctx;

static uint32_t moment_pos(const cg_device *dev, uint32_t after)
{
	if (after == CG_NONE || after < dev->mem_first || after - dev->mem_first >= dev->mem_count)
		return 0;
	return after - dev->mem_first + 1;
}

/* Replays one device through one model. */
static bool replay(device_ctx *c, bool expandable, cg_replay_variant *v)
{
	const cg_timeline *tl = c->tl;
	const cg_device *dev = c->dev;
	model m = {.expandable = expandable, .max_split = UINT64_MAX, .free_slots = CG_NONE, .rng = 2463534242u};
	/* A snapshot records the allocator's settings: its max_split_size
	 * applies to standard segments (an expandable segment grows at its
	 * end, and that model assumes no free block fits). */
	if (!expandable && tl->snapshot && tl->snapshot->max_split_size > 0)
		m.max_split = (uint64_t)tl->snapshot->max_split_size;
	for (int p = 0; p < NPOOLS; p++)
		m.free[p].large = m.tail[p] = CG_NONE;
	memset(c->block_of, 0xff, (dev->mem_count ? dev->mem_count : 1) * sizeof *c->block_of);

	/* Memory from before the trace is there first: the baseline as one
	 * block (its pieces are unknown), then what the trace frees unpaired. */
	model_alloc(&m, dev->baseline_bytes);
	for (uint32_t k = 0; k < dev->mem_count; k++)
		if (tl->mem[dev->mem_first + k].flags & CG_MEM_PREEXISTING)
			c->block_of[k] = model_alloc(&m, tl->mem[dev->mem_first + k].bytes);
	uint64_t live = cg_device_initial_live(dev);
	v->initial_reserved = m.reserved;
	v->peak_reserved = m.reserved;
	v->peak_t_ns = dev->mem_count ? tl->mem[dev->mem_first].t_ns : 0;
	size_t cap = 0;
	if (m.reserved)
		add_point(v, &cap, v->peak_t_ns, m.reserved);
	if (c->peak_k == 0)
		v->at_peak = snapshot(&m, live);
	if (c->end_k == 0)
		v->at_end = snapshot(&m, live);

	for (uint32_t k = 0; k < dev->mem_count && !m.overflow; k++) {
		uint32_t i = dev->mem_first + k;
		const cg_mem *r = &tl->mem[i];
		if (r->action == CG_ALLOC) {
			uint32_t replaced = cg_timeline_mem_replaced(tl, i);
			if (replaced != CG_NONE)
				model_free(&m, c->block_of[replaced - dev->mem_first]);
			c->block_of[k] = model_alloc(&m, r->bytes);
		} else if (r->flags & CG_MEM_PREEXISTING) {
			model_free(&m, c->block_of[k]);
		} else if (r->pair != CG_NONE) {
			model_free(&m, c->block_of[r->pair - dev->mem_first]);
		}
		live = cg_timeline_live_after(tl, i, live);
		if (m.reserved > v->peak_reserved) {
			v->peak_reserved = m.reserved;
			v->peak_t_ns = r->t_ns;
			add_point(v, &cap, r->t_ns, m.reserved);
		}
		if (k + 1 == c->peak_k)
			v->at_peak = snapshot(&m, live);
		if (k + 1 == c->end_k)
			v->at_end = snapshot(&m, live);
	}
	v->segments = m.segments;
	cg_free(m.b);
	for (int p = 0; p < NPOOLS; p++)
		freeset_free(&m.free[p]);
	return !m.overflow;
}

/* Reserved at each checkpoint: the last change point at or before it. */
static void at_checkpoints(const cg_timeline *tl, const device_ctx *c, cg_replay_variant *v)
{
	v->ncheckpoints = c->dev->devmem_count;
	v->at_checkpoint = cg_calloc(v->ncheckpoints ? v->ncheckpoints : 1, sizeof *v->at_checkpoint);
	uint32_t j = 0;
	uint64_t reserved = v->initial_reserved;
	for (uint32_t k = 0; k < v->ncheckpoints; k++) {
		uint64_t t = tl->devmem[c->devmem_first + k].t_ns;
		while (j < v->nseries && v->series[j].t_ns <= t)
			reserved = v->series[j++].reserved;
		v->at_checkpoint[k] = reserved;
	}
}

static void clear_variant(cg_replay_variant *v)
{
	cg_free(v->series);
	cg_free(v->at_checkpoint);
	memset(v, 0, sizeof *v);
}

/* One device through one model: a job of its own, as no two share state. */
typedef struct replay_jobs {
	const cg_timeline *tl;
	const cg_replay_input *in;
	cg_replay_result *r;
	size_t *devmem_first; /* per device */
	bool *ok;	      /* per job: 2 * device + expandable */
} replay_jobs;

static void replay_job(void *ctx, size_t job)
{
	replay_jobs *j = ctx;
	uint32_t d = (uint32_t)(job / 2);
	bool expandable = job % 2;
	const cg_device *dev = &j->tl->devices[d];
	cg_replay_device *o = &j->r->devices[d];
	device_ctx c = {j->tl, dev, moment_pos(dev, j->in->peak_after[d]), moment_pos(dev, j->in->end_after[d]),
			j->devmem_first[d], NULL};
	c.block_of = cg_malloc((dev->mem_count ? dev->mem_count : 1) * sizeof *c.block_of);
	cg_replay_variant *v = expandable ? &o->expandable : &o->standard;
	j->ok[job] = replay(&c, expandable, v);
	if (j->ok[job])
		at_checkpoints(j->tl, &c, v);
	cg_free(c.block_of);
}

int cg_replay_run(cg_replay_result **out, const cg_timeline *tl, const cg_replay_input *in, cg_error *err)
{
	(void)err;
	cg_replay_result *r = cg_calloc(1, sizeof *r);
	uint32_t nd = tl->ndevices;
	r->ndevices = nd;
	r->devices = cg_calloc(nd ? nd : 1, sizeof *r->devices);
	if (!tl->source.pairing_known) {
		for (uint32_t d = 0; d < nd; d++)
			r->devices[d].unavailable_reason = "frees could not be matched to their allocations";
		*out = r;
		return 0;
	}
	replay_jobs j = {tl, in, r, cg_calloc(nd ? nd : 1, sizeof *j.devmem_first),
			 cg_calloc(2 * (size_t)nd + 1, sizeof *j.ok)};
	for (uint32_t d = 1; d < nd; d++)
		j.devmem_first[d] = j.devmem_first[d - 1] + tl->devices[d - 1].devmem_count;
	cg_parallel_for(2 * (size_t)nd, in->threads, replay_job, &j);
	for (uint32_t d = 0; d < nd; d++) {
		cg_replay_device *o = &r->devices[d];
		o->available = j.ok[2 * d] && j.ok[2 * d + 1];
		if (!o->available) {
			o->unavailable_reason = "sizes too large for the model (over 2^64 bytes)";
			clear_variant(&o->standard);
			clear_variant(&o->expandable);
			continue;
		}
		uint64_t a = o->standard.peak_reserved, b = o->expandable.peak_reserved;
		if (a >= b)
			o->saved_bytes = a - b > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(a - b);
		else
			o->saved_bytes = b - a > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)(b - a);
	}
	cg_free(j.devmem_first);
	cg_free(j.ok);
	*out = r;
	return 0;
}

void cg_replay_free(cg_replay_result *r)
{
	if (!r)
		return;
	for (uint32_t d = 0; d < r->ndevices; d++) {
		cg_free(r->devices[d].standard.series);
		cg_free(r->devices[d].standard.at_checkpoint);
		cg_free(r->devices[d].expandable.series);
		cg_free(r->devices[d].expandable.at_checkpoint);
	}
	cg_free(r->devices);
	cg_free(r);
}
