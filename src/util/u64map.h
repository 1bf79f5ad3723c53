/* A hash map from nonzero 64-bit keys (node addresses, packed pairs of
 * ids, tensor ids) to 32-bit values, open addressing with linear probing;
 * its arrays only grow. Lookups are O(1), so hostile inputs with many keys
 * stay linear.
 *
 *     cg_u64map m = {0};
 *     uint32_t *v = cg_u64map_slot(&m, key);   // 0 when the key is new
 *     if (!*v) *v = value + 1;
 *     cg_u64map_free(&m);
 */
#ifndef CG_U64MAP_H
#define CG_U64MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct cg_u64map {
	uint64_t *keys; /* 0: empty */
	uint32_t *vals;
	size_t cap, used;
} cg_u64map;

/* The value slot of key (nonzero), added holding 0 when absent. The
 * pointer is valid until the next call. */
uint32_t *cg_u64map_slot(cg_u64map *m, uint64_t key);
/* The value of key, or 0 when absent. */
uint32_t cg_u64map_get(const cg_u64map *m, uint64_t key);
/* Removes key and returns its value, or 0 when absent. */
uint32_t cg_u64map_take(cg_u64map *m, uint64_t key);
/* Removes every key, keeping the arrays. */
void cg_u64map_clear(cg_u64map *m);
void cg_u64map_free(cg_u64map *m);

#endif
