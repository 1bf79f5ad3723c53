/* The command-line half of tests/ingest/test_kineto.c: what `cgmem report`
 * says of kineto_oracle.py's self-test trace, in its output and in
 * summary.json. */
#include "runutil.h"

#include <string.h>

/* A [memory] event as Kineto writes it. */
#define MEM(ts, tid, dt, did, addr, b, ta, tr) \
	"{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":" #tid \
	",\"ts\":" #ts ",\"args\":{\"Device Type\":" #dt ",\"Device Id\":" #did ",\"Addr\":" #addr \
	",\"Bytes\":" #b ",\"Total Allocated\":" #ta ",\"Total Reserved\":" #tr "}}"

/* kineto_oracle.py --selftest, event for event (the same trace as
 * test_kineto.c's): a block from before the trace freed inside it, thread
 * 2's block written before thread 1's, an out-of-memory event without a
 * device, and after traceEvents a duplicate key whose second value is NaN. */
static const char selftest[] =
	"{\"traceEvents\": ["
	"{\"ph\": \"X\", \"name\": \"op\", \"ts\": 0, \"dur\": 100, \"pid\": 1, \"tid\": 1},"
	MEM(25, 2, 1, 0, 333, 100, 1300, 4096) ","
	MEM(26, 2, 1, 0, 333, -100, 1200, 4096) ","
	MEM(10.5, 1, 1, 0, 111, -300, 700, 4096) ","
	MEM(20.25, 1, 1, 0, 222, 500, 1200, 4096) ","
	MEM(15, 1, 0, -1, 5, 8, 8, 0) ","
	MEM(30, 1, 1, 0, 222, -500, 700, 4096) ","
	"{\"ph\": \"i\", \"name\": \"[OutOfMemory]\", \"pid\": 1, \"tid\": 1, \"ts\": 31, \"args\": {\"Bytes\": 1}}"
	"], \"k\": 1, \"k\": NaN}";

static void the_cli_report_carries_the_trace_facts(void **state)
{
	const char *trace = tu_write("cli.json", selftest, (size_t)-1);
	const char *out = tu_path("cli-out");
	char *so, *se;
	int rc = tu_run(&so, &se, NULL, "report", trace, "-o", out, NULL);
	if (rc != 0)
		fail_msg("cgmem report exited %d: %s", rc, se);
	/* The oracle's max_total_allocated: 1300 B. */
	assert_non_null(strstr(so, "cuda:0: peak 1.27 KiB (1,300 B)"));
	free(so);
	free(se);
	char path[600];
	snprintf(path, sizeof path, "%s/summary.json", out);
	cJSON *j = tu_json_file(path);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "source", "positions", NULL)), "events");
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "source", "time_origin", NULL)), "0 us");
	assert_true(cJSON_IsNull(tu_json_at(j, "source", "time_origin_unix_ns", NULL)));
	assert_true(cJSON_IsFalse(tu_json_at(j, "source", "categories_known", NULL)));
	/* The first cuda event in time (ts 10.5) frees 300 B and leaves Total
	 * Allocated 700: 1000 B were live before it, 300 of them freed in the
	 * trace (before it), 700 never (the baseline). */
	assert_int_equal(tu_json_u64(j, "devices", "0", "baseline_bytes", NULL), 700);
	assert_int_equal(tu_json_u64(j, "devices", "0", "before_trace_bytes", NULL), 300);
	cJSON_Delete(j);
}

/* Capacity from deviceProperties, matched by id (a ROCm device, hip:1, is
 * entry 1): 20,000 B, of which the allocator reserves 19,500 at the end,
 * so the headroom is 500 B and 19,500 >= 95 % of 20,000 is nearly full. */
static const char capacity_trace[] =
	"{\"deviceProperties\": [{\"id\": 0, \"name\": \"A\", \"totalGlobalMem\": 10000},"
	"{\"id\": 1, \"name\": \"B\", \"totalGlobalMem\": 20000}],"
	"\"traceEvents\": ["
	MEM(10, 1, 6, 1, 1, 1000, 1000, 19500) ","
	MEM(15, 1, 0, -1, 5, 8, 8, 0) ","
	MEM(20, 1, 6, 1, 1, -1000, 0, 19500)
	"]}";

static void capacity_comes_from_device_properties(void **state)
{
	const char *trace = tu_write("capacity.json", capacity_trace, (size_t)-1);
	char *so, *se;
	int rc = tu_run(&so, &se, NULL, "summary", "--json", trace, NULL);
	if (rc != 0)
		fail_msg("cgmem summary exited %d: %s", rc, se);
	cJSON *j = cJSON_Parse(so);
	assert_non_null(j);
	free(so);
	free(se);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "devices", "0", "name", NULL)), "hip:1");
	assert_int_equal(tu_json_u64(j, "devices", "0", "capacity_bytes", NULL), 20000);
	assert_true(cJSON_IsNull(tu_json_at(j, "devices", "1", "capacity_bytes", NULL)));
	assert_int_equal(tu_json_u64(j, "devices", "0", "checkpoints", "nearest_peak", "capacity_bytes", NULL), 20000);
	assert_int_equal(tu_json_u64(j, "devices", "0", "checkpoints", "nearest_peak", "headroom_bytes", NULL), 500);
	assert_int_equal(tu_json_u64(j, "devices", "0", "end", "checkpoint", "headroom_bytes", NULL), 500);
	assert_true(cJSON_IsTrue(tu_json_at(j, "devices", "0", "end", "nearly_full", NULL)));
	assert_true(cJSON_IsNull(tu_json_at(j, "run", "rank", NULL)));
	assert_true(cJSON_IsNull(tu_json_at(j, "run", "world_size", NULL)));
	const char *verdict = cJSON_GetStringValue(tu_json_at(j, "devices", "0", "end", "verdict", NULL));
	assert_non_null(verdict);
	assert_non_null(strstr(verdict, "The last checkpoint shows hip:1 nearly full."));
	assert_non_null(strstr(verdict, "with 19.04 KiB of 19.53 KiB reserved"));
	cJSON_Delete(j);
	(void)state;
}

/* distributedInfo and metadata kept whole, pretty-printed as Kineto writes
 * them; rank and world size first-class. The large integer must stay as
 * written (a double would print 12345678901234567000). */
static const char rank_trace[] =
	"{\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8,\n"
	"    \"pg_config\": [{\"pg_name\": \"0\", \"ranks\": [0, 1]}]},\n"
	"  \"metadata\": {\"harness\": {\"id\": 12345678901234567890, \"note\": \"a \\\" b\"}},\n"
	"  \"traceEvents\": [" MEM(10, 1, 1, 0, 1, 1000, 1000, 2048) "]}";

static void rank_and_metadata_are_kept(void **state)
{
	const char *trace = tu_write("rank.json", rank_trace, (size_t)-1);
	char *so, *se;
	int rc = tu_run(&so, &se, NULL, "summary", "--json", trace, NULL);
	if (rc != 0)
		fail_msg("cgmem summary exited %d: %s", rc, se);
	assert_non_null(strstr(so, "{\"harness\":{\"id\":12345678901234567890,\"note\":\"a \\\" b\"}}"));
	cJSON *j = cJSON_Parse(so);
	assert_non_null(j);
	free(so);
	free(se);
	assert_int_equal(tu_json_u64(j, "run", "rank", NULL), 3);
	assert_int_equal(tu_json_u64(j, "run", "world_size", NULL), 8);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "run", "meta", "distributedInfo", "backend", NULL)), "nccl");
	assert_int_equal(tu_json_u64(j, "run", "meta", "distributedInfo", "pg_config", "0", "ranks", "1", NULL), 1);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "run", "meta", "metadata", "harness", "note", NULL)), "a \" b");
	cJSON_Delete(j);
	(void)state;
}

/* A block from before profiling (Addr 9, 300 B) freed after the peak: the
 * first Total Allocated, 1,500, less the 1,000 B block and those 300 B,
 * leaves a baseline of 200 B. At the peak (1,500 B at ts 10) 500 B are
 * before profiling (200 + 300) and 1,000 unknown; before the change the
 * 300 B counted as unknown. */
static const char before_trace[] =
	"{\"traceEvents\": ["
	MEM(10, 1, 1, 0, 1, 1000, 1500, 4096) ","
	MEM(20, 1, 1, 0, 1, -1000, 500, 4096) ","
	MEM(30, 1, 1, 0, 9, -300, 200, 4096)
	"]}";

static void blocks_from_before_profiling_are_before_profiling(void **state)
{
	const char *trace = tu_write("before.json", before_trace, (size_t)-1);
	char *so, *se;
	/* the categories as the trace has them: cli/infer tests the inferred ones */
	int rc = tu_run(&so, &se, NULL, "summary", "--json", "--no-infer", trace, NULL);
	if (rc != 0)
		fail_msg("cgmem summary exited %d: %s", rc, se);
	cJSON *j = cJSON_Parse(so);
	assert_non_null(j);
	free(so);
	free(se);
	assert_int_equal(tu_json_u64(j, "devices", "0", "baseline_bytes", NULL), 200);
	assert_int_equal(tu_json_u64(j, "devices", "0", "before_trace_bytes", NULL), 300);
	assert_int_equal(tu_json_u64(j, "devices", "0", "peak", "bytes", NULL), 1500);
	assert_int_equal(tu_json_u64(j, "devices", "0", "at_peak", "by_category", "before_profiling", "bytes", NULL), 500);
	assert_int_equal(tu_json_u64(j, "devices", "0", "at_peak", "by_category", "unknown", "bytes", NULL), 1000);
	assert_int_equal(tu_json_u64(j, "devices", "0", "at_peak", "by_phase", "none", "by_category", "before_profiling", NULL),
			 500);
	assert_int_equal(tu_json_u64(j, "devices", "0", "over_time", "by_category", "before_profiling", "max_bytes", NULL),
			 500);
	assert_int_equal(tu_json_u64(j, "devices", "0", "over_time", "by_category", "unknown", "max_bytes", NULL), 1000);
	assert_int_equal(tu_json_u64(j, "devices", "0", "end", "by_category", "before_profiling", "bytes", NULL), 200);
	assert_int_equal(tu_json_u64(j, "devices", "0", "end", "by_category", "unknown", "bytes", NULL), 0);
	cJSON_Delete(j);
	(void)state;
}

/* Chrome-trace spans have no ids of their own: cgmem names each "#" and its
 * event number (1-based, in traceEvents) without keeping that text in the
 * string table (cg_timeline_span_id), so every output that prints span ids
 * must print them so: summary.json's steps and the report's Chrome trace,
 * with each span's parent. Worked by hand: event 1 is the step, event 2 an
 * operator inside it (parent #1), event 4 a Python frame on thread 2 (no
 * parent); event 3, the memory event, lies in event 2. */
static void span_ids_are_event_numbers_in_every_output(void **state)
{
	static const char text[] = "{\"traceEvents\": ["
		"{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"ts\": 0, \"dur\": 100, "
		"\"pid\": 1, \"tid\": 1},"
		"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"ts\": 10, \"dur\": 20, \"pid\": 1, "
		"\"tid\": 1},"
		MEM(15, 1, 1, 0, 7, 64, 64, 512) ","
		"{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"f.py(1): f\", \"ts\": 5, \"dur\": 1, "
		"\"pid\": 1, \"tid\": 2}"
		"]}";
	const char *trace = tu_write("ids.json", text, (size_t)-1);
	const char *out = tu_path("ids-out");
	char *se;
	int rc = tu_run(NULL, &se, NULL, "report", trace, "-o", out, "-q", "--trace", "x.json", NULL);
	if (rc != 0)
		fail_msg("cgmem report exited %d: %s", rc, se);
	free(se);
	char path[600];
	snprintf(path, sizeof path, "%s/summary.json", out);
	cJSON *j = tu_json_file(path);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "steps", "list", "0", "name", NULL)), "ProfilerStep#1");
	assert_string_equal(cJSON_GetStringValue(tu_json_at(j, "steps", "list", "0", "span_id", NULL)), "#1");
	cJSON_Delete(j);

	snprintf(path, sizeof path, "%s/x.json", out);
	j = tu_json_file(path);
	const char *want[][3] = {{"ProfilerStep#1", "#1", NULL}, {"aten::add", "#2", "#1"}, {"f.py(1): f", "#4", NULL}};
	int seen = 0;
	cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(j, "traceEvents"))
	{
		cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "span_id"));
		if (!id)
			continue;
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));
		const char *parent = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "parent_id"));
		bool found = false;
		for (int i = 0; i < 3; i++) {
			if (strcmp(name, want[i][0]) != 0)
				continue;
			found = true;
			assert_string_equal(id, want[i][1]);
			if (want[i][2])
				assert_string_equal(parent, want[i][2]);
			else
				assert_null(parent);
			seen++;
		}
		if (!found)
			fail_msg("unexpected span %s (%s)", name, id);
	}
	assert_int_equal(seen, 3);
	cJSON_Delete(j);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_cli_report_carries_the_trace_facts),
		cmocka_unit_test(capacity_comes_from_device_properties),
		cmocka_unit_test(rank_and_metadata_are_kept),
		cmocka_unit_test(blocks_from_before_profiling_are_before_profiling),
		cmocka_unit_test(span_ids_are_event_numbers_in_every_output),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
