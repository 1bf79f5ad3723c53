#include "snapshot.h"

#include <string.h>

#include "checked.h"
#include "xalloc.h"

cg_snapshot *cg_snapshot_new(void)
{
	cg_snapshot *s = cg_calloc(1, sizeof *s);
	s->max_split_size = -1;
	return s;
}

void cg_snapshot_free(cg_snapshot *s)
{
	if (!s)
		return;
	cg_free(s->segments);
	cg_free(s->blocks);
	cg_free(s->entries);
	cg_free(s->devices);
	cg_free(s->settings);
	cg_free(s);
}

const char *cg_block_state_name(cg_block_state st)
{
	static const char *const names[CG_BLOCK_STATE_COUNT] = {"allocated", "pending_free", "inactive",
								"unknown"};
	return (unsigned)st < CG_BLOCK_STATE_COUNT ? names[st] : "unknown";
}

const char *cg_snap_action_name(cg_snap_action a)
{
	static const char *const names[CG_SNAP_ACTION_COUNT] = {
		"alloc",       "free_requested", "free_completed", "segment_alloc", "segment_free",
		"segment_map", "segment_unmap",	 "snapshot",	   "oom",
	};
	return (unsigned)a < CG_SNAP_ACTION_COUNT ? names[a] : "unknown";
}

const char *cg_segment_pool_name(cg_segment_pool p)
{
	return p == CG_POOL_LARGE ? "large" : p == CG_POOL_SMALL ? "small" : "other";
}

/* Address -> bytes, open addressing with tombstones; the live set of one
 * replay. Addresses are arbitrary 64-bit values, so occupancy is kept in a
 * separate byte array rather than a reserved key. */
typedef struct addrmap {
	uint64_t *keys, *vals;
	uint8_t *used; /* 0 empty, 1 live, 2 deleted */
	size_t cap, live, filled;
} addrmap;

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static void map_init(addrmap *m, size_t want)
{
	size_t cap = 64;
	while (cap < want * 2 + 16)
		cap *= 2;
	m->keys = cg_malloc(cap * sizeof *m->keys);
	m->vals = cg_malloc(cap * sizeof *m->vals);
	m->used = cg_calloc(cap, 1);
	m->cap = cap;
	m->live = m->filled = 0;
}

static void map_free(addrmap *m)
{
	cg_free(m->keys);
	cg_free(m->vals);
	cg_free(m->used);
}

static size_t map_find(const addrmap *m, uint64_t key)
{
	for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->used[i] == 0)
			return SIZE_MAX;
		if (m->used[i] == 1 && m->keys[i] == key)
			return i;
	}
}

static void map_put(addrmap *m, uint64_t key, uint64_t val);

static void map_grow(addrmap *m)
{
	addrmap old = *m;
	map_init(m, old.live * 2);
	for (size_t i = 0; i < old.cap; i++)
		if (old.used[i] == 1)
			map_put(m, old.keys[i], old.vals[i]);
	map_free(&old);
}

/* Inserts a key known to be absent. */
static void map_put(addrmap *m, uint64_t key, uint64_t val)
{
	if ((m->filled + 1) * 4 > m->cap * 3)
		map_grow(m);
	size_t i = slot_of(key, m->cap);
	while (m->used[i] == 1)
		i = (i + 1) & (m->cap - 1);
	if (m->used[i] == 0)
		m->filled++;
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = val;
	m->live++;
}

static void map_del(addrmap *m, size_t i)
{
	m->used[i] = 2;
	m->live--;
}

static bool block_live(const cg_snap_block *b, cg_snap_series series)
{
	return b->state == CG_BLOCK_ALLOCATED || (series == CG_SERIES_ACTIVE && b->state == CG_BLOCK_PENDING);
}

static int overflow(cg_error *err)
{
	return cg_error_set(err, CG_ELIMIT, "snapshot: live bytes do not fit in 64 bits");
}

/* Forward replay from the reconstructed start: counts what contradicts it
 * and returns the bytes at the end (docs/snapshot-format.md §9). */
static int replay_forward(const cg_snap_entry *e, uint32_t n, uint8_t end_action, addrmap *m, uint64_t *total,
			  uint64_t *issues, cg_error *err)
{
	for (uint32_t k = 0; k < n; k++) {
		if (e[k].action == CG_SNAP_ALLOC) {
			size_t i = map_find(m, e[k].addr);
			if (i != SIZE_MAX) {
				++*issues;
				*total -= m->vals[i];
				map_del(m, i);
			}
			if (!cg_add_u64(*total, e[k].size, total))
				return overflow(err);
			map_put(m, e[k].addr, e[k].size);
		} else if (e[k].action == end_action) {
			size_t i = map_find(m, e[k].addr);
			if (i == SIZE_MAX) {
				++*issues;
				continue;
			}
			*total -= m->vals[i];
			map_del(m, i);
		}
	}
	return 0;
}

int cg_snapshot_replay(const cg_snapshot *s, uint32_t d, cg_snap_series series, cg_snap_replay *out,
		       cg_error *err)
{
	memset(out, 0, sizeof *out);
	out->peak_index = -1;
	if (d >= s->ndevices)
		return 0;
	const cg_snap_device *dev = &s->devices[d];
	const cg_snap_entry *e = s->entries + dev->entry_first;
	uint32_t n = dev->entry_count;
	uint8_t end_action = series == CG_SERIES_ACTIVE ? CG_SNAP_FREE_COMPLETED : CG_SNAP_FREE_REQUESTED;

	addrmap m;
	map_init(&m, 64);
	uint64_t total = 0;
	for (uint32_t g = dev->seg_first; g < dev->seg_first + dev->seg_count; g++) {
		const cg_snap_segment *seg = &s->segments[g];
		for (uint32_t b = seg->block_first; b < seg->block_first + seg->block_count; b++) {
			const cg_snap_block *blk = &s->blocks[b];
			if (!block_live(blk, series))
				continue;
			size_t i = map_find(&m, blk->address);
			if (i != SIZE_MAX) { /* two live blocks at one address: keep the later */
				total -= m.vals[i];
				map_del(&m, i);
			}
			if (!cg_add_u64(total, blk->requested, &total)) {
				map_free(&m);
				return overflow(err);
			}
			map_put(&m, blk->address, blk->requested);
		}
	}
	out->end_segments = total;

	/* Backward: after(k) is the live total after entry k; the peak is the
	 * first strict maximum over (before, after(0..n)). Walking back, an
	 * after(k) at or above the running maximum is its earliest place so
	 * far; before_first, known last, wins ties. */
	uint64_t max_after = 0;
	int64_t max_k = -1;
	out->at_end = total;
	for (uint32_t k = n; k-- > 0;) {
		if (max_k < 0 || total >= max_after) {
			max_after = total;
			max_k = k;
		}
		if (e[k].action == CG_SNAP_ALLOC) {
			size_t i = map_find(&m, e[k].addr);
			if (i == SIZE_MAX) {
				out->issues++;
				continue;
			}
			total -= m.vals[i];
			map_del(&m, i);
		} else if (e[k].action == end_action) {
			if (map_find(&m, e[k].addr) != SIZE_MAX) {
				out->issues++;
				continue;
			}
			if (!cg_add_u64(total, e[k].size, &total)) {
				map_free(&m);
				return overflow(err);
			}
			map_put(&m, e[k].addr, e[k].size);
		}
	}
	out->before_first = total;
	out->peak = total;
	if (max_k >= 0 && max_after > total) {
		out->peak = max_after;
		out->peak_index = max_k;
		out->peak_t_ns = e[max_k].t_ns;
	}

	uint64_t fwd = total, fissues = 0;
	int rc = replay_forward(e, n, end_action, &m, &fwd, &fissues, err);
	map_free(&m);
	if (rc < 0)
		return rc;
	out->issues += fissues;
	out->end_matches = fwd == out->end_segments && fissues == 0;
	return 0;
}

size_t cg_snapshot_blocks_before_trace(const cg_snapshot *s, uint32_t d, uint32_t **out)
{
	*out = NULL;
	if (d >= s->ndevices)
		return 0;
	const cg_snap_device *dev = &s->devices[d];
	addrmap allocs;
	map_init(&allocs, 64);
	for (uint32_t k = dev->entry_first; k < dev->entry_first + dev->entry_count; k++)
		if (s->entries[k].action == CG_SNAP_ALLOC && map_find(&allocs, s->entries[k].addr) == SIZE_MAX)
			map_put(&allocs, s->entries[k].addr, 0);
	size_t n = 0, cap = 0;
	for (uint32_t g = dev->seg_first; g < dev->seg_first + dev->seg_count; g++) {
		const cg_snap_segment *seg = &s->segments[g];
		for (uint32_t b = seg->block_first; b < seg->block_first + seg->block_count; b++)
			if (block_live(&s->blocks[b], CG_SERIES_ACTIVE) &&
			    map_find(&allocs, s->blocks[b].address) == SIZE_MAX) {
				CG_GROW(*out, cap, n + 1);
				(*out)[n++] = b;
			}
	}
	map_free(&allocs);
	return n;
}

uint64_t cg_snapshot_memviz_max(const cg_snapshot *s, uint32_t d)
{
	if (d >= s->ndevices)
		return 0;
	const cg_snap_device *dev = &s->devices[d];
	const cg_snap_entry *e = s->entries + dev->entry_first;
	uint32_t n = dev->entry_count;
	/* Elements are allocations as memory_viz numbers them; an action
	 * toggles one in or out of the drawn set. */
	uint64_t *size = cg_malloc(((size_t)n + 1) * sizeof *size);
	uint8_t *in = cg_calloc((size_t)n + 1, 1);
	uint32_t *action = cg_malloc(((size_t)n + 1) * sizeof *action);
	size_t nel = 0, nact = 0;
	uint64_t total = 0;
	addrmap live;
	map_init(&live, 64);
	for (uint32_t k = 0; k < n; k++) {
		uint8_t a = e[k].action;
		bool merged_free = a == CG_SNAP_FREE_REQUESTED && k + 1 < n &&
				   e[k + 1].action == CG_SNAP_FREE_COMPLETED && e[k + 1].addr == e[k].addr;
		if (a == CG_SNAP_ALLOC) {
			size_t i = map_find(&live, e[k].addr);
			if (i != SIZE_MAX)
				map_del(&live, i);
			map_put(&live, e[k].addr, nel);
			size[nel] = e[k].size;
			action[nact++] = (uint32_t)nel++;
		} else if (merged_free || a == CG_SNAP_FREE_COMPLETED) {
			size_t i = map_find(&live, e[k].addr);
			if (i != SIZE_MAX) {
				action[nact++] = (uint32_t)live.vals[i];
				map_del(&live, i);
			} else { /* allocated before the trace: drawn from the start */
				size[nel] = e[k].size;
				in[nel] = 1;
				total += e[k].size;
				action[nact++] = (uint32_t)nel++;
			}
			k += merged_free;
		}
	}
	uint64_t seeded = 0; /* blocks allocated before the trace, never freed in it */
	for (uint32_t g = dev->seg_first; g < dev->seg_first + dev->seg_count; g++) {
		const cg_snap_segment *seg = &s->segments[g];
		for (uint32_t b = seg->block_first; b < seg->block_first + seg->block_count; b++)
			if (s->blocks[b].state == CG_BLOCK_ALLOCATED && map_find(&live, s->blocks[b].address) == SIZE_MAX) {
				seeded++;
				total += s->blocks[b].requested;
			}
	}
	map_free(&live);
	uint64_t max = 0;
	if (!nact && seeded)
		max = total; /* memory_viz draws its one seeded element as an action */
	for (size_t k = 0; k < nact; k++) {
		uint32_t el = action[k];
		total = in[el] ? total - size[el] : total + size[el];
		in[el] ^= 1;
		if (total > max)
			max = total;
	}
	cg_free(size);
	cg_free(in);
	cg_free(action);
	return max;
}

/* Disjoint, merged half-open byte ranges in address order. */
typedef struct ranges {
	uint64_t *lo, *hi;
	size_t n, cap;
} ranges;

/* Index of the first range whose end is beyond a. */
static size_t first_ending_after(const ranges *r, uint64_t a)
{
	size_t lo = 0, hi = r->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->hi[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void ranges_insert_at(ranges *r, size_t i, uint64_t lo, uint64_t hi)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		r->lo = cg_reallocarray(r->lo, cap, sizeof *r->lo);
		r->hi = cg_reallocarray(r->hi, cap, sizeof *r->hi);
		r->cap = cap;
	}
	memmove(r->lo + i + 1, r->lo + i, (r->n - i) * sizeof *r->lo);
	memmove(r->hi + i + 1, r->hi + i, (r->n - i) * sizeof *r->hi);
	r->lo[i] = lo;
	r->hi[i] = hi;
	r->n++;
}

static void ranges_remove_at(ranges *r, size_t i)
{
	memmove(r->lo + i, r->lo + i + 1, (r->n - i - 1) * sizeof *r->lo);
	memmove(r->hi + i, r->hi + i + 1, (r->n - i - 1) * sizeof *r->hi);
	r->n--;
}

/* Adds [lo, hi); false (nothing added) when it overlaps a range. */
static bool ranges_add(ranges *r, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return true;
	size_t i = first_ending_after(r, lo);
	if (i < r->n && r->lo[i] < hi)
		return false;
	ranges_insert_at(r, i, lo, hi);
	if (i + 1 < r->n && r->hi[i] == r->lo[i + 1]) {
		r->hi[i] = r->hi[i + 1];
		ranges_remove_at(r, i + 1);
	}
	if (i > 0 && r->hi[i - 1] == r->lo[i]) {
		r->hi[i - 1] = r->hi[i];
		ranges_remove_at(r, i);
	}
	return true;
}

/* Removes [lo, hi); false (nothing removed) when not wholly covered. */
static bool ranges_remove(ranges *r, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return true;
	size_t i = first_ending_after(r, lo);
	if (i == r->n || r->lo[i] > lo || r->hi[i] < hi)
		return false;
	uint64_t rlo = r->lo[i], rhi = r->hi[i];
	ranges_remove_at(r, i);
	if (rlo < lo)
		ranges_insert_at(r, i++, rlo, lo);
	if (hi < rhi)
		ranges_insert_at(r, i, hi, rhi);
	return true;
}

static uint64_t ranges_total(const ranges *r)
{
	uint64_t t = 0;
	for (size_t i = 0; i < r->n; i++)
		t += r->hi[i] - r->lo[i];
	return t;
}

static bool ranges_equal(const ranges *a, const ranges *b)
{
	if (a->n != b->n)
		return false;
	return !a->n || (!memcmp(a->lo, b->lo, a->n * sizeof *a->lo) && !memcmp(a->hi, b->hi, a->n * sizeof *a->hi));
}

static void ranges_free(ranges *r)
{
	cg_free(r->lo);
	cg_free(r->hi);
}

static bool adds_range(uint8_t a)
{
	return a == CG_SNAP_SEGMENT_ALLOC || a == CG_SNAP_SEGMENT_MAP;
}

static bool removes_range(uint8_t a)
{
	return a == CG_SNAP_SEGMENT_FREE || a == CG_SNAP_SEGMENT_UNMAP;
}

int cg_snapshot_reserved(const cg_snapshot *s, uint32_t d, cg_snap_reserved *out, cg_error *err)
{
	memset(out, 0, sizeof *out);
	out->max_index = -1;
	if (d >= s->ndevices)
		return 0;
	const cg_snap_device *dev = &s->devices[d];
	const cg_snap_entry *e = s->entries + dev->entry_first;
	uint32_t n = dev->entry_count;
	ranges fin = {0}, r = {0};
	for (uint32_t g = dev->seg_first; g < dev->seg_first + dev->seg_count; g++) {
		const cg_snap_segment *seg = &s->segments[g];
		uint64_t end;
		if (!cg_add_u64(seg->address, seg->total_size, &end) || !ranges_add(&fin, seg->address, end))
			out->issues++;
	}
	out->end_segments = ranges_total(&fin);
	for (size_t i = 0; i < fin.n; i++)
		ranges_add(&r, fin.lo[i], fin.hi[i]);

	uint64_t total = out->end_segments;
	uint64_t *after = cg_malloc(((size_t)n + 1) * sizeof *after);
	for (uint32_t k = n; k-- > 0;) {
		after[k] = total;
		uint64_t end;
		if (!adds_range(e[k].action) && !removes_range(e[k].action))
			continue;
		out->events++;
		if (!cg_add_u64(e[k].addr, e[k].size, &end)) {
			out->issues++;
			continue;
		}
		if (adds_range(e[k].action)) {
			if (ranges_remove(&r, e[k].addr, end))
				total -= e[k].size;
			else
				out->issues++;
		} else if (ranges_add(&r, e[k].addr, end)) {
			if (!cg_add_u64(total, e[k].size, &total)) {
				cg_free(after);
				ranges_free(&r);
				ranges_free(&fin);
				return overflow(err);
			}
		} else {
			out->issues++;
		}
	}
	out->before_first = out->max = total;
	for (uint32_t k = 0; k < n; k++)
		if (after[k] > out->max) {
			out->max = after[k];
			out->max_index = k;
			out->max_t_ns = e[k].t_ns;
		}
	out->at_end = n ? after[n - 1] : total;
	cg_free(after);

	for (uint32_t k = 0; k < n; k++) {
		uint64_t end;
		if (!adds_range(e[k].action) && !removes_range(e[k].action))
			continue;
		if (!cg_add_u64(e[k].addr, e[k].size, &end))
			continue; /* counted going backwards */
		bool ok = adds_range(e[k].action) ? ranges_add(&r, e[k].addr, end)
						  : ranges_remove(&r, e[k].addr, end);
		if (!ok)
			out->issues++;
	}
	out->end_matches = ranges_equal(&r, &fin);
	ranges_free(&r);
	ranges_free(&fin);
	return 0;
}
