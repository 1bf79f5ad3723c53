/* Span-path tree: bytes by allocating span path, same names merged under
 * the same parent, children in time order, own and total bytes per node. */
#include "tlbuild.h"

#include <string.h>

#include "pathtree.h"

#define A CG_ALLOC

static const char *name(const cg_timeline *tl, const cg_pathnode *n)
{
	return n->kind == CG_PATHNODE_SPAN ? cg_timeline_str(tl, n->name) : "";
}

static void spans_of_one_name_under_one_parent_merge_as_in_a_flame_graph(void **state)
{
	cg_timeline *tl = tu_tl_new();
	/* run > step#1 (t=100) > fwd > linear (twice)     run > step#0 (t=0) > fwd > linear
	 *                         > bwd > linear (backward: the merged "linear" under step#* differs) */
	tu_span(tl, "r", NULL, "run", 0, 1000, CG_PHASE_NONE);
	tu_span(tl, "s1", "r", "step#1", 100, 200, CG_PHASE_NONE);
	tu_span(tl, "s0", "r", "step#0", 0, 99, CG_PHASE_NONE);
	tu_span(tl, "f0", "s0", "fwd", 1, 50, CG_PHASE_FORWARD);
	tu_span(tl, "l0", "f0", "linear", 2, 10, CG_PHASE_NONE);
	tu_span(tl, "l0b", "f0", "linear", 11, 20, CG_PHASE_NONE);
	tu_span(tl, "b0", "s0", "bwd", 51, 98, CG_PHASE_BACKWARD);
	tu_span(tl, "f1", "s1", "fwd", 101, 150, CG_PHASE_FORWARD);
	tu_span(tl, "l1", "f1", "linear", 102, 110, CG_PHASE_NONE);
	tu_mem(tl, 3, "a", "l0", "cuda:0", 10, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 12, "b", "l0b", "cuda:0", 20, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 13, "c", "f0", "cuda:0", 5, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 60, "d", "b0", "cuda:0", 40, A, CG_CAT_GRADIENT, NULL);
	tu_mem(tl, 103, "e", "l1", "cuda:0", 100, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 500, "f", NULL, "cuda:0", 1, A, CG_CAT_UNKNOWN, NULL);
	tu_tl_finalize(tl);
	uint32_t all[6] = {0, 1, 2, 3, 4, 5};
	cg_pathtree_input in = {true, all, 6, 0, 0, 0};
	cg_pathtree_result *r;
	assert_int_equal(cg_pathtree_run(&r, tl, &in, 1, NULL), 0);
	const cg_pathtree *t = &r->trees[0];
	/* pre-order: all, run, step#0, fwd, linear, bwd, step#1, fwd, linear */
	static const char *const names[] = {"", "run", "step#0", "fwd", "linear", "bwd", "step#1", "fwd", "linear"};
	static const uint32_t depth[] = {0, 1, 2, 3, 4, 3, 2, 3, 4};
	static const uint64_t own[] = {1, 0, 0, 5, 30, 40, 0, 0, 100};
	static const uint64_t total[] = {176, 175, 75, 35, 30, 40, 100, 100, 100};
	static const uint64_t count[] = {6, 5, 4, 3, 2, 1, 1, 1, 1};
	static const uint32_t subtree_end[] = {9, 9, 6, 5, 5, 6, 9, 9, 9};
	assert_int_equal(t->nnodes, 9);
	for (uint32_t i = 0; i < 9; i++) {
		assert_string_equal(name(tl, &t->nodes[i]), names[i]);
		assert_int_equal(t->nodes[i].depth, depth[i]);
		assert_int_equal(t->nodes[i].own_bytes, own[i]);
		assert_int_equal(t->nodes[i].total_bytes, total[i]);
		assert_int_equal(t->nodes[i].total_count, count[i]);
		assert_int_equal(t->nodes[i].subtree_end, subtree_end[i]);
	}
	assert_int_equal(t->nodes[0].kind, CG_PATHNODE_ROOT);
	assert_int_equal(t->nodes[0].parent, CG_NONE);
	assert_int_equal(t->nodes[4].parent, 3);
	assert_int_equal(t->nodes[1].nchildren, 2);
	assert_int_equal(t->nodes[4].own_count, 2); /* the two linear spans merged */
	assert_int_equal(t->nodes[3].phase, CG_PHASE_FORWARD);
	assert_int_equal(t->nodes[4].phase, CG_PHASE_FORWARD); /* inherited */
	assert_int_equal(t->nodes[5].phase, CG_PHASE_BACKWARD);
	assert_int_equal(t->nodes[2].first_ns, 0);
	assert_int_equal(t->nodes[6].first_ns, 100);
	cg_pathtree_free(r);
	cg_timeline_free(tl);
}

static void merged_spans_with_different_phases_are_mixed(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "r", NULL, "run", 0, 100, CG_PHASE_NONE);
	tu_span(tl, "x1", "r", "mm", 1, 2, CG_PHASE_FORWARD);
	tu_span(tl, "x2", "r", "mm", 3, 4, CG_PHASE_BACKWARD);
	tu_mem(tl, 1, "a", "x1", "cuda:0", 8, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 3, "b", "x2", "cuda:0", 8, A, CG_CAT_GRADIENT, NULL);
	tu_tl_finalize(tl);
	uint32_t all[2] = {0, 1};
	cg_pathtree_input in = {true, all, 2, 0, 0, 0};
	cg_pathtree_result *r;
	cg_pathtree_run(&r, tl, &in, 1, NULL);
	const cg_pathtree *t = &r->trees[0];
	assert_int_equal(t->nnodes, 3);
	assert_int_equal(t->nodes[2].phase, CG_PATHTREE_MIXED);
	assert_int_equal(t->nodes[2].total_bytes, 16);
	cg_pathtree_free(r);
	cg_timeline_free(tl);
}

static void memory_from_before_the_trace_and_profiling_comes_first(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "r", NULL, "run", 0, 100, CG_PHASE_NONE);
	tu_mem(tl, 1, "a", "r", "cuda:0", 8, A, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	uint32_t all[1] = {0};
	cg_pathtree_input in = {true, all, 1, 300, 2, 1000};
	cg_pathtree_result *r;
	cg_pathtree_run(&r, tl, &in, 1, NULL);
	const cg_pathtree *t = &r->trees[0];
	assert_int_equal(t->nnodes, 4);
	assert_int_equal(t->nodes[0].total_bytes, 1308);
	assert_int_equal(t->nodes[0].total_count, 3);
	assert_int_equal(t->nodes[1].kind, CG_PATHNODE_BEFORE_PROFILING);
	assert_int_equal(t->nodes[1].own_bytes, 1000);
	assert_int_equal(t->nodes[2].kind, CG_PATHNODE_BEFORE_TRACE);
	assert_int_equal(t->nodes[2].own_count, 2);
	assert_string_equal(name(tl, &t->nodes[3]), "run");
	cg_pathtree_free(r);
	cg_timeline_free(tl);
}

/* A chain of 20,000 nested spans: the tree stops at depth 256, where the
 * deepest spans count as their ancestor at depth 255. Two devices share
 * the span structure but each tree holds only its own allocations. */
static void a_deep_chain_of_spans_is_cut_at_the_maximum_depth(void **state)
{
	enum { N = 20000 };
	cg_timeline *tl = tu_tl_new();
	char id[32], parent[32];
	for (int i = 0; i < N; i++) {
		snprintf(id, sizeof id, "s%d", i);
		snprintf(parent, sizeof parent, "s%d", i - 1);
		tu_span(tl, id, i ? parent : NULL, "level", (uint64_t)i, 2 * N, CG_PHASE_NONE);
	}
	snprintf(id, sizeof id, "s%d", N - 1);
	tu_mem(tl, 3 * N, "a", id, "cuda:0", 8, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 3 * N, "b", "s3", "cuda:1", 16, A, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	uint32_t a0[1] = {0}, a1[1] = {1};
	cg_pathtree_input in[3] = {{true, a0, 1, 0, 0, 0}, {true, a1, 1, 0, 0, 0}, {false, NULL, 0, 0, 0, 0}};
	cg_pathtree_result *r;
	cg_pathtree_run(&r, tl, in, 3, NULL);
	const cg_pathtree *t = &r->trees[0];
	assert_int_equal(t->nnodes, CG_PATHTREE_MAX_DEPTH + 1);
	assert_int_equal(t->nodes[CG_PATHTREE_MAX_DEPTH].depth, CG_PATHTREE_MAX_DEPTH);
	assert_int_equal(t->nodes[CG_PATHTREE_MAX_DEPTH].own_bytes, 8);
	assert_int_equal(t->nodes[1].total_bytes, 8);
	assert_int_equal(r->trees[1].nnodes, 5); /* all, s0 .. s3 */
	assert_int_equal(r->trees[1].nodes[4].own_bytes, 16);
	assert_int_equal(r->trees[2].nnodes, 0);
	assert_null(r->trees[2].nodes);
	cg_pathtree_free(r);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spans_of_one_name_under_one_parent_merge_as_in_a_flame_graph),
		cmocka_unit_test(merged_spans_with_different_phases_are_mixed),
		cmocka_unit_test(memory_from_before_the_trace_and_profiling_comes_first),
		cmocka_unit_test(a_deep_chain_of_spans_is_cut_at_the_maximum_depth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
