/* libFuzzer target: the restricted unpickler on any bytes (plain or gzip,
 * the reader decides), with an on_item callback that takes every other
 * item, then a walk of the tree that checks each node, then the free.
 *   build-fuzz/tests/fuzz/fuzz_pickle tests/fuzz/corpus_pickle
 * The walk is bounded (a memo bomb expands to billions of nodes). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pickle.h"
#include "reader.h"

#define MAX_VISITS 100000
#define MAX_STACK 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_node(const cg_pk *v)
{
	switch (v->type) {
	case CG_PK_NONE:
	case CG_PK_FLOAT:
		break;
	case CG_PK_BOOL:
		if (v->v.b != true && v->v.b != false)
			abort();
		break;
	case CG_PK_INT:
		if (v->flags & ~CG_PK_INT_UNSIGNED)
			abort();
		if ((v->flags & CG_PK_INT_UNSIGNED) && !(v->v.u >> 63))
			abort(); /* unsigned only for values an int64 cannot hold */
		break;
	case CG_PK_STR:
		if (v->v.s[v->len] != '\0' || (v->flags & ~CG_PK_STR_NOT_UTF8))
			abort();
		break;
	case CG_PK_TUPLE:
	case CG_PK_LIST:
	case CG_PK_DICT:
		if (v->len && !v->v.items)
			abort();
		break;
	default:
		abort();
	}
}

typedef struct taker {
	uint64_t calls;
} taker;

static int take_every_other(void *ctx, const cg_pk *list, const cg_pk *const *below, size_t nbelow,
			    const cg_pk *item, cg_error *err)
{
	(void)err;
	taker *t = ctx;
	if (list->type != CG_PK_LIST || nbelow > 4)
		abort();
	for (size_t i = 0; i < nbelow; i++)
		check_node(below[i]);
	check_node(item);
	uint64_t u;
	cg_pk_uint(cg_pk_dict_get(item, "addr"), &u);
	return (int)(t->calls++ & 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cg_error err = CG_ERROR_INIT;
	cg_reader *r;
	if (cg_reader_open_memory(&r, data, size, "fuzz.pickle", NULL, &err) < 0)
		return 0;
	taker t = {0};
	cg_pickle_options o = CG_PICKLE_OPTIONS_INIT;
	o.on_item = take_every_other;
	o.ctx = &t;
	o.max_depth = 100000; /* keeps each run fast; the default is tested in test_pickle */
	cg_pickle *pk;
	const cg_pk *root;
	int rc = cg_pickle_load(&pk, r, &o, &root, &err);
	cg_reader_close(r);
	if (rc < 0) {
		if (pk || root || !err.msg[0] || strncmp(err.msg, "fuzz.pickle: ", 13) != 0)
			abort();
		return 0;
	}
	static const cg_pk *stack[MAX_STACK];
	size_t sp = 0, visits = 0;
	stack[sp++] = root;
	while (sp && visits++ < MAX_VISITS) {
		const cg_pk *v = stack[--sp];
		check_node(v);
		size_t n = v->type == CG_PK_DICT ? 2 * (size_t)v->len : v->type >= CG_PK_TUPLE ? v->len : 0;
		for (size_t i = 0; i < n && sp < MAX_STACK; i++)
			stack[sp++] = v->v.items[i];
		if (v->type == CG_PK_DICT)
			cg_pk_dict_get(v, "device_traces");
	}
	if (cg_pickle_protocol(pk) < 2 || cg_pickle_protocol(pk) > 5)
		abort();
	cg_pickle_free(pk);
	return 0;
}
