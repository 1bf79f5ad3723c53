#include "jsonl_cjson.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "jsonl_parser.h"
#include "utf8.h"
#include "xalloc.h"

/* The arena behind cJSON's allocation hooks. */
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

void cg_jsonl_arena_free(cg_jsonl_parser *p)
{
	arena_reset(&p->arena);
	cg_free(p->arena.head);
	p->arena.head = NULL;
}

/* The text of each member or element of the value at text, in cJSON's
 * order, walked with cJSON's idea of whitespace. */
static size_t raw_into(cg_json_span **buf, size_t *cap, const char *text, size_t textlen)
{
	size_t n = cg_json_children(text, text + textlen, CG_JSON_WS_CJSON, NULL, 0);
	cg_grow((void **)buf, cap, n, sizeof **buf);
	return cg_json_children(text, text + textlen, CG_JSON_WS_CJSON, *buf, n);
}

static cg_jval value_of(const cJSON *item, cg_json_span raw)
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
	const cg_json_span *raw = p->elems;
	CG_GROW(f->elems, f->elems_cap, f->nelems + n);
	v->first = (uint32_t)f->nelems;
	size_t k = 0;
	for (const cJSON *e = item->child; e && k < n; e = e->next, k++)
		f->elems[f->nelems + k] = value_of(e, raw[k]);
	v->count = (uint32_t)k;
	f->nelems += k;
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

	/* cJSON skips a UTF-8 byte-order mark at the start of its text; the
	 * walk of the raw text must start where cJSON did. */
	const char *start = line;
	if (len >= 3 && memcmp(line, "\xef\xbb\xbf", 3) == 0)
		start += 3;
	start = cg_json_skip_ws(start, line + len, CG_JSON_WS_CJSON);
	size_t nraw = raw_into(&p->members, &p->members_cap, start, (size_t)(line + len - start));
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(root, "kind");
	f->is_meta = cJSON_IsString(kind) && strcmp(kind->valuestring, "meta") == 0;

	size_t i = 0;
	for (const cJSON *item = root->child; item && i < nraw; item = item->next, i++) {
		cg_json_span raw = p->members[i];
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
