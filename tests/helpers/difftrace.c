#include "difftrace.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlbuild.h"

/* The run is generated once, through an emitter: JSONL text or a timeline. */
typedef struct emitter {
	void (*meta)(void *ctx, const char *run_id);
	void (*span)(void *ctx, const char *id, const char *parent, const char *name, uint64_t start, const char *step);
	void (*span_end)(void *ctx, const char *id, uint64_t duration);
	void (*mem)(void *ctx, uint64_t t, const char *tensor, const char *span, const char *dev, uint64_t bytes,
		    const char *action, const char *category, const char *op, const uint64_t *dims, size_t ndims);
	void (*devmem)(void *ctx, uint64_t t, const char *dev, uint64_t used, uint64_t reserved);
	void *ctx;
} emitter;

#define MEM(t, tid, sid, nbytes, action, cat, op, ...) \
	do { \
		const uint64_t dims_[] = {__VA_ARGS__}; \
		e->mem(e->ctx, (uint64_t)(t), tid, sid, s->dev, (uint64_t)(nbytes), action, cat, op, dims_, \
		       sizeof dims_ / sizeof dims_[0]); \
	} while (0)

#define SPAN(sid, parent, name, start, length, step) \
	do { \
		e->span(e->ctx, sid, parent, name, (uint64_t)(start), step); \
		ends[nends].span = sid; \
		ends[nends++].dur = (uint64_t)(length); \
	} while (0)

static void generate(const run_spec *s, const emitter *e)
{
	struct {
		const char *span;
		uint64_t dur;
	} ends[64];
	size_t nends = 0;
	char ids[16][64];
	e->meta(e->ctx, "dt");
	SPAN("run", NULL, "run", 0, 100 * (uint64_t)(s->steps + 1), NULL);
	MEM(1, "w", "run", 100, "alloc", "parameter", "empty", 25);
	char act_ids[3][32], loss_ids[3][32];
	for (int k = 0; k < s->steps && k < 3; k++) {
		uint64_t t0 = 100 * (uint64_t)(k + 1);
		char *step = ids[5 * k], *fwd = ids[5 * k + 1], *fc1 = ids[5 * k + 2], *opt = ids[5 * k + 3];
		char *name = ids[5 * k + 4];
		snprintf(step, 64, "s%d", k);
		snprintf(fwd, 64, "f%d", k);
		snprintf(fc1, 64, "m%d", k);
		snprintf(opt, 64, "o%d", k);
		snprintf(name, 64, "step#%d", k);
		uint64_t act = k == 0 && s->act_bytes_step0 ? s->act_bytes_step0 : s->act_bytes;
		char *act_id = act_ids[k], *loss_id = loss_ids[k];
		snprintf(act_id, 32, "act%d", k);
		snprintf(loss_id, 32, "loss%d", k);
		SPAN(step, "run", name, t0, 90, NULL);
		SPAN(fwd, step, "fwd", t0 + 5, 40, "forward");
		SPAN(fc1, fwd, "fc1", t0 + 10, 20, NULL);
		MEM(t0 + 11, act_id, fc1, act, "alloc", "activation", "linear", 4, act / 16);
		if (s->loss)
			MEM(t0 + 12, loss_id, fwd, 4, "alloc", "activation", "loss", 1);
		if (s->reserved)
			e->devmem(e->ctx, t0 + 20, s->dev, s->reserved, s->reserved);
		MEM(t0 + 40, act_id, fc1, act, "free", "activation", "linear", 4, act / 16);
		if (s->loss && !s->keep_loss)
			MEM(t0 + 41, loss_id, fwd, 4, "free", "activation", "loss", 1);
		if (s->opt) {
			SPAN(opt, step, "opt", t0 + 50, 20, "optimizer");
			if (k == 0)
				MEM(t0 + 51, "m", opt, 200, "alloc", "optimizer_state", "zeros", 50);
		}
	}
	while (nends > 0) {
		nends--;
		e->span_end(e->ctx, ends[nends].span, ends[nends].dur);
	}
}

/* --- JSONL text --- */

typedef struct text {
	char *buf;
	size_t size, n;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(t->buf + t->n, t->n < t->size ? t->size - t->n : 0, fmt, ap);
	va_end(ap);
	t->n += (size_t)k;
}

static void text_meta(void *ctx, const char *run_id)
{
	add(ctx, "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"run_id\":\"%s\"}\n", run_id);
}

static void text_span(void *ctx, const char *id, const char *parent, const char *name, uint64_t start,
		      const char *step)
{
	add(ctx, "{\"kind\":\"span_start\",\"id\":\"%s\",%s%s%s\"name\":\"%s\",\"start_ns\":%" PRIu64 ","
		 "\"span_kind\":\"function\"%s%s%s}\n",
	    id, parent ? "\"parent_id\":\"" : "", parent ? parent : "", parent ? "\"," : "", name, start,
	    step ? ",\"step\":\"" : "", step ? step : "", step ? "\"" : "");
}

static void text_span_end(void *ctx, const char *id, uint64_t duration)
{
	add(ctx, "{\"kind\":\"span_end\",\"id\":\"%s\",\"duration_ns\":%" PRIu64 "}\n", id, duration);
}

static void text_mem(void *ctx, uint64_t t, const char *tensor, const char *span, const char *dev, uint64_t bytes,
		     const char *action, const char *category, const char *op, const uint64_t *dims, size_t ndims)
{
	char shape[96] = "[";
	for (size_t i = 0; i < ndims; i++)
		snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%" PRIu64, i ? "," : "", dims[i]);
	snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "]");
	add(ctx, "{\"kind\":\"memory\",\"timestamp_ns\":%" PRIu64 ",\"tensor_id\":\"%s\",\"span_id\":\"%s\","
		 "\"device\":\"%s\",\"bytes\":%" PRIu64 ",\"action\":\"%s\",\"dtype\":\"f32\",\"category\":\"%s\","
		 "\"op_name\":\"%s\",\"shape\":%s}\n",
	    t, tensor, span, dev, bytes, action, category, op, shape);
}

static void text_devmem(void *ctx, uint64_t t, const char *dev, uint64_t used, uint64_t reserved)
{
	add(ctx, "{\"kind\":\"device_memory\",\"timestamp_ns\":%" PRIu64 ",\"device\":\"%s\",\"used_bytes\":%" PRIu64
		 ",\"free_bytes\":1000000,\"reserved_bytes\":%" PRIu64 "}\n",
	    t, dev, used, reserved);
}

char *dt_trace(const run_spec *s, char *buf, size_t size)
{
	text t = {buf, size, 0};
	emitter e = {text_meta, text_span, text_span_end, text_mem, text_devmem, &t};
	generate(s, &e);
	if (t.n >= size) {
		fprintf(stderr, "dt_trace: buffer too small\n");
		abort();
	}
	return buf;
}

/* --- a timeline --- */

static void tl_meta(void *ctx, const char *run_id)
{
	tu_meta(ctx, "run_id", run_id);
}

static void tl_span(void *ctx, const char *id, const char *parent, const char *name, uint64_t start,
		    const char *step)
{
	cg_phase phase = CG_PHASE_NONE;
	if (step && !cg_phase_parse(step, strlen(step), &phase))
		fail_msg("no phase %s", step);
	tu_span(ctx, id, parent, name, start, UINT64_MAX, phase);
}

static void tl_span_end(void *ctx, const char *id, uint64_t duration)
{
	tu_span_end(ctx, id, duration);
}

static void tl_mem(void *ctx, uint64_t t, const char *tensor, const char *span, const char *dev, uint64_t bytes,
		   const char *action, const char *category, const char *op, const uint64_t *dims, size_t ndims)
{
	cg_action a;
	cg_category c;
	if (!cg_action_parse(action, strlen(action), &a) || !cg_category_parse(category, strlen(category), &c))
		fail_msg("bad action %s or category %s", action, category);
	tu_mem_shaped(ctx, t, tensor, span, dev, bytes, a, c, op, dims, ndims);
}

static void tl_devmem(void *ctx, uint64_t t, const char *dev, uint64_t used, uint64_t reserved)
{
	tu_devmem(ctx, t, dev, used, 1000000, reserved);
}

cg_timeline *dt_timeline(const run_spec *s)
{
	cg_timeline *tl = tu_tl_new();
	emitter e = {tl_meta, tl_span, tl_span_end, tl_mem, tl_devmem, tl};
	generate(s, &e);
	tu_tl_finalize(tl);
	return tl;
}
