/* The span tree: parents, ends, depths and inherited phases, and what
 * becomes of problems (unknown, duplicate, unended or looping spans): each
 * is an anomaly, never a failure. Lines are numbered from 2 in call order
 * (tlbuild.h); a span given an end takes two lines, its start and its end. */
#include "tlbuild.h"

#include <string.h>

#include "finalize.h"
#include "spantree.h"

#define OPEN UINT64_MAX
#define NONE CG_PHASE_NONE

static cg_str str(cg_timeline *tl, const char *s)
{
	cg_str id = CG_STR_EMPTY;
	if (s)
		assert_int_equal(cg_timeline_intern(tl, s, strlen(s), &id), 0);
	return id;
}

/* An op, a tensor and an edge naming spans by id, at lines of our choosing. */
static void add_op(cg_timeline *tl, const char *span, uint64_t t, uint64_t duration, uint32_t line)
{
	cg_op op = {0};
	op.t_ns = t;
	op.duration_ns = duration;
	op.name = str(tl, "aten::mm");
	op.span = str(tl, span);
	op.line = line;
	op.device = tu_device(tl, "cpu");
	assert_int_equal(cg_timeline_add_op(tl, &op, NULL, 0), 0);
}

static void add_tensor(cg_timeline *tl, const char *span, uint32_t line)
{
	cg_tensor t = {0};
	t.tensor = str(tl, "w");
	t.span = str(tl, span);
	t.line = line;
	t.device = tu_device(tl, "cpu");
	assert_int_equal(cg_timeline_add_tensor(tl, &t), 0);
}

static void add_edge(cg_timeline *tl, const char *from, const char *to, uint32_t line)
{
	cg_edge e = {0};
	e.from_span = str(tl, from);
	e.to_span = str(tl, to);
	e.line = line;
	assert_int_equal(cg_timeline_add_edge(tl, &e), 0);
}

static uint64_t anomalies(const cg_timeline *tl)
{
	uint64_t n = 0;
	for (int a = 0; a < CG_ANOM_COUNT; a++)
		n += tl->anomalies[a].count;
	return n;
}

static void parents_become_indices_and_depth_counts_from_the_root(void **state)
{
	/* run -> step -> fwd, run -> eval; other -> inner: two trees */
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "r", NULL, "run", 0, 100, NONE);
	tu_span(tl, "a", "r", "step", 1, 90, NONE);
	tu_span(tl, "b", "a", "fwd", 2, 50, NONE);
	tu_span(tl, "c", "r", "eval", 91, 99, NONE);
	tu_span(tl, "r2", NULL, "other", 5, 6, NONE);
	tu_span(tl, "d", "r2", "inner", 5, 6, NONE);
	cg_spantree_resolve(tl, 0); /* on its own, without pairing */
	const uint32_t parents[] = {CG_NONE, 0, 1, 0, CG_NONE, 4}, depths[] = {0, 1, 2, 1, 0, 1};
	const uint64_t ends[] = {100, 90, 50, 99, 6, 6};
	assert_int_equal(tl->nspans, 6);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(tl->spans[i].parent, parents[i]);
		assert_int_equal(tl->spans[i].depth, depths[i]);
		assert_int_equal(tl->spans[i].end_ns, ends[i]);
		assert_true(tl->spans[i].flags & CG_SPAN_ENDED);
	}
	assert_int_equal(anomalies(tl), 0);
	assert_int_equal(tl->nspan_ends, 0); /* the ends were applied and dropped */
	assert_false(tl->finalized);
	cg_timeline_free(tl);
}

static void an_end_sets_start_plus_duration_and_only_the_first_counts(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "x", NULL, "x", 10, OPEN, NONE);
	tu_span_end(tl, "x", 5);   /* 10 + 5 = 15 */
	tu_span_end(tl, "x", 100); /* a second end: ignored, as a second start is */
	tu_span(tl, "z", NULL, "z", 30, OPEN, NONE);
	tu_span_end(tl, "z", 70); /* 30 + 70 = 100: later than any start */
	tu_tl_finalize(tl);
	assert_int_equal(tl->spans[0].end_ns, 15);
	assert_int_equal(tl->spans[1].end_ns, 100);
	assert_int_equal(tl->last_t_ns, 100);
	assert_int_equal(anomalies(tl), 0);
	cg_timeline_free(tl);
}

static void an_end_beyond_2_pow_64_saturates(void **state)
{
	/* 20 + (2^64 - 1) does not fit: the end is the last representable time */
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "y", NULL, "y", 20, OPEN, NONE);
	tu_span_end(tl, "y", UINT64_MAX);
	tu_span(tl, "w", NULL, "w", 0, OPEN, NONE);
	tu_span_end(tl, "w", UINT64_MAX); /* 0 + (2^64 - 1): fits exactly */
	tu_tl_finalize(tl);
	assert_int_equal(tl->spans[0].end_ns, UINT64_MAX);
	assert_int_equal(tl->spans[1].end_ns, UINT64_MAX);
	assert_true(tl->spans[0].flags & CG_SPAN_ENDED);
	assert_int_equal(tl->last_t_ns, UINT64_MAX);
	cg_timeline_free(tl);
}

static void phases_are_inherited_from_the_nearest_ancestor_with_a_step(void **state)
{
	/* r -> a(forward) -> b -> c;  a -> d(backward) -> e;  r -> f;  g(optimizer) -> h.
	 * Written children first: the file's order must not matter. */
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "c", "b", "c", 4, OPEN, NONE);
	tu_span(tl, "b", "a", "b", 3, OPEN, NONE);
	tu_span(tl, "e", "d", "e", 6, OPEN, NONE);
	tu_span(tl, "d", "a", "d", 5, OPEN, CG_PHASE_BACKWARD);
	tu_span(tl, "h", "g", "h", 9, OPEN, NONE);
	tu_span(tl, "a", "r", "a", 2, OPEN, CG_PHASE_FORWARD);
	tu_span(tl, "f", "r", "f", 7, OPEN, NONE);
	tu_span(tl, "g", NULL, "g", 8, OPEN, CG_PHASE_OPTIMIZER);
	tu_span(tl, "r", NULL, "r", 1, OPEN, NONE);
	tu_mem(tl, 10, "t", "e", "cpu", 4, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 11, "u", NULL, "cpu", 4, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	struct {
		cg_phase phase, step;
		uint32_t depth;
	} want[] = {
		{CG_PHASE_FORWARD, NONE, 3},		   /* c */
		{CG_PHASE_FORWARD, NONE, 2},		   /* b */
		{CG_PHASE_BACKWARD, NONE, 3},		   /* e */
		{CG_PHASE_BACKWARD, CG_PHASE_BACKWARD, 2}, /* d: its own step over a's */
		{CG_PHASE_OPTIMIZER, NONE, 1},		   /* h */
		{CG_PHASE_FORWARD, CG_PHASE_FORWARD, 1},   /* a */
		{NONE, NONE, 1},			   /* f: no ancestor has a step */
		{CG_PHASE_OPTIMIZER, CG_PHASE_OPTIMIZER, 0}, /* g */
		{NONE, NONE, 0},			   /* r */
	};
	for (int i = 0; i < 9; i++) {
		assert_int_equal(tl->spans[i].phase, want[i].phase);
		assert_int_equal(tl->spans[i].step, want[i].step);
		assert_int_equal(tl->spans[i].depth, want[i].depth);
	}
	assert_int_equal(tl->mem[0].span, 2);
	assert_int_equal(cg_timeline_mem_phase(tl, &tl->mem[0]), CG_PHASE_BACKWARD);
	assert_int_equal(tl->mem[1].span, CG_NONE);
	assert_int_equal(cg_timeline_mem_phase(tl, &tl->mem[1]), NONE);
	cg_timeline_free(tl);
}

static void unknown_spans_become_none_and_are_counted(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "a", "ghost", "a", 1, 50, NONE);	       /* lines 2, 3 */
	tu_span(tl, "k", "a", "k", 2, 40, NONE);	       /* lines 4, 5 */
	tu_mem(tl, 3, "t", "nowhere", "cpu", 8, CG_ALLOC, CG_CAT_INPUT, NULL); /* line 6 */
	tu_mem(tl, 4, "u", "k", "cpu", 8, CG_ALLOC, CG_CAT_INPUT, NULL);	   /* line 7 */
	add_op(tl, "nowhere", 5, 1, 100);
	add_op(tl, NULL, 6, 1, 101); /* no span: not an anomaly */
	add_tensor(tl, "nowhere", 102);
	add_edge(tl, "a", "ghost2", 103);
	tu_tl_finalize(tl);
	/* the span with an unknown parent is a root, its child under it */
	assert_int_equal(tl->spans[0].parent, CG_NONE);
	assert_int_equal(tl->spans[0].depth, 0);
	assert_int_equal(tl->spans[1].parent, 0);
	assert_int_equal(tl->spans[1].depth, 1);
	assert_int_equal(tl->mem[0].span, CG_NONE);
	assert_int_equal(tl->mem[1].span, 1);
	assert_int_equal(tl->ops[0].span, CG_NONE);
	assert_int_equal(tl->ops[1].span, CG_NONE);
	assert_int_equal(tl->tensors[0].span, CG_NONE);
	assert_int_equal(tl->edges[0].from_span, 0);
	assert_int_equal(tl->edges[0].to_span, CG_NONE);
	/* parent, memory record, op, tensor, edge's target: 5 */
	const cg_anomaly_stats *u = &tl->anomalies[CG_ANOM_UNKNOWN_SPAN];
	assert_int_equal(u->count, 5);
	assert_int_equal(anomalies(tl), 5);
	assert_string_equal(u->examples[0], "line 2: span \"a\" names parent \"ghost\", which never started");
	assert_string_equal(u->examples[1], "line 6: memory record names span \"nowhere\", which never started");
	assert_string_equal(u->examples[2], "line 100: op names span \"nowhere\", which never started");
	assert_string_equal(u->examples[3], "line 102: tensor names span \"nowhere\", which never started");
	assert_string_equal(u->examples[4], "line 103: edge names span \"ghost2\", which never started");
	cg_timeline_free(tl);
}

static void a_duplicate_span_id_keeps_the_first(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "a", NULL, "first", 1, OPEN, NONE);		/* line 2 */
	tu_span(tl, "a", NULL, "again", 5, OPEN, CG_PHASE_FORWARD); /* line 3 */
	tu_span(tl, "c", "a", "child", 6, OPEN, NONE);		/* line 4 */
	tu_span(tl, "a", NULL, "third", 7, OPEN, NONE);		/* line 5 */
	tu_span_end(tl, "a", 10);				/* line 6: ends the first, 1 + 10 */
	tu_span_end(tl, "c", 1);				/* line 7: 6 + 1 */
	tu_mem(tl, 8, "t", "a", "cpu", 8, CG_ALLOC, CG_CAT_INPUT, NULL);
	tu_tl_finalize(tl);
	assert_int_equal(tl->nspans, 2);
	assert_string_equal(cg_timeline_str(tl, tl->spans[0].name), "first");
	assert_int_equal(tl->spans[0].start_ns, 1);
	assert_int_equal(tl->spans[0].end_ns, 11);
	assert_int_equal(tl->spans[0].phase, NONE); /* not the duplicate's step */
	assert_string_equal(cg_timeline_str(tl, tl->spans[1].name), "child");
	assert_int_equal(tl->spans[1].parent, 0);
	assert_int_equal(tl->spans[1].end_ns, 7);
	assert_int_equal(tl->mem[0].span, 0);
	const cg_anomaly_stats *d = &tl->anomalies[CG_ANOM_DUPLICATE_SPAN];
	assert_int_equal(d->count, 2);
	assert_string_equal(d->examples[0], "line 3: span \"a\" already started at line 2");
	assert_string_equal(d->examples[1], "line 5: span \"a\" already started at line 2");
	assert_int_equal(anomalies(tl), 2);
	cg_timeline_free(tl);
}

static void an_end_without_a_start_is_counted_and_changes_nothing(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "a", NULL, "a", 1, 9, NONE); /* lines 2, 3 */
	tu_span_end(tl, "ghost", 3);		  /* line 4 */
	tu_mem(tl, 2, "t", "a", "cpu", 8, CG_ALLOC, CG_CAT_INPUT, NULL); /* line 5 */
	tu_span_end(tl, "cpu", 3); /* line 6: a string of the trace, but no span's id */
	tu_tl_finalize(tl);
	assert_int_equal(tl->nspans, 1);
	assert_int_equal(tl->spans[0].end_ns, 9);
	const cg_anomaly_stats *e = &tl->anomalies[CG_ANOM_SPAN_END_WITHOUT_START];
	assert_int_equal(e->count, 2);
	assert_string_equal(e->examples[0], "line 4: end of span \"ghost\", which never started");
	assert_string_equal(e->examples[1], "line 6: end of span \"cpu\", which never started");
	assert_int_equal(anomalies(tl), 2);
	cg_timeline_free(tl);
}

static void loops_of_parents_are_cut_where_they_close(void **state)
{
	/* a -> c -> b -> a (each arrow: "has parent"), t under b, s its own
	 * parent. Walking from a, the first in the file, the chain a, c, b comes
	 * back to a: the link from a is cut and a becomes a root, so b is at
	 * depth 1, c and t at depth 2. s is cut the same way. */
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "a", "c", "a", 1, OPEN, CG_PHASE_FORWARD); /* line 2 */
	tu_span(tl, "b", "a", "b", 2, OPEN, NONE);		/* line 3 */
	tu_span(tl, "c", "b", "c", 3, OPEN, NONE);		/* line 4 */
	tu_span(tl, "t", "b", "t", 4, OPEN, NONE);		/* line 5 */
	tu_span(tl, "s", "s", "s", 5, OPEN, CG_PHASE_OPTIMIZER); /* line 6 */
	tu_tl_finalize(tl);
	const uint32_t parents[] = {CG_NONE, 0, 1, 1, CG_NONE}, depths[] = {0, 1, 2, 2, 0};
	const cg_phase phases[] = {CG_PHASE_FORWARD, CG_PHASE_FORWARD, CG_PHASE_FORWARD, CG_PHASE_FORWARD,
				   CG_PHASE_OPTIMIZER};
	for (int i = 0; i < 5; i++) {
		assert_int_equal(tl->spans[i].parent, parents[i]);
		assert_int_equal(tl->spans[i].depth, depths[i]);
		assert_int_equal(tl->spans[i].phase, phases[i]);
	}
	const cg_anomaly_stats *c = &tl->anomalies[CG_ANOM_SPAN_CYCLE];
	assert_int_equal(c->count, 2);
	assert_string_equal(c->examples[0], "line 2: span \"a\" is its own ancestor");
	assert_string_equal(c->examples[1], "line 6: span \"s\" is its own ancestor");
	char path[64];
	assert_string_equal(cg_timeline_span_path(tl, 3, path, sizeof path), "a/b/t");
	cg_timeline_free(tl);
}

static void spans_that_never_end_run_to_the_end_of_the_trace(void **state)
{
	/* The latest moment covered: an op at 50 running 30 ns ends at 80, a
	 * span from 10 ending 290 ns later ends at 300. Open spans end at 300. */
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "r", NULL, "root", 0, OPEN, NONE);	 /* line 2 */
	tu_span(tl, "x", "r", "late", 40, OPEN, NONE);	 /* line 3 */
	tu_span(tl, "z", "r", "ended", 10, 300, NONE);	 /* lines 4, 5 */
	tu_mem(tl, 70, "t", "x", "cpu", 8, CG_ALLOC, CG_CAT_INPUT, NULL);
	add_op(tl, "x", 50, 30, 200);
	tu_tl_finalize(tl);
	assert_int_equal(tl->last_t_ns, 300);
	assert_int_equal(tl->spans[0].end_ns, 300);
	assert_int_equal(tl->spans[1].end_ns, 300);
	assert_false(tl->spans[0].flags & CG_SPAN_ENDED);
	assert_true(tl->spans[2].flags & CG_SPAN_ENDED);
	const cg_anomaly_stats *n = &tl->anomalies[CG_ANOM_SPAN_NEVER_ENDED];
	assert_int_equal(n->count, 2);
	assert_string_equal(n->examples[0], "line 2: span \"r\" (root) never ended");
	assert_string_equal(n->examples[1], "line 3: span \"x\" (late) never ended");
	cg_timeline_free(tl);
}

static void an_open_span_that_starts_last_ends_where_it_starts(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 5, "t", NULL, "cpu", 8, CG_ALLOC, CG_CAT_INPUT, NULL);
	tu_span(tl, "late", NULL, "late", 900, OPEN, NONE);
	tu_tl_finalize(tl);
	assert_int_equal(tl->spans[0].end_ns, 900);
	assert_int_equal(tl->anomalies[CG_ANOM_SPAN_NEVER_ENDED].count, 1);
	cg_timeline_free(tl);
}

static void a_chain_of_200000_spans_written_leaf_first_is_settled(void **state)
{
	/* n0 (forward) <- n1 <- ... <- n199999, the leaf written first: depths
	 * are i, every phase forward, without deep recursion */
	enum { N = 200000 };
	cg_timeline *tl = tu_tl_new();
	char id[16], parent[16];
	for (int i = N - 1; i >= 0; i--) {
		snprintf(id, sizeof id, "n%d", i);
		snprintf(parent, sizeof parent, "n%d", i - 1);
		tu_span(tl, id, i ? parent : NULL, "s", (uint64_t)i, (uint64_t)i + 1,
			i ? NONE : CG_PHASE_FORWARD);
	}
	tu_tl_finalize(tl);
	assert_int_equal(tl->nspans, N);
	/* spans[k] is n(N - 1 - k) */
	for (uint32_t k = 0; k < N; k += 9973) {
		assert_int_equal(tl->spans[k].depth, N - 1 - k);
		assert_int_equal(tl->spans[k].phase, CG_PHASE_FORWARD);
	}
	assert_int_equal(tl->spans[N - 1].depth, 0);
	assert_int_equal(tl->spans[0].parent, 1);
	assert_int_equal(anomalies(tl), 0);
	cg_timeline_free(tl);
}

/* 100,000 memory records (runs on several threads), eleven naming a span
 * that never started, spread through them: on one thread or two, the same
 * spans and the same anomaly, its examples in record order. */
static cg_timeline *many_records(void)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "s", NULL, "run", 0, 200000, NONE);
	for (int i = 0; i < 100000; i++) {
		char tensor[16];
		snprintf(tensor, sizeof tensor, "x%d", i);
		tu_mem(tl, (uint64_t)i, tensor, i % 9973 == 5 ? "gone" : "s", "cpu", 8, CG_ALLOC, CG_CAT_ACTIVATION, NULL);
	}
	return tl;
}

static void records_resolve_alike_on_one_thread_or_several(void **state)
{
	(void)state;
	cg_timeline *one = many_records(), *two = many_records();
	cg_spantree_resolve(one, 1);
	cg_spantree_resolve(two, 2);
	const cg_anomaly_stats *a = &one->anomalies[CG_ANOM_UNKNOWN_SPAN], *b = &two->anomalies[CG_ANOM_UNKNOWN_SPAN];
	assert_int_equal(a->count, 11);
	assert_int_equal(b->count, 11);
	assert_int_equal(a->nexamples, b->nexamples);
	for (uint32_t k = 0; k < a->nexamples; k++)
		assert_string_equal(a->examples[k], b->examples[k]);
	/* lines count from 2: the span takes 2 and 3, record i is line 4 + i */
	assert_string_equal(b->examples[1], "line 9982: memory record names span \"gone\", which never started");
	for (size_t i = 0; i < one->nmem; i++)
		assert_int_equal(one->mem[i].span, two->mem[i].span);
	assert_int_equal(two->mem[9978].span, CG_NONE);
	assert_int_equal(two->mem[9979].span, 0);
	cg_timeline_free(one);
	cg_timeline_free(two);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(records_resolve_alike_on_one_thread_or_several),
		cmocka_unit_test(parents_become_indices_and_depth_counts_from_the_root),
		cmocka_unit_test(an_end_sets_start_plus_duration_and_only_the_first_counts),
		cmocka_unit_test(an_end_beyond_2_pow_64_saturates),
		cmocka_unit_test(phases_are_inherited_from_the_nearest_ancestor_with_a_step),
		cmocka_unit_test(unknown_spans_become_none_and_are_counted),
		cmocka_unit_test(a_duplicate_span_id_keeps_the_first),
		cmocka_unit_test(an_end_without_a_start_is_counted_and_changes_nothing),
		cmocka_unit_test(loops_of_parents_are_cut_where_they_close),
		cmocka_unit_test(spans_that_never_end_run_to_the_end_of_the_trace),
		cmocka_unit_test(an_open_span_that_starts_last_ends_where_it_starts),
		cmocka_unit_test(a_chain_of_200000_spans_written_leaf_first_is_settled),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
