/* cgmem diff end to end: exact figures in diff.json for pairs of runs
 * worked out by hand (tests/helpers/difftrace.h and
 * tests/analysis/compare/test_diff.c explain the numbers), the same file
 * twice, every input report reads, the output folder's rules and usage
 * errors. */
#include "runutil.h"

#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

#include "difftrace.h"

/* Writes the two runs and diffs them into a new folder; returns its diff.json. */
static cJSON *diff(const run_spec *b, const run_spec *n, const char *name, char **out_dir)
{
	static char buf[2][16384];
	static char dir[600];
	char fb[64], fn[64];
	snprintf(fb, sizeof fb, "%s-base.jsonl", name);
	snprintf(fn, sizeof fn, "%s-new.jsonl", name);
	char *base = strdup(tu_write(fb, dt_trace(b, buf[0], sizeof buf[0]), (size_t)-1));
	char *new_path = strdup(tu_write(fn, dt_trace(n, buf[1], sizeof buf[1]), (size_t)-1));
	snprintf(dir, sizeof dir, "%s", tu_path(name));
	int rc = tu_run(NULL, NULL, NULL, "diff", base, new_path, "-o", dir, "-q", NULL);
	assert_int_equal(rc, 0);
	free(base);
	free(new_path);
	if (out_dir)
		*out_dir = dir;
	char p[700];
	snprintf(p, sizeof p, "%s/diff.json", dir);
	return tu_json_file(p);
}

/* The number at a path of keys and array indexes ending in NULL. */
static double num(cJSON *j, ...)
{
	va_list ap;
	va_start(ap, j);
	cJSON *x = j;
	const char *k;
	while (x && (k = va_arg(ap, const char *)) != NULL)
		x = k[0] >= '0' && k[0] <= '9' ? cJSON_GetArrayItem(x, (int)strtol(k, NULL, 10))
					       : cJSON_GetObjectItemCaseSensitive(x, k);
	va_end(ap);
	if (!cJSON_IsNumber(x))
		fail_msg("no number at that path");
	return cJSON_GetNumberValue(x);
}

#define DEV(...) num(j, "devices", "0", __VA_ARGS__, NULL)

static void a_module_that_doubles_its_activation(void **state)
{
	run_spec base = RUN_SPEC_INIT, grown = RUN_SPEC_INIT;
	grown.act_bytes = 128;
	char *dir;
	cJSON *j = diff(&base, &grown, "double", &dir);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "schema", NULL)), "cgmem/diff/1");
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "devices", "0", "name", NULL)), "cuda:0");
	assert_true(DEV("peak_bytes", "base") == 164);
	assert_true(DEV("peak_bytes", "new") == 228);
	assert_true(DEV("peak_bytes", "change") == 64);
	assert_true(DEV("peak_bytes", "change_percent") == 64.0 / 164.0 * 100.0);
	assert_true(DEV("at_peak", "by_category", "activation", "change") == 64);
	assert_true(DEV("at_peak", "by_category", "activation", "change_percent") == 100);
	assert_true(DEV("at_peak", "by_category", "parameter", "change") == 0);
	assert_true(DEV("at_peak", "by_phase", "forward", "new") == 128);
	assert_true(DEV("at_peak", "span_paths_changed") == 4);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "devices", "0", "at_peak", "span_paths", "0", "path", NULL)),
			    "run/step#*/fwd/fc1");
	cJSON *sp = tu_json_at(j, "devices", "0", "at_peak", "span_paths", "0", NULL);
	assert_true(cJSON_GetNumberValue(tu_json_at(sp, "own_bytes", "change", NULL)) == 64);
	assert_true(cJSON_GetNumberValue(tu_json_at(sp, "total_bytes", "change", NULL)) == 64);
	assert_true(cJSON_GetNumberValue(tu_json_at(sp, "own_count", "new", NULL)) == 1);
	cJSON *al = tu_json_at(j, "devices", "0", "at_peak", "allocations_at_one_peak", NULL);
	assert_int_equal(tu_json_u64(al, "new", "count", NULL), 1);
	assert_int_equal(tu_json_u64(al, "new", "bytes", NULL), 128);
	assert_int_equal(tu_json_u64(al, "base", "bytes", NULL), 64);
	assert_int_equal(tu_json_u64(al, "groups_count", NULL), 2);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(al, "groups", "0", "peak", NULL)), "new");
	assert_string_equal(cJSON_GetStringValue(tu_json_at(al, "groups", "0", "op", NULL)), "linear");
	assert_int_equal(tu_json_u64(al, "groups", "0", "shape", "1", NULL), 8);
	assert_int_equal(tu_json_u64(al, "groups", "0", "size", NULL), 128);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(al, "groups", "0", "example", "tensor", NULL)), "act0");
	assert_string_equal(cJSON_GetStringValue(tu_json_at(al, "groups", "1", "peak", NULL)), "base");
	assert_int_equal(tu_json_u64(al, "groups", "1", "shape", "1", NULL), 4);
	assert_true(DEV("leaked_at_end_bytes", "change") == 0);
	cJSON_Delete(j);

	static const char *const files[] = {"diff.md", "diff.html", "diff.json", "diff_timeline.cuda-0.png",
					    "diff_timeline.cuda-0.svg", "diff_change.cuda-0.png", "diff_change.cuda-0.svg",
					    ".cgmem-manifest"};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char p[700];
		snprintf(p, sizeof p, "%s/%s", dir, files[i]);
		if (!tu_exists(p))
			fail_msg("%s was not written", files[i]);
	}
	char p[700];
	snprintf(p, sizeof p, "%s/diff.md", dir);
	char *md = tu_read(p, NULL);
	assert_non_null(strstr(md, "| cuda:0 | 164 B (164 B) | 228 B (228 B) | +64 B | +39.0 % |"));
	assert_non_null(strstr(md, "| activation | 64 B | 128 B | +64 B | +100.0 % |"));
	assert_non_null(strstr(md, "| +64 B | +100.0 % | 64 B | 128 B | +64 B | run/step#\\*/fwd/fc1 |"));
	assert_non_null(strstr(md, "| new | 1 | 128 B | activation | linear | \\[4, 8\\] | run/step#\\*/fwd/fc1 | 0 / 1 |"));
	assert_non_null(strstr(md, "](diff_change.cuda-0.png)"));
	free(md);
	snprintf(p, sizeof p, "%s/diff.html", dir);
	char *html = tu_read(p, NULL);
	assert_non_null(strstr(html, "<svg"));
	/* the explorer's script and the device's data (cli/explore_diff_cli), nothing else */
	assert_null(strstr(html, "<script src"));
	assert_non_null(strstr(html, "<script type=\"application/json\" class=\"cgx-data\">{\"version\":1,\"diff_view\":true"));
	assert_null(strstr(html, "src=\"http"));
	free(html);
}

/* The other way round every change is negative, exactly. */
static void a_shrinking_run_has_negative_changes(void **state)
{
	run_spec base = RUN_SPEC_INIT, grown = RUN_SPEC_INIT;
	grown.act_bytes = 128;
	char *dir;
	cJSON *j = diff(&grown, &base, "shrink", &dir);
	assert_true(DEV("peak_bytes", "change") == -64);
	assert_true(DEV("peak_bytes", "change_percent") == -64.0 / 228.0 * 100.0);
	cJSON_Delete(j);
	char p[700];
	snprintf(p, sizeof p, "%s/diff.json", dir);
	char *text = tu_read(p, NULL);
	assert_non_null(strstr(text, "\"change\": -64,"));
	free(text);
}

static void an_optimizer_state_that_appears(void **state)
{
	run_spec base = RUN_SPEC_INIT, adam = RUN_SPEC_INIT;
	adam.opt = true;
	cJSON *j = diff(&base, &adam, "adam", NULL);
	assert_true(DEV("peak_bytes", "change") == 200);
	assert_true(DEV("at_peak", "by_category", "optimizer_state", "base") == 0);
	assert_true(DEV("at_peak", "by_category", "optimizer_state", "change") == 200);
	assert_true(cJSON_IsNull(tu_json_at(j, "devices", "0", "at_peak", "by_category", "optimizer_state",
					    "change_percent", NULL)));
	assert_true(DEV("at_peak", "by_phase", "optimizer", "change") == 200);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "devices", "0", "at_peak", "span_paths", "0", "path", NULL)),
			    "run/step#*/opt");
	cJSON *g = tu_json_at(j, "devices", "0", "at_peak", "allocations_at_one_peak", "groups", "0", NULL);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(g, "op", NULL)), "zeros");
	assert_string_equal(cJSON_GetStringValue(tu_json_at(g, "example", "category", NULL)), "optimizer_state");
	assert_int_equal(tu_json_u64(g, "bytes", NULL), 200);
	assert_true(DEV("live_at_end_bytes", "change") == 200);
	assert_true(DEV("leaked_at_end_bytes", "change") == 0);
	cJSON_Delete(j);
}

static void a_leak_that_grows_per_step(void **state)
{
	run_spec base = RUN_SPEC_INIT, leaky = RUN_SPEC_INIT;
	base.loss = leaky.loss = true;
	leaky.keep_loss = true;
	cJSON *j = diff(&base, &leaky, "leak", NULL);
	assert_true(DEV("peak_bytes", "change") == 8);
	assert_true(DEV("peak_time_ns", "new") == 312);
	cJSON *g = tu_json_at(j, "devices", "0", "at_peak", "allocations_at_one_peak", "groups", "0", NULL);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(g, "path", NULL)), "run/step#*/fwd");
	assert_string_equal(cJSON_GetStringValue(tu_json_at(g, "op", NULL)), "loss");
	assert_int_equal(tu_json_u64(g, "count", NULL), 2);
	assert_int_equal(tu_json_u64(g, "bytes", NULL), 8);
	assert_int_equal(tu_json_u64(g, "live", "base", NULL), 1);
	assert_int_equal(tu_json_u64(g, "live", "new", NULL), 3);
	assert_true(DEV("leaked_at_end_bytes", "base") == 0);
	assert_true(DEV("leaked_at_end_bytes", "new") == 12);
	cJSON_Delete(j);
}

/* Every "change" in the document is 0, every list of changes empty. */
static void assert_no_change(cJSON *x)
{
	for (cJSON *c = x ? x->child : NULL; c; c = c->next) {
		if (c->string && strcmp(c->string, "change") == 0 && !cJSON_IsNull(c))
			assert_true(cJSON_GetNumberValue(c) == 0);
		if (c->string && strcmp(c->string, "change_percent") == 0 && !cJSON_IsNull(c))
			assert_true(cJSON_GetNumberValue(c) == 0);
		if (c->string && (strcmp(c->string, "span_paths") == 0 || strcmp(c->string, "groups") == 0))
			assert_int_equal(cJSON_GetArraySize(c), 0);
		assert_no_change(c);
	}
}

static cJSON *diff_files(const char *a, const char *b, const char *dir, const char *align)
{
	int rc = tu_run(NULL, NULL, NULL, "diff", a, b, "-o", dir, "-q", "--align", align, NULL);
	assert_int_equal(rc, 0);
	char p[700];
	snprintf(p, sizeof p, "%s/diff.json", dir);
	return tu_json_file(p);
}

/* The same run twice, and the same run plain and gzip-compressed. */
static void the_same_file_twice_differs_in_nothing(void **state)
{
	cJSON *j = diff_files(tu_sample("mlp_adam.jsonl"), tu_sample("mlp_adam.jsonl"), tu_path("same"), "phases");
	assert_true(DEV("peak_bytes", "base") == 16190672); /* the oracle's */
	assert_true(DEV("at_peak", "span_paths_changed") == 0);
	assert_no_change(j);
	assert_int_equal(tu_json_u64(j, "alignment", "matched_steps", NULL), 4);
	assert_int_equal(tu_json_u64(j, "alignment", "matched_windows", NULL), 12);
	cJSON_Delete(j);
	j = diff_files(tu_sample("mlp_adam.jsonl"), tu_sample("mlp_adam.jsonl.gz"), tu_path("samegz"), "start");
	assert_no_change(j);
	assert_true(cJSON_IsTrue(tu_json_at(j, "runs", "new", "gzip", NULL)));
	cJSON_Delete(j);
}

/* A cut trace and PyTorch profiler traces; peaks are the oracles'. */
static void works_on_every_input_report_reads(void **state)
{
	const char *dir = tu_path("cut");
	cJSON *j = diff_files(tu_sample("mlp_adam.jsonl"), tu_sample("mlp_adam_cut.jsonl"), dir, "phases");
	cJSON *o = tu_json_file(tu_sample("mlp_adam_cut.oracle.json"));
	assert_true(DEV("peak_bytes", "new") == (double)tu_json_u64(o, "peak_total_allocated_bytes", NULL));
	assert_true(cJSON_IsTrue(tu_json_at(j, "runs", "new", "truncated", NULL)));
	/* leaked: the cut run's oracle lists what was live at its end by category */
	cJSON_Delete(o);
	cJSON_Delete(j);
	char p[700];
	snprintf(p, sizeof p, "%s/diff.md", dir);
	char *md = tu_read(p, NULL);
	assert_non_null(strstr(md, "> **The new run's trace was cut off: trace ends mid-record at line 3974"));
	free(md);

	j = diff_files(tu_sample("external/tracelens_h100_bert_small.json.gz"),
		       tu_sample("external/tracelens_mi300_bert_small.json.gz"), tu_path("torch"), "phases");
	cJSON *ob = tu_json_file(tu_sample("external/tracelens_h100_bert_small.oracle.json"));
	cJSON *on = tu_json_file(tu_sample("external/tracelens_mi300_bert_small.oracle.json"));
	/* base devices cuda:0 then cpu; the new run's hip:0 after them */
	assert_int_equal(cJSON_GetArraySize(tu_json_at(j, "devices", NULL)), 3);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "devices", "0", "name", NULL)), "cuda:0");
	assert_true(cJSON_IsFalse(tu_json_at(j, "devices", "0", "in_new", NULL)));
	assert_true(num(j, "devices", "0", "peak_bytes", "base", NULL) ==
		    (double)tu_json_u64(ob, "devices", "1:0", "max_total_allocated", NULL));
	assert_true(cJSON_IsNull(tu_json_at(j, "devices", "0", "peak_bytes", "new", NULL)));
	assert_true(cJSON_IsNull(tu_json_at(j, "devices", "0", "peak_bytes", "change", NULL)));
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "devices", "1", "name", NULL)), "cpu");
	assert_true(num(j, "devices", "1", "peak_bytes", "base", NULL) ==
		    (double)tu_json_u64(ob, "devices", "0:-1", "max_total_allocated", NULL));
	assert_true(num(j, "devices", "1", "peak_bytes", "new", NULL) ==
		    (double)tu_json_u64(on, "devices", "0:-1", "max_total_allocated", NULL));
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "devices", "2", "name", NULL)), "hip:0");
	assert_true(cJSON_IsFalse(tu_json_at(j, "devices", "2", "in_base", NULL)));
	cJSON_Delete(ob);
	cJSON_Delete(on);
	cJSON_Delete(j);
}

static void the_output_folder_follows_the_report_rules(void **state)
{
	const char *dir = tu_path("theirs");
	assert_int_equal(mkdir(dir, 0755), 0);
	char mine[700];
	snprintf(mine, sizeof mine, "%s/notes.txt", dir);
	tu_write("theirs/notes.txt", "keep me", (size_t)-1);
	char *out, *err;
	int rc = tu_run(&out, &err, NULL, "diff", tu_sample("mlp_adam.jsonl"), tu_sample("mlp_adam.jsonl"), "-o", dir,
			"-q", NULL);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(err, "cgmem diff: "));
	assert_true(tu_exists(mine));
	free(out);
	free(err);
	rc = tu_run(NULL, NULL, NULL, "diff", tu_sample("mlp_adam.jsonl"), tu_sample("mlp_adam.jsonl"), "-o", dir, "-q",
		    "--force", NULL);
	assert_int_equal(rc, 0);
	assert_false(tu_exists(mine));
	/* A second diff replaces the first: it holds only what cgmem wrote.
	 * The oracles' peaks: mlp_adam 16,190,672 B, cnn_sgd 12,000,912 B;
	 * the change 4,189,760 B (4.00 MiB) is 25.88 % of the first. */
	rc = tu_run(&out, &err, NULL, "diff", tu_sample("mlp_adam.jsonl"), tu_sample("cnn_sgd.jsonl"), "-o", dir, NULL);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "cpu: peak 15.44 MiB \xe2\x86\x92 11.44 MiB (-4.00 MiB, -25.9 %)\n"));
	assert_non_null(strstr(out, "diff written to "));
	free(out);
	free(err);
	/* an unreadable run leaves no folder */
	const char *never = tu_path("never");
	rc = tu_run(NULL, &err, NULL, "diff", tu_sample("mlp_adam.jsonl"), tu_path("missing.jsonl"), "-o", never, NULL);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(err, "missing.jsonl: No such file or directory"));
	assert_false(tu_exists(never));
	free(err);
}

static void usage_errors_exit_two(void **state)
{
	struct {
		const char *args[8];
		const char *message;
	} cases[] = {
		{{"diff", "a.jsonl", "-o", "x", NULL}, "give two trace files"},
		{{"diff", "a", "b", "c", "-o", "x", NULL}, "give two trace files"},
		{{"diff", "a", "b", NULL}, "no output folder given (-o DIR)"},
		{{"diff", "a", "b", "-o", "x", "--align", "middle", NULL}, "--align: 'middle' is neither start nor phases"},
		{{"diff", "a", "b", "-o", "x", "--top", "0", NULL}, "--top: '0' is not a number"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out, *err;
		const char **a = cases[i].args;
		int rc = tu_run(&out, &err, NULL, a[0], a[1], a[2], a[3], a[4], a[5], a[6], NULL);
		if (rc != 2 || !strstr(err, cases[i].message))
			fail_msg("case %zu: exit %d, stderr: %s", i, rc, err);
		free(out);
		free(err);
	}
	char *out;
	assert_int_equal(tu_run(&out, NULL, NULL, "help", "diff", NULL), 0);
	assert_non_null(strstr(out, "usage: cgmem diff [options] BASE NEW"));
	assert_non_null(strstr(out, "--align HOW"));
	free(out);
}

#define HOSTILE "<script>alert(1)</script>|x"

/* Names from the traces reach diff.md and diff.html only escaped. */
static void hostile_names_are_escaped(void **state)
{
	char trace[2][2048];
	for (int s = 0; s < 2; s++)
		snprintf(trace[s], sizeof trace[s],
			 "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\"}\n"
			 "{\"kind\":\"span_start\",\"id\":\"a\",\"name\":\"" HOSTILE "\",\"start_ns\":0,\"span_kind\":\"op\"}\n"
			 "{\"kind\":\"memory\",\"timestamp_ns\":5,\"tensor_id\":\"t\",\"span_id\":\"a\",\"device\":\"" HOSTILE "\","
			 "\"bytes\":%d,\"action\":\"alloc\",\"dtype\":\"f32\",\"op_name\":\"" HOSTILE "\"}\n",
			 64 * (s + 1));
	char *a = strdup(tu_write("h1.jsonl", trace[0], (size_t)-1));
	char *b = strdup(tu_write("h2.jsonl", trace[1], (size_t)-1));
	const char *dir = tu_path("hostile");
	assert_int_equal(tu_run(NULL, NULL, NULL, "diff", a, b, "-o", dir, "-q", NULL), 0);
	char p[700];
	snprintf(p, sizeof p, "%s/diff.html", dir);
	char *html = tu_read(p, NULL);
	/* the names in the page's text escaped, in its explorer's data as JSON */
	assert_null(strstr(html, "<script>alert"));
	assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_non_null(strstr(html, "\"device\":\"\\u003cscript>alert(1)\\u003c/script>|x\""));
	free(html);
	snprintf(p, sizeof p, "%s/diff.md", dir);
	char *md = tu_read(p, NULL);
	assert_null(strstr(md, "<script"));
	assert_null(strstr(md, "</script>|x"));
	free(md);
	/* the device's charts have file-safe names */
	snprintf(p, sizeof p, "%s/diff_change.-script-alert-1---script--x.svg", dir);
	assert_true(tu_exists(p));
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_module_that_doubles_its_activation),
		cmocka_unit_test(a_shrinking_run_has_negative_changes),
		cmocka_unit_test(an_optimizer_state_that_appears),
		cmocka_unit_test(a_leak_that_grows_per_step),
		cmocka_unit_test(the_same_file_twice_differs_in_nothing),
		cmocka_unit_test(works_on_every_input_report_reads),
		cmocka_unit_test(the_output_folder_follows_the_report_rules),
		cmocka_unit_test(usage_errors_exit_two),
		cmocka_unit_test(hostile_names_are_escaped),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
