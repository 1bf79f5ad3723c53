#include "testutil.h"

#include <string.h>

#include "enums.h"

#define P(fn, s, out) fn(s, strlen(s), out)

static void every_canonical_name_parses(void **state)
{
	for (int k = 0; k < CG_KIND_COUNT; k++) {
		cg_kind out;
		assert_true(P(cg_kind_parse, cg_kind_name((cg_kind)k), &out));
		assert_int_equal(out, k);
	}
	for (int c = 0; c < CG_CAT_BASELINE; c++) {
		cg_category out;
		assert_true(P(cg_category_parse, cg_category_name((cg_category)c), &out));
		assert_int_equal(out, c);
	}
	for (int s = 0; s < CG_GRAD_STATE_COUNT; s++) {
		cg_grad_state out;
		assert_true(P(cg_grad_state_parse, cg_grad_state_name((cg_grad_state)s), &out));
		assert_int_equal(out, s);
	}
	for (int s = 0; s < CG_SPAN_KIND_COUNT; s++) {
		cg_span_kind out;
		assert_true(P(cg_span_kind_parse, cg_span_kind_name((cg_span_kind)s), &out));
		assert_int_equal(out, s);
	}
}

static void actions_accept_other_writers_spellings(void **state)
{
	const char *allocs[] = {"alloc", "ALLOC", "allocate", "Allocation", "malloc"};
	const char *frees[] = {"free", "Free", "deallocate", "DEALLOC", "release"};
	cg_action a;
	for (size_t i = 0; i < 5; i++) {
		assert_true(P(cg_action_parse, allocs[i], &a));
		assert_int_equal(a, CG_ALLOC);
		assert_true(P(cg_action_parse, frees[i], &a));
		assert_int_equal(a, CG_FREE);
	}
	assert_false(P(cg_action_parse, "resize", &a));
	assert_false(P(cg_action_parse, "", &a));
}

static void categories_fold_case_and_separators(void **state)
{
	cg_category c;
	assert_true(P(cg_category_parse, "OPTIMIZER_STATE", &c));
	assert_int_equal(c, CG_CAT_OPTIMIZER_STATE);
	assert_true(P(cg_category_parse, "optimizer-state", &c));
	assert_int_equal(c, CG_CAT_OPTIMIZER_STATE);
	assert_true(P(cg_category_parse, "OptimizerState", &c));
	assert_int_equal(c, CG_CAT_OPTIMIZER_STATE);
	assert_true(P(cg_category_parse, "autograd_detail", &c));
	assert_int_equal(c, CG_CAT_AUTOGRAD_DETAIL);
	assert_true(P(cg_category_parse, "Activations", &c));
	assert_int_equal(c, CG_CAT_ACTIVATION);
	assert_true(P(cg_category_parse, "grad", &c));
	assert_int_equal(c, CG_CAT_GRADIENT);
	/* cgmem's own category cannot be claimed by a trace */
	assert_false(P(cg_category_parse, "before_profiling", &c));
	assert_false(P(cg_category_parse, "kv_cache", &c));
}

static void steps_parse_to_phases_and_none_is_not_a_step(void **state)
{
	cg_phase p;
	assert_true(P(cg_phase_parse, "forward", &p));
	assert_int_equal(p, CG_PHASE_FORWARD);
	assert_true(P(cg_phase_parse, "Backward", &p));
	assert_int_equal(p, CG_PHASE_BACKWARD);
	assert_true(P(cg_phase_parse, "OPTIMIZER", &p));
	assert_int_equal(p, CG_PHASE_OPTIMIZER);
	assert_true(P(cg_phase_parse, "fwd", &p));
	assert_int_equal(p, CG_PHASE_FORWARD);
	assert_false(P(cg_phase_parse, "none", &p));
	assert_false(P(cg_phase_parse, "eval", &p));
}

static void kinds_accept_case_variants(void **state)
{
	cg_kind k;
	assert_true(P(cg_kind_parse, "DeviceMemory", &k));
	assert_int_equal(k, CG_KIND_DEVICE_MEMORY);
	assert_true(P(cg_kind_parse, "SPAN_START", &k));
	assert_int_equal(k, CG_KIND_SPAN_START);
	assert_false(P(cg_kind_parse, "counter", &k));
}

static void gradient_states_accept_variants(void **state)
{
	cg_grad_state s;
	assert_true(P(cg_grad_state_parse, "NonFinite", &s));
	assert_int_equal(s, CG_GRAD_NON_FINITE);
	assert_true(P(cg_grad_state_parse, "nan", &s));
	assert_int_equal(s, CG_GRAD_NON_FINITE);
	assert_true(P(cg_grad_state_parse, "ZERO", &s));
	assert_int_equal(s, CG_GRAD_ZERO);
}

static void dtypes_canonicalise_pytorch_names(void **state)
{
	char buf[32];
	struct {
		const char *in, *out;
		unsigned size;
	} cases[] = {
		{"f32", "f32", 4},	     {"float32", "f32", 4},	{"torch.float32", "f32", 4},
		{"torch.float16", "f16", 2}, {"half", "f16", 2},	{"BF16", "bf16", 2},
		{"torch.bfloat16", "bf16", 2}, {"int64", "i64", 8},	{"torch.long", "i64", 8},
		{"u8", "u8", 1},	     {"torch.bool", "bool", 1}, {"float64", "f64", 8},
		{"unknown", "unknown", 0},   {"MyType", "mytype", 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t n = cg_dtype_canonical(cases[i].in, strlen(cases[i].in), buf, sizeof buf);
		assert_int_equal(n, strlen(cases[i].out));
		assert_string_equal(buf, cases[i].out);
		assert_int_equal(cg_dtype_size(buf), cases[i].size);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_canonical_name_parses),
		cmocka_unit_test(actions_accept_other_writers_spellings),
		cmocka_unit_test(categories_fold_case_and_separators),
		cmocka_unit_test(steps_parse_to_phases_and_none_is_not_a_step),
		cmocka_unit_test(kinds_accept_case_variants),
		cmocka_unit_test(gradient_states_accept_variants),
		cmocka_unit_test(dtypes_canonicalise_pytorch_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
