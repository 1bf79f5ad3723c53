/* The restricted unpickler (pickle.h): one pass over the opcodes with an
 * explicit value stack, a mark stack and the memo. Nothing recurses, so a
 * hostile nesting depth costs heap (bounded by max_depth), never C stack.
 *
 * Memory. Nodes and the arrays behind strings, tuples, lists and dicts are
 * carved from chunks owned by the cg_pickle, with a free list per
 * power-of-two size class, so the items on_item takes are recycled for the
 * next ones; arrays above 64 KiB are malloc'd with a header that links them
 * into the pickle. An array's capacity follows from its length (the next
 * power of two), so no field stores it. cg_pickle_free() frees the chunks
 * and that list without visiting a node.
 *
 * References. Every stack slot, memo slot and container item holds one
 * reference. A node whose count drops to zero is freed with an explicit
 * worklist. Counts saturate at UINT32_MAX (such a node then lives until
 * cg_pickle_free); cycles built through the memo simply never reach zero. */
#include "pickle_impl.h"

#include <stdarg.h>
#include <stdio.h>

#include "utf8.h"
#include "xalloc.h"

cg_pk cg_pickle_consumed;

/* --- errors ---------------------------------------------------------- */

/* "NAME: byte N: ...", N an offset in the decompressed stream. */
int cg_pickle_fail_at(cg_pickle *pk, uint64_t at, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	cg_utf8_vformat(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return cg_error_set(pk->err, CG_EINPUT, "%s: byte %llu: %s", pk->name, (unsigned long long)at, msg);
}

static int cut_short(cg_pickle *pk)
{
	return cg_pickle_fail_at(pk, pk->base + (uint64_t)(pk->end - pk->buf),
				 "the pickle ends before its STOP opcode (file cut short?)");
}

/* --- memory ---------------------------------------------------------- */

void *cg_pickle_carve(cg_pickle *pk, size_t n)
{
	if ((size_t)(pk->bump_end - pk->bump) < n) {
		size_t size = pk->chunk_bytes > n ? pk->chunk_bytes : n;
		chunk *c = cg_malloc(sizeof *c + size);
		c->next = pk->chunks;
		c->size = size;
		pk->chunks = c;
		pk->bump = (char *)(c + 1);
		pk->bump_end = pk->bump + size;
		if (pk->chunk_bytes < MAX_CHUNK)
			pk->chunk_bytes *= 2;
	}
	void *p = pk->bump;
	pk->bump += n;
	return p;
}

void *cg_pickle_big_alloc(cg_pickle *pk, size_t n)
{
	big *b = cg_malloc(sizeof *b + n);
	b->size = n;
	b->prev = &pk->bigs;
	b->next = pk->bigs.next;
	b->next->prev = b;
	pk->bigs.next = b;
	return b + 1;
}

static void *big_realloc(void *p, size_t n)
{
	big *b = cg_realloc((big *)p - 1, sizeof *b + n);
	b->size = n;
	b->prev->next = b;
	b->next->prev = b;
	return b + 1;
}

void cg_pickle_big_free(void *p)
{
	big *b = (big *)p - 1;
	b->prev->next = b->next;
	b->next->prev = b->prev;
	cg_free(b);
}

/* Makes room for add more pointers after the used ones in c's items. */
void cg_pickle_items_reserve(cg_pickle *pk, cg_pk *c, size_t used, size_t add)
{
	size_t cap = items_cap(used), want = items_cap(used + add);
	if (want == cap)
		return;
	size_t bytes = cap * sizeof(cg_pk *), want_bytes = want * sizeof(cg_pk *);
	if (bytes > MAX_SMALL) {
		c->v.items = big_realloc(c->v.items, want_bytes);
		return;
	}
	cg_pk **items = block_alloc(pk, want_bytes);
	if (used)
		memcpy(items, c->v.items, used * sizeof *items);
	block_free(pk, c->v.items, bytes);
	c->v.items = items;
}

/* Frees a node that holds no other node (its count already zero). */
static inline void free_leaf(cg_pickle *pk, cg_pk *n)
{
	if (n->type == CG_PK_STR)
		block_free(pk, (char *)n->v.s, (size_t)n->len + 1);
	n->type = CG_PK_NONE;
	n->v.items = (cg_pk **)pk->free_nodes;
	pk->free_nodes = n;
}

/* Frees what n holds and n itself, once its count is already zero; pushes
 * the containers whose count drops to zero onto the worklist. */
static void dismantle(cg_pickle *pk, cg_pk *n, size_t *w)
{
	if (n->type >= CG_PK_TUPLE) {
		size_t count = n->type == CG_PK_DICT ? (size_t)n->len * 2 : n->len;
		for (size_t i = 0; i < count; i++) {
			cg_pk *c = n->v.items[i];
			if (c->refs == UINT32_MAX || --c->refs)
				continue;
			if (c->type < CG_PK_TUPLE) {
				free_leaf(pk, c);
				continue;
			}
			if (*w == pk->work_cap)
				CG_GROW(pk->work, pk->work_cap, *w + 1);
			pk->work[(*w)++] = c;
		}
		block_free(pk, n->v.items, items_cap(count) * sizeof(cg_pk *));
	}
	free_leaf(pk, n);
}

/* Drops one reference to n. No recursion: a million-deep list is freed
 * from the worklist one level at a time. */
void cg_pickle_release(cg_pickle *pk, cg_pk *n)
{
	if (n->refs == UINT32_MAX || --n->refs)
		return;
	size_t w = 0;
	dismantle(pk, n, &w);
	while (w)
		dismantle(pk, pk->work[--w], &w);
}

/* --- the memo -------------------------------------------------------- */

void cg_pickle_memo_grow(cg_pickle *pk, uint64_t idx)
{
	cg_prefault_region(pk->o.prefault, pk->o.prefault_region, NULL, 0);
	CG_GROW(pk->memo, pk->memo_cap, (size_t)idx + 1);
	cg_prefault_region(pk->o.prefault, pk->o.prefault_region, pk->memo, pk->memo_cap * sizeof *pk->memo);
	cg_prefault_used(pk->o.prefault, pk->o.prefault_region, pk->memo_len * sizeof *pk->memo);
}

/* --- shared lists ---------------------------------------------------- */

/* A snapshot's every alloc and free_requested memoizes a new frame list,
 * 5 to 20 references to a few hundred frame dicts: 7.5 M lists of 150
 * bytes each in a 1 GB file, kept by the memo to the end. Lists with the
 * same items are one node (PK_LIST_SHARED). */

static size_t items_hash(cg_pk *const *items, size_t n)
{
	uint64_t h = (uint64_t)n * 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint64_t)(uintptr_t)items[i]) * 0xff51afd7ed558ccdull;
	return (size_t)(h ^ h >> 32);
}

static cg_pk **shared_slot(cg_pickle *pk, cg_pk *const *items, size_t n)
{
	size_t mask = pk->shared_cap - 1;
	for (size_t i = items_hash(items, n) & mask;; i = (i + 1) & mask) {
		cg_pk *c = pk->shared[i];
		if (!c || (c->len == n && (!n || !memcmp(c->v.items, items, n * sizeof *items))))
			return &pk->shared[i];
	}
}

static void shared_grow(cg_pickle *pk)
{
	cg_pk **old = pk->shared;
	size_t old_cap = pk->shared_cap;
	pk->shared_cap = old_cap ? 2 * old_cap : 256;
	pk->shared = cg_calloc(pk->shared_cap, sizeof *pk->shared);
	for (size_t i = 0; i < old_cap; i++)
		if (old[i])
			*shared_slot(pk, old[i]->v.items, old[i]->len) = old[i];
	cg_free(old);
}

cg_pk *cg_pickle_share(cg_pickle *pk, cg_pk *list, size_t idx, cg_pk **items, size_t n)
{
	if (!n && pk->shared_empty)
		return cg_pickle_share_again(pk, list, idx, pk->shared_empty);
	if (2 * (pk->nshared + 1) > pk->shared_cap)
		shared_grow(pk);
	cg_pk **slot = shared_slot(pk, items, n);
	cg_pk *c = *slot;
	if (c) {
		for (size_t i = 0; i < n; i++)
			cg_pickle_release(pk, items[i]);
		return cg_pickle_share_again(pk, list, idx, c);
	}
	cg_pickle_items_reserve(pk, list, 0, n);
	if (n)
		memcpy(list->v.items, items, n * sizeof *items);
	list->len = (uint32_t)n;
	list->flags |= PK_LIST_SHARED;
	cg_pk_keep(list);
	*slot = list;
	pk->nshared++;
	if (!n)
		pk->shared_empty = list;
	return list;
}

cg_pk *cg_pickle_share_again(cg_pickle *pk, cg_pk *list, size_t idx, cg_pk *c)
{
	pk->memo[idx] = c; /* kept: the slot's reference is none to count */
	/* list: empty, held by the slot and the caller alone */
	list->type = CG_PK_NONE;
	list->v.items = (cg_pk **)pk->free_nodes;
	pk->free_nodes = list;
	return c;
}

/* Frame lists repeat: the same stack's list is the same run of gets,
 * found by its bytes in a direct-mapped table instead of read item by item. */
static uint64_t bytes_hash(const unsigned char *b, size_t len)
{
	uint64_t h = (uint64_t)len * 0x9e3779b97f4a7c15ull;
	size_t i = 0;
	for (; i + 8 <= len; i += 8)
		h = (h ^ rd64(b + i)) * 0xff51afd7ed558ccdull;
	uint64_t tail = 0;
	memcpy(&tail, b + i, len - i);
	h = (h ^ tail) * 0xff51afd7ed558ccdull;
	return h ^ h >> 29;
}

cg_pk *cg_pickle_list_memo_find(cg_pickle *pk, const unsigned char *b, size_t len, uint64_t *hash)
{
	uint64_t h = *hash = bytes_hash(b, len);
	if (!pk->list_memos)
		return NULL;
	const list_memo *m = &pk->list_memos[h & (PK_LIST_MEMOS - 1)];
	if (m->list && m->hash == h && m->epoch == pk->memo_epoch && m->len == len && !memcmp(m->bytes, b, len))
		return m->list;
	return NULL;
}

void cg_pickle_list_memo_add(cg_pickle *pk, uint64_t hash, const unsigned char *b, size_t len, uint64_t top,
			     cg_pk *c)
{
	if (len > PK_LIST_MEMO_BYTES)
		return;
	if (!pk->list_memos)
		pk->list_memos = cg_calloc(PK_LIST_MEMOS, sizeof *pk->list_memos);
	list_memo *m = &pk->list_memos[hash & (PK_LIST_MEMOS - 1)];
	*m = (list_memo){hash, pk->memo_epoch, c, (uint32_t)len, {0}};
	memcpy(m->bytes, b, len);
	if (top > pk->list_memo_top)
		pk->list_memo_top = top;
}

cg_pk *cg_pickle_unshare(cg_pickle *pk, size_t idx)
{
	const cg_pk *c = pk->memo[idx];
	cg_pk *l = node_new(pk, CG_PK_LIST); /* the slot's reference */
	cg_pickle_items_reserve(pk, l, 0, c->len);
	for (uint32_t i = 0; i < c->len; i++) {
		l->v.items[i] = c->v.items[i];
		ref(l->v.items[i]);
	}
	l->len = c->len;
	l->memo = (uint32_t)idx + 1;
	pk->memo[idx] = l;
	cg_pickle_memo_slot_changed(pk, idx);
	return l;
}

/* --- input ----------------------------------------------------------- */

/* Makes at least need bytes (<= cap) visible at pk->p. */
int cg_pickle_refill(cg_pickle *pk, size_t need)
{
	size_t have = (size_t)(pk->end - pk->p);
	if (pk->p != pk->buf) {
		memmove(pk->buf, pk->p, have);
		pk->base += (uint64_t)(pk->p - pk->buf);
		pk->p = pk->buf;
		pk->end = pk->buf + have;
	}
	while (have < need) {
		if (pk->eof)
			return cut_short(pk);
		int64_t k = cg_reader_read(pk->r, (char *)pk->buf + have, pk->cap - have, pk->err);
		if (k < 0)
			return (int)k;
		if (k == 0)
			pk->eof = true;
		have += (size_t)k;
		pk->end += k;
	}
	return 0;
}

/* Copies the next n bytes of input to dst: the buffered ones, then straight
 * from the reader. */
static int read_into(cg_pickle *pk, char *dst, size_t n)
{
	size_t have = (size_t)(pk->end - pk->p), k = have < n ? have : n;
	memcpy(dst, pk->p, k);
	pk->p += k;
	if (k == n)
		return 0;
	pk->base += (uint64_t)(pk->end - pk->buf);
	pk->p = pk->end = pk->buf;
	while (k < n) {
		if (pk->eof)
			return cut_short(pk);
		int64_t got = cg_reader_read(pk->r, dst + k, n - k, pk->err);
		if (got < 0)
			return (int)got;
		pk->eof = got == 0;
		k += (size_t)got;
		pk->base += (uint64_t)got;
	}
	return 0;
}

/* --- values ---------------------------------------------------------- */

/* Valid UTF-8 (NUL included, as Python allows it in a str). */
static bool utf8_ok(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (i + 8 <= n) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if (!(w & 0x8080808080808080ull)) {
				i += 8;
				continue;
			}
		}
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		size_t k = cg_utf8_sequence(s + i, n - i);
		if (!k)
			return false;
		i += k;
	}
	return true;
}

static cg_pk *str_node(cg_pickle *pk, char *s, size_t len)
{
	s[len] = '\0';
	cg_pk *n = node_new(pk, CG_PK_STR);
	n->len = (uint32_t)len;
	n->v.s = s;
	if (!utf8_ok((const unsigned char *)s, len))
		n->flags = CG_PK_STR_NOT_UTF8;
	return n;
}

cg_pk *cg_pickle_str_copy(cg_pickle *pk, const char *s, size_t len)
{
	char *b = block_alloc(pk, len + 1);
	memcpy(b, s, len);
	return str_node(pk, b, len);
}

/* A str whose length field was at byte at. Short ones are copied from the
 * buffer; long ones are read in pieces, and when the file size is not
 * known (gzip, a pipe) their array grows with the bytes that arrive, so a
 * hostile length costs no more than the data actually there. */
int cg_pickle_read_str(cg_pickle *pk, uint64_t len, uint64_t at, cg_pk **out)
{
	if ((uint64_t)(pk->end - pk->p) >= len) {
		char *s = block_alloc(pk, (size_t)len + 1);
		memcpy(s, pk->p, (size_t)len);
		pk->p += len;
		*out = str_node(pk, s, (size_t)len);
		return 0;
	}
	uint64_t left = bytes_left(pk, pos(pk, pk->p));
	if (len > MAX_LEN)
		return cg_pickle_fail_at(pk, at, "a str of %llu bytes is longer than the limit of %u",
					 (unsigned long long)len, MAX_LEN);
	if (len > left)
		return cg_pickle_fail_at(
			pk, at, "a str of %llu bytes runs past the end of the file (%llu bytes left)",
			(unsigned long long)len, (unsigned long long)left);
	size_t size = (size_t)len + 1, cap = size, got = 0;
	if (left == UINT64_MAX && size > ((size_t)16 << 20))
		cap = (size_t)16 << 20;
	char *s = block_alloc(pk, cap);
	for (;;) {
		size_t k = (cap < size ? cap : size - 1) - got;
		int rc = read_into(pk, s + got, k);
		if (rc < 0) {
			block_free(pk, s, cap);
			return rc;
		}
		got += k;
		if (got == size - 1)
			break;
		cap = cap > size / 2 ? size : cap * 2;
		s = big_realloc(s, cap);
	}
	*out = str_node(pk, s, (size_t)len);
	return 0;
}

/* LONG4's body, which may be longer than the buffer. */
int cg_pickle_read_long4(cg_pickle *pk, uint64_t at, cg_pk **out)
{
	int rc = pk->end - pk->p < 4 ? cg_pickle_refill(pk, 4) : 0;
	if (rc < 0)
		return rc;
	uint32_t n = rd32(pk->p);
	pk->p += 4;
	if (n > INT32_MAX)
		return cg_pickle_fail_at(pk, at, "LONG4 with a negative length");
	uint64_t left = bytes_left(pk, pos(pk, pk->p));
	if (n > left)
		return cg_pickle_fail_at(
			pk, at, "an integer of %u bytes runs past the end of the file (%llu bytes left)", n,
			(unsigned long long)left);
	longval lv = {0, 0, true, true, 0};
	while (lv.n < n) {
		if (pk->p == pk->end && (rc = cg_pickle_refill(pk, 1)) < 0)
			return rc;
		size_t k = (size_t)(pk->end - pk->p);
		if (k > n - lv.n)
			k = (size_t)(n - lv.n);
		long_feed(&lv, pk->p, k);
		pk->p += k;
	}
	cg_pk *v = node_new(pk, CG_PK_INT);
	if (!long_value(&lv, v)) {
		cg_pickle_release(pk, v);
		return cg_pickle_fail_at(pk, at, "integer does not fit in 64 bits (LONG4 of %u bytes)", n);
	}
	*out = v;
	return 0;
}

/* --- the load and the accessors ---------------------------------------- */

int cg_pickle_load(cg_pickle **out, cg_reader *r, const cg_pickle_options *o, const cg_pk **root,
		   cg_error *err)
{
	*out = NULL;
	*root = NULL;
	cg_pickle *pk = cg_calloc(1, sizeof *pk);
	cg_pickle_options def = CG_PICKLE_OPTIONS_INIT;
	pk->o = o ? *o : def;
	if (!pk->o.max_depth)
		pk->o.max_depth = DEFAULT_MAX_DEPTH;
	if (!pk->o.max_memo || pk->o.max_memo > MAX_MEMO)
		pk->o.max_memo = MAX_MEMO;
	if (!pk->o.on_item || !pk->o.entry_keys || !pk->o.nentry_keys || pk->o.nentry_keys > CG_PK_ENTRY_MAX_KEYS)
		pk->o.on_entry = NULL;
	for (size_t k = 0; pk->o.on_entry && k < pk->o.nentry_keys; k++)
		pk->entry_klen[k] = strlen(pk->o.entry_keys[k]);
	pk->r = r;
	pk->err = err;
	pk->name = cg_reader_name(r);
	pk->bigs.prev = pk->bigs.next = &pk->bigs;
	pk->chunk_bytes = 16384;
	if (!cg_reader_is_gzip(r))
		pk->total = cg_reader_file_size(r);
	pk->cap = IN_BYTES;
	if (pk->total && pk->total < pk->cap)
		pk->cap = pk->total < MIN_IN_BYTES ? MIN_IN_BYTES : (size_t)pk->total;
	pk->buf = cg_malloc(pk->cap);
	/* Memo slots for a file of this size, made once (a snapshot memoizes
	 * one object per 36 bytes; at most 1 GiB reserved): growing an array
	 * of hundreds of MB copies it (xalloc.c). Pages not written cost nothing. */
	if (pk->total) {
		uint64_t slots = pk->total / 32 + 1, most = ((uint64_t)1 << 30) / sizeof *pk->memo;
		cg_pickle_memo_grow(pk, (slots < most ? slots : most) - 1);
	}
	pk->p = pk->end = pk->buf;
	/* never NULL, so that pk->stack + mark is defined on an empty stack */
	pk->stack_cap = pk->o.max_depth < 64 ? pk->o.max_depth : 64;
	pk->stack = cg_reallocarray(NULL, pk->stack_cap, sizeof *pk->stack);

	cg_pk *top = NULL;
	int rc = cg_pickle_run(pk, &top);
	cg_prefault_region(pk->o.prefault, pk->o.prefault_region, NULL, 0);
	/* What only the load needed goes now; the nodes stay. */
	cg_free(pk->buf);
	cg_free(pk->stack);
	cg_free(pk->marks);
	cg_free(pk->memo);
	cg_free(pk->work);
	cg_free(pk->pend);
	cg_free(pk->pend_node);
	cg_free(pk->shared);
	cg_free(pk->scratch);
	cg_free(pk->list_memos);
	pk->shared = pk->scratch = NULL;
	pk->list_memos = NULL;
	pk->pend = NULL;
	pk->pend_node = NULL;
	pk->buf = NULL;
	pk->stack = pk->memo = pk->work = NULL;
	pk->marks = NULL;
	pk->r = NULL;
	pk->err = NULL;
	if (rc < 0) {
		cg_pickle_free(pk);
		return rc;
	}
	*out = pk;
	*root = top;
	return 0;
}

void cg_pickle_free(cg_pickle *pk)
{
	if (!pk)
		return;
	for (chunk *c = pk->chunks, *next; c; c = next) {
		next = c->next;
		cg_free(c);
	}
	for (big *b = pk->bigs.next, *next; b != &pk->bigs; b = next) {
		next = b->next;
		cg_free(b);
	}
	cg_free(pk->buf);
	cg_free(pk->stack);
	cg_free(pk->marks);
	cg_free(pk->memo);
	cg_free(pk->work);
	cg_free(pk->pend);
	cg_free(pk->pend_node);
	cg_free(pk->shared);
	cg_free(pk->scratch);
	cg_free(pk->list_memos);
	cg_free(pk);
}

void cg_pk_keep(const cg_pk *v)
{
	((cg_pk *)v)->refs = UINT32_MAX; /* sticky: never released (pickle_impl.h) */
}

int cg_pickle_protocol(const cg_pickle *pk) { return pk->protocol; }
uint64_t cg_pickle_memo_puts(const cg_pickle *pk) { return pk->puts; }
uint64_t cg_pickle_memo_gets(const cg_pickle *pk) { return pk->gets; }
uint64_t cg_pickle_fast_entries(const cg_pickle *pk) { return pk->fast_entries; }
uint64_t cg_pickle_fast_fallbacks(const cg_pickle *pk) { return pk->fast_fallbacks; }

/* Byte by byte: the keys looked up are short, shorter than a call to memcmp. */
static inline bool str_equal(const cg_pk *v, const char *s, size_t n)
{
	if (v->type != CG_PK_STR || v->len != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (v->v.s[i] != s[i])
			return false;
	return true;
}

const cg_pk *cg_pk_dict_get(const cg_pk *d, const char *key)
{
	if (!d || d->type != CG_PK_DICT)
		return NULL;
	size_t n = strlen(key);
	/* From the end: in a big dict a repeated key is kept twice (see dict_update). */
	for (size_t i = d->len; i > 0; i--)
		if (str_equal(d->v.items[2 * i - 2], key, n))
			return d->v.items[2 * i - 1];
	return NULL;
}

bool cg_pk_str_is(const cg_pk *v, const char *s) { return v && str_equal(v, s, strlen(s)); }

bool cg_pk_uint(const cg_pk *v, uint64_t *out)
{
	if (!v || v->type != CG_PK_INT || (!(v->flags & CG_PK_INT_UNSIGNED) && v->v.i < 0))
		return false;
	*out = v->v.u;
	return true;
}

bool cg_pk_int(const cg_pk *v, int64_t *out)
{
	if (!v || v->type != CG_PK_INT || (v->flags & CG_PK_INT_UNSIGNED))
		return false;
	*out = v->v.i;
	return true;
}
