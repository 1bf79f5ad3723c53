/* The timeline model: ordering, pairing of frees with allocations, and the span tree. */
#include "testutil.h"

#include <string.h>

#include "peak.h"

#define META "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\"}\n"
#define ROOT "{\"kind\":\"span_start\",\"id\":\"s\",\"name\":\"root\",\"start_ns\":0,\"span_kind\":\"function\"}\n"

/* A memory line: time, id, device, bytes, action. */
static char *mem(char *buf, unsigned long long t, const char *id, const char *dev, unsigned long long bytes,
		 const char *action)
{
	sprintf(buf + strlen(buf),
		"{\"kind\":\"memory\",\"timestamp_ns\":%llu,\"tensor_id\":\"%s\",\"span_id\":\"s\",\"device\":\"%s\","
		"\"bytes\":%llu,\"action\":\"%s\",\"dtype\":\"f32\"}\n",
		t, id, dev, bytes, action);
	return buf;
}

static cg_timeline *run(const char *body)
{
	char text[8192];
	snprintf(text, sizeof text, META ROOT "%s", body);
	return tu_ingest_text(text);
}

static uint64_t peak_of(const cg_timeline *tl, uint32_t dev, uint64_t *t)
{
	cg_peak_result *p;
	assert_int_equal(cg_peak_run(&p, tl, NULL), 0);
	uint64_t v = p->devices[dev].peak_bytes;
	if (t)
		*t = p->devices[dev].peak_t_ns;
	cg_peak_free(p);
	return v;
}

static void free_without_alloc_counts_as_live_from_start(void **state)
{
	char b[4096] = "";
	mem(b, 10, "a", "cpu", 100, "alloc");
	mem(b, 20, "old", "cpu", 50, "free");
	cg_timeline *tl = run(b);
	const cg_device *d = &tl->devices[0];
	assert_int_equal(d->preexisting_bytes, 50);
	assert_int_equal(d->preexisting_count, 1);
	assert_true(tl->mem[1].flags & CG_MEM_PREEXISTING);
	assert_int_equal(tl->anomalies[CG_ANOM_FREE_BEFORE_TRACE].count, 1);
	assert_string_equal(tl->anomalies[CG_ANOM_FREE_BEFORE_TRACE].examples[0],
			    "line 4: free of \"old\" (50 B) on cpu, never allocated in the trace");
	uint64_t t;
	assert_int_equal(peak_of(tl, 0, &t), 150); /* 50 live from the start + 100 */
	assert_int_equal(t, 10);
	assert_int_equal(d->live_at_end, 100);
	cg_timeline_free(tl);
}

static void ids_can_be_reused_after_a_free(void **state)
{
	char b[4096] = "";
	mem(b, 1, "x", "cpu", 10, "alloc");
	mem(b, 2, "x", "cpu", 10, "free");
	mem(b, 3, "x", "cpu", 20, "alloc");
	mem(b, 4, "x", "cpu", 20, "free");
	cg_timeline *tl = run(b);
	assert_int_equal(tl->mem[0].pair, 1);
	assert_int_equal(tl->mem[1].pair, 0);
	assert_int_equal(tl->mem[2].pair, 3);
	assert_int_equal(tl->mem[3].pair, 2);
	for (int a = 0; a < CG_ANOM_COUNT; a++)
		if (a != CG_ANOM_SPAN_NEVER_ENDED)
			assert_int_equal(tl->anomalies[a].count, 0);
	assert_int_equal(peak_of(tl, 0, NULL), 20);
	assert_int_equal(tl->devices[0].live_at_end, 0);
	cg_timeline_free(tl);
}

static void allocating_a_live_id_ends_the_earlier_allocation(void **state)
{
	char b[4096] = "";
	mem(b, 1, "x", "cpu", 10, "alloc");
	mem(b, 2, "x", "cpu", 30, "alloc");
	mem(b, 3, "x", "cpu", 30, "free");
	cg_timeline *tl = run(b);
	assert_true(tl->mem[0].flags & CG_MEM_REPLACED);
	assert_int_equal(tl->mem[0].pair, 1);
	assert_true(tl->mem[1].flags & CG_MEM_REPLACES);
	assert_int_equal(tl->mem[1].pair, 2);
	assert_int_equal(cg_timeline_mem_removed(tl, 1), 10);
	assert_int_equal(tl->anomalies[CG_ANOM_ALLOC_OF_LIVE_ID].count, 1);
	assert_int_equal(peak_of(tl, 0, NULL), 30); /* never 40: the first is gone */
	assert_int_equal(tl->devices[0].live_at_end, 0);
	assert_int_equal(tl->devices[0].live_count_at_end, 0);
	cg_timeline_free(tl);
}

static void a_second_free_is_a_double_free_and_ignored(void **state)
{
	char b[4096] = "";
	mem(b, 1, "x", "cpu", 10, "alloc");
	mem(b, 2, "y", "cpu", 5, "alloc");
	mem(b, 3, "x", "cpu", 10, "free");
	mem(b, 4, "x", "cpu", 10, "free");
	cg_timeline *tl = run(b);
	assert_true(tl->mem[3].flags & CG_MEM_DOUBLE_FREE);
	assert_int_equal(tl->mem[3].bytes, 0);
	assert_int_equal(tl->anomalies[CG_ANOM_DOUBLE_FREE].count, 1);
	assert_int_equal(tl->anomalies[CG_ANOM_FREE_BEFORE_TRACE].count, 0);
	assert_int_equal(tl->devices[0].live_at_end, 5);
	cg_timeline_free(tl);
}

static void a_free_releases_its_allocations_bytes(void **state)
{
	char b[4096] = "";
	mem(b, 1, "x", "cpu", 10, "alloc");
	mem(b, 2, "x", "cpu", 7, "free");
	cg_timeline *tl = run(b);
	assert_true(tl->mem[1].flags & CG_MEM_BYTES_MISMATCH);
	assert_int_equal(tl->mem[1].bytes, 10);
	assert_int_equal(tl->devices[0].live_at_end, 0);
	assert_string_equal(tl->anomalies[CG_ANOM_BYTES_MISMATCH].examples[0],
			    "line 4: free of \"x\" on cpu says 7 B; its allocation at line 3 had 10 B");
	cg_timeline_free(tl);
}

static void records_are_ordered_by_time_stably(void **state)
{
	char b[4096] = "";
	mem(b, 30, "d", "cpu", 1, "alloc"); /* line 3 */
	mem(b, 10, "a", "cpu", 1, "alloc"); /* line 4 */
	mem(b, 10, "b", "cpu", 1, "alloc"); /* line 5 */
	mem(b, 20, "c", "cpu", 1, "alloc"); /* line 6 */
	mem(b, 10, "e", "cpu", 1, "alloc"); /* line 7 */
	cg_timeline *tl = run(b);
	uint32_t lines[] = {4, 5, 7, 6, 3};
	for (int i = 0; i < 5; i++)
		assert_int_equal(tl->mem[i].line, lines[i]);
	cg_timeline_free(tl);
}

static void large_out_of_order_input_sorts_like_a_stable_sort(void **state)
{
	/* 3000 records with times that go back and forth; compare with insertion order by (t, line). */
	size_t cap = 3000 * 160 + 256, n = 0;
	char *text = malloc(cap);
	n += (size_t)sprintf(text, META ROOT);
	for (int i = 0; i < 3000; i++) {
		unsigned long long t = (unsigned long long)((i * 7919) % 1000) * 1000003ull + (i % 3) * (1ull << 40);
		n += (size_t)sprintf(text + n,
				     "{\"kind\":\"memory\",\"timestamp_ns\":%llu,\"tensor_id\":\"t%d\",\"span_id\":\"s\","
				     "\"device\":\"%s\",\"bytes\":1,\"action\":\"alloc\",\"dtype\":\"f32\"}\n",
				     t, i, i % 2 ? "cuda:0" : "cpu");
	}
	cg_timeline *tl = tu_ingest_text(text);
	free(text);
	assert_int_equal(tl->ndevices, 2);
	for (uint32_t d = 0; d < 2; d++) {
		const cg_device *dev = &tl->devices[d];
		assert_int_equal(dev->mem_count, 1500);
		for (uint32_t k = 1; k < dev->mem_count; k++) {
			const cg_mem *p = &tl->mem[dev->mem_first + k - 1], *m = &tl->mem[dev->mem_first + k];
			assert_int_equal(m->device, d);
			assert_true(p->t_ns < m->t_ns || (p->t_ns == m->t_ns && p->line < m->line));
		}
	}
	cg_timeline_free(tl);
}

static void devices_pair_independently(void **state)
{
	char b[4096] = "";
	mem(b, 1, "x", "cuda:0", 10, "alloc");
	mem(b, 2, "x", "cuda:1", 20, "alloc");
	mem(b, 3, "x", "cuda:0", 10, "free");
	cg_timeline *tl = run(b);
	assert_int_equal(tl->ndevices, 2);
	assert_int_equal(tl->devices[0].live_at_end, 0);
	assert_int_equal(tl->devices[1].live_at_end, 20);
	assert_int_equal(tl->anomalies[CG_ANOM_ALLOC_OF_LIVE_ID].count, 0);
	cg_timeline_free(tl);
}

#define SPAN(id, parent, name, start, step) \
	"{\"kind\":\"span_start\",\"id\":\"" id "\"," parent "\"name\":\"" name "\",\"start_ns\":" #start \
	",\"span_kind\":\"module\"" step "}\n"
#define P(x) "\"parent_id\":\"" x "\","
#define STEP(x) ",\"step\":\"" x "\""

static void nested_spans_inherit_their_step(void **state)
{
	cg_timeline *tl = run(
		/* the child comes before its parent in the file: order does not matter */
		SPAN("c", P("b"), "encoder", 3, "")
		SPAN("b", P("s"), "model", 2, STEP("forward"))
		SPAN("d", P("c"), "attn", 4, STEP("backward"))
		SPAN("e", P("d"), "mm", 5, "")
		"{\"kind\":\"memory\",\"timestamp_ns\":6,\"tensor_id\":\"t\",\"span_id\":\"c\",\"device\":\"cpu\","
		"\"bytes\":1,\"action\":\"alloc\",\"dtype\":\"f32\"}\n");
	const char *names[] = {"root", "encoder", "model", "attn", "mm"};
	cg_phase phases[] = {CG_PHASE_NONE, CG_PHASE_FORWARD, CG_PHASE_FORWARD, CG_PHASE_BACKWARD, CG_PHASE_BACKWARD};
	uint32_t depths[] = {0, 2, 1, 3, 4};
	for (int i = 0; i < 5; i++) {
		assert_string_equal(cg_timeline_str(tl, tl->spans[i].name), names[i]);
		assert_int_equal(tl->spans[i].phase, phases[i]);
		assert_int_equal(tl->spans[i].depth, depths[i]);
	}
	char path[256];
	assert_string_equal(cg_timeline_span_path(tl, 4, path, sizeof path), "root/model/encoder/attn/mm");
	assert_int_equal(cg_timeline_mem_phase(tl, &tl->mem[0]), CG_PHASE_FORWARD);
	assert_int_equal(tl->spans[1].parent, 2);
	cg_timeline_free(tl);
}

static void a_loop_of_parents_is_cut_not_followed(void **state)
{
	cg_timeline *tl = run(SPAN("a", P("b"), "a", 1, STEP("forward")) SPAN("b", P("a"), "b", 2, ""));
	assert_int_equal(tl->anomalies[CG_ANOM_SPAN_CYCLE].count, 1);
	/* one of the two became a root, the other its child */
	const cg_span *a = &tl->spans[1], *b = &tl->spans[2];
	assert_true((a->parent == CG_NONE && b->parent == 1) || (b->parent == CG_NONE && a->parent == 2));
	cg_timeline_free(tl);
}

static void span_problems_are_anomalies(void **state)
{
	cg_timeline *tl = run(
		SPAN("a", P("ghost"), "a", 1, "")
		SPAN("a", "", "again", 2, "")
		"{\"kind\":\"span_end\",\"id\":\"nope\",\"duration_ns\":1}\n"
		"{\"kind\":\"span_end\",\"id\":\"a\",\"duration_ns\":4}\n"
		"{\"kind\":\"memory\",\"timestamp_ns\":9,\"tensor_id\":\"t\",\"span_id\":\"zz\",\"device\":\"cpu\","
		"\"bytes\":1,\"action\":\"alloc\",\"dtype\":\"f32\"}\n");
	assert_int_equal(tl->nspans, 2);
	assert_int_equal(tl->anomalies[CG_ANOM_DUPLICATE_SPAN].count, 1);
	assert_int_equal(tl->anomalies[CG_ANOM_UNKNOWN_SPAN].count, 2);
	assert_int_equal(tl->anomalies[CG_ANOM_SPAN_END_WITHOUT_START].count, 1);
	assert_string_equal(tl->anomalies[CG_ANOM_UNKNOWN_SPAN].examples[0],
			    "line 3: span \"a\" names parent \"ghost\", which never started");
	assert_int_equal(tl->mem[0].span, CG_NONE);
	assert_int_equal(tl->spans[1].end_ns, 5);
	/* the root never ended: it runs to the end of the trace */
	assert_int_equal(tl->spans[0].end_ns, 9);
	assert_false(tl->spans[0].flags & CG_SPAN_ENDED);
	assert_int_equal(tl->anomalies[CG_ANOM_SPAN_NEVER_ENDED].count, 1);
	cg_timeline_free(tl);
}

static void live_bytes_beyond_64_bits_are_an_error(void **state)
{
	char b[4096] = "";
	mem(b, 1, "x", "cpu", 9223372036854775808ull, "alloc");
	mem(b, 2, "y", "cpu", 9223372036854775808ull, "alloc");
	char text[8192];
	snprintf(text, sizeof text, META ROOT "%s", b);
	cg_timeline *tl = NULL;
	cg_error err;
	assert_int_equal(tu_ingest_text_rc(text, NULL, &tl, &err), CG_EINPUT);
	assert_null(tl);
	assert_non_null(strstr(err.msg, ":4: live bytes on cpu exceed 2^64 - 1 bytes"));
}

static cg_timeline *unpaired(void)
{
	/* Records without ids, as the raw memory timeline has them. */
	cg_timeline *tl = cg_timeline_new(NULL);
	tl->source.pairing_known = false;
	uint16_t d;
	assert_int_equal(cg_timeline_device(tl, "cuda:0", 6, &d), 0);
	struct { uint64_t t, bytes; cg_action a; cg_category c; } recs[] = {
		{3, 30, CG_FREE, CG_CAT_GRADIENT},	 /* running sum -30 */
		{1, 100, CG_ALLOC, CG_CAT_ACTIVATION},	 /* ... but first in time: 100 */
		{2, 40, CG_FREE, CG_CAT_TEMPORARY},	 /* 60 */
		{4, 200, CG_FREE, CG_CAT_PARAMETER},	 /* -170 */
		{5, 20, CG_ALLOC, CG_CAT_ACTIVATION},	 /* -150 */
	};
	for (uint32_t i = 0; i < 5; i++) {
		cg_mem m = {0};
		m.t_ns = recs[i].t;
		m.bytes = recs[i].bytes;
		m.action = (uint8_t)recs[i].a;
		m.category = (uint8_t)recs[i].c;
		m.line = i + 1;
		m.device = d;
		m.span = CG_STR_EMPTY;
		assert_int_equal(cg_timeline_add_mem(tl, &m), 0);
	}
	cg_error err;
	assert_int_equal(cg_timeline_finalize(tl, &err), 0);
	return tl;
}

static void unpaired_frees_remove_their_own_bytes_from_a_running_sum(void **state)
{
	cg_timeline *tl = unpaired();
	const cg_device *d = &tl->devices[0];
	/* In time order: activation +100, temporary -40, gradient -30, parameter
	 * -200, activation +20. No category may go below zero: 40 + 30 + 200 B of
	 * temporaries, gradients and parameters were there from the start. */
	assert_int_equal(d->baseline_bytes, 0);
	assert_int_equal(d->preexisting_bytes, 270);
	assert_int_equal(d->initial_by_cat[CG_CAT_PARAMETER], 200);
	assert_int_equal(d->initial_by_cat[CG_CAT_ACTIVATION], 0);
	assert_int_equal(peak_of(tl, 0, NULL), 370);
	assert_int_equal(d->live_at_end, 120);
	/* Two frees more than allocations at the low point (3 frees after 1 alloc). */
	assert_int_equal(d->preexisting_count, 2);
	assert_int_equal(d->live_count_at_end, 1);
	for (uint32_t i = 0; i < 5; i++) {
		const cg_mem *m = &tl->mem[i];
		assert_int_equal(m->pair, CG_NONE);
		assert_int_equal(cg_timeline_mem_removed(tl, i), m->action == CG_FREE ? m->bytes : 0);
	}
	/* Each free keeps its own category. */
	assert_int_equal(tl->mem[3].category, CG_CAT_PARAMETER);
	assert_int_equal(tl->source.warnings, 1);
	assert_non_null(strstr(tl->source.diags[0].msg, "frees outrun allocations by up to 270 B"));
	cg_timeline_free(tl);
}

static void a_baseline_set_after_finalize_moves_live_bytes_at_the_end(void **state)
{
	cg_timeline *tl = unpaired();
	cg_error err;
	assert_int_equal(cg_timeline_set_baseline(tl, 0, 1000, &err), 0);
	assert_int_equal(tl->devices[0].live_at_end, 1120);
	assert_int_equal(peak_of(tl, 0, NULL), 1370);
	assert_int_equal(cg_timeline_set_baseline(tl, 0, UINT64_MAX, &err), CG_EINPUT);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(free_without_alloc_counts_as_live_from_start),
		cmocka_unit_test(ids_can_be_reused_after_a_free),
		cmocka_unit_test(allocating_a_live_id_ends_the_earlier_allocation),
		cmocka_unit_test(a_second_free_is_a_double_free_and_ignored),
		cmocka_unit_test(a_free_releases_its_allocations_bytes),
		cmocka_unit_test(records_are_ordered_by_time_stably),
		cmocka_unit_test(large_out_of_order_input_sorts_like_a_stable_sort),
		cmocka_unit_test(devices_pair_independently),
		cmocka_unit_test(nested_spans_inherit_their_step),
		cmocka_unit_test(a_loop_of_parents_is_cut_not_followed),
		cmocka_unit_test(span_problems_are_anomalies),
		cmocka_unit_test(live_bytes_beyond_64_bits_are_an_error),
		cmocka_unit_test(unpaired_frees_remove_their_own_bytes_from_a_running_sum),
		cmocka_unit_test(a_baseline_set_after_finalize_moves_live_bytes_at_the_end),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
