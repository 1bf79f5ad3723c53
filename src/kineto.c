#include "kineto.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "chrome_stream.h"
#include "diag.h"
#include "jsontext.h"
#include "progress.h"
#include "spannest.h"
#include "xalloc.h"

/* kmem.flags */
enum { KM_FREE = 1 << 0, KM_ADDR = 1 << 1, KM_TOTAL_ALLOCATED = 1 << 2, KM_TOTAL_RESERVED = 1 << 3 };

/* A [memory] event as read, times still in the trace's nanoseconds. */
typedef struct kmem {
	int64_t ts;
	uint64_t bytes; /* magnitude; KM_FREE tells the sign */
	uint64_t total_allocated, total_reserved;
	cg_str addr;
	uint32_t ordinal;
	uint32_t thread;
	uint16_t device;
	uint8_t flags;
} kmem;

/* What a span carries besides its times (cg_nest_span.payload indexes these). */
typedef struct kspan {
	cg_str name;
	uint8_t kind;
	uint8_t step;
} kspan;

typedef struct koom {
	int64_t ts;
	uint64_t bytes, total_allocated, total_reserved;
	uint32_t ordinal;
	uint16_t device;
	bool has_totals;
} koom;

typedef struct kineto {
	cg_timeline *tl;
	const cg_ingest_options *o;
	const char *name;
	cg_strtab *threads; /* "pid/tid", normalised */
	kmem *mem;
	size_t nmem, mem_cap;
	cg_nest_span *nest;
	size_t nnest, nest_cap;
	kspan *spans;
	size_t nspans, spans_cap;
	koom *ooms;
	size_t nooms, ooms_cap;
	cg_json_span *raw, *raw_args; /* text of an event's members and of its args */
	size_t raw_cap, raw_args_cap;
	bool have_origin;
	int64_t origin; /* the earliest ts, ns */
	char origin_text[48];
	uint64_t zero_bytes, without_addr;
} kineto;

/* --- devices and phases ------------------------------------------------------ */

void cg_kineto_device_name(int64_t type, int64_t id, char *buf, size_t size)
{
	/* c10::DeviceType numbering and c10::DeviceTypeName spellings. */
	static const char *const names[] = {
		"cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "fpga", "maia", "xla",
		"vulkan", "metal", "xpu", "mps", "meta", "hpu", "ve", "lazy", "ipu", "mtia",
		"privateuseone",
	};
	char type_buf[32];
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

static int bad_event(kineto *k, uint64_t ordinal, cg_error *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int bad_event(kineto *k, uint64_t ordinal, cg_error *err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (k->o->strict)
		return cg_error_set(err, CG_EINPUT, "%s: event %" PRIu64 ": %s", k->name, ordinal, msg);
	cg_diag_add(k->tl, CG_DIAG_BAD_LINE, ordinal, "%s", msg);
	return 0;
}

typedef struct fields {
	const cJSON *ph, *name, *cat, *ts, *dur, *pid, *tid, *args;
	cg_json_span ts_raw, dur_raw, pid_raw, tid_raw, args_raw;
} fields;

/* The text of each member, in cJSON's child order (numbers stay exact). */
static size_t raw_members(const char *text, size_t len, cg_json_span **buf, size_t *cap)
{
	size_t n = cg_json_children(text, text + len, *buf, *cap);
	if (n > *cap) {
		CG_GROW(*buf, *cap, n);
		n = cg_json_children(text, text + len, *buf, *cap);
	}
	return n;
}

static void get_fields(kineto *k, const cJSON *root, const char *text, size_t len, fields *f)
{
	memset(f, 0, sizeof *f);
	size_t n = raw_members(text, len, &k->raw, &k->raw_cap);
	size_t i = 0;
	for (const cJSON *c = root->child; c && i < n; c = c->next, i++) {
		const char *key = c->string;
		cg_json_span raw = k->raw[i];
#define TAKE(name, slot) \
	if (!f->slot && strcmp(key, name) == 0) { \
		f->slot = c; \
		continue; \
	}
#define TAKE_RAW(name, slot) \
	if (!f->slot && strcmp(key, name) == 0) { \
		f->slot = c; \
		f->slot##_raw = raw; \
		continue; \
	}
		TAKE("ph", ph)
		TAKE("name", name)
		TAKE("cat", cat)
		TAKE_RAW("ts", ts)
		TAKE_RAW("dur", dur)
		TAKE_RAW("pid", pid)
		TAKE_RAW("tid", tid)
		TAKE_RAW("args", args)
#undef TAKE
#undef TAKE_RAW
	}
}

/* The literal of a number, or the text of a string holding one. */
static bool num_text(const cJSON *item, cg_json_span raw, const char **s, size_t *n)
{
	if (cJSON_IsNumber(item)) {
		*s = raw.p;
		*n = raw.n;
		return true;
	}
	if (cJSON_IsString(item)) {
		*s = item->valuestring;
		*n = strlen(item->valuestring);
		return true;
	}
	return false;
}

/* Microseconds with up to three decimals (or more, rounded) -> ns. */
static bool time_ns(const cJSON *item, cg_json_span raw, int64_t *out)
{
	const char *s;
	size_t n;
	return item && num_text(item, raw, &s, &n) && cg_json_decimal(s, n, 3, out, NULL) == 0;
}

static bool int_value(const cJSON *item, cg_json_span raw, int64_t *out)
{
	const char *s;
	size_t n;
	return item && num_text(item, raw, &s, &n) && cg_json_int(s, n, out) == 0;
}

/* "pid/tid" with integers and digit strings written the same way: memory
 * events carry tid 25738 where the operators around them carry "25738". */
static int thread_of(kineto *k, const fields *f, uint32_t *out)
{
	char key[512];
	size_t len = 0;
	const cJSON *items[2] = {f->pid, f->tid};
	cg_json_span raws[2] = {f->pid_raw, f->tid_raw};
	for (int i = 0; i < 2; i++) {
		int64_t v;
		const char *s = "";
		size_t n = 0;
		char num[32];
		if (int_value(items[i], raws[i], &v)) {
			n = (size_t)snprintf(num, sizeof num, "%" PRId64, v);
			s = num;
		} else if (items[i]) {
			num_text(items[i], raws[i], &s, &n);
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

static const cJSON *arg(kineto *k, const fields *f, const char *name, cg_json_span *raw)
{
	size_t n = raw_members(f->args_raw.p, f->args_raw.n, &k->raw_args, &k->raw_args_cap);
	size_t i = 0;
	for (const cJSON *c = f->args->child; c && i < n; c = c->next, i++) {
		if (strcmp(c->string, name) == 0) {
			*raw = k->raw_args[i];
			return c;
		}
	}
	return NULL;
}

static bool arg_int(kineto *k, const fields *f, const char *name, int64_t *out, bool *present)
{
	cg_json_span raw;
	const cJSON *c = arg(k, f, name, &raw);
	*present = c != NULL;
	return c && int_value(c, raw, out);
}

/* "Device Type" and "Device Id" into a timeline device. */
static int device_of(kineto *k, const fields *f, uint16_t *out, const char **why)
{
	int64_t type, id = -1;
	bool present;
	if (!arg_int(k, f, "Device Type", &type, &present)) {
		*why = present ? "\"Device Type\" is not an integer" : "no \"Device Type\"";
		return 1;
	}
	if (!arg_int(k, f, "Device Id", &id, &present) && present) {
		*why = "\"Device Id\" is not an integer";
		return 1;
	}
	char name[64];
	cg_kineto_device_name(type, id, name, sizeof name);
	return cg_timeline_device(k->tl, name, strlen(name), out);
}

/* Optional allocator totals: present and valid, absent, or bad (-1). */
static int total(kineto *k, const fields *f, const char *name, uint64_t *out)
{
	int64_t v;
	bool present;
	if (arg_int(k, f, name, &v, &present) && v >= 0) {
		*out = (uint64_t)v;
		return 1;
	}
	return present ? -1 : 0;
}

static int memory_event(kineto *k, const fields *f, uint32_t ordinal, cg_error *err)
{
	kmem m = {0};
	m.ordinal = ordinal;
	if (!time_ns(f->ts, f->ts_raw, &m.ts))
		return bad_event(k, ordinal, err, "[memory] event without a valid \"ts\"");
	if (!cJSON_IsObject(f->args))
		return bad_event(k, ordinal, err, "[memory] event without \"args\"");
	int64_t bytes;
	bool present;
	if (!arg_int(k, f, "Bytes", &bytes, &present))
		return bad_event(k, ordinal, err, "[memory] event %s",
				 present ? "whose \"Bytes\" is not an integer" : "without \"Bytes\"");
	const char *why;
	int rc = device_of(k, f, &m.device, &why);
	if (rc < 0)
		return rc;
	if (rc > 0)
		return bad_event(k, ordinal, err, "[memory] event: %s", why);
	int ta = total(k, f, "Total Allocated", &m.total_allocated);
	int tr = total(k, f, "Total Reserved", &m.total_reserved);
	if (ta < 0 || tr < 0)
		return bad_event(k, ordinal, err, "[memory] event: \"%s\" is not a non-negative integer",
				 ta < 0 ? "Total Allocated" : "Total Reserved");
	if (ta > 0)
		m.flags |= KM_TOTAL_ALLOCATED;
	if (tr > 0)
		m.flags |= KM_TOTAL_RESERVED;
	cg_json_span raw;
	const cJSON *addr = arg(k, f, "Addr", &raw);
	if (addr) {
		const char *s;
		size_t n;
		if (!num_text(addr, raw, &s, &n))
			return bad_event(k, ordinal, err, "[memory] event: \"Addr\" is neither a number nor a string");
		if ((rc = cg_timeline_intern(k->tl, s, n, &m.addr)) < 0)
			return rc;
		m.flags |= KM_ADDR;
	}
	if (bytes == 0) {
		k->zero_bytes++;
		return 0;
	}
	if (bytes < 0) {
		m.flags |= KM_FREE;
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

static int oom_event(kineto *k, const fields *f, uint32_t ordinal, cg_error *err)
{
	koom o = {0};
	o.ordinal = ordinal;
	if (!time_ns(f->ts, f->ts_raw, &o.ts))
		return bad_event(k, ordinal, err, "[OutOfMemory] event without a valid \"ts\"");
	int64_t bytes = 0;
	bool present = false;
	const char *why = NULL;
	int rc = 1;
	if (cJSON_IsObject(f->args)) {
		arg_int(k, f, "Bytes", &bytes, &present);
		rc = device_of(k, f, &o.device, &why);
		if (rc < 0)
			return rc;
		int ta = total(k, f, "Total Allocated", &o.total_allocated);
		int tr = total(k, f, "Total Reserved", &o.total_reserved);
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

static int span_event(kineto *k, const fields *f, uint32_t ordinal, cg_error *err)
{
	const char *cat = cJSON_IsString(f->cat) ? f->cat->valuestring : "";
	if (!span_category(cat, strlen(cat)))
		return 0;
	int64_t start, dur = 0;
	if (!time_ns(f->ts, f->ts_raw, &start))
		return bad_event(k, ordinal, err, "complete event without a valid \"ts\"");
	if (f->dur && !time_ns(f->dur, f->dur_raw, &dur))
		return bad_event(k, ordinal, err, "complete event whose \"dur\" is not a number");
	if (dur < 0)
		dur = 0;
	int64_t end;
	if (__builtin_add_overflow(start, dur, &end))
		return bad_event(k, ordinal, err, "complete event ends beyond the representable time");

	kspan sp = {CG_STR_EMPTY, CG_SPAN_FUNCTION, CG_PHASE_NONE};
	const char *name = cJSON_IsString(f->name) ? f->name->valuestring : "(unnamed)";
	size_t n = strlen(name);
	int rc = cg_timeline_intern(k->tl, name, n, &sp.name);
	if (rc < 0)
		return rc;
	if (ieq(cat, strlen(cat), "cpu_op") || ieq(cat, strlen(cat), "operator"))
		sp.kind = CG_SPAN_OP;
	else if (starts_with(name, n, "nn.Module: "))
		sp.kind = CG_SPAN_MODULE;
	sp.step = (uint8_t)cg_kineto_phase(name, n);

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
static void see_time(kineto *k, const fields *f)
{
	int64_t t;
	const char *s = "";
	size_t n = 0;
	if (!time_ns(f->ts, f->ts_raw, &t) || (k->have_origin && t >= k->origin))
		return;
	k->origin = t;
	k->have_origin = true;
	num_text(f->ts, f->ts_raw, &s, &n);
	snprintf(k->origin_text, sizeof k->origin_text, "%.*s us", (int)(n < 40 ? n : 40), s);
}

static int one_event(kineto *k, const cg_chrome_event *ev, cg_error *err)
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
	int rc = 0;
	if (!cJSON_IsObject(root)) {
		rc = bad_event(k, ordinal, err, "event is not a JSON object");
		goto done;
	}
	fields f;
	get_fields(k, root, ev->data, ev->len, &f);
	const char *ph = cJSON_IsString(f.ph) ? f.ph->valuestring : "";
	const char *name = cJSON_IsString(f.name) ? f.name->valuestring : "";
	bool memory = strcmp(name, "[memory]") == 0, oom = strcmp(name, "[OutOfMemory]") == 0;
	if (strcmp(ph, "M") != 0 || memory || oom)
		see_time(k, &f);
	if (memory)
		rc = memory_event(k, &f, ordinal, err);
	else if (oom)
		rc = oom_event(k, &f, ordinal, err);
	else if (strcmp(ph, "X") == 0)
		rc = span_event(k, &f, ordinal, err);
done:
	cJSON_Delete(root);
	return rc;
}

/* --- building the timeline --------------------------------------------------- */

/* b - a for a <= b, which always fits in 64 unsigned bits (not always in signed). */
static uint64_t since(int64_t b, int64_t a)
{
	return (uint64_t)b - (uint64_t)a;
}

/* The innermost operator at or above span s (sorted index), for cg_mem.op. */
static cg_str op_name(const kineto *k, uint32_t s)
{
	for (; s != UINT32_MAX; s = k->nest[s].parent) {
		const kspan *sp = &k->spans[k->nest[s].payload];
		if (sp->kind == CG_SPAN_OP)
			return sp->name;
	}
	return CG_STR_EMPTY;
}

static int add_spans(kineto *k, const cg_str *ids)
{
	for (size_t i = 0; i < k->nnest; i++) {
		const cg_nest_span *ns = &k->nest[i];
		const kspan *sp = &k->spans[ns->payload];
		cg_span s = {0};
		s.start_ns = since(ns->start, k->origin);
		s.id = ids[i];
		s.name = sp->name;
		s.parent = ns->parent == UINT32_MAX ? CG_STR_EMPTY : ids[ns->parent];
		s.line = ns->order;
		s.kind = sp->kind;
		s.step = sp->step;
		s.flags = CG_SPAN_MEASURED;
		int rc = cg_timeline_add_span(k->tl, &s);
		if (rc == 0)
			rc = cg_timeline_add_span_end(k->tl, s.id, since(ns->end, ns->start), s.line);
		if (rc < 0)
			return rc;
	}
	k->tl->source.records[CG_KIND_SPAN_START] = k->nnest;
	return 0;
}

static int add_memory(kineto *k, const cg_str *span_of, const cg_str *op_of)
{
	cg_timeline *tl = k->tl;
	for (size_t i = 0; i < k->nmem; i++) {
		const kmem *km = &k->mem[i];
		cg_mem m = {0};
		m.t_ns = since(km->ts, k->origin);
		m.bytes = km->bytes;
		m.tensor = km->addr;
		m.span = span_of[i];
		m.op = op_of[i];
		m.pair = CG_NONE;
		m.line = km->ordinal;
		m.device = km->device;
		m.action = (uint8_t)(km->flags & KM_FREE ? CG_FREE : CG_ALLOC);
		m.category = CG_CAT_UNKNOWN;
		int rc = cg_timeline_add_mem(tl, &m);
		if (rc < 0)
			return rc;
		if (km->flags & KM_TOTAL_RESERVED) {
			cg_devmem d = {0};
			d.t_ns = m.t_ns;
			d.reserved_bytes = km->total_reserved;
			d.has_reserved = true;
			d.line = km->ordinal;
			d.device = km->device;
			if ((rc = cg_timeline_add_devmem(tl, &d)) < 0)
				return rc;
			tl->source.records[CG_KIND_DEVICE_MEMORY]++;
		}
	}
	tl->source.records[CG_KIND_MEMORY] = k->nmem;
	for (size_t i = 0; i < k->nooms; i++) {
		const koom *ko = &k->ooms[i];
		cg_oom o = {since(ko->ts, k->origin), ko->bytes, ko->total_allocated,
			    ko->total_reserved, ko->ordinal, ko->device, ko->has_totals};
		int rc = cg_timeline_add_oom(tl, &o);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Spans nested per thread; each memory event takes the innermost span
 * around it on its own thread. */
static int build(kineto *k)
{
	cg_nest_point *pts = cg_malloc((k->nmem ? k->nmem : 1) * sizeof *pts);
	for (size_t i = 0; i < k->nmem; i++)
		pts[i] = (cg_nest_point){k->mem[i].ts, k->mem[i].thread, k->mem[i].ordinal, (uint32_t)i, 0};
	uint64_t clipped = cg_nest_build(k->nest, k->nnest, pts, k->nmem);
	if (clipped)
		cg_diag_add(k->tl, CG_DIAG_WARNING, 0,
			    "%" PRIu64 " complete events ended after the event around them on their thread "
			    "and were cut back to its end", clipped);

	int rc = 0;
	cg_str *ids = cg_malloc((k->nnest ? k->nnest : 1) * sizeof *ids);
	cg_str *span_of = cg_calloc(k->nmem ? k->nmem : 1, sizeof *span_of);
	cg_str *op_of = cg_calloc(k->nmem ? k->nmem : 1, sizeof *op_of);
	for (size_t i = 0; i < k->nnest && rc == 0; i++) {
		char id[24];
		int n = snprintf(id, sizeof id, "#%" PRIu32, k->nest[i].order);
		rc = cg_timeline_intern(k->tl, id, (size_t)n, &ids[i]);
	}
	for (size_t j = 0; j < k->nmem && rc == 0; j++) {
		if (pts[j].span == UINT32_MAX)
			continue;
		span_of[pts[j].payload] = ids[pts[j].span];
		op_of[pts[j].payload] = op_name(k, pts[j].span);
	}
	if (rc == 0)
		rc = add_spans(k, ids);
	if (rc == 0)
		rc = add_memory(k, span_of, op_of);
	cg_free(pts);
	cg_free(ids);
	cg_free(span_of);
	cg_free(op_of);
	return rc;
}

static const kmem *event_at(const kineto *k, uint32_t ordinal)
{
	size_t lo = 0, hi = k->nmem;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->mem[mid].ordinal < ordinal)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k->nmem && k->mem[lo].ordinal == ordinal ? &k->mem[lo] : NULL;
}

/* Baseline = Total Allocated after the first event that has it, minus what
 * the replay holds live there (frees of blocks from before the trace
 * included, as pairing counts them). Then every later Total Allocated
 * should equal baseline + replayed live bytes: say where it does not. */
static int set_baseline(kineto *k, uint16_t d, cg_error *err)
{
	cg_timeline *tl = k->tl;
	const cg_device *dev = &tl->devices[d];
	const char *dname = cg_timeline_str(tl, dev->name);
	uint64_t plus = dev->preexisting_bytes, minus = 0, baseline = 0;
	bool found = false;
	for (uint32_t j = 0; j < dev->mem_count && !found; j++) {
		uint32_t i = dev->mem_first + j;
		if (!cg_add_u64(plus, cg_mem_added(&tl->mem[i]), &plus) ||
		    !cg_add_u64(minus, cg_timeline_mem_removed(tl, i), &minus))
			return 0; /* sums beyond 64 bits: finalize has said so */
		const kmem *km = event_at(k, tl->mem[i].line);
		if (!km || !(km->flags & KM_TOTAL_ALLOCATED))
			continue;
		found = true;
		uint64_t have;
		if (!cg_add_u64(km->total_allocated, minus, &have) || have < plus) {
			cg_diag_add(tl, CG_DIAG_WARNING, km->ordinal,
				    "%s: \"Total Allocated\" (%" PRIu64 " B) is less than the bytes this trace "
				    "shows live there; no baseline assumed", dname, km->total_allocated);
			return 0;
		}
		baseline = have - plus;
	}
	if (!found)
		return 0;
	if (baseline < dev->baseline_bytes) {
		cg_diag_add(tl, CG_DIAG_WARNING, 0,
			    "%s: \"Total Allocated\" implies %" PRIu64 " B allocated before profiling, "
			    "less than the %" PRIu64 " B the frees need; keeping the latter",
			    dname, baseline, dev->baseline_bytes);
		return 0;
	}
	return cg_timeline_set_baseline(tl, d, baseline, err);
}

static void check_totals(kineto *k, uint16_t d)
{
	cg_timeline *tl = k->tl;
	const cg_device *dev = &tl->devices[d];
	uint64_t live = dev->baseline_bytes + dev->preexisting_bytes; /* checked by finalize */
	uint64_t checked = 0, differ = 0;
	uint32_t first = 0;
	uint64_t first_trace = 0, first_replay = 0;
	for (uint32_t j = 0; j < dev->mem_count; j++) {
		uint32_t i = dev->mem_first + j;
		live += cg_mem_added(&tl->mem[i]);
		live -= cg_timeline_mem_removed(tl, i);
		const kmem *km = event_at(k, tl->mem[i].line);
		if (!km || !(km->flags & KM_TOTAL_ALLOCATED))
			continue;
		checked++;
		if (km->total_allocated != live && differ++ == 0) {
			first = km->ordinal;
			first_trace = km->total_allocated;
			first_replay = live;
		}
	}
	if (differ)
		cg_diag_add(tl, CG_DIAG_WARNING, first,
			    "%s: \"Total Allocated\" differs from cgmem's replay at %" PRIu64 " of %" PRIu64
			    " events (first here: the trace says %" PRIu64 " B, the replay %" PRIu64 " B)",
			    cg_timeline_str(tl, dev->name), differ, checked, first_trace, first_replay);
}

/* --- the document ------------------------------------------------------------ */

static int add_meta(cg_timeline *tl, const char *key, const char *value, size_t n, bool is_string)
{
	cg_str k, v;
	int rc = cg_timeline_intern(tl, key, strlen(key), &k);
	if (rc == 0)
		rc = cg_timeline_intern(tl, value, n, &v);
	if (rc == 0)
		rc = cg_timeline_add_meta(tl, k, v, is_string);
	return rc;
}

/* Small top-level keys become run metadata: scalars as written, and the
 * GPU names from deviceProperties. */
static int keep_keys(kineto *k, const cg_chrome_stream *s, int64_t *base_ns, bool *has_base)
{
	*has_base = false;
	for (size_t i = 0; i < cg_chrome_stream_nkeys(s); i++) {
		const cg_chrome_key *key = cg_chrome_stream_key(s, i);
		if (!key->value)
			continue;
		cJSON *j = cJSON_ParseWithLength(key->value, key->value_len);
		int rc = 0;
		if (cJSON_IsString(j)) {
			rc = add_meta(k->tl, key->name, j->valuestring, strlen(j->valuestring), true);
		} else if (cJSON_IsNumber(j) || cJSON_IsBool(j) || cJSON_IsNull(j)) {
			rc = add_meta(k->tl, key->name, key->value, key->value_len, false);
			if (strcmp(key->name, "baseTimeNanoseconds") == 0 &&
			    cg_json_int(key->value, key->value_len, base_ns) == 0)
				*has_base = true;
		} else if (cJSON_IsArray(j) && strcmp(key->name, "deviceProperties") == 0) {
			cJSON *names = cJSON_CreateArray();
			const cJSON *dp;
			cJSON_ArrayForEach(dp, j) {
				const cJSON *nm = cJSON_GetObjectItemCaseSensitive(dp, "name");
				if (cJSON_IsString(nm))
					cJSON_AddItemToArray(names, cJSON_CreateString(nm->valuestring));
			}
			char *text = cJSON_PrintUnformatted(names);
			if (text)
				rc = add_meta(k->tl, "device_names", text, strlen(text), false);
			cJSON_free(text);
			cJSON_Delete(names);
		}
		cJSON_Delete(j);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static void describe(kineto *k, const cg_chrome_stream *s, cg_reader *r, const char *path,
		     int64_t base_ns, bool has_base)
{
	cg_source *src = &k->tl->source;
	src->path = cg_strdup(path);
	src->display_name = cg_strdup(k->name);
	src->format = cg_strdup(cg_chrome_stream_shape(s) == CG_CHROME_ARRAY
					? "Chrome trace, JSON array (PyTorch profiler)"
					: "Chrome trace (PyTorch profiler)");
	src->gzip = cg_reader_is_gzip(r);
	src->file_bytes = cg_reader_bytes_in(r);
	src->data_bytes = cg_reader_bytes_out(r);
	src->lines = cg_chrome_stream_nevents(s);
	src->lines_are_events = true;
	src->categories_known = false;
	src->pairing_known = k->without_addr == 0;
	if (k->have_origin) {
		src->time_origin = cg_strdup(k->origin_text);
		/* Kineto writes epoch microseconds, or microseconds after
		 * baseTimeNanoseconds; 10^18 ns is September 2001. */
		int64_t abs;
		if (has_base && !__builtin_add_overflow(base_ns, k->origin, &abs)) {
			src->time_origin_known = true;
			src->time_origin_unix_ns = abs;
		} else if (!has_base && k->origin >= INT64_C(1000000000000000000)) {
			src->time_origin_known = true;
			src->time_origin_unix_ns = k->origin;
		}
	}
}

static void note_truncation(kineto *k, const cg_chrome_stream *s, cg_reader *r)
{
	char note[256];
	bool gz = cg_reader_gzip_truncated(r);
	if (!cg_chrome_stream_cut_note(s, gz, note, sizeof note))
		return;
	cg_source *src = &k->tl->source;
	src->truncated = true;
	src->truncated_line = cg_chrome_stream_nevents(s) + 1;
	src->truncation_note = cg_strdup(note);
	if (gz)
		cg_diag_add(k->tl, CG_DIAG_WARNING, 0, "gzip stream ends before its end marker (file cut short)");
}

static int finish(kineto *k, cg_chrome_stream *s, cg_reader *r, const char *path, cg_error *err)
{
	cg_timeline *tl = k->tl;
	int64_t base_ns = 0;
	bool has_base;
	int rc = keep_keys(k, s, &base_ns, &has_base);
	if (rc < 0)
		return cg_error_set(err, rc, "%s: the trace's strings exceed the memory limit", k->name);
	describe(k, s, r, path, base_ns, has_base);
	note_truncation(k, s, r);
	if (cg_chrome_stream_trailing_bytes(s))
		cg_diag_add(tl, CG_DIAG_WARNING, 0, "bytes after the end of the JSON document were ignored");

	if (cg_chrome_stream_shape(s) == CG_CHROME_EMPTY)
		return cg_error_set(err, CG_EINPUT, "%s: the trace is empty", k->name);
	if (!cg_chrome_stream_has_events(s) && !tl->source.truncated)
		return cg_error_set(err, CG_EINPUT, "%s: a JSON object without \"traceEvents\": not a Chrome trace", k->name);
	if (k->nmem == 0 && k->nooms == 0)
		return cg_error_set(err, CG_EINPUT,
				    "%s: no [memory] events among %" PRIu64 " events%s: record the trace with "
				    "torch.profiler.profile(profile_memory=True)", k->name,
				    cg_chrome_stream_nevents(s), tl->source.truncated ? " (the trace is cut short)" : "");
	if (k->zero_bytes)
		cg_diag_add(tl, CG_DIAG_WARNING, 0, "%" PRIu64 " [memory] events of 0 bytes were skipped", k->zero_bytes);
	if (k->without_addr)
		cg_diag_add(tl, CG_DIAG_WARNING, 0,
			    "%" PRIu64 " of %zu [memory] events have no \"Addr\" (PyTorch before ~1.10): frees cannot be "
			    "paired with allocations; live bytes are the running sum of \"Bytes\"",
			    k->without_addr, k->nmem);

	rc = build(k);
	if (rc < 0)
		return cg_error_set(err, rc, "%s: more records or strings than cgmem's limits allow", k->name);
	rc = cg_timeline_finalize(tl, err);
	for (uint16_t d = 0; d < tl->ndevices && rc == 0; d++) {
		rc = set_baseline(k, d, err);
		if (rc == 0)
			check_totals(k, d);
	}
	return rc;
}

int cg_kineto_ingest(cg_timeline **out, cg_reader *r, const char *path, const cg_ingest_options *o,
		     cg_error *err)
{
	cg_ingest_options defaults = CG_INGEST_OPTIONS_INIT;
	if (!o)
		o = &defaults;
	*out = NULL;
	cg_timeline_limits lim = {o->max_string_bytes};
	kineto k = {0};
	k.tl = cg_timeline_new(&lim);
	k.o = o;
	k.name = cg_reader_name(r);
	k.threads = cg_strtab_new(0);

	cg_chrome_options co = CG_CHROME_OPTIONS_INIT;
	co.max_event_bytes = o->max_line_bytes;
	cg_chrome_stream *s = cg_chrome_stream_new(r, &co);
	cg_progress progress;
	cg_progress_start(&progress, o->progress, k.name, cg_reader_file_size(r));

	cg_chrome_event ev;
	int rc;
	while ((rc = cg_chrome_stream_next(s, &ev, err)) > 0) {
		if (ev.ordinal >= UINT32_MAX) {
			rc = cg_error_set(err, CG_ELIMIT, "%s: more than %u events", k.name, UINT32_MAX - 1);
			break;
		}
		rc = one_event(&k, &ev, err);
		if (rc == CG_ELIMIT) /* interning and record arrays say nothing themselves */
			cg_error_set(err, rc, "%s: event %" PRIu64 ": the trace's strings exceed the memory "
				     "limit (--max-string-memory)", k.name, ev.ordinal);
		if (rc < 0)
			break;
		if ((ev.ordinal & 4095) == 0)
			cg_progress_update(&progress, cg_reader_bytes_in(r));
	}
	cg_progress_finish(&progress);
	if (rc == 0)
		rc = finish(&k, s, r, path, err);

	cg_chrome_stream_free(s);
	cg_strtab_free(k.threads);
	cg_free(k.mem);
	cg_free(k.nest);
	cg_free(k.spans);
	cg_free(k.ooms);
	cg_free(k.raw);
	cg_free(k.raw_args);
	if (rc < 0) {
		cg_timeline_free(k.tl);
		return rc;
	}
	*out = k.tl;
	return 0;
}
