/* End-of-trace pass: the moment the trace ends (an OOM event or the last
 * record), where the run was, and the verdict in plain words. */
#include "tlbuild.h"

#include <string.h>

#include "endtrace.h"
#include "xalloc.h"

#define A CG_ALLOC
#define F CG_FREE
#define GiB 1073741824ull
#define NONE UINT64_MAX

typedef struct inputs {
	uint64_t live;
	uint64_t by_category[CG_CAT_COUNT];
	uint64_t estimated;
	uint32_t step_span[4];
	uint32_t *step_of;
} inputs;

static cg_endtrace_result *end_of(const cg_timeline *tl, inputs *x, uint32_t nsteps, bool estimate, unsigned last_n)
{
	cg_endtrace_input in = {&x->live, x->by_category, estimate ? &x->estimated : NULL, nsteps, x->step_span,
				x->step_of, (uint32_t)tl->nspans, last_n};
	cg_endtrace_result *r;
	assert_int_equal(cg_endtrace_run(&r, tl, &in, NULL), 0);
	return r;
}

/* Two steps; the process dies 41 ms into the forward of the second, after
 * a 51 GiB activation, while writing line 16. Built as ingest reads that
 * cut trace: the spans run, train_step#1 and its forward never end, and
 * the source is marked truncated at line 16 before finalize. */
static cg_timeline *cut_trace(void)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "r", NULL, "run", 0, UINT64_MAX, CG_PHASE_NONE);
	tu_mem(tl, 5, "w", "r", "cuda:0", 10737418240, A, CG_CAT_PARAMETER, NULL);
	tu_span(tl, "s0", "r", "train_step#0", 1000000000, 1000000200, CG_PHASE_NONE);
	tu_span(tl, "f0", "s0", "forward", 1000000001, 1000000011, CG_PHASE_FORWARD);
	tu_mem(tl, 1000000002, "a0", "f0", "cuda:0", 21474836480, A, CG_CAT_ACTIVATION, NULL);
	tu_span(tl, "b0", "s0", "backward", 1000000100, 1000000110, CG_PHASE_BACKWARD);
	tu_mem(tl, 1000000101, "a0", "b0", "cuda:0", 21474836480, F, CG_CAT_ACTIVATION, NULL);
	tu_span(tl, "s1", "r", "train_step#1", 2000000000, UINT64_MAX, CG_PHASE_NONE);
	tu_span(tl, "f1", "s1", "forward", 2000000000, UINT64_MAX, CG_PHASE_FORWARD);
	tu_mem(tl, 2041000000, "a1", "f1", "cuda:0", 54760833024, A, CG_CAT_ACTIVATION, NULL);
	tu_devmem(tl, 2041000001, "cuda:0", 84825604096, 1073741824, 75161927680);
	tl->source.truncated = true;
	tl->source.truncated_line = 16;
	tl->source.truncation_note =
		cg_strdup("trace ends mid-record at line 16 (the recording process probably died)");
	tu_tl_finalize(tl);
	return tl;
}

static uint32_t span_index(const cg_timeline *tl, const char *id)
{
	for (size_t i = 0; i < tl->nspans; i++)
		if (strcmp(cg_timeline_str(tl, tl->spans[i].id), id) == 0)
			return (uint32_t)i;
	return CG_NONE;
}

static void a_cut_off_trace_gets_a_verdict_in_plain_words(void **state)
{
	cg_timeline *tl = cut_trace();
	/* finalize keeps the mark ingest sets */
	assert_true(tl->source.truncated);
	assert_int_equal(tl->source.truncated_line, 16);
	inputs x = {.live = 61 * GiB};
	x.by_category[CG_CAT_PARAMETER] = 10 * GiB;
	x.by_category[CG_CAT_ACTIVATION] = 51 * GiB;
	uint32_t step_of[8];
	for (size_t i = 0; i < tl->nspans; i++)
		step_of[i] = CG_NONE;
	x.step_span[0] = span_index(tl, "s0");
	x.step_span[1] = span_index(tl, "s1");
	step_of[span_index(tl, "s0")] = step_of[span_index(tl, "f0")] = step_of[span_index(tl, "b0")] = 0;
	step_of[span_index(tl, "s1")] = step_of[span_index(tl, "f1")] = 1;
	x.step_of = step_of;
	cg_endtrace_result *r = end_of(tl, &x, 2, false, 20);
	const cg_endtrace_device *d = &r->devices[0];
	assert_int_equal(d->kind, CG_END_LAST_RECORD);
	assert_int_equal(d->t_ns, 2041000000);
	assert_int_equal(d->after, tl->nmem - 1);
	assert_int_equal(d->span, span_index(tl, "f1"));
	assert_int_equal(d->phase, CG_PHASE_FORWARD);
	assert_int_equal(d->phase_span, span_index(tl, "f1"));
	assert_int_equal(d->into_phase_ns, 41000000);
	assert_int_equal(d->step, 1);
	assert_true(d->nearly_full); /* 79 of 80 GiB */
	assert_string_equal(d->verdict,
			    "The trace was cut off mid-record at line 16, as a process killed while writing leaves it "
			    "(the out-of-memory killer does this). The run stopped at 2.041 s, 41 ms into forward of "
			    "train_step#1, with 79.00 GiB of 80.00 GiB used; activation held 51.00 GiB of the "
			    "61.00 GiB live; the allocator held 9.00 GiB reserved but unused at the last checkpoint.");
	/* the last allocations, latest first */
	assert_int_equal(d->nlast, 3);
	assert_int_equal(tl->mem[d->last_allocs[0]].t_ns, 2041000000);
	assert_int_equal(tl->mem[d->last_allocs[2]].t_ns, 5);
	cg_endtrace_free(r);
	cg_timeline_free(tl);
}

static void the_last_out_of_memory_event_is_the_end(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 10, "x", NULL, "cuda:0", 100, A, CG_CAT_ACTIVATION, NULL);
	tu_mem(tl, 20, "y", NULL, "cuda:0", 200, A, CG_CAT_ACTIVATION, NULL);
	tu_oom(tl, 25, "cuda:0", 1000); /* caught: the run went on */
	tu_mem(tl, 30, "y", NULL, "cuda:0", 200, F, CG_CAT_ACTIVATION, NULL);
	tu_devmem(tl, 33, "cuda:0", 900, 100, NONE);
	tu_oom(tl, 35, "cuda:0", 4096);
	tu_mem(tl, 40, "x", NULL, "cuda:0", 100, F, CG_CAT_ACTIVATION, NULL); /* unwinding after it */
	tu_devmem(tl, 50, "cuda:0", 10, 990, NONE);
	tu_tl_finalize(tl);
	uint32_t after, oom;
	cg_endtrace_moment(tl, 0, &after, &oom);
	assert_int_equal(tl->mem[after].t_ns, 30);
	assert_int_equal(tl->ooms[oom].t_ns, 35);
	inputs x = {.live = 100};
	x.by_category[CG_CAT_ACTIVATION] = 100;
	cg_endtrace_result *r = end_of(tl, &x, 0, false, 1);
	const cg_endtrace_device *d = &r->devices[0];
	assert_int_equal(d->kind, CG_END_OUT_OF_MEMORY);
	assert_int_equal(d->oom_count, 2);
	assert_int_equal(d->t_ns, 35);
	assert_int_equal(d->last_record_ns, 40);
	assert_int_equal(tl->devmem[d->checkpoint].t_ns, 33); /* the one before the OOM */
	assert_int_equal(d->nlast, 1);
	assert_int_equal(tl->mem[d->last_allocs[0]].t_ns, 20);
	assert_string_equal(d->verdict, "cuda:0 ran out of memory at 35 ns: a request for 4.00 KiB failed. "
					"The run stopped at 35 ns, with 900 B of 1000 B used; activation held "
					"100 B of the 100 B live.");
	cg_endtrace_free(r);
	cg_timeline_free(tl);
}

static void a_nearly_full_device_gets_a_verdict_and_a_healthy_one_none(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 10, "x", NULL, "cuda:0", 100, A, CG_CAT_ACTIVATION, NULL);
	tu_devmem(tl, 11, "cuda:0", 96, 4, NONE); /* 96 %: nearly full */
	tu_mem(tl, 10, "x", NULL, "cuda:1", 100, A, CG_CAT_ACTIVATION, NULL);
	tu_devmem(tl, 11, "cuda:1", 94, 6, NONE);
	tu_mem(tl, 10, "x", NULL, "cpu", 100, A, CG_CAT_ACTIVATION, NULL);
	tu_devmem(tl, 11, "cpu", 99, 1, NONE);
	tu_tl_finalize(tl);
	uint64_t live[3] = {100, 100, 100}, est[3] = {2048, 2048, 2048}, by[3 * CG_CAT_COUNT] = {0};
	for (int d = 0; d < 3; d++)
		by[d * CG_CAT_COUNT + CG_CAT_ACTIVATION] = 100;
	cg_endtrace_input in = {live, by, est, 0, NULL, NULL, 0, 20};
	cg_endtrace_result *r;
	cg_endtrace_run(&r, tl, &in, NULL);
	assert_true(r->devices[0].nearly_full);
	assert_string_equal(r->devices[0].verdict,
			    "The last checkpoint shows cuda:0 nearly full. The run stopped at 10 ns, with 96 B of "
			    "100 B used; activation held 100 B of the 100 B live; by the allocator replay's estimate, "
			    "1.90 KiB were reserved but unused.");
	assert_false(r->devices[1].nearly_full);
	assert_null(r->devices[1].verdict);
	/* a CPU has no caching allocator: no estimate in its verdict */
	assert_string_equal(r->devices[2].verdict,
			    "The last checkpoint shows cpu nearly full. The run stopped at 10 ns, with 99 B of 100 B "
			    "used; activation held 100 B of the 100 B live.");
	cg_endtrace_free(r);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_cut_off_trace_gets_a_verdict_in_plain_words),
		cmocka_unit_test(the_last_out_of_memory_event_is_the_end),
		cmocka_unit_test(a_nearly_full_device_gets_a_verdict_and_a_healthy_one_none),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
