/* Private to the unpickler's fast path (pickle_fast.c: the batches, the
 * values; pickle_template.c: entries read by the shape of the one before):
 * the opcodes it reads, its state and the helpers both files inline. */
#ifndef CG_PICKLE_SCAN_H
#define CG_PICKLE_SCAN_H

#include "pickle_impl.h"

enum {
	F_MARK = 0x28,
	F_EMPTY_TUPLE = 0x29,
	F_BINFLOAT = 0x47,
	F_BININT = 0x4a,
	F_BININT1 = 0x4b,
	F_BININT2 = 0x4d,
	F_NONE = 0x4e,
	F_BINUNICODE = 0x58,
	F_EMPTY_LIST = 0x5d,
	F_APPEND = 0x61,
	F_APPENDS = 0x65,
	F_BINGET = 0x68,
	F_LONG_BINGET = 0x6a,
	F_SETITEMS = 0x75,
	F_EMPTY_DICT = 0x7d,
	F_NEWTRUE = 0x88,
	F_NEWFALSE = 0x89,
	F_LONG1 = 0x8a,
	F_SHORT_BINUNICODE = 0x8c,
	F_MEMOIZE = 0x94,
	F_FRAME = 0x95,
};

#define MORE_INPUT ((size_t)64 << 10) /* CPython frames at 64 KiB */

#define KEY_TEMPLATE 16 /* an entry's pairs whose key gets are remembered */

typedef struct scan {
	cg_pickle *pk;
	const unsigned char *p, *end;
	size_t vsp; /* the general path's stack height here */
	size_t nk;  /* entry keys */
	/* The key get of an entry's pair i as last read in this batch: its
	 * bytes (BINGET or LONG_BINGET, 0 bytes for none) and which entry key
	 * it named. Within a batch memo slots are only appended, so the same
	 * bytes get the same key node: CPython writes every entry's keys so. */
	uint8_t key_len[KEY_TEMPLATE];
	uint64_t key_word[KEY_TEMPLATE]; /* the bytes, little-endian, zero above */
	int8_t key_j[KEY_TEMPLATE];
	bool learned; /* an entry of the batch was read pair by pair (scan_entry) */
} scan;

/* A value read: a node (one reference held), or a scalar or a str left in
 * the buffer (inl.v.s points into it, not NUL-terminated). */
typedef struct fval {
	cg_pk *node;
	cg_pk inl;
} fval;

/* cg_pickle_release, its common cases inline: a kept or shared node. */
static inline void unref(cg_pickle *pk, cg_pk *n)
{
	if (n->refs == UINT32_MAX)
		return;
	if (n->refs > 1)
		n->refs--;
	else
		cg_pickle_release(pk, n);
}

/* Pending dict i's slots. */
static inline cg_pk *pend_inl(cg_pickle *pk, size_t i) { return pk->pend + i * pk->o.nentry_keys; }
static inline cg_pk **pend_node(cg_pickle *pk, size_t i) { return pk->pend_node + i * pk->o.nentry_keys; }

/* MEMOIZE of v into the next slot (v referenced there); false at max_memo. */
bool cg_pkscan_memoize(scan *s, cg_pk *v);
/* A str about to be memoized (one reference held): short ASCII strs share a node. */
cg_pk *cg_pkscan_memo_str(cg_pickle *pk, const cg_pk *inl);
/* EMPTY_LIST (read) and what follows: the list (pushed), or NULL. */
cg_pk *cg_pkscan_list(scan *s);
/* Drops the values pending dict i holds. */
void cg_pkscan_pend_release(cg_pickle *pk, size_t i);
/* Takes the memo and the put and get counts back to what they were (memo
 * slots from memo0 on released), for a batch or an entry read again. */
void cg_pkscan_memo_undo(cg_pickle *pk, uint64_t memo0, uint64_t puts0, uint64_t gets0);
/* Entry i read by the keys the batch learned (pickle_template.c): true
 * when read, false when scan_entry must read it (nothing is then changed). */
bool cg_pkscan_entry_template(scan *s, size_t i);

#endif
