/* The table of fields a JSONL line is read into (jsonl_fields.c): every
 * key of docs/trace-format.md is found by its name and nothing else is,
 * clearing a table, and the names of value types in messages. */
#include "testutil.h"

#include <string.h>

#include "jsonl.h"

/* Every field docs/trace-format.md names, record by record: meta, span_start,
 * span_end, op, tensor, memory, device_memory, gradient, edge. */
static const char *const documented[] = {
	"kind", "schema",
	"id", "name", "start_ns", "span_kind", "parent_id", "measured", "step",
	"duration_ns",
	"span_id", "op_name", "dtype", "device", "inputs", "output", "shape", "timestamp_ns", "storage_bytes",
	"input_storage_bytes",
	"tensor_id", "requires_grad", "category",
	"bytes", "action",
	"used_bytes", "free_bytes", "reserved_bytes",
	"event_id", "root", "key", "state", "norm",
	"from_span", "to_span",
};
#define NDOC (sizeof documented / sizeof documented[0])

static int lookup(const char *s)
{
	return cg_field_lookup(s, strlen(s));
}

static void every_documented_field_is_found_under_its_own_name(void **state)
{
	assert_int_equal(NDOC, CG_F_COUNT);
	bool seen[CG_F_COUNT] = {false};
	for (size_t i = 0; i < NDOC; i++) {
		int k = lookup(documented[i]);
		if (k < 0)
			fail_msg("\"%s\" is not found", documented[i]);
		assert_false(seen[k]); /* one key per name */
		seen[k] = true;
		assert_string_equal(cg_field_name((cg_field_key)k), documented[i]);
	}
	/* And the other way round: every key's name finds that key. */
	for (int k = 0; k < CG_F_COUNT; k++)
		assert_int_equal(lookup(cg_field_name((cg_field_key)k)), k);
	assert_string_equal(cg_field_name(CG_F_COUNT), "?");
}

static void every_field_name_is_found_and_nothing_else(void **state)
{
	for (int k = 0; k < CG_F_COUNT; k++) {
		const char *name = cg_field_name((cg_field_key)k);
		assert_int_equal(cg_field_lookup(name, strlen(name)), k);
		char near[32];
		snprintf(near, sizeof near, "%sx", name);
		assert_int_equal(cg_field_lookup(near, strlen(near)), -1);
		snprintf(near, sizeof near, "%s", name);
		near[0] = 'Z';
		assert_int_equal(cg_field_lookup(near, strlen(near)), -1);
	}
	assert_int_equal(cg_field_lookup("x", 1), -1);
	assert_int_equal(cg_field_lookup("abcdefghijklmnopqrstuvwxyz", 26), -1);
}

static bool is_documented(const char *s, size_t n)
{
	for (size_t i = 0; i < NDOC; i++)
		if (strlen(documented[i]) == n && memcmp(documented[i], s, n) == 0)
			return true;
	return false;
}

static void near_misses_prefixes_and_other_lengths_are_not_fields(void **state)
{
	for (size_t i = 0; i < NDOC; i++) {
		const char *name = documented[i];
		size_t n = strlen(name);
		char buf[40];
		/* Every byte changed to each of a few others, one at a time. */
		static const char subst[] = "a_zAZ0 \"\xff";
		for (size_t at = 0; at < n; at++) {
			for (size_t c = 0; c < sizeof subst - 1; c++) {
				memcpy(buf, name, n);
				if (buf[at] == subst[c])
					continue;
				buf[at] = subst[c];
				if (!is_documented(buf, n) && cg_field_lookup(buf, n) != -1)
					fail_msg("\"%.*s\" is taken for a field", (int)n, buf);
			}
		}
		/* Every proper prefix, and the name with a byte before or after. */
		for (size_t len = 0; len < n; len++)
			if (!is_documented(name, len))
				assert_int_equal(cg_field_lookup(name, len), -1);
		snprintf(buf, sizeof buf, "_%s", name);
		assert_int_equal(cg_field_lookup(buf, n + 1), -1);
		snprintf(buf, sizeof buf, "%s_", name);
		assert_int_equal(cg_field_lookup(buf, n + 1), -1);
		/* The case matters. */
		memcpy(buf, name, n);
		buf[0] = (char)(buf[0] - 'a' + 'A');
		assert_int_equal(cg_field_lookup(buf, n), -1);
	}
	/* Keys real traces carry that cgmem does not read. */
	static const char *const others[] = {"run_id", "pad", "extra", "input_shapes", "ph", "ts", "dur",
					     "timestamp", "tensor", "span", "parent", "duration", "reserved",
					     "used", "free", "kinds", "names", "Bytes", "device_id", ""};
	for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
		assert_int_equal(lookup(others[i]), -1);
	/* Only n bytes are read: the name needs no NUL after it. */
	assert_int_equal(cg_field_lookup("bytesXYZ", 5), CG_F_BYTES);
	assert_int_equal(cg_field_lookup("bytesXYZ", 4), -1);
	/* Every length up to 64 of one repeated letter. */
	char run[65];
	memset(run, 'e', sizeof run);
	for (size_t n = 0; n <= 64; n++)
		assert_int_equal(cg_field_lookup(run, n), -1);
}

static void clearing_a_table_empties_what_the_last_line_filled(void **state)
{
	cg_jsonl_parser *p = cg_jsonl_parser_new();
	const cg_fields *cf;
	char msg[256];
	/* A meta line through cJSON fills values, elements and members. */
	const char *line = "{\"kind\":\"meta\",\"schema\":\"s\",\"shape\":[1,2],\"bytes\":3}";
	assert_int_equal(cg_jsonl_parse(p, line, strlen(line), &cf, msg, sizeof msg), 0);
	cg_fields *f = (cg_fields *)cf; /* the parser's own table */
	assert_true(f->is_meta);
	assert_int_equal(f->nelems, 2);
	assert_int_equal(f->nmembers, 4);
	assert_true(f->present != 0);
	cg_jval *elems = f->elems;
	size_t elems_cap = f->elems_cap;
	cg_fields_clear(f);
	for (int k = 0; k < CG_F_COUNT; k++) {
		assert_int_equal(f->v[k].type, CG_JT_ABSENT);
		assert_null(f->v[k].s);
		assert_int_equal(f->v[k].n, 0);
		assert_int_equal(f->v[k].count, 0);
	}
	assert_int_equal(f->present, 0);
	assert_int_equal(f->nelems, 0);
	assert_int_equal(f->nmembers, 0);
	assert_false(f->is_meta);
	/* The buffers stay for the next line. */
	assert_ptr_equal(f->elems, elems);
	assert_int_equal(f->elems_cap, elems_cap);
	cg_jsonl_parser_free(p);

	/* A table cleared when nothing was set stays empty. */
	cg_fields empty;
	memset(&empty, 0, sizeof empty);
	cg_fields_clear(&empty);
	assert_int_equal(empty.present, 0);
}

static void value_types_are_named_as_messages_say_them(void **state)
{
	/* As in "field \"kind\" must be a string, not a number". */
	assert_string_equal(cg_jtype_name(CG_JT_ABSENT), "absent");
	assert_string_equal(cg_jtype_name(CG_JT_NULL), "null");
	assert_string_equal(cg_jtype_name(CG_JT_BOOL), "a boolean");
	assert_string_equal(cg_jtype_name(CG_JT_NUMBER), "a number");
	assert_string_equal(cg_jtype_name(CG_JT_STRING), "a string");
	assert_string_equal(cg_jtype_name(CG_JT_ARRAY), "an array");
	assert_string_equal(cg_jtype_name(CG_JT_OBJECT), "an object");
	assert_string_equal(cg_jtype_name((cg_jtype)(CG_JT_OBJECT + 1)), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_documented_field_is_found_under_its_own_name),
		cmocka_unit_test(every_field_name_is_found_and_nothing_else),
		cmocka_unit_test(near_misses_prefixes_and_other_lengths_are_not_fields),
		cmocka_unit_test(clearing_a_table_empties_what_the_last_line_filled),
		cmocka_unit_test(value_types_are_named_as_messages_say_them),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
