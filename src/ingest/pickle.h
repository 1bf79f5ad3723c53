/* A restricted unpickler: reads the data-only subset of Python's pickle
 * format (protocols 2 to 5) into a tree of plain values — None, bool, int,
 * float, str, tuple, list, dict — and refuses every opcode that would
 * import or call anything (GLOBAL, REDUCE, BUILD, ...) at its byte offset.
 * Nothing in a pickle is ever executed.
 *
 * The memo is shared, not copied: BINGET pushes the same node again, so a
 * list referenced a million times costs one list and a million pointers.
 * Nodes are reference-counted and owned by the cg_pickle; they live until
 * cg_pickle_free(). Input is pulled in chunks from a cg_reader, so the file
 * is never held whole.
 *
 * Big inputs whose bulk is one long list (a snapshot's trace entries) can be
 * consumed while they are read: the on_item callback sees every item about
 * to be appended to a list and may take it, after which the unpickler drops
 * it (and its memo slot: a later BINGET of it is an error). The tree then
 * never holds the bulk.
 *
 *     cg_pickle *pk;
 *     const cg_pk *root;
 *     if (cg_pickle_load(&pk, reader, NULL, &root, &err) < 0) ...;
 *     const cg_pk *segs = cg_pk_dict_get(root, "segments");
 *     ...
 *     cg_pickle_free(pk);
 */
#ifndef CG_PICKLE_H
#define CG_PICKLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "prefault.h"
#include "reader.h"

typedef enum cg_pk_type {
	CG_PK_NONE,
	CG_PK_BOOL,
	CG_PK_INT,
	CG_PK_FLOAT,
	CG_PK_STR,
	CG_PK_TUPLE,
	CG_PK_LIST,
	CG_PK_DICT,
} cg_pk_type;

/* cg_pk.flags */
enum {
	CG_PK_INT_UNSIGNED = 1 << 0, /* int: value in [2^63, 2^64), held in v.u */
	CG_PK_STR_NOT_UTF8 = 1 << 1, /* str: bytes are not valid UTF-8 (lone surrogates, as CPython writes them) */
};

/* One value. Read the fields directly; do not modify. For a dict, items
 * holds len (key, value) pairs: items[2k] is a key, items[2k+1] its value,
 * in the file's order (a repeated key keeps its first place and its last
 * value, as Python; in a dict above 32 pairs the check would cost too much
 * on a hostile file, so a repeat is kept as another pair there, and
 * cg_pk_dict_get() still finds the last value). A str may hold NUL bytes:
 * len is its length. */
typedef struct cg_pk {
	uint8_t type;  /* cg_pk_type */
	uint8_t flags;
	uint32_t len;  /* str: bytes; tuple, list: items; dict: pairs */
	uint32_t refs; /* holders (parents, stack, memo): above 1 in a callback, something keeps it after the item goes */
	uint32_t memo; /* internal */
	union {
		bool b;
		int64_t i;  /* int, unless CG_PK_INT_UNSIGNED */
		uint64_t u; /* int with CG_PK_INT_UNSIGNED */
		double f;
		const char *s;	     /* str: len bytes, NUL-terminated */
		struct cg_pk **items; /* tuple, list, dict */
	} v;
} cg_pk;

typedef struct cg_pickle cg_pickle;

/* Called for each item about to be appended to a list (APPEND, APPENDS, and
 * LIST's items). list is the list; below[0..nbelow) are the values on the
 * unpickler's stack under the list, nearest first, marks skipped (at most
 * 4; for LIST, the values under its mark). As CPython writes
 * {"device_traces": [[e0, e1]]}, e0's list has below = {outer list,
 * "device_traces", the dict}; with two inner lists (MARK inner0 inner1
 * APPENDS) inner1's below[0] is inner0. Return 1 to take the item (it is
 * not appended and is dropped after the call, with its memo slot when that
 * was its only other holder, so a later BINGET of it fails as "consumed";
 * copy what you need), 0 to let it be appended, or a negative code with err
 * set to stop the load. */
typedef int (*cg_pk_item_fn)(void *ctx, const cg_pk *list, const cg_pk *const *below, size_t nbelow,
			     const cg_pk *item, cg_error *err);

/* The fast path for the bulk of such a list (pickle_fast.c). When
 * on_entry is set, a batch MARK d0 d1 ... APPENDS whose items are all dicts
 * of plain values (ints, strs, memo references, lists of memo references)
 * is read without building the dicts: for each dict, values[k] is the
 * value of its last pair whose key is the str entry_keys[k] (NULL when
 * none), an int, None, bool or float being a node valid only during the
 * call. on_entry is called, in order, when the APPENDS is reached, exactly
 * where on_item would have been; the dicts' memo slots become "consumed".
 * Anything else (another opcode, a memo reference to a dict of the batch,
 * a batch longer than the buffered input, a limit that would be reached)
 * sends the whole batch back to the general path, which then gives the
 * same result and the same errors.
 *
 * The caller promises that on_item takes (returns nonzero for) exactly the
 * dicts whose entry_keys[0] value is a str, and that on_entry does to them
 * what on_item would: the fast path reads only such dicts, and leaves the
 * items of lists inside them (a stack's frame dicts) without offering
 * them, after checking they are not such dicts. */
typedef int (*cg_pk_entry_fn)(void *ctx, const cg_pk *list, const cg_pk *const *values, cg_error *err);

#define CG_PK_ENTRY_MAX_KEYS 8

typedef struct cg_pickle_options {
	cg_pk_item_fn on_item; /* NULL: keep every item */
	void *ctx;
	size_t max_depth;  /* values on the stack at once; 0: 1,000,000 */
	uint64_t max_memo; /* memo indices must be below it; 0 (or more): 2^32 - 2 */
	cg_pk_entry_fn on_entry;       /* NULL: no fast path (needs on_item) */
	const char *const *entry_keys; /* nentry_keys <= CG_PK_ENTRY_MAX_KEYS, entry_keys[0] the one that must be a str */
	size_t nentry_keys;
	cg_prefault *prefault;	  /* NULL, or makes the memo's pages present ahead (prefault.h) */
	unsigned prefault_region; /* ... as this region */
} cg_pickle_options;

#define CG_PICKLE_OPTIONS_INIT {NULL, NULL, 0, 0, NULL, NULL, 0, NULL, 0}

/* Reads one pickle from r (from its current position) up to STOP; bytes
 * after STOP may have been read from r too. *root is the top value, owned
 * by *out. Errors name the reader's file and the byte offset in the
 * decompressed data, counted from where the load started (the file's start
 * when nothing was read before; peeking does not count): "snap.pickle:
 * byte 1234: opcode GLOBAL (0x63) refused: it would import and call Python
 * code; a snapshot holds only plain data". On error *out and *root are
 * NULL. Returns 0, CG_EINPUT for bad or refused data, a reader's code
 * (corrupt gzip, I/O), or what on_item returned. */
int cg_pickle_load(cg_pickle **out, cg_reader *r, const cg_pickle_options *o, const cg_pk **root,
		   cg_error *err);
void cg_pickle_free(cg_pickle *pk);

/* The protocol from the PROTO opcode (2..5). */
int cg_pickle_protocol(const cg_pickle *pk);
/* Memo puts and gets performed, for statistics. */
uint64_t cg_pickle_memo_puts(const cg_pickle *pk);
uint64_t cg_pickle_memo_gets(const cg_pickle *pk);
/* Items given to on_entry by the fast path, and batches it sent back to
 * the general path, for statistics. */
uint64_t cg_pickle_fast_entries(const cg_pickle *pk);
uint64_t cg_pickle_fast_fallbacks(const cg_pickle *pk);

/* Looks key up in dict d (NULL when d is not a dict or has no such str key). */
const cg_pk *cg_pk_dict_get(const cg_pk *d, const char *key);
/* True when v is a str equal to s. */
bool cg_pk_str_is(const cg_pk *v, const char *s);
/* Integer accessors: false when v is not an int (bools are not ints here)
 * or the value does not fit. */
bool cg_pk_uint(const cg_pk *v, uint64_t *out);
bool cg_pk_int(const cg_pk *v, int64_t *out);
/* Items of a list or tuple (NULL, 0 for anything else). */
static inline size_t cg_pk_seq(const cg_pk *v, cg_pk *const **items)
{
	if (v && (v->type == CG_PK_LIST || v->type == CG_PK_TUPLE)) {
		*items = v->v.items;
		return v->len;
	}
	*items = NULL;
	return 0;
}

/* Keeps v alive until cg_pickle_free, whatever happens to its holders:
 * a caller that remembers nodes by address (a cache) keeps them, so an
 * address never comes back as another node. Callable from on_item. */
void cg_pk_keep(const cg_pk *v);

/* The name of opcode byte op ("GLOBAL"), or NULL when it is not a pickle opcode. */
const char *cg_pickle_opcode_name(unsigned char op);

#endif
