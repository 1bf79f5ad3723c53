/* String interning: each distinct byte string is stored once and named by a
 * small integer, so records hold 4-byte ids instead of pointers.
 *
 *     cg_strtab *t = cg_strtab_new(64 << 20);
 *     cg_str id;
 *     if (cg_strtab_intern(t, "aten::mm", 8, &id) < 0) ...limit reached...
 *     puts(cg_strtab_get(t, id));
 *     cg_strtab_free(t);
 *
 * Id 0 is always the empty string. Strings may hold any bytes (shapes are
 * interned as arrays of uint64); each is stored NUL-terminated. */
#ifndef CG_STRTAB_H
#define CG_STRTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h" /* CG_ELIMIT */

typedef uint32_t cg_str;
#define CG_STR_EMPTY ((cg_str)0)

typedef struct cg_strtab cg_strtab;

/* max_bytes bounds the table's whole memory (text, index and hash); 0 means no limit. */
cg_strtab *cg_strtab_new(size_t max_bytes);
void cg_strtab_free(cg_strtab *t);

/* Interns s[0..n). Returns 0, or CG_ELIMIT when the table would exceed its limit. */
int cg_strtab_intern(cg_strtab *t, const char *s, size_t n, cg_str *out);
/* The same with s's hash, (uint32_t)cg_hash_bytes(s, n), already known:
 * moving strings between tables hashes them once. */
int cg_strtab_intern_hashed(cg_strtab *t, const char *s, size_t n, uint32_t hash, cg_str *out);
/* Interns every string of from into t, in from's id order; map[id] gets
 * t's id for from's id (map holds cg_strtab_count(from) ids). Returns 0 or
 * CG_ELIMIT (map's contents are then undefined). */
int cg_strtab_intern_all(cg_strtab *t, const cg_strtab *from, cg_str *map);
/* Could every string of from be interned into t without reaching t's
 * limit, even if none of them is there yet? */
bool cg_strtab_can_add(const cg_strtab *t, const cg_strtab *from);
/* Before from's strings are interned into t, where t would grow for them:
 * makes room at once for scale (> 1) times the strings and text both hold
 * (at most most_bytes, and within the limit), so that a table that will
 * hold millions is not copied at every doubling. The limit is checked as
 * if the room were not there. */
void cg_strtab_expect(cg_strtab *t, const cg_strtab *from, double scale, uint64_t most_bytes);
/* Forgets every string but keeps the memory, for reuse. */
void cg_strtab_clear(cg_strtab *t);
/* Looks s up without adding it; returns 1 when found. */
int cg_strtab_find(const cg_strtab *t, const char *s, size_t n, cg_str *out);

/* The string for id, NUL-terminated; borrowed, valid until the next intern. */
const char *cg_strtab_get(const cg_strtab *t, cg_str id);
size_t cg_strtab_len(const cg_strtab *t, cg_str id);
uint32_t cg_strtab_count(const cg_strtab *t);
/* Whether id is a string of t and holds exactly s[0..n). */
bool cg_strtab_equals(const cg_strtab *t, cg_str id, const char *s, size_t n);
/* Bytes of memory the table holds. */
size_t cg_strtab_bytes(const cg_strtab *t);
size_t cg_strtab_limit(const cg_strtab *t);
/* Bytes the table fills (its text, entries and slots), not counting room
 * reserved for growth. */
size_t cg_strtab_used_bytes(const cg_strtab *t);

/* 64-bit hash of a byte string, shared with other hash tables. */
uint64_t cg_hash_bytes(const void *p, size_t n);

#endif
