/* Gradients pass: counts per state, and the parameters whose gradient was
 * missing or not finite. */
#include "tlbuild.h"

#include <math.h>

#include "gradients.h"

static void states_are_counted_and_bad_parameters_listed(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_gradient(tl, "MLP", "w1", CG_GRAD_PRESENT, true, 0.5);
	tu_gradient(tl, "MLP", "w2", CG_GRAD_PRESENT, true, 0.25);
	tu_gradient(tl, "MLP", "b2", CG_GRAD_MISSING, false, 0);  /* line 4 */
	tu_gradient(tl, "MLP", "w1", CG_GRAD_ZERO, true, 0);
	tu_gradient(tl, "MLP", "w2", CG_GRAD_PRESENT, true, NAN); /* line 6: a NaN norm */
	tu_gradient(tl, "MLP", "b2", CG_GRAD_MISSING, false, 0);
	tu_gradient(tl, "MLP", "w3", CG_GRAD_NON_FINITE, false, 0); /* line 8 */
	tu_gradient(tl, "Other", "w1", CG_GRAD_PRESENT, true, INFINITY); /* another root: line 9 */
	tu_tl_finalize(tl);
	cg_gradients_result *g;
	assert_int_equal(cg_gradients_run(&g, tl, NULL), 0);
	assert_int_equal(g->records, 8);
	assert_int_equal(g->by_state[CG_GRAD_PRESENT], 4);
	assert_int_equal(g->by_state[CG_GRAD_MISSING], 2);
	assert_int_equal(g->by_state[CG_GRAD_ZERO], 1);
	assert_int_equal(g->by_state[CG_GRAD_NON_FINITE], 1);
	assert_int_equal(g->non_finite_norms, 2);
	assert_int_equal(g->parameters, 5); /* MLP w1 w2 b2 w3, Other w1 */
	assert_int_equal(g->nproblems, 4);
	/* in the order of their first bad record */
	static const char *const keys[4] = {"b2", "w2", "w3", "w1"};
	static const uint64_t missing[4] = {2, 0, 0, 0}, non_finite[4] = {0, 1, 1, 1}, records[4] = {2, 2, 1, 1};
	static const uint32_t line[4] = {4, 6, 8, 9};
	for (int i = 0; i < 4; i++) {
		assert_string_equal(cg_timeline_str(tl, g->problems[i].key), keys[i]);
		assert_int_equal(g->problems[i].missing, missing[i]);
		assert_int_equal(g->problems[i].non_finite, non_finite[i]);
		assert_int_equal(g->problems[i].records, records[i]);
		assert_int_equal(g->problems[i].first_line, line[i]);
	}
	assert_string_equal(cg_timeline_str(tl, g->problems[3].root), "Other");
	cg_gradients_free(g);
	cg_timeline_free(tl);
}

static void no_gradient_records_no_problems(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_tl_finalize(tl);
	cg_gradients_result *g;
	cg_gradients_run(&g, tl, NULL);
	assert_int_equal(g->records, 0);
	assert_int_equal(g->nproblems, 0);
	cg_gradients_free(g);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(states_are_counted_and_bad_parameters_listed),
		cmocka_unit_test(no_gradient_records_no_problems),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
