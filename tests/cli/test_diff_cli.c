/* The comparison of two runs (cg_diff_run) on a real sample read through
 * ingest: the unit half, on runs built by hand, is
 * tests/analysis/compare/test_diff.c. */
#include "testutil.h"

#include "analysis.h"
#include "diff.h"
#include "ingest.h"

typedef struct pair {
	cg_timeline *tl[2];
	cg_analysis *a[2];
	cg_diff_result *d;
} pair;

static void compare_timelines(pair *p)
{
	for (int s = 0; s < 2; s++)
		assert_int_equal(cg_analysis_run(&p->a[s], p->tl[s], NULL, NULL), 0);
	assert_int_equal(cg_diff_run(&p->d, p->a[0], p->a[1], NULL), 0);
}

static void release(pair *p)
{
	cg_diff_free(p->d);
	for (int s = 0; s < 2; s++) {
		cg_analysis_free(p->a[s]);
		cg_timeline_free(p->tl[s]);
	}
}

#define assert_pair(p, b, n) \
	do { \
		assert_int_equal((p).v[CG_DIFF_BASE], (b)); \
		assert_int_equal((p).v[CG_DIFF_NEW], (n)); \
	} while (0)

static void the_same_file_twice_differs_in_nothing(void **state)
{
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	pair p;
	for (int s = 0; s < 2; s++)
		assert_int_equal(cg_ingest(&p.tl[s], tu_sample("mlp_adam.jsonl"), &o, NULL), 0);
	compare_timelines(&p);
	assert_int_equal(p.d->ndevices, 1);
	const cg_diff_device *dev = &p.d->devices[0];
	cJSON *oracle = tu_json_file(tu_sample("mlp_adam.oracle.json"));
	assert_int_equal(dev->peak.v[0], tu_json_u64(oracle, "peak_total_allocated_bytes", NULL));
	assert_int_equal(dev->peak.v[0], 16190672); /* the oracle's peak */
	cJSON_Delete(oracle);
	assert_false(cg_diff_changed(dev->peak));
	assert_false(cg_diff_changed(dev->peak_t_ns));
	assert_false(cg_diff_changed(dev->live_at_end));
	assert_false(cg_diff_changed(dev->leaked_at_end));
	for (int c = 0; c < CG_CAT_COUNT; c++)
		assert_false(cg_diff_changed(dev->by_category[c]));
	assert_true(dev->listed);
	for (int ph = 0; ph < CG_PHASE_COUNT; ph++)
		assert_false(cg_diff_changed(dev->by_phase[ph]));
	assert_true(dev->nnodes > 10);
	for (uint32_t i = 0; i < dev->nnodes; i++) {
		assert_false(cg_diff_changed(dev->nodes[i].own));
		assert_false(cg_diff_changed(dev->nodes[i].total_count));
	}
	assert_int_equal(dev->nchanged, 0);
	assert_int_equal(dev->ngroups, 0);
	assert_pair(dev->only_count, 0, 0);
	release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_same_file_twice_differs_in_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
