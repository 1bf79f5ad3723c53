/* Partial results (src/ingest/partial.h): the rank of a file from its
 * name, and a rank's row read from its summary.json or a ranks document. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "partial.h"

static bool name_rank(const char *name, const char *regex, int64_t *rank, cg_rank_from *from)
{
	regex_t re;
	cg_error err = CG_ERROR_INIT;
	if (regex)
		assert_int_equal(cg_rank_regex_compile(&re, regex, &err), 0);
	bool ok = cg_rank_from_file_name(name, regex ? &re : NULL, rank, from);
	if (regex)
		regfree(&re);
	return ok;
}

static void expect_rank(const char *name, const char *regex, int64_t want, cg_rank_from want_from)
{
	int64_t rank = -1;
	cg_rank_from from = CG_RANK_FROM_COUNT;
	if (!name_rank(name, regex, &rank, &from))
		fail_msg("%s: no rank found", name);
	if (rank != want || from != want_from)
		fail_msg("%s: rank %lld from %d, expected %lld from %d", name, (long long)rank, (int)from, (long long)want,
			 (int)want_from);
}

static void the_names_pytorch_jobs_give_their_files_yield_the_rank(void **state)
{
	/* the names of issue 16, as PyTorch users name them */
	expect_rank("rank3_trace.json.gz", NULL, 3, CG_RANK_FROM_NAME);
	expect_rank("rank-3.Apr_03_18_51_38.1102.pt.trace.json.gz", NULL, 3, CG_RANK_FROM_NAME);
	expect_rank("snapshot_oom_rank-3.pickle", NULL, 3, CG_RANK_FROM_NAME);
	expect_rank("rank3_memory_snapshot.pickle", NULL, 3, CG_RANK_FROM_NAME);
	expect_rank("RANK_12.jsonl", NULL, 12, CG_RANK_FROM_NAME);
	expect_rank("job.Rank007.jsonl", NULL, 7, CG_RANK_FROM_NAME);
	/* the first "rank" followed by digits: "ranks" is not one */
	expect_rank("ranks_of_job_rank2.jsonl", NULL, 2, CG_RANK_FROM_NAME);
	/* then a trailing _N before the first '.' */
	expect_rank("trace_7.json.gz", NULL, 7, CG_RANK_FROM_NAME);
	expect_rank("gpt_step100_15.pt.trace.json", NULL, 15, CG_RANK_FROM_NAME);
	/* rank[-_]?N comes before the trailing _N */
	expect_rank("rank1_trace_5.json", NULL, 1, CG_RANK_FROM_NAME);
	/* the folder is not the file's name */
	expect_rank("/jobs/rank9/trace_2.json", NULL, 2, CG_RANK_FROM_NAME);
}

static void names_without_a_rank_give_none(void **state)
{
	int64_t rank;
	cg_rank_from from;
	const char *none[] = {"worker0.1623143089861.pt.trace.json.gz", "trace.json", "ranks.jsonl", "rank_.json",
			      "trace_.json", "trace.v_2.json", "rank1234567890.json", "/jobs/rank9/trace.json"};
	for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
		if (name_rank(none[i], NULL, &rank, &from))
			fail_msg("%s: rank %lld found", none[i], (long long)rank);
}

static void rank_from_regex_comes_before_the_name_rules_and_falls_back_to_them(void **state)
{
	expect_rank("node1-gpu3.json", "gpu([0-9]+)", 3, CG_RANK_FROM_REGEX);
	expect_rank("rank1-gpu3.json", "gpu([0-9]+)", 3, CG_RANK_FROM_REGEX);
	/* no group: the whole match */
	expect_rank("host-17.json", "[0-9]+", 17, CG_RANK_FROM_REGEX);
	/* no match, or not digits: the name rules */
	expect_rank("rank4_trace.json", "gpu([0-9]+)", 4, CG_RANK_FROM_NAME);
	expect_rank("rank4_gpuX.json", "gpu(X)", 4, CG_RANK_FROM_NAME);
	regex_t re;
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_rank_regex_compile(&re, "gpu([0-9]+", &err), CG_EUSAGE);
	assert_non_null(strstr(err.msg, "--rank-from: 'gpu([0-9]+' is not a regular expression: "));
}

/* A summary.json as cgmem summary --json writes it, cut to what a row reads. */
static const char summary[] =
	"{\"schema\": \"cgmem/summary/1\", \"source\": {\"path\": \"/x/node.pt.trace.json\", \"format\": \"F\", "
	"\"truncated\": false, \"time_origin_unix_ns\": 1796032800000000123},"
	" \"run\": {\"rank\": 5, \"world_size\": 8},"
	" \"steps\": {\"list\": [{\"name\": \"ProfilerStep#0\", \"start_ns\": 0, \"end_ns\": 999},"
	" {\"name\": \"ProfilerStep#1\", \"start_ns\": 1000, \"end_ns\": null}]},"
	" \"devices\": [{\"name\": \"cuda:1\", \"capacity_bytes\": null,"
	" \"checkpoints\": {\"list\": [{\"capacity_bytes\": 100}, {\"capacity_bytes\": 9007199254740993}]},"
	" \"peak\": {\"bytes\": 9007199254740993, \"time_ns\": 1500, \"allocation\": {\"phase\": \"backward\"}},"
	" \"over_time\": {\"by_phase\": {\"none\": {\"ran\": false, \"peak_bytes\": null},"
	" \"forward\": {\"ran\": true, \"peak_bytes\": 7}}},"
	" \"at_peak\": {\"by_category\": {\"gradient\": {\"bytes\": 3, \"count\": 1}}},"
	" \"end\": {\"time_ns\": 2000, \"out_of_memory\": {\"bytes\": 1}}}]}";

static void a_summary_gives_one_row_with_exact_integers(void **state)
{
	cg_rankset s = {0};
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_partial_read(&s, summary, strlen(summary), "p.json", NULL, &err), 0);
	assert_int_equal(s.n, 1);
	const cg_rank *r = &s.ranks[0];
	assert_int_equal(r->rank, 5);
	assert_int_equal(r->from, CG_RANK_FROM_DISTRIBUTED);
	assert_true(r->has_world_size);
	assert_int_equal(r->world_size, 8);
	assert_string_equal(r->file, "node.pt.trace.json");
	assert_int_equal(r->stop, CG_RANK_STOP_OOM);
	assert_int_equal(r->stop_ns, 2000);
	/* 2^60-odd: through a double it would lose its last digits */
	assert_true(r->has_wall);
	assert_true(r->stop_unix_ns == INT64_C(1796032800000002123));
	assert_int_equal(r->ndevices, 1);
	const cg_rank_device *d = &r->devices[0];
	assert_true(d->peak_bytes == INT64_C(9007199254740993));
	assert_true(d->has_capacity && d->capacity_bytes == INT64_C(9007199254740993));
	assert_string_equal(d->step, "ProfilerStep#1"); /* an unended step holds what comes after its start */
	assert_string_equal(d->phase, "backward");
	assert_true(d->oom);
	assert_false(d->has_phase[CG_PHASE_NONE]);
	assert_true(d->has_phase[CG_PHASE_FORWARD]);
	assert_int_equal(d->phase_peak[CG_PHASE_FORWARD], 7);
	assert_int_equal(d->at_peak[CG_CAT_GRADIENT], 3);
	cg_rankset_clear(&s);
}

static void a_jsonl_start_time_gives_the_wall_clock(void **state)
{
	const char *text = "{\"schema\": \"cgmem/summary/1\", \"source\": {\"path\": \"run_3.jsonl\", \"truncated\": true,"
			   " \"time_origin_unix_ns\": null}, \"run\": {\"rank\": null, \"meta\": {\"started_at\": "
			   "\"2026-11-30T11:00:00.25+01:00\"}}, \"devices\": [{\"name\": \"cpu\", \"peak\": {\"bytes\": 1},"
			   " \"end\": {\"time_ns\": 5, \"out_of_memory\": null}}]}";
	cg_rankset s = {0};
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_partial_read(&s, text, strlen(text), "p.json", NULL, &err), 0);
	assert_int_equal(s.ranks[0].rank, 3);
	assert_int_equal(s.ranks[0].from, CG_RANK_FROM_NAME);
	assert_int_equal(s.ranks[0].stop, CG_RANK_STOP_CUT);
	assert_true(s.ranks[0].has_wall);
	/* 2026-11-30T10:00:00Z is 1796032800 s after the epoch */
	assert_true(s.ranks[0].stop_unix_ns == INT64_C(1796032800250000005));
	cg_rankset_clear(&s);
}

static void what_is_not_a_partial_is_said_with_the_file_and_the_place(void **state)
{
	cg_rankset s = {0};
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_partial_read(&s, "{\"schema\": 1,", 13, "bad.json", NULL, &err), CG_EINPUT);
	assert_string_equal(err.msg, "bad.json: not valid JSON at byte offset 12, so not a partial result");
	const char *other = "{\"schema\": \"cgmem/diff/1\"}";
	assert_int_equal(cg_partial_read(&s, other, strlen(other), "d.json", NULL, &err), CG_EINPUT);
	assert_string_equal(err.msg, "d.json: not a partial result: a summary.json (\"schema\": \"cgmem/summary/1\", as "
				     "cgmem summary --json prints) or a ranks document (cgmem merge --json) was expected");
	const char *norank = "{\"schema\": \"cgmem/summary/1\", \"source\": {\"path\": \"/a/trace.json\"}, \"run\": {}}";
	assert_int_equal(cg_partial_read(&s, norank, strlen(norank), "n.json", NULL, &err), CG_EINPUT);
	assert_string_equal(err.msg, "n.json: no rank for trace.json: the trace has no distributedInfo.rank, and its name "
				     "has neither rank[-_]N nor a trailing _N (give --rank-from REGEX)");
	const char *badrow = "{\"schema\": \"cgmem/summary/1\", \"ranks\": {\"rows\": [{\"rank\": -1}]}}";
	assert_int_equal(cg_partial_read(&s, badrow, strlen(badrow), "m.json", NULL, &err), CG_EINPUT);
	assert_string_equal(err.msg, "m.json: ranks.rows[0]: \"rank\" is not a non-negative integer");
	assert_int_equal(s.n, 0);
	cg_rankset_clear(&s);
}

static void two_files_of_one_rank_are_an_error_naming_both(void **state)
{
	cg_rankset s = {0};
	cg_error err = CG_ERROR_INIT;
	const char *a = "{\"schema\": \"cgmem/summary/1\", \"source\": {\"path\": \"rank2.json\"}, \"run\": {}}";
	const char *b = "{\"schema\": \"cgmem/summary/1\", \"source\": {\"path\": \"x.json\"}, \"run\": {\"rank\": 2}}";
	assert_int_equal(cg_partial_read(&s, a, strlen(a), "a", NULL, &err), 0);
	assert_int_equal(cg_rankset_check_last(&s, &err), 0);
	assert_int_equal(cg_partial_read(&s, b, strlen(b), "b", NULL, &err), 0);
	assert_int_equal(cg_rankset_check_last(&s, &err), CG_EINPUT);
	assert_string_equal(err.msg, "rank 2 is claimed by two files: rank2.json (from its file name) and x.json "
				     "(from distributedInfo.rank)");
	/* sorting says the same, in the same order whatever the input order */
	cg_error err2 = CG_ERROR_INIT;
	cg_rank t = s.ranks[0];
	s.ranks[0] = s.ranks[1];
	s.ranks[1] = t;
	assert_int_equal(cg_rankset_sort(&s, &err2), CG_EINPUT);
	assert_string_equal(err2.msg, err.msg);
	cg_rankset_clear(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_names_pytorch_jobs_give_their_files_yield_the_rank),
		cmocka_unit_test(names_without_a_rank_give_none),
		cmocka_unit_test(rank_from_regex_comes_before_the_name_rules_and_falls_back_to_them),
		cmocka_unit_test(a_summary_gives_one_row_with_exact_integers),
		cmocka_unit_test(a_jsonl_start_time_gives_the_wall_clock),
		cmocka_unit_test(what_is_not_a_partial_is_said_with_the_file_and_the_place),
		cmocka_unit_test(two_files_of_one_rank_are_an_error_naming_both),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
