/* Leaks pass: what stays live at the end besides parameters and optimizer
 * state, grouped by span path (steps written as their label) and op, and
 * what each step left behind. Worked out by hand:
 *
 *   every step k (k = 0, 1, 2) leaks relu 64 B and loss 4 B in its fwd span
 *   and frees a 1000 B temporary; step 2 also keeps a 16 B input (data span);
 *   a 8 B "ones" in the run span, the 100 B parameter and the 200 B
 *   optimizer state stay too (the last two are no leak).
 *
 *   candidates 3*64 + 3*4 + 16 + 8 = 228 B in 8 allocations
 *   per step: 68, 68, 84; outside the steps: 8 */
#include "tlbuild.h"

#include <string.h>

#include "leaks.h"

#define A CG_ALLOC
#define F CG_FREE

static cg_timeline *trace(bool paired)
{
	cg_timeline *tl = tu_tl_new();
	tl->source.pairing_known = paired;
	tu_span(tl, "run", NULL, "run", 0, 1000, CG_PHASE_NONE);
	tu_mem(tl, 1, "w", "run", "cuda:0", 100, A, CG_CAT_PARAMETER, "empty");
	tu_mem(tl, 2, "u", "run", "cuda:0", 8, A, CG_CAT_UNKNOWN, "ones");
	for (int k = 0; k < 3; k++) {
		char s[16], f[16], d[16], name[16], id[16];
		uint64_t t = 100 * (uint64_t)(k + 1);
		snprintf(s, sizeof s, "s%d", k);
		snprintf(f, sizeof f, "f%d", k);
		snprintf(name, sizeof name, "step#%d", k);
		tu_span(tl, s, "run", name, t, t + 99, CG_PHASE_NONE);
		tu_span(tl, f, s, "fwd", t + 10, t + 49, CG_PHASE_FORWARD);
		snprintf(id, sizeof id, "relu%d", k);
		tu_mem(tl, t + 11, id, f, "cuda:0", 64, A, CG_CAT_ACTIVATION, "relu");
		snprintf(id, sizeof id, "loss%d", k);
		tu_mem(tl, t + 12, id, f, "cuda:0", 4, A, CG_CAT_ACTIVATION, "loss");
		snprintf(id, sizeof id, "tmp%d", k);
		tu_mem(tl, t + 13, id, f, "cuda:0", 1000, A, CG_CAT_TEMPORARY, "mm");
		tu_mem(tl, t + 14, id, f, "cuda:0", 1000, F, CG_CAT_TEMPORARY, NULL);
		if (k == 0)
			tu_mem(tl, t + 50, "m", s, "cuda:0", 200, A, CG_CAT_OPTIMIZER_STATE, "zeros");
		if (k == 2) {
			snprintf(d, sizeof d, "d%d", k);
			tu_span(tl, d, s, "data", t + 1, t + 9, CG_PHASE_NONE);
			tu_mem(tl, t + 2, "x", d, "cuda:0", 16, A, CG_CAT_INPUT, "randn");
		}
	}
	tu_tl_finalize(tl);
	return tl;
}

typedef struct fixture {
	cg_timeline *tl;
	uint32_t live[64];
	size_t nlive;
	uint32_t step_of[8];
	uint32_t step_span[3];
} fixture;

/* The inputs the driver would hand over: allocations never freed, and
 * the steps (spans in order: run, s0, f0, s1, f1, s2, f2, d2). */
static cg_leaks_result *run(fixture *fx, bool paired)
{
	fx->tl = trace(paired);
	static const uint32_t step_of[8] = {CG_NONE, 0, 0, 1, 1, 2, 2, 2}, step_span[3] = {1, 3, 5};
	assert_int_equal(fx->tl->nspans, 8);
	for (int i = 0; i < 8; i++)
		fx->step_of[i] = step_of[i];
	for (int i = 0; i < 3; i++)
		fx->step_span[i] = step_span[i];
	fx->nlive = 0;
	for (uint32_t i = 0; i < fx->tl->nmem; i++)
		if (fx->tl->mem[i].action == CG_ALLOC && fx->tl->mem[i].pair == CG_NONE)
			fx->live[fx->nlive++] = i;
	const uint32_t *per_device[1] = {fx->live};
	cg_leaks_input in = {per_device, &fx->nlive, 3, fx->step_span, fx->step_of, 8, "step#*", NULL};
	cg_leaks_result *r;
	assert_int_equal(cg_leaks_run(&r, fx->tl, &in, NULL), 0);
	return r;
}

static void leaks_growing_per_step_show_in_each_step(void **state)
{
	fixture fx;
	cg_leaks_result *r = run(&fx, true);
	const cg_leaks_device *d = &r->devices[0];
	assert_true(d->available);
	assert_int_equal(d->bytes, 228);
	assert_int_equal(d->count, 8);
	assert_int_equal(d->nsteps, 3);
	assert_int_equal(d->step_bytes[0], 68);
	assert_int_equal(d->step_bytes[1], 68);
	assert_int_equal(d->step_bytes[2], 84);
	assert_int_equal(d->step_count[2], 3);
	assert_int_equal(d->outside_steps_bytes, 8);
	assert_int_equal(d->outside_steps_count, 1);
	assert_int_equal(d->leaking_steps, 3);
	cg_leaks_free(r);
	cg_timeline_free(fx.tl);
}

static void the_same_leak_from_every_step_forms_one_group(void **state)
{
	fixture fx;
	cg_leaks_result *r = run(&fx, true);
	const cg_leaks_device *d = &r->devices[0];
	const cg_timeline *tl = fx.tl;
	assert_int_equal(d->ngroups, 4);
	static const char *const paths[4] = {"run/step#*/fwd", "run/step#*/data", "run/step#*/fwd", "run"};
	static const char *const ops[4] = {"relu", "randn", "loss", "ones"};
	static const uint64_t bytes[4] = {192, 16, 12, 8}, count[4] = {3, 1, 3, 1};
	static const uint32_t steps[4] = {3, 1, 3, 0};
	for (int g = 0; g < 4; g++) {
		assert_string_equal(d->groups[g].path, paths[g]);
		assert_string_equal(cg_timeline_str(tl, d->groups[g].op), ops[g]);
		assert_int_equal(d->groups[g].bytes, bytes[g]);
		assert_int_equal(d->groups[g].count, count[g]);
		assert_int_equal(d->groups[g].steps, steps[g]);
	}
	assert_int_equal(d->groups[0].category, CG_CAT_ACTIVATION);
	assert_int_equal(d->groups[0].first_ns, 111);
	assert_int_equal(d->groups[0].last_ns, 311);
	assert_int_equal(tl->mem[d->groups[0].example].t_ns, 111);
	cg_leaks_free(r);
	cg_timeline_free(fx.tl);
}

static void a_device_without_step_figures_gets_no_per_step_leaks(void **state)
{
	fixture fx;
	fx.tl = trace(true);
	fx.nlive = 0;
	for (uint32_t i = 0; i < fx.tl->nmem; i++)
		if (fx.tl->mem[i].action == CG_ALLOC && fx.tl->mem[i].pair == CG_NONE)
			fx.live[fx.nlive++] = i;
	static const uint32_t step_of[8] = {CG_NONE, 0, 0, 1, 1, 2, 2, 2}, step_span[3] = {1, 3, 5};
	const uint32_t *per_device[1] = {fx.live};
	bool per_step[1] = {false};
	cg_leaks_input in = {per_device, &fx.nlive, 3, step_span, step_of, 8, "step#*", per_step};
	cg_leaks_result *r;
	cg_leaks_run(&r, fx.tl, &in, NULL);
	assert_int_equal(r->devices[0].nsteps, 0);
	assert_int_equal(r->devices[0].leaking_steps, 0);
	assert_int_equal(r->devices[0].outside_steps_bytes, 0);
	assert_int_equal(r->devices[0].bytes, 228);
	assert_int_equal(r->devices[0].groups[0].steps, 3); /* groups still know their steps */
	cg_leaks_free(r);
	cg_timeline_free(fx.tl);
}

static void paths_of_huge_span_names_are_cut_between_characters(void **state)
{
	cg_timeline *tl = tu_tl_new();
	static char name[5001];
	for (int i = 0; i < 2500; i++)
		memcpy(name + 2 * i, "\xc2\xb5", 2); /* 2,500 two-byte characters */
	tu_span(tl, "r", NULL, "run", 0, 100, CG_PHASE_NONE);
	tu_span(tl, "x", "r", name, 1, 2, CG_PHASE_NONE);
	tu_mem(tl, 1, "a", "x", "cuda:0", 8, A, CG_CAT_ACTIVATION, "op");
	tu_tl_finalize(tl);
	uint32_t live[1] = {0};
	size_t nlive = 1;
	const uint32_t *per_device[1] = {live};
	cg_leaks_input in = {per_device, &nlive, 0, NULL, NULL, 0, NULL, NULL};
	cg_leaks_result *r;
	cg_leaks_run(&r, tl, &in, NULL);
	const char *path = r->devices[0].groups[0].path;
	/* "run/" then as many whole characters as fit in 4,095 bytes */
	assert_int_equal(strlen(path), 4 + 2 * ((4095 - 4) / 2));
	assert_memory_equal(path, "run/\xc2\xb5", 6);
	assert_true(((unsigned char)path[strlen(path) - 1] & 0xc0) == 0x80);
	cg_leaks_free(r);
	cg_timeline_free(tl);
}

static void parameters_and_optimizer_state_are_no_leak(void **state)
{
	assert_false(cg_leaks_category_counts(CG_CAT_PARAMETER));
	assert_false(cg_leaks_category_counts(CG_CAT_OPTIMIZER_STATE));
	assert_false(cg_leaks_category_counts(CG_CAT_BASELINE));
	assert_true(cg_leaks_category_counts(CG_CAT_GRADIENT));
	assert_true(cg_leaks_category_counts(CG_CAT_UNKNOWN));
}

static void without_pairing_leaks_by_allocation_are_not_known(void **state)
{
	fixture fx;
	cg_leaks_result *r = run(&fx, false);
	assert_false(r->devices[0].available);
	assert_int_equal(r->devices[0].ngroups, 0);
	assert_int_equal(r->devices[0].bytes, 0);
	cg_leaks_free(r);
	cg_timeline_free(fx.tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(leaks_growing_per_step_show_in_each_step),
		cmocka_unit_test(the_same_leak_from_every_step_forms_one_group),
		cmocka_unit_test(a_device_without_step_figures_gets_no_per_step_leaks),
		cmocka_unit_test(paths_of_huge_span_names_are_cut_between_characters),
		cmocka_unit_test(parameters_and_optimizer_state_are_no_leak),
		cmocka_unit_test(without_pairing_leaks_by_allocation_are_not_known),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
