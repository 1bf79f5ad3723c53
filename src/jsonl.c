#include "jsonl.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "jsonl_private.h"
#include "utf8.h"
#include "xalloc.h"

static const char *const field_names[CG_F_COUNT] = {
	[CG_F_KIND] = "kind",
	[CG_F_SCHEMA] = "schema",
	[CG_F_ID] = "id",
	[CG_F_PARENT_ID] = "parent_id",
	[CG_F_NAME] = "name",
	[CG_F_START_NS] = "start_ns",
	[CG_F_SPAN_KIND] = "span_kind",
	[CG_F_MEASURED] = "measured",
	[CG_F_STEP] = "step",
	[CG_F_DURATION_NS] = "duration_ns",
	[CG_F_SPAN_ID] = "span_id",
	[CG_F_OP_NAME] = "op_name",
	[CG_F_INPUTS] = "inputs",
	[CG_F_OUTPUT] = "output",
	[CG_F_SHAPE] = "shape",
	[CG_F_DTYPE] = "dtype",
	[CG_F_DEVICE] = "device",
	[CG_F_TIMESTAMP_NS] = "timestamp_ns",
	[CG_F_STORAGE_BYTES] = "storage_bytes",
	[CG_F_INPUT_STORAGE_BYTES] = "input_storage_bytes",
	[CG_F_TENSOR_ID] = "tensor_id",
	[CG_F_REQUIRES_GRAD] = "requires_grad",
	[CG_F_CATEGORY] = "category",
	[CG_F_BYTES] = "bytes",
	[CG_F_ACTION] = "action",
	[CG_F_USED_BYTES] = "used_bytes",
	[CG_F_FREE_BYTES] = "free_bytes",
	[CG_F_RESERVED_BYTES] = "reserved_bytes",
	[CG_F_EVENT_ID] = "event_id",
	[CG_F_ROOT] = "root",
	[CG_F_KEY] = "key",
	[CG_F_STATE] = "state",
	[CG_F_NORM] = "norm",
	[CG_F_FROM_SPAN] = "from_span",
	[CG_F_TO_SPAN] = "to_span",
};

const char *cg_field_name(cg_field_key k)
{
	return k < CG_F_COUNT ? field_names[k] : "?";
}

/* Keys by length: comparisons of a constant size compile to a load or two,
 * and most member names are settled by one or two of them.
 * tests/test_jsonl_fast.c checks every name of field_names is found. */
_Static_assert(CG_F_COUNT <= 64, "cg_fields.present has a bit per key");

#define KEY(k, name) \
	if (memcmp(s, name, sizeof name - 1) == 0) \
		return k

int cg_field_lookup(const char *s, size_t n)
{
	switch (n) {
	case 2:
		KEY(CG_F_ID, "id");
		return -1;
	case 3:
		KEY(CG_F_KEY, "key");
		return -1;
	case 4:
		KEY(CG_F_KIND, "kind");
		KEY(CG_F_NAME, "name");
		KEY(CG_F_STEP, "step");
		KEY(CG_F_ROOT, "root");
		KEY(CG_F_NORM, "norm");
		return -1;
	case 5:
		KEY(CG_F_SHAPE, "shape");
		KEY(CG_F_DTYPE, "dtype");
		KEY(CG_F_BYTES, "bytes");
		KEY(CG_F_STATE, "state");
		return -1;
	case 6:
		KEY(CG_F_SCHEMA, "schema");
		KEY(CG_F_INPUTS, "inputs");
		KEY(CG_F_OUTPUT, "output");
		KEY(CG_F_DEVICE, "device");
		KEY(CG_F_ACTION, "action");
		return -1;
	case 7:
		KEY(CG_F_SPAN_ID, "span_id");
		KEY(CG_F_OP_NAME, "op_name");
		KEY(CG_F_TO_SPAN, "to_span");
		return -1;
	case 8:
		KEY(CG_F_START_NS, "start_ns");
		KEY(CG_F_MEASURED, "measured");
		KEY(CG_F_CATEGORY, "category");
		KEY(CG_F_EVENT_ID, "event_id");
		return -1;
	case 9:
		KEY(CG_F_PARENT_ID, "parent_id");
		KEY(CG_F_SPAN_KIND, "span_kind");
		KEY(CG_F_TENSOR_ID, "tensor_id");
		KEY(CG_F_FROM_SPAN, "from_span");
		return -1;
	case 10:
		KEY(CG_F_USED_BYTES, "used_bytes");
		KEY(CG_F_FREE_BYTES, "free_bytes");
		return -1;
	case 11:
		KEY(CG_F_DURATION_NS, "duration_ns");
		return -1;
	case 12:
		KEY(CG_F_TIMESTAMP_NS, "timestamp_ns");
		return -1;
	case 13:
		KEY(CG_F_STORAGE_BYTES, "storage_bytes");
		KEY(CG_F_REQUIRES_GRAD, "requires_grad");
		return -1;
	case 14:
		KEY(CG_F_RESERVED_BYTES, "reserved_bytes");
		return -1;
	case 19:
		KEY(CG_F_INPUT_STORAGE_BYTES, "input_storage_bytes");
		return -1;
	default:
		return -1;
	}
}

const char *cg_jtype_name(cg_jtype t)
{
	static const char *const names[] = {"absent", "null", "a boolean", "a number",
					    "a string", "an array", "an object"};
	return t <= CG_JT_OBJECT ? names[t] : "?";
}

/* --- arena behind cJSON's allocation hooks --------------------------------- */

typedef struct cg_arena_chunk chunk;
struct cg_arena_chunk {
	chunk *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

typedef cg_jsonl_arena arena;

static _Thread_local arena *active_arena;

#define CHUNK_SIZE ((size_t)256 << 10)

static void *arena_alloc(arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	chunk *c = a->head;
	if (!c || c->size - c->used < n) {
		size_t size = n > CHUNK_SIZE ? n : CHUNK_SIZE;
		chunk *nc = cg_malloc(sizeof *nc + size);
		nc->size = size;
		nc->used = 0;
		nc->next = c;
		a->head = c = nc;
	}
	void *p = c->data + c->used;
	c->used += n;
	return p;
}

/* Keeps one standard chunk for the next line; big lines' chunks go back. */
static void arena_reset(arena *a)
{
	chunk *keep = NULL;
	for (chunk *c = a->head, *next; c; c = next) {
		next = c->next;
		if (!keep && c->size == CHUNK_SIZE) {
			keep = c;
			keep->used = 0;
			keep->next = NULL;
		} else {
			cg_free(c);
		}
	}
	a->head = keep;
}

static bool arena_owns(const arena *a, const void *p)
{
	for (const chunk *c = a->head; c; c = c->next)
		if ((const unsigned char *)p >= c->data && (const unsigned char *)p < c->data + c->size)
			return true;
	return false;
}

static void *hook_malloc(size_t n)
{
	return active_arena ? arena_alloc(active_arena, n) : cg_malloc(n);
}

static void hook_free(void *p)
{
	if (active_arena && arena_owns(active_arena, p))
		return;
	cg_free(p);
}

void cg_jsonl_init(void)
{
	static cJSON_Hooks hooks = {hook_malloc, hook_free};
	cJSON_InitHooks(&hooks);
}

/* --- raw text of values --------------------------------------------------- */

/* cJSON takes every byte up to 32 for whitespace; so must this walk, or it
 * loses its place in text cJSON accepted (found by tests/fuzz/fuzz_jsonl). */
static bool is_ws(char c)
{
	return (unsigned char)c <= 32;
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && is_ws(*p))
		p++;
	return p;
}

static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end && *p != '"'; p++)
		if (*p == '\\')
			p++;
	return p < end ? p + 1 : end;
}

/* Skips one value of text that cJSON has already accepted as valid JSON. */
static const char *skip_value(const char *p, const char *end)
{
	if (p >= end)
		return end;
	if (*p == '"')
		return skip_string(p, end);
	if (*p == '{' || *p == '[') {
		size_t depth = 0;
		while (p < end) {
			char c = *p;
			if (c == '"') {
				p = skip_string(p, end);
				continue;
			}
			if (c == '{' || c == '[')
				depth++;
			else if ((c == '}' || c == ']') && --depth == 0)
				return p + 1;
			p++;
		}
		return end;
	}
	while (p < end && *p != ',' && *p != '}' && *p != ']' && !is_ws(*p))
		p++;
	return p;
}

typedef cg_raw_span raw_span;

static size_t raw_children(const char *p, const char *end, raw_span *out, size_t max)
{
	size_t k = 0;
	bool object = *p == '{';
	p = skip_ws(p + 1, end);
	while (p < end && *p != '}' && *p != ']') {
		if (object) {
			p = skip_string(p, end);
			p = skip_ws(p, end);
			if (p < end)
				p++; /* ':' */
			p = skip_ws(p, end);
		}
		const char *v = p;
		p = skip_value(p, end);
		if (k < max)
			out[k] = (raw_span){v, (size_t)(p - v)};
		k++;
		p = skip_ws(p, end);
		if (p < end && *p == ',')
			p = skip_ws(p + 1, end);
	}
	return k;
}

/* --- the parser ------------------------------------------------------------ */

static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

cg_jsonl_parser *cg_jsonl_parser_new(void)
{
	pthread_once(&hooks_once, cg_jsonl_init);
	return cg_calloc(1, sizeof(cg_jsonl_parser));
}

void cg_jsonl_parser_free(cg_jsonl_parser *p)
{
	if (!p)
		return;
	arena_reset(&p->arena);
	cg_free(p->arena.head);
	cg_free(p->fields.elems);
	cg_free(p->fields.members);
	cg_free(p->members);
	cg_free(p->elems);
	cg_free(p->scratch);
	cg_free(p);
}

static size_t raw_into(raw_span **buf, size_t *cap, const char *text, size_t textlen)
{
	size_t n = raw_children(text, text + textlen, NULL, 0);
	cg_grow((void **)buf, cap, n, sizeof **buf);
	return raw_children(text, text + textlen, *buf, n);
}

static cg_jval value_of(const cJSON *item, raw_span raw)
{
	cg_jval v = {0};
	if (cJSON_IsNull(item)) {
		v.type = CG_JT_NULL;
	} else if (cJSON_IsBool(item)) {
		v.type = CG_JT_BOOL;
		v.boolean = cJSON_IsTrue(item);
	} else if (cJSON_IsNumber(item)) {
		v.type = CG_JT_NUMBER;
		v.s = raw.p;
		v.n = raw.n;
	} else if (cJSON_IsString(item)) {
		v.type = CG_JT_STRING;
		v.s = item->valuestring;
		v.n = strlen(item->valuestring);
	} else if (cJSON_IsArray(item)) {
		v.type = CG_JT_ARRAY;
		v.s = raw.p;
		v.n = raw.n;
	} else {
		v.type = CG_JT_OBJECT;
		v.s = raw.p;
		v.n = raw.n;
	}
	return v;
}

/* Fills elements of an array field (shape, inputs). */
static void fill_array(cg_jsonl_parser *p, cg_jval *v, const cJSON *item)
{
	cg_fields *f = &p->fields;
	size_t n = raw_into(&p->elems, &p->elems_cap, v->s, v->n);
	const raw_span *raw = p->elems;
	CG_GROW(f->elems, f->elems_cap, f->nelems + n);
	v->first = (uint32_t)f->nelems;
	size_t k = 0;
	for (const cJSON *e = item->child; e && k < n; e = e->next, k++)
		f->elems[f->nelems + k] = value_of(e, raw[k]);
	v->count = (uint32_t)k;
	f->nelems += k;
}

void cg_fields_clear(cg_fields *f)
{
	/* Lines set a dozen of the 35 keys: clear those, not the whole table. */
	for (uint64_t m = f->present; m; m &= m - 1)
		memset(&f->v[__builtin_ctzll(m)], 0, sizeof f->v[0]);
	f->present = 0;
	f->nelems = 0;
	f->nmembers = 0;
	f->is_meta = false;
}

void cg_jsonl_parser_set_cjson_only(cg_jsonl_parser *p, bool cjson_only)
{
	p->cjson_only = cjson_only;
}

void cg_jsonl_parser_counts(const cg_jsonl_parser *p, uint64_t *fast, uint64_t *cjson)
{
	*fast = p->fast_lines;
	*cjson = p->cjson_lines;
}

int cg_jsonl_parse(cg_jsonl_parser *p, const char *line, size_t len, const cg_fields **out,
		   char *msg, size_t msgsize)
{
	if (!p->cjson_only && cg_jsonl_parse_fast(p, line, len, out)) {
		p->fast_lines++;
		return 0;
	}
	p->cjson_lines++;
	return cg_jsonl_parse_cjson(p, line, len, out, msg, msgsize);
}

int cg_jsonl_parse_cjson(cg_jsonl_parser *p, const char *line, size_t len, const cg_fields **out,
			 char *msg, size_t msgsize)
{
	cg_fields *f = &p->fields;
	cg_fields_clear(f);

	size_t bad;
	cg_utf8_status u = cg_utf8_check(line, len, &bad);
	if (u != CG_UTF8_OK) {
		snprintf(msg, msgsize, u == CG_UTF8_NUL ? "NUL byte at column %zu"
						       : "not valid UTF-8 at column %zu (byte 0x%02x)",
			 bad + 1, (unsigned char)line[bad]);
		return -1;
	}

	arena_reset(&p->arena);
	active_arena = &p->arena;
	const char *end = NULL;
	/* len + 1 takes in the NUL, so cJSON also rejects trailing garbage. */
	cJSON *root = cJSON_ParseWithLengthOpts(line, len + 1, &end, 1);
	active_arena = NULL;
	if (!root) {
		/* On failure cJSON points end at the error. */
		size_t col = end && end >= line && end <= line + len ? (size_t)(end - line) + 1 : 1;
		snprintf(msg, msgsize, "not valid JSON (error near column %zu)", col);
		return -1;
	}
	if (!cJSON_IsObject(root)) {
		snprintf(msg, msgsize, "not a JSON object");
		return -1;
	}

	const char *start = skip_ws(line, line + len);
	size_t nraw = raw_into(&p->members, &p->members_cap, start, (size_t)(line + len - start));
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(root, "kind");
	f->is_meta = cJSON_IsString(kind) && strcmp(kind->valuestring, "meta") == 0;

	size_t i = 0;
	for (const cJSON *item = root->child; item && i < nraw; item = item->next, i++) {
		raw_span raw = p->members[i];
		cg_jval v = value_of(item, raw);
		if (f->is_meta) {
			CG_GROW(f->members, f->members_cap, f->nmembers + 1);
			f->members[f->nmembers++] =
				(cg_member){item->string, strlen(item->string), v, raw.p, raw.n};
		}
		int k = cg_field_lookup(item->string, strlen(item->string));
		if (k < 0 || f->v[k].type != CG_JT_ABSENT)
			continue;
		if (v.type == CG_JT_ARRAY)
			fill_array(p, &v, item);
		f->v[k] = v;
		f->present |= (uint64_t)1 << k;
	}
	*out = f;
	return 0;
}
