#include "kineto_events.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "kineto_fields.h"
#include "utf8.h"
#include "xalloc.h"

/* --- devices and phases ------------------------------------------------------ */

void cg_kineto_device_name(int64_t type, int64_t id, char *buf, size_t size)
{
	/* c10::DeviceType numbering and c10::DeviceTypeName spellings. */
	static const char *const names[] = {
		"cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "fpga", "maia", "xla",
		"vulkan", "metal", "xpu", "mps", "meta", "hpu", "ve", "lazy", "ipu", "mtia",
		"privateuseone",
	};
	char type_buf[33]; /* "device_type_" (12), any int64 (at most 20), NUL */
	const char *t = type_buf;
	if (type >= 0 && type < (int64_t)(sizeof names / sizeof names[0]))
		t = names[type];
	else
		snprintf(type_buf, sizeof type_buf, "device_type_%" PRId64, type);
	if (id < 0)
		snprintf(buf, size, "%s", t);
	else
		snprintf(buf, size, "%s:%" PRId64, t, id);
}

static bool ieq(const char *s, size_t n, const char *word)
{
	if (strlen(word) != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != word[i])
			return false;
	}
	return true;
}

static bool starts_with(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && memcmp(s, prefix, k) == 0;
}

cg_phase cg_kineto_phase(const char *name, size_t n)
{
	/* Ranges PyTorch's own code opens (torch/optim, autograd engine). */
	if (starts_with(name, n, "Optimizer.step#") || starts_with(name, n, "Optimizer.zero_grad#"))
		return CG_PHASE_OPTIMIZER;
	if (starts_with(name, n, "autograd::engine::evaluate_function: "))
		return CG_PHASE_BACKWARD;
	/* Annotations users write: "forward", "## backward ##". */
	const char *p = name, *e = name + n;
	while (p < e && (*p == ' ' || *p == '#'))
		p++;
	while (e > p && (e[-1] == ' ' || e[-1] == '#'))
		e--;
	size_t len = (size_t)(e - p);
	if (ieq(p, len, "forward"))
		return CG_PHASE_FORWARD;
	if (ieq(p, len, "backward"))
		return CG_PHASE_BACKWARD;
	if (ieq(p, len, "optimizer") || ieq(p, len, "optimizer step") || ieq(p, len, "optimizer.step"))
		return CG_PHASE_OPTIMIZER;
	return CG_PHASE_NONE;
}

/* Is a cpu_op / Operator complete event a record_function range rather
 * than an operator? PyTorch ~1.9 writes "cat": "Operator" for both, so the
 * name decides (docs/pytorch-traces.md, "Spans and phases"): ranges are
 * "Label#detail" without a namespace (ProfilerStep#6,
 * Optimizer.step#SGD.step, enumerate(DataLoader)#...), "## name ##",
 * "nn.Module: X", autograd's "autograd::engine::evaluate_function: X" and
 * its nodes ("AddmmBackward", "ReluBackward0"). */
static bool autograd_node(const char *name, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (name[i] == ':' && name[i + 1] == ':')
			return false;
	size_t d = n;
	while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
		d--;
	return d > 8 && memcmp(name + d - 8, "Backward", 8) == 0;
}

static bool range_not_op(const char *name, size_t n)
{
	bool ns = false;
	for (size_t i = 0; i + 1 < n && !ns; i++)
		ns = name[i] == ':' && name[i + 1] == ':';
	if (starts_with(name, n, "autograd::engine::evaluate_function: ") || starts_with(name, n, "nn.Module: "))
		return true;
	if (ns)
		return false;
	return memchr(name, '#', n) || autograd_node(name, n);
}

/* Complete events that are not CPU-side ranges: device activity and the
 * CUDA/HIP API layer under the operators, which says nothing about the model. */
static bool span_category(const char *cat, size_t n)
{
	static const char *const skip[] = {
		"kernel", "memcpy", "memset", "runtime", "driver", "trace", "overhead", "ac2g",
	};
	if (starts_with(cat, n, "gpu_") || starts_with(cat, n, "cuda_") || starts_with(cat, n, "hip_"))
		return false;
	for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
		if (ieq(cat, n, skip[i]))
			return false;
	return true;
}

/* --- reading events ---------------------------------------------------------- */

static int bad_event(cg_kineto_events *k, uint64_t ordinal, cg_error *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int bad_event(cg_kineto_events *k, uint64_t ordinal, cg_error *err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	cg_utf8_vformat(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (k->o->strict)
		return cg_error_set(err, CG_EINPUT, "%s: event %" PRIu64 ": %s", k->name, ordinal, msg);
	cg_diag_add(k->tl, CG_DIAG_BAD_LINE, ordinal, "%s", msg);
	return 0;
}

typedef cg_kineto_fields fields;

static const cg_kv *fld(const fields *f, int i)
{
	return f->f[i].type == CG_KV_NONE ? NULL : &f->f[i];
}

/* The literal of a number, or the text of a string holding one. */
static bool num_text(const cg_kv *item, const char **s, size_t *n)
{
	if (item->type != CG_KV_NUMBER && item->type != CG_KV_STRING)
		return false;
	*s = item->s;
	*n = item->n;
	return true;
}

/* Microseconds with up to three decimals (or more, rounded) -> ns. */
static bool time_ns(const cg_kv *item, int64_t *out)
{
	const char *s;
	size_t n;
	return item && num_text(item, &s, &n) && cg_json_decimal(s, n, 3, out, NULL) == 0;
}

static bool int_value(const cg_kv *item, int64_t *out)
{
	const char *s;
	size_t n;
	return item && num_text(item, &s, &n) && cg_json_int(s, n, out) == 0;
}

/* The event's "ts" in ns, read once by cg_kineto_events_take. */
static bool event_ts(const cg_kineto_events *k, int64_t *out)
{
	*out = k->ts;
	return k->ts_ok;
}

/* Digits as "%" PRId64 prints them: no sign, no leading zero, fewer than
 * 19 (so within int64). */
static bool canonical_int(const cg_kv *kv)
{
	if ((kv->type != CG_KV_NUMBER && kv->type != CG_KV_STRING) || kv->n == 0 || kv->n > 18 ||
	    (kv->s[0] == '0' && kv->n > 1))
		return false;
	for (size_t i = 0; i < kv->n; i++)
		if (kv->s[i] < '0' || kv->s[i] > '9')
			return false;
	return true;
}

/* "pid/tid" with integers and digit strings written the same way: memory
 * events carry tid 25738 where the operators around them carry "25738". */
static int thread_of(cg_kineto_events *k, const fields *f, uint32_t *out)
{
	char key[512];
	size_t len = 0;
	const cg_kv *items[2] = {fld(f, CG_KF_PID), fld(f, CG_KF_TID)};
	for (int i = 0; i < 2; i++) {
		int64_t v;
		const char *s = "";
		size_t n = 0;
		char num[32];
		if (items[i] && canonical_int(items[i])) {
			s = items[i]->s; /* as printing it would write it */
			n = items[i]->n;
		} else if (int_value(items[i], &v)) {
			n = (size_t)snprintf(num, sizeof num, "%" PRId64, v);
			s = num;
		} else if (items[i]) {
			num_text(items[i], &s, &n);
		}
		if (n > 200)
			n = 200;
		memcpy(key + len, s, n);
		len += n;
		if (i == 0)
			key[len++] = '/';
	}
	cg_str id;
	if (cg_strtab_intern(k->threads, key, len, &id) < 0)
		return CG_ELIMIT;
	*out = id;
	return 0;
}

static bool arg_int(const fields *f, int name, int64_t *out, bool *present)
{
	const cg_kv *c = fld(f, name);
	*present = c != NULL;
	return c && int_value(c, out);
}

/* "Device Type" and "Device Id" into a timeline device. */
static int device_of(cg_kineto_events *k, const fields *f, uint16_t *out, const char **why)
{
	int64_t type, id = -1;
	bool present;
	if (!arg_int(f, CG_KA_DEVICE_TYPE, &type, &present)) {
		*why = present ? "\"Device Type\" is not an integer" : "no \"Device Type\"";
		return 1;
	}
	if (!arg_int(f, CG_KA_DEVICE_ID, &id, &present) && present) {
		*why = "\"Device Id\" is not an integer";
		return 1;
	}
	char name[64];
	cg_kineto_device_name(type, id, name, sizeof name);
	return cg_timeline_device(k->tl, name, strlen(name), out);
}

/* Optional allocator totals: present and valid, absent, or bad (-1). */
static int total(const fields *f, int name, uint64_t *out)
{
	int64_t v;
	bool present;
	if (arg_int(f, name, &v, &present) && v >= 0) {
		*out = (uint64_t)v;
		return 1;
	}
	return present ? -1 : 0;
}

static int memory_event(cg_kineto_events *k, const fields *f, uint32_t ordinal, cg_error *err)
{
	cg_kineto_mem m = {0};
	m.ordinal = ordinal;
	if (!event_ts(k, &m.ts))
		return bad_event(k, ordinal, err, "[memory] event without a valid \"ts\"");
	if (f->f[CG_KF_ARGS].type != CG_KV_OBJECT)
		return bad_event(k, ordinal, err, "[memory] event without \"args\"");
	int64_t bytes;
	bool present;
	if (!arg_int(f, CG_KA_BYTES, &bytes, &present))
		return bad_event(k, ordinal, err, "[memory] event %s",
				 present ? "whose \"Bytes\" is not an integer" : "without \"Bytes\"");
	const char *why;
	int rc = device_of(k, f, &m.device, &why);
	if (rc < 0)
		return rc;
	if (rc > 0)
		return bad_event(k, ordinal, err, "[memory] event: %s", why);
	int ta = total(f, CG_KA_TOTAL_ALLOCATED, &m.total_allocated);
	int tr = total(f, CG_KA_TOTAL_RESERVED, &m.total_reserved);
	if (ta < 0 || tr < 0)
		return bad_event(k, ordinal, err, "[memory] event: \"%s\" is not a non-negative integer",
				 ta < 0 ? "Total Allocated" : "Total Reserved");
	if (ta > 0)
		m.flags |= CG_KM_TOTAL_ALLOCATED;
	if (tr > 0)
		m.flags |= CG_KM_TOTAL_RESERVED;
	const cg_kv *addr = fld(f, CG_KA_ADDR);
	if (addr) {
		const char *s;
		size_t n;
		if (!num_text(addr, &s, &n))
			return bad_event(k, ordinal, err, "[memory] event: \"Addr\" is neither a number nor a string");
		if ((rc = cg_timeline_intern(k->tl, s, n, &m.addr)) < 0)
			return rc;
		m.flags |= CG_KM_ADDR;
	}
	if (bytes == 0) {
		k->zero_bytes++;
		return 0;
	}
	if (bytes < 0) {
		m.flags |= CG_KM_FREE;
		m.bytes = (uint64_t)(-(bytes + 1)) + 1; /* INT64_MIN has no positive int64 */
	} else {
		m.bytes = (uint64_t)bytes;
	}
	if (!addr)
		k->without_addr++;
	if ((rc = thread_of(k, f, &m.thread)) < 0)
		return rc;
	CG_GROW(k->mem, k->mem_cap, k->nmem + 1);
	k->mem[k->nmem++] = m;
	return 0;
}

static int oom_event(cg_kineto_events *k, const fields *f, uint32_t ordinal, cg_error *err)
{
	cg_kineto_oom o = {0};
	o.ordinal = ordinal;
	if (!event_ts(k, &o.ts))
		return bad_event(k, ordinal, err, "[OutOfMemory] event without a valid \"ts\"");
	int64_t bytes = 0;
	bool present = false;
	const char *why = NULL;
	int rc = 1;
	if (f->f[CG_KF_ARGS].type == CG_KV_OBJECT) {
		arg_int(f, CG_KA_BYTES, &bytes, &present);
		rc = device_of(k, f, &o.device, &why);
		if (rc < 0)
			return rc;
		int ta = total(f, CG_KA_TOTAL_ALLOCATED, &o.total_allocated);
		int tr = total(f, CG_KA_TOTAL_RESERVED, &o.total_reserved);
		o.has_totals = ta > 0 && tr > 0;
	}
	/* An out-of-memory moment matters even when it does not name its device. */
	if (rc > 0 && (rc = cg_timeline_device(k->tl, "unknown", 7, &o.device)) < 0)
		return rc;
	o.bytes = bytes < 0 ? (uint64_t)(-(bytes + 1)) + 1 : (uint64_t)bytes;
	CG_GROW(k->ooms, k->ooms_cap, k->nooms + 1);
	k->ooms[k->nooms++] = o;
	return 0;
}

static int span_event(cg_kineto_events *k, const fields *f, uint32_t ordinal, cg_error *err)
{
	const cg_kv *c = &f->f[CG_KF_CAT];
	const char *cat = c->type == CG_KV_STRING ? c->s : "";
	size_t catn = c->type == CG_KV_STRING ? c->n : 0;
	if (!span_category(cat, catn))
		return 0;
	int64_t start, dur = 0;
	if (!event_ts(k, &start))
		return bad_event(k, ordinal, err, "complete event without a valid \"ts\"");
	if (fld(f, CG_KF_DUR) && !time_ns(fld(f, CG_KF_DUR), &dur))
		return bad_event(k, ordinal, err, "complete event whose \"dur\" is not a number");
	if (dur < 0)
		dur = 0;
	int64_t end;
	if (__builtin_add_overflow(start, dur, &end))
		return bad_event(k, ordinal, err, "complete event ends beyond the representable time");

	cg_kineto_span sp = {CG_STR_EMPTY, CG_SPAN_FUNCTION, CG_PHASE_NONE};
	const cg_kv *nm = &f->f[CG_KF_NAME];
	const char *name = nm->type == CG_KV_STRING ? nm->s : "(unnamed)";
	size_t n = nm->type == CG_KV_STRING ? nm->n : 9;
	int rc = cg_timeline_intern(k->tl, name, n, &sp.name);
	if (rc < 0)
		return rc;
	if ((ieq(cat, catn, "cpu_op") || ieq(cat, catn, "operator")) && !range_not_op(name, n))
		sp.kind = CG_SPAN_OP;
	else if (starts_with(name, n, "nn.Module: "))
		sp.kind = CG_SPAN_MODULE;
	sp.step = (uint8_t)cg_kineto_phase(name, n);
	/* PyTorch ~1.9 has no evaluate_function ranges: its autograd nodes
	 * ("CudnnConvolutionBackward") run on autograd's thread as operators */
	if (sp.step == CG_PHASE_NONE && ieq(cat, catn, "operator") && autograd_node(name, n))
		sp.step = CG_PHASE_BACKWARD;

	cg_nest_span ns = {0};
	ns.start = start;
	ns.end = end;
	ns.order = ordinal;
	ns.payload = (uint32_t)k->nspans;
	if ((rc = thread_of(k, f, &ns.thread)) < 0)
		return rc;
	CG_GROW(k->spans, k->spans_cap, k->nspans + 1);
	k->spans[k->nspans++] = sp;
	CG_GROW(k->nest, k->nest_cap, k->nnest + 1);
	k->nest[k->nnest++] = ns;
	return 0;
}

/* Time 0 is the earliest timestamp of any event but metadata. */
static void see_time(cg_kineto_events *k, const fields *f)
{
	int64_t t;
	const char *s = "";
	size_t n = 0;
	if (!event_ts(k, &t) || (k->have_origin && t >= k->origin))
		return;
	k->origin = t;
	k->have_origin = true;
	num_text(fld(f, CG_KF_TS), &s, &n);
	snprintf(k->origin_text, sizeof k->origin_text, "%.*s us", (int)(n < 40 ? n : 40), s);
}

static bool is(const cg_kv *kv, const char *word)
{
	size_t n = strlen(word);
	return kv->type == CG_KV_STRING && kv->n == n && memcmp(kv->s, word, n) == 0;
}

int cg_kineto_events_take(cg_kineto_events *k, const cg_kineto_fields *f, uint32_t ordinal, cg_error *err)
{
	bool memory = is(&f->f[CG_KF_NAME], "[memory]"), oom = is(&f->f[CG_KF_NAME], "[OutOfMemory]");
	int rc = 0;
	if (!is(&f->f[CG_KF_PH], "M") || memory || oom) {
		k->ts_ok = time_ns(fld(f, CG_KF_TS), &k->ts);
		see_time(k, f);
	}
	if (memory)
		rc = memory_event(k, f, ordinal, err);
	else if (oom)
		rc = oom_event(k, f, ordinal, err);
	else if (is(&f->f[CG_KF_PH], "X"))
		rc = span_event(k, f, ordinal, err);
	/* What is held here becomes records later (a span and its end, a
	 * memory event): stop at the limit now, not after reading the rest. */
	if (rc == 0 && cg_timeline_records_fit(k->tl, k->nmem + 2 * (uint64_t)k->nnest + k->nooms) < 0)
		rc = CG_ELIMIT;
	return rc;
}

int cg_kineto_events_slow(cg_kineto_events *k, const cg_chrome_event *ev, cg_error *err)
{
	uint32_t ordinal = (uint32_t)ev->ordinal;
	if (ev->overlong)
		return bad_event(k, ordinal, err, "event is %" PRIu64 " bytes, longer than the limit of %zu (--max-line-bytes)",
				 ev->overlong_bytes, k->o->max_line_bytes);
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(ev->data, ev->len, &end, 0);
	if (!root) {
		uint64_t at = ev->offset + (end && end >= ev->data ? (uint64_t)(end - ev->data) : 0);
		return bad_event(k, ordinal, err, "not valid JSON (error near byte offset %" PRIu64 ")", at);
	}
	int rc;
	if (!cJSON_IsObject(root)) {
		rc = bad_event(k, ordinal, err, "event is not a JSON object");
	} else {
		fields f;
		cg_kineto_fields_cjson(root, ev->data, ev->len, &k->raw, &k->raw_cap, &f);
		rc = cg_kineto_events_take(k, &f, ordinal, err);
	}
	cJSON_Delete(root);
	return rc;
}

int cg_kineto_events_add(cg_kineto_events *k, const cg_chrome_event *ev, cg_error *err)
{
	fields f;
	if (!ev->overlong && !k->slow_only && cg_kineto_fields_fast(ev->data, ev->len, &f))
		return cg_kineto_events_take(k, &f, (uint32_t)ev->ordinal, err);
	return cg_kineto_events_slow(k, ev, err);
}

void cg_kineto_events_init(cg_kineto_events *k, cg_timeline *tl, const cg_ingest_options *o, const char *name)
{
	memset(k, 0, sizeof *k);
	k->tl = tl;
	k->o = o;
	k->name = name;
	k->threads = cg_strtab_new(0);
}

void cg_kineto_events_free(cg_kineto_events *k)
{
	cg_strtab_free(k->threads);
	cg_free(k->mem);
	cg_free(k->nest);
	cg_free(k->spans);
	cg_free(k->ooms);
	cg_free(k->raw);
	cg_free(k->gpus);
}
