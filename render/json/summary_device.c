#include "summary_device.h"

#include <string.h>

#include "liveseries.h"

static void kv_null(cg_jw *w, const char *key)
{
	cg_jw_key(w, key);
	cg_jw_null(w);
}

static void kv_u64_or_null(cg_jw *w, const char *key, bool known, uint64_t v)
{
	cg_jw_key(w, key);
	if (known)
		cg_jw_u64(w, v);
	else
		cg_jw_null(w);
}

static void kv_double_or_null(cg_jw *w, const char *key, bool known, double v)
{
	cg_jw_key(w, key);
	if (known)
		cg_jw_double(w, v);
	else
		cg_jw_null(w);
}

static void kv_i64(cg_jw *w, const char *key, int64_t v)
{
	cg_jw_key(w, key);
	cg_jw_i64(w, v);
}

/* An interned string, or null when empty. */
static void kv_str_or_null(cg_jw *w, const cg_timeline *tl, const char *key, cg_str s)
{
	cg_jw_key(w, key);
	if (s == CG_STR_EMPTY)
		cg_jw_null(w);
	else
		cg_jw_string_n(w, cg_timeline_str(tl, s), cg_strtab_len(tl->strings, s));
}

static void kv_tensor_or_null(cg_jw *w, const cg_timeline *tl, const char *key, cg_tensor_id t)
{
	char buf[CG_TENSOR_ID_BUF];
	size_t len;
	cg_jw_key(w, key);
	if (cg_tensor_id_empty(t)) {
		cg_jw_null(w);
		return;
	}
	const char *text = cg_timeline_tensor_text(tl, t, buf, &len);
	cg_jw_string_n(w, text, len);
}

static void kv_span_path(cg_jw *w, const cg_timeline *tl, const char *key, uint32_t span)
{
	char path[CG_SPAN_PATH_MAX];
	cg_jw_key(w, key);
	if (span == CG_NONE)
		cg_jw_null(w);
	else
		cg_jw_string(w, cg_timeline_span_path(tl, span, path, sizeof path));
}

static void write_shape(cg_jw *w, const cg_timeline *tl, uint32_t shape)
{
	cg_jw_key(w, "shape");
	cg_jw_array(w);
	size_t n = cg_timeline_shape_ndims(tl, shape);
	for (size_t i = 0; i < n; i++)
		cg_jw_u64(w, cg_timeline_shape_dim(tl, shape, i));
	cg_jw_end(w);
}

void cg_summary_json_alloc(cg_jw *w, const cg_timeline *tl, uint32_t alloc, uint32_t end, uint64_t bytes)
{
	/* An allocation from before the trace is known from its free only. */
	const cg_mem *m = &tl->mem[alloc != CG_NONE ? alloc : end];
	cg_jw_object(w);
	kv_tensor_or_null(w, tl, "tensor", m->tensor);
	cg_jw_kv_u64(w, "bytes", bytes);
	cg_jw_kv_string(w, "category", cg_category_name((cg_category)m->category));
	if (alloc != CG_NONE) {
		kv_str_or_null(w, tl, "op", cg_timeline_mem_op(tl, m));
		kv_span_path(w, tl, "span_path", m->span);
		cg_jw_kv_string(w, "phase", cg_phase_name(cg_timeline_mem_phase(tl, m)));
		write_shape(w, tl, cg_timeline_mem_shape(tl, m));
		cg_jw_kv_string(w, "dtype", cg_timeline_str(tl, tl->dtypes[cg_timeline_mem_dtype(tl, m)].name));
		cg_jw_kv_u64(w, "allocated_ns", m->t_ns);
		cg_jw_kv_u64(w, "line", m->line);
	} else {
		kv_null(w, "op");
		kv_null(w, "span_path");
		cg_jw_kv_string(w, "phase", cg_phase_name(CG_PHASE_NONE));
		write_shape(w, tl, cg_timeline_mem_shape(tl, m));
		cg_jw_kv_string(w, "dtype", cg_timeline_str(tl, tl->dtypes[cg_timeline_mem_dtype(tl, m)].name));
		kv_null(w, "allocated_ns");
		cg_jw_kv_u64(w, "line", m->line);
	}
	cg_jw_kv_bool(w, "before_trace", alloc == CG_NONE);
	/* Without pairing, when an allocation ended is not known. */
	bool known = tl->source.pairing_known || alloc == CG_NONE;
	kv_u64_or_null(w, "freed_ns", known && end != CG_NONE, end != CG_NONE ? tl->mem[end].t_ns : 0);
	cg_jw_key(w, "ended_by");
	if (!known)
		cg_jw_string(w, "unknown");
	else if (end == CG_NONE)
		cg_jw_null(w);
	else
		cg_jw_string(w, tl->mem[end].action == CG_FREE ? "free" : "id_reuse");
	cg_jw_end(w);
}

static void write_live_list(cg_jw *w, const cg_timeline *tl, const cg_liveset_device *ls, unsigned n)
{
	cg_jw_array(w);
	for (size_t i = 0; i < ls->nallocs && i < n; i++)
		cg_summary_json_alloc(w, tl, ls->allocs[i].alloc, ls->allocs[i].end, ls->allocs[i].bytes);
	cg_jw_end(w);
}

static void write_by_category(cg_jw *w, const uint64_t *bytes, const uint64_t *count)
{
	cg_jw_key(w, "by_category");
	cg_jw_object(w);
	for (int c = 0; c < CG_CAT_COUNT; c++) {
		cg_jw_key(w, cg_category_name((cg_category)c));
		cg_jw_object(w);
		cg_jw_kv_u64(w, "bytes", bytes[c]);
		cg_jw_kv_u64(w, "count", count[c]);
		cg_jw_end(w);
	}
	cg_jw_end(w);
}

static void write_at_peak(cg_jw *w, const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	const cg_liveset_device *ls = &a->at_peak->devices[d];
	cg_jw_key(w, "at_peak");
	cg_jw_object(w);
	cg_jw_kv_u64(w, "live_bytes", ls->bytes);
	cg_jw_kv_u64(w, "live_allocations", ls->count);
	write_by_category(w, ls->by_category, ls->count_by_category);
	cg_jw_kv_bool(w, "allocations_listed", ls->listed);
	cg_jw_key(w, "by_phase");
	if (!ls->listed) {
		cg_jw_null(w);
	} else {
		cg_jw_object(w);
		for (int p = 0; p < CG_PHASE_COUNT; p++) {
			cg_jw_key(w, cg_phase_name((cg_phase)p));
			cg_jw_object(w);
			cg_jw_kv_u64(w, "bytes", ls->by_phase[p]);
			cg_jw_key(w, "by_category");
			cg_jw_object(w);
			for (int c = 0; c < CG_CAT_COUNT; c++)
				if (ls->by_phase_category[p][c])
					cg_jw_kv_u64(w, cg_category_name((cg_category)c), ls->by_phase_category[p][c]);
			cg_jw_end(w);
			cg_jw_end(w);
		}
		cg_jw_end(w);
	}
	cg_jw_key(w, "top");
	if (ls->listed)
		write_live_list(w, tl, ls, a->options.top_n);
	else
		cg_jw_null(w);
	cg_jw_end(w);
}

static const char *node_kind_name(uint8_t kind)
{
	switch (kind) {
	case CG_PATHNODE_ROOT: return "root";
	case CG_PATHNODE_SPAN: return "span";
	case CG_PATHNODE_BEFORE_TRACE: return "before_trace";
	default: return "before_profiling";
	}
}

static void write_span_tree(cg_jw *w, const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	const cg_pathtree *t = &a->peak_trees->trees[d];
	cg_jw_key(w, "span_tree_at_peak");
	if (!t->nodes) {
		cg_jw_null(w);
		return;
	}
	cg_jw_array(w);
	for (uint32_t i = 0; i < t->nnodes; i++) {
		const cg_pathnode *n = &t->nodes[i];
		cg_jw_object(w);
		cg_jw_key(w, "name");
		if (n->kind == CG_PATHNODE_SPAN)
			cg_jw_string_n(w, cg_timeline_str(tl, n->name), cg_strtab_len(tl->strings, n->name));
		else
			cg_jw_string(w, n->kind == CG_PATHNODE_ROOT ? "all"
				     : n->kind == CG_PATHNODE_BEFORE_TRACE ? "(allocated before the trace)"
									    : "(before profiling)");
		cg_jw_kv_string(w, "kind", node_kind_name(n->kind));
		cg_jw_kv_u64(w, "depth", n->depth);
		kv_u64_or_null(w, "parent", n->parent != CG_NONE, n->parent);
		cg_jw_kv_string(w, "phase", n->phase == CG_PATHTREE_MIXED ? "mixed" : cg_phase_name((cg_phase)n->phase));
		cg_jw_kv_u64(w, "own_bytes", n->own_bytes);
		cg_jw_kv_u64(w, "total_bytes", n->total_bytes);
		cg_jw_kv_u64(w, "own_count", n->own_count);
		cg_jw_kv_u64(w, "count", n->total_count);
		cg_jw_end(w);
	}
	cg_jw_end(w);
}

/* The downsampled live bytes the charts across ranks draw (liveseries.h),
 * over the trace's [0, its last time]: one axis for all its devices. */
static void write_live_series(cg_jw *w, const cg_timeline *tl, uint32_t d)
{
	uint64_t v[CG_LIVE_SERIES_BUCKETS];
	size_t n = cg_live_series(tl, d, tl->last_t_ns, v);
	cg_jw_key(w, "live_series");
	cg_jw_object(w);
	cg_jw_kv_u64(w, "end_ns", tl->last_t_ns);
	cg_jw_key(w, "max_bytes");
	cg_jw_array(w);
	for (size_t k = 0; k < n; k++)
		cg_jw_u64(w, v[k]);
	cg_jw_end(w);
	cg_jw_end(w);
}

static void write_over_time(cg_jw *w, const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	const cg_overtime_device *o = &a->overtime->devices[d];
	cg_jw_key(w, "over_time");
	cg_jw_object(w);
	cg_jw_kv_bool(w, "timed", o->timed);
	cg_jw_key(w, "by_category");
	cg_jw_object(w);
	for (int c = 0; c < CG_CAT_COUNT; c++) {
		cg_jw_key(w, cg_category_name((cg_category)c));
		cg_jw_object(w);
		cg_jw_kv_u64(w, "max_bytes", o->categories[c].bytes);
		kv_u64_or_null(w, "max_time_ns", o->categories[c].bytes > 0, o->categories[c].t_ns);
		cg_jw_end(w);
	}
	cg_jw_end(w);
	cg_jw_key(w, "by_phase");
	cg_jw_object(w);
	for (int p = 0; p < CG_PHASE_COUNT; p++) {
		const cg_phase_stats *s = &o->phases[p];
		cg_jw_key(w, cg_phase_name((cg_phase)p));
		cg_jw_object(w);
		cg_jw_kv_bool(w, "ran", s->ran);
		kv_u64_or_null(w, "peak_bytes", s->ran, s->peak_bytes);
		kv_u64_or_null(w, "peak_time_ns", s->ran, s->peak_t_ns);
		cg_jw_kv_u64(w, "allocated_bytes", s->allocated_bytes);
		cg_jw_kv_u64(w, "freed_bytes", s->freed_bytes);
		cg_jw_kv_u64(w, "allocations", s->allocations);
		cg_jw_kv_u64(w, "frees", s->frees);
		cg_jw_end(w);
	}
	cg_jw_end(w);
	cg_jw_key(w, "steps");
	cg_jw_array(w);
	for (uint32_t k = 0; k < o->nsteps; k++) {
		const cg_step_stats *s = &o->steps[k];
		const cg_step *st = &a->steps->steps[k];
		cg_jw_object(w);
		cg_jw_kv_u64(w, "index", k);
		kv_str_or_null(w, tl, "name", tl->spans[st->span].name);
		cg_jw_kv_u64(w, "start_ns", st->start_ns);
		cg_jw_kv_u64(w, "end_ns", st->end_ns);
		cg_jw_kv_u64(w, "live_bytes_at_start", s->live_at_start);
		cg_jw_kv_u64(w, "peak_bytes", s->peak_bytes);
		cg_jw_kv_u64(w, "peak_time_ns", s->peak_t_ns);
		cg_jw_kv_u64(w, "live_bytes_at_end", s->live_at_end);
		kv_i64(w, "growth_bytes", s->growth);
		cg_jw_kv_u64(w, "allocated_bytes", s->allocated_bytes);
		cg_jw_kv_u64(w, "freed_bytes", s->freed_bytes);
		cg_jw_kv_u64(w, "allocations", s->allocations);
		cg_jw_kv_u64(w, "frees", s->frees);
		cg_jw_end(w);
	}
	cg_jw_end(w);
	write_live_series(w, tl, d);
	cg_jw_end(w);
}

static void write_checkpoints(cg_jw *w, const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	const cg_checkpoints_device *c = &a->checkpoints->devices[d];
	const cg_replay_device *rp = &a->replay->devices[d];
	cg_jw_key(w, "checkpoints");
	cg_jw_object(w);
	cg_jw_kv_u64(w, "count", c->count);
	cg_jw_key(w, "list");
	cg_jw_array(w);
	for (uint32_t k = 0; k < c->count; k++) {
		const cg_checkpoint *p = &c->list[k];
		cg_jw_object(w);
		cg_jw_kv_u64(w, "time_ns", p->t_ns);
		cg_jw_kv_u64(w, "line", tl->devmem[p->devmem].line);
		kv_u64_or_null(w, "used_bytes", p->has_used, p->used_bytes);
		kv_u64_or_null(w, "free_bytes", p->has_used, p->free_bytes);
		kv_u64_or_null(w, "capacity_bytes", p->has_capacity, p->capacity_bytes);
		kv_u64_or_null(w, "reserved_bytes", p->has_reserved, p->reserved_bytes);
		cg_jw_kv_u64(w, "live_bytes", p->live_bytes);
		kv_double_or_null(w, "fragmentation", p->has_fragmentation, p->fragmentation);
		cg_jw_key(w, "outside_allocator_bytes");
		if (p->has_used && p->has_reserved)
			cg_jw_i64(w, p->outside_allocator);
		else
			cg_jw_null(w);
		kv_u64_or_null(w, "estimated_reserved_bytes", rp->available && k < rp->standard.ncheckpoints,
			       rp->available && k < rp->standard.ncheckpoints ? rp->standard.at_checkpoint[k] : 0);
		cg_jw_end(w);
	}
	cg_jw_end(w);
	cg_jw_key(w, "max_fragmentation");
	if (c->max_fragmentation == CG_NONE) {
		cg_jw_null(w);
	} else {
		cg_jw_object(w);
		cg_jw_kv_double(w, "value", c->list[c->max_fragmentation].fragmentation);
		cg_jw_kv_u64(w, "time_ns", c->list[c->max_fragmentation].t_ns);
		cg_jw_end(w);
	}
	cg_jw_key(w, "nearest_peak");
	if (c->nearest_peak == CG_NONE) {
		cg_jw_null(w);
	} else {
		const cg_checkpoint *p = &c->list[c->nearest_peak];
		cg_jw_object(w);
		cg_jw_kv_u64(w, "time_ns", p->t_ns);
		kv_double_or_null(w, "fragmentation", p->has_fragmentation, p->fragmentation);
		kv_u64_or_null(w, "headroom_bytes", p->has_headroom, p->free_bytes);
		kv_u64_or_null(w, "capacity_bytes", p->has_capacity, p->capacity_bytes);
		cg_jw_end(w);
	}
	cg_jw_end(w);
}

static void write_replay_state(cg_jw *w, const char *key, const cg_replay_state *s)
{
	cg_jw_key(w, key);
	cg_jw_object(w);
	cg_jw_kv_u64(w, "reserved_bytes", s->reserved);
	cg_jw_kv_u64(w, "allocated_bytes", s->allocated);
	cg_jw_kv_u64(w, "live_bytes", s->live);
	cg_jw_kv_u64(w, "free_bytes", s->total_free);
	cg_jw_kv_u64(w, "largest_free_block_bytes", s->largest_free);
	cg_jw_kv_double(w, "fragmentation", s->frag_reserved);
	cg_jw_kv_double(w, "fragmentation_largest_free", s->frag_largest);
	cg_jw_end(w);
}

static void write_replay_variant(cg_jw *w, const char *key, const cg_replay_variant *v)
{
	cg_jw_key(w, key);
	cg_jw_object(w);
	cg_jw_kv_u64(w, "peak_reserved_bytes", v->peak_reserved);
	cg_jw_kv_u64(w, "peak_time_ns", v->peak_t_ns);
	cg_jw_kv_u64(w, "segments", v->segments);
	write_replay_state(w, "at_peak", &v->at_peak);
	write_replay_state(w, "at_end", &v->at_end);
	cg_jw_key(w, "reserved_over_time");
	cg_jw_array(w);
	for (uint32_t i = 0; i < v->nseries; i++) {
		cg_jw_array(w);
		cg_jw_u64(w, v->series[i].t_ns);
		cg_jw_u64(w, v->series[i].reserved);
		cg_jw_end(w);
	}
	cg_jw_end(w);
	cg_jw_end(w);
}

static void write_replay(cg_jw *w, const cg_analysis *a, uint32_t d)
{
	const cg_replay_device *r = &a->replay->devices[d];
	cg_jw_key(w, "allocator_replay");
	cg_jw_object(w);
	cg_jw_kv_bool(w, "estimate", true);
	cg_jw_kv_string(w, "model", "PyTorch CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp)");
	cg_jw_kv_bool(w, "available", r->available);
	cg_jw_key(w, "unavailable_reason");
	if (r->available)
		cg_jw_null(w);
	else
		cg_jw_string(w, r->unavailable_reason ? r->unavailable_reason : "");
	if (r->available) {
		write_replay_variant(w, "standard", &r->standard);
		write_replay_variant(w, "expandable_segments", &r->expandable);
		kv_i64(w, "expandable_saves_bytes", r->saved_bytes);
	}
	cg_jw_end(w);
}

static void write_count_bytes(cg_jw *w, const char *key, uint64_t count, uint64_t bytes)
{
	cg_jw_key(w, key);
	cg_jw_object(w);
	cg_jw_kv_u64(w, "count", count);
	cg_jw_kv_u64(w, "bytes", bytes);
	cg_jw_end(w);
}

static void write_leaks(cg_jw *w, const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	const cg_leaks_device *l = &a->leaks->devices[d];
	cg_jw_key(w, "leaks");
	cg_jw_object(w);
	cg_jw_kv_bool(w, "available", l->available);
	cg_jw_kv_u64(w, "bytes", l->bytes);
	cg_jw_kv_u64(w, "count", l->count);
	cg_jw_kv_u64(w, "groups_total", l->ngroups);
	cg_jw_key(w, "groups");
	cg_jw_array(w);
	for (size_t g = 0; g < l->ngroups && g < a->options.top_n; g++) {
		const cg_leak_group *x = &l->groups[g];
		cg_jw_object(w);
		cg_jw_kv_string(w, "span_path", x->path);
		kv_str_or_null(w, tl, "op", x->op);
		cg_jw_kv_string(w, "category", x->category == CG_LEAKS_MIXED ? "mixed"
							: cg_category_name((cg_category)x->category));
		cg_jw_kv_u64(w, "bytes", x->bytes);
		cg_jw_kv_u64(w, "count", x->count);
		cg_jw_kv_u64(w, "steps", x->steps);
		cg_jw_kv_u64(w, "first_ns", x->first_ns);
		cg_jw_kv_u64(w, "last_ns", x->last_ns);
		kv_tensor_or_null(w, tl, "example_tensor", tl->mem[x->example].tensor);
		cg_jw_kv_u64(w, "example_line", tl->mem[x->example].line);
		cg_jw_end(w);
	}
	cg_jw_end(w);
	cg_jw_key(w, "per_step");
	cg_jw_array(w);
	for (uint32_t k = 0; k < l->nsteps && l->available; k++) {
		cg_jw_object(w);
		cg_jw_kv_u64(w, "index", k);
		cg_jw_kv_u64(w, "bytes", l->step_bytes[k]);
		cg_jw_kv_u64(w, "count", l->step_count[k]);
		cg_jw_end(w);
	}
	cg_jw_end(w);
	write_count_bytes(w, "outside_steps", l->outside_steps_count, l->outside_steps_bytes);
	cg_jw_kv_u64(w, "leaking_steps", l->leaking_steps);
	cg_jw_end(w);
}

static void write_buckets(cg_jw *w, const cg_lifetimes_device *l)
{
	unsigned lo = CG_LIFETIME_BUCKETS, hi = 0;
	for (size_t i = 0; i < l->ncells; i++) {
		if (l->cells[i].bucket < lo)
			lo = l->cells[i].bucket;
		if (l->cells[i].bucket > hi)
			hi = l->cells[i].bucket;
	}
	cg_jw_key(w, "buckets");
	cg_jw_array(w);
	for (unsigned b = lo; b <= hi && lo < CG_LIFETIME_BUCKETS; b++) {
		uint64_t count = 0, bytes = 0;
		for (size_t i = 0; i < l->ncells; i++) {
			if (l->cells[i].bucket == b) {
				count += l->cells[i].count;
				bytes += l->cells[i].bytes;
			}
		}
		cg_jw_object(w);
		cg_jw_kv_u64(w, "lower_ns", cg_lifetime_bucket_lower(b));
		kv_u64_or_null(w, "upper_ns", b + 1 < CG_LIFETIME_BUCKETS, cg_lifetime_bucket_upper(b));
		cg_jw_kv_u64(w, "count", count);
		cg_jw_kv_u64(w, "bytes", bytes);
		cg_jw_key(w, "by_category");
		cg_jw_object(w);
		for (size_t i = 0; i < l->ncells; i++)
			if (l->cells[i].bucket == b)
				write_count_bytes(w, cg_category_name((cg_category)l->cells[i].category), l->cells[i].count,
						  l->cells[i].bytes);
		cg_jw_end(w);
		cg_jw_end(w);
	}
	cg_jw_end(w);
}

static void write_lifetimes(cg_jw *w, const cg_analysis *a, uint32_t d)
{
	const cg_lifetimes_device *l = &a->lifetimes->devices[d];
	cg_jw_key(w, "lifetimes");
	cg_jw_object(w);
	cg_jw_kv_bool(w, "available", l->available);
	cg_jw_kv_u64(w, "buckets_per_decade", 4);
	write_count_bytes(w, "ended", l->ended_count, l->ended_bytes);
	write_count_bytes(w, "never_freed", l->never_freed_count, l->never_freed_bytes);
	write_count_bytes(w, "before_trace", l->before_trace_count, l->before_trace_bytes);
	write_buckets(w, l);
	cg_jw_key(w, "temporaries");
	cg_jw_object(w);
	cg_jw_kv_u64(w, "count", l->temporaries_count);
	cg_jw_kv_u64(w, "bytes", l->temporaries_bytes);
	cg_jw_key(w, "by_category");
	cg_jw_object(w);
	for (int c = 0; c < CG_CAT_COUNT; c++)
		if (l->temporaries_count_by_category[c])
			write_count_bytes(w, cg_category_name((cg_category)c), l->temporaries_count_by_category[c],
					  l->temporaries_bytes_by_category[c]);
	cg_jw_end(w);
	cg_jw_end(w);
	cg_jw_end(w);
}

static void write_end_checkpoint(cg_jw *w, const cg_timeline *tl, uint32_t i)
{
	cg_jw_key(w, "checkpoint");
	if (i == CG_NONE) {
		cg_jw_null(w);
		return;
	}
	const cg_devmem *c = &tl->devmem[i];
	const cg_device *dev = &tl->devices[c->device];
	uint64_t cap = 0, headroom = c->free_bytes;
	bool has_cap = c->has_used && !__builtin_add_overflow(c->used_bytes, c->free_bytes, &cap);
	bool has_headroom = c->has_used;
	if (!c->has_used && dev->has_capacity) {
		/* only the allocator's reserved bytes known: see checkpoints.h */
		has_cap = true;
		cap = dev->capacity_bytes;
		has_headroom = c->has_reserved;
		headroom = c->reserved_bytes < cap ? cap - c->reserved_bytes : 0;
	}
	cg_jw_object(w);
	cg_jw_kv_u64(w, "time_ns", c->t_ns);
	cg_jw_kv_u64(w, "line", c->line);
	kv_u64_or_null(w, "used_bytes", c->has_used, c->used_bytes);
	kv_u64_or_null(w, "capacity_bytes", has_cap, cap);
	kv_u64_or_null(w, "headroom_bytes", has_headroom, headroom);
	kv_u64_or_null(w, "reserved_bytes", c->has_reserved, c->reserved_bytes);
	cg_jw_end(w);
}

static void write_end(cg_jw *w, const cg_analysis *a, uint32_t d)
{
	static const char *const kinds[] = {"no_records", "last_record", "out_of_memory"};
	const cg_timeline *tl = a->tl;
	const cg_endtrace_device *e = &a->end->devices[d];
	const cg_liveset_device *ls = &a->at_end->devices[d];
	cg_jw_key(w, "end");
	cg_jw_object(w);
	cg_jw_kv_string(w, "moment", kinds[e->kind]);
	cg_jw_kv_u64(w, "time_ns", e->t_ns);
	kv_u64_or_null(w, "last_record_ns", tl->devices[d].mem_count > 0, e->last_record_ns);
	cg_jw_kv_u64(w, "live_bytes", ls->bytes);
	cg_jw_kv_u64(w, "live_allocations", ls->count);
	write_by_category(w, ls->by_category, ls->count_by_category);
	cg_jw_key(w, "out_of_memory");
	if (e->oom == CG_NONE) {
		cg_jw_null(w);
	} else {
		const cg_oom *o = &tl->ooms[e->oom];
		cg_jw_object(w);
		cg_jw_kv_u64(w, "events", e->oom_count);
		cg_jw_kv_u64(w, "time_ns", o->t_ns);
		cg_jw_kv_u64(w, "line", o->line);
		cg_jw_kv_u64(w, "requested_bytes", o->bytes);
		kv_u64_or_null(w, "total_allocated_bytes", o->has_totals, o->total_allocated);
		kv_u64_or_null(w, "total_reserved_bytes", o->has_totals, o->total_reserved);
		cg_jw_end(w);
	}
	write_end_checkpoint(w, tl, e->checkpoint);
	cg_jw_kv_bool(w, "nearly_full", e->nearly_full);
	cg_jw_key(w, "where");
	cg_jw_object(w);
	kv_span_path(w, tl, "span_path", e->span);
	cg_jw_kv_string(w, "phase", cg_phase_name((cg_phase)e->phase));
	kv_u64_or_null(w, "into_phase_ns", e->phase_span != CG_NONE, e->into_phase_ns);
	kv_u64_or_null(w, "step", e->step != CG_NONE, e->step);
	if (e->step != CG_NONE && e->step < a->steps->nsteps)
		kv_str_or_null(w, tl, "step_name", tl->spans[a->steps->steps[e->step].span].name);
	else
		kv_null(w, "step_name");
	cg_jw_end(w);
	cg_jw_key(w, "largest_live");
	if (ls->listed)
		write_live_list(w, tl, ls, a->options.top_n);
	else
		cg_jw_null(w);
	cg_jw_key(w, "last_allocations");
	cg_jw_array(w);
	for (uint32_t i = 0; i < e->nlast; i++) {
		const cg_mem *m = &tl->mem[e->last_allocs[i]];
		cg_summary_json_alloc(w, tl, e->last_allocs[i], m->pair, m->bytes);
	}
	cg_jw_end(w);
	cg_jw_key(w, "verdict");
	if (e->verdict)
		cg_jw_string(w, e->verdict);
	else
		cg_jw_null(w);
	cg_jw_end(w);
}

void cg_summary_json_device_sections(cg_jw *w, const cg_analysis *a, uint32_t d)
{
	write_at_peak(w, a, d);
	write_span_tree(w, a, d);
	write_over_time(w, a, d);
	write_checkpoints(w, a, d);
	write_replay(w, a, d);
	write_leaks(w, a, d);
	write_lifetimes(w, a, d);
	write_end(w, a, d);
}
