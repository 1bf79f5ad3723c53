/* Inferred categories (analysis/infer.c, wired in src/cli/cmd_common.c):
 * how well they agree with the categories the candle-graph recorder took
 * from tensor identity, on every candle-graph sample converted to Kineto
 * form by tests/tools/jsonl_to_kineto.py (samples/converted/), and one
 * hand-built trace per rule with the exact category of each block. */
#include "runutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_common.h"
#include "ingestutil.h"
#include "steps.h"

static cg_timeline *ingest(const char *path)
{
	cg_timeline *tl = NULL;
	cg_error err = CG_ERROR_INIT;
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	o.threads = 1;
	if (cg_ingest(&tl, path, &o, &err) != 0)
		fail_msg("%s: %s", path, err.msg);
	return tl;
}

/* Bytes live at moment p of device d (after record p), by (recorded,
 * inferred) category, added to m. */
static void add_live(uint64_t m[CG_CAT_COUNT][CG_CAT_COUNT], const cg_timeline *rec, const cg_timeline *inf,
		     uint32_t d, uint32_t p)
{
	const cg_device *dev = &rec->devices[d];
	for (uint32_t i = dev->mem_first; i <= p; i++) {
		const cg_mem *r = &rec->mem[i];
		if (r->action != CG_ALLOC || (r->pair != CG_NONE && r->pair <= p))
			continue;
		m[r->category][inf->mem[i].category] += r->bytes;
	}
}

/* The record after which live bytes of device d are highest among records
 * [first, last) (the first time), or CG_NONE when the range is empty. */
static uint32_t peak_record(const cg_timeline *tl, uint32_t d, uint64_t t0, uint64_t t1)
{
	const cg_device *dev = &tl->devices[d];
	int64_t live = 0, best = -1;
	uint32_t at = CG_NONE;
	for (uint32_t i = dev->mem_first; i < dev->mem_first + dev->mem_count; i++) {
		const cg_mem *m = &tl->mem[i];
		live += m->action == CG_ALLOC ? (int64_t)m->bytes : -(int64_t)m->bytes;
		if (m->t_ns >= t0 && m->t_ns <= t1 && live > best) {
			best = live;
			at = i;
		}
	}
	return at;
}

static double share(uint64_t m[CG_CAT_COUNT][CG_CAT_COUNT])
{
	uint64_t all = 0, same = 0;
	for (int a = 0; a < CG_CAT_COUNT; a++)
		for (int b = 0; b < CG_CAT_COUNT; b++) {
			all += m[a][b];
			same += a == b ? m[a][b] : 0;
		}
	return all ? 100.0 * (double)same / (double)all : 100.0;
}

static void print_matrix(const char *what, uint64_t m[CG_CAT_COUNT][CG_CAT_COUNT])
{
	printf("%s: %.2f %% of bytes agree; rows recorded, columns inferred (bytes)\n", what, share(m));
	printf("%-16s", "");
	for (int b = 0; b < CG_CAT_COUNT; b++)
		printf(" %15s", cg_category_name((cg_category)b));
	printf("\n");
	for (int a = 0; a < CG_CAT_COUNT; a++) {
		uint64_t row = 0;
		for (int b = 0; b < CG_CAT_COUNT; b++)
			row += m[a][b];
		if (!row)
			continue;
		printf("%-16s", cg_category_name((cg_category)a));
		for (int b = 0; b < CG_CAT_COUNT; b++)
			printf(" %15" PRIu64, m[a][b]);
		printf("\n");
	}
}

/* Measured in this test (docs/pytorch-traces.md has the matrices): the
 * floors sit a little below. */
static const struct {
	const char *name;
	double floor_peak, floor_steps;
} samples[] = {
	{"cnn_sgd", 97.0, 97.0},	   /* 99.99 %, 99.99 % */
	{"leak_loss_history", 97.0, 97.0}, /* 100 %, 100 % */
	{"mlp_adam", 97.0, 97.0},	   /* 100 %, 100 % */
	{"mlp_adam_cut", 97.0, 96.0},	   /* 100 %, 98.94 % */
};

static void inferred_categories_agree_with_the_recorded_ones(void **state)
{
	uint64_t all_peak[CG_CAT_COUNT][CG_CAT_COUNT] = {{0}}, all_steps[CG_CAT_COUNT][CG_CAT_COUNT] = {{0}};
	for (size_t s = 0; s < sizeof samples / sizeof samples[0]; s++) {
		char path[300];
		snprintf(path, sizeof path, "%s.jsonl", samples[s].name);
		cg_timeline *rec = ingest(tu_sample(path));
		snprintf(path, sizeof path, "converted/%s.pt.trace.json.gz", samples[s].name);
		cg_timeline *inf = ingest(tu_sample(path));
		assert_false(inf->source.categories_known);
		cg_cmd_infer_categories(inf);
		assert_true(inf->source.categories_inferred);
		/* the same records in the same order: the converter keeps every
		 * time and the order of records with equal times */
		assert_int_equal(rec->nmem, inf->nmem);
		assert_int_equal(rec->ndevices, 1);
		assert_int_equal(inf->ndevices, 1);
		for (size_t i = 0; i < rec->nmem; i++) {
			assert_int_equal(rec->mem[i].bytes, inf->mem[i].bytes);
			assert_int_equal(rec->mem[i].action, inf->mem[i].action);
			assert_int_equal(rec->mem[i].pair, inf->mem[i].pair);
		}
		uint64_t peak[CG_CAT_COUNT][CG_CAT_COUNT] = {{0}}, steps[CG_CAT_COUNT][CG_CAT_COUNT] = {{0}};
		add_live(peak, rec, inf, 0, peak_record(rec, 0, 0, UINT64_MAX));
		cg_error err = CG_ERROR_INIT;
		cg_steps_result *st = NULL;
		assert_int_equal(cg_steps_run(&st, rec, &err), 0);
		assert_true(st->nsteps >= 3);
		for (uint32_t k = 0; k < st->nsteps; k++) {
			uint32_t p = peak_record(rec, 0, st->steps[k].start_ns, st->steps[k].end_ns);
			if (p != CG_NONE)
				add_live(steps, rec, inf, 0, p);
		}
		cg_steps_free(st);
		char what[200];
		snprintf(what, sizeof what, "%s, at the peak", samples[s].name);
		print_matrix(what, peak);
		snprintf(what, sizeof what, "%s, at each step's peak", samples[s].name);
		print_matrix(what, steps);
		if (share(peak) < samples[s].floor_peak || share(steps) < samples[s].floor_steps)
			fail_msg("%s: %.2f %% at the peak, %.2f %% at the steps' peaks: below %.0f / %.0f %%",
				 samples[s].name, share(peak), share(steps), samples[s].floor_peak,
				 samples[s].floor_steps);
		for (int a = 0; a < CG_CAT_COUNT; a++)
			for (int b = 0; b < CG_CAT_COUNT; b++) {
				all_peak[a][b] += peak[a][b];
				all_steps[a][b] += steps[a][b];
			}
		cg_timeline_free(rec);
		cg_timeline_free(inf);
	}
	print_matrix("all samples, at the peak", all_peak);
	print_matrix("all samples, at each step's peak", all_steps);
	assert_true(share(all_peak) >= 97.0);
	assert_true(share(all_steps) >= 97.0);
}

/* Kineto events: a complete event and a [memory] instant on the CPU. */
#define X(cat, name, ts, dur) \
	"{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts \
	",\"dur\":" #dur "},"
#define MEM(ts, addr, b) \
	"{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1," \
	"\"ts\":" #ts ",\"args\":{\"Device Type\":0,\"Device Id\":-1,\"Addr\":" #addr ",\"Bytes\":" #b "}},"

/* One block per rule, by address (its allocation's Bytes in brackets):
 * before the steps: 1 lives on (parameter), 2 is freed before the first
 * step (temporary); 99 is freed without an allocation (before
 * profiling). Step 0 (10-100 us): forward until backward starts at 30;
 * 3 is freed in backward (activation), 4 inside the op that made it, 5
 * still in forward (temporaries), 6 and 7 are made before forward's
 * first temporary and outlive backward (input); backward (30-50) frees
 * 8 (temporary) and leaves 9 until step 1's zero_grad (gradient); the
 * optimizer step (60-80) keeps 10 across steps (optimizer state) and
 * frees 11 (temporary); 12, made after backward outside the optimizer and
 * never freed, is unknown; 13, made between the steps and freed in step
 * 1, is unknown too. */
static const char rules_trace[] =
	"{\"traceEvents\": ["
	X("cpu_op", "aten::empty", 1, 3)
	X("user_annotation", "ProfilerStep#0", 10, 90)
	X("cpu_op", "aten::randn", 10.5, 1)
	X("cpu_op", "aten::linear", 12, 8)
	X("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", 30, 20)
	X("user_annotation", "Optimizer.step#SGD.step", 60, 20)
	X("user_annotation", "ProfilerStep#1", 110, 90)
	X("user_annotation", "Optimizer.zero_grad#SGD.zero_grad", 112, 5)
	MEM(1.5, 1, 1000) MEM(2, 2, 10) MEM(3, 2, -10) MEM(5, 99, -64)
	MEM(10.7, 6, 600) MEM(11, 7, 7)
	MEM(13, 3, 300) MEM(14, 4, 40) MEM(15, 4, -40) MEM(21, 5, 50) MEM(22, 5, -50)
	MEM(31, 8, 80) MEM(32, 9, 900) MEM(40, 3, -300) MEM(45, 8, -80)
	MEM(61, 10, 1100) MEM(62, 11, 110) MEM(70, 11, -110)
	MEM(85, 12, 120)
	MEM(105, 13, 130) MEM(113, 9, -900) MEM(120, 13, -130) MEM(150, 6, -600)
	"{\"ph\":\"i\",\"name\":\"end\",\"pid\":1,\"tid\":1,\"ts\":199}"
	"]}";

static cg_category category_of(const cg_timeline *tl, const char *addr, cg_action action)
{
	char buf[CG_TENSOR_ID_BUF];
	size_t len;
	for (size_t i = 0; i < tl->nmem; i++)
		if (tl->mem[i].action == action && strcmp(cg_timeline_tensor_text(tl, tl->mem[i].tensor, buf, &len), addr) == 0)
			return (cg_category)tl->mem[i].category;
	fail_msg("no record of %s", addr);
	return CG_CAT_COUNT;
}

static void each_rule_gives_its_category(void **state)
{
	cg_timeline *tl = tu_ingest_text(rules_trace);
	assert_int_equal(tl->nmem, 23);
	cg_cmd_infer_categories(tl);
	assert_true(tl->source.categories_inferred);
	assert_false(tl->source.categories_known);
	static const struct {
		const char *addr;
		cg_category want;
	} blocks[] = {
		{"1", CG_CAT_PARAMETER},    {"2", CG_CAT_TEMPORARY},	   {"3", CG_CAT_ACTIVATION},
		{"4", CG_CAT_TEMPORARY},    {"5", CG_CAT_TEMPORARY},	   {"6", CG_CAT_INPUT},
		{"7", CG_CAT_INPUT},	    {"8", CG_CAT_TEMPORARY},	   {"9", CG_CAT_GRADIENT},
		{"10", CG_CAT_OPTIMIZER_STATE}, {"11", CG_CAT_TEMPORARY}, {"12", CG_CAT_UNKNOWN},
		{"13", CG_CAT_UNKNOWN},
	};
	for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
		cg_category got = category_of(tl, blocks[b].addr, CG_ALLOC);
		if (got != blocks[b].want)
			fail_msg("block %s: %s, not %s", blocks[b].addr, cg_category_name(got),
				 cg_category_name(blocks[b].want));
	}
	/* a paired free has its allocation's category; memory from before
	 * profiling keeps its own */
	assert_int_equal(category_of(tl, "9", CG_FREE), CG_CAT_GRADIENT);
	assert_int_equal(category_of(tl, "3", CG_FREE), CG_CAT_ACTIVATION);
	assert_int_equal(category_of(tl, "99", CG_FREE), CG_CAT_BASELINE);
	cg_timeline_free(tl);
}

/* Without ProfilerStep the run is one step: block 1, made by forward's op
 * and freed in backward (30-50 us), is an activation; 2, made in backward
 * and kept, a gradient; 3, freed by the op that made it, a temporary; 4,
 * made after backward and kept, unknown. */
static const char no_steps_trace[] =
	"{\"traceEvents\": ["
	X("cpu_op", "aten::linear", 10, 10)
	X("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", 30, 20)
	MEM(11, 1, 100) MEM(12, 3, 30) MEM(13, 3, -30) MEM(31, 2, 200) MEM(40, 1, -100) MEM(60, 4, 400)
	"{\"ph\":\"i\",\"name\":\"end\",\"pid\":1,\"tid\":1,\"ts\":70}"
	"]}";

static void a_run_without_steps_is_one_step(void **state)
{
	cg_timeline *tl = tu_ingest_text(no_steps_trace);
	cg_cmd_infer_categories(tl);
	assert_true(tl->source.categories_inferred);
	assert_int_equal(category_of(tl, "1", CG_ALLOC), CG_CAT_ACTIVATION);
	assert_int_equal(category_of(tl, "2", CG_ALLOC), CG_CAT_GRADIENT);
	assert_int_equal(category_of(tl, "3", CG_ALLOC), CG_CAT_TEMPORARY);
	assert_int_equal(category_of(tl, "4", CG_ALLOC), CG_CAT_UNKNOWN);
	cg_timeline_free(tl);
	(void)state;
}

/* A trace that records categories keeps them as they are. */
static void recorded_categories_are_kept(void **state)
{
	cg_timeline *tl = ingest(tu_sample("mlp_adam.jsonl"));
	uint8_t *before = malloc(tl->nmem);
	for (size_t i = 0; i < tl->nmem; i++)
		before[i] = tl->mem[i].category;
	cg_cmd_infer_categories(tl);
	assert_false(tl->source.categories_inferred);
	for (size_t i = 0; i < tl->nmem; i++)
		assert_int_equal(tl->mem[i].category, before[i]);
	free(before);
	cg_timeline_free(tl);
}

/* summary.json of rules_trace with and without --no-infer: at the end,
 * blocks 1 (parameter, 1,000 B), 7 (input, 7 B), 10 (optimizer state,
 * 1,100 B) and 12 (unknown, 120 B) are live with inference, all 2,227 B
 * unknown without it; the 64 B freed without an allocation are before
 * profiling either way. */
static void no_infer_shows_the_raw_unknown(void **state)
{
	char trace[600]; /* tu_write's buffer is reused by tu_run */
	snprintf(trace, sizeof trace, "%s", tu_write("rules.json", rules_trace, (size_t)-1));
	for (int raw = 0; raw < 2; raw++) {
		char *so, *se;
		int rc = raw ? tu_run(&so, &se, NULL, "summary", "--json", "--no-infer", trace, NULL)
			     : tu_run(&so, &se, NULL, "summary", "--json", trace, NULL);
		if (rc != 0)
			fail_msg("cgmem summary exited %d: %s", rc, se);
		cJSON *j = cJSON_Parse(so);
		assert_non_null(j);
		free(so);
		free(se);
		assert_true(cJSON_IsFalse(tu_json_at(j, "source", "categories_known", NULL)));
		assert_true(cJSON_IsBool(tu_json_at(j, "source", "categories_inferred", NULL)));
		assert_int_equal(cJSON_IsTrue(tu_json_at(j, "source", "categories_inferred", NULL)), !raw);
		assert_int_equal(tu_json_u64(j, "devices", "0", "end", "by_category", "parameter", "bytes", NULL),
				 raw ? 0 : 1000);
		assert_int_equal(tu_json_u64(j, "devices", "0", "end", "by_category", "optimizer_state", "bytes", NULL),
				 raw ? 0 : 1100);
		assert_int_equal(tu_json_u64(j, "devices", "0", "end", "by_category", "unknown", "bytes", NULL),
				 raw ? 1000 + 7 + 1100 + 120 : 120);
		assert_int_equal(tu_json_u64(j, "devices", "0", "end", "by_category", "input", "bytes", NULL), raw ? 0 : 7);
		assert_int_equal(tu_json_u64(j, "devices", "0", "before_trace_bytes", NULL), 64);
		cJSON_Delete(j);
	}
	/* the terminal summary says so */
	char *so, *se;
	int rc = tu_run(&so, &se, NULL, "summary", trace, NULL);
	if (rc != 0)
		fail_msg("cgmem summary exited %d: %s%s", rc, so, se);
	assert_non_null(strstr(so, "categories: inferred by cgmem from when each block is allocated and freed; this"));
	assert_non_null(strstr(so, "at the peak, by category (inferred)"));
	free(so);
	free(se);
	rc = tu_run(&so, &se, NULL, "summary", "--no-infer", trace, NULL);
	if (rc != 0)
		fail_msg("cgmem summary --no-infer exited %d: %s%s", rc, so, se);
	assert_non_null(strstr(so, "categories: this format does not record them; all memory shows as unknown"));
	assert_null(strstr(so, "(inferred)"));
	free(so);
	free(se);
	(void)state;
}

/* report.md says the categories are inferred where it shows them. */
static void the_report_says_they_are_inferred(void **state)
{
	char trace[600], out[600];
	snprintf(trace, sizeof trace, "%s", tu_write("rules-report.json", rules_trace, (size_t)-1));
	snprintf(out, sizeof out, "%s", tu_path("rules-out"));
	char *so, *se;
	int rc = tu_run(&so, &se, NULL, "report", trace, "-o", out, "--formats", "svg", NULL);
	if (rc != 0)
		fail_msg("cgmem report exited %d: %s", rc, se);
	free(so);
	free(se);
	char path[700];
	snprintf(path, sizeof path, "%s/report.md", out);
	char *md = tu_read(path, NULL);
	assert_non_null(strstr(md, "the categories below are inferred by cgmem"));
	assert_non_null(strstr(md, "| category (inferred) |"));
	free(md);
	(void)state;
}

/* cgmem diff of mlp_adam as recorded and as converted: the diff report
 * says which run's categories are inferred, and at the peak no category
 * changes (the inference agrees there byte for byte). */
static void a_diff_says_which_run_is_inferred(void **state)
{
	char base[600], conv[600], out[600];
	snprintf(base, sizeof base, "%s", tu_sample("mlp_adam.jsonl"));
	snprintf(conv, sizeof conv, "%s", tu_sample("converted/mlp_adam.pt.trace.json.gz"));
	snprintf(out, sizeof out, "%s", tu_path("diff-out"));
	char *so, *se;
	int rc = tu_run(&so, &se, NULL, "diff", base, conv, "-o", out, "--no-html", NULL);
	if (rc != 0)
		fail_msg("cgmem diff exited %d: %s", rc, se);
	free(so);
	free(se);
	char path[700];
	snprintf(path, sizeof path, "%s/diff.md", out);
	char *md = tu_read(path, NULL);
	assert_non_null(strstr(md, "*The new run's categories are inferred by cgmem: its trace records none "
				   "(--no-infer shows them as unknown).*"));
	assert_null(strstr(md, "The base run's categories are inferred"));
	const char *rows[] = {"| parameter | 3.05 MiB | 3.05 MiB | 0 B | +0.0 % |",
			      "| optimizer\\_state | 6.09 MiB | 6.09 MiB | 0 B | +0.0 % |",
			      "| input | 196.5 KiB | 196.5 KiB | 0 B | +0.0 % |",
			      "| temporary | 3.06 MiB | 3.06 MiB | 0 B | +0.0 % |",
			      "| activation | 2.50 KiB | 2.50 KiB | 0 B | +0.0 % |",
			      "| gradient | 3.05 MiB | 3.05 MiB | 0 B | +0.0 % |"};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		if (!strstr(md, rows[i]))
			fail_msg("diff.md has no row %s", rows[i]);
	free(md);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(inferred_categories_agree_with_the_recorded_ones),
		cmocka_unit_test(each_rule_gives_its_category),
		cmocka_unit_test(a_run_without_steps_is_one_step),
		cmocka_unit_test(recorded_categories_are_kept),
		cmocka_unit_test(no_infer_shows_the_raw_unknown),
		cmocka_unit_test(the_report_says_they_are_inferred),
		cmocka_unit_test(a_diff_says_which_run_is_inferred),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
