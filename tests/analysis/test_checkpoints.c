/* Checkpoints pass: capacity, live bytes, fragmentation and memory outside
 * the allocator at each device_memory checkpoint, worked out by hand. */
#include "tlbuild.h"

#include "checkpoints.h"

#define A CG_ALLOC
#define F CG_FREE
#define NONE UINT64_MAX

static void fragmentation_headroom_and_outside_memory_at_each_checkpoint(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_devmem(tl, 5, "cuda:0", 1000, 9000, 2048);
	tu_mem(tl, 10, "x", NULL, "cuda:0", 100, A, CG_CAT_ACTIVATION, NULL);
	tu_devmem(tl, 15, "cuda:0", 2000, 8000, 512);
	tu_mem(tl, 20, "y", NULL, "cuda:0", 300, A, CG_CAT_ACTIVATION, NULL); /* peak 400 */
	tu_devmem(tl, 25, "cuda:0", 3000, 7000, 1024);
	tu_mem(tl, 30, "y", NULL, "cuda:0", 300, F, CG_CAT_ACTIVATION, NULL);
	tu_devmem(tl, 40, "cuda:0", NONE, 0, 400); /* a profiler checkpoint: reserved only */
	tu_devmem(tl, 50, "cuda:0", 10, 10, 0);	   /* nothing reserved: no fragmentation */
	tu_tl_finalize(tl);
	uint64_t peak_t = 20;
	cg_checkpoints_result *r;
	assert_int_equal(cg_checkpoints_run(&r, tl, &peak_t, NULL), 0);
	const cg_checkpoints_device *d = &r->devices[0];
	assert_int_equal(d->count, 5);

	const cg_checkpoint *c = d->list;
	assert_int_equal(c[0].live_bytes, 0);
	assert_true(c[0].has_capacity);
	assert_int_equal(c[0].capacity_bytes, 10000);
	assert_true(c[0].fragmentation == 1.0); /* 2048 reserved, nothing live */
	assert_int_equal(c[0].outside_allocator, -1048);

	assert_int_equal(c[1].live_bytes, 100);
	assert_true(c[1].fragmentation == 412.0 / 512.0);
	assert_int_equal(c[1].outside_allocator, 1488);
	assert_int_equal(c[1].free_bytes, 8000);

	assert_int_equal(c[2].live_bytes, 400);
	assert_true(c[2].fragmentation == 624.0 / 1024.0);
	assert_int_equal(c[2].outside_allocator, 1976);

	assert_false(c[3].has_used);
	assert_false(c[3].has_capacity);
	assert_int_equal(c[3].live_bytes, 100);
	assert_true(c[3].fragmentation == 0.75);

	assert_false(c[4].has_fragmentation);
	assert_int_equal(c[4].outside_allocator, 10);

	assert_int_equal(d->max_fragmentation, 0);
	/* 15 and 25 are both 5 ns from the peak: the earlier one */
	assert_int_equal(d->nearest_peak, 1);
	cg_checkpoints_free(r);
	cg_timeline_free(tl);
}

static void live_bytes_above_reserved_give_negative_fragmentation(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 1, "x", NULL, "cuda:0", 1000, A, CG_CAT_ACTIVATION, NULL);
	tu_devmem(tl, 2, "cuda:0", NONE, 0, 800);
	tu_tl_finalize(tl);
	uint64_t peak_t = 1;
	cg_checkpoints_result *r;
	cg_checkpoints_run(&r, tl, &peak_t, NULL);
	assert_true(r->devices[0].list[0].fragmentation == -0.25);
	cg_checkpoints_free(r);
	cg_timeline_free(tl);
}

static void a_capacity_beyond_64_bits_is_unknown(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_devmem(tl, 1, "cuda:0", UINT64_MAX - 1, 5, NONE);
	tu_devmem(tl, 2, "cuda:1", 10, 20, NONE);
	tu_tl_finalize(tl);
	uint64_t peak_t[2] = {0, 0};
	cg_checkpoints_result *r;
	cg_checkpoints_run(&r, tl, peak_t, NULL);
	assert_false(r->devices[0].list[0].has_capacity);
	assert_int_equal(r->devices[0].max_fragmentation, CG_NONE);
	assert_int_equal(r->devices[1].count, 1);
	assert_int_equal(r->devices[1].list[0].capacity_bytes, 30);
	cg_checkpoints_free(r);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fragmentation_headroom_and_outside_memory_at_each_checkpoint),
		cmocka_unit_test(live_bytes_above_reserved_give_negative_fragmentation),
		cmocka_unit_test(a_capacity_beyond_64_bits_is_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
