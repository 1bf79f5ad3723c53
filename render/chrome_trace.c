#include "chrome_trace.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "decimal.h"
#include "escape.h"
#include "u64map.h"
#include "units.h"
#include "xalloc.h"

/* Process ids: the host (spans, ops) and one per device (its memory). */
#define HOST_PID 1
#define HOST_PID_TEXT "1" /* HOST_PID, for events formatted from literals */
#define DEVICE_PID(d) (2 + (d))

size_t cg_chrome_ts(char *buf, size_t size, uint64_t ns)
{
	int n = snprintf(buf, size, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
	return n < 0 ? 0 : (size_t)n;
}

/* --- small writers ---------------------------------------------------------- */

/* Events are formatted in place in the sink's buffer: no printf on any
 * path that runs per record (a trace has millions of events). */

/* Room for an event's fixed parts: punctuation, keys and numbers. */
#define EVENT_ROOM 1024

/* Category keys as they appear in counter args: ,"parameter": */
typedef struct category_keys {
	char text[CG_CAT_COUNT][32];
	size_t len[CG_CAT_COUNT];
} category_keys;

typedef struct writer {
	cg_sink *out;
	const cg_timeline *tl;
	bool first;
	category_keys keys;
	/* Per category, has the device being written shown it non-zero? From
	 * then on every sample writes it, zero included: Perfetto keeps a track
	 * per args key and holds its last value until a sample with that key
	 * comes, so a key left out would show freed bytes as live. */
	bool shown[CG_CAT_COUNT];
} writer;

/* Copies a string literal to p and advances p. */
#define LIT(p, s) ((p) = (char *)memcpy((p), (s), sizeof(s) - 1) + sizeof(s) - 1)

/* Microseconds with three decimals, as cg_chrome_ts. */
static char *ts_to(char *p, uint64_t ns)
{
	p = cg_u64_decimal(p, ns / 1000);
	unsigned f = (unsigned)(ns % 1000);
	p[0] = '.';
	p[1] = (char)('0' + f / 100);
	p[2] = (char)('0' + f / 10 % 10);
	p[3] = (char)('0' + f % 10);
	return p + 4;
}

static void put_u64(cg_sink *s, uint64_t v)
{
	char *p = cg_sink_reserve(s, 20);
	cg_sink_commit(s, (size_t)(cg_u64_decimal(p, v) - p));
}

static void put_ts(cg_sink *s, uint64_t ns)
{
	char *p = cg_sink_reserve(s, 24);
	cg_sink_commit(s, (size_t)(ts_to(p, ns) - p));
}

static void put_str(cg_sink *s, const char *str)
{
	cg_escape_json(s, str, strlen(str));
}

static void put_interned(writer *w, cg_str id)
{
	cg_escape_json(w->out, cg_timeline_str(w->tl, id), cg_strtab_len(w->tl->strings, id));
}

static void put_span_id(writer *w, uint32_t span)
{
	char buf[CG_SPAN_ID_BUF];
	size_t n;
	const char *id = cg_timeline_span_id(w->tl, span, buf, &n);
	cg_escape_json(w->out, id, n);
}

/* Room for an event in the sink's buffer; commit with done(). */
static char *room(writer *w)
{
	return cg_sink_reserve(w->out, EVENT_ROOM);
}

/* The separator and the opening brace of an event. */
static char *open_event(writer *w, char *p)
{
	if (w->first)
		LIT(p, "\n{");
	else
		LIT(p, ",\n{");
	w->first = false;
	return p;
}

/* Commits what was formatted in place from start to p. */
static void done(writer *w, char *start, char *p)
{
	cg_sink_commit(w->out, (size_t)(p - start));
}

static void begin(writer *w)
{
	char *start = room(w);
	done(w, start, open_event(w, start));
}

static void metadata(writer *w, const char *what, int pid, unsigned tid, const char *key, const char *value,
		     int64_t number)
{
	begin(w);
	cg_sink_puts(w->out, "\"ph\":\"M\",\"name\":");
	put_str(w->out, what);
	cg_sink_printf(w->out, ",\"pid\":%d,\"tid\":%u,\"args\":{\"%s\":", pid, tid, key);
	if (value)
		put_str(w->out, value);
	else
		cg_sink_printf(w->out, "%" PRId64, number);
	cg_sink_puts(w->out, "}}");
}

/* --- slices: spans and ops on thread lanes ----------------------------------- */

typedef struct slice_times {
	uint64_t start, end;
} slice_times;

/* Slice i is span i when i < nspans, else op i - nspans. An op recorded
 * with its span's name and times (as the PyTorch recorder writes every op)
 * is no slice of its own: its arguments go on the span's, so Perfetto does
 * not show each op twice.
 *
 * A slice's times are its span's or op's, clipped into its parent's
 * interval. Real traces need no clipping (no slice of the samples does):
 * only clipped times are kept, found through a bit per slice, instead of
 * 16 bytes for every slice (33 MB at 10 M lines). A trace whose every
 * slice is clipped costs about 64 bytes a slice instead. */
typedef struct slices {
	const cg_timeline *tl;
	size_t n, nspans;
	size_t norder;	   /* slices in order: n less the ops on their span's slice */
	uint32_t *span_op; /* per span: the op on its slice, or CG_NONE */
	uint64_t *is_clipped; /* a bit per slice */
	cg_u64map clip_of;    /* slice + 1 -> its clipped times' index + 1 */
	slice_times *clips;
	size_t nclips, clips_cap;
	uint32_t *lane;
	uint32_t *order; /* by start, longer first, parents first */
	uint32_t nlanes;
} slices;

static uint32_t depth_of(const cg_timeline *tl, size_t nspans, size_t i)
{
	if (i < nspans)
		return tl->spans[i].depth;
	const cg_op *op = &tl->ops[i - nspans];
	return op->span == CG_NONE ? 0 : tl->spans[op->span].depth + 1;
}

/* The enclosing slice: a span's parent span, an op's span (CG_NONE: none). */
static uint32_t parent_of(const cg_timeline *tl, size_t nspans, size_t i)
{
	return i < nspans ? tl->spans[i].parent : tl->ops[i - nspans].span;
}

/* The slice's own times: its span's, or its op's (the end saturating). */
static slice_times own_times(const slices *s, size_t i)
{
	if (i < s->nspans)
		return (slice_times){s->tl->spans[i].start_ns, s->tl->spans[i].end_ns};
	const cg_op *op = &s->tl->ops[i - s->nspans];
	uint64_t end;
	if (!cg_add_u64(op->t_ns, op->duration_ns, &end))
		end = UINT64_MAX;
	return (slice_times){op->t_ns, end};
}

/* Its times as written: clipped into its parent's. */
static slice_times times_of(const slices *s, size_t i)
{
	if (s->is_clipped[i / 64] >> (i % 64) & 1)
		return s->clips[cg_u64map_get(&s->clip_of, (uint64_t)i + 1) - 1];
	return own_times(s, i);
}

static const slices *sort_ctx;

static int cmp_slice(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const slices *s = sort_ctx;
	slice_times tx = times_of(s, x), ty = times_of(s, y);
	if (tx.start != ty.start)
		return tx.start < ty.start ? -1 : 1;
	if (tx.end != ty.end)
		return tx.end > ty.end ? -1 : 1;
	uint32_t dx = depth_of(s->tl, s->nspans, x), dy = depth_of(s->tl, s->nspans, y);
	if (dx != dy)
		return dx < dy ? -1 : 1;
	return x < y ? -1 : x > y;
}

static bool ordered(const slices *s, uint32_t x, uint32_t y)
{
	sort_ctx = s;
	uint32_t pair[2] = {x, y};
	return cmp_slice(&pair[0], &pair[1]) <= 0;
}

/* Clips children into their parents, parents first (by depth). */
static void clip(slices *s, const cg_timeline *tl)
{
	uint32_t maxd = 0;
	for (size_t i = 0; i < s->n; i++) {
		uint32_t d = depth_of(tl, s->nspans, i);
		if (d > maxd)
			maxd = d;
	}
	size_t *count = cg_calloc((size_t)maxd + 2, sizeof *count);
	for (size_t i = 0; i < s->n; i++)
		count[depth_of(tl, s->nspans, i) + 1]++;
	for (uint32_t d = 0; d <= maxd; d++)
		count[d + 1] += count[d];
	uint32_t *by_depth = cg_malloc((s->n ? s->n : 1) * sizeof *by_depth);
	for (size_t i = 0; i < s->n; i++)
		by_depth[count[depth_of(tl, s->nspans, i)]++] = (uint32_t)i;
	s->is_clipped = cg_calloc(s->n / 64 + 1, sizeof *s->is_clipped);
	for (size_t k = 0; k < s->n; k++) {
		uint32_t i = by_depth[k], p = parent_of(tl, s->nspans, i);
		if (p == CG_NONE)
			continue;
		slice_times own = own_times(s, i), parent = times_of(s, p);
		uint64_t st = own.start, en = own.end;
		if (st < parent.start)
			st = parent.start;
		if (en > parent.end)
			en = parent.end;
		if (st > parent.end)
			st = parent.end;
		if (en < st)
			en = st;
		if (st == own.start && en == own.end)
			continue;
		CG_GROW(s->clips, s->clips_cap, s->nclips + 1);
		s->clips[s->nclips++] = (slice_times){st, en};
		*cg_u64map_slot(&s->clip_of, (uint64_t)i + 1) = (uint32_t)s->nclips;
		s->is_clipped[i / 64] |= (uint64_t)1 << (i % 64);
	}
	cg_free(by_depth);
	cg_free(count);
}

typedef struct lane {
	uint32_t *stack;
	size_t n, cap;
} lane;

/* Can x go on lane l? Drops slices that ended before x starts. */
static bool fits(const slices *s, lane *l, uint32_t x)
{
	slice_times tx = times_of(s, x);
	while (l->n) {
		slice_times top = times_of(s, l->stack[l->n - 1]);
		if (!(top.end <= tx.start && top.end < tx.end))
			return top.start <= tx.start && top.end >= tx.end;
		l->n--;
	}
	return true;
}

/* Each slice goes on its parent's lane when it nests there, else on the
 * first lane where it nests (concurrent siblings get lanes of their own),
 * so that every lane holds properly nested slices only. */
static void assign_lanes(slices *s, const cg_timeline *tl)
{
	lane *lanes = NULL;
	size_t nlanes = 0, cap = 0;
	for (size_t k = 0; k < s->norder; k++) {
		uint32_t x = s->order[k], p = parent_of(tl, s->nspans, x);
		uint32_t want = p == CG_NONE ? 0 : s->lane[p];
		uint32_t chosen = CG_NONE;
		if (want < nlanes && fits(s, &lanes[want], x))
			chosen = want;
		for (uint32_t l = 0; chosen == CG_NONE && l < nlanes && l < 64; l++)
			if (l != want && fits(s, &lanes[l], x))
				chosen = l;
		if (chosen == CG_NONE) {
			CG_GROW(lanes, cap, nlanes + 1);
			memset(&lanes[nlanes], 0, sizeof *lanes);
			chosen = (uint32_t)nlanes++;
		}
		lane *l = &lanes[chosen];
		CG_GROW(l->stack, l->cap, l->n + 1);
		l->stack[l->n++] = x;
		s->lane[x] = chosen;
	}
	for (size_t l = 0; l < nlanes; l++)
		cg_free(lanes[l].stack);
	cg_free(lanes);
	s->nlanes = (uint32_t)nlanes;
}

/* Does op o share its span's slice? The first such op of a span does. */
static bool on_span_slice(const slices *s, const cg_timeline *tl, size_t o)
{
	const cg_op *op = &tl->ops[o];
	if (op->span == CG_NONE || s->span_op[op->span] != o)
		return false;
	return true;
}

static void find_span_ops(slices *s, const cg_timeline *tl)
{
	s->span_op = cg_malloc((tl->nspans ? tl->nspans : 1) * sizeof *s->span_op);
	memset(s->span_op, 0xff, tl->nspans * sizeof *s->span_op);
	for (size_t o = 0; o < tl->nops; o++) {
		const cg_op *op = &tl->ops[o];
		if (op->span == CG_NONE || s->span_op[op->span] != CG_NONE)
			continue;
		const cg_span *sp = &tl->spans[op->span];
		uint64_t op_end = own_times(s, tl->nspans + o).end;
		if (sp->name == op->name && sp->start_ns == op->t_ns && sp->end_ns == op_end)
			s->span_op[op->span] = (uint32_t)o;
	}
}

static void build_slices(slices *s, const cg_timeline *tl)
{
	memset(s, 0, sizeof *s);
	s->tl = tl;
	s->nspans = tl->nspans;
	s->n = tl->nspans + tl->nops;
	find_span_ops(s, tl);
	clip(s, tl);
	/* After clip, whose working array is freed by then. */
	size_t n = s->n ? s->n : 1;
	s->lane = cg_malloc(n * sizeof *s->lane);
	s->order = cg_malloc(n * sizeof *s->order);
	/* Spans and ops come mostly in start order already: merge the two
	 * runs, and sort for real only when that is not enough. */
	size_t a = 0, b = tl->nspans, k = 0;
	while (a < tl->nspans || b < s->n) {
		if (b < s->n && on_span_slice(s, tl, b - tl->nspans))
			b++;
		else if (b >= s->n || (a < tl->nspans && ordered(s, (uint32_t)a, (uint32_t)b)))
			s->order[k++] = (uint32_t)a++;
		else
			s->order[k++] = (uint32_t)b++;
	}
	s->norder = k;
	bool sorted = true;
	for (size_t i = 1; i < s->norder && sorted; i++)
		sorted = ordered(s, s->order[i - 1], s->order[i]);
	if (!sorted) {
		sort_ctx = s;
		qsort(s->order, s->norder, sizeof *s->order, cmp_slice);
	}
	assign_lanes(s, tl);
}

static void free_slices(slices *s)
{
	cg_free(s->is_clipped);
	cg_u64map_free(&s->clip_of);
	cg_free(s->clips);
	cg_free(s->lane);
	cg_free(s->order);
	cg_free(s->span_op);
}

/* ,"pid":1,"tid":LANE,"ts":START,"dur":DURATION,"args":{ */
static void write_times(writer *w, const slices *s, uint32_t i)
{
	slice_times t = times_of(s, i);
	char *start = room(w), *p = start;
	LIT(p, ",\"pid\":" HOST_PID_TEXT ",\"tid\":");
	p = cg_u64_decimal(p, (uint64_t)s->lane[i] + 1);
	LIT(p, ",\"ts\":");
	p = ts_to(p, t.start);
	LIT(p, ",\"dur\":");
	p = ts_to(p, t.end - t.start);
	LIT(p, ",\"args\":{");
	done(w, start, p);
}

/* An op's shape, formatted once per shape: "[1024, 1024]" with its quotes. */
typedef struct shape_cache {
	size_t *off; /* per shape id: offset into text + 1, 0 when not yet formatted */
	size_t *len;
	cg_sink *text;
} shape_cache;

static void put_shape(writer *w, shape_cache *c, uint32_t shape)
{
	const cg_timeline *tl = w->tl;
	size_t len;
	if (!c->off[shape]) {
		char buf[256];
		const char *f = cg_timeline_shape_format(tl, shape, buf, sizeof buf);
		cg_sink_data(c->text, &len);
		c->off[shape] = len + 1;
		cg_escape_json(c->text, f, strlen(f));
		size_t end;
		cg_sink_data(c->text, &end);
		c->len[shape] = end - len;
	}
	const char *text = cg_sink_data(c->text, &len);
	cg_sink_write(w->out, text + c->off[shape] - 1, c->len[shape]);
}

/* "shape":...,"dtype":...,"device":...[,"storage_bytes":N],"input_storage_bytes":N */
static void op_args(writer *w, const cg_op *op, shape_cache *shapes)
{
	const cg_timeline *tl = w->tl;
	cg_sink_write(w->out, "\"shape\":", 8);
	put_shape(w, shapes, op->shape);
	cg_sink_write(w->out, ",\"dtype\":", 9);
	put_interned(w, tl->dtypes[op->dtype].name);
	cg_sink_write(w->out, ",\"device\":", 10);
	put_interned(w, tl->devices[op->device].name);
	char *start = room(w), *p = start;
	if (!(op->flags & CG_OP_STORAGE_UNKNOWN)) {
		LIT(p, ",\"storage_bytes\":");
		p = cg_u64_decimal(p, op->storage_bytes);
	}
	LIT(p, ",\"input_storage_bytes\":");
	p = cg_u64_decimal(p, op->input_storage_bytes);
	done(w, start, p);
}

static void write_span(writer *w, const slices *s, uint32_t i, shape_cache *shapes)
{
	const cg_timeline *tl = w->tl;
	const cg_span *sp = &tl->spans[i];
	char *start = room(w), *p = open_event(w, start);
	LIT(p, "\"ph\":\"X\",\"cat\":");
	done(w, start, p);
	put_str(w->out, cg_span_kind_name((cg_span_kind)sp->kind));
	cg_sink_write(w->out, ",\"name\":", 8);
	put_interned(w, sp->name);
	write_times(w, s, i);
	cg_sink_write(w->out, "\"span_id\":", 10);
	put_span_id(w, i);
	if (sp->parent != CG_NONE) {
		cg_sink_write(w->out, ",\"parent_id\":", 13);
		put_span_id(w, sp->parent);
	}
	if (sp->phase != CG_PHASE_NONE) {
		cg_sink_write(w->out, ",\"phase\":", 9);
		put_str(w->out, cg_phase_name((cg_phase)sp->phase));
	}
	if (!(sp->flags & CG_SPAN_ENDED))
		cg_sink_puts(w->out, ",\"ended\":false");
	if (s->span_op[i] != CG_NONE) {
		cg_sink_putc(w->out, ',');
		op_args(w, &tl->ops[s->span_op[i]], shapes);
	}
	cg_sink_write(w->out, "}}", 2);
}

static void write_op(writer *w, const slices *s, uint32_t i, shape_cache *shapes)
{
	const cg_timeline *tl = w->tl;
	const cg_op *op = &tl->ops[i - s->nspans];
	char *start = room(w), *p = open_event(w, start);
	LIT(p, "\"ph\":\"X\",\"cat\":\"op\",\"name\":");
	done(w, start, p);
	put_interned(w, op->name);
	write_times(w, s, i);
	op_args(w, op, shapes);
	cg_sink_write(w->out, "}}", 2);
}

static void write_flows(writer *w, const slices *s)
{
	const cg_timeline *tl = w->tl;
	for (size_t e = 0; e < tl->nedges; e++) {
		const cg_edge *ed = &tl->edges[e];
		if (ed->from_span == CG_NONE || ed->to_span == CG_NONE)
			continue;
		for (int end = 0; end < 2; end++) {
			uint32_t sp = end ? ed->to_span : ed->from_span;
			char *start = room(w), *p = open_event(w, start);
			if (end)
				LIT(p, "\"ph\":\"f\"");
			else
				LIT(p, "\"ph\":\"s\"");
			LIT(p, ",\"cat\":\"edge\",\"name\":\"edge\",\"id\":");
			p = cg_u64_decimal(p, (uint64_t)e + 1);
			LIT(p, ",\"pid\":" HOST_PID_TEXT ",\"tid\":");
			p = cg_u64_decimal(p, (uint64_t)s->lane[sp] + 1);
			LIT(p, ",\"ts\":");
			p = ts_to(p, times_of(s, sp).start);
			if (end)
				LIT(p, ",\"bp\":\"e\"");
			LIT(p, ",\"args\":{\"duration_ns\":");
			p = cg_u64_decimal(p, ed->duration_ns);
			LIT(p, "}}");
			done(w, start, p);
		}
	}
}

/* --- memory counters ----------------------------------------------------------- */

typedef struct live_state {
	uint64_t total;
	uint64_t by_cat[CG_CAT_COUNT];
} live_state;

static void category_keys_init(category_keys *k)
{
	for (int c = 0; c < CG_CAT_COUNT; c++) {
		const char *name = cg_category_name((cg_category)c);
		int n = snprintf(k->text[c], sizeof k->text[c], ",\"%s\":", name);
		assert(n > 0 && (size_t)n < sizeof k->text[c]);
		k->len[c] = (size_t)n;
	}
}

static void write_counter(writer *w, int pid, uint64_t t, const live_state *st, bool by_category)
{
	/* Each category key is under 32 bytes, with its number 52. */
	static_assert(EVENT_ROOM >= 100 + CG_CAT_COUNT * 52, "room for every category");
	const category_keys *keys = &w->keys;
	char *start = room(w), *p = open_event(w, start);
	if (by_category)
		LIT(p, "\"ph\":\"C\",\"name\":\"live memory by category\",\"pid\":");
	else
		LIT(p, "\"ph\":\"C\",\"name\":\"live memory\",\"pid\":");
	p = cg_u64_decimal(p, (uint64_t)pid);
	LIT(p, ",\"ts\":");
	p = ts_to(p, t);
	LIT(p, ",\"args\":{");
	if (!by_category) {
		LIT(p, "\"bytes\":");
		p = cg_u64_decimal(p, st->total);
	} else {
		bool first = true;
		for (int c = 0; c < CG_CAT_COUNT; c++) {
			/* A category never used on the device stays out: a track of zeros. */
			if (!st->by_cat[c] && !w->shown[c] && c != CG_CAT_UNKNOWN)
				continue;
			w->shown[c] = true;
			/* The key's leading comma only between members. */
			size_t skip = first ? 1 : 0;
			memcpy(p, keys->text[c] + skip, keys->len[c] - skip);
			p += keys->len[c] - skip;
			p = cg_u64_decimal(p, st->by_cat[c]);
			first = false;
		}
	}
	LIT(p, "}}");
	done(w, start, p);
}

static void emit(writer *w, int pid, uint64_t t, const live_state *st, bool categories)
{
	write_counter(w, pid, t, st, false);
	if (categories)
		write_counter(w, pid, t, st, true);
}

static void apply(const cg_timeline *tl, uint32_t i, live_state *st)
{
	cg_timeline_apply_live(tl, i, &st->total, st->by_cat);
}

/* Initial bytes: allocated before the trace (frees without allocation, in
 * their own category) and before profiling (the baseline). */
static void initial_state(const cg_device *dev, live_state *st)
{
	st->total = cg_device_initial_live(dev);
	memcpy(st->by_cat, dev->initial_by_cat, sizeof st->by_cat);
}

/* One bucket of the envelope: its lowest, highest and last states. */
typedef struct bucket {
	uint32_t lo_i, hi_i, last_i;
	live_state lo, hi, last;
	bool used;
} bucket;

static void flush_bucket(writer *w, int pid, const bucket *b, bool categories)
{
	if (!b->used)
		return;
	const cg_timeline *tl = w->tl;
	/* In time order, each record once. */
	uint32_t idx[3] = {b->lo_i, b->hi_i, b->last_i};
	const live_state *st[3] = {&b->lo, &b->hi, &b->last};
	for (int a = 0; a < 3; a++)
		for (int c = a + 1; c < 3; c++)
			if (idx[c] < idx[a]) {
				uint32_t ti = idx[a];
				idx[a] = idx[c];
				idx[c] = ti;
				const live_state *ts = st[a];
				st[a] = st[c];
				st[c] = ts;
			}
	for (int a = 0; a < 3; a++)
		if (a == 0 || idx[a] != idx[a - 1])
			emit(w, pid, tl->mem[idx[a]].t_ns, st[a], categories);
}

static void write_device_memory(writer *w, const cg_analysis *a, uint32_t d, size_t budget)
{
	const cg_timeline *tl = w->tl;
	const cg_device *dev = &tl->devices[d];
	int pid = DEVICE_PID(d);
	bool categories = tl->source.categories_known;
	memset(w->shown, 0, sizeof w->shown);
	live_state st;
	initial_state(dev, &st);
	if (!dev->mem_count)
		return;
	if (st.total)
		emit(w, pid, tl->first_t_ns, &st, categories);

	uint64_t t0 = tl->mem[dev->mem_first].t_ns;
	uint64_t t1 = tl->mem[dev->mem_first + dev->mem_count - 1].t_ns;
	uint64_t nbuckets = budget / 3 ? budget / 3 : 1;
	uint64_t width = (t1 - t0) / nbuckets + 1;
	bool every = dev->mem_count <= budget;
	bucket b = {0};
	uint64_t current = 0;
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		uint32_t i = dev->mem_first + k;
		apply(tl, i, &st);
		if (every) {
			emit(w, pid, tl->mem[i].t_ns, &st, categories);
			continue;
		}
		uint64_t which = (tl->mem[i].t_ns - t0) / width;
		if (b.used && which != current) {
			flush_bucket(w, pid, &b, categories);
			b.used = false;
		}
		current = which;
		if (!b.used || st.total < b.lo.total) {
			b.lo = st;
			b.lo_i = i;
		}
		/* Strictly greater: the first record to reach the maximum is kept,
		 * so the exact peak sample is always written. */
		if (!b.used || st.total > b.hi.total) {
			b.hi = st;
			b.hi_i = i;
		}
		b.last = st;
		b.last_i = i;
		b.used = true;
	}
	flush_bucket(w, pid, &b, categories);

	const cg_peak_device *p = &a->peak->devices[d];
	char bytes[32];
	begin(w);
	cg_sink_printf(w->out, "\"ph\":\"i\",\"s\":\"p\",\"name\":\"peak %s\",\"pid\":%d,\"tid\":0,\"ts\":",
		       cg_fmt_bytes(bytes, sizeof bytes, p->peak_bytes), pid);
	put_ts(w->out, p->peak_t_ns);
	cg_sink_puts(w->out, ",\"args\":{\"bytes\":");
	put_u64(w->out, p->peak_bytes);
	cg_sink_puts(w->out, "}}");
}

static void write_checkpoints(writer *w)
{
	const cg_timeline *tl = w->tl;
	for (size_t i = 0; i < tl->ndevmem; i++) {
		const cg_devmem *c = &tl->devmem[i];
		char *start = room(w), *p = open_event(w, start);
		LIT(p, "\"ph\":\"C\",\"name\":\"device memory\",\"pid\":");
		p = cg_u64_decimal(p, (uint64_t)DEVICE_PID(c->device));
		LIT(p, ",\"ts\":");
		p = ts_to(p, c->t_ns);
		LIT(p, ",\"args\":{");
		if (c->has_used) {
			LIT(p, "\"used\":");
			p = cg_u64_decimal(p, c->used_bytes);
			LIT(p, ",\"free\":");
			p = cg_u64_decimal(p, c->free_bytes);
			if (c->has_reserved)
				LIT(p, ",");
		}
		if (c->has_reserved) {
			LIT(p, "\"reserved\":");
			p = cg_u64_decimal(p, c->reserved_bytes);
		}
		LIT(p, "}}");
		done(w, start, p);
	}
	for (size_t i = 0; i < tl->nooms; i++) {
		const cg_oom *o = &tl->ooms[i];
		char *start = room(w), *p = open_event(w, start);
		LIT(p, "\"ph\":\"i\",\"s\":\"p\",\"name\":\"out of memory\",\"pid\":");
		p = cg_u64_decimal(p, (uint64_t)DEVICE_PID(o->device));
		LIT(p, ",\"tid\":0,\"ts\":");
		p = ts_to(p, o->t_ns);
		LIT(p, ",\"args\":{\"requested_bytes\":");
		p = cg_u64_decimal(p, o->bytes);
		LIT(p, "}}");
		done(w, start, p);
	}
}

static void write_names(writer *w, const slices *s)
{
	const cg_timeline *tl = w->tl;
	metadata(w, "process_name", HOST_PID, 0, "name", "host: spans and ops", 0);
	metadata(w, "process_sort_index", HOST_PID, 0, "sort_index", NULL, 0);
	for (uint32_t l = 0; l < s->nlanes; l++) {
		char name[48];
		snprintf(name, sizeof name, l ? "spans (concurrent %u)" : "spans", l);
		metadata(w, "thread_name", HOST_PID, l + 1, "name", name, 0);
		metadata(w, "thread_sort_index", HOST_PID, l + 1, "sort_index", NULL, l);
	}
	for (uint32_t d = 0; d < tl->ndevices; d++) {
		char name[300];
		snprintf(name, sizeof name, "memory: %s", cg_timeline_str(tl, tl->devices[d].name));
		metadata(w, "process_name", DEVICE_PID(d), 0, "name", name, 0);
		metadata(w, "process_sort_index", DEVICE_PID(d), 0, "sort_index", NULL, 1 + d);
	}
}

/* The run's metadata as the members of an object, under key: strings and
 * numbers as the trace gave them. */
static void write_run_metadata(cg_sink *out, const cg_timeline *tl, const char *key)
{
	cg_sink_printf(out, "\"%s\":{\"generator\":\"cgmem " CGMEM_VERSION "\",\"source\":", key);
	put_str(out, tl->source.path ? tl->source.path : "");
	for (size_t i = 0; i < tl->nmeta; i++) {
		const cg_meta_entry *m = &tl->meta[i];
		cg_sink_putc(out, ',');
		put_str(out, cg_timeline_str(tl, m->key));
		cg_sink_putc(out, ':');
		const char *v = cg_timeline_str(tl, m->value);
		if (m->is_string)
			cg_escape_json(out, v, cg_strtab_len(tl->strings, m->value));
		else
			cg_sink_write(out, v, cg_strtab_len(tl->strings, m->value));
	}
	cg_sink_puts(out, "}");
}

void cg_chrome_trace_write(cg_sink *out, const cg_analysis *a, const cg_chrome_options *o)
{
	cg_chrome_options defaults = CG_CHROME_OPTIONS_INIT;
	if (!o)
		o = &defaults;
	const cg_timeline *tl = a->tl;
	writer w = {out, tl, true, {{{0}}, {0}}, {0}};
	category_keys_init(&w.keys);
	shape_cache shapes = {cg_calloc(cg_strtab_count(tl->shapes), sizeof(size_t)),
			      cg_calloc(cg_strtab_count(tl->shapes), sizeof(size_t)), cg_sink_memory()};
	slices s;
	build_slices(&s, tl);

	cg_sink_puts(out, "{\"displayTimeUnit\":\"ms\",");
	/* Perfetto imports "metadata" and skips "otherData", which
	 * chrome://tracing shows: the same members under both. */
	write_run_metadata(out, tl, "metadata");
	cg_sink_putc(out, ',');
	write_run_metadata(out, tl, "otherData");
	cg_sink_puts(out, ",\"traceEvents\":[");
	write_names(&w, &s);
	for (size_t k = 0; k < s.norder; k++) {
		uint32_t i = s.order[k];
		if (i < s.nspans)
			write_span(&w, &s, i, &shapes);
		else
			write_op(&w, &s, i, &shapes);
	}
	write_flows(&w, &s);
	free_slices(&s);
	cg_free(shapes.off);
	cg_free(shapes.len);
	cg_sink_close(shapes.text, NULL);
	if (o->slices_done)
		o->slices_done(o->slices_done_arg);

	/* The budget counts counter events, what Perfetto has to hold: with
	 * categories, every moment is two (the total and by category). */
	size_t budget = SIZE_MAX;
	if (!o->full && tl->ndevices)
		budget = o->max_counter_samples / tl->ndevices / (tl->source.categories_known ? 2 : 1);
	for (uint32_t d = 0; d < tl->ndevices; d++)
		write_device_memory(&w, a, d, budget < 6 ? 6 : budget);
	write_checkpoints(&w);
	if (tl->source.truncated) {
		begin(&w);
		cg_sink_printf(out, "\"ph\":\"i\",\"s\":\"g\",\"name\":\"trace ends here\",\"pid\":%d,\"tid\":0,\"ts\":",
			       HOST_PID);
		put_ts(out, tl->last_t_ns);
		cg_sink_puts(out, ",\"args\":{\"note\":");
		put_str(out, tl->source.truncation_note ? tl->source.truncation_note : "");
		cg_sink_puts(out, "}}");
	}
	cg_sink_puts(out, "\n]}\n");
}

int cg_chrome_trace_save(const char *path, const cg_analysis *a, const cg_chrome_options *o, cg_error *err)
{
	cg_chrome_options defaults = CG_CHROME_OPTIONS_INIT;
	if (!o)
		o = &defaults;
	size_t n = strlen(path);
	bool gz = n >= 3 && strcmp(path + n - 3, ".gz") == 0;
	cg_sink *s;
	int rc = cg_sink_open(&s, path, gz ? o->gzip_level : 0, err);
	if (rc < 0)
		return rc;
	cg_chrome_trace_write(s, a, o);
	return cg_sink_close(s, err);
}
