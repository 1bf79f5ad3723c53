/* Private to the unpickler (pickle.c: memory, input and values; pickle_ops.c:
 * the opcodes): the state of a load and the allocation helpers both files
 * inline. */
#ifndef CG_PICKLE_IMPL_H
#define CG_PICKLE_IMPL_H

#include <string.h>

#include "pickle.h"

#define IN_BYTES	  ((size_t)1 << 20)   /* input pulled from the reader at a time */
#define MIN_IN_BYTES	  ((size_t)512)	      /* the buffer must hold a LONG1 or SHORT_BINUNICODE whole */
#define MAX_LEN		  0xfffffffeu	      /* 2^32 - 2: the longest str, list, tuple or dict */
#define MAX_FRAME	  ((uint64_t)1 << 30) /* CPython writes frames of about 64 KiB */
#define SMALL_DICT	  32		      /* pairs up to which SETITEM(S) looks for a repeated key */
#define NCLASS		  13		      /* block size classes: 16 B << 0 .. 12, i.e. up to 64 KiB */
#define MAX_SMALL	  ((size_t)16 << (NCLASS - 1))
#define MAX_CHUNK	  ((size_t)1 << 20)
#define MAX_BELOW	  4
#define DEFAULT_MAX_DEPTH 1000000
#define MAX_MEMO	  0xfffffffeu /* a memo index + 1 must fit cg_pk.memo */

/* cg_pk.flags of a dict, internal: the fast path found it is not a trace
 * entry (pickle_fast.c); cleared when its pairs change. */
#define PK_DICT_NOT_ENTRY (1u << 7)
/* cg_pk.flags of a list, internal: one node shared by the memo slots of
 * every list the fast path read with the same items (pickle_fast.c),
 * kept. Python has a list per slot; the general path's memo get gives a
 * slot its own copy (cg_pickle_unshare) before anything could change it,
 * and the fast path puts it nowhere but in an entry's values. */
#define PK_LIST_SHARED	  (1u << 6)
#define PK_KEY_CACHE	  64 /* a power of two */
#define PK_LIST_MEMOS	  256 /* a power of two */
#define PK_LIST_MEMO_BYTES 128
#define PK_SHORT_STRS	  16 /* a power of two */
#define PK_SHORT_STR_LEN  16

/* A shared list remembered by the bytes of the memo gets that made it
 * (pickle.c, cg_pickle_list_memo_find). */
typedef struct list_memo {
	uint64_t hash, epoch;
	cg_pk *list;
	uint32_t len;
	unsigned char bytes[PK_LIST_MEMO_BYTES];
} list_memo;

typedef struct chunk {
	struct chunk *next;
	size_t size;
} chunk;

/* Header of an array above MAX_SMALL: a circular list through the pickle. */
typedef struct big {
	struct big *prev, *next;
	size_t size, pad;
} big;

struct cg_pickle {
	cg_reader *r;
	cg_error *err;
	const char *name;
	cg_pickle_options o;

	unsigned char *buf; /* input: buf[p .. end) not yet parsed */
	size_t cap;
	unsigned char *p, *end;
	uint64_t base;	/* stream offset of buf[0] */
	uint64_t total; /* decompressed size when known (a plain file), else 0 */
	bool eof;

	chunk *chunks;
	char *bump, *bump_end;
	size_t chunk_bytes;
	void *free_blocks[NCLASS];
	cg_pk *free_nodes;
	big bigs; /* sentinel */

	cg_pk **stack;
	size_t sp, stack_cap;
	size_t *marks, nmarks, marks_cap;
	size_t floor; /* stack index of the innermost mark (0 without marks) */
	cg_pk **memo;
	size_t memo_len, memo_cap;
	uint64_t memo_count; /* slots ever set: MEMOIZE's index, as len(memo) in Python */
	cg_pk **work;	     /* cg_pickle_release()'s worklist */
	size_t work_cap;

	uint64_t puts, gets;
	int protocol;

	/* the fast path's dicts waiting for their APPENDS (pickle_fast.c):
	 * nentry_keys slots each, a node (referenced) or an inline scalar */
	cg_pk *pend;
	cg_pk **pend_node;
	size_t pend_cap;
	size_t entry_klen[CG_PK_ENTRY_MAX_KEYS]; /* strlen of o.entry_keys[k] */
	/* shared key strs met by the fast path (kept, so an address stays
	 * its node's) and which entry key each is, -1 for none */
	const cg_pk *key_node[PK_KEY_CACHE];
	int8_t key_index[PK_KEY_CACHE];
	/* short ASCII strs the fast path memoized (kept): one node for the
	 * same bytes memoized again, as each entry's "N/A" */
	cg_pk *short_str[PK_SHORT_STRS];
	/* the shared lists (PK_LIST_SHARED) by their items: an open-addressed
	 * table of nshared in shared_cap slots (a power of two) */
	cg_pk **shared;
	size_t nshared, shared_cap;
	cg_pk *shared_empty; /* the shared empty list, once made */
	cg_pk **scratch; /* a list's items while the fast path reads them */
	size_t scratch_cap;
	/* Shared lists by the bytes of their memo gets, valid while no memo
	 * slot that exists changes what it holds or a dict its pairs: every
	 * such change counts in memo_epoch (cg_pickle_memo_changed). */
	list_memo *list_memos;
	uint64_t memo_epoch;
	uint64_t list_memo_top; /* the highest memo slot a remembered list's gets name, this epoch */
	uint64_t fast_entries, fast_fallbacks;
};

/* What a memo slot holds once on_item took its value. */
extern cg_pk cg_pickle_consumed;

/* "NAME: byte N: ...", N an offset in the decompressed stream; returns CG_EINPUT. */
int cg_pickle_fail_at(cg_pickle *pk, uint64_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Makes at least need (<= cap) bytes visible at pk->p, or fails at the end of the file. */
int cg_pickle_refill(cg_pickle *pk, size_t need);
void *cg_pickle_carve(cg_pickle *pk, size_t n);
void *cg_pickle_big_alloc(cg_pickle *pk, size_t n);
void cg_pickle_big_free(void *p);
/* Makes room for add more pointers after the used ones in c's items. */
void cg_pickle_items_reserve(cg_pickle *pk, cg_pk *c, size_t used, size_t add);
/* Drops one reference to n, freeing what no longer has any. */
void cg_pickle_release(cg_pickle *pk, cg_pk *n);
/* A str of len bytes (its opcode at byte at) from the input, into *out. */
int cg_pickle_read_str(cg_pickle *pk, uint64_t len, uint64_t at, cg_pk **out);
/* LONG4's length and body, into *out. */
int cg_pickle_read_long4(cg_pickle *pk, uint64_t at, cg_pk **out);
/* SETITEMS of the pairs kv[0..2n) (their references move into d) on dict d. */
int cg_pickle_dict_set(cg_pickle *pk, cg_pk *d, cg_pk **kv, size_t n);
/* A str node holding a copy of s[0..len). */
cg_pk *cg_pickle_str_copy(cg_pickle *pk, const char *s, size_t len);
/* The fast path (pickle.h, on_entry) for the batch whose MARK is at pk->p:
 * 1 when it read it through its APPENDS (pk->p after it), 0 when the
 * general path must read it (nothing changed), or on_entry's error. */
int cg_pickle_fast_batch(cg_pickle *pk);
/* The shared list with items[0..n) (their references are the caller's),
 * made from list (empty, referenced by the caller and memo slot idx) when
 * there is none yet; either way memo slot idx holds it after the call and
 * the caller holds a reference to it instead of list. */
cg_pk *cg_pickle_share(cg_pickle *pk, cg_pk *list, size_t idx, cg_pk **items, size_t n);
/* The shared list a run of memo gets (b[0 .. len), BINGET and LONG_BINGET
 * up to an APPENDS) made before, when no memo slot that exists has changed
 * since, or NULL; *hash is for cg_pickle_list_memo_add. */
cg_pk *cg_pickle_list_memo_find(cg_pickle *pk, const unsigned char *b, size_t len, uint64_t *hash);
/* Remembers that the gets b[0 .. len), of memo slots up to top, made the shared list c. */
void cg_pickle_list_memo_add(cg_pickle *pk, uint64_t hash, const unsigned char *b, size_t len, uint64_t top,
			     cg_pk *c);
/* Memo slot idx holds shared list c instead of list (empty, referenced
 * by the caller and that slot, and freed); returns c. */
cg_pk *cg_pickle_share_again(cg_pickle *pk, cg_pk *list, size_t idx, cg_pk *c);
/* A dict changed its pairs (a remembered list may hold it). */
static inline void cg_pickle_memo_changed(cg_pickle *pk)
{
	pk->memo_epoch++;
	pk->list_memo_top = 0;
}

/* Memo slot idx, which exists, changed what it holds (or the memo was cut
 * back to idx slots): the lists remembered by gets of it are forgotten. */
static inline void cg_pickle_memo_slot_changed(cg_pickle *pk, uint64_t idx)
{
	if (pk->list_memos && idx <= pk->list_memo_top)
		cg_pickle_memo_changed(pk);
}
/* Room for memo slot idx (the memo's pages made present ahead of it). */
void cg_pickle_memo_grow(cg_pickle *pk, uint64_t idx);
/* Memo slot idx (holding a shared list) given a list of its own, equal to it. */
cg_pk *cg_pickle_unshare(cg_pickle *pk, size_t idx);
/* The opcodes up to STOP; *root is the value STOP pops. */
int cg_pickle_run(cg_pickle *pk, cg_pk **root);

static inline unsigned size_class(size_t n)
{
	return n <= 16 ? 0 : (unsigned)(64 - __builtin_clzll((unsigned long long)n - 1)) - 4;
}

static inline void *block_alloc(cg_pickle *pk, size_t n)
{
	if (n > MAX_SMALL)
		return cg_pickle_big_alloc(pk, n);
	unsigned c = size_class(n);
	void *b = pk->free_blocks[c];
	if (b) {
		pk->free_blocks[c] = *(void **)b;
		return b;
	}
	return cg_pickle_carve(pk, (size_t)16 << c);
}

/* n: the size the block was allocated with. */
static inline void block_free(cg_pickle *pk, void *b, size_t n)
{
	if (!b)
		return;
	if (n > MAX_SMALL) {
		cg_pickle_big_free(b);
		return;
	}
	unsigned c = size_class(n);
	*(void **)b = pk->free_blocks[c];
	pk->free_blocks[c] = b;
}

/* Pointers an items array holding n has room for. */
static inline size_t items_cap(size_t n)
{
	if (n <= 2)
		return n ? 2 : 0;
	return (size_t)1 << (64 - __builtin_clzll((unsigned long long)n - 1));
}

static inline cg_pk *node_new(cg_pickle *pk, uint8_t type)
{
	cg_pk *n = pk->free_nodes;
	if (n) {
		pk->free_nodes = (cg_pk *)n->v.items;
	} else if ((size_t)(pk->bump_end - pk->bump) >= sizeof *n) {
		n = (cg_pk *)(void *)pk->bump;
		pk->bump += sizeof *n;
	} else {
		n = cg_pickle_carve(pk, sizeof *n);
	}
	n->type = type;
	n->flags = 0;
	n->len = 0;
	n->refs = 1;
	n->memo = 0;
	n->v.items = NULL;
	return n;
}

static inline void ref(cg_pk *n)
{
	if (n->refs != UINT32_MAX)
		n->refs++;
}

static inline uint64_t pos(const cg_pickle *pk, const unsigned char *p)
{
	return pk->base + (uint64_t)(p - pk->buf);
}

/* Bytes left in the file after offset at, or UINT64_MAX when not known. */
static inline uint64_t bytes_left(const cg_pickle *pk, uint64_t at)
{
	return pk->total && at <= pk->total ? pk->total - at : UINT64_MAX;
}

static inline uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* An integer of n bytes of little-endian two's complement, fed in pieces. */
typedef struct longval {
	uint64_t low; /* bytes 0..7 */
	uint64_t n;
	bool rest_zero, rest_ones; /* bytes 8.. are all 0x00, all 0xff */
	unsigned char last;
} longval;

static inline void long_feed(longval *lv, const unsigned char *p, size_t k)
{
	for (size_t i = 0; i < k; i++, lv->n++) {
		if (lv->n < 8)
			lv->low |= (uint64_t)p[i] << (8 * lv->n);
		else if (p[i] != 0)
			lv->rest_zero = false;
		if (lv->n >= 8 && p[i] != 0xff)
			lv->rest_ones = false;
	}
	if (k)
		lv->last = p[k - 1];
}

/* Stores the value in n, or fails when it is outside int64 and uint64. */
static inline bool long_value(const longval *lv, cg_pk *n)
{
	bool negative = lv->n && (lv->last & 0x80);
	if (lv->n < 8) {
		uint64_t v = lv->low;
		if (negative)
			v |= ~(uint64_t)0 << (8 * lv->n);
		n->v.i = (int64_t)v;
		return true;
	}
	if (negative) {
		if (!lv->rest_ones || !(lv->low >> 63))
			return false;
		n->v.i = (int64_t)lv->low;
		return true;
	}
	if (!lv->rest_zero)
		return false;
	if (lv->low >> 63) {
		n->flags = CG_PK_INT_UNSIGNED;
		n->v.u = lv->low;
	} else {
		n->v.i = (int64_t)lv->low;
	}
	return true;
}

#endif
