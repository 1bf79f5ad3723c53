/* The timeline from a snapshot's entries and segments: entries grouped by
 * device and timed, spans for stacks under the external annotations,
 * memory records, reserved-bytes checkpoints and OOM entries; then the
 * memory from before the trace. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "checked.h"
#include "diag.h"
#include "finalize.h"
#include "kineto_events.h"
#include "parallel.h"
#include "snapshot_read.h"
#include "spannest.h"
#include "u64map.h"
#include "xalloc.h"

/* ---- grouping ---- */

/* Entries of lists matched to a device, grouped by device (file order
 * within one); the others are dropped. In place when the lists came in
 * device order, as every writer emits them. */
static void group_entries(cg_snap_reader *x)
{
	cg_snapshot *s = x->s;
	uint32_t nd = x->tl->ndevices;
	bool in_order = true;
	int last = -1;
	uint64_t dropped = 0;
	for (size_t i = 0; i < s->nentries; i++) {
		const struct cg_snap_list *l = &x->lists[s->entries[i].device];
		if (!l->matched)
			continue;
		if ((int)l->device < last)
			in_order = false;
		last = l->device;
	}
	cg_snap_entry *dst = s->entries;
	uint32_t *dst_stack = x->entry_stack;
	size_t *first = cg_calloc((size_t)nd + 1, sizeof *first);
	if (!in_order) {
		dst = cg_malloc((s->nentries ? s->nentries : 1) * sizeof *dst);
		dst_stack = cg_malloc((s->nentries ? s->nentries : 1) * sizeof *dst_stack);
		for (size_t i = 0; i < s->nentries; i++) {
			const struct cg_snap_list *l = &x->lists[s->entries[i].device];
			if (l->matched)
				first[l->device + 1]++;
		}
		for (uint32_t d = 0; d < nd; d++)
			first[d + 1] += first[d];
	}
	size_t k = 0;
	for (size_t i = 0; i < s->nentries; i++) {
		cg_snap_entry e = s->entries[i];
		const struct cg_snap_list *l = &x->lists[e.device];
		if (!l->matched) {
			dropped++;
			continue;
		}
		e.device = l->device;
		size_t at = in_order ? k++ : first[e.device]++;
		dst_stack[at] = x->entry_stack[i];
		dst[at] = e;
	}
	if (!in_order) {
		k = s->nentries - dropped;
		cg_free(s->entries);
		cg_free(x->entry_stack);
		s->entries = dst;
		x->entry_stack = dst_stack;
	}
	s->nentries = k;
	cg_free(first);
	if (dropped)
		cg_diag_add(x->tl, CG_DIAG_WARNING, 0,
			    "%" PRIu64 " trace entries in lists outside \"device_traces\" were ignored", dropped);
}

/* Segments grouped by device, file order within one (a counting sort). */
static void group_segments(cg_snapshot *s, uint32_t nd)
{
	cg_snap_segment *sorted = cg_malloc((s->nsegments ? s->nsegments : 1) * sizeof *sorted);
	uint32_t *at = cg_calloc((size_t)nd + 1, sizeof *at);
	for (size_t i = 0; i < s->nsegments; i++)
		at[s->segments[i].device + 1]++;
	for (uint32_t d = 0; d < nd; d++) {
		at[d + 1] += at[d];
		s->devices[d].seg_first = at[d];
		s->devices[d].seg_count = at[d + 1] - at[d];
	}
	for (size_t i = 0; i < s->nsegments; i++)
		sorted[at[s->segments[i].device]++] = s->segments[i];
	cg_free(at);
	cg_free(s->segments);
	s->segments = sorted;
}

static void fill_devices(cg_snap_reader *x)
{
	cg_snapshot *s = x->s;
	uint32_t nd = x->tl->ndevices;
	s->ndevices = nd;
	s->devices = cg_calloc(nd ? nd : 1, sizeof *s->devices);
	size_t i = 0;
	for (uint32_t d = 0; d < nd; d++) {
		s->devices[d].entry_first = (uint32_t)i;
		while (i < s->nentries && s->entries[i].device == d)
			i++;
		s->devices[d].entry_count = (uint32_t)(i - s->devices[d].entry_first);
	}
	for (size_t l = 0; l < x->nlists; l++) {
		const struct cg_snap_list *list = &x->lists[l];
		if (!list->matched)
			continue;
		cg_snap_device *dev = &s->devices[list->device];
		dev->has_trace = true;
		dev->trace_entries += list->taken + (uint64_t)list->list->len;
		dev->unknown_actions += list->unknown_actions;
		dev->with_frames += list->with_frames;
	}
	group_segments(s, nd);
}

/* ---- time ---- */

/* t_ns from time_us (epoch µs) when every entry has one, relative to the
 * earliest; else the entry's index. Kept non-decreasing per device, so
 * sorting by time keeps the trace's order. */
static int set_times(cg_snap_reader *x, const cg_pk *annotations, int64_t *origin_us, cg_error *err)
{
	cg_snapshot *s = x->s;
	s->has_time = x->all_timed && s->nentries > 0;
	x->tl->source.time_is_index = !s->has_time && s->nentries > 0;
	uint64_t origin = UINT64_MAX;
	for (size_t i = 0; s->has_time && i < s->nentries; i++)
		if (s->entries[i].t_ns < origin)
			origin = s->entries[i].t_ns;
	/* an annotation may open before the first entry the ring buffer kept */
	cg_pk *const *ann;
	size_t nann = cg_pk_seq(annotations, &ann);
	for (size_t i = 0; s->has_time && i < nann; i++) {
		int64_t t;
		if (cg_pk_int(cg_pk_dict_get(ann[i], "time_us"), &t) && t >= 0 && (uint64_t)t < origin)
			origin = (uint64_t)t;
	}
	*origin_us = s->has_time ? (int64_t)origin : 0;
	for (uint32_t d = 0; d < s->ndevices; d++) {
		const cg_snap_device *dev = &s->devices[d];
		uint64_t prev = 0;
		bool warned = false;
		for (uint32_t k = dev->entry_first; k < dev->entry_first + dev->entry_count; k++) {
			cg_snap_entry *e = &s->entries[k];
			uint64_t t = e->index;
			if (s->has_time && !cg_mul_u64(e->t_ns - origin, 1000, &t))
				return cg_error_set(err, CG_EINPUT, "%s: trace entry %u: time_us out of range",
						    x->name, e->index);
			if (t < prev) {
				if (!warned)
					cg_diag_add(x->tl, CG_DIAG_WARNING, e->index + 1,
						    "time_us goes backwards at trace entry %u; entries are kept in "
						    "the file's order",
						    e->index);
				warned = true;
				t = prev;
			}
			e->t_ns = prev = t;
		}
	}
	if (s->has_time) {
		cg_source *src = &x->tl->source;
		src->time_origin_known = true;
		src->time_origin_unix_ns = (int64_t)origin * 1000;
		src->time_origin = cg_asprintf("%" PRIu64 " us", origin);
	}
	return 0;
}

/* ---- spans: annotations, then stacks under them ---- */

typedef struct span_node {
	uint64_t start, end;
	uint32_t parent; /* local index or CG_NONE */
	cg_str name;
	uint32_t line;
	uint8_t step;
	bool annotation;
	bool used;
} span_node;

#define RECENT_LEAVES 256 /* a power of two */

typedef struct span_builder {
	span_node *nodes;
	size_t n, cap;
	cg_u64map children; /* (parent + 1) << 32 | frame name -> node + 1 */
	cg_u64map leaves;   /* (annotation + 1) << 32 | stack -> leaf node + 1 */
	/* leaves looked up lately, by key (never 0), direct-mapped: the
	 * entries of a step reuse a few hundred stacks */
	struct recent_leaf {
		uint64_t key;
		uint32_t leaf;
	} recent[RECENT_LEAVES];
} span_builder;

static uint64_t pair_key(uint32_t parent, uint32_t id)
{
	return (uint64_t)(uint32_t)(parent + 1u) << 32 | id;
}

static uint32_t add_node(span_builder *b, uint32_t parent, cg_str name, uint64_t t, uint32_t line)
{
	CG_GROW(b->nodes, b->cap, b->n + 1);
	b->nodes[b->n] = (span_node){t, t, parent, name, line, CG_PHASE_NONE, false, false};
	return (uint32_t)b->n++;
}

/* The leaf span of a stack under annotation span a (CG_NONE: none). */
static uint32_t stack_span(cg_snap_reader *x, span_builder *b, uint32_t a, uint32_t stack, uint64_t t,
			   uint32_t line)
{
	uint64_t key = pair_key(a, stack);
	struct recent_leaf *r = &b->recent[key * 0x9e3779b97f4a7c15ull >> 56 & (RECENT_LEAVES - 1)];
	if (r->key == key)
		return r->leaf;
	uint32_t leaf = cg_u64map_get(&b->leaves, key);
	if (leaf) {
		*r = (struct recent_leaf){key, leaf - 1};
		return leaf - 1;
	}
	uint32_t p = a;
	for (uint32_t f = x->stack_first[stack - 1]; f < x->stack_first[stack]; f++) {
		cg_str name = x->stack_frames[f];
		uint32_t *child = cg_u64map_slot(&b->children, pair_key(p, name));
		if (!*child)
			*child = add_node(b, p, name, t, line) + 1;
		p = *child - 1;
	}
	*cg_u64map_slot(&b->leaves, key) = p + 1;
	*r = (struct recent_leaf){key, p};
	return p;
}

/* external_annotations: START/END pairs per device and name become spans;
 * an unmatched START lasts to the end of its device's trace. */
static int read_annotations(cg_snap_reader *x, const cg_pk *ann, int64_t origin_us, span_builder *b,
			    cg_nest_span **nest_out, size_t *nnest_out)
{
	cg_snapshot *s = x->s;
	cg_pk *const *items;
	size_t n = cg_pk_seq(ann, &items);
	s->annotations = n;
	*nest_out = NULL;
	*nnest_out = 0;
	if (!n)
		return 0;
	if (!s->has_time) {
		cg_diag_add(x->tl, CG_DIAG_WARNING, 0,
			    "%zu external annotations ignored: the trace entries have no time_us to place them", n);
		return 0;
	}
	cg_nest_span *nest = cg_calloc(n, sizeof *nest);
	uint32_t *below = cg_calloc(n, sizeof *below); /* the START open before it, + 1 */
	cg_u64map open = {0};			      /* (device + 1) << 32 | name -> latest open START + 1 */
	size_t nn = 0;
	uint64_t unmatched = 0;
	for (size_t i = 0; i < n; i++) {
		const cg_pk *a = items[i];
		const cg_pk *name = cg_pk_dict_get(a, "name"), *stage = cg_pk_dict_get(a, "stage");
		int64_t dev, t;
		if (!name || name->type != CG_PK_STR || !cg_pk_int(cg_pk_dict_get(a, "device"), &dev) ||
		    !cg_pk_int(cg_pk_dict_get(a, "time_us"), &t) || dev < 0 || (size_t)dev >= x->device_of_cap ||
		    !x->device_of[dev] || t < origin_us) {
			unmatched++;
			continue;
		}
		uint64_t ns;
		if (!cg_mul_u64((uint64_t)(t - origin_us), 1000, &ns) || ns > INT64_MAX) {
			unmatched++;
			continue;
		}
		uint16_t d = (uint16_t)(x->device_of[dev] - 1);
		cg_str id;
		if (cg_timeline_intern(x->tl, name->v.s, name->len, &id) < 0) {
			cg_u64map_free(&open);
			cg_free(below);
			cg_free(nest);
			return CG_ELIMIT;
		}
		uint32_t *top = cg_u64map_slot(&open, pair_key(d, id));
		if (cg_pk_str_is(stage, "START")) {
			nest[nn] = (cg_nest_span){(int64_t)ns, -1, d, (uint32_t)i, id, 0, false, false};
			below[nn] = *top;
			*top = (uint32_t)++nn;
			continue;
		}
		/* END: closes the latest open START of that name on that device */
		if (!*top || (int64_t)ns < nest[*top - 1].start) {
			unmatched++;
			continue;
		}
		uint32_t k = *top - 1;
		nest[k].end = (int64_t)ns;
		*top = below[k];
	}
	cg_u64map_free(&open);
	cg_free(below);
	for (size_t k = 0; k < nn; k++) {
		if (nest[k].end >= 0)
			continue;
		const cg_snap_device *dev = &s->devices[nest[k].thread];
		uint64_t last = dev->entry_count ? s->entries[dev->entry_first + dev->entry_count - 1].t_ns : 0;
		nest[k].end = (int64_t)last > nest[k].start ? (int64_t)last : nest[k].start;
	}
	if (unmatched)
		cg_diag_add(x->tl, CG_DIAG_WARNING, 0,
			    "%" PRIu64 " external annotations could not be paired or placed and were ignored",
			    unmatched);
	cg_nest_build(nest, nn, NULL, 0, NULL);
	for (size_t k = 0; k < nn; k++) {
		cg_str name = nest[k].payload;
		uint32_t node = add_node(b, nest[k].parent == UINT32_MAX ? CG_NONE : nest[k].parent, name,
					 (uint64_t)nest[k].start, nest[k].order + 1);
		b->nodes[node].end = (uint64_t)nest[k].end;
		b->nodes[node].annotation = true;
		const char *text = cg_timeline_str(x->tl, name);
		b->nodes[node].step = (uint8_t)cg_kineto_phase(text, strlen(text));
	}
	*nest_out = nest;
	*nnest_out = nn;
	return 0;
}

/* The innermost annotation around each entry (CG_NONE: none), in one
 * sweep per device: the spans come sorted by device and start, nested
 * (cg_nest_build), and each device's entries in time order. A span is
 * pushed when it has started, popped once it has ended; the top of the
 * stack is then the innermost, and of two touching spans the one starting
 * at the entry's time, as cg_nest_build places points. */
static uint32_t *annotation_of(const cg_snapshot *s, const cg_nest_span *nest, size_t nnest)
{
	if (!nnest)
		return NULL;
	uint32_t *of = cg_malloc((s->nentries ? s->nentries : 1) * sizeof *of);
	uint32_t *stack = cg_malloc(nnest * sizeof *stack);
	size_t j = 0;
	for (uint32_t d = 0; d < s->ndevices; d++) {
		const cg_snap_device *dev = &s->devices[d];
		while (j < nnest && nest[j].thread < d)
			j++;
		size_t depth = 0;
		for (uint32_t k = dev->entry_first; k < dev->entry_first + dev->entry_count; k++) {
			int64_t t = (int64_t)s->entries[k].t_ns;
			for (; j < nnest && nest[j].thread == d && nest[j].start <= t; j++) {
				while (depth && nest[stack[depth - 1]].end < nest[j].start)
					depth--;
				stack[depth++] = (uint32_t)j;
			}
			while (depth && nest[stack[depth - 1]].end < t)
				depth--;
			of[k] = depth ? stack[depth - 1] : CG_NONE;
		}
	}
	cg_free(stack);
	return of;
}

/* n in decimal, as "%zu" writes it (hundreds of thousands of span ids);
 * returns the length. */
static size_t decimal(char buf[24], size_t n)
{
	char tmp[24];
	size_t k = 0;
	do {
		tmp[k++] = (char)('0' + n % 10);
		n /= 10;
	} while (n);
	for (size_t i = 0; i < k; i++)
		buf[i] = tmp[k - 1 - i];
	buf[k] = 0;
	return k;
}

static int add_spans(cg_snap_reader *x, span_builder *b, cg_str *ids)
{
	cg_timeline *tl = x->tl;
	/* children are made after their parents: one backward sweep widens
	 * each stack span to cover its children */
	for (size_t i = b->n; i-- > 0;) {
		span_node *c = &b->nodes[i];
		if (c->parent == CG_NONE || b->nodes[c->parent].annotation)
			continue;
		span_node *p = &b->nodes[c->parent];
		p->start = c->start < p->start ? c->start : p->start;
		p->end = c->end > p->end ? c->end : p->end;
	}
	for (size_t i = 0; i < b->n; i++) {
		char id[24];
		size_t len = decimal(id, i);
		if (cg_timeline_intern(tl, id, len, &ids[i]) < 0)
			return CG_ELIMIT;
	}
	for (size_t i = 0; i < b->n; i++) {
		const span_node *n = &b->nodes[i];
		cg_span s = {0};
		s.start_ns = n->start;
		s.id = ids[i];
		s.name = n->name;
		s.parent = n->parent == CG_NONE ? CG_STR_EMPTY : ids[n->parent];
		s.line = n->line;
		s.kind = CG_SPAN_FUNCTION;
		s.step = n->step;
		s.flags = CG_SPAN_MEASURED;
		int rc = cg_timeline_add_span(tl, &s);
		if (rc == 0)
			rc = cg_timeline_add_span_end(tl, s.id, n->end - n->start, s.line);
		if (rc < 0)
			return rc;
	}
	tl->source.records[CG_KIND_SPAN_START] = b->n;
	return 0;
}

/* ---- records ---- */

/* "0x7f3a00000000": a block's address as its tensor id (snprintf is too
 * slow for millions of entries). Returns the length. */
static size_t hex_address(char buf[24], uint64_t a)
{
	static const char digits[] = "0123456789abcdef";
	size_t n = a ? (size_t)(67 - __builtin_clzll((unsigned long long)a)) / 4 : 1;
	buf[0] = '0';
	buf[1] = 'x';
	for (size_t i = n; i-- > 0; a >>= 4)
		buf[2 + i] = digits[a & 15];
	buf[2 + n] = 0;
	return 2 + n;
}

/* The tensor id of an address: the allocator hands the same addresses
 * out again and again, so each is formatted and interned once (ids are
 * still given in order of first use). */
static int address_id(cg_timeline *tl, cg_u64map *ids, uint64_t a, cg_tensor_id *out)
{
	uint32_t *slot = a != UINT64_MAX ? cg_u64map_slot(ids, a + 1) : NULL;
	if (slot && *slot) {
		*out = cg_tensor_id_str(*slot - 1);
		return 0;
	}
	char buf[24];
	size_t len = hex_address(buf, a);
	cg_str id;
	int rc = cg_timeline_intern(tl, buf, len, &id);
	if (rc == 0 && slot && id != UINT32_MAX)
		*slot = id + 1;
	*out = cg_tensor_id_str(id);
	return rc;
}

/* Reserved bytes after each segment entry, from dev->reserved (worked out
 * on the replays' thread). */
static int add_reserved(cg_snap_reader *x, uint32_t d)
{
	cg_snapshot *s = x->s;
	cg_snap_device *dev = &s->devices[d];
	const cg_snap_reserved rv = dev->reserved;
	int rc;
	if (!dev->seg_count && !rv.events)
		return 0;
	const cg_snap_entry *e = s->entries + dev->entry_first;
	uint32_t n = dev->entry_count;
	uint64_t reserved = rv.before_first;
	cg_devmem m = {0};
	m.device = (uint16_t)d;
	m.has_reserved = true;
	m.t_ns = n ? e[0].t_ns : 0;
	m.reserved_bytes = reserved;
	m.line = n ? e[0].index + 1 : 0;
	rc = cg_timeline_add_devmem(x->tl, &m);
	for (uint32_t k = 0; k < n && rc == 0; k++) {
		uint8_t a = e[k].action;
		if (a == CG_SNAP_SEGMENT_ALLOC || a == CG_SNAP_SEGMENT_MAP)
			reserved = cg_add_u64(reserved, e[k].size, &reserved) ? reserved : UINT64_MAX;
		else if (a == CG_SNAP_SEGMENT_FREE || a == CG_SNAP_SEGMENT_UNMAP)
			reserved = reserved >= e[k].size ? reserved - e[k].size : 0;
		else if (k + 1 < n)
			continue;
		m.t_ns = e[k].t_ns;
		m.reserved_bytes = reserved;
		m.line = e[k].index + 1;
		rc = cg_timeline_add_devmem(x->tl, &m);
	}
	return rc;
}

/* Blocks in use at the dump that no entry allocated, with frames: one
 * allocation each at their device's first moment, so that what was live
 * before the trace shows by stack too (the others are the baseline).
 * Lists them in *out with their leaf spans (made in b). */
typedef struct early_block {
	uint32_t block;
	uint32_t span;
	uint64_t t_ns;
	uint16_t device;
} early_block;

static size_t early_blocks(cg_snap_reader *x, span_builder *b, early_block **out)
{
	cg_snapshot *s = x->s;
	size_t n = 0, cap = 0;
	*out = NULL;
	x->early_bytes = cg_calloc(s->ndevices ? s->ndevices : 1, sizeof *x->early_bytes);
	for (uint32_t d = 0; d < s->ndevices; d++) {
		const cg_snap_device *dev = &s->devices[d];
		uint64_t t0 = dev->entry_count ? s->entries[dev->entry_first].t_ns : 0;
		uint32_t *blocks;
		size_t nb = cg_snapshot_blocks_before_trace(s, d, &blocks);
		for (size_t i = 0; i < nb; i++) {
			uint32_t stack = x->block_stack[blocks[i]];
			if (!stack)
				continue;
			CG_GROW(*out, cap, n + 1);
			x->early_bytes[d] += s->blocks[blocks[i]].requested;
			(*out)[n++] = (early_block){blocks[i], stack_span(x, b, CG_NONE, stack, t0, 0), t0, (uint16_t)d};
		}
		cg_free(blocks);
	}
	return n;
}

static int add_early_block(cg_snap_reader *x, const early_block *e, const cg_str *ids, cg_u64map *address_ids)
{
	const cg_snap_block *blk = &x->s->blocks[e->block];
	cg_mem_in m = {0};
	m.t_ns = e->t_ns;
	m.bytes = blk->requested;
	m.span = ids[e->span];
	m.pair = CG_NONE;
	m.device = e->device;
	m.action = CG_ALLOC;
	m.category = CG_CAT_UNKNOWN;
	int rc = address_id(x->tl, address_ids, blk->address, &m.tensor);
	return rc < 0 ? rc : cg_timeline_add_mem(x->tl, &m);
}

static int add_entry_records(cg_snap_reader *x, const uint32_t *ann, span_builder *b, cg_error *err)
{
	cg_snapshot *s = x->s;
	cg_timeline *tl = x->tl;
	uint32_t *span_of = cg_malloc((s->nentries ? s->nentries : 1) * sizeof *span_of);
	size_t nrecords = 0;
	for (size_t i = 0; i < s->nentries; i++) {
		nrecords += s->entries[i].action == CG_SNAP_ALLOC || s->entries[i].action == CG_SNAP_FREE_COMPLETED;
		uint32_t a = ann ? ann[i] : CG_NONE;
		uint32_t st = x->entry_stack[i];
		span_of[i] = st ? stack_span(x, b, a, st, s->entries[i].t_ns, s->entries[i].index + 1) : a;
		if (span_of[i] != CG_NONE) {
			span_node *node = &b->nodes[span_of[i]];
			if (!node->annotation) {
				node->start = s->entries[i].t_ns < node->start ? s->entries[i].t_ns : node->start;
				node->end = s->entries[i].t_ns > node->end ? s->entries[i].t_ns : node->end;
			}
		}
	}
	early_block *early;
	size_t nearly = early_blocks(x, b, &early);
	cg_timeline_reserve_mem(tl, nearly + nrecords);
	cg_prefault_region(x->pf, CG_SNAP_PF_RECORDS, tl->mem, tl->mem_cap * sizeof *tl->mem);
	cg_str *ids = cg_malloc((b->n ? b->n : 1) * sizeof *ids);
	cg_u64map address_ids = {0};
	int rc = add_spans(x, b, ids);
	for (size_t i = 0; i < nearly && rc == 0; i++)
		rc = add_early_block(x, &early[i], ids, &address_ids);
	cg_free(early);
	for (size_t i = 0; i < s->nentries && rc == 0; i++) {
		const cg_snap_entry *e = &s->entries[i];
		if (e->action == CG_SNAP_OOM) {
			cg_oom o = {0};
			o.t_ns = e->t_ns;
			o.bytes = e->size;
			o.line = e->index + 1;
			o.device = e->device;
			o.has_device_free = true;
			o.device_free = e->addr;
			rc = cg_timeline_add_oom(tl, &o);
			continue;
		}
		if (e->action != CG_SNAP_ALLOC && e->action != CG_SNAP_FREE_COMPLETED)
			continue;
		cg_mem_in m = {0};
		m.t_ns = e->t_ns;
		m.bytes = e->size;
		m.span = span_of[i] == CG_NONE ? CG_STR_EMPTY : ids[span_of[i]];
		m.op = CG_STR_EMPTY;
		m.pair = CG_NONE;
		m.line = e->index + 1;
		m.device = e->device;
		m.action = e->action == CG_SNAP_ALLOC ? CG_ALLOC : CG_FREE;
		m.category = CG_CAT_UNKNOWN;
		rc = address_id(tl, &address_ids, e->addr, &m.tensor);
		if (rc == 0)
			rc = cg_timeline_add_mem(tl, &m);
		if ((tl->nmem & 1023) == 0) /* now and then: the thread keeps 32 MiB ahead */
			cg_prefault_used(x->pf, CG_SNAP_PF_RECORDS, tl->nmem * sizeof *tl->mem);
	}
	cg_prefault_region(x->pf, CG_SNAP_PF_RECORDS, NULL, 0);
	cg_u64map_free(&address_ids);
	cg_free(ids);
	cg_free(span_of);
	if (rc < 0) {
		char why[256];
		return cg_error_set(err, rc, "%s: %s", x->name, cg_timeline_limit_text(tl, why, sizeof why));
	}
	tl->source.records[CG_KIND_MEMORY] = tl->nmem;
	tl->source.records[CG_KIND_DEVICE_MEMORY] = tl->ndevmem;
	return 0;
}

/* What reads only the entries, segments and blocks, final once the times
 * are set, runs on a second thread while the records are built: the
 * reserved bytes over the trace (cg_snapshot_reserved; the gate opens when
 * every device has them), the two backward reconstructions of every device
 * (cg_snapshot_replay), memory_viz's maximum and the count of each action.
 * Each first failure is kept, and reported where it would come without
 * the thread. */
typedef struct replays {
	cg_snapshot *s;
	cg_snap_replay *out; /* 2 per device: active, allocated */
	uint32_t failed;     /* the device whose replay failed, or ndevices */
	int rc;
	cg_error err;
	uint32_t reserved_failed; /* the same for the reserved bytes */
	int reserved_rc;
	cg_error reserved_err;
	cg_gate reserved_done;
	cg_task task;
} replays;

static void run_replays(void *arg)
{
	replays *r = arg;
	cg_snapshot *s = r->s;
	r->reserved_failed = r->failed = s->ndevices;
	for (uint32_t d = 0; d < s->ndevices && r->reserved_failed == s->ndevices; d++) {
		r->reserved_rc = cg_snapshot_reserved(s, d, &s->devices[d].reserved, &r->reserved_err);
		if (r->reserved_rc < 0)
			r->reserved_failed = d;
	}
	cg_gate_open(&r->reserved_done);
	for (uint32_t d = 0; d < s->ndevices; d++) {
		const cg_snap_device *dev = &s->devices[d];
		for (uint32_t k = dev->entry_first; k < dev->entry_first + dev->entry_count; k++)
			s->devices[d].entries_by_action[s->entries[k].action]++;
		s->devices[d].memviz_max = cg_snapshot_memviz_max(s, d);
	}
	for (uint32_t d = 0; d < s->ndevices; d++) {
		r->rc = cg_snapshot_replay(s, d, CG_SERIES_ACTIVE, &r->out[2 * d], &r->err);
		if (r->rc == 0)
			r->rc = cg_snapshot_replay(s, d, CG_SERIES_ALLOCATED, &r->out[2 * d + 1], &r->err);
		if (r->rc < 0) {
			r->failed = d;
			return;
		}
	}
}

static void replays_start(replays *r, cg_snapshot *s)
{
	*r = (replays){0};
	r->s = s;
	r->out = cg_calloc(s->ndevices ? 2 * (size_t)s->ndevices : 1, sizeof *r->out);
	cg_gate_init(&r->reserved_done);
	cg_task_start(&r->task, run_replays, r);
}

/* The reserved-bytes checkpoints of every device, once the thread has
 * worked them out; its first failure, in device order, as without it. */
static int add_all_reserved(cg_snap_reader *x, replays *r, cg_error *err)
{
	cg_gate_wait(&r->reserved_done);
	for (uint32_t d = 0; d < x->s->ndevices; d++) {
		if (d == r->reserved_failed) {
			if (err)
				*err = r->reserved_err;
			return r->reserved_rc;
		}
		int rc = add_reserved(x, d);
		if (rc < 0) {
			char why[256];
			return cg_error_set(err, rc, "%s: %s", x->name, cg_timeline_limit_text(x->tl, why, sizeof why));
		}
	}
	return 0;
}

/* After finalize: the live bytes before the first entry (the active
 * series reconstructed backwards) are the frees of blocks from before the
 * trace, which pairing found, plus the baseline: blocks that outlived the
 * trace without an entry, or were allocated before it and never freed. */
static int set_before_trace(cg_snap_reader *x, const replays *r, cg_error *err)
{
	for (uint32_t d = 0; d < x->s->ndevices; d++) {
		if (d == r->failed) {
			if (err)
				*err = r->err;
			return r->rc;
		}
		cg_snap_replay *series = x->s->devices[d].series;
		series[CG_SERIES_ACTIVE] = r->out[2 * d];
		series[CG_SERIES_ALLOCATED] = r->out[2 * d + 1];
		const cg_snap_replay rp = series[CG_SERIES_ACTIVE];
		/* early blocks' bytes fit: they are part of before_first */
		uint64_t pre = x->tl->devices[d].preexisting_bytes + (x->early_bytes ? x->early_bytes[d] : 0);
		uint64_t baseline = rp.before_first >= pre ? rp.before_first - pre : 0;
		if (rp.before_first < pre)
			cg_diag_add(x->tl, CG_DIAG_WARNING, 0,
				    "cuda device %u: the trace frees more from before it than the segments explain",
				    d);
		int rc = cg_timeline_set_baseline(x->tl, (uint16_t)d, baseline, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int cg_snap_build(cg_snap_reader *x, const cg_pk *annotations, cg_error *err)
{
	cg_snapshot *s = x->s;
	group_entries(x);
	fill_devices(x);
	int64_t origin_us;
	int rc = set_times(x, annotations, &origin_us, err);
	if (rc < 0)
		return rc;
	cg_source *src = &x->tl->source;
	for (uint32_t d = 0; d < s->ndevices; d++) {
		src->lines += s->devices[d].trace_entries;
		src->unknown_values += s->devices[d].unknown_actions;
	}
	src->bad_lines = x->bad_entries;
	if (src->unknown_values)
		cg_diag_add(x->tl, CG_DIAG_WARNING, 0, "%" PRIu64 " trace %s with an action cgmem does not know %s skipped",
			    src->unknown_values, src->unknown_values == 1 ? "entry" : "entries",
			    src->unknown_values == 1 ? "was" : "were");
	s->unknown_keys = x->unknown_keys;
	if (x->unknown_keys)
		cg_diag_add(x->tl, CG_DIAG_WARNING, 0, "%" PRIu64 " keys cgmem does not read were ignored",
			    x->unknown_keys);

	replays r;
	replays_start(&r, s);
	span_builder b = {0};
	cg_nest_span *nest = NULL;
	size_t nnest = 0;
	rc = read_annotations(x, annotations, origin_us, &b, &nest, &nnest);
	uint32_t *ann = rc == 0 ? annotation_of(s, nest, nnest) : NULL;
	if (rc == 0)
		rc = add_entry_records(x, ann, &b, err);
	else
		rc = cg_error_set(err, rc, "%s: too many distinct strings", x->name);
	cg_free(ann);
	cg_free(nest);
	cg_free(b.nodes);
	cg_u64map_free(&b.children);
	cg_u64map_free(&b.leaves);
	if (rc == 0)
		rc = add_all_reserved(x, &r, err);
	if (rc == 0)
		rc = cg_timeline_finalize(x->tl, err);
	cg_task_join(&r.task);
	cg_gate_destroy(&r.reserved_done);
	if (rc == 0)
		rc = set_before_trace(x, &r, err);
	cg_free(r.out);
	return rc;
}
