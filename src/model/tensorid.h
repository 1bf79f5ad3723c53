/* A memory record's tensor id, kept as a number where its spelling allows.
 *
 * Writers that use addresses spell an id "<address in hex>#<n>" (candle:
 * "7f3a00000200#25575"), one new id per allocation: interning millions of
 * them cost a long trace a third of its ingest and a fifth of its memory.
 * Such a spelling is packed into the id itself: lower-case hex without
 * leading zeros below 2^47, '#', a decimal without leading zeros. The
 * address's alignment makes room for the decimal: below 2^14 for any
 * address, 2^20 for one of 64 bytes, 2^23 of 512, 2^26 of 4096. The top bit
 * marks a packed id; any other spelling is an interned string's id, so a
 * zeroed id is the empty string. Packing is a function of the spelling, so
 * two ids are equal exactly when their spellings are.
 *
 *     cg_tensor_id t;
 *     if (!cg_tensor_id_pack(s, n, &t)) t = cg_tensor_id_str(interned);
 *     char buf[CG_TENSOR_ID_BUF];
 *     size_t len = cg_tensor_id_format(t, buf);   // packed ids only */
#ifndef CG_TENSORID_H
#define CG_TENSORID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strtab.h"

typedef struct cg_tensor_id {
	uint64_t v;
} cg_tensor_id;

#define CG_TENSOR_ID_PACKED ((uint64_t)1 << 63)
/* Room for a packed id's text and its NUL: 12 hex digits, '#', 8 digits. */
#define CG_TENSOR_ID_BUF 24

static inline cg_tensor_id cg_tensor_id_str(cg_str s)
{
	return (cg_tensor_id){s};
}

static inline bool cg_tensor_id_is_str(cg_tensor_id t)
{
	return (t.v & CG_TENSOR_ID_PACKED) == 0;
}

/* The interned string of an id that is one. */
static inline cg_str cg_tensor_id_string(cg_tensor_id t)
{
	return (cg_str)t.v;
}

/* The empty spelling (an id that is absent). */
static inline bool cg_tensor_id_empty(cg_tensor_id t)
{
	return t.v == CG_STR_EMPTY;
}

static inline bool cg_tensor_id_eq(cg_tensor_id a, cg_tensor_id b)
{
	return a.v == b.v;
}

/* Packs the spelling s[0..n) when it has the form above. */
bool cg_tensor_id_pack(const char *s, size_t n, cg_tensor_id *out);

/* Writes a packed id's spelling and its NUL into buf; returns its length. */
size_t cg_tensor_id_format(cg_tensor_id t, char buf[CG_TENSOR_ID_BUF]);

#endif
