/* The events of a Kineto Chrome trace as read (kineto_events.c), one event
 * at a time through cg_kineto_events_add, before kineto.c builds the
 * timeline: device names after c10::DeviceType, phases from range names,
 * the fields of a [memory] event, [OutOfMemory] and complete events, and
 * bad events counted with their number. */
#include "testutil.h"

#include <string.h>

#include "kineto_events.h"

typedef struct fixture {
	cg_timeline *tl;
	cg_ingest_options o;
	cg_kineto_events k;
	cg_error err;
} fixture;

static void start(fixture *x)
{
	x->tl = cg_timeline_new(NULL);
	x->o = (cg_ingest_options)CG_INGEST_OPTIONS_INIT;
	cg_kineto_events_init(&x->k, x->tl, &x->o, "k.json");
	x->err = (cg_error)CG_ERROR_INIT;
}

static void finish(fixture *x)
{
	cg_kineto_events_free(&x->k);
	cg_timeline_free(x->tl);
}

/* Adds one event's text as the stream hands it out: number ordinal, at
 * byte offset 1000 of the document. */
static int add(fixture *x, const char *json, uint64_t ordinal)
{
	cg_chrome_event ev = {json, strlen(json), ordinal, 1000, false, 0};
	return cg_kineto_events_add(&x->k, &ev, &x->err);
}

static const char *device_of(const fixture *x, uint16_t d)
{
	return cg_timeline_str(x->tl, x->tl->devices[d].name);
}

static void devices_are_named_after_c10_device_types(void **state)
{
	/* c10/core/DeviceType.h: the enum's numbering, and DeviceTypeName's
	 * lower-case spellings (PrivateUse1 unregistered: "privateuseone"). */
	static const char *const c10[] = {
		"cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "fpga", "maia", "xla", "vulkan",
		"metal", "xpu", "mps", "meta", "hpu", "ve", "lazy", "ipu", "mtia", "privateuseone",
	};
	char buf[64], want[64];
	for (int t = 0; t < (int)(sizeof c10 / sizeof c10[0]); t++) {
		cg_kineto_device_name(t, -1, buf, sizeof buf);
		assert_string_equal(buf, c10[t]); /* no index: the device type alone */
		cg_kineto_device_name(t, 3, buf, sizeof buf);
		snprintf(want, sizeof want, "%s:3", c10[t]);
		assert_string_equal(buf, want);
	}
	cg_kineto_device_name(0, -1, buf, sizeof buf);
	assert_string_equal(buf, "cpu");
	cg_kineto_device_name(1, 1, buf, sizeof buf);
	assert_string_equal(buf, "cuda:1");
	cg_kineto_device_name(6, 3, buf, sizeof buf);
	assert_string_equal(buf, "hip:3");
	cg_kineto_device_name(13, 0, buf, sizeof buf);
	assert_string_equal(buf, "mps:0");
	/* Types c10 does not have keep their number. */
	cg_kineto_device_name(99, 0, buf, sizeof buf);
	assert_string_equal(buf, "device_type_99:0");
	cg_kineto_device_name(21, -1, buf, sizeof buf);
	assert_string_equal(buf, "device_type_21");
	cg_kineto_device_name(-1, 2, buf, sizeof buf);
	assert_string_equal(buf, "device_type_-1:2");
	cg_kineto_device_name(INT64_MAX, INT64_MAX, buf, sizeof buf);
	assert_string_equal(buf, "device_type_9223372036854775807:9223372036854775807");
	/* A type of 20 characters keeps every digit: two types never share a name. */
	cg_kineto_device_name(INT64_MIN, 0, buf, sizeof buf);
	assert_string_equal(buf, "device_type_-9223372036854775808:0");
	/* A short buffer is cut, and terminated. */
	char small[5];
	cg_kineto_device_name(1, 12, small, sizeof small);
	assert_string_equal(small, "cuda");
}

static void phases_come_from_range_names(void **state)
{
	struct { const char *name; cg_phase p; } cases[] = {
		{"forward", CG_PHASE_FORWARD}, {"## forward ##", CG_PHASE_FORWARD},
		{"## Backward ##", CG_PHASE_BACKWARD}, {"Optimizer.step#AdamW.step", CG_PHASE_OPTIMIZER},
		{"Optimizer.zero_grad#SGD.zero_grad", CG_PHASE_OPTIMIZER},
		{"autograd::engine::evaluate_function: AddmmBackward0", CG_PHASE_BACKWARD},
		{"ProfilerStep#7", CG_PHASE_NONE}, {"aten::forward_ad", CG_PHASE_NONE}, {"", CG_PHASE_NONE},
		/* Users' annotations in any case, padded with spaces and hashes. */
		{"  FORWARD  ", CG_PHASE_FORWARD}, {"#backward", CG_PHASE_BACKWARD}, {"optimizer", CG_PHASE_OPTIMIZER},
		{"Optimizer Step", CG_PHASE_OPTIMIZER}, {"optimizer.step", CG_PHASE_OPTIMIZER},
		{"## ##", CG_PHASE_NONE}, {"forward pass", CG_PHASE_NONE}, {"backwards", CG_PHASE_NONE},
		/* PyTorch's own prefixes are exact. */
		{"optimizer.step#Adam.step", CG_PHASE_NONE},
		{"autograd::engine::evaluate_function:AddBackward0", CG_PHASE_NONE},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (cg_kineto_phase(cases[i].name, strlen(cases[i].name)) != cases[i].p)
			fail_msg("\"%s\" is not phase %d", cases[i].name, cases[i].p);
	/* Only n bytes are read. */
	assert_int_equal(cg_kineto_phase("forwardXYZ", 7), CG_PHASE_FORWARD);
}

#define MEMEV(ts, tid, args) \
	"{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":" tid \
	",\"ts\":" ts ",\"args\":{" args "}}"

static void a_memory_event_is_read_into_its_fields(void **state)
{
	fixture x;
	start(&x);
	assert_int_equal(add(&x, MEMEV("12.345", "7", "\"Device Type\":1,\"Device Id\":2,\"Addr\":94114624913920,"
				       "\"Bytes\":512,\"Total Allocated\":1536,\"Total Reserved\":2097152"), 4), 0);
	assert_int_equal(x.k.nmem, 1);
	const cg_kineto_mem *m = &x.k.mem[0];
	assert_int_equal(m->ts, 12345); /* 12.345 us */
	assert_int_equal(m->bytes, 512);
	assert_int_equal(m->flags, CG_KM_ADDR | CG_KM_TOTAL_ALLOCATED | CG_KM_TOTAL_RESERVED);
	assert_int_equal(m->total_allocated, 1536);
	assert_int_equal(m->total_reserved, 2097152);
	assert_string_equal(cg_timeline_str(x.tl, m->addr), "94114624913920"); /* the address text, exactly */
	assert_int_equal(m->ordinal, 4);
	assert_string_equal(device_of(&x, m->device), "cuda:2");
	assert_true(x.k.have_origin);
	assert_int_equal(x.k.origin, 12345);
	assert_string_equal(x.k.origin_text, "12.345 us");

	/* A free, with a string address and a string tid naming the same
	 * thread as the integer one; no totals; an earlier ts moves the origin. */
	assert_int_equal(add(&x, MEMEV("3", "\"7\"", "\"Device Type\":0,\"Device Id\":-1,\"Addr\":\"0x7f00\","
				       "\"Bytes\":-512"), 5), 0);
	assert_int_equal(x.k.nmem, 2);
	m = &x.k.mem[1];
	assert_int_equal(m->flags, CG_KM_FREE | CG_KM_ADDR);
	assert_int_equal(m->bytes, 512);
	assert_string_equal(cg_timeline_str(x.tl, m->addr), "0x7f00");
	assert_string_equal(device_of(&x, m->device), "cpu");
	assert_int_equal(m->thread, x.k.mem[0].thread);
	assert_int_equal(x.k.origin, 3000);
	assert_string_equal(x.k.origin_text, "3 us");

	/* The most negative Bytes frees 2^63 bytes; no Addr is counted. */
	assert_int_equal(add(&x, MEMEV("20", "8", "\"Device Type\":1,\"Device Id\":0,\"Bytes\":-9223372036854775808"), 6), 0);
	assert_int_equal(x.k.mem[2].bytes, 9223372036854775808ull);
	assert_int_equal(x.k.mem[2].flags, CG_KM_FREE);
	assert_int_equal(x.k.without_addr, 1);
	assert_true(x.k.mem[2].thread != x.k.mem[0].thread);
	/* Zero bytes: counted, not kept. */
	assert_int_equal(add(&x, MEMEV("21", "8", "\"Device Type\":1,\"Device Id\":0,\"Bytes\":0"), 7), 0);
	assert_int_equal(x.k.nmem, 3);
	assert_int_equal(x.k.zero_bytes, 1);
	assert_int_equal(x.tl->source.bad_lines, 0);
	finish(&x);
}

static void out_of_memory_events_are_kept_with_or_without_a_device(void **state)
{
	fixture x;
	start(&x);
	assert_int_equal(add(&x, "{\"ph\":\"i\",\"name\":\"[OutOfMemory]\",\"ts\":9,\"args\":{\"Device Type\":1,"
				 "\"Device Id\":0,\"Bytes\":2147483648,\"Total Allocated\":512,\"Total Reserved\":2048}}", 2), 0);
	assert_int_equal(add(&x, "{\"ph\":\"i\",\"name\":\"[OutOfMemory]\",\"ts\":10}", 3), 0);
	assert_int_equal(x.k.nooms, 2);
	const cg_kineto_oom *o = &x.k.ooms[0];
	assert_int_equal(o->ts, 9000);
	assert_int_equal(o->bytes, 2147483648ull);
	assert_true(o->has_totals);
	assert_int_equal(o->total_allocated, 512);
	assert_int_equal(o->total_reserved, 2048);
	assert_string_equal(device_of(&x, o->device), "cuda:0");
	assert_int_equal(o->ordinal, 2);
	o = &x.k.ooms[1];
	assert_string_equal(device_of(&x, o->device), "unknown");
	assert_int_equal(o->bytes, 0);
	assert_false(o->has_totals);
	finish(&x);
}

static void complete_events_of_cpu_ranges_become_spans(void **state)
{
	fixture x;
	start(&x);
	/* Ordinals 1-7: an operator, a module, a user annotation naming a
	 * phase, a kernel and a runtime call (not spans), a negative duration,
	 * a nameless event. */
	assert_int_equal(add(&x, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":2.5}", 1), 0);
	assert_int_equal(add(&x, "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"nn.Module: Linear_0\",\"pid\":1,\"tid\":1,"
				 "\"ts\":4,\"dur\":4}", 2), 0);
	assert_int_equal(add(&x, "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"## backward ##\",\"pid\":1,\"tid\":1,"
				 "\"ts\":1,\"dur\":9}", 3), 0);
	assert_int_equal(add(&x, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":5,\"dur\":1}", 4), 0);
	assert_int_equal(add(&x, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
				 "\"ts\":5,\"dur\":1}", 5), 0);
	assert_int_equal(add(&x, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"back\",\"pid\":1,\"tid\":1,\"ts\":6,\"dur\":-3}", 6), 0);
	assert_int_equal(add(&x, "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":7}", 7), 0);
	assert_int_equal(x.k.nspans, 5);
	assert_int_equal(x.k.nnest, 5);
	assert_string_equal(cg_timeline_str(x.tl, x.k.spans[0].name), "aten::mm");
	assert_int_equal(x.k.spans[0].kind, CG_SPAN_OP);
	assert_int_equal(x.k.nest[0].start, 5000);
	assert_int_equal(x.k.nest[0].end, 7500);
	assert_int_equal(x.k.nest[0].order, 1);
	assert_int_equal(x.k.spans[1].kind, CG_SPAN_MODULE);
	assert_int_equal(x.k.spans[2].kind, CG_SPAN_FUNCTION);
	assert_int_equal(x.k.spans[2].step, CG_PHASE_BACKWARD);
	assert_int_equal(x.k.spans[0].step, CG_PHASE_NONE);
	assert_int_equal(x.k.nest[3].end, x.k.nest[3].start); /* dur -3 read as 0 */
	assert_string_equal(cg_timeline_str(x.tl, x.k.spans[4].name), "(unnamed)");
	/* Every timestamped event counts for the origin, the kernel's too; metadata does not. */
	assert_int_equal(x.k.origin, 1000);
	assert_int_equal(add(&x, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"ts\":0}", 8), 0);
	assert_int_equal(x.k.origin, 1000);
	assert_int_equal(x.tl->source.bad_lines, 0);
	finish(&x);
}

static void bad_events_are_counted_with_their_number(void **state)
{
	static const struct {
		const char *json, *msg;
	} cases[] = {
		{"{\"ph\": tru}", "not valid JSON (error near byte offset 1007)"}, /* 1000 + the 't' at 7 */
		{"[1]", "event is not a JSON object"},
		{MEMEV("\"x\"", "1", "\"Bytes\":1"), "[memory] event without a valid \"ts\""},
		{"{\"ph\":\"i\",\"name\":\"[memory]\",\"ts\":1}", "[memory] event without \"args\""},
		{MEMEV("1", "1", "\"Device Type\":1"), "[memory] event without \"Bytes\""},
		{MEMEV("1", "1", "\"Bytes\":1.5,\"Device Type\":1"), "[memory] event whose \"Bytes\" is not an integer"},
		{MEMEV("1", "1", "\"Bytes\":1"), "[memory] event: no \"Device Type\""},
		{MEMEV("1", "1", "\"Bytes\":1,\"Device Type\":\"gpu\""), "[memory] event: \"Device Type\" is not an integer"},
		{MEMEV("1", "1", "\"Bytes\":1,\"Device Type\":1,\"Device Id\":[0]"), "[memory] event: \"Device Id\" is not an integer"},
		{MEMEV("1", "1", "\"Bytes\":1,\"Device Type\":1,\"Total Allocated\":-5"),
		 "[memory] event: \"Total Allocated\" is not a non-negative integer"},
		{MEMEV("1", "1", "\"Bytes\":1,\"Device Type\":1,\"Total Reserved\":true"),
		 "[memory] event: \"Total Reserved\" is not a non-negative integer"},
		{MEMEV("1", "1", "\"Bytes\":1,\"Device Type\":1,\"Addr\":false"),
		 "[memory] event: \"Addr\" is neither a number nor a string"},
		{MEMEV("100000000000000000", "1", "\"Bytes\":1,\"Device Type\":1"), "[memory] event without a valid \"ts\""}, /* 1e20 ns */
		{"{\"ph\":\"i\",\"name\":\"[OutOfMemory]\"}", "[OutOfMemory] event without a valid \"ts\""},
		{"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\"}", "complete event without a valid \"ts\""},
		{"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"ts\":1,\"dur\":\"long\"}", "complete event whose \"dur\" is not a number"},
		{"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"ts\":9223372036854775,\"dur\":9223372036854775}",
		 "complete event ends beyond the representable time"},
	};
	size_t ncases = sizeof cases / sizeof cases[0];
	fixture x;
	start(&x);
	for (size_t i = 0; i < ncases; i++)
		assert_int_equal(add(&x, cases[i].json, 10 + i), 0);
	/* An event the stream skipped as too long. */
	x.o.max_line_bytes = 100;
	cg_chrome_event big = {NULL, 0, 99, 5000, true, 4096};
	assert_int_equal(cg_kineto_events_add(&x.k, &big, &x.err), 0);
	const cg_source *src = &x.tl->source;
	assert_int_equal(src->bad_lines, ncases + 1);
	for (size_t i = 0; i < ncases; i++) {
		assert_int_equal(src->diags[i].kind, CG_DIAG_BAD_LINE);
		assert_int_equal(src->diags[i].line, 10 + i);
		if (strcmp(src->diags[i].msg, cases[i].msg) != 0)
			fail_msg("case %zu: \"%s\", expected \"%s\"", i, src->diags[i].msg, cases[i].msg);
	}
	assert_int_equal(src->diags[ncases].line, 99);
	assert_string_equal(src->diags[ncases].msg, "event is 4096 bytes, longer than the limit of 100 (--max-line-bytes)");
	assert_int_equal(x.k.nmem, 0);
	assert_int_equal(x.k.nspans, 0);
	finish(&x);

	/* With strict the first is fatal, naming the file and the event. */
	start(&x);
	x.o.strict = true;
	assert_int_equal(add(&x, cases[4].json, 3), CG_EINPUT);
	assert_string_equal(x.err.msg, "k.json: event 3: [memory] event without \"Bytes\"");
	assert_int_equal(x.tl->source.bad_lines, 0);
	finish(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(devices_are_named_after_c10_device_types),
		cmocka_unit_test(phases_come_from_range_names),
		cmocka_unit_test(a_memory_event_is_read_into_its_fields),
		cmocka_unit_test(out_of_memory_events_are_kept_with_or_without_a_device),
		cmocka_unit_test(complete_events_of_cpu_ranges_become_spans),
		cmocka_unit_test(bad_events_are_counted_with_their_number),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
