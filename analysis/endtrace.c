#include "endtrace.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "units.h"
#include "xalloc.h"

/* The first of device d's OOM events and how many there are (tl->ooms is
 * sorted by device, then time). */
static size_t oom_range(const cg_timeline *tl, uint32_t d, uint32_t *count)
{
	size_t lo = 0, hi = tl->nooms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (tl->ooms[mid].device < d)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < tl->nooms && tl->ooms[end].device == d)
		end++;
	*count = (uint32_t)(end - lo);
	return lo;
}

void cg_endtrace_moment(const cg_timeline *tl, uint32_t d, uint32_t *after, uint32_t *oom)
{
	const cg_device *dev = &tl->devices[d];
	uint32_t count;
	size_t first = oom_range(tl, d, &count);
	uint32_t last_oom = count ? (uint32_t)(first + count - 1) : CG_NONE;
	if (oom)
		*oom = last_oom;
	uint32_t n = dev->mem_count;
	if (last_oom != CG_NONE) {
		/* the records at or before the OOM: what was live when it failed */
		uint64_t t = tl->ooms[last_oom].t_ns;
		uint32_t a = 0, b = n;
		while (a < b) {
			uint32_t mid = a + (b - a) / 2;
			if (tl->mem[dev->mem_first + mid].t_ns <= t)
				a = mid + 1;
			else
				b = mid;
		}
		n = a;
	}
	*after = n ? dev->mem_first + n - 1 : CG_NONE;
}

/* A growing paragraph. */
typedef struct text {
	char buf[2048];
	size_t len;
} text;

static void say(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(text *t, const char *fmt, ...)
{
	if (t->len >= sizeof t->buf)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->len += (size_t)n;
	if (t->len >= sizeof t->buf)
		t->len = sizeof t->buf - 1;
}

/* The last checkpoint of device d at or before t. */
static uint32_t last_checkpoint(const cg_timeline *tl, uint32_t d, size_t first, uint64_t t)
{
	uint32_t found = CG_NONE;
	for (uint32_t k = 0; k < tl->devices[d].devmem_count; k++)
		if (tl->devmem[first + k].t_ns <= t)
			found = (uint32_t)(first + k);
	return found;
}

static uint64_t live_at(const cg_timeline *tl, const cg_device *dev, uint64_t t)
{
	uint64_t live = cg_device_initial_live(dev);
	for (uint32_t k = 0; k < dev->mem_count && tl->mem[dev->mem_first + k].t_ns <= t; k++)
		live = cg_timeline_live_after(tl, dev->mem_first + k, live);
	return live;
}

#define MAX_CLIMB 256

/* Where the run was at the moment: the span of its record, that span's
 * phase and the outermost span of that phase, and the step. */
static void locate(const cg_timeline *tl, const cg_endtrace_input *in, cg_endtrace_device *o)
{
	o->span = o->phase_span = o->step = CG_NONE;
	o->phase = CG_PHASE_NONE;
	if (o->after == CG_NONE || tl->mem[o->after].span == CG_NONE)
		return;
	uint32_t s = tl->mem[o->after].span;
	o->span = s;
	o->phase = tl->spans[s].phase;
	if (in->step_of_span && s < in->nspans)
		o->step = in->step_of_span[s];
	if (o->phase == CG_PHASE_NONE)
		return;
	/* climb at most MAX_CLIMB levels: a trace of deep chains on many
	 * devices cannot make this quadratic */
	uint32_t p = s;
	for (int up = 0; up < MAX_CLIMB && tl->spans[p].parent != CG_NONE &&
			 tl->spans[tl->spans[p].parent].phase == o->phase; up++)
		p = tl->spans[p].parent;
	o->phase_span = p;
	o->into_phase_ns = o->t_ns > tl->spans[p].start_ns ? o->t_ns - tl->spans[p].start_ns : 0;
}

static void list_last_allocs(const cg_timeline *tl, const cg_device *dev, unsigned n, cg_endtrace_device *o)
{
	o->last_allocs = cg_malloc((n ? n : 1) * sizeof *o->last_allocs);
	if (o->after == CG_NONE)
		return;
	for (uint32_t i = o->after + 1; i-- > dev->mem_first && o->nlast < n;)
		if (tl->mem[i].action == CG_ALLOC)
			o->last_allocs[o->nlast++] = i;
}

static bool gpu_like(const cg_timeline *tl, uint32_t d)
{
	return strncasecmp(cg_timeline_str(tl, tl->devices[d].name), "cpu", 3) != 0;
}

static void say_reason(text *t, const cg_timeline *tl, uint32_t d, const cg_endtrace_device *o)
{
	char a[32], b[32], c[32];
	const char *dev = cg_timeline_str(tl, tl->devices[d].name);
	if (o->oom != CG_NONE) {
		const cg_oom *e = &tl->ooms[o->oom];
		say(t, "%s ran out of memory at %s: a request for %s failed", dev,
		    cg_timeline_fmt_time(tl, a, sizeof a, e->t_ns), cg_fmt_bytes(b, sizeof b, e->bytes));
		if (e->has_totals)
			say(t, " with %s allocated and %s reserved", cg_fmt_bytes(a, sizeof a, e->total_allocated),
			    cg_fmt_bytes(c, sizeof c, e->total_reserved));
		say(t, ". ");
	}
	if (tl->source.truncated) {
		say(t, "The trace was cut off mid-record at line %s, as a process killed while writing "
		       "leaves it (the out-of-memory killer does this). ",
		    cg_fmt_count(a, sizeof a, tl->source.truncated_line));
	}
	if (o->oom == CG_NONE && !tl->source.truncated)
		say(t, "The last checkpoint shows %s nearly full. ", dev);
}

/* What a checkpoint says is in use of the device's capacity: its used
 * bytes of used + free, or where only the allocator's reserved bytes are
 * known (PyTorch traces), those of the device's stated capacity. */
static bool checkpoint_use(const cg_timeline *tl, const cg_devmem *c, uint64_t *used, uint64_t *cap, const char **what)
{
	const cg_device *dev = &tl->devices[c->device];
	if (c->has_used) {
		*used = c->used_bytes;
		*what = "used";
		return !__builtin_add_overflow(c->used_bytes, c->free_bytes, cap);
	}
	if (c->has_reserved && dev->has_capacity) {
		*used = c->reserved_bytes;
		*cap = dev->capacity_bytes;
		*what = "reserved";
		return true;
	}
	return false;
}

static void say_where(text *t, const cg_timeline *tl, const cg_endtrace_input *in, const cg_endtrace_device *o)
{
	char a[32], b[32];
	say(t, "The run stopped at %s", cg_timeline_fmt_time(tl, a, sizeof a, o->t_ns));
	if (o->phase_span != CG_NONE) {
		say(t, ", %s into %s", cg_fmt_time(b, sizeof b, o->into_phase_ns), cg_phase_name((cg_phase)o->phase));
		if (o->step != CG_NONE && o->step < in->nsteps)
			say(t, " of %s", cg_timeline_str(tl, tl->spans[in->step_span[o->step]].name));
	} else if (o->step != CG_NONE && o->step < in->nsteps) {
		say(t, ", in %s", cg_timeline_str(tl, tl->spans[in->step_span[o->step]].name));
	} else if (o->span != CG_NONE) {
		say(t, ", in %s", cg_timeline_str(tl, tl->spans[o->span].name));
	}
	uint64_t used, cap;
	const char *what;
	if (o->checkpoint != CG_NONE && checkpoint_use(tl, &tl->devmem[o->checkpoint], &used, &cap, &what))
		say(t, ", with %s of %s %s", cg_fmt_bytes(a, sizeof a, used), cg_fmt_bytes(b, sizeof b, cap), what);
}

static void say_holders(text *t, const cg_timeline *tl, uint32_t d, const cg_endtrace_input *in,
			const cg_endtrace_device *o)
{
	char a[32], b[32];
	const uint64_t *cat = in->by_category + (size_t)d * CG_CAT_COUNT;
	int top = 0;
	for (int c = 1; c < CG_CAT_COUNT; c++)
		if (cat[c] > cat[top])
			top = c;
	if (o->live_bytes > 0)
		say(t, "; %s held %s of the %s live", cg_category_name((cg_category)top),
		    cg_fmt_bytes(a, sizeof a, cat[top]), cg_fmt_bytes(b, sizeof b, o->live_bytes));
	const cg_device *dev = &tl->devices[d];
	if (o->checkpoint != CG_NONE && tl->devmem[o->checkpoint].has_reserved) {
		const cg_devmem *c = &tl->devmem[o->checkpoint];
		uint64_t live = live_at(tl, dev, c->t_ns);
		if (c->reserved_bytes > live)
			say(t, "; the allocator held %s reserved but unused at the last checkpoint",
			    cg_fmt_bytes(a, sizeof a, c->reserved_bytes - live));
	} else if (in->estimated_reserved && gpu_like(tl, d) && in->estimated_reserved[d] > o->live_bytes) {
		say(t, "; by the allocator replay's estimate, %s were reserved but unused",
		    cg_fmt_bytes(a, sizeof a, in->estimated_reserved[d] - o->live_bytes));
	}
	say(t, ".");
}

static void device_end(const cg_timeline *tl, const cg_endtrace_input *in, uint32_t d, size_t devmem_first,
		       cg_endtrace_device *o)
{
	const cg_device *dev = &tl->devices[d];
	cg_endtrace_moment(tl, d, &o->after, &o->oom);
	oom_range(tl, d, &o->oom_count);
	o->last_record_ns = dev->mem_count ? tl->mem[dev->mem_first + dev->mem_count - 1].t_ns : 0;
	if (o->oom != CG_NONE) {
		o->kind = CG_END_OUT_OF_MEMORY;
		o->t_ns = tl->ooms[o->oom].t_ns;
	} else if (dev->mem_count) {
		o->kind = CG_END_LAST_RECORD;
		o->t_ns = o->last_record_ns;
	} else {
		o->kind = CG_END_NO_RECORDS;
		o->t_ns = 0;
	}
	o->live_bytes = in->live_bytes[d];
	/* after the last record nothing changes, so any later checkpoint still
	 * describes the end; an OOM is described by the checkpoints before it */
	o->checkpoint = last_checkpoint(tl, d, devmem_first, o->kind == CG_END_OUT_OF_MEMORY ? o->t_ns : UINT64_MAX);
	uint64_t used, cap;
	const char *what;
	if (o->checkpoint != CG_NONE && checkpoint_use(tl, &tl->devmem[o->checkpoint], &used, &cap, &what))
		o->nearly_full = cap > 0 && (double)used >= CG_NEARLY_FULL * (double)cap;
	locate(tl, in, o);
	list_last_allocs(tl, dev, in->last_n, o);
	if (!(o->oom != CG_NONE || tl->source.truncated || o->nearly_full) || o->kind == CG_END_NO_RECORDS)
		return;
	text t = {.len = 0};
	say_reason(&t, tl, d, o);
	say_where(&t, tl, in, o);
	say_holders(&t, tl, d, in, o);
	o->verdict = cg_strndup(t.buf, t.len);
}

int cg_endtrace_run(cg_endtrace_result **out, const cg_timeline *tl, const cg_endtrace_input *in, cg_error *err)
{
	(void)err;
	cg_endtrace_result *r = cg_calloc(1, sizeof *r);
	r->ndevices = tl->ndevices;
	r->devices = cg_calloc(tl->ndevices ? tl->ndevices : 1, sizeof *r->devices);
	size_t first = 0;
	for (uint32_t d = 0; d < tl->ndevices; d++) {
		device_end(tl, in, d, first, &r->devices[d]);
		first += tl->devices[d].devmem_count;
	}
	*out = r;
	return 0;
}

void cg_endtrace_free(cg_endtrace_result *r)
{
	if (!r)
		return;
	for (uint32_t d = 0; d < r->ndevices; d++) {
		cg_free(r->devices[d].last_allocs);
		cg_free(r->devices[d].verdict);
	}
	cg_free(r->devices);
	cg_free(r);
}
