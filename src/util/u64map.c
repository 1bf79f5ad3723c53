#include "u64map.h"

#include <string.h>

#include "xalloc.h"

static size_t home(uint64_t key, size_t cap)
{
	key ^= key >> 31;
	key *= 0x9E3779B97F4A7C15ull;
	key ^= key >> 29;
	return (size_t)key & (cap - 1);
}

static void grow(cg_u64map *m)
{
	cg_u64map old = *m;
	m->cap = old.cap ? old.cap * 2 : 64;
	m->keys = cg_calloc(m->cap, sizeof *m->keys);
	m->vals = cg_calloc(m->cap, sizeof *m->vals);
	m->used = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.keys[i])
			*cg_u64map_slot(m, old.keys[i]) = old.vals[i];
	cg_free(old.keys);
	cg_free(old.vals);
}

uint32_t *cg_u64map_slot(cg_u64map *m, uint64_t key)
{
	if ((m->used + 1) * 2 > m->cap)
		grow(m);
	size_t i = home(key, m->cap);
	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->keys[i]) {
		m->keys[i] = key;
		m->vals[i] = 0;
		m->used++;
	}
	return &m->vals[i];
}

uint32_t cg_u64map_get(const cg_u64map *m, uint64_t key)
{
	if (!m->cap)
		return 0;
	for (size_t i = home(key, m->cap); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return m->vals[i];
	return 0;
}

/* Linear probing without tombstones: each key after the hole moves back
 * into it unless its home lies cyclically after the hole, so every key
 * stays reachable from its home and the table never fills with markers. */
uint32_t cg_u64map_take(cg_u64map *m, uint64_t key)
{
	if (!m->cap)
		return 0;
	size_t mask = m->cap - 1, i = home(key, m->cap);
	while (m->keys[i] != key) {
		if (!m->keys[i])
			return 0;
		i = (i + 1) & mask;
	}
	uint32_t v = m->vals[i];
	size_t hole = i;
	for (size_t j = (i + 1) & mask; m->keys[j]; j = (j + 1) & mask) {
		size_t h = home(m->keys[j], m->cap);
		/* j's key may fill the hole when its home is not in (hole, j] */
		if (((j - h) & mask) >= ((j - hole) & mask)) {
			m->keys[hole] = m->keys[j];
			m->vals[hole] = m->vals[j];
			hole = j;
		}
	}
	m->keys[hole] = 0;
	m->used--;
	return v;
}

void cg_u64map_clear(cg_u64map *m)
{
	if (m->cap)
		memset(m->keys, 0, m->cap * sizeof *m->keys);
	m->used = 0;
}

void cg_u64map_free(cg_u64map *m)
{
	cg_free(m->keys);
	cg_free(m->vals);
	*m = (cg_u64map){0};
}
