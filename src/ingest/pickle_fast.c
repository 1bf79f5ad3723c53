/* The unpickler's fast path (pickle.h, on_entry): a batch of trace entries
 * read straight from the opcodes, without building the dicts, their ints
 * and their keys. A snapshot's bulk is millions of batches like
 *
 *     MARK  EMPTY_DICT MEMOIZE MARK  BINGET "action" BINGET "alloc"
 *           BINGET "addr" LONG1 ...  BINGET "frames" BINGET <list>  SETITEMS
 *           EMPTY_DICT ...  APPENDS
 *
 * The batch is read speculatively: nothing the general path would do
 * differently is committed before its APPENDS. The memo puts made on the
 * way are the general path's own (the same slots, the same nodes for the
 * values that are memoized); everything else waits in pk->pend. When an
 * opcode falls outside this grammar, or the batch runs past the buffered
 * input, or a limit of the general path could be reached inside it, the
 * memo and the counters are put back and the general path reads the batch
 * from its MARK: the result, errors included, is the general path's. */
#include "pickle_scan.h"

#include "xalloc.h"


/* FRAME opcodes only group others: skipped with the general path's checks. */
static bool skip_frames_slow(scan *s)
{
	while (s->p < s->end && *s->p == F_FRAME) {
		if (s->end - s->p < 9)
			return false;
		uint64_t n = rd64(s->p + 1), left = bytes_left(s->pk, pos(s->pk, (unsigned char *)s->p + 9));
		if (n > MAX_FRAME || n > left)
			return false;
		s->p += 9;
	}
	return s->p < s->end;
}

/* Called before every opcode: the common case (no FRAME here) inline. */
static inline bool skip_frames(scan *s)
{
	if (s->p < s->end && *s->p != F_FRAME)
		return true;
	return skip_frames_slow(s);
}

static inline bool have(const scan *s, size_t k) { return (size_t)(s->end - s->p) >= k; }

/* A push of the general path: it fails once the stack holds max_depth. */
static inline bool push(scan *s)
{
	if (s->vsp >= s->pk->o.max_depth)
		return false;
	s->vsp++;
	return true;
}

bool cg_pkscan_memoize(scan *s, cg_pk *v)
{
	cg_pickle *pk = s->pk;
	uint64_t idx = pk->memo_count; /* == memo_len (cg_pickle_fast_batch) */
	if (idx >= pk->o.max_memo)
		return false;
	if (idx >= pk->memo_cap)
		cg_pickle_memo_grow(pk, idx);
	pk->memo[idx] = v;
	if (v != &cg_pickle_consumed) {
		ref(v);
		v->memo = (uint32_t)idx + 1;
	}
	pk->memo_len++;
	pk->memo_count++;
	if ((pk->memo_len & 4095) == 0) /* now and then: the thread keeps 32 MiB ahead */
		cg_prefault_used(pk->o.prefault, pk->o.prefault_region, pk->memo_len * sizeof *pk->memo);
	pk->puts++;
	return true;
}

/* BINGET or LONG_BINGET at s->p (already known): the node, borrowed. */
static inline __attribute__((always_inline)) cg_pk *get(scan *s)
{
	cg_pickle *pk = s->pk;
	uint64_t idx;
	if (*s->p == F_BINGET) {
		if (!have(s, 2))
			return NULL;
		idx = s->p[1];
		s->p += 2;
	} else {
		if (!have(s, 5))
			return NULL;
		idx = rd32(s->p + 1);
		s->p += 5;
	}
	/* a consumed slot is an error, and a dict of this batch (consumed
	 * here, not yet there) would be pushed: both for the general path */
	if (idx >= pk->memo_len || !pk->memo[idx] || pk->memo[idx] == &cg_pickle_consumed)
		return NULL;
	pk->gets++;
	return pk->memo[idx];
}

/* What on_item takes (pickle.h): a dict whose entry_keys[0] is a str.
 * A dict found not to be one is marked so (its pairs change only in
 * cg_pickle_dict_set, which clears the mark): a stack's frame dicts are
 * checked millions of times. */
static __attribute__((noinline)) bool is_entry_dict(const scan *s, cg_pk *d)
{
	const char *key = s->pk->o.entry_keys[0];
	size_t n = s->pk->entry_klen[0];
	for (uint32_t i = d->len; i > 0; i--) {
		const cg_pk *k = d->v.items[2 * i - 2];
		if (k->type == CG_PK_STR && k->len == n && !memcmp(k->v.s, key, n)) {
			if (d->v.items[2 * i - 1]->type == CG_PK_STR)
				return true;
			break;
		}
	}
	d->flags |= PK_DICT_NOT_ENTRY;
	return false;
}

static inline bool is_entry(const scan *s, cg_pk *d)
{
	return d->type == CG_PK_DICT && !(d->flags & PK_DICT_NOT_ENTRY) && is_entry_dict(s, d);
}


static bool is_get(const scan *s) { return *s->p == F_BINGET || *s->p == F_LONG_BINGET; }

static inline bool scan_value(scan *s, fval *v, bool lists);

/* The value as a node (the reference held moves to it). */
static cg_pk *node_of(cg_pickle *pk, fval *v)
{
	if (v->node)
		return v->node;
	if (v->inl.type == CG_PK_STR)
		return cg_pickle_str_copy(pk, v->inl.v.s, v->inl.len);
	cg_pk *n = node_new(pk, v->inl.type);
	n->flags = v->inl.flags;
	n->v = v->inl.v;
	return n;
}

/* A str about to be memoized (one reference held). A str cannot change,
 * so memoizing the same short bytes again shares the node: in a snapshot
 * every entry memoizes its own "N/A", 40 bytes each kept by the memo to
 * the end. Only ASCII, valid UTF-8: str nodes that are not are counted
 * one by one (strings_not_utf8). Shared nodes are kept, so an address
 * stays its node's. */
cg_pk *cg_pkscan_memo_str(cg_pickle *pk, const cg_pk *inl)
{
	size_t len = inl->len;
	const unsigned char *b = (const unsigned char *)inl->v.s;
	if (len == 0 || len > PK_SHORT_STR_LEN)
		return cg_pickle_str_copy(pk, inl->v.s, len);
	unsigned h = (unsigned)(len ^ b[0] * 31u ^ b[len - 1] * 131u) & (PK_SHORT_STRS - 1);
	cg_pk *n = pk->short_str[h];
	if (n && n->len == len && !memcmp(n->v.s, b, len))
		return n; /* kept: a reference more or less is none */
	for (size_t i = 0; i < len; i++)
		if (b[i] >= 0x80)
			return cg_pickle_str_copy(pk, inl->v.s, len);
	n = cg_pickle_str_copy(pk, inl->v.s, len);
	cg_pk_keep(n);
	pk->short_str[h] = n;
	return n;
}

#define INNER_PAIRS 32

/* A dict inside an entry's list (a stack's frame dict met for the first
 * time): EMPTY_DICT (read) [MEMOIZE] MARK (key value)* SETITEMS, of plain
 * values, built as the general path builds it. */
static __attribute__((noinline)) cg_pk *scan_inner_dict(scan *s)
{
	cg_pickle *pk = s->pk;
	if (!push(s))
		return NULL;
	cg_pk *d = node_new(pk, CG_PK_DICT), *kv[2 * INNER_PAIRS];
	size_t n = 0;
	if (!skip_frames(s))
		goto fail;
	if (*s->p == F_MEMOIZE) {
		s->p++;
		if (!cg_pkscan_memoize(s, d) || !skip_frames(s))
			goto fail;
	}
	if (*s->p != F_MARK)
		goto fail;
	s->p++;
	for (;;) {
		if (!skip_frames(s))
			goto fail;
		if (*s->p == F_SETITEMS) {
			s->p++;
			break;
		}
		fval v;
		if (n == 2 * INNER_PAIRS || !scan_value(s, &v, false))
			goto fail;
		kv[n++] = node_of(pk, &v);
		s->vsp++;
	}
	if (n % 2)
		goto fail;
	s->vsp -= n;
	cg_pickle_dict_set(pk, d, kv, n / 2);
	return d;
fail:
	for (size_t i = 0; i < n; i++)
		cg_pickle_release(pk, kv[i]);
	cg_pickle_release(pk, d);
	return NULL;
}

/* A memo get that may go into a container: not a shared list, which
 * only an entry's values may hold (PK_LIST_SHARED). */
static inline cg_pk *get_item(scan *s)
{
	cg_pk *v = get(s);
	return v && v->flags & PK_LIST_SHARED && v->type == CG_PK_LIST ? NULL : v;
}

/* EMPTY_LIST (read) [MEMOIZE] [MARK items APPENDS | item APPEND]: the
 * list; a memoized one of memo gets alone is the shared list of its items. */
cg_pk *cg_pkscan_list(scan *s)
{
	cg_pickle *pk = s->pk;
	if (!push(s))
		return NULL;
	cg_pk *list = node_new(pk, CG_PK_LIST);
	size_t slot = SIZE_MAX, n = 0;
	bool all_gets = true;
	if (!skip_frames(s))
		goto fail;
	if (*s->p == F_MEMOIZE) {
		s->p++;
		slot = pk->memo_len;
		if (!cg_pkscan_memoize(s, list) || !skip_frames(s))
			goto fail;
	}
	bool batch = *s->p == F_MARK;
	if (!batch) { /* one item: get APPEND, or no item at all */
		const unsigned char *q = s->p;
		uint64_t gets = pk->gets;
		if (*s->p == F_EMPTY_DICT) {
			s->p++;
			cg_pk *d = scan_inner_dict(s);
			if (!d)
				goto fail;
			if (is_entry(s, d) || !skip_frames(s) || *s->p != F_APPEND) {
				cg_pickle_release(pk, d);
				goto fail;
			}
			s->p++;
			s->vsp--;
			cg_pickle_items_reserve(pk, list, 0, 1);
			list->v.items[list->len++] = d;
			return list;
		}
		if (!is_get(s))
			return slot == SIZE_MAX ? list : cg_pickle_share(pk, list, slot, NULL, 0);
		cg_pk *item = get_item(s);
		if (!item || !skip_frames(s))
			goto fail;
		if (*s->p != F_APPEND) { /* that get was the next key */
			s->p = q;
			pk->gets = gets;
			return slot == SIZE_MAX ? list : cg_pickle_share(pk, list, slot, NULL, 0);
		}
		if (is_entry(s, item) || !push(s))
			goto fail;
		s->p++;
		s->vsp--;
		ref(item);
		cg_pickle_items_reserve(pk, list, 0, 1);
		list->v.items[list->len++] = item;
		return list;
	}
	s->p++;
	/* A memoized run of gets made before (the same stack again): the
	 * shared list it made, with the gets and pushes it would count. */
	const unsigned char *run = s->p;
	size_t run_len = 0;
	uint64_t run_hash = 0, run_top = 0;
	if (slot != SIZE_MAX) {
		size_t gets = 0;
		const unsigned char *q = run;
		for (; q - run <= (ptrdiff_t)PK_LIST_MEMO_BYTES; gets++) {
			size_t left = (size_t)(s->end - q);
			uint64_t idx;
			if (left >= 2 && *q == F_BINGET)
				idx = q[1], q += 2;
			else if (left >= 5 && *q == F_LONG_BINGET)
				idx = rd32(q + 1), q += 5;
			else
				break;
			run_top = idx > run_top ? idx : run_top;
		}
		if (gets && q - run <= (ptrdiff_t)PK_LIST_MEMO_BYTES && q < s->end && *q == F_APPENDS) {
			run_len = (size_t)(q - run);
			cg_pk *c = cg_pickle_list_memo_find(pk, run, run_len, &run_hash);
			if (c && s->vsp + gets <= pk->o.max_depth) {
				pk->gets += gets;
				s->p = q + 1;
				return cg_pickle_share_again(pk, list, slot, c);
			}
		}
	}
	/* The items wait in pk->scratch (a stack's frames are memo gets):
	 * the list's array is made once, or not at all when it is shared. */
	for (;;) {
		if (!skip_frames(s))
			goto fail;
		if (*s->p == F_APPENDS) {
			s->p++;
			break;
		}
		cg_pk *item;
		if (*s->p == F_EMPTY_DICT) {
			s->p++;
			if (!(item = scan_inner_dict(s))) /* pushed there */
				goto fail;
			all_gets = false;
		} else {
			if (!is_get(s) || !(item = get_item(s)))
				goto fail;
			ref(item);
			if (!push(s)) {
				cg_pickle_release(pk, item);
				goto fail;
			}
		}
		if (is_entry(s, item) || n == MAX_LEN) {
			cg_pickle_release(pk, item);
			goto fail;
		}
		if (n == pk->scratch_cap)
			CG_GROW(pk->scratch, pk->scratch_cap, n + 1);
		pk->scratch[n++] = item;
	}
	s->vsp -= n;
	if (slot != SIZE_MAX && all_gets && n) {
		cg_pk *c = cg_pickle_share(pk, list, slot, pk->scratch, n);
		if (run_len)
			cg_pickle_list_memo_add(pk, run_hash, run, run_len, run_top, c);
		return c;
	}
	cg_pickle_items_reserve(pk, list, 0, n);
	if (n)
		memcpy(list->v.items, pk->scratch, n * sizeof *pk->scratch);
	list->len = (uint32_t)n;
	return list;
fail:
	for (size_t i = 0; i < n; i++)
		cg_pickle_release(pk, pk->scratch[i]);
	cg_pickle_release(pk, list);
	return NULL;
}

/* One value (pushed on the general path's stack, which the caller
 * counts); a list only when lists (an entry's value, not a frame dict's). */
static inline __attribute__((always_inline)) bool scan_value(scan *s, fval *v, bool lists)
{
	cg_pickle *pk = s->pk;
	v->node = NULL;
	v->inl = (cg_pk){0};
	v->inl.refs = 1; /* present */
	if (!skip_frames(s))
		return false;
	const unsigned char *p = s->p;
	switch (*p) {
	case F_BININT1:
		if (!have(s, 2))
			return false;
		v->inl.type = CG_PK_INT;
		v->inl.v.i = p[1];
		s->p += 2;
		break;
	case F_BININT2:
		if (!have(s, 3))
			return false;
		v->inl.type = CG_PK_INT;
		v->inl.v.i = p[1] | p[2] << 8;
		s->p += 3;
		break;
	case F_BININT:
		if (!have(s, 5))
			return false;
		v->inl.type = CG_PK_INT;
		v->inl.v.i = (int32_t)rd32(p + 1);
		s->p += 5;
		break;
	case F_LONG1: {
		if (!have(s, 2) || !have(s, 2 + (size_t)p[1]))
			return false;
		longval lv = {0, 0, true, true, 0};
		long_feed(&lv, p + 2, p[1]);
		v->inl.type = CG_PK_INT;
		if (!long_value(&lv, &v->inl))
			return false;
		s->p += 2 + (size_t)p[1];
		break;
	}
	case F_BINFLOAT: {
		if (!have(s, 9))
			return false;
		uint64_t bits = 0;
		for (int i = 1; i <= 8; i++)
			bits = bits << 8 | p[i];
		v->inl.type = CG_PK_FLOAT;
		memcpy(&v->inl.v.f, &bits, sizeof bits);
		s->p += 9;
		break;
	}
	case F_NONE:
	case F_NEWTRUE:
	case F_NEWFALSE:
	case F_EMPTY_TUPLE:
		v->inl.type = *p == F_NONE ? CG_PK_NONE : *p == F_EMPTY_TUPLE ? CG_PK_TUPLE : CG_PK_BOOL;
		v->inl.v.b = *p == F_NEWTRUE;
		if (*p == F_EMPTY_TUPLE)
			v->inl.v.items = NULL;
		s->p++;
		break;
	case F_SHORT_BINUNICODE:
	case F_BINUNICODE: {
		size_t hl = *p == F_BINUNICODE ? 5 : 2;
		if (!have(s, hl))
			return false;
		uint64_t len = hl == 2 ? p[1] : rd32(p + 1);
		if ((uint64_t)(s->end - p - hl) < len)
			return false;
		v->inl.type = CG_PK_STR;
		v->inl.len = (uint32_t)len;
		v->inl.v.s = (const char *)p + hl;
		s->p += hl + len;
		break;
	}
	case F_BINGET:
	case F_LONG_BINGET:
		if (!(v->node = lists ? get(s) : get_item(s)))
			return false;
		ref(v->node);
		break;
	case F_EMPTY_LIST:
		if (!lists)
			return false;
		s->p++;
		if (!(v->node = cg_pkscan_list(s))) /* pushed there */
			return false;
		s->vsp--; /* the caller counts it */
		goto pushed;
	default:
		return false;
	}
	if (!push(s))
		goto fail;
	s->vsp--;
pushed:
	if (s->p < s->end && *s->p == F_FRAME && !skip_frames(s))
		goto fail;
	if (s->p < s->end && *s->p == F_MEMOIZE) {
		s->p++;
		v->node = v->node ? v->node : v->inl.type == CG_PK_STR ? cg_pkscan_memo_str(pk, &v->inl) : node_of(pk, v);
		if (!cg_pkscan_memoize(s, v->node))
			goto fail;
	}
	return true;
fail:
	if (v->node)
		cg_pickle_release(pk, v->node);
	v->node = NULL;
	return false;
}

static inline void drop(fval *v, cg_pickle *pk)
{
	if (v->node)
		unref(pk, v->node);
	v->node = NULL;
}

/* Which entry key a key is, or -1. Keys are a few shared strs, met by
 * memo gets in every entry: found by address once seen, in a table that
 * only grows (a hostile file's thousand keys fill it, then are compared). */
#define KEY_PROBES 8

static int key_index(const scan *s, const fval *k)
{
	cg_pickle *pk = s->pk;
	const cg_pk *n = k->node ? k->node : &k->inl;
	if (n->type != CG_PK_STR)
		return -1;
	size_t h = (size_t)((uint64_t)(uintptr_t)n * 0x9e3779b97f4a7c15ull >> 58), free_slot = PK_KEY_CACHE;
	if (k->node)
		for (size_t i = 0; i < KEY_PROBES; i++) {
			size_t slot = (h + i) & (PK_KEY_CACHE - 1);
			if (pk->key_node[slot] == n)
				return pk->key_index[slot];
			if (!pk->key_node[slot]) {
				free_slot = slot;
				break;
			}
		}
	int found = -1;
	for (size_t j = 0; j < s->nk && found < 0; j++) {
		const char *want = pk->o.entry_keys[j];
		if (pk->entry_klen[j] == n->len && want[0] == n->v.s[0] && !memcmp(want, n->v.s, n->len))
			found = (int)j;
	}
	if (free_slot < PK_KEY_CACHE && k->node->refs > 1) { /* shared: worth remembering */
		cg_pk_keep(n);
		pk->key_node[free_slot] = n;
		pk->key_index[free_slot] = (int8_t)found;
	}
	return found;
}

/* The key get at s->p is pair's remembered one, followed by neither
 * FRAME nor MEMOIZE: what scan_value and key_index would do with it,
 * without looking the key up again (its node's references end where
 * they began). */
static inline bool same_key_get(scan *s, size_t pair, int *j)
{
	size_t n = pair < KEY_TEMPLATE ? s->key_len[pair] : 0;
	if (!n || !have(s, 8))
		return false;
	uint64_t mask = ((uint64_t)1 << (8 * n)) - 1; /* n is 2 or 5 */
	if (((rd64(s->p) ^ s->key_word[pair]) & mask) != 0 || s->p[n] == F_FRAME || s->p[n] == F_MEMOIZE ||
	    s->vsp >= s->pk->o.max_depth)
		return false;
	s->p += n;
	s->pk->gets++;
	s->vsp++;
	*j = s->key_j[pair];
	return true;
}

/* Remembers the key just read at key_at when it was a plain memo get. */
static void learn_key_get(scan *s, size_t pair, const unsigned char *key_at, int j)
{
	if (pair >= KEY_TEMPLATE)
		return;
	size_t n = (size_t)(s->p - key_at);
	bool get = (*key_at == F_BINGET && n == 2) || (*key_at == F_LONG_BINGET && n == 5);
	s->key_len[pair] = get ? (uint8_t)n : 0;
	if (get) {
		uint64_t w = 0;
		for (size_t i = n; i-- > 0;)
			w = w << 8 | key_at[i];
		s->key_word[pair] = w;
		s->key_j[pair] = (int8_t)j;
	}
}


void cg_pkscan_pend_release(cg_pickle *pk, size_t i)
{
	cg_pk **nodes = pend_node(pk, i);
	for (size_t j = 0; j < pk->o.nentry_keys; j++)
		if (nodes[j]) {
			unref(pk, nodes[j]);
			nodes[j] = NULL;
		}
}

/* EMPTY_DICT [MEMOIZE] MARK (key value)* SETITEMS into pending dict i. */
static bool scan_entry(scan *s, size_t i)
{
	cg_pickle *pk = s->pk;
	cg_pk *inl = pend_inl(pk, i), **nodes = pend_node(pk, i);
	memset(inl, 0, s->nk * sizeof *inl);
	memset(nodes, 0, s->nk * sizeof *nodes);
	if (*s->p != F_EMPTY_DICT || !push(s))
		return false;
	s->p++;
	if (!skip_frames(s))
		return false;
	if (*s->p == F_MEMOIZE) {
		s->p++;
		/* taken at the APPENDS, its slot then says "consumed" */
		if (!cg_pkscan_memoize(s, &cg_pickle_consumed) || !skip_frames(s))
			return false;
	}
	if (*s->p != F_MARK)
		return false;
	s->p++;
	size_t pushed = 0;
	for (;;) {
		if (!skip_frames(s))
			return false;
		if (*s->p == F_SETITEMS) {
			s->p++;
			break;
		}
		size_t pair = pushed / 2;
		int j;
		if (!same_key_get(s, pair, &j)) {
			const unsigned char *key_at = s->p;
			fval k;
			if (!scan_value(s, &k, true))
				return false;
			s->vsp++;
			j = key_index(s, &k);
			drop(&k, pk);
			learn_key_get(s, pair, key_at, j);
		}
		fval v;
		if (!scan_value(s, &v, true))
			return false;
		s->vsp++;
		pushed += 2;
		if (j < 0) {
			drop(&v, pk);
			continue;
		}
		if (nodes[j])
			cg_pickle_release(pk, nodes[j]);
		nodes[j] = NULL;
		if (!v.node && v.inl.type == CG_PK_STR) /* a str the callback reads: NUL-terminated */
			v.node = cg_pickle_str_copy(pk, v.inl.v.s, v.inl.len);
		if (v.node)
			nodes[j] = v.node;
		else
			inl[j] = v.inl;
	}
	s->vsp -= pushed;
	s->learned = true;
	return nodes[0] && nodes[0]->type == CG_PK_STR;
}

void cg_pkscan_memo_undo(cg_pickle *pk, uint64_t memo0, uint64_t puts0, uint64_t gets0)
{
	for (size_t i = (size_t)memo0; i < pk->memo_len; i++)
		if (pk->memo[i] != &cg_pickle_consumed)
			cg_pickle_release(pk, pk->memo[i]);
	pk->memo_len = pk->memo_count = memo0;
	pk->puts = puts0;
	pk->gets = gets0;
	cg_pickle_memo_slot_changed(pk, memo0);
}

static void rollback(cg_pickle *pk, size_t npend, uint64_t memo0, uint64_t puts0, uint64_t gets0)
{
	for (size_t i = 0; i < npend; i++)
		cg_pkscan_pend_release(pk, i);
	cg_pkscan_memo_undo(pk, memo0, puts0, gets0);
	pk->fast_fallbacks++;
}

/* Between two dicts: brings more input in when less than a large entry is
 * left, keeping the batch from its MARK (s->p, s->end and *mark move with
 * the bytes). Only for plain input, whose bytes arrive the same however
 * they are asked for; with gzip a read error could then come before a
 * parse error the general path would report first, so a batch that runs
 * past the buffer there goes back to the general path. */
static int more_input(scan *s, const unsigned char **mark)
{
	cg_pickle *pk = s->pk;
	if (pk->eof || (size_t)(s->end - s->p) >= MORE_INPUT || cg_reader_is_gzip(pk->r))
		return 0;
	size_t keep = (size_t)(pk->end - *mark), off = (size_t)(*mark - pk->buf);
	if (off == 0 && keep == pk->cap)
		return 0; /* the batch fills the buffer */
	memmove(pk->buf, *mark, keep);
	pk->base += off;
	s->p -= off;
	*mark = pk->buf;
	pk->p = pk->buf;
	pk->end = pk->buf + keep;
	while ((size_t)(pk->end - pk->p) < pk->cap && !pk->eof) {
		int64_t k = cg_reader_read(pk->r, (char *)pk->end, pk->cap - (size_t)(pk->end - pk->buf), pk->err);
		if (k < 0)
			return (int)k;
		if (k == 0)
			pk->eof = true;
		pk->end += k;
	}
	s->end = pk->end;
	return 0;
}

int cg_pickle_fast_batch(cg_pickle *pk)
{
	size_t nk = pk->o.nentry_keys;
	/* The batch's MARK, its dicts' and a nested list's: within the limit. */
	if (pk->memo_len != pk->memo_count || pk->nmarks + 3 > pk->o.max_depth || pk->sp <= pk->floor)
		return 0;
	cg_pk *list = pk->stack[pk->sp - 1];
	if (list->type != CG_PK_LIST)
		return 0;
	scan s = {.pk = pk, .p = pk->p + 1, .end = pk->end, .vsp = pk->sp, .nk = nk};
	if (!skip_frames(&s) || *s.p != F_EMPTY_DICT)
		return 0;
	uint64_t memo0 = pk->memo_len, puts0 = pk->puts, gets0 = pk->gets;
	size_t n = 0;
	const unsigned char *mark = pk->p;
	for (;;) {
		int rc = more_input(&s, &mark);
		if (rc < 0) {
			rollback(pk, n, memo0, puts0, gets0);
			return rc;
		}
		if (!skip_frames(&s))
			goto back;
		if (*s.p == F_APPENDS) {
			s.p++;
			break;
		}
		if (n == pk->pend_cap) {
			size_t cap = pk->pend_cap ? pk->pend_cap * 2 : 1024;
			pk->pend = cg_reallocarray(pk->pend, cap * nk, sizeof *pk->pend);
			pk->pend_node = cg_reallocarray(pk->pend_node, cap * nk, sizeof *pk->pend_node);
			pk->pend_cap = cap;
		}
		bool ok = cg_pkscan_entry_template(&s, n) || scan_entry(&s, n);
		n++;
		if (!ok)
			goto back;
	}
	pk->p = (unsigned char *)s.p;
	const cg_pk *values[CG_PK_ENTRY_MAX_KEYS];
	for (size_t i = 0; i < n; i++) {
		cg_pk *inl = pend_inl(pk, i), **nodes = pend_node(pk, i);
		for (size_t j = 0; j < nk; j++)
			values[j] = nodes[j] ? nodes[j] : inl[j].refs ? &inl[j] : NULL;
		int rc = pk->o.on_entry(pk->o.ctx, list, values, pk->err);
		cg_pkscan_pend_release(pk, i);
		if (rc < 0) {
			for (size_t k = i + 1; k < n; k++)
				cg_pkscan_pend_release(pk, k);
			return rc;
		}
	}
	pk->fast_entries += n;
	return 1;
back:
	rollback(pk, n, memo0, puts0, gets0);
	return 0;
}
