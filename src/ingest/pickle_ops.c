/* The opcodes of the restricted unpickler (pickle.h): the table of names
 * and refusals, the value and mark stacks, the memo, the containers and
 * the interpreter loop. Memory, input and values are in pickle.c. */
#include "pickle_impl.h"

#include "xalloc.h"

/* --- opcode table ---------------------------------------------------- */

/* Every opcode of pickle protocols 0 to 5 (Lib/pickle.py). */
enum opcode {
	OP_MARK = 0x28,
	OP_EMPTY_TUPLE = 0x29,
	OP_STOP = 0x2e,
	OP_POP = 0x30,
	OP_POP_MARK = 0x31,
	OP_DUP = 0x32,
	OP_BINBYTES = 0x42,
	OP_SHORT_BINBYTES = 0x43,
	OP_FLOAT = 0x46,
	OP_BINFLOAT = 0x47,
	OP_INT = 0x49,
	OP_BININT = 0x4a,
	OP_BININT1 = 0x4b,
	OP_LONG = 0x4c,
	OP_BININT2 = 0x4d,
	OP_NONE = 0x4e,
	OP_PERSID = 0x50,
	OP_BINPERSID = 0x51,
	OP_REDUCE = 0x52,
	OP_STRING = 0x53,
	OP_BINSTRING = 0x54,
	OP_SHORT_BINSTRING = 0x55,
	OP_UNICODE = 0x56,
	OP_BINUNICODE = 0x58,
	OP_EMPTY_LIST = 0x5d,
	OP_APPEND = 0x61,
	OP_BUILD = 0x62,
	OP_GLOBAL = 0x63,
	OP_DICT = 0x64,
	OP_APPENDS = 0x65,
	OP_GET = 0x67,
	OP_BINGET = 0x68,
	OP_INST = 0x69,
	OP_LONG_BINGET = 0x6a,
	OP_LIST = 0x6c,
	OP_OBJ = 0x6f,
	OP_PUT = 0x70,
	OP_BINPUT = 0x71,
	OP_LONG_BINPUT = 0x72,
	OP_SETITEM = 0x73,
	OP_TUPLE = 0x74,
	OP_SETITEMS = 0x75,
	OP_EMPTY_DICT = 0x7d,
	OP_PROTO = 0x80,
	OP_NEWOBJ = 0x81,
	OP_EXT1 = 0x82,
	OP_EXT2 = 0x83,
	OP_EXT4 = 0x84,
	OP_TUPLE1 = 0x85,
	OP_TUPLE2 = 0x86,
	OP_TUPLE3 = 0x87,
	OP_NEWTRUE = 0x88,
	OP_NEWFALSE = 0x89,
	OP_LONG1 = 0x8a,
	OP_LONG4 = 0x8b,
	OP_SHORT_BINUNICODE = 0x8c,
	OP_BINUNICODE8 = 0x8d,
	OP_BINBYTES8 = 0x8e,
	OP_EMPTY_SET = 0x8f,
	OP_ADDITEMS = 0x90,
	OP_FROZENSET = 0x91,
	OP_NEWOBJ_EX = 0x92,
	OP_STACK_GLOBAL = 0x93,
	OP_MEMOIZE = 0x94,
	OP_FRAME = 0x95,
	OP_BYTEARRAY8 = 0x96,
	OP_NEXT_BUFFER = 0x97,
	OP_READONLY_BUFFER = 0x98,
};

enum { ACCEPT, REFUSE_CODE, REFUSE_UNUSED };

static const struct opinfo {
	const char *name;
	uint8_t refuse;
} opinfo[256] = {
	[OP_MARK] = {"MARK", ACCEPT},
	[OP_EMPTY_TUPLE] = {"EMPTY_TUPLE", ACCEPT},
	[OP_STOP] = {"STOP", ACCEPT},
	[OP_POP] = {"POP", ACCEPT},
	[OP_POP_MARK] = {"POP_MARK", ACCEPT},
	[OP_DUP] = {"DUP", ACCEPT},
	[OP_BINBYTES] = {"BINBYTES", REFUSE_UNUSED},
	[OP_SHORT_BINBYTES] = {"SHORT_BINBYTES", REFUSE_UNUSED},
	[OP_FLOAT] = {"FLOAT", REFUSE_UNUSED},
	[OP_BINFLOAT] = {"BINFLOAT", ACCEPT},
	[OP_INT] = {"INT", REFUSE_UNUSED},
	[OP_BININT] = {"BININT", ACCEPT},
	[OP_BININT1] = {"BININT1", ACCEPT},
	[OP_LONG] = {"LONG", REFUSE_UNUSED},
	[OP_BININT2] = {"BININT2", ACCEPT},
	[OP_NONE] = {"NONE", ACCEPT},
	[OP_PERSID] = {"PERSID", REFUSE_CODE},
	[OP_BINPERSID] = {"BINPERSID", REFUSE_CODE},
	[OP_REDUCE] = {"REDUCE", REFUSE_CODE},
	[OP_STRING] = {"STRING", REFUSE_UNUSED},
	[OP_BINSTRING] = {"BINSTRING", REFUSE_UNUSED},
	[OP_SHORT_BINSTRING] = {"SHORT_BINSTRING", REFUSE_UNUSED},
	[OP_UNICODE] = {"UNICODE", REFUSE_UNUSED},
	[OP_BINUNICODE] = {"BINUNICODE", ACCEPT},
	[OP_EMPTY_LIST] = {"EMPTY_LIST", ACCEPT},
	[OP_APPEND] = {"APPEND", ACCEPT},
	[OP_BUILD] = {"BUILD", REFUSE_CODE},
	[OP_GLOBAL] = {"GLOBAL", REFUSE_CODE},
	[OP_DICT] = {"DICT", ACCEPT},
	[OP_APPENDS] = {"APPENDS", ACCEPT},
	[OP_GET] = {"GET", REFUSE_UNUSED},
	[OP_BINGET] = {"BINGET", ACCEPT},
	[OP_INST] = {"INST", REFUSE_CODE},
	[OP_LONG_BINGET] = {"LONG_BINGET", ACCEPT},
	[OP_LIST] = {"LIST", ACCEPT},
	[OP_OBJ] = {"OBJ", REFUSE_CODE},
	[OP_PUT] = {"PUT", REFUSE_UNUSED},
	[OP_BINPUT] = {"BINPUT", ACCEPT},
	[OP_LONG_BINPUT] = {"LONG_BINPUT", ACCEPT},
	[OP_SETITEM] = {"SETITEM", ACCEPT},
	[OP_TUPLE] = {"TUPLE", ACCEPT},
	[OP_SETITEMS] = {"SETITEMS", ACCEPT},
	[OP_EMPTY_DICT] = {"EMPTY_DICT", ACCEPT},
	[OP_PROTO] = {"PROTO", ACCEPT},
	[OP_NEWOBJ] = {"NEWOBJ", REFUSE_CODE},
	[OP_EXT1] = {"EXT1", REFUSE_CODE},
	[OP_EXT2] = {"EXT2", REFUSE_CODE},
	[OP_EXT4] = {"EXT4", REFUSE_CODE},
	[OP_TUPLE1] = {"TUPLE1", ACCEPT},
	[OP_TUPLE2] = {"TUPLE2", ACCEPT},
	[OP_TUPLE3] = {"TUPLE3", ACCEPT},
	[OP_NEWTRUE] = {"NEWTRUE", ACCEPT},
	[OP_NEWFALSE] = {"NEWFALSE", ACCEPT},
	[OP_LONG1] = {"LONG1", ACCEPT},
	[OP_LONG4] = {"LONG4", ACCEPT},
	[OP_SHORT_BINUNICODE] = {"SHORT_BINUNICODE", ACCEPT},
	[OP_BINUNICODE8] = {"BINUNICODE8", ACCEPT},
	[OP_BINBYTES8] = {"BINBYTES8", REFUSE_UNUSED},
	[OP_EMPTY_SET] = {"EMPTY_SET", REFUSE_UNUSED},
	[OP_ADDITEMS] = {"ADDITEMS", REFUSE_UNUSED},
	[OP_FROZENSET] = {"FROZENSET", REFUSE_UNUSED},
	[OP_NEWOBJ_EX] = {"NEWOBJ_EX", REFUSE_CODE},
	[OP_STACK_GLOBAL] = {"STACK_GLOBAL", REFUSE_CODE},
	[OP_MEMOIZE] = {"MEMOIZE", ACCEPT},
	[OP_FRAME] = {"FRAME", ACCEPT},
	[OP_BYTEARRAY8] = {"BYTEARRAY8", REFUSE_UNUSED},
	[OP_NEXT_BUFFER] = {"NEXT_BUFFER", REFUSE_CODE},
	[OP_READONLY_BUFFER] = {"READONLY_BUFFER", REFUSE_CODE},
};

const char *cg_pickle_opcode_name(unsigned char op) { return opinfo[op].name; }

/* --- stack and memo -------------------------------------------------- */

static int grow_stack(cg_pickle *pk, uint64_t at)
{
	if (pk->sp >= pk->o.max_depth)
		return cg_pickle_fail_at(pk, at, "more than %zu values on the stack (nested too deep)",
					 pk->o.max_depth);
	size_t want = pk->stack_cap ? pk->stack_cap * 2 : 64;
	if (want > pk->o.max_depth)
		want = pk->o.max_depth;
	pk->stack = cg_reallocarray(pk->stack, want, sizeof *pk->stack);
	pk->stack_cap = want;
	return 0;
}

static int push_mark(cg_pickle *pk, uint64_t at)
{
	if (pk->nmarks >= pk->o.max_depth)
		return cg_pickle_fail_at(pk, at, "more than %zu MARKs open (nested too deep)",
					 pk->o.max_depth);
	if (pk->nmarks == pk->marks_cap)
		CG_GROW(pk->marks, pk->marks_cap, pk->nmarks + 1);
	pk->marks[pk->nmarks++] = pk->sp;
	pk->floor = pk->sp;
	return 0;
}

/* Closes the innermost mark: *mark is where its values start. */
static int pop_mark(cg_pickle *pk, uint64_t at, unsigned op, size_t *mark)
{
	if (!pk->nmarks)
		return cg_pickle_fail_at(pk, at, "%s without a MARK before it (mark stack underflow)",
					 opinfo[op].name);
	*mark = pk->marks[--pk->nmarks];
	pk->floor = pk->nmarks ? pk->marks[pk->nmarks - 1] : 0;
	return 0;
}

static int underflow(cg_pickle *pk, uint64_t at, unsigned op)
{
	return cg_pickle_fail_at(pk, at, "%s needs more values than the stack holds (stack underflow)",
				 opinfo[op].name);
}

static int memo_put(cg_pickle *pk, uint64_t idx, uint64_t at)
{
	if (pk->sp == pk->floor)
		return cg_pickle_fail_at(pk, at, "a memo put with nothing on the stack (stack underflow)");
	if (idx >= pk->o.max_memo)
		return cg_pickle_fail_at(pk, at, "memo index %llu is beyond the limit of %llu",
					 (unsigned long long)idx, (unsigned long long)pk->o.max_memo);
	if (idx >= pk->memo_len) {
		/* A pickler numbers its memo entries in order; allowing gaps only
		 * in proportion to the puts so far keeps the memo's memory linear
		 * in the file. */
		if (idx >= 2 * pk->puts + 1024)
			return cg_pickle_fail_at(
				pk, at, "memo index %llu skips far past the %llu entries stored so far",
				(unsigned long long)idx, (unsigned long long)pk->puts);
		if (idx >= pk->memo_cap)
			cg_pickle_memo_grow(pk, idx);
		memset(pk->memo + pk->memo_len, 0, ((size_t)idx + 1 - pk->memo_len) * sizeof *pk->memo);
		pk->memo_len = (size_t)idx + 1;
		cg_prefault_used(pk->o.prefault, pk->o.prefault_region, pk->memo_len * sizeof *pk->memo);
	}
	cg_pk *old = pk->memo[idx], *v = pk->stack[pk->sp - 1];
	if (!old)
		pk->memo_count++;
	else
		cg_pickle_memo_slot_changed(pk, idx);
	ref(v);
	if (old && old != &cg_pickle_consumed)
		cg_pickle_release(pk, old);
	pk->memo[idx] = v;
	v->memo = (uint32_t)idx + 1;
	pk->puts++;
	return 0;
}

static int memo_missing(cg_pickle *pk, uint64_t idx, uint64_t at)
{
	if (idx < pk->memo_len && pk->memo[idx] == &cg_pickle_consumed)
		return cg_pickle_fail_at(pk, at,
					 "memo entry %llu was consumed (taken by the reader's item callback)",
					 (unsigned long long)idx);
	if (idx >= pk->o.max_memo)
		return cg_pickle_fail_at(pk, at, "memo index %llu is beyond the limit of %llu",
					 (unsigned long long)idx, (unsigned long long)pk->o.max_memo);
	return cg_pickle_fail_at(pk, at, "memo entry %llu is empty (the memo has %zu slots)",
				 (unsigned long long)idx, pk->memo_len);
}

/* --- containers ------------------------------------------------------ */

/* Calls on_item for item about to join list, which sits at stack index
 * list_pos (for LIST: would sit). 1: taken, 0: append it, < 0: error. */
static int offer(cg_pickle *pk, cg_pk *list, size_t list_pos, cg_pk *item)
{
	const cg_pk *below[MAX_BELOW];
	size_t nb = 0;
	for (size_t i = list_pos; i > 0 && nb < MAX_BELOW; i--)
		below[nb++] = pk->stack[i - 1];
	int rc = pk->o.on_item(pk->o.ctx, list, below, nb, item, pk->err);
	if (rc <= 0)
		return rc;
	/* Taken: when its memo slot is the only other holder, empty that slot
	 * too, or the memo would keep every trace entry alive. */
	if (item->refs == 2 && item->memo && item->memo <= pk->memo_len && pk->memo[item->memo - 1] == item) {
		pk->memo[item->memo - 1] = &cg_pickle_consumed;
		item->refs--;
		cg_pickle_memo_slot_changed(pk, item->memo - 1);
	}
	cg_pickle_release(pk, item);
	return 1;
}

/* Appends items[0..n) (the stack's references move into the list). */
static int list_extend(cg_pickle *pk, cg_pk *list, size_t list_pos, cg_pk **items, size_t n, uint64_t at,
		       unsigned op)
{
	if (list->type != CG_PK_LIST)
		return cg_pickle_fail_at(pk, at, "%s to a value that is not a list", opinfo[op].name);
	if (!pk->o.on_item) {
		if (n > MAX_LEN - list->len)
			return cg_pickle_fail_at(pk, at, "a list of more than %u items", MAX_LEN);
		cg_pickle_items_reserve(pk, list, list->len, n);
		memcpy(list->v.items + list->len, items, n * sizeof *items);
		list->len += (uint32_t)n;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		int rc = offer(pk, list, list_pos, items[i]);
		if (rc < 0)
			return rc; /* the load stops: cg_pickle_free() takes the rest */
		if (rc)
			continue;
		if (list->len == MAX_LEN)
			return cg_pickle_fail_at(pk, at, "a list of more than %u items", MAX_LEN);
		cg_pickle_items_reserve(pk, list, list->len, 1);
		list->v.items[list->len++] = items[i];
	}
	return 0;
}

static bool same_key(const cg_pk *a, const cg_pk *b)
{
	if (a == b)
		return true;
	if (a->type != b->type || a->len != b->len)
		return false;
	if (a->type == CG_PK_STR)
		return a->v.s[0] == b->v.s[0] && memcmp(a->v.s, b->v.s, a->len) == 0;
	return a->type == CG_PK_INT && a->flags == b->flags && a->v.u == b->v.u;
}

/* One of 64 bits standing for key k, the same for keys same_key() equates:
 * a key whose bit no key of the dict has is new without a comparison. */
static inline uint64_t key_bit(const cg_pk *k)
{
	uint64_t h;
	if (k->type == CG_PK_STR)
		h = k->len ? k->len ^ (uint64_t)(unsigned char)k->v.s[0] << 8 ^
				     (uint64_t)(unsigned char)k->v.s[k->len - 1] << 16
			   : 0;
	else if (k->type == CG_PK_INT)
		h = k->v.u ^ k->flags;
	else
		h = (uint64_t)(uintptr_t)k;
	return (uint64_t)1 << (h * 0x9e3779b97f4a7c15ull >> 58);
}

/* Sets the pairs kv[0..2n) in d, in order. A repeated key (str by bytes,
 * int by value) keeps its first place and takes the new value, as in
 * Python, while the dict has at most SMALL_DICT pairs. Beyond that the
 * check would be quadratic on a hostile dict, so a repeated key is kept as
 * another pair and cg_pk_dict_get(), which looks from the end, still gives
 * its last value; Python's pickler never writes a key twice. */
static int dict_update(cg_pickle *pk, cg_pk *d, cg_pk **kv, size_t n, uint64_t at, unsigned op)
{
	if (d->type != CG_PK_DICT)
		return cg_pickle_fail_at(pk, at, "%s on a value that is not a dict", opinfo[op].name);
	if (n > MAX_LEN - d->len)
		return cg_pickle_fail_at(pk, at, "a dict of more than %u pairs", MAX_LEN);
	d->flags &= (uint8_t)~PK_DICT_NOT_ENTRY;
	cg_pickle_memo_changed(pk); /* a list remembered by its gets may hold d (cg_pickle_list_memo_find) */
	size_t reserved = 2 * ((size_t)d->len + n);
	cg_pickle_items_reserve(pk, d, (size_t)d->len * 2, n * 2);
	cg_pk **items = d->v.items;
	uint64_t keys = 0; /* key_bit() of every key so far */
	for (size_t j = 0; j < d->len && d->len <= SMALL_DICT; j++)
		keys |= key_bit(items[2 * j]);
	for (size_t i = 0; i < n; i++) {
		cg_pk *k = kv[2 * i], *v = kv[2 * i + 1];
		size_t j = d->len;
		if (d->len <= SMALL_DICT) {
			uint64_t bit = key_bit(k);
			if (keys & bit)
				for (j = 0; j < d->len && !same_key(items[2 * j], k); j++)
					;
			keys |= bit;
		}
		if (j < d->len) {
			cg_pickle_release(pk, items[2 * j + 1]);
			items[2 * j + 1] = v;
			cg_pickle_release(pk, k);
			continue;
		}
		items[2 * j] = k;
		items[2 * j + 1] = v;
		d->len++;
	}
	/* The array's size must stay the one its length implies. */
	if (items_cap(2 * (size_t)d->len) != items_cap(reserved)) {
		cg_pk **fit = block_alloc(pk, items_cap(2 * (size_t)d->len) * sizeof *fit);
		memcpy(fit, items, 2 * (size_t)d->len * sizeof *fit);
		block_free(pk, items, items_cap(reserved) * sizeof *fit);
		d->v.items = fit;
	}
	return 0;
}

int cg_pickle_dict_set(cg_pickle *pk, cg_pk *d, cg_pk **kv, size_t n)
{
	return dict_update(pk, d, kv, n, 0, OP_SETITEMS);
}

static cg_pk *tuple_new(cg_pickle *pk, cg_pk **items, size_t n)
{
	cg_pk *t = node_new(pk, CG_PK_TUPLE);
	if (n) {
		t->v.items = block_alloc(pk, items_cap(n) * sizeof(cg_pk *));
		memcpy(t->v.items, items, n * sizeof *items);
	}
	t->len = (uint32_t)n;
	return t;
}

/* --- the opcodes ------------------------------------------------------ */

static int refuse(cg_pickle *pk, unsigned op, uint64_t at)
{
	const struct opinfo *i = &opinfo[op];
	if (!i->name)
		return cg_pickle_fail_at(pk, at, "unknown opcode 0x%02x", op);
	if (i->refuse == REFUSE_CODE)
		return cg_pickle_fail_at(pk, at,
					 "opcode %s (0x%02x) refused: it would import and call Python code; "
					 "a snapshot holds only plain data",
					 i->name, op);
	return cg_pickle_fail_at(pk, at,
				 "opcode %s (0x%02x) refused: it is not used by PyTorch snapshots "
				 "(protocol 0/1 text, bytes and sets are not read)",
				 i->name, op);
}

/* The loop keeps the input position in locals (a store to a node's uint8_t
 * fields may alias pk->p, which would make the compiler reload it); they
 * go back to pk around the calls that read input. */
#define NEED(k)                                           \
	do {                                              \
		if ((size_t)(end - p) < (size_t)(k))      \
			INPUT(cg_pickle_refill(pk, (k))); \
	} while (0)

#define INPUT(call)                                               \
	do {                                                      \
		pk->p = p;                                        \
		rc = (call);                                      \
		p = pk->p;                                        \
		end = pk->end;                                    \
		origin = pk->base - (uint64_t)(uintptr_t)pk->buf; \
		if (rc < 0)                                       \
			goto fail;                                \
	} while (0)

#define PUSH(v)                                                                 \
	do {                                                                    \
		cg_pk *pushed_ = (v);                                           \
		if (pk->sp == pk->stack_cap && (rc = grow_stack(pk, at)) < 0) { \
			cg_pickle_release(pk, pushed_);                         \
			goto fail;                                              \
		}                                                               \
		pk->stack[pk->sp++] = pushed_;                                  \
	} while (0)

#define NEED_VALUES(k)                              \
	do {                                        \
		if (pk->sp - pk->floor < (k)) {     \
			rc = underflow(pk, at, op); \
			goto fail;                  \
		}                                   \
	} while (0)

#define CHECK(expr)                    \
	do {                           \
		if ((rc = (expr)) < 0) \
			goto fail;     \
	} while (0)

int cg_pickle_run(cg_pickle *pk, cg_pk **root)
{
	int rc = 0;
	uint64_t at = 0;
	unsigned op;
	size_t mark = 0;
	cg_pk *v;
	unsigned char *p = pk->p, *end = pk->end;
	uint64_t origin = pk->base - (uint64_t)(uintptr_t)pk->buf; /* origin + p: p's stream offset */

	NEED(1);
	if (p[0] != OP_PROTO)
		return cg_pickle_fail_at(
			pk, 0, "not a pickle of protocol 2 to 5 (it does not start with the PROTO opcode)");
	for (;;) {
		NEED(1);
		at = origin + (uint64_t)(uintptr_t)p;
		op = *p++;
		switch (op) {
		case OP_BINGET:
		case OP_LONG_BINGET: {
			uint64_t idx;
			if (op == OP_BINGET) {
				NEED(1);
				idx = *p++;
			} else {
				NEED(4);
				idx = rd32(p);
				p += 4;
			}
			if (idx >= pk->memo_len || !pk->memo[idx] || pk->memo[idx] == &cg_pickle_consumed) {
				rc = memo_missing(pk, idx, at);
				goto fail;
			}
			v = pk->memo[idx];
			if (v->flags & PK_LIST_SHARED && v->type == CG_PK_LIST)
				v = cg_pickle_unshare(pk, (size_t)idx);
			ref(v);
			PUSH(v);
			pk->gets++;
			break;
		}
		case OP_MEMOIZE:
			CHECK(memo_put(pk, pk->memo_count, at));
			break;
		case OP_BINPUT:
			NEED(1);
			CHECK(memo_put(pk, *p++, at));
			break;
		case OP_LONG_BINPUT:
			NEED(4);
			p += 4;
			CHECK(memo_put(pk, rd32(p - 4), at));
			break;
		case OP_BININT1:
			NEED(1);
			v = node_new(pk, CG_PK_INT);
			v->v.i = *p++;
			PUSH(v);
			break;
		case OP_BININT2:
			NEED(2);
			v = node_new(pk, CG_PK_INT);
			v->v.i = p[0] | p[1] << 8;
			p += 2;
			PUSH(v);
			break;
		case OP_BININT:
			NEED(4);
			v = node_new(pk, CG_PK_INT);
			v->v.i = (int32_t)rd32(p);
			p += 4;
			PUSH(v);
			break;
		case OP_LONG1: { /* addresses and times: 5 to 9 bytes */
			NEED(1);
			unsigned n = *p;
			NEED(1 + n);
			v = node_new(pk, CG_PK_INT);
			if (n <= 8 && end - p >= 9) {
				uint64_t w = rd64(p + 1);
				if (n < 8) { /* sign-extend the n bytes */
					unsigned shift = 64 - 8 * n;
					w = n ? (uint64_t)((int64_t)(w << shift) >> shift) : 0;
				}
				v->v.i = (int64_t)w;
			} else {
				longval lv = {0, 0, true, true, 0};
				long_feed(&lv, p + 1, n);
				if (!long_value(&lv, v)) {
					cg_pickle_release(pk, v);
					rc = cg_pickle_fail_at(
						pk, at, "integer does not fit in 64 bits (LONG1 of %u bytes)",
						n);
					goto fail;
				}
			}
			p += 1 + n;
			PUSH(v);
			break;
		}
		case OP_LONG4:
			INPUT(cg_pickle_read_long4(pk, at, &v));
			PUSH(v);
			break;
		case OP_BINFLOAT: {
			NEED(8);
			uint64_t bits = 0;
			for (int i = 0; i < 8; i++)
				bits = bits << 8 | p[i];
			p += 8;
			v = node_new(pk, CG_PK_FLOAT);
			memcpy(&v->v.f, &bits, sizeof bits);
			PUSH(v);
			break;
		}
		case OP_SHORT_BINUNICODE:
			NEED(1);
			p++;
			INPUT(cg_pickle_read_str(pk, p[-1], at, &v));
			PUSH(v);
			break;
		case OP_BINUNICODE:
			NEED(4);
			p += 4;
			INPUT(cg_pickle_read_str(pk, rd32(p - 4), at, &v));
			PUSH(v);
			break;
		case OP_BINUNICODE8:
			NEED(8);
			p += 8;
			INPUT(cg_pickle_read_str(pk, rd64(p - 8), at, &v));
			PUSH(v);
			break;
		case OP_NEWTRUE:
		case OP_NEWFALSE:
			v = node_new(pk, CG_PK_BOOL);
			v->v.b = op == OP_NEWTRUE;
			PUSH(v);
			break;
		case OP_NONE:
			PUSH(node_new(pk, CG_PK_NONE));
			break;
		case OP_EMPTY_DICT:
			PUSH(node_new(pk, CG_PK_DICT));
			break;
		case OP_EMPTY_LIST:
			PUSH(node_new(pk, CG_PK_LIST));
			break;
		case OP_EMPTY_TUPLE:
			PUSH(node_new(pk, CG_PK_TUPLE));
			break;
		case OP_MARK:
			if (pk->o.on_entry) {
				pk->p = p - 1;
				rc = cg_pickle_fast_batch(pk);
				/* it may have moved the input */
				p = pk->p;
				end = pk->end;
				origin = pk->base - (uint64_t)(uintptr_t)pk->buf;
				if (rc < 0)
					goto fail;
				if (rc > 0)
					break;
				p++; /* the general path reads the batch after its MARK */
			}
			CHECK(push_mark(pk, at));
			break;
		case OP_SETITEMS:
			CHECK(pop_mark(pk, at, op, &mark));
			if (mark == pk->floor) {
				rc = underflow(pk, at, op);
				goto fail;
			}
			if ((pk->sp - mark) % 2) {
				rc = cg_pickle_fail_at(pk, at, "SETITEMS with an odd number of values (%zu)",
						       pk->sp - mark);
				goto fail;
			}
			rc = dict_update(pk, pk->stack[mark - 1], pk->stack + mark, (pk->sp - mark) / 2, at,
					 op);
			pk->sp = mark;
			if (rc < 0)
				goto fail;
			break;
		case OP_SETITEM:
			NEED_VALUES(3);
			pk->sp -= 2;
			CHECK(dict_update(pk, pk->stack[pk->sp - 1], pk->stack + pk->sp, 1, at, op));
			break;
		case OP_APPEND:
			NEED_VALUES(2);
			pk->sp--;
			CHECK(list_extend(pk, pk->stack[pk->sp - 1], pk->sp - 1, pk->stack + pk->sp, 1, at,
					  op));
			break;
		case OP_APPENDS:
			CHECK(pop_mark(pk, at, op, &mark));
			if (mark == pk->floor) {
				rc = underflow(pk, at, op);
				goto fail;
			}
			rc = list_extend(pk, pk->stack[mark - 1], mark - 1, pk->stack + mark, pk->sp - mark,
					 at, op);
			pk->sp = mark;
			if (rc < 0)
				goto fail;
			break;
		case OP_LIST:
			CHECK(pop_mark(pk, at, op, &mark));
			v = node_new(pk, CG_PK_LIST);
			rc = list_extend(pk, v, mark, pk->stack + mark, pk->sp - mark, at, op);
			pk->sp = mark;
			if (rc < 0) {
				cg_pickle_release(pk, v);
				goto fail;
			}
			PUSH(v);
			break;
		case OP_DICT:
			CHECK(pop_mark(pk, at, op, &mark));
			if ((pk->sp - mark) % 2) {
				rc = cg_pickle_fail_at(pk, at, "DICT with an odd number of values (%zu)",
						       pk->sp - mark);
				goto fail;
			}
			v = node_new(pk, CG_PK_DICT);
			rc = dict_update(pk, v, pk->stack + mark, (pk->sp - mark) / 2, at, op);
			pk->sp = mark;
			if (rc < 0) {
				cg_pickle_release(pk, v);
				goto fail;
			}
			PUSH(v);
			break;
		case OP_TUPLE:
			CHECK(pop_mark(pk, at, op, &mark));
			if (pk->sp - mark > MAX_LEN) {
				rc = cg_pickle_fail_at(pk, at, "a tuple of more than %u items", MAX_LEN);
				goto fail;
			}
			v = tuple_new(pk, pk->stack + mark, pk->sp - mark);
			pk->sp = mark;
			PUSH(v);
			break;
		case OP_TUPLE1:
		case OP_TUPLE2:
		case OP_TUPLE3: {
			size_t n = op - OP_TUPLE1 + 1u;
			NEED_VALUES(n);
			pk->sp -= n;
			PUSH(tuple_new(pk, pk->stack + pk->sp, n));
			break;
		}
		case OP_POP:
			if (pk->sp > pk->floor)
				cg_pickle_release(pk, pk->stack[--pk->sp]);
			else if (pk->nmarks) /* as Python: POP of an empty frame drops its mark */
				pop_mark(pk, at, op, &mark);
			else
				NEED_VALUES(1);
			break;
		case OP_POP_MARK:
			CHECK(pop_mark(pk, at, op, &mark));
			while (pk->sp > mark)
				cg_pickle_release(pk, pk->stack[--pk->sp]);
			break;
		case OP_DUP:
			NEED_VALUES(1);
			v = pk->stack[pk->sp - 1];
			ref(v);
			PUSH(v);
			break;
		case OP_FRAME: {
			NEED(8);
			uint64_t n = rd64(p), left;
			p += 8;
			left = bytes_left(pk, pos(pk, p));
			if (n > MAX_FRAME || n > left) {
				rc = cg_pickle_fail_at(pk, at, "a FRAME of %llu bytes %s",
						       (unsigned long long)n,
						       n > left ? "runs past the end of the file"
								: "is larger than the limit");
				goto fail;
			}
			break; /* frames only group opcodes: read through them */
		}
		case OP_PROTO:
			NEED(1);
			pk->protocol = *p++;
			if (pk->protocol < 2 || pk->protocol > 5) {
				rc = cg_pickle_fail_at(pk, at,
						       "pickle protocol %d is not supported (2 to 5 are)",
						       pk->protocol);
				goto fail;
			}
			break;
		case OP_STOP:
			if (pk->nmarks || pk->sp != 1) {
				rc = cg_pickle_fail_at(pk, at,
						       "STOP with %zu values and %zu MARKs on the stack (one "
						       "value expected)",
						       pk->sp, pk->nmarks);
				goto fail;
			}
			*root = pk->stack[--pk->sp];
			return 0;
		default:
			rc = refuse(pk, op, at);
			goto fail;
		}
	}
fail:
	return rc;
}
