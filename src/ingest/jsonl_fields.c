#include "jsonl_fields.h"

#include <string.h>

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
 * tests/ingest/test_jsonl_fast.c checks every name of field_names is found. */
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
