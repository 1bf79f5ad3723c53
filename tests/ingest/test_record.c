/* Each record kind read into its typed record, and each reason a line is bad. */
#include "ingestutil.h"

#include <string.h>

#include "record.h"

#define META "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"run_id\":\"r1\"}\n"
#define SPAN "{\"kind\":\"span_start\",\"id\":\"s1\",\"name\":\"root\",\"start_ns\":5,\"span_kind\":\"function\"}\n"

static cg_timeline *ingest(const char *text)
{
	return tu_ingest_text(text);
}

/* Ingests META + line and returns the message of the one bad line. */
static void expect_bad(const char *line, const char *message)
{
	char text[4096];
	snprintf(text, sizeof text, META SPAN "%s\n", line);
	cg_timeline *tl = ingest(text);
	assert_int_equal(tl->source.bad_lines, 1);
	const cg_diag *d = NULL;
	for (size_t i = 0; i < tl->source.ndiags; i++)
		if (tl->source.diags[i].kind == CG_DIAG_BAD_LINE)
			d = &tl->source.diags[i];
	assert_non_null(d);
	assert_int_equal(d->line, 3);
	assert_string_equal(d->msg, message);
	cg_timeline_free(tl);
}

static void meta_keeps_every_key_and_value(void **state)
{
	cg_timeline *tl = ingest("{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"run_id\":\"r1\","
				 "\"devices\":[\"cpu\",\"cuda:0\"],\"steps\":4,\"extra\":{\"a\":1}}\n" SPAN);
	assert_true(tl->source.meta_seen);
	assert_string_equal(cg_timeline_str(tl, tl->source.schema), "candle-graph/trace/6");
	assert_int_equal(tl->nmeta, 4);
	assert_string_equal(cg_timeline_str(tl, tl->meta[0].key), "run_id");
	assert_string_equal(cg_timeline_str(tl, tl->meta[0].value), "r1");
	assert_true(tl->meta[0].is_string);
	assert_string_equal(cg_timeline_str(tl, tl->meta[1].value), "[\"cpu\",\"cuda:0\"]");
	assert_false(tl->meta[1].is_string);
	assert_string_equal(cg_timeline_str(tl, tl->meta[2].value), "4");
	assert_string_equal(cg_timeline_str(tl, tl->meta[3].value), "{\"a\":1}");
	assert_int_equal(tl->source.warnings, 0);
	cg_timeline_free(tl);
}

static void repeated_missing_or_foreign_meta_warns(void **state)
{
	cg_timeline *tl = ingest(META META SPAN);
	assert_int_equal(tl->source.meta_count, 2);
	assert_int_equal(tl->source.warnings, 1);
	assert_string_equal(tl->source.diags[0].msg,
			    "another meta record (the first is at line 1); its run metadata is ignored");
	assert_int_equal(tl->source.diags[0].line, 2);
	cg_timeline_free(tl);

	tl = ingest(SPAN);
	assert_false(tl->source.meta_seen);
	assert_int_equal(tl->source.warnings, 1);
	assert_string_equal(tl->source.diags[0].msg, "no meta record: the run's metadata is unknown");
	cg_timeline_free(tl);

	tl = ingest("{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/7\"}\n" SPAN);
	assert_int_equal(tl->source.warnings, 1);
	assert_string_equal(tl->source.diags[0].msg,
			    "schema \"candle-graph/trace/7\" is not candle-graph/trace/6; reading it anyway");
	cg_timeline_free(tl);
}

static void span_start_and_end_give_a_span(void **state)
{
	cg_timeline *tl = ingest(META
		"{\"kind\":\"span_start\",\"id\":\"s1\",\"name\":\"train\",\"start_ns\":100,\"span_kind\":\"module\",\"measured\":true,\"step\":\"forward\"}\n"
		"{\"kind\":\"span_end\",\"id\":\"s1\",\"duration_ns\":50}\n");
	assert_int_equal(tl->nspans, 1);
	const cg_span *s = &tl->spans[0];
	assert_string_equal(cg_timeline_str(tl, s->name), "train");
	assert_int_equal(s->start_ns, 100);
	assert_int_equal(s->end_ns, 150);
	assert_int_equal(s->kind, CG_SPAN_MODULE);
	assert_int_equal(s->step, CG_PHASE_FORWARD);
	assert_int_equal(s->phase, CG_PHASE_FORWARD);
	assert_true(s->flags & CG_SPAN_MEASURED);
	assert_true(s->flags & CG_SPAN_ENDED);
	assert_int_equal(s->parent, CG_NONE);
	assert_int_equal(tl->source.records[CG_KIND_SPAN_START], 1);
	assert_int_equal(tl->source.records[CG_KIND_SPAN_END], 1);
	cg_timeline_free(tl);
}

static void op_derives_storage_from_shape_and_dtype(void **state)
{
	cg_timeline *tl = ingest(META SPAN
		"{\"kind\":\"op\",\"span_id\":\"s1\",\"op_name\":\"aten::mm\",\"inputs\":[\"t1\",\"t2\"],\"output\":\"t3\","
		"\"shape\":[64,512],\"dtype\":\"torch.float16\",\"device\":\"cuda:0\",\"duration_ns\":7,\"timestamp_ns\":9,"
		"\"input_storage_bytes\":1000}\n"
		"{\"kind\":\"op\",\"span_id\":\"s1\",\"op_name\":\"x\",\"dtype\":\"unknown\",\"device\":\"cpu\",\"duration_ns\":1,\"storage_bytes\":12}\n");
	assert_int_equal(tl->nops, 2);
	const cg_op *op = &tl->ops[0];
	assert_string_equal(cg_timeline_str(tl, op->name), "aten::mm");
	assert_int_equal(op->storage_bytes, 64 * 512 * 2);
	assert_true(op->flags & CG_OP_STORAGE_DERIVED);
	assert_int_equal(op->input_storage_bytes, 1000);
	assert_int_equal(op->t_ns, 9);
	assert_int_equal(op->duration_ns, 7);
	assert_int_equal(cg_timeline_op_inputs_count(tl, 0), 2);
	assert_int_equal(cg_timeline_op_inputs_count(tl, 1), 0);
	assert_string_equal(cg_timeline_str(tl, tl->op_inputs[op->inputs_first + 1]), "t2");
	assert_string_equal(cg_timeline_str(tl, op->output), "t3");
	assert_string_equal(cg_timeline_str(tl, tl->dtypes[op->dtype].name), "f16");
	assert_string_equal(cg_timeline_str(tl, tl->devices[op->device].name), "cuda:0");
	assert_int_equal(op->span, 0);
	char buf[64];
	assert_string_equal(cg_timeline_shape_format(tl, op->shape, buf, sizeof buf), "[64, 512]");
	assert_int_equal(tl->ops[1].storage_bytes, 12);
	assert_false(tl->ops[1].flags & CG_OP_STORAGE_DERIVED);
	cg_timeline_free(tl);
}

static void tensor_record_keeps_category_and_grad(void **state)
{
	cg_timeline *tl = ingest(META SPAN
		"{\"kind\":\"tensor\",\"span_id\":\"s1\",\"tensor_id\":\"w\",\"shape\":[3,4],\"dtype\":\"f32\",\"device\":\"cpu\","
		"\"requires_grad\":true,\"category\":\"parameter\"}\n");
	assert_int_equal(tl->ntensors, 1);
	const cg_tensor *t = &tl->tensors[0];
	assert_int_equal(t->category, CG_CAT_PARAMETER);
	assert_true(t->flags & CG_TENSOR_REQUIRES_GRAD);
	assert_true(t->flags & CG_TENSOR_HAS_STORAGE);
	assert_int_equal(t->storage_bytes, 48);
	cg_timeline_free(tl);
}

static void memory_record_reads_every_field(void **state)
{
	cg_timeline *tl = ingest(META SPAN
		"{\"kind\":\"memory\",\"timestamp_ns\":18446744073709551615,\"tensor_id\":\"t1\",\"span_id\":\"s1\","
		"\"op_name\":\"aten::empty\",\"device\":\"cuda:1\",\"bytes\":18446744073709551615,\"action\":\"allocate\","
		"\"shape\":[2],\"dtype\":\"bf16\",\"category\":\"ACTIVATION\",\"future_field\":[1,{\"x\":2}]}\n");
	assert_int_equal(tl->nmem, 1);
	const cg_mem *m = &tl->mem[0];
	assert_int_equal(m->t_ns, UINT64_MAX);
	assert_int_equal(m->bytes, UINT64_MAX);
	assert_int_equal(m->action, CG_ALLOC);
	assert_int_equal(m->category, CG_CAT_ACTIVATION);
	assert_string_equal(cg_timeline_str(tl, cg_timeline_mem_op(tl, m)), "aten::empty");
	char buf[CG_TENSOR_ID_BUF];
	size_t len;
	assert_string_equal(cg_timeline_tensor_text(tl, m->tensor, buf, &len), "t1");
	assert_int_equal(m->span, 0);
	assert_int_equal(m->line, 3);
	assert_int_equal(tl->source.bad_lines, 0);
	cg_timeline_free(tl);
}

/* Ids spelt "<hex>#<n>" as candle writes them are kept as numbers, not
 * strings; every other spelling is interned. Each reads back as written. */
static void tensor_ids_read_back_as_written_packed_or_not(void **state)
{
	static const struct {
		const char *id;
		bool packed;
	} ids[] = {
		{"7f3a00000200#25575", true},	 {"7f4a00003200#510930", true}, {"0#0", true},
		{"a40c04680#0", true},		 /* 128-byte aligned */
		{"7fffffffffff#16383", true},	 {"7fffffffffff#16384", false}, /* any address: below 2^14 */
		{"a40c04680#1048575", true},	 {"a40c04680#1048576", false},	/* 64-byte aligned: 2^20 */
		{"7f4a00003200#8388607", true},	 {"7f4a00003200#8388608", false}, /* 512: 2^23 */
		{"7ffffffff000#67108863", true}, {"7ffffffff000#67108864", false}, /* 4096: 2^26 */
		{"800000000000#1", false},	 /* 2^47: too large */
		{"07f3a#1", false},		 /* leading zero */
		{"7f3a#01", false},		 /* leading zero */
		{"7F3A#1", false},		 /* upper case */
		{"7f3a#", false},		 {"#1", false}, {"7f3a", false}, {"7f3a#1#2", false},
		{"1000000000000#1", false}, /* 13 digits */
		{"7f3a000#123456789", false}, {"x7f#1", false}, {"7f3a#-1", false}, {"", false},
	};
	size_t n = sizeof ids / sizeof ids[0];
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	fputs(META SPAN, f);
	for (size_t i = 0; i < n; i++)
		fprintf(f,
			"{\"kind\":\"memory\",\"timestamp_ns\":%zu,\"tensor_id\":\"%s\",\"span_id\":\"s1\","
			"\"device\":\"cuda:0\",\"bytes\":8,\"action\":\"alloc\",\"dtype\":\"f32\"}\n",
			i, ids[i].id);
	fclose(f);
	cg_timeline *tl = ingest(text);
	free(text);
	assert_int_equal(tl->nmem, n);
	for (size_t i = 0; i < n; i++) {
		const cg_mem *m = &tl->mem[i];
		char buf[CG_TENSOR_ID_BUF];
		size_t len;
		const char *got = cg_timeline_tensor_text(tl, m->tensor, buf, &len);
		assert_int_equal(len, strlen(ids[i].id));
		assert_string_equal(got, ids[i].id);
		if (cg_tensor_id_is_str(m->tensor) == ids[i].packed)
			fail_msg("\"%s\" should %sbe packed", ids[i].id, ids[i].packed ? "" : "not ");
		cg_str s;
		/* a packed id leaves no string behind */
		assert_int_equal(cg_strtab_find(tl->strings, ids[i].id, strlen(ids[i].id), &s), !ids[i].packed);
	}
	assert_true(cg_tensor_id_empty(tl->mem[n - 1].tensor));
	cg_timeline_free(tl);
}

static void unknown_category_reads_as_unknown_and_is_counted(void **state)
{
	cg_timeline *tl = ingest(META SPAN
		"{\"kind\":\"memory\",\"timestamp_ns\":1,\"tensor_id\":\"t1\",\"span_id\":\"s1\",\"device\":\"cpu\","
		"\"bytes\":4,\"action\":\"alloc\",\"dtype\":\"f32\",\"category\":\"kv_cache\"}\n");
	assert_int_equal(tl->mem[0].category, CG_CAT_UNKNOWN);
	assert_int_equal(tl->source.unknown_categories, 1);
	assert_string_equal(tl->source.diags[0].msg, "unknown category \"kv_cache\" (read as unknown)");
	assert_int_equal(tl->source.diags[0].line, 3);
	cg_timeline_free(tl);
}

static void device_memory_gradient_and_edge(void **state)
{
	cg_timeline *tl = ingest(META SPAN
		"{\"kind\":\"span_start\",\"id\":\"s2\",\"parent_id\":\"s1\",\"name\":\"b\",\"start_ns\":6,\"span_kind\":\"op\"}\n"
		"{\"kind\":\"device_memory\",\"timestamp_ns\":7,\"device\":\"cuda:0\",\"used_bytes\":100,\"free_bytes\":900,\"reserved_bytes\":80}\n"
		"{\"kind\":\"device_memory\",\"timestamp_ns\":8,\"device\":\"cuda:0\",\"used_bytes\":100,\"free_bytes\":900}\n"
		"{\"kind\":\"gradient\",\"event_id\":\"g1\",\"root\":\"MLP\",\"key\":\"w\",\"state\":\"non_finite\",\"norm\":1.5e300}\n"
		"{\"kind\":\"gradient\",\"event_id\":\"g2\",\"root\":\"MLP\",\"key\":\"b\",\"state\":\"missing\"}\n"
		"{\"kind\":\"edge\",\"from_span\":\"s1\",\"to_span\":\"s2\",\"duration_ns\":3}\n");
	assert_int_equal(tl->ndevmem, 2);
	assert_true(tl->devmem[0].has_reserved);
	assert_int_equal(tl->devmem[0].reserved_bytes, 80);
	assert_false(tl->devmem[1].has_reserved);
	assert_int_equal(tl->ngradients, 2);
	assert_int_equal(tl->gradients[0].state, CG_GRAD_NON_FINITE);
	assert_true(tl->gradients[0].has_norm);
	assert_true(tl->gradients[0].norm == 1.5e300);
	assert_false(tl->gradients[1].has_norm);
	assert_int_equal(tl->nedges, 1);
	assert_int_equal(tl->edges[0].from_span, 0);
	assert_int_equal(tl->edges[0].to_span, 1);
	assert_int_equal(tl->edges[0].duration_ns, 3);
	cg_timeline_free(tl);
}

static void unknown_kind_is_counted_not_bad(void **state)
{
	cg_timeline *tl = ingest(META SPAN "{\"kind\":\"counter\",\"x\":1}\n{\"kind\":\"counter\"}\n");
	assert_int_equal(tl->source.unknown_kinds, 2);
	assert_int_equal(tl->source.bad_lines, 0);
	assert_string_equal(tl->source.diags[0].msg, "unknown record kind \"counter\" (skipped)");
	cg_timeline_free(tl);
}

#define MEM(fields) "{\"kind\":\"memory\",\"timestamp_ns\":1,\"tensor_id\":\"t\",\"span_id\":\"s1\",\"device\":\"cpu\"," \
	"\"action\":\"alloc\",\"dtype\":\"f32\"," fields "}"

static void each_bad_line_names_its_reason(void **state)
{
	expect_bad("not json", "not valid JSON (error near column 1)");
	expect_bad("{\"kind\":\"memory\",", "not valid JSON (error near column 18)");
	expect_bad("[1,2]", "not a JSON object");
	expect_bad("{\"kind\":\"op\"} trailing", "not valid JSON (error near column 15)");
	expect_bad("{\"bytes\":1}", "missing required field \"kind\"");
	expect_bad("{\"kind\":7}", "field \"kind\" must be a string, not a number");
	expect_bad(MEM("\"x\":1"), "missing required field \"bytes\"");
	expect_bad(MEM("\"bytes\":null"), "field \"bytes\" is null");
	expect_bad(MEM("\"bytes\":\"12\""), "field \"bytes\" must be a non-negative integer, not a string");
	expect_bad(MEM("\"bytes\":-5"), "field \"bytes\" must be a non-negative integer: -5 is negative");
	expect_bad(MEM("\"bytes\":1.5"), "field \"bytes\" must be a non-negative integer: 1.5 is not an integer");
	expect_bad(MEM("\"bytes\":1e3"), "field \"bytes\" must be a non-negative integer: 1e3 is not an integer");
	expect_bad(MEM("\"bytes\":18446744073709551616"),
		   "field \"bytes\" must be a non-negative integer: 18446744073709551616 does not fit in 64 bits");
	expect_bad(MEM("\"bytes\":4,\"shape\":[4294967296,4294967296]"),
		   "field \"shape\" has more than 2^64 - 1 elements");
	expect_bad(MEM("\"bytes\":4,\"shape\":[4611686018427387904]"),
		   "shape times the size of f32 overflows 64 bits");
	expect_bad(MEM("\"bytes\":4,\"shape\":[1,-2]"),
		   "field \"shape\" must be a non-negative integer: -2 is negative");
	expect_bad(MEM("\"bytes\":4,\"shape\":\"[1]\""),
		   "field \"shape\" must be an array of non-negative integers, not a string");
	expect_bad("{\"kind\":\"memory\",\"timestamp_ns\":1,\"tensor_id\":\"t\",\"span_id\":\"s1\",\"device\":\"cpu\","
		   "\"action\":\"grow\",\"dtype\":\"f32\",\"bytes\":1}",
		   "field \"action\" is \"grow\"; expected \"alloc\" or \"free\"");
	expect_bad("{\"kind\":\"gradient\",\"event_id\":\"g\",\"root\":\"r\",\"key\":\"k\",\"state\":\"weird\"}",
		   "field \"state\" is \"weird\"; expected present, missing, zero or non_finite");
	expect_bad("{\"kind\":\"span_start\",\"id\":\"s9\",\"name\":\"x\",\"start_ns\":1,\"span_kind\":\"op\",\"measured\":1}",
		   "field \"measured\" must be true or false, not a number");
	expect_bad("{\"kind\":\"device_memory\",\"timestamp_ns\":1,\"device\":\"cpu\",\"used_bytes\":18446744073709551615,\"free_bytes\":1}",
		   "used_bytes + free_bytes overflows 64 bits");
	expect_bad("{\"kind\":\"op\",\"span_id\":\"s1\",\"op_name\":\"x\",\"dtype\":\"f32\",\"device\":\"\",\"duration_ns\":1}",
		   "field \"device\" is empty");
	expect_bad("{\"kind\":\"op\",\"span_id\":\"s1\",\"op_name\":\"x\",\"dtype\":\"f32\",\"device\":\"cpu\",\"duration_ns\":1,\"inputs\":[1]}",
		   "field \"inputs\" must hold only strings, not a number");
}

static void bad_bytes_in_a_line_are_reported_by_column(void **state)
{
	expect_bad("{\"kind\":\"op\",\"op_name\":\"a\xff\"}", "not valid UTF-8 at column 26 (byte 0xff)");
	const char nul_line[] = "{\"kind\":\"op\"\0}";
	char text[256];
	size_t n = 0;
	memcpy(text + n, META SPAN, strlen(META SPAN));
	n += strlen(META SPAN);
	memcpy(text + n, nul_line, sizeof nul_line - 1);
	n += sizeof nul_line - 1;
	text[n++] = '\n';
	const char *p = tu_write("nul.jsonl", text, n);
	cg_timeline *tl;
	cg_error err;
	assert_int_equal(cg_ingest(&tl, p, NULL, &err), 0);
	assert_int_equal(tl->source.bad_lines, 1);
	assert_string_equal(tl->source.diags[0].msg, "NUL byte at column 13");
	cg_timeline_free(tl);
}

static void first_of_duplicate_keys_wins(void **state)
{
	cg_timeline *tl = ingest(META SPAN MEM("\"bytes\":4,\"bytes\":8"));
	assert_int_equal(tl->mem[0].bytes, 4);
	cg_timeline_free(tl);
}

static void integers_parse_exactly_at_the_limits(void **state)
{
	uint64_t v;
	const char *why;
	assert_int_equal(cg_parse_u64("0", 1, &v, &why), 0);
	assert_int_equal(v, 0);
	assert_int_equal(cg_parse_u64("9007199254740993", 16, &v, &why), 0);
	assert_int_equal(v, 9007199254740993ull); /* not representable as a double */
	assert_int_equal(cg_parse_u64("18446744073709551615", 20, &v, &why), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(cg_parse_u64("18446744073709551616", 20, &v, &why), -1);
	assert_string_equal(why, "does not fit in 64 bits");
	assert_int_equal(cg_parse_u64("012", 3, &v, &why), -1);
	assert_int_equal(cg_parse_u64("+1", 2, &v, &why), -1);
	assert_int_equal(cg_parse_u64("9999999999999999999", 19, &v, &why), 0);
	assert_int_equal(v, 9999999999999999999ull); /* the longest one-pass number */
	assert_int_equal(cg_parse_u64("10000000000000000000", 20, &v, &why), 0);
	assert_int_equal(v, 10000000000000000000ull);
	assert_int_equal(cg_parse_u64("12a", 3, &v, &why), -1);
	assert_string_equal(why, "is not a valid JSON integer");
	assert_int_equal(cg_parse_u64("1.5", 3, &v, &why), -1);
	assert_string_equal(why, "is not an integer");
	assert_int_equal(cg_parse_u64("-7", 2, &v, &why), -1);
	assert_string_equal(why, "is negative");
	assert_int_equal(cg_parse_u64("", 0, &v, &why), -1);
	assert_string_equal(why, "is empty");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(meta_keeps_every_key_and_value),
		cmocka_unit_test(repeated_missing_or_foreign_meta_warns),
		cmocka_unit_test(span_start_and_end_give_a_span),
		cmocka_unit_test(op_derives_storage_from_shape_and_dtype),
		cmocka_unit_test(tensor_record_keeps_category_and_grad),
		cmocka_unit_test(memory_record_reads_every_field),
		cmocka_unit_test(tensor_ids_read_back_as_written_packed_or_not),
		cmocka_unit_test(unknown_category_reads_as_unknown_and_is_counted),
		cmocka_unit_test(device_memory_gradient_and_edge),
		cmocka_unit_test(unknown_kind_is_counted_not_bad),
		cmocka_unit_test(each_bad_line_names_its_reason),
		cmocka_unit_test(bad_bytes_in_a_line_are_reported_by_column),
		cmocka_unit_test(first_of_duplicate_keys_wins),
		cmocka_unit_test(integers_parse_exactly_at_the_limits),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
