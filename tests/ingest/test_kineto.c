/* PyTorch profiler Chrome traces, one rule at a time, on small traces built
 * here with their answers worked out by hand. */
#include "ingestutil.h"

#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "ingest.h"
#include "kineto.h"
#include "xalloc.h"

/* A [memory] event as Kineto writes it. */
#define MEM(ts, tid, dt, did, addr, b, ta, tr) \
	"{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":" #tid \
	",\"ts\":" #ts ",\"args\":{\"Device Type\":" #dt ",\"Device Id\":" #did ",\"Addr\":" #addr \
	",\"Bytes\":" #b ",\"Total Allocated\":" #ta ",\"Total Reserved\":" #tr "}}"
/* The 2021 layout: no Addr, no totals, no cat. */
#define OLDMEM(ts, dt, did, b) \
	"{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":" #ts \
	",\"args\":{\"Device Type\":" #dt ",\"Device Id\":" #did ",\"Bytes\":" #b "}}"
#define X(cat, name, tid, ts, dur) \
	"{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":" tid ",\"ts\":" #ts ",\"dur\":" #dur "}"

static cg_timeline *ingest(const char *text)
{
	return tu_ingest_text(text);
}

static uint16_t dev(const cg_timeline *tl, const char *name)
{
	for (uint16_t d = 0; d < tl->ndevices; d++)
		if (strcmp(cg_timeline_str(tl, tl->devices[d].name), name) == 0)
			return d;
	fail_msg("no device %s", name);
	return 0;
}

/* The most bytes live at once on device d, and when live bytes first got
 * there: live bytes start at what was live before the first record and
 * follow the device's records in time order (cg_timeline_live_after); the
 * peak is their maximum. That is the definition, worked here from the
 * timeline's own records so the check does not lean on the analysis pass. */
static uint64_t peak(const cg_timeline *tl, uint16_t d, uint64_t *t_ns)
{
	const cg_device *dv = &tl->devices[d];
	uint64_t live = cg_device_initial_live(dv), best = live, when = tl->first_t_ns;
	for (uint32_t k = 0; k < dv->mem_count; k++) {
		uint32_t i = dv->mem_first + k;
		live = cg_timeline_live_after(tl, i, live);
		if (live > best) {
			best = live;
			when = tl->mem[i].t_ns;
		}
	}
	if (t_ns)
		*t_ns = when;
	return best;
}

/* Peak of live bytes allocated inside the profile: what the oracle calls
 * the replay peak (frees of blocks from before the trace left out). */
static uint64_t in_window_peak(const cg_timeline *tl, uint16_t d)
{
	const cg_device *dv = &tl->devices[d];
	uint64_t live = 0, best = 0;
	for (uint32_t k = 0; k < dv->mem_count; k++) {
		uint32_t i = dv->mem_first + k;
		if (tl->mem[i].flags & CG_MEM_PREEXISTING)
			continue;
		live += cg_mem_added(&tl->mem[i]);
		live -= cg_timeline_mem_removed(tl, i);
		if (live > best)
			best = live;
	}
	return best;
}

static bool has_diag(const cg_timeline *tl, const char *text)
{
	for (size_t i = 0; i < tl->source.ndiags; i++)
		if (strstr(tl->source.diags[i].msg, text))
			return true;
	return false;
}

static const cg_mem *mem_at_line(const cg_timeline *tl, uint32_t line)
{
	for (size_t i = 0; i < tl->nmem; i++)
		if (tl->mem[i].line == line)
			return &tl->mem[i];
	fail_msg("no memory record for event %u", line);
	return NULL;
}

/* kineto_oracle.py --selftest, event for event: a block from before the
 * trace freed inside it, thread 2's block written before thread 1's, an
 * out-of-memory event without a device, and after traceEvents a duplicate
 * key whose second value is NaN (not JSON, and not ours to read). */
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

static void the_oracle_selftest_gives_the_oracles_figures(void **state)
{
	cg_timeline *tl = ingest(selftest);
	uint16_t cuda = dev(tl, "cuda:0"), cpu = dev(tl, "cpu");
	const cg_device *d = &tl->devices[cuda];
	uint64_t t;
	/* max_total_allocated 1300, reached at ts 25 us. */
	assert_int_equal(peak(tl, cuda, &t), 1300);
	assert_int_equal(t, 25000);
	/* baseline_bytes_before_first_event 1000: 300 of it freed at 10.5 us. */
	assert_int_equal(d->baseline_bytes + d->preexisting_bytes, 1000);
	assert_int_equal(d->preexisting_bytes, 300);   /* frees_without_live_alloc_bytes */
	assert_int_equal(d->preexisting_count, 1);     /* frees_without_live_alloc */
	assert_int_equal(in_window_peak(tl, cuda), 600); /* replay peak_live_bytes */
	/* running_sum peak 300 = peak - baseline; min -300 = 700 - 1000. */
	assert_int_equal(peak(tl, cuda, NULL) - 1000, 300);
	assert_int_equal(peak(tl, cpu, NULL), 8);
	assert_int_equal(d->mem_count, 5);
	assert_int_equal(tl->source.lines, 8);
	assert_int_equal(tl->nooms, 1);
	assert_string_equal(cg_timeline_str(tl, tl->devices[tl->ooms[0].device].name), "unknown");
	assert_int_equal(tl->ooms[0].t_ns, 31000);
	assert_int_equal(tl->ooms[0].bytes, 1);
	/* Every Total Allocated agrees with the replay in ts order. */
	assert_false(has_diag(tl, "differs"));
	/* One span; thread 1's memory events lie in it, thread 2's do not. */
	assert_int_equal(tl->nspans, 1);
	assert_int_equal(mem_at_line(tl, 4)->span, 0);	      /* ts 10.5, tid 1 */
	assert_int_equal(mem_at_line(tl, 2)->span, CG_NONE); /* ts 25, tid 2 */
	assert_false(tl->source.categories_known);
	assert_true(tl->source.pairing_known);
	assert_true(tl->source.lines_are_events);
	cg_timeline_free(tl);
}

static void threads_written_out_of_order_are_replayed_in_time_order(void **state)
{
	/* The autograd thread's block comes first in the file. */
	const char *text = "{\"traceEvents\": ["
		MEM(40, 7, 1, 0, 2, -256, 1024, 2048) ","
		MEM(30, 7, 1, 0, 1, -512, 1280, 2048) ","
		MEM(10, 3, 1, 0, 1, 512, 1536, 2048) ","
		MEM(20, 3, 1, 0, 2, 256, 1792, 2048)
		"]}";
	cg_timeline *tl = ingest(text);
	uint16_t d = dev(tl, "cuda:0");
	/* Baseline: 1536 - 512 = 1024; live 1536, 1792, 1280, 1024. */
	assert_int_equal(tl->devices[d].baseline_bytes, 1024);
	assert_int_equal(peak(tl, d, NULL), 1792);
	const cg_device *dv = &tl->devices[d];
	uint32_t order[4] = {3, 4, 2, 1};
	for (uint32_t k = 0; k < 4; k++)
		assert_int_equal(tl->mem[dv->mem_first + k].line, order[k]);
	assert_int_equal(tl->anomalies[CG_ANOM_FREE_BEFORE_TRACE].count, 0);
	assert_false(has_diag(tl, "differs"));
	cg_timeline_free(tl);
}

static void string_tids_join_memory_to_the_operators_around_it(void **state)
{
	const char *text = "{\"traceEvents\": ["
		X("cpu_op", "aten::empty", "\"10\"", 100, 10) ","
		X("user_annotation", "ProfilerStep#3", "\"10\"", 50, 200) ","
		X("user_annotation", "## forward ##", "\"10\"", 90, 50) ","
		X("cpu_op", "autograd::engine::evaluate_function: MmBackward0", "\"20\"", 115, 10) ","
		X("kernel", "gemm", "\"stream 7\"", 100, 30) ","
		X("cuda_runtime", "cudaLaunchKernel", "\"10\"", 104, 2) ","
		MEM(105, 10, 1, 0, 1, 512, 1536, 2048) ","
		MEM(120, 20, 1, 0, 1, -512, 1024, 2048)
		"]}";
	cg_timeline *tl = ingest(text);
	/* The kernel and the runtime call are not spans. */
	assert_int_equal(tl->nspans, 4);
	const cg_mem *alloc = mem_at_line(tl, 7), *free_ = mem_at_line(tl, 8);
	char path[256];
	cg_timeline_span_path(tl, alloc->span, path, sizeof path);
	assert_string_equal(path, "ProfilerStep#3/## forward ##/aten::empty");
	assert_string_equal(cg_timeline_str(tl, cg_timeline_mem_op(tl, alloc)), "aten::empty");
	assert_int_equal(cg_timeline_mem_phase(tl, alloc), CG_PHASE_FORWARD);
	cg_timeline_span_path(tl, free_->span, path, sizeof path);
	assert_string_equal(path, "autograd::engine::evaluate_function: MmBackward0");
	assert_int_equal(cg_timeline_mem_phase(tl, free_), CG_PHASE_BACKWARD);
	assert_int_equal(tl->spans[alloc->span].kind, CG_SPAN_OP);
	assert_int_equal(tl->spans[alloc->span].end_ns - tl->spans[alloc->span].start_ns, 10000);
	cg_timeline_free(tl);
}

static void overlapping_siblings_are_clipped_and_counted(void **state)
{
	const char *text = "{\"traceEvents\": ["
		X("cpu_op", "parent", "1", 0, 10) ","
		X("cpu_op", "late", "1", 5, 7) ","
		MEM(11, 1, 0, -1, 9, 8, 8, 0)
		"]}";
	cg_timeline *tl = ingest(text);
	/* "late" [5, 12] is cut to [5, 10] inside "parent"; the memory event at 11 is in neither. */
	assert_int_equal(tl->nspans, 2);
	assert_int_equal(tl->spans[1].end_ns, 10000);
	assert_int_equal(tl->spans[1].parent, 0);
	assert_true(has_diag(tl, "1 complete events overlapped the end of the event they began in: 1 stuck out"));
	assert_int_equal(mem_at_line(tl, 3)->span, CG_NONE);
	cg_timeline_free(tl);
}

static void a_profiler_step_opened_inside_a_python_call_keeps_its_length(void **state)
{
	/* From a real trace: the step range begins 7 us before the Python call
	 * that opens it returns, and lasts 4.4 ms. */
	const char *text = "{\"traceEvents\": ["
		X("python_function", "<built-in method _record_function_enter_new>", "1", 871.932, 107.381) ","
		X("user_annotation", "ProfilerStep#6", "1", 972.313, 4426.114) ","
		X("cpu_op", "aten::empty", "1", 1000, 5) ","
		MEM(1002, 1, 0, -1, 9, 8, 8, 0)
		"]}";
	cg_timeline *tl = ingest(text);
	const cg_mem *m = mem_at_line(tl, 4);
	char path[256];
	cg_timeline_span_path(tl, m->span, path, sizeof path);
	assert_string_equal(path, "ProfilerStep#6/aten::empty");
	assert_int_equal(tl->spans[tl->spans[m->span].parent].end_ns - tl->spans[tl->spans[m->span].parent].start_ns,
			 4426114);
	assert_true(has_diag(tl, "0 stuck out less than they overlapped and were cut back to its end, 1 became its siblings"));
	cg_timeline_free(tl);
}

static void relative_timestamps_keep_nanoseconds_and_base_time_comes_after(void **state)
{
	/* Pretty-printed, as json.dump(indent=2) writes it, with the keys after traceEvents. */
	const char *text =
		"{\n  \"traceEvents\": [\n    {\n      \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\",\n"
		"      \"pid\": 1, \"tid\": 1, \"ts\": 1419247333400.919, \"dur\": 0.5\n    },\n"
		"    " MEM(1419247333401.5, 1, 1, 0, 1, 512, 1024, 2048) ",\n"
		"    " MEM(1419247333401.25, 1, 1, 0, 2, 512, 512, 2048) "\n  ],\n"
		"  \"traceName\": \"x.json\",\n  \"baseTimeNanoseconds\": 1751410836000000000\n}\n";
	cg_timeline *tl = ingest(text);
	/* 401.5 - 400.919 us = 581 ns; 401.25 -> 331 ns, sorted first. */
	const cg_device *dv = &tl->devices[0];
	assert_int_equal(tl->mem[dv->mem_first].t_ns, 331);
	assert_int_equal(tl->mem[dv->mem_first + 1].t_ns, 581);
	assert_int_equal(tl->spans[0].end_ns, 500);
	assert_true(tl->source.time_origin_known);
	assert_int_equal(tl->source.time_origin_unix_ns, INT64_C(1752830083333400919));
	assert_string_equal(tl->source.time_origin, "1419247333400.919 us");
	assert_false(has_diag(tl, "differs"));
	/* The top-level keys are the run's metadata. */
	bool seen_name = false, seen_base = false;
	for (size_t i = 0; i < tl->nmeta; i++) {
		const char *k = cg_timeline_str(tl, tl->meta[i].key), *v = cg_timeline_str(tl, tl->meta[i].value);
		seen_name |= strcmp(k, "traceName") == 0 && strcmp(v, "x.json") == 0 && tl->meta[i].is_string;
		seen_base |= strcmp(k, "baseTimeNanoseconds") == 0 && strcmp(v, "1751410836000000000") == 0;
	}
	assert_true(seen_name && seen_base);
	cg_timeline_free(tl);
}

static void integer_epoch_microseconds_are_absolute_time(void **state)
{
	const char *text = "{\"schemaVersion\": 1, \"traceEvents\": ["
		OLDMEM(1623142623460121, 1, 0, 512) "," OLDMEM(1623142623460122, 1, 0, -512) "]}";
	cg_timeline *tl = ingest(text);
	assert_true(tl->source.time_origin_known);
	assert_int_equal(tl->source.time_origin_unix_ns, INT64_C(1623142623460121000));
	assert_int_equal(tl->mem[1].t_ns, 1000);
	cg_timeline_free(tl);
}

static void timestamps_at_the_ends_of_the_range_are_exact_or_refused(void **state)
{
	/* -9e18 ns and +9e18 ns: 1.8e19 ns apart, beyond int64 but within uint64. */
	const char *text = "[" OLDMEM(-9000000000000000, 1, 0, 64) "," OLDMEM(9000000000000000, 1, 0, -64) ","
		OLDMEM(100000000000000000, 1, 0, 8) "]";
	cg_timeline *tl = ingest(text);
	assert_int_equal(tl->nmem, 2);
	assert_int_equal(tl->mem[1].t_ns, 18000000000000000000ull);
	/* 1e17 us is 1e20 ns: no such time. */
	assert_int_equal(tl->source.bad_lines, 1);
	assert_non_null(strstr(tl->source.diags[0].msg, "without a valid \"ts\""));
	cg_timeline_free(tl);
}

static void a_second_gpu_keeps_its_own_timeline(void **state)
{
	/* ROCm reports type 6; a second GPU keeps its own timeline. */
	const char *text = "{\"traceEvents\": ["
		MEM(1, 1, 6, 3, 16, 1024, 5120, 8192) "," MEM(2, 1, 6, 0, 16, 512, 512, 4096) ","
		MEM(3, 1, 6, 3, 16, -1024, 4096, 8192) "]}";
	cg_timeline *tl = ingest(text);
	uint16_t h3 = dev(tl, "hip:3"), h0 = dev(tl, "hip:0");
	assert_int_equal(tl->devices[h3].baseline_bytes, 4096);
	assert_int_equal(peak(tl, h3, NULL), 5120);
	assert_int_equal(peak(tl, h0, NULL), 512);
	/* The same Addr on two devices is two blocks. */
	assert_int_equal(tl->anomalies[CG_ANOM_ALLOC_OF_LIVE_ID].count, 0);
	cg_timeline_free(tl);
}

static void a_reused_address_pairs_with_its_latest_allocation(void **state)
{
	const char *text = "["
		MEM(1, 1, 1, 0, 7, 100, 100, 512) "," MEM(2, 1, 1, 0, 7, -100, 0, 512) ","
		MEM(3, 1, 1, 0, 7, 300, 300, 512) "," MEM(4, 1, 1, 0, 7, -300, 0, 512) "]";
	cg_timeline *tl = ingest(text); /* a bare array, too */
	assert_string_equal(tl->source.format, "Chrome trace, JSON array (PyTorch profiler)");
	assert_int_equal(tl->mem[0].pair, 1);
	assert_int_equal(tl->mem[2].pair, 3);
	assert_int_equal(tl->mem[3].bytes, 300);
	assert_int_equal(peak(tl, 0, NULL), 300);
	for (int a = 0; a < CG_ANOM_COUNT; a++)
		assert_int_equal(tl->anomalies[a].count, 0);
	assert_int_equal(tl->devices[0].baseline_bytes, 0);
	cg_timeline_free(tl);
}

static void total_reserved_becomes_allocator_checkpoints(void **state)
{
	const char *text = "[" MEM(1, 1, 1, 0, 7, 512, 512, 2097152) "," MEM(2, 1, 1, 0, 7, -512, 0, 4194304) "]";
	cg_timeline *tl = ingest(text);
	assert_int_equal(tl->ndevmem, 2);
	assert_int_equal(tl->devmem[1].reserved_bytes, 4194304);
	assert_int_equal(tl->devmem[1].t_ns, 1000);
	assert_true(tl->devmem[1].has_reserved);
	assert_false(tl->devmem[1].has_used);
	assert_int_equal(tl->devices[0].devmem_count, 2);
	cg_timeline_free(tl);
}

static void an_out_of_memory_event_is_kept_with_its_totals(void **state)
{
	const char *text = "[" MEM(1, 1, 1, 0, 7, 512, 512, 2048) ","
		"{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[OutOfMemory]\",\"pid\":1,\"tid\":1,\"ts\":3,"
		"\"args\":{\"Device Type\":1,\"Device Id\":0,\"Bytes\":2147483648,"
		"\"Total Allocated\":512,\"Total Reserved\":2048}}]";
	cg_timeline *tl = ingest(text);
	assert_int_equal(tl->nooms, 1);
	const cg_oom *o = &tl->ooms[0];
	assert_string_equal(cg_timeline_str(tl, tl->devices[o->device].name), "cuda:0");
	assert_int_equal(o->bytes, 2147483648ull);
	assert_true(o->has_totals);
	assert_int_equal(o->total_allocated, 512);
	assert_int_equal(o->total_reserved, 2048);
	assert_int_equal(o->t_ns, 2000);
	assert_int_equal(o->line, 2);
	cg_timeline_free(tl);
}

static void without_addr_live_bytes_are_a_running_sum_kept_above_zero(void **state)
{
	/* Running sum -100, -50, 20, -30: 100 B were allocated before the trace. */
	const char *text = "{\"traceEvents\": ["
		OLDMEM(1, 1, 0, -100) "," OLDMEM(2, 1, 0, 50) "," OLDMEM(3, 1, 0, 70) "," OLDMEM(4, 1, 0, -50) "]}";
	cg_timeline *tl = ingest(text);
	assert_false(tl->source.pairing_known);
	const cg_device *d = &tl->devices[0];
	/* counted as allocated before the trace: no allocator totals say more */
	assert_int_equal(d->baseline_bytes, 0);
	assert_int_equal(d->preexisting_bytes, 100);
	assert_int_equal(d->preexisting_count, 1);
	assert_int_equal(peak(tl, 0, NULL), 120); /* 100 + running-sum peak 20 */
	assert_int_equal(d->live_at_end, 70);
	assert_int_equal(d->live_count_at_end, 1);
	for (size_t i = 0; i < tl->nmem; i++)
		assert_int_equal(tl->mem[i].pair, CG_NONE);
	assert_true(has_diag(tl, "have no \"Addr\""));
	assert_true(has_diag(tl, "frees outrun allocations by up to 100 B"));
	cg_timeline_free(tl);
}

static void a_trace_cut_inside_trace_events_is_analysed_up_to_the_cut(void **state)
{
	char text[2048];
	snprintf(text, sizeof text, "{\"traceEvents\": [%s,%s,%s", MEM(1, 1, 1, 0, 7, 512, 512, 2048),
		 MEM(2, 1, 1, 0, 8, 1024, 1536, 2048), MEM(3, 1, 1, 0, 7, -512, 1024, 2048));
	text[strlen(text) - 20] = '\0'; /* inside the third event */
	cg_timeline *tl = ingest(text);
	assert_true(tl->source.truncated);
	assert_int_equal(tl->source.truncated_line, 3);
	assert_non_null(strstr(tl->source.truncation_note, "after event 2"));
	assert_int_equal(tl->nmem, 2);
	assert_int_equal(peak(tl, 0, NULL), 1536);
	cg_timeline_free(tl);
}

static void a_gzip_file_cut_short_is_truncated_too(void **state)
{
	/* Enough events that half the compressed file holds some of them. */
	size_t cap = 1 << 20, n = 0;
	char *text = malloc(cap);
	n += (size_t)snprintf(text, cap, "{\"traceEvents\": [");
	for (int i = 1; i <= 3000; i++) {
		n += (size_t)snprintf(text + n, cap - n, "%s{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":%d,"
				      "\"args\":{\"Device Type\":0,\"Device Id\":-1,\"Addr\":%d,\"Bytes\":%d}}",
				      i > 1 ? "," : "", i, i, i % 2 ? 64 : -64);
	}
	snprintf(text + n, cap - n, "]}");
	const char *full = tu_write_gz("full.json.gz", text, (size_t)-1);
	size_t len;
	char *gz = tu_read(full, &len);
	const char *half = tu_write("half.json.gz", gz, len / 2);
	cg_timeline *tl;
	cg_error err;
	assert_int_equal(cg_ingest(&tl, half, NULL, &err), 0);
	assert_true(tl->source.truncated);
	assert_non_null(strstr(tl->source.truncation_note, "gzip"));
	assert_true(tl->nmem > 0 && tl->nmem < 3000);
	assert_int_equal(tl->source.truncated_line, tl->nmem + 1);
	cg_timeline_free(tl);
	free(gz);
	free(text);
}

static void a_bad_event_is_skipped_with_its_number(void **state)
{
	const char *text = "[" MEM(1, 1, 1, 0, 7, 512, 512, 2048) ","
		"{\"ph\":\"i\",\"name\":\"[memory]\",\"ts\":2,\"args\":{\"Device Type\":1}},"
		"{\"ph\": tru},"
		MEM(3, 1, 1, 0, 7, -512, 0, 2048) "]";
	cg_timeline *tl = ingest(text);
	assert_int_equal(tl->source.bad_lines, 2);
	assert_int_equal(tl->source.diags[0].line, 2);
	assert_non_null(strstr(tl->source.diags[0].msg, "without \"Bytes\""));
	assert_int_equal(tl->source.diags[1].line, 3);
	assert_non_null(strstr(tl->source.diags[1].msg, "not valid JSON"));
	assert_int_equal(tl->nmem, 2);
	cg_timeline_free(tl);

	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	o.strict = true;
	cg_error err;
	assert_int_equal(tu_ingest_text_rc(text, &o, &tl, &err), CG_EINPUT);
	assert_non_null(strstr(err.msg, ": event 2: [memory] event without \"Bytes\""));
}

static void a_malformed_document_names_file_and_byte_offset(void **state)
{
	cg_timeline *tl;
	cg_error err;
	const char *text = "{\"traceEvents\": [" MEM(1, 1, 1, 0, 7, 512, 512, 2048) " x]}";
	assert_int_equal(tu_ingest_text_rc(text, NULL, &tl, &err), CG_EINPUT);
	assert_null(tl);
	char expect[128];
	snprintf(expect, sizeof expect, ".jsonl: byte offset %zu (after event 1): expected ',' or ']'",
		 strlen(text) - 3);
	assert_non_null(strstr(err.msg, expect));
}

static void a_trace_without_memory_events_says_how_to_record_them(void **state)
{
	cg_timeline *tl;
	cg_error err;
	assert_int_equal(tu_ingest_text_rc("{\"traceEvents\": [" X("cpu_op", "a", "1", 0, 1) "]}", NULL, &tl, &err),
			 CG_EINPUT);
	assert_non_null(strstr(err.msg, "profile_memory=True"));
	assert_int_equal(tu_ingest_text_rc("{\n\"schemaVersion\": 1\n}", NULL, &tl, &err), CG_EINPUT);
	assert_non_null(strstr(err.msg, "without \"traceEvents\""));
}

static void totals_that_disagree_with_the_replay_are_reported(void **state)
{
	/* The second event should say 1536; it says 2000. */
	const char *text = "[" MEM(1, 1, 1, 0, 7, 512, 512, 2048) "," MEM(2, 1, 1, 0, 8, 1024, 2000, 2048) "]";
	cg_timeline *tl = ingest(text);
	assert_true(has_diag(tl, "differs from cgmem's replay at 1 of 2 events (first here: the trace says "
				 "2000 B, the replay 1536 B)"));
	cg_timeline_free(tl);
}

/* A counting allocator: each block carries its size in front. */
static size_t live_bytes, most_bytes;

/* Reads text written as name with options o; asserts it fails with the
 * message "PATH: " want. */
static void assert_fails_with(const char *name, const char *text, const cg_ingest_options *o, int code,
			      const char *want)
{
	const char *path = tu_write(name, text, (size_t)-1);
	cg_timeline *tl = NULL;
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_ingest(&tl, path, o, &err), code);
	assert_null(tl);
	char expected[1024];
	snprintf(expected, sizeof expected, "%s: %s", path, want);
	assert_string_equal(err.msg, expected);
}

/* Limits name themselves, with their values, and the event (its position
 * in traceEvents, from 1) where they were hit. */
static void a_limit_names_itself_and_the_event(void **state)
{
	/* A name of 1 MiB + 1 byte, over --max-string-memory 1MiB by itself. */
	size_t big = ((size_t)1 << 20) + 1;
	char *text = cg_malloc(big + 1024);
	int n = snprintf(text, 1024, "[" MEM(1, 1, 1, 0, 7, 512, 512, 2048) ",{\"ph\":\"X\",\"name\":\"");
	memset(text + n, 'a', big);
	snprintf(text + n + big, 1024, "\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":5}]");
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	o.max_string_bytes = (size_t)1 << 20;
	assert_fails_with("strings.json", text, &o, CG_ELIMIT,
			  "event 2: the trace's strings exceed the limit of 1 MiB (raise it with --max-string-memory)");
	cg_free(text);

	/* Devices are numbered in 16 bits: cuda:0 to cuda:65534 fit, the
	 * 65,536th device does not. */
	size_t cap = (size_t)65536 * 200 + 64, len = 0;
	text = cg_malloc(cap);
	len += (size_t)snprintf(text, cap, "[");
	for (unsigned d = 0; d < 65536; d++)
		len += (size_t)snprintf(text + len, cap - len,
					"%s{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":%u,"
					"\"args\":{\"Device Type\":1,\"Device Id\":%u,\"Addr\":16,\"Bytes\":8}}",
					d ? "," : "", d, d);
	snprintf(text + len, cap - len, "]");
	assert_fails_with("devices.json", text, NULL, CG_ELIMIT, "event 65536: more than 65535 devices");
	cg_free(text);

	/* Three blocks of 2^63 - 1 bytes: live bytes pass 2^64 - 1 at the third. */
	assert_fails_with("overflow.json",
			  "[" MEM(1, 1, 1, 0, 16, 9223372036854775807, 0, 0) "," MEM(2, 1, 1, 0, 32, 9223372036854775807, 0, 0)
			  "," MEM(3, 1, 1, 0, 48, 9223372036854775807, 0, 0) "]",
			  NULL, CG_EINPUT, "event 3: live bytes on cuda:0 exceed 2^64 - 1 bytes");
}

static void *count_malloc(size_t n)
{
	size_t *p = malloc(n + 16);
	if (!p)
		return NULL;
	*p = n;
	live_bytes += n;
	if (live_bytes > most_bytes)
		most_bytes = live_bytes;
	return (char *)p + 16;
}

static void count_free(void *q)
{
	if (!q)
		return;
	size_t *p = (size_t *)((char *)q - 16);
	live_bytes -= *p;
	free(p);
}

static void *count_realloc(void *q, size_t n)
{
	if (!q)
		return count_malloc(n);
	size_t *p = (size_t *)((char *)q - 16);
	size_t old = *p;
	p = realloc(p, n + 16);
	if (!p)
		return NULL;
	*p = n;
	live_bytes = live_bytes - old + n;
	if (live_bytes > most_bytes)
		most_bytes = live_bytes;
	return (char *)p + 16;
}

static void parsing_memory_is_bounded_by_the_largest_event_not_the_file(void **state)
{
	/* 40 MB of GPU kernels (which become nothing), one 2 MB event, two memory events. */
	const char *path = tu_path("big.json");
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{\"traceEvents\": [\n%s,\n", MEM(1, 1, 1, 0, 7, 512, 512, 2048));
	size_t written = 0;
	for (int i = 0; written < (size_t)40 << 20; i++)
		written += (size_t)fprintf(f, "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void gemm<%d>(float*)\", "
					       "\"pid\": 0, \"tid\": 7, \"ts\": %d.125, \"dur\": 3},\n", i, 2 + i);
	fprintf(f, "  {\"ph\": \"i\", \"name\": \"big\", \"ts\": 3, \"args\": {\"stack\": \"");
	for (int i = 0; i < 2 << 20; i++)
		fputc('a' + i % 26, f);
	fprintf(f, "\"}},\n%s\n]}\n", MEM(5, 1, 1, 0, 7, -512, 0, 2048));
	assert_int_equal(fclose(f), 0);

	cg_allocator counting = {count_malloc, count_realloc, count_free};
	cJSON_Hooks hooks = {count_malloc, count_free};
	live_bytes = most_bytes = 0;
	cg_set_allocator(&counting);
	cJSON_InitHooks(&hooks);
	cg_timeline *tl;
	cg_error err;
	int rc = cg_ingest(&tl, path, NULL, &err);
	size_t most = most_bytes;
	if (rc == 0)
		cg_timeline_free(tl);
	size_t left = live_bytes;
	cJSON_InitHooks(NULL);
	cg_set_allocator(NULL);
	assert_int_equal(rc, 0);
	assert_int_equal(left, 0);
	/* The 2 MB event had to be held; the 42 MB document never was. */
	assert_true(most > (size_t)2 << 20);
	assert_true(most < (size_t)12 << 20);
}

/* PyTorch ~1.9 writes "cat": "Operator" for aten ops and record_function
 * ranges alike: a memory event's op is the innermost aten-level operator,
 * none when only ranges are around it. */
/* Spans are added resolved (cg_timeline_add_span_resolved): their ids,
 * "#" and the event number, are text only when printed; the string table
 * holds the names, addresses and devices, none of the ids (a 1.3 M-event
 * trace spent 0.9 M strings on them). */
static void span_ids_are_not_interned(void **state)
{
	const char *text = "{\"traceEvents\": ["
		X("user_annotation", "ProfilerStep#1", "1", 0, 100) "," X("cpu_op", "aten::add", "1", 10, 20) ","
		MEM(15, 1, 1, 0, 7, 64, 64, 512) "," X("python_function", "f.py(1): f", "2", 5, 1) "]}";
	cg_timeline *tl = ingest(text);
	assert_true(tl->spans_indexed);
	assert_int_equal(tl->nspans, 3);
	const char *want[3] = {"#1", "#2", "#4"};
	for (uint32_t i = 0; i < 3; i++) {
		char buf[CG_SPAN_ID_BUF];
		size_t n;
		const char *id = cg_timeline_span_id(tl, i, buf, &n);
		assert_int_equal(n, strlen(want[i]));
		assert_memory_equal(id, want[i], n);
		cg_str s;
		assert_false(cg_strtab_find(tl->strings, want[i], 2, &s));
		assert_true(tl->spans[i].flags & CG_SPAN_ENDED);
	}
	/* sorted by thread, then start: the step, its operator, the frame */
	assert_int_equal(tl->spans[1].parent, 0);
	assert_int_equal(tl->spans[1].depth, 1);
	assert_int_equal(tl->spans[2].parent, CG_NONE);
	assert_int_equal(tl->spans[1].end_ns - tl->spans[1].start_ns, 20000);
	assert_int_equal(mem_at_line(tl, 3)->span, 1);
	assert_int_equal(tl->last_t_ns, 100000);
	/* "", "unknown" (the dtype), the 3 names (one also the op), the
	 * address, the device: nothing else */
	assert_int_equal(cg_strtab_count(tl->strings), 7);
	for (int a = 0; a < CG_ANOM_COUNT; a++)
		assert_int_equal(tl->anomalies[a].count, 0);
	cg_timeline_free(tl);
	(void)state;
}

static void ranges_are_never_ops(void **state)
{
	cg_timeline *tl = ingest("{\"traceEvents\": ["
		X("Operator", "ProfilerStep#1", "1", 0, 100) ","
		X("Operator", "aten::add", "1", 10, 5) ","
		X("Operator", "Optimizer.step#SGD.step", "1", 50, 20) ","
		X("Operator", "AddmmBackward", "1", 30, 10) ","
		X("Operator", "aten::mm", "1", 32, 4) ","
		X("Operator", "## forward ##", "1", 80, 10) ","
		OLDMEM(12, 1, 0, 100) "," /* in aten::add */
		OLDMEM(20, 1, 0, -100) "," /* directly in ProfilerStep#1 */
		OLDMEM(33, 1, 0, 8) "," /* in aten::mm inside AddmmBackward */
		OLDMEM(38, 1, 0, -8) "," /* in AddmmBackward alone */
		OLDMEM(60, 1, 0, 4) "," /* in Optimizer.step#SGD.step */
		OLDMEM(85, 1, 0, -4) /* in ## forward ## */
		"]}");
	static const char *const want[] = {"aten::add", "", "aten::mm", "", "", ""};
	/* The autograd node is backward (2021 traces have no evaluate_function),
	 * so aten::add, ending before it, is forward. */
	static const cg_phase phase[] = {CG_PHASE_FORWARD, CG_PHASE_NONE, CG_PHASE_BACKWARD, CG_PHASE_BACKWARD,
					 CG_PHASE_OPTIMIZER, CG_PHASE_FORWARD};
	assert_int_equal(tl->nmem, 6);
	for (size_t i = 0; i < tl->nmem; i++) {
		assert_string_equal(cg_timeline_str(tl, cg_timeline_mem_op(tl, &tl->mem[i])), want[i]);
		assert_int_equal(cg_timeline_mem_phase(tl, &tl->mem[i]), phase[i]);
	}
	cg_timeline_free(tl);
	(void)state;
}

/* The real 2021 trace: no memory event's op is a ProfilerStep# or
 * Optimizer.step# range (a third of them were before). */
static void resnet50_ops_are_operators(void **state)
{
	cg_timeline *tl;
	cg_error err = {0};
	assert_int_equal(cg_ingest(&tl, tu_sample("external/kineto_resnet50_num_workers_0.worker0.1623143089861.pt.trace.json.gz"),
				   NULL, &err), 0);
	size_t with_op = 0;
	for (size_t i = 0; i < tl->nmem; i++) {
		const char *op = cg_timeline_str(tl, cg_timeline_mem_op(tl, &tl->mem[i]));
		if (strncmp(op, "ProfilerStep#", 13) == 0 || strncmp(op, "Optimizer.", 10) == 0)
			fail_msg("memory event %zu (event %u): op %s", i, tl->mem[i].line, op);
		with_op += op[0] != 0;
	}
	/* about 43 % lie inside an aten op (every fifth event, read
	 * independently); the rest only under ranges or outside every span */
	assert_true(with_op > tl->nmem / 3);
	cg_timeline_free(tl);
	(void)state;
}

/* Forward is what a step does before its first backward work: the aten
 * ops before autograd's evaluate_function (on its own thread, 2) starts,
 * below a Python frame that straddles the whole iteration. */
static void forward_is_the_step_before_its_first_backward(void **state)
{
	cg_timeline *tl = ingest("{\"traceEvents\": ["
		X("user_annotation", "ProfilerStep#1", "1", 0, 100) ","
		X("python_function", "train.py(9): step", "1", 1, 98) ","
		X("cpu_op", "aten::linear", "1", 5, 15) ","
		X("cpu_op", "aten::zeros", "1", 25, 3) ","
		X("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", "2", 40, 20) ","
		X("cpu_op", "aten::add", "1", 62, 6) ","
		X("user_annotation", "Optimizer.step#SGD.step", "1", 70, 20) ","
		MEM(10, 1, 1, 0, 1, 100, 100, 512) ","
		MEM(26, 1, 1, 0, 3, 8, 108, 512) ","
		MEM(50, 2, 1, 0, 2, 100, 208, 512) ","
		MEM(64, 1, 1, 0, 3, -8, 200, 512) ","
		MEM(75, 1, 1, 0, 4, 4, 204, 512)
		"]}");
	static const cg_phase want[] = {CG_PHASE_FORWARD, CG_PHASE_FORWARD, CG_PHASE_BACKWARD, CG_PHASE_NONE,
					CG_PHASE_OPTIMIZER};
	assert_int_equal(tl->nmem, 5);
	for (size_t i = 0; i < tl->nmem; i++)
		assert_int_equal(cg_timeline_mem_phase(tl, &tl->mem[i]), want[i]);
	cg_timeline_free(tl);

	/* Without backward work nothing is forward (an inference step). */
	tl = ingest("{\"traceEvents\": ["
		X("user_annotation", "ProfilerStep#1", "1", 0, 100) ","
		X("cpu_op", "aten::linear", "1", 5, 15) ","
		MEM(10, 1, 1, 0, 1, 100, 100, 512) "]}");
	assert_int_equal(cg_timeline_mem_phase(tl, &tl->mem[0]), CG_PHASE_NONE);
	cg_timeline_free(tl);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(forward_is_the_step_before_its_first_backward),
		cmocka_unit_test(span_ids_are_not_interned),
		cmocka_unit_test(ranges_are_never_ops),
		cmocka_unit_test(resnet50_ops_are_operators),
		cmocka_unit_test(the_oracle_selftest_gives_the_oracles_figures),
		cmocka_unit_test(threads_written_out_of_order_are_replayed_in_time_order),
		cmocka_unit_test(string_tids_join_memory_to_the_operators_around_it),
		cmocka_unit_test(overlapping_siblings_are_clipped_and_counted),
		cmocka_unit_test(a_profiler_step_opened_inside_a_python_call_keeps_its_length),
		cmocka_unit_test(relative_timestamps_keep_nanoseconds_and_base_time_comes_after),
		cmocka_unit_test(integer_epoch_microseconds_are_absolute_time),
		cmocka_unit_test(timestamps_at_the_ends_of_the_range_are_exact_or_refused),
		cmocka_unit_test(a_second_gpu_keeps_its_own_timeline),
		cmocka_unit_test(a_reused_address_pairs_with_its_latest_allocation),
		cmocka_unit_test(total_reserved_becomes_allocator_checkpoints),
		cmocka_unit_test(an_out_of_memory_event_is_kept_with_its_totals),
		cmocka_unit_test(without_addr_live_bytes_are_a_running_sum_kept_above_zero),
		cmocka_unit_test(a_trace_cut_inside_trace_events_is_analysed_up_to_the_cut),
		cmocka_unit_test(a_gzip_file_cut_short_is_truncated_too),
		cmocka_unit_test(a_bad_event_is_skipped_with_its_number),
		cmocka_unit_test(a_malformed_document_names_file_and_byte_offset),
		cmocka_unit_test(a_trace_without_memory_events_says_how_to_record_them),
		cmocka_unit_test(totals_that_disagree_with_the_replay_are_reported),
		cmocka_unit_test(parsing_memory_is_bounded_by_the_largest_event_not_the_file),
		cmocka_unit_test(a_limit_names_itself_and_the_event),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
