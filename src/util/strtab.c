#include "strtab.h"

#include <stdbool.h>
#include <string.h>

#include "error.h"
#include "xalloc.h"

/* A string's place in the text is kept in 4 bytes: its offset from the
 * start of its run of 1,024 ids (runs' starts are 8-byte bases, a few KB for
 * millions of strings). Its length is where the next string starts, less
 * the NUL; its hash is in its slot. On millions of ids this is a quarter
 * of a 16-byte entry (offset, length, hash), memory the merging thread
 * would otherwise fill. A run whose text passes 4 GiB (strings of
 * megabytes each) keeps its later offsets whole in a sorted side list. */
#define RUN_BITS 10
#define RUN_MASK (((size_t)1 << RUN_BITS) - 1)
#ifndef CG_STRTAB_WIDE_FROM
#define CG_STRTAB_WIDE_FROM UINT32_MAX /* tests build it smaller */
#endif
#define WIDE ((uint32_t)CG_STRTAB_WIDE_FROM)

typedef struct wide_offset {
	uint64_t id;
	uint64_t offset;
} wide_offset;

/* A slot keeps the hash beside the id, so a probe past other strings
 * touches neither their offsets nor their text. It holds id + 1, so that
 * zero marks it empty: slots come zeroed from the kernel, and millions of
 * them are not written before the first string arrives. */
typedef struct slot {
	uint32_t id1;
	uint32_t hash;
} slot;

struct cg_strtab {
	char *text;
	size_t text_len, text_cap;
	uint32_t *offsets; /* from the run's base; WIDE: in wide */
	size_t count, offsets_cap;
	uint64_t *bases; /* text offset of each run's first id */
	size_t bases_cap;
	wide_offset *wide; /* by id */
	size_t nwide, wide_cap;
	slot *slots; /* open addressing; id1 0 marks an empty slot */
	size_t nslots;
	size_t limit;
	/* The capacities growing by doubling alone would have reached: the
	 * limit is checked against them, so that room made ahead
	 * (cg_strtab_expect) changes how fast the table fills, never which
	 * string reaches the limit. */
	size_t text_vcap, offsets_vcap, vslots;
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

#define ENTRY_BYTES sizeof(uint32_t) /* a string's cost beside its text and slots */

/* The bytes the limit counts. */
static size_t table_bytes(const cg_strtab *t)
{
	return t->text_vcap + t->offsets_vcap * ENTRY_BYTES + t->vslots * sizeof(slot);
}

__attribute__((noinline, cold)) static uint64_t wide_offset_of(const cg_strtab *t, size_t id)
{
	size_t lo = 0, hi = t->nwide;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->wide[mid].id <= id)
			lo = mid;
		else
			hi = mid;
	}
	return t->wide[lo].offset; /* an id marked WIDE is in the list */
}

/* Where string id starts in the text; for id == count, where the text ends
 * (the next string's start is always placed, so a length needs no test). */
static inline uint64_t offset_of(const cg_strtab *t, size_t id)
{
	uint32_t rel = t->offsets[id];
	if (__builtin_expect(rel != WIDE, 1))
		return t->bases[id >> RUN_BITS] + rel;
	return wide_offset_of(t, id);
}

/* For id < count. Within a run offsets only grow, so when the next one is
 * not wide, neither is this one. */
static inline size_t length_of(const cg_strtab *t, size_t id)
{
	uint32_t next = t->offsets[id + 1];
	if (__builtin_expect(next != WIDE && ((id + 1) & RUN_MASK) != 0, 1))
		return next - t->offsets[id] - 1;
	return (size_t)(offset_of(t, id + 1) - offset_of(t, id) - 1);
}

/* Capacity CG_GROW reaches from cap for need elements. */
static size_t grown(size_t cap, size_t need)
{
	size_t c = cap ? cap : 16;
	while (c < need)
		c *= 2;
	return need <= cap ? cap : c;
}

/* The slots, which alone keep the hashes, move into nslots new ones. */
static void rehash(cg_strtab *t, size_t nslots)
{
	slot *old = t->slots;
	size_t nold = t->nslots;
	t->slots = cg_calloc(nslots, sizeof(slot));
	t->nslots = nslots;
	for (size_t i = 0; i < nold; i++) {
		if (old[i].id1 == EMPTY_SLOT)
			continue;
		size_t s = old[i].hash & (nslots - 1);
		while (t->slots[s].id1 != EMPTY_SLOT)
			s = (s + 1) & (nslots - 1);
		t->slots[s] = old[i];
	}
	cg_free(old);
}

/* Records where string id, the next to come, starts: at the end of the text. */
static void place(cg_strtab *t, size_t id)
{
	size_t run = id >> RUN_BITS;
	if ((id & RUN_MASK) == 0) {
		CG_GROW(t->bases, t->bases_cap, run + 1);
		t->bases[run] = t->text_len;
	}
	uint64_t rel = t->text_len - t->bases[run];
	if (rel < WIDE) {
		t->offsets[id] = (uint32_t)rel;
		return;
	}
	CG_GROW(t->wide, t->wide_cap, t->nwide + 1);
	t->wide[t->nwide++] = (wide_offset){id, t->text_len};
	t->offsets[id] = WIDE;
}

cg_strtab *cg_strtab_new(size_t max_bytes)
{
	cg_strtab *t = cg_calloc(1, sizeof *t);
	t->limit = max_bytes;
	rehash(t, 64);
	t->vslots = 64;
	CG_GROW(t->offsets, t->offsets_cap, 2);
	place(t, 0);
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
	cg_free(t->offsets);
	cg_free(t->bases);
	cg_free(t->wide);
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

/* Does string id (< count) hold exactly s[0..n)? */
static inline bool holds(const cg_strtab *t, size_t id, const char *s, size_t n)
{
	return length_of(t, id) == n && same_bytes(t->text + offset_of(t, id), s, n);
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
		if (sl.hash == hash && holds(t, sl.id1 - 1, s, n)) {
			*where = i;
			return 1;
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

/* Would growing text to text_need and offsets to count_need exceed the limit? */
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
	if (t->count + 1 > t->offsets_vcap)
		extra += (t->offsets_vcap ? t->offsets_vcap : 16) * ENTRY_BYTES;
	if (crowded(t->count + 1, t->vslots))
		extra += t->vslots * sizeof(slot);
	if (over_limit(t, extra))
		return CG_ELIMIT;

	CG_GROW(t->text, t->text_cap, need);
	t->text_vcap = grown(t->text_vcap, need);
	memcpy(t->text + t->text_len, s, n);
	t->text[t->text_len + n] = '\0';
	CG_GROW(t->offsets, t->offsets_cap, t->count + 2);
	t->offsets_vcap = grown(t->offsets_vcap, t->count + 1);
	t->text_len = need;
	*out = (cg_str)t->count;
	t->count++;
	place(t, t->count);
	if (crowded(t->count, t->vslots))
		t->vslots *= 2;
	t->slots[where] = (slot){*out + 1, hash};
	if (crowded(t->count, t->nslots))
		rehash(t, t->nslots * 2);
	return 0;
}

const char *cg_strtab_get(const cg_strtab *t, cg_str id)
{
	return id < t->count ? t->text + offset_of(t, id) : "";
}

size_t cg_strtab_len(const cg_strtab *t, cg_str id)
{
	return id < t->count ? length_of(t, id) : 0;
}

uint32_t cg_strtab_count(const cg_strtab *t)
{
	return (uint32_t)t->count;
}

bool cg_strtab_equals(const cg_strtab *t, cg_str id, const char *s, size_t n)
{
	return id < t->count && holds(t, id, s, n);
}

size_t cg_strtab_bytes(const cg_strtab *t)
{
	return sizeof *t + t->text_cap + t->offsets_cap * ENTRY_BYTES + t->bases_cap * sizeof *t->bases +
	       t->wide_cap * sizeof *t->wide + t->nslots * sizeof(slot);
}

size_t cg_strtab_limit(const cg_strtab *t)
{
	return t->limit;
}

void cg_strtab_clear(cg_strtab *t)
{
	t->count = 0;
	t->text_len = 0;
	t->nwide = 0;
	place(t, 0);
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
	size_t bytes = grown(t->text_vcap, t->text_len + text) + grown(t->offsets_vcap, count) * ENTRY_BYTES +
		       nslots * sizeof(slot);
	return bytes <= t->limit;
}

#define EXPECT_MARGIN 1.25
#define SLOTS_AHEAD_SCALE 4.0

void cg_strtab_expect(cg_strtab *t, const cg_strtab *from, double scale, uint64_t most_bytes)
{
	size_t count = t->count + from->count, text_bytes = t->text_len + from->text_len;
	if (scale <= 1 || (count <= t->offsets_cap && text_bytes <= t->text_cap && !crowded(count, t->nslots)))
		return; /* no growth for these */
	double c = (double)count * scale, x = (double)text_bytes * scale;
	double bytes = x + c * (double)(ENTRY_BYTES + 2 * sizeof(slot)); /* at most 2.7 slots a string */
	if (c >= UINT32_MAX - 1 || bytes > (double)most_bytes || (t->limit && bytes > (double)t->limit))
		return;
	size_t slots_for = (size_t)c;
	/* Text and offsets get a margin: room never written is address space
	 * only, while an estimate a little short, found out near the end, moves
	 * the whole array (18 MB of offsets at 4.5 M strings) into fresh pages. */
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
	if (count + 2 > t->offsets_cap) { /* and the end of the text */
		t->offsets = cg_reallocarray(t->offsets, count + 2, ENTRY_BYTES);
		t->offsets_cap = count + 2;
	}
	/* The slots are all written as they fill: no margin for them, and
	 * no room before a quarter of the source is in. An estimate from the
	 * first blocks can be well off (a run's setup makes new strings
	 * faster than its steps), and doubling the slots for it left 4 M of
	 * them, 32 MB, for 1.1 M strings at 10 M lines. */
	if (scale > SLOTS_AHEAD_SCALE)
		return;
	size_t nslots = t->nslots;
	while (crowded(slots_for, nslots))
		nslots *= 2;
	if (nslots > t->nslots)
		rehash(t, nslots);
}

/* Interning a batch lets the next strings' slots, offsets and text be
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
		__builtin_prefetch(&t->offsets[sl.id1 - 1]);
	else
		__builtin_prefetch(t->text + offset_of(t, sl.id1 - 1));
}

int cg_strtab_intern_all(cg_strtab *t, const cg_strtab *from, cg_str *map)
{
	/* from's hashes are in its slots alone: map holds each until the
	 * string's id in t takes its place */
	for (size_t s = 0; s < from->nslots; s++)
		if (from->slots[s].id1 != EMPTY_SLOT)
			map[from->slots[s].id1 - 1] = from->slots[s].hash;
	uint32_t n = (uint32_t)from->count;
	for (uint32_t i = 0; i < n; i++) {
		if (i + AHEAD_SLOT < n)
			__builtin_prefetch(&t->slots[map[i + AHEAD_SLOT] & (t->nslots - 1)]);
		if (i + AHEAD_ENTRY < n)
			prefetch_entry(t, map[i + AHEAD_ENTRY], false);
		if (i + AHEAD_TEXT < n)
			prefetch_entry(t, map[i + AHEAD_TEXT], true);
		int rc = cg_strtab_intern_hashed(t, from->text + offset_of(from, i), length_of(from, i), map[i],
						 &map[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

size_t cg_strtab_used_bytes(const cg_strtab *t)
{
	return sizeof *t + t->text_len + t->count * ENTRY_BYTES + ((t->count >> RUN_BITS) + 1) * sizeof *t->bases +
	       t->nwide * sizeof *t->wide + t->nslots * sizeof(slot);
}
