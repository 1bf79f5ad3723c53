/* Hand-built runs for the tests of diff and check: a small training loop
 * whose memory is worked out on paper in each test.
 *
 * The run (device dev, times in ns):
 *   span "run" from 0 to 100 * (steps + 1); a 100 B parameter "w" (op
 *   "empty", shape [25], f32) allocated in it at t = 1 and never freed.
 *   Step k (t0 = 100 * (k + 1)): span "step#k" [t0, t0 + 90] holding
 *     forward "fwd" [t0 + 5, t0 + 45] holding module "fc1" [t0 + 10, t0 + 30]:
 *       t0 + 11  alloc act_k: act_bytes (act_bytes_step0 in step 0 when set),
 *                activation, op "linear", shape [4, bytes / 16], f32, in fc1
 *       t0 + 12  alloc loss_k: 4 B, activation, op "loss", shape [1], in fwd (when loss)
 *       t0 + 40  free act_k
 *       t0 + 41  free loss_k (unless keep_loss)
 *     optimizer "opt" [t0 + 50, t0 + 70] (when opt):
 *       t0 + 51  alloc m: 200 B optimizer_state, op "zeros", shape [50], in step 0 only
 *   A device_memory checkpoint at t0 + 20 of every step with reserved_bytes
 *   = reserved when reserved is set (used 0, free 0 then omitted). */
#ifndef CG_DIFFTRACE_H
#define CG_DIFFTRACE_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct run_spec {
	const char *dev;
	int steps;
	uint64_t act_bytes;
	uint64_t act_bytes_step0; /* 0: act_bytes */
	bool loss, keep_loss, opt;
	uint64_t reserved;	  /* 0: no checkpoints */
} run_spec;

#define RUN_SPEC_INIT {"cuda:0", 3, 64, 0, false, false, false, 0}

static inline size_t dt_add(char *buf, size_t size, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline size_t dt_add(char *buf, size_t size, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(buf + n, n < size ? size - n : 0, fmt, ap);
	va_end(ap);
	return n + (size_t)k;
}

#define DT_MEM(t, tid, sid, nbytes, action, cat, op, shape) \
	n = dt_add(buf, size, n, \
		   "{\"kind\":\"memory\",\"timestamp_ns\":%" PRIu64 ",\"tensor_id\":\"%s\",\"span_id\":\"%s\"," \
		   "\"device\":\"%s\",\"bytes\":%" PRIu64 ",\"action\":\"%s\",\"dtype\":\"f32\",\"category\":\"%s\"," \
		   "\"op_name\":\"%s\",\"shape\":%s}\n", \
		   (uint64_t)(t), tid, sid, s->dev, (uint64_t)(nbytes), action, cat, op, shape)

#define DT_SPAN(sid, parent, name, start, length, step) \
	do { \
		n = dt_add(buf, size, n, \
			   "{\"kind\":\"span_start\",\"id\":\"%s\",%s%s%s\"name\":\"%s\",\"start_ns\":%" PRIu64 "," \
			   "\"span_kind\":\"function\"%s%s%s}\n", \
			   sid, parent ? "\"parent_id\":\"" : "", parent ? parent : "", parent ? "\"," : "", name, \
			   (uint64_t)(start), step ? ",\"step\":\"" : "", step ? step : "", step ? "\"" : ""); \
		ends[nends].span = sid; \
		ends[nends++].dur = (uint64_t)(length); \
	} while (0)

/* Writes the run's JSONL into buf (asserting it fits); returns buf. */
static inline char *dt_trace(const run_spec *s, char *buf, size_t size)
{
	size_t n = 0;
	struct {
		const char *span;
		uint64_t dur;
	} ends[64];
	size_t nends = 0;
	char ids[16][64];
	n = dt_add(buf, size, n, "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"run_id\":\"dt\"}\n");
	DT_SPAN("run", (const char *)NULL, "run", 0, 100 * (uint64_t)(s->steps + 1), (const char *)NULL);
	DT_MEM(1, "w", "run", 100, "alloc", "parameter", "empty", "[25]");
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
		char act_id[32], loss_id[32], shape[48];
		snprintf(act_id, sizeof act_id, "act%d", k);
		snprintf(loss_id, sizeof loss_id, "loss%d", k);
		snprintf(shape, sizeof shape, "[4,%" PRIu64 "]", act / 16);
		DT_SPAN(step, "run", name, t0, 90, (const char *)NULL);
		DT_SPAN(fwd, step, "fwd", t0 + 5, 40, "forward");
		DT_SPAN(fc1, fwd, "fc1", t0 + 10, 20, (const char *)NULL);
		DT_MEM(t0 + 11, act_id, fc1, act, "alloc", "activation", "linear", shape);
		if (s->loss)
			DT_MEM(t0 + 12, loss_id, fwd, 4, "alloc", "activation", "loss", "[1]");
		if (s->reserved)
			n = dt_add(buf, size, n,
				   "{\"kind\":\"device_memory\",\"timestamp_ns\":%" PRIu64 ",\"device\":\"%s\","
				   "\"used_bytes\":%" PRIu64 ",\"free_bytes\":1000000,\"reserved_bytes\":%" PRIu64 "}\n",
				   t0 + 20, s->dev, s->reserved, s->reserved);
		DT_MEM(t0 + 40, act_id, fc1, act, "free", "activation", "linear", shape);
		if (s->loss && !s->keep_loss)
			DT_MEM(t0 + 41, loss_id, fwd, 4, "free", "activation", "loss", "[1]");
		if (s->opt) {
			DT_SPAN(opt, step, "opt", t0 + 50, 20, "optimizer");
			if (k == 0)
				DT_MEM(t0 + 51, "m", opt, 200, "alloc", "optimizer_state", "zeros", "[50]");
		}
	}
	while (nends > 0) {
		nends--;
		n = dt_add(buf, size, n, "{\"kind\":\"span_end\",\"id\":\"%s\",\"duration_ns\":%" PRIu64 "}\n",
			   ends[nends].span, ends[nends].dur);
	}
	if (n >= size) {
		fprintf(stderr, "dt_trace: buffer too small\n");
		abort();
	}
	return buf;
}

#endif
