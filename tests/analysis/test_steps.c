/* Steps pass: finding the repeating training steps and the step of every span. */
#include "tlbuild.h"

#include <string.h>

#include "steps.h"

/* A training step: name > data, forward > op, backward, optimizer. */
static void step(cg_timeline *tl, const char *id, const char *parent, const char *name, uint64_t t)
{
	char c[64], op[64];
	tu_span(tl, id, parent, name, t, t + 90, CG_PHASE_NONE);
	snprintf(c, sizeof c, "%s.data", id);
	tu_span(tl, c, id, "data", t + 1, t + 9, CG_PHASE_NONE);
	snprintf(c, sizeof c, "%s.fwd", id);
	tu_span(tl, c, id, "forward", t + 10, t + 39, CG_PHASE_FORWARD);
	snprintf(op, sizeof op, "%s.op", id);
	tu_span(tl, op, c, "aten::mm", t + 11, t + 12, CG_PHASE_NONE);
	snprintf(c, sizeof c, "%s.bwd", id);
	tu_span(tl, c, id, "backward", t + 40, t + 69, CG_PHASE_BACKWARD);
	snprintf(c, sizeof c, "%s.opt", id);
	tu_span(tl, c, id, "optimizer", t + 70, t + 89, CG_PHASE_OPTIMIZER);
}

static uint32_t span_index(const cg_timeline *tl, const char *id)
{
	for (size_t i = 0; i < tl->nspans; i++)
		if (strcmp(cg_timeline_str(tl, tl->spans[i].id), id) == 0)
			return (uint32_t)i;
	fail_msg("no span %s", id);
	return CG_NONE;
}

static cg_steps_result *steps_of(const cg_timeline *tl)
{
	cg_steps_result *r;
	assert_int_equal(cg_steps_run(&r, tl, NULL), 0);
	return r;
}

static void repeating_train_steps_are_found_in_time_order(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "run", NULL, "run:mlp", 0, 1000, CG_PHASE_NONE);
	tu_span(tl, "setup", "run", "setup:model", 1, 5, CG_PHASE_NONE);
	step(tl, "s2", "run", "train_step#2", 300);
	step(tl, "s0", "run", "train_step#0", 100);
	step(tl, "s1", "run", "train_step#1", 200);
	tu_tl_finalize(tl);
	cg_steps_result *r = steps_of(tl);
	assert_int_equal(r->nsteps, 3);
	assert_string_equal(r->prefix, "train_step#");
	assert_string_equal(r->label, "train_step#*");
	assert_int_equal(r->steps[0].span, span_index(tl, "s0"));
	assert_int_equal(r->steps[1].span, span_index(tl, "s1"));
	assert_int_equal(r->steps[2].span, span_index(tl, "s2"));
	assert_int_equal(r->steps[1].start_ns, 200);
	assert_int_equal(r->steps[1].end_ns, 290);
	cg_steps_free(r);
	cg_timeline_free(tl);
}

static void nested_spans_inherit_their_step(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "run", NULL, "run:mlp", 0, 1000, CG_PHASE_NONE);
	tu_span(tl, "setup", "run", "setup:model", 1, 5, CG_PHASE_NONE);
	step(tl, "s0", "run", "train_step#0", 100);
	step(tl, "s1", "run", "train_step#1", 200);
	/* a span deeper still, started before its parent was seen in the file */
	tu_span(tl, "deep", "s1.op", "aten::empty", 211, 212, CG_PHASE_NONE);
	tu_tl_finalize(tl);
	cg_steps_result *r = steps_of(tl);
	assert_int_equal(r->step_of_span[span_index(tl, "s0")], 0);
	assert_int_equal(r->step_of_span[span_index(tl, "s0.op")], 0);
	assert_int_equal(r->step_of_span[span_index(tl, "s1.opt")], 1);
	assert_int_equal(r->step_of_span[span_index(tl, "deep")], 1);
	assert_int_equal(r->step_of_span[span_index(tl, "run")], CG_NONE);
	assert_int_equal(r->step_of_span[span_index(tl, "setup")], CG_NONE);
	cg_mem m = {.span = span_index(tl, "s1.fwd")};
	assert_int_equal(cg_steps_of_mem(r, &m), 1);
	m.span = CG_NONE;
	assert_int_equal(cg_steps_of_mem(r, &m), CG_NONE);
	cg_steps_free(r);
	cg_timeline_free(tl);
}

static void one_step_does_not_repeat(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "run", NULL, "run:mlp", 0, 1000, CG_PHASE_NONE);
	step(tl, "s0", "run", "train_step#0", 100);
	tu_tl_finalize(tl);
	cg_steps_result *r = steps_of(tl);
	assert_int_equal(r->nsteps, 0);
	assert_null(r->label);
	assert_int_equal(r->step_of_span[span_index(tl, "s0.op")], CG_NONE);
	cg_steps_free(r);
	cg_timeline_free(tl);
}

static void spans_without_forward_are_not_steps(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "run", NULL, "run", 0, 1000, CG_PHASE_NONE);
	tu_span(tl, "e0", "run", "eval#0", 10, 20, CG_PHASE_NONE);
	tu_span(tl, "e1", "run", "eval#1", 30, 40, CG_PHASE_NONE);
	tu_tl_finalize(tl);
	cg_steps_result *r = steps_of(tl);
	assert_int_equal(r->nsteps, 0);
	cg_steps_free(r);
	cg_timeline_free(tl);
}

/* epoch#E > step#S > micro#M (forward, backward) + optimizer: the steps
 * cover all three phases and outnumber the epochs; micro-batches have no
 * optimizer. */
static void steps_win_over_epochs_and_micro_batches(void **state)
{
	cg_timeline *tl = tu_tl_new();
	char id[64], p[64], c[128];
	uint64_t t = 0;
	for (int e = 0; e < 2; e++) {
		snprintf(id, sizeof id, "e%d", e);
		snprintf(p, sizeof p, "epoch#%d", e);
		tu_span(tl, id, NULL, p, t, t + 1000, CG_PHASE_NONE);
		for (int s = 0; s < 3; s++) {
			char sid[32], sname[32];
			snprintf(sid, sizeof sid, "e%ds%d", e, s);
			snprintf(sname, sizeof sname, "step#%d", s);
			tu_span(tl, sid, id, sname, t + 1, t + 300, CG_PHASE_NONE);
			for (int m = 0; m < 2; m++) {
				char mid[64], mname[32];
				snprintf(mid, sizeof mid, "%sm%d", sid, m);
				snprintf(mname, sizeof mname, "micro#%d", m);
				tu_span(tl, mid, sid, mname, t + 2, t + 100, CG_PHASE_NONE);
				snprintf(c, sizeof c, "%sf", mid);
				tu_span(tl, c, mid, "forward", t + 3, t + 40, CG_PHASE_FORWARD);
				snprintf(c, sizeof c, "%sb", mid);
				tu_span(tl, c, mid, "backward", t + 41, t + 99, CG_PHASE_BACKWARD);
				t += 100;
			}
			snprintf(c, sizeof c, "%so", sid);
			tu_span(tl, c, sid, "optimizer", t + 1, t + 50, CG_PHASE_OPTIMIZER);
			t += 100;
		}
	}
	tu_tl_finalize(tl);
	cg_steps_result *r = steps_of(tl);
	assert_int_equal(r->nsteps, 6);
	assert_string_equal(r->label, "step#*");
	assert_int_equal(r->steps[3].span, span_index(tl, "e1s0"));
	assert_int_equal(r->step_of_span[span_index(tl, "e1s2m1f")], 5);
	cg_steps_free(r);
	cg_timeline_free(tl);
}

static void the_name_prefix_drops_trailing_digits_only(void **state)
{
	assert_int_equal(cg_steps_prefix_len("train_step#12", 13), 11);
	assert_int_equal(cg_steps_prefix_len("ProfilerStep#3", 14), 13);
	assert_int_equal(cg_steps_prefix_len("step", 4), 4);
	assert_int_equal(cg_steps_prefix_len("12", 2), 0);
	assert_int_equal(cg_steps_prefix_len("", 0), 0);
}

/* torch.profiler: ProfilerStep#N ranges with aten ops below, no forward
 * range; one range is a step too, and a nested one is not another step. */
static void profiler_steps_need_no_forward_span(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "p6", NULL, "ProfilerStep#6", 300, 390, CG_PHASE_NONE);
	tu_span(tl, "p6.mm", "p6", "aten::mm", 301, 310, CG_PHASE_NONE);
	tu_span(tl, "p6.in", "p6", "ProfilerStep#7", 320, 330, CG_PHASE_NONE);
	tu_span(tl, "p5", NULL, "ProfilerStep#5", 100, 190, CG_PHASE_NONE);
	tu_span(tl, "p5.mm", "p5", "aten::mm", 101, 110, CG_PHASE_NONE);
	tu_span(tl, "p5.opt", "p5", "Optimizer.step#SGD.step", 150, 180, CG_PHASE_OPTIMIZER);
	tu_span(tl, "other", NULL, "ProfilerStep#x", 400, 410, CG_PHASE_NONE);
	tu_tl_finalize(tl);
	cg_steps_result *r = steps_of(tl);
	assert_int_equal(r->nsteps, 2);
	assert_string_equal(r->label, "ProfilerStep#*");
	assert_int_equal(r->steps[0].span, span_index(tl, "p5"));
	assert_int_equal(r->steps[1].span, span_index(tl, "p6"));
	assert_int_equal(r->step_of_span[span_index(tl, "p6.in")], 1);
	assert_int_equal(r->step_of_span[span_index(tl, "p5.opt")], 0);
	assert_int_equal(r->step_of_span[span_index(tl, "other")], CG_NONE);
	cg_steps_free(r);
	cg_timeline_free(tl);

	tl = tu_tl_new();
	tu_span(tl, "p0", NULL, "ProfilerStep#0", 100, 190, CG_PHASE_NONE);
	tu_span(tl, "p0.mm", "p0", "aten::mm", 101, 110, CG_PHASE_NONE);
	tu_tl_finalize(tl);
	r = steps_of(tl);
	assert_int_equal(r->nsteps, 1);
	assert_int_equal(r->steps[0].span, span_index(tl, "p0"));
	cg_steps_free(r);
	cg_timeline_free(tl);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(repeating_train_steps_are_found_in_time_order),
		cmocka_unit_test(profiler_steps_need_no_forward_span),
		cmocka_unit_test(nested_spans_inherit_their_step),
		cmocka_unit_test(one_step_does_not_repeat),
		cmocka_unit_test(spans_without_forward_are_not_steps),
		cmocka_unit_test(steps_win_over_epochs_and_micro_batches),
		cmocka_unit_test(the_name_prefix_drops_trailing_digits_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
