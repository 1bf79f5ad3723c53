#include "explore_data.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_layout.h"
#include "explore_js.h"
#include "jsonw.h"
#include "summary_device.h"
#include "xalloc.h"

/* The Okabe-Ito palette of cg_chart_category_color (render/chart/chart.c),
 * which render/ cannot include without cairo's headers. */
static const char *const cat_color[CG_CAT_COUNT] = {
	[CG_CAT_PARAMETER] = "#0072B2",	      [CG_CAT_OPTIMIZER_STATE] = "#56B4E9", [CG_CAT_INPUT] = "#F0E442",
	[CG_CAT_TEMPORARY] = "#D55E00",	      [CG_CAT_ACTIVATION] = "#E69F00",	    [CG_CAT_GRADIENT] = "#009E73",
	[CG_CAT_AUTOGRAD_DETAIL] = "#CC79A7", [CG_CAT_UNKNOWN] = "#999999",	    [CG_CAT_BASELINE] = "#CFCFCF",
};

/* The strings the data refers to by index: op names by their cg_str,
 * span paths by their span, each written once. */
typedef struct strs {
	cg_jw *w;
	/* index + 1 of an op name (by string id) or a span's path (by span),
	 * 0 until written: zeroed pages from calloc, of which the few used are
	 * touched (two arrays of millions each cost 44 MB of page faults when
	 * filled with a marker) */
	uint32_t *by_op, *by_span;
	uint32_t n;
	char *path;
	/* span paths by their text: op spans of every step share theirs */
	cg_strtab *paths;
	uint32_t *by_path;
	size_t by_path_cap;
	/* packed tensor ids (tensorid.h) by their text, which no string has */
	cg_strtab *tensors;
	uint32_t *by_tensor;
	size_t by_tensor_cap;
} strs;

static void strs_init(strs *s, const cg_timeline *tl, cg_jw *w)
{
	s->w = w;
	uint32_t nops = cg_strtab_count(tl->strings);
	s->by_op = cg_calloc((size_t)nops + 1, sizeof *s->by_op);
	s->by_span = cg_calloc(tl->nspans + 1, sizeof *s->by_span);
	s->n = 0;
	s->path = cg_malloc(CG_SPAN_PATH_MAX);
	s->paths = cg_strtab_new(0);
	s->by_path = NULL;
	s->by_path_cap = 0;
	s->tensors = cg_strtab_new(0);
	s->by_tensor = NULL;
	s->by_tensor_cap = 0;
}

static void strs_free(strs *s)
{
	cg_free(s->by_op);
	cg_free(s->by_span);
	cg_free(s->path);
	cg_strtab_free(s->paths);
	cg_free(s->by_path);
	cg_strtab_free(s->tensors);
	cg_free(s->by_tensor);
}

/* The strings go into the array "strs" written last, so each lookup that
 * adds one is remembered in the order written: the caller lists them. */
typedef struct strlist {
	uint8_t *kind; /* 0 op, 1 span path, 2 packed tensor id */
	uint32_t *id;
	size_t n, cap;
} strlist;

static int64_t op_index(strs *s, strlist *l, const cg_timeline *tl, cg_str op)
{
	(void)tl;
	if (op == CG_STR_EMPTY)
		return -1;
	if (s->by_op[op] == 0) {
		CG_GROW(l->kind, l->cap, l->n + 1);
		l->id = cg_realloc(l->id, l->cap * sizeof *l->id);
		l->kind[l->n] = 0;
		l->id[l->n++] = op;
		s->by_op[op] = ++s->n;
	}
	return s->by_op[op] - 1;
}

/* Text listed once by its bytes, in table t (its ids -> index, *by, grown
 * as needed), as list kind `kind`: returns its index. */
static int64_t text_index(strs *s, strlist *l, cg_strtab *t, uint32_t **by, size_t *cap, uint8_t kind,
			  const char *text, size_t len)
{
	cg_str id;
	if (cg_strtab_intern(t, text, len, &id) < 0)
		return -1; /* unlimited table: cannot happen */
	size_t old = *cap;
	if (id >= old) {
		cg_grow((void **)by, cap, (size_t)id + 1, sizeof **by);
		memset(*by + old, 0xff, (*cap - old) * sizeof **by);
	}
	if ((*by)[id] == UINT32_MAX) {
		CG_GROW(l->kind, l->cap, l->n + 1);
		l->id = cg_realloc(l->id, l->cap * sizeof *l->id);
		l->kind[l->n] = kind;
		l->id[l->n++] = id;
		(*by)[id] = s->n++;
	}
	return (*by)[id];
}

/* A tensor id's index: an interned one is a string like an op's name, and
 * so is a packed one whose text a string has; any other packed one is
 * listed by its text, once. */
static int64_t tensor_index(strs *s, strlist *l, const cg_timeline *tl, cg_tensor_id t)
{
	if (cg_tensor_id_is_str(t))
		return op_index(s, l, tl, cg_tensor_id_string(t));
	char buf[CG_TENSOR_ID_BUF];
	size_t len = cg_tensor_id_format(t, buf);
	cg_str id;
	if (cg_strtab_find(tl->strings, buf, len, &id) == 1)
		return op_index(s, l, tl, id);
	return text_index(s, l, s->tensors, &s->by_tensor, &s->by_tensor_cap, 2, buf, len);
}

static int64_t span_index(strs *s, strlist *l, const cg_timeline *tl, uint32_t span)
{
	if (span == CG_NONE)
		return -1;
	if (s->by_span[span] != 0)
		return s->by_span[span] - 1;
	cg_timeline_span_path(tl, span, s->path, CG_SPAN_PATH_MAX);
	int64_t k = text_index(s, l, s->paths, &s->by_path, &s->by_path_cap, 1, s->path, strlen(s->path));
	if (k >= 0)
		s->by_span[span] = (uint32_t)k + 1;
	return k;
}

/* --- the series: live bytes by category after records ---------------------- */

/* Points after which the series is kept: every record up to this many,
 * else per time bucket the first, highest, lowest and last record. */
#define EXPLORE_ALL_POINTS 20000
#define EXPLORE_BUCKETS 4000

typedef struct series_state {
	uint64_t total;
	uint64_t by_cat[CG_CAT_COUNT];
} series_state;

/* The moments cgmem works out and embeds (peak, end or OOM, step peaks):
 * each the live set after one record, drawn at a point of the series. */
typedef struct moment {
	char label[64];
	uint32_t step; /* the step whose peak it is, or CG_NONE */
	uint32_t after; /* index into tl->mem; CG_NONE: before any record */
	uint64_t t;
	const cg_liveset_device *ls;
	cg_liveset_device own; /* the step peaks' live sets, worked out here */
	int64_t point;
} moment;

/* A time's bucket: (t - t0) * B / span without overflow, in long double. */
static size_t time_bucket(uint64_t dt, uint64_t span)
{
	return (size_t)((long double)dt * EXPLORE_BUCKETS / (long double)span);
}

/* The least offset after dt in a later bucket (time_bucket never falls as
 * dt grows, and is B at span): a division per bucket, not per record. */
static uint64_t bucket_end(uint64_t dt, uint64_t span)
{
	size_t b = time_bucket(dt, span);
	uint64_t lo = dt + 1, hi = span;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (time_bucket(mid, span) > b)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Which records of the device to keep (bit set over its records): the
 * moments' own records always, so each is pinned at its exact value. */
static uint8_t *kept_records(const cg_timeline *tl, const cg_device *dev, const moment *mo, size_t nmo)
{
	uint32_t n = dev->mem_count;
	uint8_t *keep = cg_calloc(n ? n : 1, 1);
	if (n <= EXPLORE_ALL_POINTS) {
		memset(keep, 1, n);
		return keep;
	}
	for (size_t j = 0; j < nmo; j++)
		if (mo[j].after != CG_NONE)
			keep[mo[j].after - dev->mem_first] = 1;
	uint64_t t0 = tl->mem[dev->mem_first].t_ns, t1 = tl->mem[dev->mem_first + n - 1].t_ns;
	uint64_t span = t1 - t0 + 1;
	uint64_t live = cg_device_initial_live(dev);
	size_t bucket = SIZE_MAX;
	uint32_t hi = 0, lo = 0;
	uint64_t hi_v = 0, lo_v = 0;
	uint64_t from = 1, upto = 0; /* offsets [from, upto) are in bucket */
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = dev->mem_first + k;
		live = cg_timeline_live_after(tl, i, live);
		uint64_t dt = tl->mem[i].t_ns - t0;
		size_t b = bucket;
		if (dt < from || dt >= upto) {
			b = time_bucket(dt, span);
			from = dt;
			upto = span ? bucket_end(dt, span) : dt + 1;
		}
		if (b != bucket) {
			if (bucket != SIZE_MAX) {
				keep[k - 1] = keep[hi] = keep[lo] = 1;
			}
			bucket = b;
			keep[k] = 1;
			hi = lo = k;
			hi_v = lo_v = live;
			continue;
		}
		/* strictly higher: the first record reaching a bucket's highest
		 * value, so the peak's own record is kept */
		if (live > hi_v)
			hi = k, hi_v = live;
		if (live < lo_v)
			lo = k, lo_v = live;
	}
	keep[n - 1] = keep[hi] = keep[lo] = 1;
	return keep;
}

static void write_series(cg_jw *w, const cg_analysis *a, uint32_t dv, const bool *occurs, strs *s, strlist *l,
			 moment *mo, size_t nmo)
{
	const cg_timeline *tl = a->tl;
	const cg_device *dev = &tl->devices[dv];
	uint8_t *keep = kept_records(tl, dev, mo, nmo);
	for (size_t j = 0; j < nmo; j++)
		mo[j].point = 0; /* before any record: the first point */
	series_state st = {cg_device_initial_live(dev), {0}};
	memcpy(st.by_cat, dev->initial_by_cat, sizeof st.by_cat);
	/* Each point: time, record (index in the trace's records of the
	 * device, -1 before any), action (0 alloc, 1 free), its bytes, op,
	 * span path, then live bytes of each category the data lists. */
	cg_jw_key(w, "points");
	cg_jw_array(w);
	uint64_t kept = 0;
	const cg_peak_device *p = &a->peak->devices[dv];
	cg_jw_u64(w, dev->mem_count ? tl->mem[dev->mem_first].t_ns : tl->first_t_ns);
	for (int f = 0; f < 5; f++)
		cg_jw_i64(w, -1);
	for (int c = 0; c < CG_CAT_COUNT; c++)
		if (occurs[cg_chart_stack_order[c]])
			cg_jw_u64(w, st.by_cat[cg_chart_stack_order[c]]);
	int64_t peak_point = 0;
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		uint32_t i = dev->mem_first + k;
		cg_timeline_apply_live(tl, i, &st.total, st.by_cat);
		if (!keep[k])
			continue;
		kept++;
		if (i == p->peak_index)
			peak_point = (int64_t)kept;
		for (size_t j = 0; j < nmo; j++)
			if (mo[j].after == i)
				mo[j].point = (int64_t)kept;
		const cg_mem *m = &tl->mem[i];
		cg_jw_u64(w, m->t_ns);
		cg_jw_u64(w, k);
		cg_jw_u64(w, m->action == CG_ALLOC ? 0 : 1);
		cg_jw_u64(w, m->bytes);
		const cg_mem *who = m->action == CG_FREE && m->pair != CG_NONE ? &tl->mem[m->pair] : m;
		cg_jw_i64(w, op_index(s, l, tl, cg_timeline_mem_op(tl, who)));
		cg_jw_i64(w, span_index(s, l, tl, who->span));
		for (int c = 0; c < CG_CAT_COUNT; c++)
			if (occurs[cg_chart_stack_order[c]])
				cg_jw_u64(w, st.by_cat[cg_chart_stack_order[c]]);
	}
	cg_jw_end(w);
	cg_jw_kv_bool(w, "reduced", kept < dev->mem_count);
	cg_jw_kv_u64(w, "records", dev->mem_count);
	cg_jw_key(w, "peak");
	cg_jw_object(w);
	cg_jw_kv_u64(w, "t", p->peak_t_ns);
	cg_jw_kv_u64(w, "bytes", p->peak_bytes);
	cg_jw_kv_u64(w, "point", (uint64_t)peak_point);
	cg_jw_end(w);
	cg_free(keep);
}

/* --- lanes ------------------------------------------------------------------ */

/* Phase bands: the spans that start a phase (their phase differs from their
 * parent's), as the chart's phase row; touching bands of a phase merged. */
#define EXPLORE_MAX_BANDS 20000

static void write_lanes(cg_jw *w, const cg_analysis *a)
{
	const cg_timeline *tl = a->tl;
	cg_jw_key(w, "phases");
	cg_jw_array(w);
	uint64_t last_end[CG_PHASE_COUNT] = {0};
	bool open[CG_PHASE_COUNT] = {false};
	uint64_t open_start[CG_PHASE_COUNT] = {0};
	size_t n = 0;
	for (size_t i = 0; i < tl->nspans && n < EXPLORE_MAX_BANDS; i++) {
		const cg_span *s = &tl->spans[i];
		cg_phase parent = s->parent == CG_NONE ? CG_PHASE_NONE : (cg_phase)tl->spans[s->parent].phase;
		if (s->step == CG_PHASE_NONE || s->phase == parent || s->phase >= CG_PHASE_COUNT)
			continue;
		int ph = s->phase;
		if (open[ph] && s->start_ns <= last_end[ph]) {
			if (s->end_ns > last_end[ph])
				last_end[ph] = s->end_ns;
			continue;
		}
		if (open[ph]) {
			cg_jw_u64(w, open_start[ph]), cg_jw_u64(w, last_end[ph]), cg_jw_u64(w, (uint64_t)ph);
			n++;
		}
		open[ph] = true;
		open_start[ph] = s->start_ns;
		last_end[ph] = s->end_ns;
	}
	for (int ph = 0; ph < CG_PHASE_COUNT; ph++)
		if (open[ph])
			cg_jw_u64(w, open_start[ph]), cg_jw_u64(w, last_end[ph]), cg_jw_u64(w, (uint64_t)ph);
	cg_jw_end(w);
	cg_jw_key(w, "phase_names");
	cg_jw_array(w);
	for (int ph = 0; ph < CG_PHASE_COUNT; ph++)
		cg_jw_string(w, cg_phase_name((cg_phase)ph));
	cg_jw_end(w);
	cg_jw_key(w, "steps");
	cg_jw_array(w);
	for (uint32_t k = 0; a->steps && k < a->steps->nsteps && k < EXPLORE_MAX_BANDS; k++) {
		const cg_step *st = &a->steps->steps[k];
		cg_jw_array(w);
		cg_jw_u64(w, st->start_ns);
		cg_jw_u64(w, st->end_ns);
		cg_jw_string(w, cg_timeline_str(tl, tl->spans[st->span].name));
		cg_jw_end(w);
	}
	cg_jw_end(w);
}

/* --- allocations and moments ------------------------------------------------- */

/* Allocations embedded (so any moment can be pinned) up to this many. */
#define EXPLORE_MAX_ALLOCS 30000

static uint64_t device_allocs(const cg_timeline *tl, const cg_device *dev)
{
	uint64_t n = 0;
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		const cg_mem *m = &tl->mem[dev->mem_first + k];
		n += m->action == CG_ALLOC || (m->flags & CG_MEM_PREEXISTING);
	}
	return n;
}

/* Each allocation: the records that begin and end it (ordinals among the
 * device's records; -1: before the trace, never), their times (-1 too),
 * bytes, category, op, span path, tensor. Live after record k: begun at or
 * before k and not ended by then, exactly as the live-set pass counts. */
static void write_allocs(cg_jw *w, const cg_timeline *tl, const cg_device *dev, strs *s, strlist *l)
{
	cg_jw_key(w, "allocs");
	cg_jw_array(w);
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		uint32_t i = dev->mem_first + k;
		const cg_mem *m = &tl->mem[i];
		bool pre = m->action == CG_FREE && (m->flags & CG_MEM_PREEXISTING);
		if (m->action != CG_ALLOC && !pre)
			continue;
		if (pre) {
			cg_jw_i64(w, -1);
			cg_jw_u64(w, k);
			cg_jw_i64(w, -1);
			cg_jw_u64(w, m->t_ns);
		} else if (m->pair != CG_NONE) {
			cg_jw_u64(w, k);
			cg_jw_u64(w, m->pair - dev->mem_first);
			cg_jw_u64(w, m->t_ns);
			cg_jw_u64(w, tl->mem[m->pair].t_ns);
		} else {
			cg_jw_u64(w, k);
			cg_jw_i64(w, -1);
			cg_jw_u64(w, m->t_ns);
			cg_jw_i64(w, -1);
		}
		cg_jw_u64(w, m->bytes);
		cg_jw_u64(w, m->category);
		cg_jw_i64(w, pre ? -1 : op_index(s, l, tl, cg_timeline_mem_op(tl, m)));
		cg_jw_i64(w, pre ? -1 : span_index(s, l, tl, m->span));
		cg_jw_i64(w, tensor_index(s, l, tl, m->tensor));
	}
	cg_jw_end(w);
}

typedef struct span_bytes {
	uint32_t span;
	uint64_t bytes;
} span_bytes;

/* By span; CG_NONE, the largest uint32_t, sorts last. */
static int cmp_span_bytes(const void *a, const void *b)
{
	uint32_t x = ((const span_bytes *)a)->span, y = ((const span_bytes *)b)->span;
	return (x > y) - (x < y);
}

/* A moment cgmem worked out: the live bytes by category and the top
 * allocations exactly as summary.json lists them, and bytes by span path. */
static void write_moment(cg_jw *w, const cg_analysis *a, const moment *mo, strs *s, strlist *l)
{
	const cg_timeline *tl = a->tl;
	const cg_liveset_device *ls = mo->ls;
	cg_jw_object(w);
	cg_jw_kv_string(w, "label", mo->label);
	cg_jw_kv_u64(w, "t", mo->t);
	cg_jw_kv_u64(w, "point", (uint64_t)mo->point);
	if (mo->step != CG_NONE) {
		cg_jw_kv_u64(w, "step", mo->step);
		cg_jw_kv_string(w, "step_name", cg_timeline_str(tl, tl->spans[a->steps->steps[mo->step].span].name));
	}
	cg_jw_kv_u64(w, "bytes", ls->bytes);
	cg_jw_kv_u64(w, "count", ls->count);
	cg_jw_key(w, "by_category");
	cg_jw_array(w);
	for (int c = 0; c < CG_CAT_COUNT; c++)
		cg_jw_u64(w, ls->by_category[c]);
	cg_jw_end(w);
	cg_jw_kv_bool(w, "listed", ls->listed);
	cg_jw_key(w, "top");
	cg_jw_array(w);
	for (size_t i = 0; ls->listed && i < ls->nallocs && i < a->options.top_n; i++)
		cg_summary_json_alloc(w, tl, ls->allocs[i].alloc, ls->allocs[i].end, ls->allocs[i].bytes);
	cg_jw_end(w);
	/* bytes by span path: span index of each live allocation, summed */
	cg_jw_key(w, "by_path");
	cg_jw_array(w);
	if (ls->listed) {
		/* In span order, no span left (CG_NONE) last; sorted pairs, not an
		 * array over every span: a step's peak holds few of a million. */
		span_bytes *sum = cg_malloc((ls->nallocs ? ls->nallocs : 1) * sizeof *sum);
		for (size_t i = 0; i < ls->nallocs; i++) {
			uint32_t al = ls->allocs[i].alloc;
			sum[i].span = al == CG_NONE ? CG_NONE : tl->mem[al].span;
			sum[i].bytes = ls->allocs[i].bytes;
		}
		qsort(sum, ls->nallocs, sizeof *sum, cmp_span_bytes);
		for (size_t i = 0; i < ls->nallocs;) {
			uint32_t sp = sum[i].span;
			uint64_t total = 0;
			for (; i < ls->nallocs && sum[i].span == sp; i++)
				total += sum[i].bytes;
			if (total) {
				cg_jw_i64(w, sp == CG_NONE ? -1 : span_index(s, l, tl, sp));
				cg_jw_u64(w, total);
			}
		}
		cg_free(sum);
	}
	cg_jw_end(w);
	cg_jw_end(w);
}

static void write_categories(cg_jw *w, const bool *occurs)
{
	cg_jw_key(w, "categories");
	cg_jw_array(w);
	for (int c = 0; c < CG_CAT_COUNT; c++) {
		cg_category cat = cg_chart_stack_order[c];
		if (!occurs[cat])
			continue;
		cg_jw_object(w);
		cg_jw_kv_u64(w, "id", cat);
		cg_jw_kv_string(w, "name", cat == CG_CAT_BASELINE ? "before profiling" : cg_category_name(cat));
		cg_jw_kv_string(w, "color", cat_color[cat]);
		cg_jw_end(w);
	}
	cg_jw_end(w);
	cg_jw_key(w, "category_names");
	cg_jw_array(w);
	for (int c = 0; c < CG_CAT_COUNT; c++)
		cg_jw_string(w, c == CG_CAT_BASELINE ? "before profiling" : cg_category_name((cg_category)c));
	cg_jw_end(w);
}

static void occurring(const cg_analysis *a, uint32_t dv, bool *occurs)
{
	const cg_timeline *tl = a->tl;
	const cg_device *dev = &tl->devices[dv];
	for (int c = 0; c < CG_CAT_COUNT; c++)
		occurs[c] = dev->initial_by_cat[c] > 0;
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		const cg_mem *m = &tl->mem[dev->mem_first + k];
		if (m->bytes)
			occurs[m->category] = true;
	}
}

/* Step peaks worked out as moments, for the first this many steps: each
 * costs a pass over the device's records. */
#define EXPLORE_MAX_STEP_MOMENTS 64

static uint64_t after_t(const cg_timeline *tl, uint32_t after)
{
	return after == CG_NONE ? tl->first_t_ns : tl->mem[after].t_ns;
}

/* The peak, the end (the OOM when the trace ends in one: what was live when
 * it failed, as summary.json's end), then each step's peak. The live lists
 * come from the live-set pass, as summary.json's at_peak. */
static moment *device_moments(const cg_analysis *a, uint32_t dv, size_t *n, uint32_t *steps_pinned)
{
	const cg_timeline *tl = a->tl;
	const cg_overtime_device *ot = a->overtime ? &a->overtime->devices[dv] : NULL;
	uint32_t nsteps = ot ? ot->nsteps : 0;
	*steps_pinned = nsteps < EXPLORE_MAX_STEP_MOMENTS ? nsteps : EXPLORE_MAX_STEP_MOMENTS;
	moment *mo = cg_calloc(2 + (size_t)*steps_pinned, sizeof *mo);
	for (size_t j = 0; j < 2 + (size_t)*steps_pinned; j++)
		mo[j].step = CG_NONE;
	size_t k = 0;
	const cg_peak_device *p = &a->peak->devices[dv];
	snprintf(mo[k].label, sizeof mo[k].label, "peak");
	mo[k].after = p->peak_index;
	mo[k].t = p->peak_t_ns;
	mo[k++].ls = &a->at_peak->devices[dv];
	if (a->at_end) {
		const cg_liveset_device *e = &a->at_end->devices[dv];
		uint32_t after, oom;
		cg_endtrace_moment(tl, dv, &after, &oom);
		snprintf(mo[k].label, sizeof mo[k].label, "%s", oom != CG_NONE ? "out-of-memory error" : "end");
		mo[k].after = e->after;
		mo[k].t = oom != CG_NONE ? tl->ooms[oom].t_ns : after_t(tl, e->after);
		mo[k++].ls = e;
	}
	/* The step peaks' live sets in one pass over the device's records. */
	uint32_t *after = cg_calloc(*steps_pinned ? *steps_pinned : 1, sizeof *after);
	cg_liveset_device *own = cg_calloc(*steps_pinned ? *steps_pinned : 1, sizeof *own);
	for (uint32_t j = 0; j < *steps_pinned; j++)
		after[j] = ot->steps[j].peak_after;
	cg_liveset_device_many(own, tl, dv, after, *steps_pinned);
	for (uint32_t j = 0; j < *steps_pinned; j++) {
		const cg_step_stats *st = &ot->steps[j];
		moment *m = &mo[k++];
		snprintf(m->label, sizeof m->label, "peak of step %" PRIu32, j);
		m->step = j;
		m->after = st->peak_after;
		m->t = st->peak_t_ns;
		m->own = own[j];
		m->ls = &m->own;
	}
	cg_free(own);
	cg_free(after);
	*n = k;
	return mo;
}

char *cg_explore_device_json(const cg_analysis *a, uint32_t dv)
{
	const cg_timeline *tl = a->tl;
	const cg_device *dev = &tl->devices[dv];
	cg_sink *out = cg_sink_memory();
	cg_jw w;
	cg_jw_init(&w, out, false);
	strs s;
	strlist l = {0};
	strs_init(&s, tl, &w);
	bool occurs[CG_CAT_COUNT];
	occurring(a, dv, occurs);
	size_t nmo;
	uint32_t steps_pinned;
	moment *mo = device_moments(a, dv, &nmo, &steps_pinned);

	cg_jw_object(&w);
	cg_jw_kv_u64(&w, "version", 1);
	cg_jw_kv_string(&w, "device", cg_timeline_str(tl, dev->name));
	cg_jw_kv_bool(&w, "time_is_index", tl->source.time_is_index);
	cg_jw_kv_bool(&w, "pairing_known", tl->source.pairing_known);
	cg_jw_kv_u64(&w, "top_n", a->options.top_n);
	write_categories(&w, occurs);
	write_series(&w, a, dv, occurs, &s, &l, mo, nmo);
	write_lanes(&w, a);
	uint64_t nallocs = device_allocs(tl, dev);
	cg_jw_kv_u64(&w, "allocations", nallocs);
	if (tl->source.pairing_known && nallocs <= EXPLORE_MAX_ALLOCS)
		write_allocs(&w, tl, dev, &s, &l);
	cg_jw_key(&w, "moments");
	cg_jw_array(&w);
	for (size_t j = 0; j < nmo; j++)
		write_moment(&w, a, &mo[j], &s, &l);
	cg_jw_end(&w);
	cg_jw_kv_u64(&w, "steps_pinned", steps_pinned);
	cg_jw_key(&w, "ooms");
	cg_jw_array(&w);
	for (size_t i = 0; i < tl->nooms; i++)
		if (tl->ooms[i].device == dv)
			cg_jw_u64(&w, tl->ooms[i].t_ns), cg_jw_u64(&w, tl->ooms[i].bytes);
	cg_jw_end(&w);
	cg_jw_key(&w, "strs");
	cg_jw_array(&w);
	for (size_t i = 0; i < l.n; i++) {
		if (l.kind[i] == 0) {
			cg_jw_string(&w, cg_timeline_str(tl, l.id[i]));
		} else {
			const cg_strtab *t = l.kind[i] == 1 ? s.paths : s.tensors;
			cg_jw_string_n(&w, cg_strtab_get(t, l.id[i]), cg_strtab_len(t, l.id[i]));
		}
	}
	cg_jw_end(&w);
	cg_jw_end(&w);

	for (size_t j = 0; j < nmo; j++)
		cg_liveset_device_clear(&mo[j].own);
	cg_free(mo);
	strs_free(&s);
	cg_free(l.kind);
	cg_free(l.id);
	size_t len;
	char *json = cg_strdup(cg_sink_data(out, &len));
	cg_sink_close(out, NULL);
	return json;
}

void cg_explore_script(cg_doc *d)
{
	cg_doc_set_script(d, cg_explore_js, cg_explore_js_sha256);
}

void cg_explore_device(cg_doc *d, const cg_analysis *a, uint32_t dv)
{
	cg_explore_device_take(d, cg_explore_device_json(a, dv));
}

void cg_explore_device_take(cg_doc *d, char *json)
{
	cg_doc_data_take(d, "cgx-data", json);
}
