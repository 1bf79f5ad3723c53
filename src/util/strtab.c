#include "strtab.h"

#include <stdbool.h>
#include <string.h>

#include "error.h"
#include "xalloc.h"

typedef struct entry {
	uint64_t offset;
	uint32_t len;
	uint32_t hash;
} entry;

/* A slot keeps the hash beside the id, so a probe past other strings
 * touches neither their entries nor their text. It holds id + 1, so that
 * zero marks it empty: slots come zeroed from the kernel, and millions of
 * them are not written before the first string arrives. */
typedef struct slot {
	uint32_t id1;
	uint32_t hash;
} slot;

struct cg_strtab {
	char *text;
	size_t text_len, text_cap;
	entry *entries;
	size_t count, entries_cap;
	slot *slots; /* open addressing; id1 0 marks an empty slot */
	size_t nslots;
	size_t limit;
	/* The capacities growing by doubling alone would have reached: the
	 * limit is checked against them, so that room made ahead
	 * (cg_strtab_expect) changes how fast the table fills, never which
	 * string reaches the limit. */
	size_t text_vcap, entries_vcap, vslots;
};

#define EMPTY_SLOT 0

/* The slots double when more than three in four are taken. Linear probing
 * stays short there (a slot keeps its hash, and eight share a cache line),
 * and the table is half the size it is at one in two: on millions of ids
 * the slots are the largest part of the table, and each doubling writes
 * every one of them. */
static bool crowded(size_t count, size_t nslots)
{
	return count > nslots / 4 * 3;
}

static inline uint64_t read64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint64_t mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/* A wyhash-style multiply-mix hash: fast on short keys, good avalanche. */
uint64_t cg_hash_bytes(const void *data, size_t n)
{
	const unsigned char *p = data;
	const uint64_t k0 = 0xa0761d6478bd642full, k1 = 0xe7037ed1a0b428dbull;
	uint64_t h = k0 ^ n;
	while (n >= 16) {
		h = mix(read64(p) ^ k1, read64(p + 8) ^ h);
		p += 16;
		n -= 16;
	}
	uint64_t a = 0, b = 0;
	if (n >= 8) {
		a = read64(p);
		b = read64(p + n - 8);
	} else if (n > 0) {
		unsigned char tail[8] = {0};
		memcpy(tail, p, n);
		a = read64(tail);
	}
	/* h still holds k0: cancelling it (b ^ h ^ k0) left a multiplier as
	 * small as the length, and the low bits of a short key's hash then
	 * depended on its first four bytes only */
	return mix(a ^ k1, b ^ h);
}

/* The bytes the limit counts. */
static size_t table_bytes(const cg_strtab *t)
{
	return t->text_vcap + t->entries_vcap * sizeof(entry) + t->vslots * sizeof(slot);
}

/* Capacity CG_GROW reaches from cap for need elements. */
static size_t grown(size_t cap, size_t need)
{
	size_t c = cap ? cap : 16;
	while (c < need)
		c *= 2;
	return need <= cap ? cap : c;
}

static void rehash(cg_strtab *t, size_t nslots)
{
	cg_free(t->slots);
	t->slots = cg_calloc(nslots, sizeof(slot));
	t->nslots = nslots;
	for (size_t i = 0; i < t->count; i++) {
		size_t s = t->entries[i].hash & (nslots - 1);
		while (t->slots[s].id1 != EMPTY_SLOT)
			s = (s + 1) & (nslots - 1);
		t->slots[s] = (slot){(uint32_t)i + 1, t->entries[i].hash};
	}
}

cg_strtab *cg_strtab_new(size_t max_bytes)
{
	cg_strtab *t = cg_calloc(1, sizeof *t);
	t->limit = max_bytes;
	rehash(t, 64);
	t->vslots = 64;
	cg_str empty;
	int rc = cg_strtab_intern(t, "", 0, &empty);
	(void)rc; /* the empty string always fits */
	return t;
}

void cg_strtab_free(cg_strtab *t)
{
	if (!t)
		return;
	cg_free(t->text);
	cg_free(t->entries);
	cg_free(t->slots);
	cg_free(t);
}

/* Do a and b agree in their first and last w bytes (w <= n, w <= 8)? */
static inline bool same_ends(const char *a, const char *b, size_t n, size_t w)
{
	uint64_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
	memcpy(&a0, a, w);
	memcpy(&b0, b, w);
	memcpy(&a1, a + n - w, w);
	memcpy(&b1, b + n - w, w);
	return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

/* Do a[0..n) and b[0..n) hold the same bytes? Most strings compared are
 * short ids, names and devices, which two overlapping loads cover without
 * a call to memcmp (a third of the parse threads' string time). */
static inline bool same_bytes(const char *a, const char *b, size_t n)
{
	if (n >= 8 && n <= 16)
		return same_ends(a, b, n, 8);
	if (n >= 4 && n < 8)
		return same_ends(a, b, n, 4);
	return memcmp(a, b, n) == 0;
}

static int lookup(const cg_strtab *t, const char *s, size_t n, uint32_t hash, size_t *where)
{
	size_t i = hash & (t->nslots - 1);
	for (;;) {
		slot sl = t->slots[i];
		if (sl.id1 == EMPTY_SLOT) {
			*where = i;
			return 0;
		}
		if (sl.hash == hash) {
			const entry *e = &t->entries[sl.id1 - 1];
			if (e->len == n && same_bytes(t->text + e->offset, s, n)) {
				*where = i;
				return 1;
			}
		}
		i = (i + 1) & (t->nslots - 1);
	}
}

int cg_strtab_find(const cg_strtab *t, const char *s, size_t n, cg_str *out)
{
	size_t where;
	if (!lookup(t, s, n, (uint32_t)cg_hash_bytes(s, n), &where))
		return 0;
	*out = t->slots[where].id1 - 1;
	return 1;
}

/* Would growing text to text_need and entries to count_need exceed the limit? */
static int over_limit(const cg_strtab *t, size_t extra)
{
	size_t total;
	return t->limit && (__builtin_add_overflow(table_bytes(t), extra, &total) || total > t->limit);
}

int cg_strtab_intern(cg_strtab *t, const char *s, size_t n, cg_str *out)
{
	return cg_strtab_intern_hashed(t, s, n, (uint32_t)cg_hash_bytes(s, n), out);
}

int cg_strtab_intern_hashed(cg_strtab *t, const char *s, size_t n, uint32_t hash, cg_str *out)
{
	size_t where;
	if (lookup(t, s, n, hash, &where)) {
		*out = t->slots[where].id1 - 1;
		return 0;
	}
	if (n >= UINT32_MAX || t->count >= UINT32_MAX - 1)
		return CG_ELIMIT;

	size_t need = t->text_len + n + 1;
	size_t extra = 0;
	if (need > t->text_vcap)
		extra += (need > 2 * t->text_vcap ? need : 2 * t->text_vcap) - t->text_vcap;
	if (t->count + 1 > t->entries_vcap)
		extra += (t->entries_vcap ? t->entries_vcap : 16) * sizeof(entry);
	if (crowded(t->count + 1, t->vslots))
		extra += t->vslots * sizeof(slot);
	if (over_limit(t, extra))
		return CG_ELIMIT;

	CG_GROW(t->text, t->text_cap, need);
	t->text_vcap = grown(t->text_vcap, need);
	memcpy(t->text + t->text_len, s, n);
	t->text[t->text_len + n] = '\0';
	CG_GROW(t->entries, t->entries_cap, t->count + 1);
	t->entries_vcap = grown(t->entries_vcap, t->count + 1);
	t->entries[t->count] = (entry){t->text_len, (uint32_t)n, hash};
	t->text_len = need;
	*out = (cg_str)t->count;
	t->count++;
	if (crowded(t->count, t->vslots))
		t->vslots *= 2;
	if (crowded(t->count, t->nslots)) {
		rehash(t, t->nslots * 2);
	} else {
		t->slots[where] = (slot){*out + 1, hash};
	}
	return 0;
}

const char *cg_strtab_get(const cg_strtab *t, cg_str id)
{
	return id < t->count ? t->text + t->entries[id].offset : "";
}

size_t cg_strtab_len(const cg_strtab *t, cg_str id)
{
	return id < t->count ? t->entries[id].len : 0;
}

uint32_t cg_strtab_count(const cg_strtab *t)
{
	return (uint32_t)t->count;
}

bool cg_strtab_equals(const cg_strtab *t, cg_str id, const char *s, size_t n)
{
	return id < t->count && t->entries[id].len == n && same_bytes(t->text + t->entries[id].offset, s, n);
}

size_t cg_strtab_bytes(const cg_strtab *t)
{
	return sizeof *t + t->text_cap + t->entries_cap * sizeof(entry) + t->nslots * sizeof(slot);
}

size_t cg_strtab_limit(const cg_strtab *t)
{
	return t->limit;
}

uint32_t cg_strtab_hash(const cg_strtab *t, cg_str id)
{
	return id < t->count ? t->entries[id].hash : 0;
}

void cg_strtab_clear(cg_strtab *t)
{
	t->count = 0;
	t->text_len = 0;
	memset(t->slots, 0, t->nslots * sizeof(slot));
	cg_str empty;
	int rc = cg_strtab_intern(t, "", 0, &empty);
	(void)rc; /* the empty string always fits */
}

bool cg_strtab_can_add(const cg_strtab *t, const cg_strtab *from)
{
	if (!t->limit)
		return true;
	/* As if every string of from were new: the capacities interning them
	 * one by one would end with, each check along the way being smaller. */
	size_t k = from->count, text = from->text_len;
	if (k > t->limit || text > t->limit)
		return false;
	size_t count = t->count + k;
	size_t nslots = t->vslots;
	while (crowded(count, nslots))
		nslots *= 2;
	size_t bytes = grown(t->text_vcap, t->text_len + text) + grown(t->entries_vcap, count) * sizeof(entry) +
		       nslots * sizeof(slot);
	return bytes <= t->limit;
}

#define EXPECT_MARGIN 1.25

void cg_strtab_expect(cg_strtab *t, const cg_strtab *from, double scale, uint64_t most_bytes)
{
	size_t count = t->count + from->count, text_bytes = t->text_len + from->text_len;
	if (scale <= 1 || (count <= t->entries_cap && text_bytes <= t->text_cap && !crowded(count, t->nslots)))
		return; /* no growth for these */
	double c = (double)count * scale, x = (double)text_bytes * scale;
	double bytes = x + c * (double)(sizeof(entry) + 2 * sizeof(slot)); /* at most 2.7 slots a string */
	if (c >= UINT32_MAX - 1 || bytes > (double)most_bytes || (t->limit && bytes > (double)t->limit))
		return;
	size_t slots_for = (size_t)c;
	/* Text and entries get a margin: room never written is address space
	 * only, while an estimate a little short, found out near the end, moves
	 * the whole array (72 MB of entries at 4.5 M strings) into fresh pages. */
	if (c * EXPECT_MARGIN < UINT32_MAX - 1 && bytes * EXPECT_MARGIN <= (double)most_bytes &&
	    (!t->limit || bytes * EXPECT_MARGIN <= (double)t->limit)) {
		c *= EXPECT_MARGIN;
		x *= EXPECT_MARGIN;
	}
	count = (size_t)c;
	text_bytes = (size_t)x;
	if (text_bytes > t->text_cap) {
		t->text = cg_realloc(t->text, text_bytes);
		t->text_cap = text_bytes;
	}
	if (count > t->entries_cap) {
		t->entries = cg_reallocarray(t->entries, count, sizeof(entry));
		t->entries_cap = count;
	}
	/* the slots are all written as they fill: no margin for them */
	size_t nslots = t->nslots;
	while (crowded(slots_for, nslots))
		nslots *= 2;
	if (nslots > t->nslots)
		rehash(t, nslots);
}

/* Interning a batch lets the next strings' slots, entries and text be
 * fetched from memory while the current one is placed: in a table larger
 * than the caches, each lookup otherwise waits for three misses in turn. */
#define AHEAD_SLOT 12
#define AHEAD_ENTRY 6
#define AHEAD_TEXT 3

static void prefetch_entry(const cg_strtab *t, uint32_t hash, bool text)
{
	slot sl = t->slots[hash & (t->nslots - 1)];
	if (sl.id1 == EMPTY_SLOT || sl.hash != hash)
		return;
	if (!text)
		__builtin_prefetch(&t->entries[sl.id1 - 1]);
	else
		__builtin_prefetch(t->text + t->entries[sl.id1 - 1].offset);
}

int cg_strtab_intern_all(cg_strtab *t, const cg_strtab *from, cg_str *map)
{
	uint32_t n = (uint32_t)from->count;
	for (uint32_t i = 0; i < n; i++) {
		if (i + AHEAD_SLOT < n)
			__builtin_prefetch(&t->slots[from->entries[i + AHEAD_SLOT].hash & (t->nslots - 1)]);
		if (i + AHEAD_ENTRY < n)
			prefetch_entry(t, from->entries[i + AHEAD_ENTRY].hash, false);
		if (i + AHEAD_TEXT < n)
			prefetch_entry(t, from->entries[i + AHEAD_TEXT].hash, true);
		const entry *e = &from->entries[i];
		int rc = cg_strtab_intern_hashed(t, from->text + e->offset, e->len, e->hash, &map[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

size_t cg_strtab_used_bytes(const cg_strtab *t)
{
	return sizeof *t + t->text_len + t->count * sizeof(entry) + t->nslots * sizeof(slot);
}
