/* End to end on PyTorch profiler traces that other people recorded (H100,
 * MI300, V100, CPU): cgmem report on each reproduces the independent
 * figures in samples/external/NAME.oracle.json, device by device. */
#include "runutil.h"

#include <string.h>

#include "jsontext.h"
#include "ingest.h"
#include "kineto_events.h"

static const char *const traces[] = {
	"kineto_resnet50_num_workers_0.worker0.1623143089861.pt.trace.json.gz",
	"tracelens_h100_bert_small.json.gz",
	"tracelens_h100_falconsai_nsfw.json.gz",
	"tracelens_h100_owlv2_large.json.gz",
	"tracelens_h100_qwen1.5_0.5b.json.gz",
	"tracelens_mi300_bert_small.json.gz",
	"tracelens_mi300_ddp_resnet18_train.json.gz",
	"tracelens_mi300_falconsai_nsfw.json.gz",
	"tracelens_mi300_owlv2_large.json.gz",
	"tracelens_mi300_timesformer.json.gz",
	"tracelens_normalization_layer_test.json.gz",
	"tracelens_sglang_decode_bs32_capture.json.gz",
	"tracelens_vllm_decode_full_graph_capture.pt.trace.json.gz",
};
#define NTRACES (sizeof traces / sizeof traces[0])

static const char *sample(const char *name)
{
	static char buf[512];
	snprintf(buf, sizeof buf, "external/%s", name);
	return tu_sample(buf);
}

/* NAME.json.gz -> NAME.oracle.json, as the oracle script names them. */
static cJSON *oracle(const char *trace)
{
	char name[256];
	snprintf(name, sizeof name, "%s", trace);
	char *end = strstr(name, ".json.gz");
	if (!end)
		end = strstr(name, ".raw.gz");
	assert_non_null(end);
	snprintf(end, sizeof name - (size_t)(end - name), ".oracle.json");
	return tu_json_file(sample(name));
}

static cJSON *report(const char *trace)
{
	char outname[300];
	snprintf(outname, sizeof outname, "out-%s", trace);
	const char *out = tu_path(outname);
	char *so, *se;
	int rc = tu_run(&so, &se, NULL, "report", sample(trace), "-o", out, "--quiet", NULL);
	if (rc != 0)
		fail_msg("cgmem report %s exited %d: %s", trace, rc, se);
	free(so);
	free(se);
	char path[800];
	snprintf(path, sizeof path, "%s/summary.json", out);
	return tu_json_file(path);
}

static int64_t decimal(const char *text, int scale)
{
	int64_t v;
	if (cg_json_decimal(text, strlen(text), scale, &v, NULL) != 0)
		fail_msg("not a number: %s", text);
	return v;
}

/* A ts the oracle quotes (us, as written) in cgmem's ns since time 0. */
static uint64_t since_origin(cJSON *sum, cJSON *ts)
{
	char origin[64];
	snprintf(origin, sizeof origin, "%s", cJSON_GetStringValue(tu_json_at(sum, "source", "time_origin", NULL)));
	char *unit = strstr(origin, " us");
	assert_non_null(unit);
	*unit = '\0';
	return (uint64_t)(decimal(cJSON_GetStringValue(tu_json_at(ts, "text", NULL)), 3) - decimal(origin, 3));
}

static cJSON *device_named(cJSON *sum, const char *name)
{
	cJSON *d;
	cJSON_ArrayForEach(d, tu_json_at(sum, "devices", NULL))
		if (strcmp(cJSON_GetStringValue(tu_json_at(d, "name", NULL)), name) == 0)
			return d;
	fail_msg("no device %s in the report", name);
	return NULL;
}

/* "1:0" -> "cuda:0" */
static void device_name(const char *key, char *buf, size_t size)
{
	long long type, id;
	assert_int_equal(sscanf(key, "%lld:%lld", &type, &id), 2);
	cg_kineto_device_name(type, id, buf, size);
}

#define U64(j, ...) tu_json_u64(j, __VA_ARGS__, NULL)

static void check_device(const char *trace, cJSON *sum, cJSON *od, const char *name)
{
	cJSON *d = device_named(sum, name);
	uint64_t peak = U64(d, "peak", "bytes"), base = U64(d, "baseline_bytes");
	uint64_t before = U64(d, "before_trace_bytes"), end = U64(d, "live_bytes_at_end");
	assert_int_equal(U64(d, "allocations"), U64(od, "alloc_events"));
	assert_int_equal(U64(d, "frees"), U64(od, "free_events"));
	assert_int_equal(U64(d, "memory_records"), U64(od, "events") - U64(od, "zero_byte_events"));
	assert_int_equal(U64(d, "first_record_ns"), since_origin(sum, tu_json_at(od, "first_ts", NULL)));
	assert_int_equal(U64(d, "last_record_ns"), since_origin(sum, tu_json_at(od, "last_ts", NULL)));

	if (!cJSON_IsNull(tu_json_at(od, "max_total_allocated", NULL))) {
		/* The peak including memory from before profiling is PyTorch's own maximum. */
		assert_int_equal(peak, U64(od, "max_total_allocated"));
		assert_int_equal(U64(d, "peak", "time_ns"),
				 since_origin(sum, tu_json_at(od, "max_total_allocated_first_ts", NULL)));
		assert_int_equal(base + before, U64(od, "baseline_bytes_before_first_event"));
		assert_int_equal(end, U64(od, "total_allocated_at_last_event"));
	}
	cJSON *r = tu_json_at(od, "replay", NULL);
	if (!cJSON_IsNull(r)) {
		assert_int_equal(U64(d, "before_trace_allocations"), U64(r, "frees_without_live_alloc"));
		assert_int_equal(before, U64(r, "frees_without_live_alloc_bytes"));
		if (U64(r, "frees_without_live_alloc") == 0) {
			/* What the events alone replay to, with the baseline taken off. */
			assert_int_equal(peak - base, U64(r, "peak_live_bytes"));
			assert_int_equal(end - base, U64(r, "live_bytes_at_end"));
		}
		assert_int_equal(U64(d, "live_allocations_at_end"), U64(r, "live_allocations_at_end"));
	} else {
		/* No Addr: the signed running sum, lifted so it never goes below
		 * zero (what it would go below is memory from before the trace). */
		cJSON *rs = tu_json_at(od, "running_sum", NULL);
		double min = tu_json_at(rs, "min", NULL)->valuedouble;
		assert_int_equal(base, 0);
		assert_int_equal(before, min < 0 ? (uint64_t)-min : 0);
		assert_int_equal(peak - before, U64(rs, "peak"));
		assert_int_equal(end - before, (uint64_t)tu_json_at(rs, "final", NULL)->valuedouble);
	}
	(void)trace;
}

static void check_trace(const char *trace)
{
	cJSON *sum = report(trace), *o = oracle(trace);
	assert_int_equal(U64(sum, "source", "lines"), U64(o, "events_total"));
	assert_int_equal(U64(sum, "source", "bad_lines"), 0);
	assert_false(cJSON_IsTrue(tu_json_at(sum, "source", "truncated", NULL)));
	assert_false(cJSON_IsTrue(tu_json_at(sum, "source", "categories_known", NULL)));
	cJSON *devs = tu_json_at(o, "devices", NULL);
	assert_int_equal(cJSON_GetArraySize(tu_json_at(sum, "devices", NULL)), cJSON_GetArraySize(devs));
	bool paired = true;
	uint64_t alloc_at_live = 0, size_mismatch = 0;
	for (cJSON *od = devs->child; od; od = od->next) {
		char name[64];
		device_name(od->string, name, sizeof name);
		check_device(trace, sum, od, name);
		cJSON *r = tu_json_at(od, "replay", NULL);
		if (cJSON_IsNull(r)) {
			paired = false;
			continue;
		}
		alloc_at_live += U64(r, "allocs_at_already_live_addr");
		size_mismatch += U64(r, "frees_with_size_different_from_alloc");
	}
	assert_int_equal(cJSON_IsTrue(tu_json_at(sum, "source", "pairing_known", NULL)), paired);
	assert_int_equal(U64(sum, "anomalies", "alloc_of_live_id", "count"), alloc_at_live);
	assert_int_equal(U64(sum, "anomalies", "bytes_mismatch", "count"), size_mismatch);
	cJSON_Delete(sum);
	cJSON_Delete(o);
}

static void every_trace_matches_its_oracle_device_by_device(void **state)
{
	for (size_t i = 0; i < NTRACES; i++)
		check_trace(traces[i]);
}

static void total_reserved_checkpoints_reach_the_oracles_maximum(void **state)
{
	for (size_t i = 0; i < NTRACES; i++) {
		cg_timeline *tl;
		cg_error err;
		if (cg_ingest(&tl, sample(traces[i]), NULL, &err) != 0)
			fail_msg("%s", err.msg);
		cJSON *o = oracle(traces[i]);
		assert_int_equal(tl->nooms, U64(o, "out_of_memory_events"));
		assert_int_equal(tl->source.records[CG_KIND_MEMORY], U64(o, "memory_events"));
		for (cJSON *od = tu_json_at(o, "devices", NULL)->child; od; od = od->next) {
			if (cJSON_IsNull(tu_json_at(od, "max_total_reserved", NULL)))
				continue;
			char name[64];
			device_name(od->string, name, sizeof name);
			uint64_t best = 0;
			uint32_t n = 0;
			for (size_t k = 0; k < tl->ndevmem; k++) {
				const cg_devmem *dm = &tl->devmem[k];
				if (strcmp(cg_timeline_str(tl, tl->devices[dm->device].name), name) != 0)
					continue;
				n++;
				if (dm->reserved_bytes > best)
					best = dm->reserved_bytes;
			}
			assert_int_equal(best, U64(od, "max_total_reserved"));
			assert_int_equal(n, U64(od, "events"));
		}
		cJSON_Delete(o);
		cg_timeline_free(tl);
	}
}

/* An integer beyond 2^53 read from a JSON file's text, which cJSON's
 * doubles would round: the first "key": NUMBER in the file. */
static uint64_t exact_field(const char *path, const char *key)
{
	char *text = tu_read(path, NULL);
	assert_non_null(text);
	char pat[64];
	snprintf(pat, sizeof pat, "\"%s\": ", key);
	const char *p = strstr(text, pat);
	assert_non_null(p);
	p += strlen(pat);
	int64_t v;
	size_t n = strspn(p, "0123456789");
	assert_int_equal(cg_json_int(p, n, &v), 0);
	free(text);
	return (uint64_t)v;
}

static const char *const category_keys[] = {
	"PARAMETER", "OPTIMIZER_STATE", "INPUT", "TEMPORARY", "ACTIVATION", "GRADIENT",
	"AUTOGRAD_DETAIL", "UNKNOWN",
};

static void the_raw_memory_timeline_matches_its_oracle_by_category(void **state)
{
	const char *trace = "hta_memory_timeline.raw.gz";
	cJSON *sum = report(trace), *o = oracle(trace);
	cJSON *eg = tu_json_at(o, "event_granular", NULL);
	cJSON *d = tu_json_at(sum, "devices", "0", NULL);
	assert_int_equal(U64(d, "peak", "bytes"), U64(eg, "peak_total_bytes"));
	assert_int_equal(U64(d, "peak", "record_index"), U64(eg, "peak_record_index"));
	char oracle_path[512], summary_path[800];
	snprintf(oracle_path, sizeof oracle_path, "%s", sample("hta_memory_timeline.oracle.json"));
	snprintf(summary_path, sizeof summary_path, "%s/summary.json", tu_path("out-hta_memory_timeline.raw.gz"));
	uint64_t first_ts = exact_field(oracle_path, "first_ts");
	assert_int_equal(U64(d, "peak", "time_ns"), exact_field(oracle_path, "peak_ts") - first_ts);
	assert_int_equal(U64(d, "live_bytes_at_end"), U64(eg, "final_total"));
	assert_int_equal(U64(d, "memory_records"), U64(o, "records"));
	cJSON *signs = tu_json_at(o, "records_by_action_and_sign", NULL);
	uint64_t plus = 0, minus = 0;
	for (cJSON *c = signs->child; c; c = c->next)
		*(strchr(c->string, '+') ? &plus : &minus) += (uint64_t)c->valuedouble;
	assert_int_equal(U64(d, "allocations"), plus);
	assert_int_equal(U64(d, "frees"), minus);
	assert_false(cJSON_IsTrue(tu_json_at(sum, "source", "pairing_known", NULL)));
	assert_true(cJSON_IsTrue(tu_json_at(sum, "source", "categories_known", NULL)));
	assert_int_equal(exact_field(summary_path, "time_origin_unix_ns"), first_ts);

	/* By category: replay the records up to the peak, and to the end. */
	cg_timeline *tl;
	cg_error err;
	assert_int_equal(cg_ingest(&tl, sample(trace), NULL, &err), 0);
	int64_t live[CG_CAT_COUNT] = {0}, most[CG_CAT_COUNT] = {0};
	uint64_t at_peak = U64(eg, "peak_record_index");
	for (uint32_t i = 0; i < tl->nmem; i++) {
		const cg_mem *m = &tl->mem[i];
		live[m->category] += (int64_t)cg_mem_added(m) - (int64_t)cg_timeline_mem_removed(tl, i);
		if (live[m->category] > most[m->category])
			most[m->category] = live[m->category];
		if (i == at_peak)
			for (int c = 0; c < 8; c++)
				assert_int_equal(live[c], U64(eg, "by_category_at_peak", category_keys[c]));
	}
	for (int c = 0; c < 8; c++) {
		assert_int_equal(live[c], U64(eg, "final_by_category", category_keys[c]));
		assert_int_equal(most[c], U64(eg, "max_by_category", category_keys[c]));
	}
	assert_int_equal(live[CG_CAT_BASELINE], 0);
	assert_int_equal(tl->devices[0].baseline_bytes, 0);
	cg_timeline_free(tl);
	cJSON_Delete(sum);
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_trace_matches_its_oracle_device_by_device),
		cmocka_unit_test(total_reserved_checkpoints_reach_the_oracles_maximum),
		cmocka_unit_test(the_raw_memory_timeline_matches_its_oracle_by_category),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
