/* Trace entries read by the shape of the one before (pickle_fast.c reads
 * the first of each batch pair by pair and learns the bytes of its keys):
 * each key compared as one word, each value read in place with no check
 * the entry's room and depth make needless. Whatever else it meets, it
 * undoes its work on the entry and leaves it to scan_entry. */
#include "pickle_scan.h"

/* An entry's value read in place (lists by cg_pkscan_list) into pending slot j
 * (-1: none), or false where scan_entry must read it: an opcode the fast
 * path leaves to it, a memoized value other than a str, a FRAME after it.
 * *p (from s->p) and s->vsp are where the general path would be. */
static inline __attribute__((always_inline)) bool template_value(scan *s, const unsigned char **pp, int j,
								 cg_pk *inl, cg_pk **nodes)
{
	cg_pickle *pk = s->pk;
	const unsigned char *p = *pp;
	cg_pk v = {.refs = 1}, *node = NULL;
	switch (*p) {
	case F_BININT1:
		v.type = CG_PK_INT;
		v.v.i = p[1];
		p += 2;
		break;
	case F_BININT2:
		v.type = CG_PK_INT;
		v.v.i = p[1] | p[2] << 8;
		p += 3;
		break;
	case F_BININT:
		v.type = CG_PK_INT;
		v.v.i = (int32_t)rd32(p + 1);
		p += 5;
		break;
	case F_LONG1: {
		unsigned n = p[1];
		if (n > 8)
			return false;
		uint64_t w = rd64(p + 2);
		if (n < 8) { /* sign-extend the n bytes */
			unsigned shift = 64 - 8 * n;
			w = n ? (uint64_t)((int64_t)(w << shift) >> shift) : 0;
		}
		v.type = CG_PK_INT;
		v.v.i = (int64_t)w;
		p += 2 + n;
		break;
	}
	case F_NONE:
		v.type = CG_PK_NONE;
		p++;
		break;
	case F_BINGET:
	case F_LONG_BINGET: {
		uint64_t idx = *p == F_BINGET ? p[1] : rd32(p + 1);
		if (idx >= pk->memo_len || !pk->memo[idx] || pk->memo[idx] == &cg_pickle_consumed)
			return false;
		pk->gets++;
		p += *p == F_BINGET ? 2 : 5;
		node = pk->memo[idx];
		if (j >= 0)
			ref(node);
		break;
	}
	case F_SHORT_BINUNICODE:
		v.type = CG_PK_STR;
		v.len = p[1];
		v.v.s = (const char *)p + 2;
		p += 2 + (size_t)p[1];
		if (*p == F_MEMOIZE) {
			p++;
			node = cg_pkscan_memo_str(pk, &v); /* referenced */
			if (!cg_pkscan_memoize(s, node)) {
				cg_pickle_release(pk, node);
				return false;
			}
			if (j < 0)
				unref(pk, node);
		} else if (j >= 0) {
			node = cg_pickle_str_copy(pk, v.v.s, v.len);
		}
		break;
	case F_EMPTY_LIST:
		s->p = p + 1;
		s->vsp++; /* the key */
		node = cg_pkscan_list(s); /* pushed there */
		s->vsp -= 2;
		if (!node)
			return false;
		p = s->p;
		if (j < 0)
			unref(pk, node);
		break;
	default:
		return false;
	}
	if (*p == F_FRAME || *p == F_MEMOIZE) {
		if (node && j >= 0)
			unref(pk, node);
		return false;
	}
	*pp = p;
	if (j < 0)
		return true;
	if (nodes[j])
		cg_pickle_release(pk, nodes[j]);
	nodes[j] = node;
	if (!node)
		inl[j] = v;
	return true;
}

/* Entry i read by the keys scan_entry learned in this batch, its values
 * in place: 1 when read, 0 when scan_entry must read it (what was done is
 * undone: memo slots, counters, its pending slots). */
bool cg_pkscan_entry_template(scan *s, size_t i)
{
	cg_pickle *pk = s->pk;
	const unsigned char *p = s->p, *start = s->p;
	size_t vsp0 = s->vsp;
	if (!s->learned || s->end - p < 512 || p[0] != F_EMPTY_DICT || p[1] != F_MEMOIZE || p[2] != F_MARK ||
	    vsp0 + 2 * KEY_TEMPLATE + 4 >= pk->o.max_depth)
		return false;
	uint64_t memo0 = pk->memo_len, gets0 = pk->gets, puts0 = pk->puts;
	cg_pk *inl = pend_inl(pk, i), **nodes = pend_node(pk, i);
	memset(inl, 0, s->nk * sizeof *inl);
	memset(nodes, 0, s->nk * sizeof *nodes);
	if (!cg_pkscan_memoize(s, &cg_pickle_consumed))
		return false;
	p += 3;
	s->vsp = vsp0 + 1; /* the dict */
	for (size_t pair = 0;; pair++) {
		if (*p == F_SETITEMS) {
			p++;
			break;
		}
		/* a key get as learned (so not a FRAME), room for any value but a list */
		size_t n = pair < KEY_TEMPLATE ? s->key_len[pair] : 0;
		uint64_t mask = ((uint64_t)1 << (8 * n)) - 1;
		if (!n || s->end - p < 300 || ((rd64(p) ^ s->key_word[pair]) & mask) != 0)
			goto undo;
		p += n;
		pk->gets++;
		s->vsp = vsp0 + 1 + 2 * pair;
		if (!template_value(s, &p, s->key_j[pair], inl, nodes))
			goto undo;
	}
	if (!nodes[0] || nodes[0]->type != CG_PK_STR)
		goto undo;
	s->p = p;
	s->vsp = vsp0 + 1;
	return true;
undo:
	cg_pkscan_pend_release(pk, i);
	cg_pkscan_memo_undo(pk, memo0, puts0, gets0);
	s->p = start;
	s->vsp = vsp0;
	return false;
}
