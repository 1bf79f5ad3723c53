/* Memory pairing: each device's records in time order (stable), frees
 * matched with their allocations, the anomalies of traces that do not
 * match up, the running sums of traces whose frees cannot be matched, and
 * live bytes that would not fit in 64 bits. Lines are numbered from 2 in
 * call order (tlbuild.h). */
#include "tlbuild.h"

#include <string.h>

#include "finalize.h"

#define A CG_ALLOC
#define F CG_FREE
#define ACT CG_CAT_ACTIVATION
#define TMP CG_CAT_TEMPORARY
#define GRAD CG_CAT_GRADIENT
#define PAR CG_CAT_PARAMETER
#define UNK CG_CAT_UNKNOWN

static void mem(cg_timeline *tl, uint64_t t, const char *id, const char *dev, uint64_t bytes, cg_action a,
		cg_category c)
{
	tu_mem(tl, t, id, NULL, dev, bytes, a, c, NULL);
}

static void assert_lines(const cg_timeline *tl, const uint32_t *lines, size_t n)
{
	assert_int_equal(tl->nmem, n);
	for (size_t i = 0; i < n; i++)
		if (tl->mem[i].line != lines[i])
			fail_msg("record %zu is line %u, expected line %u", i, tl->mem[i].line, lines[i]);
}

/* --- order --- */

static void records_are_grouped_by_device_and_sorted_by_time_stably(void **state)
{
	cg_timeline *tl = tu_tl_new();
	mem(tl, 30, "a", "cpu", 1, A, UNK); /* line 2; cpu is device 0 */
	mem(tl, 10, "b", "gpu", 1, A, UNK); /* line 3; gpu is device 1 */
	mem(tl, 10, "c", "cpu", 1, A, UNK); /* line 4 */
	mem(tl, 20, "d", "gpu", 1, A, UNK); /* line 5 */
	mem(tl, 10, "e", "cpu", 1, A, UNK); /* line 6 */
	mem(tl, 10, "f", "gpu", 1, A, UNK); /* line 7 */
	tu_tl_finalize(tl);
	/* cpu: t10 (4), t10 (6), t30 (2); gpu: t10 (3), t10 (7), t20 (5) */
	const uint32_t lines[] = {4, 6, 2, 3, 7, 5};
	assert_lines(tl, lines, 6);
	assert_int_equal(tl->devices[0].mem_first, 0);
	assert_int_equal(tl->devices[0].mem_count, 3);
	assert_int_equal(tl->devices[1].mem_first, 3);
	assert_int_equal(tl->devices[1].mem_count, 3);
	cg_timeline_free(tl);
}

static void records_in_time_order_on_interleaved_devices_are_grouped(void **state)
{
	/* in time order on each device, but device 0, 1, 0, 1...: only grouping */
	cg_timeline *tl = tu_tl_new();
	mem(tl, 1, "a", "gpu", 1, A, UNK); /* line 2; gpu is device 0 */
	mem(tl, 1, "b", "cpu", 1, A, UNK); /* line 3 */
	mem(tl, 2, "c", "gpu", 1, A, UNK); /* line 4 */
	mem(tl, 2, "d", "cpu", 1, A, UNK); /* line 5 */
	mem(tl, 2, "e", "gpu", 1, A, UNK); /* line 6 */
	tu_tl_finalize(tl);
	const uint32_t lines[] = {2, 4, 6, 3, 5};
	assert_lines(tl, lines, 5);
	cg_timeline_free(tl);
}

/* The expected order, worked out independently: (device, time, line);
 * the records' sites, which hold their devices, are sort_tl's. */
static const cg_timeline *sort_tl;

static int by_device_time_line(const void *a, const void *b)
{
	const cg_mem *x = a, *y = b;
	uint16_t dx = cg_timeline_mem_device(sort_tl, x), dy = cg_timeline_mem_device(sort_tl, y);
	if (dx != dy)
		return dx < dy ? -1 : 1;
	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static void many_records_keep_their_contents_through_any_sort(void **state)
{
	/* 30000 records on 3 devices, once in time order (grouping alone) and
	 * once with times all over 64 bits (every radix byte varies, ties
	 * included); each record's bytes hold its line, to see it arrive whole. */
	for (int shuffled = 0; shuffled < 2; shuffled++) {
		cg_timeline *tl = tu_tl_new();
		const char *devs[] = {"cuda:0", "cuda:1", "cpu"};
		for (uint32_t i = 0; i < 30000; i++) {
			uint64_t t = shuffled ? ((uint64_t)(i % 7919) * 0x9e3779b97f4a7c15ull) : i / 2;
			char id[16];
			snprintf(id, sizeof id, "t%u", i);
			mem(tl, t, id, devs[i % 3], (uint64_t)i + 2, A, UNK);
		}
		cg_mem *want = malloc(tl->nmem * sizeof *want);
		memcpy(want, tl->mem, tl->nmem * sizeof *want);
		sort_tl = tl;
		qsort(want, tl->nmem, sizeof *want, by_device_time_line);
		tu_tl_finalize(tl);
		for (size_t i = 0; i < tl->nmem; i++) {
			const cg_mem *m = &tl->mem[i];
			if (m->line != want[i].line || m->t_ns != want[i].t_ns || m->site != want[i].site ||
			    m->bytes != (uint64_t)m->line || m->tensor.v != want[i].tensor.v)
				fail_msg("%s: record %zu is line %u (bytes %llu), expected line %u",
					 shuffled ? "shuffled" : "ordered", i, m->line, (unsigned long long)m->bytes,
					 want[i].line);
		}
		for (uint32_t d = 0; d < 3; d++)
			assert_int_equal(tl->devices[d].mem_count, 10000);
		free(want);
		cg_timeline_free(tl);
	}
}

static void checkpoints_and_oom_events_are_sorted_by_device_then_time(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_devmem(tl, 30, "gpu", 3, 0, UINT64_MAX); /* line 2; gpu is device 0 */
	tu_devmem(tl, 10, "cpu", 1, 0, UINT64_MAX); /* line 3 */
	tu_devmem(tl, 10, "gpu", 2, 0, UINT64_MAX); /* line 4 */
	tu_devmem(tl, 10, "gpu", 4, 0, UINT64_MAX); /* line 5: same time, after line 4 */
	tu_oom(tl, 9, "cpu", 100);		    /* line 6 */
	tu_oom(tl, 8, "gpu", 200);		    /* line 7 */
	tu_oom(tl, 7, "cpu", 300);		    /* line 8 */
	tu_tl_finalize(tl);
	const uint32_t dm_lines[] = {4, 5, 2, 3};
	for (int i = 0; i < 4; i++)
		assert_int_equal(tl->devmem[i].line, dm_lines[i]);
	assert_int_equal(tl->devices[0].devmem_count, 3);
	assert_int_equal(tl->devices[1].devmem_count, 1);
	const uint64_t oom_bytes[] = {200, 300, 100}; /* gpu@8; cpu@7, cpu@9 */
	for (int i = 0; i < 3; i++)
		assert_int_equal(tl->ooms[i].bytes, oom_bytes[i]);
	cg_timeline_free(tl);
}

/* --- pairing --- */

static void a_free_pairs_with_its_allocation_and_takes_its_category(void **state)
{
	cg_timeline *tl = tu_tl_new();
	mem(tl, 1, "x", "cpu", 64, A, ACT); /* line 2 */
	mem(tl, 2, "y", "cpu", 16, A, TMP); /* line 3 */
	mem(tl, 3, "x", "cpu", 64, F, UNK); /* line 4: a free that names no category */
	tu_tl_finalize(tl);
	assert_int_equal(tl->mem[0].pair, 2);
	assert_int_equal(tl->mem[2].pair, 0);
	assert_int_equal(tl->mem[1].pair, CG_NONE);
	assert_int_equal(tl->mem[2].category, ACT);
	assert_int_equal(tl->mem[2].flags, 0);
	assert_int_equal(cg_timeline_mem_removed(tl, 2), 64);
	assert_int_equal(cg_timeline_mem_removed(tl, 0), 0);
	/* 64 + 16 - 64 = 16 live, one allocation */
	assert_int_equal(tl->devices[0].live_at_end, 16);
	assert_int_equal(tl->devices[0].live_count_at_end, 1);
	for (int a = 0; a < CG_ANOM_COUNT; a++)
		assert_int_equal(tl->anomalies[a].count, 0);
	cg_timeline_free(tl);
}

static void frees_of_tensors_from_before_the_trace_are_live_from_the_start(void **state)
{
	cg_timeline *tl = tu_tl_new();
	mem(tl, 1, "p", "cpu", 100, F, PAR);  /* line 2: never allocated here */
	mem(tl, 2, "x", "cpu", 10, A, ACT);   /* line 3 */
	mem(tl, 3, "q", "cpu", 30, F, GRAD);  /* line 4: never allocated here */
	mem(tl, 4, "p", "cpu", 100, A, PAR);  /* line 5: p again, a new allocation */
	tu_tl_finalize(tl);
	const cg_device *d = &tl->devices[0];
	assert_true(tl->mem[0].flags & CG_MEM_PREEXISTING);
	assert_true(tl->mem[2].flags & CG_MEM_PREEXISTING);
	assert_int_equal(tl->mem[3].flags, 0); /* p was freed: allocating it again is fine */
	/* 100 + 30 live from the start, by the frees' own categories */
	assert_int_equal(d->preexisting_bytes, 130);
	assert_int_equal(d->preexisting_count, 2);
	assert_int_equal(d->initial_by_cat[PAR], 100);
	assert_int_equal(d->initial_by_cat[GRAD], 30);
	assert_int_equal(d->initial_by_cat[ACT], 0);
	assert_int_equal(cg_device_initial_live(d), 130);
	/* 130 - 100 + 10 - 30 + 100 = 110; allocations never freed: x and p */
	assert_int_equal(d->live_at_end, 110);
	assert_int_equal(d->live_count_at_end, 2);
	assert_int_equal(tl->anomalies[CG_ANOM_FREE_BEFORE_TRACE].count, 2);
	assert_string_equal(tl->anomalies[CG_ANOM_FREE_BEFORE_TRACE].examples[1],
			    "line 4: free of \"q\" (30 B) on cpu, never allocated in the trace");
	cg_timeline_free(tl);
}

static void frees_after_the_first_are_double_frees_of_nothing(void **state)
{
	cg_timeline *tl = tu_tl_new();
	mem(tl, 1, "x", "cpu", 10, A, ACT); /* line 2 */
	mem(tl, 2, "x", "cpu", 10, F, ACT); /* line 3 */
	mem(tl, 3, "x", "cpu", 10, F, ACT); /* line 4 */
	mem(tl, 4, "x", "cpu", 10, F, ACT); /* line 5 */
	tu_tl_finalize(tl);
	for (int i = 2; i < 4; i++) {
		assert_true(tl->mem[i].flags & CG_MEM_DOUBLE_FREE);
		assert_int_equal(tl->mem[i].bytes, 0);
		assert_int_equal(tl->mem[i].pair, CG_NONE);
		assert_int_equal(cg_timeline_mem_removed(tl, (uint32_t)i), 0);
	}
	assert_int_equal(tl->anomalies[CG_ANOM_DOUBLE_FREE].count, 2);
	assert_string_equal(tl->anomalies[CG_ANOM_DOUBLE_FREE].examples[0],
			    "line 4: free of \"x\" on cpu, which was already freed");
	assert_int_equal(tl->anomalies[CG_ANOM_FREE_BEFORE_TRACE].count, 0);
	assert_int_equal(tl->devices[0].preexisting_bytes, 0);
	assert_int_equal(tl->devices[0].live_at_end, 0); /* 10 - 10 - 0 - 0 */
	cg_timeline_free(tl);
}

static void a_free_with_other_bytes_releases_the_allocations(void **state)
{
	cg_timeline *tl = tu_tl_new();
	mem(tl, 1, "x", "cpu", 10, A, ACT); /* line 2 */
	mem(tl, 2, "y", "cpu", 4, A, ACT);  /* line 3 */
	mem(tl, 3, "x", "cpu", 15, F, ACT); /* line 4: says more than was allocated */
	mem(tl, 4, "y", "cpu", 1, F, ACT);  /* line 5: says less */
	tu_tl_finalize(tl);
	assert_true(tl->mem[2].flags & CG_MEM_BYTES_MISMATCH);
	assert_int_equal(tl->mem[2].bytes, 10);
	assert_int_equal(tl->mem[3].bytes, 4);
	assert_int_equal(tl->devices[0].live_at_end, 0); /* 10 + 4 - 10 - 4: no wrap below zero */
	assert_int_equal(tl->anomalies[CG_ANOM_BYTES_MISMATCH].count, 2);
	assert_string_equal(tl->anomalies[CG_ANOM_BYTES_MISMATCH].examples[0],
			    "line 4: free of \"x\" on cpu says 15 B; its allocation at line 2 had 10 B");
	cg_timeline_free(tl);
}

static void an_alloc_of_a_live_id_replaces_it_in_its_own_category(void **state)
{
	cg_timeline *tl = tu_tl_new();
	mem(tl, 1, "x", "cpu", 10, A, ACT); /* line 2 */
	mem(tl, 2, "x", "cpu", 30, A, TMP); /* line 3: x still live */
	mem(tl, 3, "x", "cpu", 30, F, UNK); /* line 4 */
	tu_tl_finalize(tl);
	assert_true(tl->mem[0].flags & CG_MEM_REPLACED);
	assert_int_equal(tl->mem[0].pair, 1);
	assert_true(tl->mem[1].flags & CG_MEM_REPLACES);
	assert_int_equal(tl->mem[1].pair, 2);
	assert_int_equal(tl->mem[2].pair, 1);
	assert_int_equal(tl->mem[2].category, TMP);
	assert_int_equal(cg_timeline_mem_replaced(tl, 1), 0);
	assert_int_equal(cg_timeline_mem_replaced(tl, 0), CG_NONE);
	assert_int_equal(cg_timeline_mem_replaced(tl, 2), CG_NONE);
	assert_int_equal(cg_timeline_mem_removed(tl, 1), 10);
	assert_int_equal(tl->nreplacements, 1);
	assert_string_equal(tl->anomalies[CG_ANOM_ALLOC_OF_LIVE_ID].examples[0],
			    "line 3: \"x\" allocated on cpu while its allocation at line 2 was live");
	/* By category: +10 activation; +30 temporary -10 activation; -30 temporary */
	uint64_t total = 0, cat[CG_CAT_COUNT] = {0};
	cg_timeline_apply_live(tl, 0, &total, cat);
	assert_int_equal(total, 10);
	assert_int_equal(cat[ACT], 10);
	cg_timeline_apply_live(tl, 1, &total, cat);
	assert_int_equal(total, 30);
	assert_int_equal(cat[ACT], 0);
	assert_int_equal(cat[TMP], 30);
	cg_timeline_apply_live(tl, 2, &total, cat);
	assert_int_equal(total, 0);
	assert_int_equal(cat[TMP], 0);
	assert_int_equal(tl->devices[0].live_count_at_end, 0);
	cg_timeline_free(tl);
}

static void replacements_are_found_on_every_device(void **state)
{
	/* x three times on gpu (each replacing the last), y twice on cpu; the
	 * replacement table is looked up by record index on both devices */
	cg_timeline *tl = tu_tl_new();
	mem(tl, 1, "x", "gpu", 1, A, ACT); /* gpu: device 0, records 0..2 */
	mem(tl, 1, "y", "cpu", 5, A, ACT); /* cpu: device 1, records 3..4 */
	mem(tl, 2, "x", "gpu", 2, A, ACT);
	mem(tl, 3, "x", "gpu", 4, A, ACT);
	mem(tl, 4, "y", "cpu", 7, A, ACT);
	tu_tl_finalize(tl);
	assert_int_equal(tl->nreplacements, 3);
	assert_int_equal(cg_timeline_mem_replaced(tl, 1), 0);
	assert_int_equal(cg_timeline_mem_replaced(tl, 2), 1);
	assert_int_equal(cg_timeline_mem_replaced(tl, 4), 3);
	assert_int_equal(cg_timeline_mem_removed(tl, 2), 2);
	assert_int_equal(cg_timeline_mem_removed(tl, 4), 5);
	/* gpu: 1, then 2 replaces 1, then 4 replaces 2: 4 live in one allocation */
	assert_int_equal(tl->devices[0].live_at_end, 4);
	assert_int_equal(tl->devices[0].live_count_at_end, 1);
	assert_int_equal(tl->devices[1].live_at_end, 7);
	assert_int_equal(tl->anomalies[CG_ANOM_ALLOC_OF_LIVE_ID].count, 3);
	cg_timeline_free(tl);
}

static void an_id_live_on_one_device_is_unknown_on_another(void **state)
{
	cg_timeline *tl = tu_tl_new();
	mem(tl, 1, "x", "gpu", 10, A, ACT); /* line 2 */
	mem(tl, 2, "x", "cpu", 10, F, ACT); /* line 3: x was never allocated on cpu */
	mem(tl, 3, "x", "gpu", 10, F, ACT); /* line 4 */
	tu_tl_finalize(tl);
	assert_int_equal(tl->devices[0].live_at_end, 0);
	assert_int_equal(tl->mem[0].pair, 1);
	assert_true(tl->mem[2].flags & CG_MEM_PREEXISTING);
	assert_int_equal(tl->devices[1].preexisting_bytes, 10);
	assert_int_equal(tl->devices[1].live_at_end, 0);
	cg_timeline_free(tl);
}

/* --- frees that cannot be paired --- */

static void unpaired_frees_run_a_sum_per_category(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tl->source.pairing_known = false;
	/* Written out of order; in time order, with running sums per category
	 * and the count of allocations minus frees:
	 *   t1 alloc act 100   act 100            count 1
	 *   t2 free  act 30    act 70             count 0
	 *   t3 free  grad 50   grad -50 -> 0      count -1 (1 free outruns)
	 *   t4 free  act 100   act -30 -> 0       count -2 (2 outrun)
	 *   t5 alloc grad 20   grad 20            count 1 of 2 deficit
	 *   t6 free  grad 20   grad 0
	 * Deficits: act 30, grad 50: 80 B live from the start, 2 frees. */
	mem(tl, 4, "", "cuda:0", 100, F, ACT);
	mem(tl, 1, "", "cuda:0", 100, A, ACT);
	mem(tl, 2, "", "cuda:0", 30, F, ACT);
	mem(tl, 3, "", "cuda:0", 50, F, GRAD);
	mem(tl, 6, "", "cuda:0", 20, F, GRAD);
	mem(tl, 5, "", "cuda:0", 20, A, GRAD);
	tu_tl_finalize(tl);
	const cg_device *d = &tl->devices[0];
	assert_int_equal(d->initial_by_cat[ACT], 30);
	assert_int_equal(d->initial_by_cat[GRAD], 50);
	assert_int_equal(d->preexisting_bytes, 80);
	assert_int_equal(d->preexisting_count, 2);
	/* live: 80 +100 -30 -50 -100 +20 -20 = 0; 2 + 2 allocations - 4 frees = 0 */
	assert_int_equal(d->live_at_end, 0);
	assert_int_equal(d->live_count_at_end, 0);
	/* no category ever goes below zero, and none is paired */
	uint64_t total = cg_device_initial_live(d), cat[CG_CAT_COUNT];
	memcpy(cat, d->initial_by_cat, sizeof cat);
	const uint64_t totals[] = {180, 150, 100, 0, 20, 0};
	for (uint32_t i = 0; i < 6; i++) {
		assert_int_equal(tl->mem[i].t_ns, i + 1);
		assert_int_equal(tl->mem[i].pair, CG_NONE);
		cg_timeline_apply_live(tl, i, &total, cat);
		assert_int_equal(total, totals[i]);
		for (int c = 0; c < CG_CAT_COUNT; c++)
			assert_true(cat[c] <= 180);
	}
	assert_int_equal(tl->mem[3].category, ACT); /* each free keeps its own */
	for (int a = 0; a < CG_ANOM_COUNT; a++)
		assert_int_equal(tl->anomalies[a].count, 0);
	assert_int_equal(tl->source.warnings, 1);
	assert_string_equal(tl->source.diags[0].msg,
			    "cuda:0: frees outrun allocations by up to 80 B: memory allocated before the trace "
			    "began, counted as live from the start (frees cannot be paired in this trace)");
	cg_timeline_free(tl);
}

static void unpaired_allocations_alone_warn_of_nothing(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tl->source.pairing_known = false;
	mem(tl, 1, "", "cpu", 8, A, ACT);
	mem(tl, 2, "", "cpu", 8, F, ACT);
	mem(tl, 3, "", "cpu", 8, A, ACT);
	tu_tl_finalize(tl);
	assert_int_equal(tl->devices[0].preexisting_bytes, 0);
	assert_int_equal(tl->devices[0].live_at_end, 8);
	assert_int_equal(tl->devices[0].live_count_at_end, 1);
	assert_int_equal(tl->source.warnings, 0);
	cg_timeline_free(tl);
}

/* --- live bytes beyond 64 bits --- */

static const char *fails_with(cg_timeline *tl, cg_error *err)
{
	*err = (cg_error)CG_ERROR_INIT;
	assert_int_equal(cg_timeline_finalize(tl, err), CG_EINPUT);
	assert_int_equal(err->code, CG_EINPUT);
	return err->msg;
}

static void live_bytes_up_to_2_pow_64_minus_1_fit(void **state)
{
	cg_timeline *tl = tu_tl_new();
	mem(tl, 1, "x", "cpu", UINT64_MAX, A, ACT);
	mem(tl, 2, "x", "cpu", UINT64_MAX, F, ACT);
	mem(tl, 3, "y", "cpu", UINT64_MAX - 1, A, ACT);
	mem(tl, 4, "z", "cpu", 1, A, ACT); /* (2^64 - 2) + 1 = 2^64 - 1 */
	tu_tl_finalize(tl);
	assert_int_equal(tl->devices[0].live_at_end, UINT64_MAX);
	cg_timeline_free(tl);
}

static void live_bytes_one_past_2_pow_64_minus_1_are_refused(void **state)
{
	cg_error err;
	cg_timeline *tl = tu_tl_new();
	mem(tl, 1, "x", "cpu", UINT64_MAX, A, ACT); /* line 2 */
	mem(tl, 2, "y", "cpu", 1, A, ACT);	    /* line 3: one too many */
	assert_string_equal(fails_with(tl, &err), "test.jsonl:3: live bytes on cpu exceed 2^64 - 1 bytes");
	cg_timeline_free(tl);

	/* frees from before the trace: live before the first record */
	tl = tu_tl_new();
	mem(tl, 1, "p", "cpu", UINT64_MAX, F, PAR);
	mem(tl, 2, "q", "cpu", 1, F, PAR); /* same category */
	assert_string_equal(fails_with(tl, &err),
			    "test.jsonl: bytes live on cpu before the first record exceed 2^64 - 1 bytes");
	cg_timeline_free(tl);
	tl = tu_tl_new();
	mem(tl, 1, "p", "cpu", UINT64_MAX, F, PAR);
	mem(tl, 2, "q", "cpu", 1, F, GRAD); /* another category: the sum overflows */
	assert_string_equal(fails_with(tl, &err),
			    "test.jsonl: bytes live on cpu before the first record exceed 2^64 - 1 bytes");
	cg_timeline_free(tl);
}

static void unpaired_sums_beyond_64_bits_are_refused(void **state)
{
	cg_error err;
	cg_timeline *tl = tu_tl_new();
	tl->source.pairing_known = false;
	mem(tl, 1, "", "cpu", UINT64_MAX, A, ACT); /* line 2 */
	mem(tl, 2, "", "cpu", 1, A, ACT);	   /* line 3: the category's sum overflows */
	assert_string_equal(fails_with(tl, &err), "test.jsonl:3: live bytes on cpu exceed 2^64 - 1 bytes");
	cg_timeline_free(tl);

	tl = tu_tl_new();
	tl->source.pairing_known = false;
	mem(tl, 1, "", "cpu", UINT64_MAX, A, ACT); /* line 2 */
	mem(tl, 2, "", "cpu", 1, A, TMP);	   /* line 3: the categories' total overflows */
	assert_string_equal(fails_with(tl, &err), "test.jsonl:3: live bytes on cpu exceed 2^64 - 1 bytes");
	cg_timeline_free(tl);

	tl = tu_tl_new();
	tl->source.pairing_known = false;
	mem(tl, 1, "", "cpu", UINT64_MAX, F, ACT); /* line 2: deficit 2^64 - 1 */
	mem(tl, 2, "", "cpu", 1, F, ACT);	   /* line 3: one more */
	assert_string_equal(fails_with(tl, &err), "test.jsonl:3: bytes freed on cpu exceed 2^64 - 1 bytes");
	cg_timeline_free(tl);

	tl = tu_tl_new();
	tl->source.pairing_known = false;
	mem(tl, 1, "", "cpu", UINT64_MAX, F, ACT);
	mem(tl, 2, "", "cpu", 1, F, TMP); /* each deficit fits, their sum does not */
	assert_string_equal(fails_with(tl, &err), "test.jsonl: bytes freed on cpu exceed 2^64 - 1 bytes");
	cg_timeline_free(tl);
}

/* --- against a plain restatement --- */

/* Pairing as the format states it, with a table of every id ever seen on
 * a device: never seen, live (at a record) or freed. Random traces of few
 * ids, packed and interned, on two devices: every record's pair, flags and
 * bytes, and every count, as pairing finds them. */
enum { NEVER = -1, FREED = -2 };

static void pairing_matches_the_format_on_random_traces(void **state)
{
	(void)state;
	/* the first two differ only above bit 32 of their packed ids */
	static const char *ids[] = {"7f3a00000200#1", "7f4a00000200#1", "7f3a00000200#2", "a40c04680#0",
				    "0#0", "t1", "t2", "x"};
	enum { NIDS = 8, N = 400 };
	uint64_t x = 0x2545F4914F6CDD1Dull;
	for (int round = 0; round < 200; round++) {
		cg_timeline *tl = tu_tl_new();
		int id[N], dev[N], act[N];
		uint64_t bytes[N];
		for (int i = 0; i < N; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			id[i] = (int)(x % NIDS);
			dev[i] = i == 0 ? 0 : (int)(x >> 8 & 1);
			act[i] = (x >> 9 & 3) ? (x >> 11 & 1 ? A : F) : F;
			bytes[i] = 8 << (x >> 12 & 1);
			mem(tl, (uint64_t)i, ids[id[i]], dev[i] ? "cuda:1" : "cuda:0", bytes[i], act[i], ACT);
		}
		tu_tl_finalize(tl);
		/* records end up by device, each device's in file order */
		uint32_t at = 0, pre[2] = {0, 0}, doubles = 0, mismatches = 0, replaced = 0;
		for (int d = 0; d < 2; d++) {
			int seen[NIDS];
			uint32_t where[N];
			for (int k = 0; k < NIDS; k++)
				seen[k] = NEVER;
			for (int i = 0; i < N; i++) {
				if (dev[i] != d)
					continue;
				where[i] = at;
				const cg_mem *m = &tl->mem[at++];
				assert_int_equal(m->line, (uint32_t)i + 2);
				int *st = &seen[id[i]];
				uint32_t pair = CG_NONE, flags = 0;
				uint64_t b = bytes[i];
				if (act[i] == A) {
					if (*st >= 0)
						flags = CG_MEM_REPLACES, replaced++;
					*st = i;
				} else if (*st == NEVER) {
					flags = CG_MEM_PREEXISTING, pre[d]++;
				} else if (*st == FREED) {
					flags = CG_MEM_DOUBLE_FREE, b = 0, doubles++;
				} else {
					pair = where[*st];
					if (bytes[*st] != b)
						flags = CG_MEM_BYTES_MISMATCH, b = bytes[*st], mismatches++;
				}
				if (act[i] == F)
					*st = FREED;
				/* an allocation's pair is set by what ends it; checked from that side */
				if (act[i] == F) {
					if (m->pair != pair || m->flags != flags || m->bytes != b)
						fail_msg("round %d, line %d: pair %u flags %u bytes %llu, expected %u %u %llu",
							 round, i + 2, m->pair, m->flags, (unsigned long long)m->bytes, pair,
							 flags, (unsigned long long)b);
					if (pair != CG_NONE)
						assert_int_equal(tl->mem[pair].pair, where[i]);
				} else if ((m->flags & CG_MEM_REPLACES) != flags) {
					fail_msg("round %d, line %d: flags %u, expected %u", round, i + 2, m->flags, flags);
				}
			}
			assert_int_equal(tl->devices[d].preexisting_count, pre[d]);
		}
		assert_int_equal(tl->anomalies[CG_ANOM_FREE_BEFORE_TRACE].count, pre[0] + pre[1]);
		assert_int_equal(tl->anomalies[CG_ANOM_DOUBLE_FREE].count, doubles);
		assert_int_equal(tl->anomalies[CG_ANOM_BYTES_MISMATCH].count, mismatches);
		assert_int_equal(tl->anomalies[CG_ANOM_ALLOC_OF_LIVE_ID].count, replaced);
		cg_timeline_free(tl);
	}
}

/* --- threads --- */

/* 90000 records on 3 devices with every anomaly pairing finds: ids reused
 * on several devices, frees of ids never allocated, double frees, frees
 * with other bytes and allocations of live ids; the last device's live
 * bytes overflow when overflow is set. */
static cg_timeline *anomalous_trace(bool overflow)
{
	cg_timeline *tl = tu_tl_new();
	const char *devs[] = {"cuda:0", "cuda:1", "cpu"};
	for (uint32_t i = 0; i < 90000; i++) {
		char id[16];
		snprintf(id, sizeof id, "t%u", i % 1499); /* each id on every device, allocated and freed */
		uint64_t bytes = (uint64_t)(i % 11) << 10; /* an id again: other bytes */
		mem(tl, i / 3, id, devs[i % 3], bytes, i % 4 == 1 || i % 4 == 2 ? F : A, i % 7 == 0 ? UNK : ACT);
	}
	if (overflow) {
		mem(tl, 90000, "big", "cpu", UINT64_MAX, A, ACT);
		mem(tl, 90001, "big2", "cuda:1", UINT64_MAX, A, ACT);
	}
	return tl;
}

static void pairing_on_threads_gives_what_one_thread_gives(void **state)
{
	cg_error err1 = CG_ERROR_INIT, err3 = CG_ERROR_INIT;
	for (int overflow = 0; overflow < 2; overflow++) {
		cg_timeline *one = anomalous_trace(overflow), *three = anomalous_trace(overflow);
		int rc1 = cg_timeline_finalize_threads(one, 1, &err1);
		int rc3 = cg_timeline_finalize_threads(three, 3, &err3);
		assert_int_equal(rc1, overflow ? CG_EINPUT : 0);
		assert_int_equal(rc3, rc1);
		if (overflow) {
			/* the first device in order whose sum fails */
			assert_string_equal(err3.msg, err1.msg);
			assert_non_null(strstr(err1.msg, "cuda:1"));
		}
		assert_int_equal(three->nmem, one->nmem);
		for (size_t i = 0; i < one->nmem; i++) {
			const cg_mem *a = &one->mem[i], *b = &three->mem[i];
			if (a->line != b->line || a->pair != b->pair || a->bytes != b->bytes || a->flags != b->flags ||
			    a->category != b->category || a->tensor.v != b->tensor.v ||
			    cg_timeline_mem_device(one, a) != cg_timeline_mem_device(three, b))
				fail_msg("record %zu (line %u) differs", i, a->line);
		}
		assert_int_equal(three->nreplacements, one->nreplacements);
		assert_true(one->nreplacements > 0);
		for (size_t i = 0; i < one->nreplacements; i++) {
			assert_int_equal(three->replacements[i].alloc, one->replacements[i].alloc);
			assert_int_equal(three->replacements[i].replaced, one->replacements[i].replaced);
		}
		for (int k = 0; k < CG_ANOM_COUNT; k++) {
			const cg_anomaly_stats *a = &one->anomalies[k], *b = &three->anomalies[k];
			assert_int_equal(b->count, a->count);
			assert_int_equal(b->nexamples, a->nexamples);
			for (uint32_t e = 0; e < a->nexamples; e++)
				assert_string_equal(b->examples[e], a->examples[e]);
		}
		assert_true(one->anomalies[CG_ANOM_DOUBLE_FREE].count > 0);
		assert_true(one->anomalies[CG_ANOM_BYTES_MISMATCH].count > 0);
		assert_true(one->anomalies[CG_ANOM_FREE_BEFORE_TRACE].count > 0);
		assert_true(one->anomalies[CG_ANOM_ALLOC_OF_LIVE_ID].count > 0);
		for (uint32_t d = 0; d < one->ndevices && !overflow; d++) {
			const cg_device *a = &one->devices[d], *b = &three->devices[d];
			assert_int_equal(b->mem_first, a->mem_first);
			assert_int_equal(b->mem_count, a->mem_count);
			assert_int_equal(b->preexisting_count, a->preexisting_count);
			assert_int_equal(b->preexisting_bytes, a->preexisting_bytes);
			assert_int_equal(b->live_at_end, a->live_at_end);
			assert_int_equal(b->live_count_at_end, a->live_count_at_end);
			assert_memory_equal(b->initial_by_cat, a->initial_by_cat, sizeof a->initial_by_cat);
		}
		cg_timeline_free(one);
		cg_timeline_free(three);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(records_are_grouped_by_device_and_sorted_by_time_stably),
		cmocka_unit_test(records_in_time_order_on_interleaved_devices_are_grouped),
		cmocka_unit_test(many_records_keep_their_contents_through_any_sort),
		cmocka_unit_test(checkpoints_and_oom_events_are_sorted_by_device_then_time),
		cmocka_unit_test(a_free_pairs_with_its_allocation_and_takes_its_category),
		cmocka_unit_test(frees_of_tensors_from_before_the_trace_are_live_from_the_start),
		cmocka_unit_test(frees_after_the_first_are_double_frees_of_nothing),
		cmocka_unit_test(a_free_with_other_bytes_releases_the_allocations),
		cmocka_unit_test(an_alloc_of_a_live_id_replaces_it_in_its_own_category),
		cmocka_unit_test(replacements_are_found_on_every_device),
		cmocka_unit_test(an_id_live_on_one_device_is_unknown_on_another),
		cmocka_unit_test(unpaired_frees_run_a_sum_per_category),
		cmocka_unit_test(unpaired_allocations_alone_warn_of_nothing),
		cmocka_unit_test(live_bytes_up_to_2_pow_64_minus_1_fit),
		cmocka_unit_test(live_bytes_one_past_2_pow_64_minus_1_are_refused),
		cmocka_unit_test(unpaired_sums_beyond_64_bits_are_refused),
		cmocka_unit_test(pairing_matches_the_format_on_random_traces),
		cmocka_unit_test(pairing_on_threads_gives_what_one_thread_gives),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
