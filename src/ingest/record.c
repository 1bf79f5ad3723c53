#include "record.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "diag.h"
#include "utf8.h"
#include "xalloc.h"

/* The careful path: the first problem in the order a reader would name it. */
static int parse_u64_checked(const char *s, size_t n, uint64_t *out, const char **why)
{
	if (n == 0) {
		*why = "is empty";
		return -1;
	}
	if (s[0] == '-') {
		*why = "is negative";
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.' || s[i] == 'e' || s[i] == 'E') {
			*why = "is not an integer";
			return -1;
		}
	}
	if ((n > 1 && s[0] == '0') || s[0] < '0' || s[0] > '9') {
		*why = "is not a valid JSON integer";
		return -1;
	}
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9') {
			*why = "is not a valid JSON integer";
			return -1;
		}
		/* Nineteen digits always fit; check only beyond. */
		if (i < 19) {
			v = v * 10 + (uint64_t)(s[i] - '0');
		} else if (!cg_mul_u64(v, 10, &v) || !cg_add_u64(v, (uint64_t)(s[i] - '0'), &v)) {
			*why = "does not fit in 64 bits";
			return -1;
		}
	}
	*out = v;
	return 0;
}

/* Nearly every number in a trace is a plain integer of at most nineteen digits,
 * which cannot overflow: one pass for those, the careful path for the rest. */
int cg_parse_u64(const char *s, size_t n, uint64_t *out, const char **why)
{
	if (n == 0 || n > 19 || (n > 1 && s[0] == '0'))
		return parse_u64_checked(s, n, out, why);
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned char)s[i] - (unsigned)'0';
		if (d > 9)
			return parse_u64_checked(s, n, out, why);
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* add_* functions return 0, BAD (with the reason in msg) or a negative limit error. */
#define BAD CG_RECORD_BAD

/* Building context: the fields, where to report, and the first error. */
typedef struct ctx {
	cg_timeline *tl;
	const cg_fields *f;
	uint32_t line;
	char *msg;
	size_t msgsize;
	bool bad;
	int fatal; /* CG_ELIMIT */
} ctx;

static bool fail(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(ctx *c, const char *fmt, ...)
{
	if (!c->bad) {
		va_list ap;
		va_start(ap, fmt);
		cg_utf8_vformat(c->msg, c->msgsize, fmt, ap);
		va_end(ap);
		c->bad = true;
	}
	return false;
}

static const cg_jval *val(const ctx *c, cg_field_key k)
{
	return &c->f->v[k];
}

/* Optional fields treat null as absent, as serde does for Option<T>. */
static bool present(const ctx *c, cg_field_key k)
{
	uint8_t t = val(c, k)->type;
	return t != CG_JT_ABSENT && t != CG_JT_NULL;
}

static bool require(ctx *c, cg_field_key k)
{
	if (val(c, k)->type == CG_JT_ABSENT)
		return fail(c, "missing required field \"%s\"", cg_field_name(k));
	if (val(c, k)->type == CG_JT_NULL)
		return fail(c, "field \"%s\" is null", cg_field_name(k));
	return true;
}

/* A short quoted excerpt of a value for messages: 40 bytes at most, cut
 * at a character, "…" when cut. */
static const char *excerpt(const cg_jval *v, char *buf, size_t size)
{
	return cg_utf8_excerpt(buf, size, v->s ? v->s : "", v->s ? v->n : 0, 40);
}

static bool get_string(ctx *c, cg_field_key k, const char **s, size_t *n)
{
	const cg_jval *v = val(c, k);
	*s = "";
	*n = 0;
	if (v->type != CG_JT_STRING)
		return fail(c, "field \"%s\" must be a string, not %s", cg_field_name(k),
			    cg_jtype_name(v->type));
	*s = v->s;
	*n = v->n;
	return true;
}

static bool intern(ctx *c, const char *s, size_t n, cg_str *out)
{
	int rc = cg_timeline_intern(c->tl, s, n, out);
	if (rc < 0) {
		c->fatal = rc;
		return false;
	}
	return true;
}

/* The string each field held on the last line read on this thread: span
 * ids, op names and devices repeat from line to line. An entry is used only
 * when its id still names those bytes in this timeline (ids are unique), so
 * a timeline reset or freed since cannot fool it. */
static _Thread_local struct last_string {
	const cg_timeline *tl;
	cg_str id;
} last_string[CG_F_COUNT];

static bool intern_field(ctx *c, cg_field_key k, const char *s, size_t n, cg_str *out)
{
	struct last_string *l = &last_string[k];
	if (l->tl == c->tl && cg_strtab_equals(c->tl->strings, l->id, s, n)) {
		*out = l->id;
		return true;
	}
	if (!intern(c, s, n, out))
		return false;
	l->tl = c->tl;
	l->id = *out;
	return true;
}

static bool req_str(ctx *c, cg_field_key k, cg_str *out)
{
	const char *s;
	size_t n;
	return require(c, k) && get_string(c, k, &s, &n) && intern_field(c, k, s, n, out);
}

/* A memory record's tensor id: packed when its spelling allows, else
 * interned (tensorid.h). */
static bool req_tensor(ctx *c, cg_tensor_id *out)
{
	const char *s;
	size_t n;
	if (!require(c, CG_F_TENSOR_ID) || !get_string(c, CG_F_TENSOR_ID, &s, &n))
		return false;
	if (cg_tensor_id_pack(s, n, out))
		return true;
	cg_str id;
	if (!intern_field(c, CG_F_TENSOR_ID, s, n, &id))
		return false;
	*out = cg_tensor_id_str(id);
	return true;
}

static bool opt_str(ctx *c, cg_field_key k, cg_str *out)
{
	*out = CG_STR_EMPTY;
	if (!present(c, k))
		return true;
	const char *s;
	size_t n;
	return get_string(c, k, &s, &n) && intern_field(c, k, s, n, out);
}

static bool number_u64(ctx *c, const char *name, const cg_jval *v, uint64_t *out)
{
	char buf[64];
	if (v->type != CG_JT_NUMBER)
		return fail(c, "field \"%s\" must be a non-negative integer, not %s", name,
			    cg_jtype_name(v->type));
	const char *why;
	if (cg_parse_u64(v->s, v->n, out, &why) < 0)
		return fail(c, "field \"%s\" must be a non-negative integer: %s %s", name,
			    excerpt(v, buf, sizeof buf), why);
	return true;
}

static bool req_u64(ctx *c, cg_field_key k, uint64_t *out)
{
	return require(c, k) && number_u64(c, cg_field_name(k), val(c, k), out);
}

static bool opt_u64(ctx *c, cg_field_key k, uint64_t *out, bool *has)
{
	*out = 0;
	if (has)
		*has = false;
	if (!present(c, k))
		return true;
	if (has)
		*has = true;
	return number_u64(c, cg_field_name(k), val(c, k), out);
}

static bool opt_bool(ctx *c, cg_field_key k, bool *out)
{
	*out = false;
	if (!present(c, k))
		return true;
	if (val(c, k)->type != CG_JT_BOOL)
		return fail(c, "field \"%s\" must be true or false, not %s", cg_field_name(k),
			    cg_jtype_name(val(c, k)->type));
	*out = val(c, k)->boolean;
	return true;
}

static bool device(ctx *c, uint16_t *out)
{
	const char *s;
	size_t n;
	if (!require(c, CG_F_DEVICE) || !get_string(c, CG_F_DEVICE, &s, &n))
		return false;
	if (n == 0)
		return fail(c, "field \"device\" is empty");
	int rc = cg_timeline_device(c->tl, s, n, out);
	if (rc < 0)
		return fail(c, "more than 65535 distinct devices");
	return true;
}

static bool dtype(ctx *c, uint8_t *out)
{
	const char *s;
	size_t n;
	if (!require(c, CG_F_DTYPE) || !get_string(c, CG_F_DTYPE, &s, &n))
		return false;
	int rc = cg_timeline_dtype(c->tl, s, n, out);
	if (rc < 0) {
		c->fatal = rc;
		return false;
	}
	return true;
}

/* The shape's dims; *elements is their product, overflow-checked. */
static bool shape(ctx *c, uint32_t *out, uint64_t *elements)
{
	*out = 0;
	*elements = 1;
	if (!present(c, CG_F_SHAPE))
		return true;
	const cg_jval *v = val(c, CG_F_SHAPE);
	if (v->type != CG_JT_ARRAY)
		return fail(c, "field \"shape\" must be an array of non-negative integers, not %s",
			    cg_jtype_name(v->type));
	if (v->count > CG_MAX_DIMS)
		return fail(c, "field \"shape\" has %u dimensions; at most %d are supported",
			    v->count, CG_MAX_DIMS);
	uint64_t dims[CG_MAX_DIMS];
	bool overflow = false;
	for (uint32_t i = 0; i < v->count; i++) {
		if (!number_u64(c, "shape", &c->f->elems[v->first + i], &dims[i]))
			return false;
		if (!cg_mul_u64(*elements, dims[i], elements))
			overflow = true;
	}
	if (overflow)
		return fail(c, "field \"shape\" has more than 2^64 - 1 elements");
	int rc = cg_timeline_intern_shape(c->tl, dims, v->count, out);
	if (rc < 0) {
		c->fatal = rc;
		return false;
	}
	return true;
}

/* Bytes of a dense tensor; false (with a message) when it overflows. */
static bool dense_bytes(ctx *c, uint64_t elements, uint8_t dt, uint64_t *out, bool *known)
{
	unsigned size = c->tl->dtypes[dt].size;
	*known = size != 0 && present(c, CG_F_SHAPE);
	*out = 0;
	if (!*known)
		return true;
	if (!cg_mul_u64(elements, size, out))
		return fail(c, "shape times the size of %s overflows 64 bits",
			    cg_timeline_str(c->tl, c->tl->dtypes[dt].name));
	return true;
}

static void warn_unknown(ctx *c, cg_field_key k, const char *fallback)
{
	char buf[64];
	cg_diag_add(c->tl, CG_DIAG_WARNING, c->line, "unknown %s \"%s\" (read as %s)",
		    cg_field_name(k), excerpt(val(c, k), buf, sizeof buf), fallback);
}

static bool category(ctx *c, uint8_t *out)
{
	*out = CG_CAT_UNKNOWN;
	if (!present(c, CG_F_CATEGORY))
		return true;
	const char *s;
	size_t n;
	if (!get_string(c, CG_F_CATEGORY, &s, &n))
		return false;
	cg_category cat;
	if (cg_category_parse(s, n, &cat)) {
		*out = (uint8_t)cat;
	} else {
		c->tl->source.unknown_categories++;
		warn_unknown(c, CG_F_CATEGORY, "unknown");
	}
	return true;
}

static int add_meta(ctx *c)
{
	cg_timeline *tl = c->tl;
	cg_source *src = &tl->source;
	const char *schema;
	size_t n;
	cg_str schema_id;
	if (!req_str(c, CG_F_SCHEMA, &schema_id))
		return BAD;
	if (!src->meta_seen)
		src->schema = schema_id;
	schema = cg_timeline_str(tl, src->schema);
	n = strlen(schema);
	src->meta_count++;
	if (src->meta_seen) {
		cg_diag_add(tl, CG_DIAG_WARNING, c->line,
			    "another meta record (the first is at line %" PRIu64 "); its run metadata is ignored",
			    src->meta_line);
		return CG_RECORD_ADDED;
	}
	src->meta_seen = true;
	src->meta_line = c->line;
	if (n != strlen("candle-graph/trace/6") || memcmp(schema, "candle-graph/trace/6", n) != 0)
		cg_diag_add(tl, CG_DIAG_WARNING, c->line,
			    "schema \"%s\" is not candle-graph/trace/6; reading it anyway", schema);
	for (size_t i = 0; i < c->f->nmembers; i++) {
		const cg_member *m = &c->f->members[i];
		if ((m->key_len == 4 && memcmp(m->key, "kind", 4) == 0) ||
		    (m->key_len == 6 && memcmp(m->key, "schema", 6) == 0))
			continue;
		cg_str k, v;
		bool is_string = m->value.type == CG_JT_STRING;
		if (!intern(c, m->key, m->key_len, &k) ||
		    !intern(c, is_string ? m->value.s : m->raw, is_string ? m->value.n : m->raw_len, &v))
			return c->fatal;
		if (cg_timeline_add_meta(tl, k, v, is_string) < 0)
			return CG_ELIMIT;
	}
	return CG_RECORD_ADDED;
}

static int add_span_start(ctx *c)
{
	cg_span s = {0};
	const char *kind;
	size_t n;
	bool measured;
	s.line = c->line;
	s.step = CG_PHASE_NONE;
	if (!req_str(c, CG_F_ID, &s.id) || !opt_str(c, CG_F_PARENT_ID, &s.parent) ||
	    !req_str(c, CG_F_NAME, &s.name) || !req_u64(c, CG_F_START_NS, &s.start_ns) ||
	    !require(c, CG_F_SPAN_KIND) || !get_string(c, CG_F_SPAN_KIND, &kind, &n) ||
	    !opt_bool(c, CG_F_MEASURED, &measured))
		return BAD;
	cg_span_kind sk;
	if (cg_span_kind_parse(kind, n, &sk)) {
		s.kind = (uint8_t)sk;
	} else {
		s.kind = CG_SPAN_FUNCTION;
		c->tl->source.unknown_values++;
		warn_unknown(c, CG_F_SPAN_KIND, "function");
	}
	if (present(c, CG_F_STEP)) {
		const char *st;
		if (!get_string(c, CG_F_STEP, &st, &n))
			return BAD;
		cg_phase ph;
		if (cg_phase_parse(st, n, &ph)) {
			s.step = (uint8_t)ph;
		} else {
			c->tl->source.unknown_values++;
			warn_unknown(c, CG_F_STEP, "no step");
		}
	}
	if (measured)
		s.flags |= CG_SPAN_MEASURED;
	if (s.id == CG_STR_EMPTY) {
		fail(c, "field \"id\" is empty");
		return BAD;
	}
	return cg_timeline_add_span(c->tl, &s);
}

static int add_span_end(ctx *c)
{
	cg_str id;
	uint64_t dur;
	if (!req_str(c, CG_F_ID, &id) || !opt_u64(c, CG_F_DURATION_NS, &dur, NULL))
		return BAD;
	return cg_timeline_add_span_end(c->tl, id, dur, c->line);
}

static int add_op(ctx *c)
{
	cg_op op = {0};
	uint64_t elements;
	bool has_storage, known;
	op.line = c->line;
	/* cg_op is packed to 4 bytes: its 64-bit fields are read through locals */
	uint64_t duration_ns = 0, t_ns = 0, storage_bytes = 0, input_storage_bytes = 0;
	if (!req_str(c, CG_F_SPAN_ID, &op.span) || !req_str(c, CG_F_OP_NAME, &op.name) ||
	    !opt_str(c, CG_F_OUTPUT, &op.output) || !shape(c, &op.shape, &elements) ||
	    !dtype(c, &op.dtype) || !device(c, &op.device) ||
	    !req_u64(c, CG_F_DURATION_NS, &duration_ns) ||
	    !opt_u64(c, CG_F_TIMESTAMP_NS, &t_ns, NULL) ||
	    !opt_u64(c, CG_F_STORAGE_BYTES, &storage_bytes, &has_storage) ||
	    !opt_u64(c, CG_F_INPUT_STORAGE_BYTES, &input_storage_bytes, NULL))
		return BAD;
	op.duration_ns = duration_ns;
	op.t_ns = t_ns;
	op.storage_bytes = storage_bytes;
	op.input_storage_bytes = input_storage_bytes;
	if (present(c, CG_F_OUTPUT))
		op.flags |= CG_OP_HAS_OUTPUT;
	uint64_t dense;
	if (!dense_bytes(c, elements, op.dtype, &dense, &known))
		return BAD;
	if (!has_storage) {
		op.storage_bytes = dense;
		op.flags |= known ? CG_OP_STORAGE_DERIVED : CG_OP_STORAGE_UNKNOWN;
	}

	cg_str inputs[256];
	size_t ninputs = 0;
	cg_str *many = NULL;
	if (present(c, CG_F_INPUTS)) {
		const cg_jval *v = val(c, CG_F_INPUTS);
		if (v->type != CG_JT_ARRAY) {
			fail(c, "field \"inputs\" must be an array of strings, not %s", cg_jtype_name(v->type));
			return BAD;
		}
		cg_str *dst = inputs;
		if (v->count > sizeof inputs / sizeof inputs[0])
			dst = many = cg_malloc(v->count * sizeof *many);
		for (uint32_t i = 0; i < v->count; i++) {
			const cg_jval *e = &c->f->elems[v->first + i];
			if (e->type != CG_JT_STRING) {
				fail(c, "field \"inputs\" must hold only strings, not %s", cg_jtype_name(e->type));
				cg_free(many);
				return BAD;
			}
			if (!intern(c, e->s, e->n, &dst[i])) {
				cg_free(many);
				return BAD;
			}
		}
		ninputs = v->count;
		int rc = cg_timeline_add_op(c->tl, &op, dst, ninputs);
		cg_free(many);
		return rc;
	}
	return cg_timeline_add_op(c->tl, &op, NULL, 0);
}

static int add_tensor(ctx *c)
{
	cg_tensor t = {0};
	uint64_t elements;
	bool has_storage, requires_grad, known;
	t.line = c->line;
	if (!req_str(c, CG_F_SPAN_ID, &t.span) || !req_str(c, CG_F_TENSOR_ID, &t.tensor) ||
	    !shape(c, &t.shape, &elements) || !dtype(c, &t.dtype) || !device(c, &t.device) ||
	    !opt_bool(c, CG_F_REQUIRES_GRAD, &requires_grad) ||
	    !opt_u64(c, CG_F_STORAGE_BYTES, &t.storage_bytes, &has_storage) || !category(c, &t.category))
		return BAD;
	uint64_t dense;
	if (!dense_bytes(c, elements, t.dtype, &dense, &known))
		return BAD;
	if (!has_storage && known) {
		t.storage_bytes = dense;
		has_storage = true;
	}
	if (requires_grad)
		t.flags |= CG_TENSOR_REQUIRES_GRAD;
	if (has_storage)
		t.flags |= CG_TENSOR_HAS_STORAGE;
	return cg_timeline_add_tensor(c->tl, &t);
}

static int add_memory(ctx *c)
{
	cg_mem_in m = {0};
	uint64_t elements, dense;
	bool known;
	const char *action;
	size_t n;
	m.line = c->line;
	m.pair = CG_NONE;
	if (!req_u64(c, CG_F_TIMESTAMP_NS, &m.t_ns) || !req_tensor(c, &m.tensor) ||
	    !req_str(c, CG_F_SPAN_ID, &m.span) || !opt_str(c, CG_F_OP_NAME, &m.op) ||
	    !device(c, &m.device) || !req_u64(c, CG_F_BYTES, &m.bytes) ||
	    !require(c, CG_F_ACTION) || !get_string(c, CG_F_ACTION, &action, &n) ||
	    !shape(c, &m.shape, &elements) || !dtype(c, &m.dtype) || !category(c, &m.category) ||
	    !dense_bytes(c, elements, m.dtype, &dense, &known))
		return BAD;
	cg_action a;
	if (!cg_action_parse(action, n, &a)) {
		char buf[64];
		fail(c, "field \"action\" is \"%s\"; expected \"alloc\" or \"free\"",
		     excerpt(val(c, CG_F_ACTION), buf, sizeof buf));
		return BAD;
	}
	m.action = (uint8_t)a;
	return cg_timeline_add_mem(c->tl, &m);
}

static int add_device_memory(ctx *c)
{
	cg_devmem d = {0};
	d.line = c->line;
	d.has_used = true;
	if (!req_u64(c, CG_F_TIMESTAMP_NS, &d.t_ns) || !device(c, &d.device) ||
	    !req_u64(c, CG_F_USED_BYTES, &d.used_bytes) || !req_u64(c, CG_F_FREE_BYTES, &d.free_bytes) ||
	    !opt_u64(c, CG_F_RESERVED_BYTES, &d.reserved_bytes, &d.has_reserved))
		return BAD;
	uint64_t capacity;
	if (!cg_add_u64(d.used_bytes, d.free_bytes, &capacity)) {
		fail(c, "used_bytes + free_bytes overflows 64 bits");
		return BAD;
	}
	return cg_timeline_add_devmem(c->tl, &d);
}

static int add_gradient(ctx *c)
{
	cg_gradient g = {0};
	const char *state;
	size_t n;
	g.line = c->line;
	if (!req_str(c, CG_F_EVENT_ID, &g.event_id) || !req_str(c, CG_F_ROOT, &g.root) ||
	    !req_str(c, CG_F_KEY, &g.key) || !require(c, CG_F_STATE) ||
	    !get_string(c, CG_F_STATE, &state, &n))
		return BAD;
	cg_grad_state st;
	if (!cg_grad_state_parse(state, n, &st)) {
		char buf[64];
		fail(c, "field \"state\" is \"%s\"; expected present, missing, zero or non_finite",
		     excerpt(val(c, CG_F_STATE), buf, sizeof buf));
		return BAD;
	}
	g.state = (uint8_t)st;
	if (present(c, CG_F_NORM)) {
		const cg_jval *v = val(c, CG_F_NORM);
		if (v->type != CG_JT_NUMBER) {
			fail(c, "field \"norm\" must be a number, not %s", cg_jtype_name(v->type));
			return BAD;
		}
		char buf[64];
		size_t k = v->n < sizeof buf - 1 ? v->n : sizeof buf - 1;
		memcpy(buf, v->s, k);
		buf[k] = '\0';
		g.norm = strtod(buf, NULL);
		g.has_norm = true;
	}
	return cg_timeline_add_gradient(c->tl, &g);
}

static int add_edge(ctx *c)
{
	cg_edge e = {0};
	e.line = c->line;
	if (!req_str(c, CG_F_FROM_SPAN, &e.from_span) || !req_str(c, CG_F_TO_SPAN, &e.to_span) ||
	    !req_u64(c, CG_F_DURATION_NS, &e.duration_ns))
		return BAD;
	return cg_timeline_add_edge(c->tl, &e);
}

int cg_record_add(cg_timeline *tl, const cg_fields *f, uint32_t line, char *msg, size_t msgsize)
{
	ctx c = {tl, f, line, msg, msgsize, false, 0};
	const char *kind;
	size_t n;
	if (!require(&c, CG_F_KIND) || !get_string(&c, CG_F_KIND, &kind, &n))
		return CG_RECORD_BAD;
	cg_kind k;
	if (!cg_kind_parse(kind, n, &k)) {
		char buf[64];
		snprintf(msg, msgsize, "unknown record kind \"%s\"", excerpt(val(&c, CG_F_KIND), buf, sizeof buf));
		tl->source.unknown_kinds++;
		return CG_RECORD_UNKNOWN_KIND;
	}
	int rc;
	switch (k) {
	case CG_KIND_META: rc = add_meta(&c); break;
	case CG_KIND_SPAN_START: rc = add_span_start(&c); break;
	case CG_KIND_SPAN_END: rc = add_span_end(&c); break;
	case CG_KIND_OP: rc = add_op(&c); break;
	case CG_KIND_TENSOR: rc = add_tensor(&c); break;
	case CG_KIND_MEMORY: rc = add_memory(&c); break;
	case CG_KIND_DEVICE_MEMORY: rc = add_device_memory(&c); break;
	case CG_KIND_GRADIENT: rc = add_gradient(&c); break;
	case CG_KIND_EDGE: rc = add_edge(&c); break;
	default: rc = BAD; break;
	}
	if (c.fatal || rc < 0) {
		if (c.fatal && tl->limit_hit != CG_LIMIT_RECORDS && tl->limit_hit != CG_LIMIT_DEVICES)
			tl->limit_hit = CG_LIMIT_STRINGS;
		if (tl->limit_hit == CG_LIMIT_RECORDS || tl->limit_hit == CG_LIMIT_DEVICES ||
		    tl->limit_hit == CG_LIMIT_STRINGS || tl->limit_hit == CG_LIMIT_SITES)
			cg_timeline_limit_text(tl, msg, msgsize);
		else
			snprintf(msg, msgsize, "more than %u %s records", CG_NONE - 2, cg_kind_name(k));
		return c.fatal ? c.fatal : rc;
	}
	if (c.bad || rc == BAD)
		return CG_RECORD_BAD;
	tl->source.records[k]++;
	return CG_RECORD_ADDED;
}
