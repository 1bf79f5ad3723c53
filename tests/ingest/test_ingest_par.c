/* Parallel ingest gives the timeline single-threaded ingest gives, in every
 * respect: records and their order, line numbers, strings and their ids,
 * devices, dtypes, diagnostics and their order, anomalies, truncation, and
 * the first error in strict mode or at a limit. Small blocks make many
 * shards out of small files. */
#include "ingestutil.h"

#include <string.h>
#include <unistd.h>

#include "jsonl_ingest.h"
#include "tl_same.h"

/* Reads path straight through cg_jsonl_ingest, from a reader in blocks of
 * block_bytes: through cg_ingest blocks are never smaller than the 512 KiB
 * the first one takes after format detection's peek (reader.c keeps that
 * buffer), so small blocks need a reader that has not been peeked at. */
static int direct(cg_timeline **out, const char *path, const cg_ingest_options *o, size_t block_bytes, cg_error *err)
{
	cg_reader_options ro = {o->max_line_bytes, block_bytes ? block_bytes : (size_t)4 << 20};
	cg_reader *r;
	int rc = cg_reader_open(&r, path, &ro, err);
	if (rc == 0) {
		rc = cg_jsonl_ingest(out, r, path, o, err);
		cg_reader_close(r);
	}
	return rc;
}

/* Ingests path with one thread and with several over small blocks; checks
 * all give the same timeline, or the same error. Returns the result code. */
static int both_ways(const char *path, cg_ingest_options o, size_t block_bytes)
{
	cg_timeline *serial = NULL, *par = NULL, *small = NULL;
	cg_error e1 = CG_ERROR_INIT, e2 = CG_ERROR_INIT, e3 = CG_ERROR_INIT;
	o.threads = 1;
	o.block_bytes = block_bytes;
	int rc1 = cg_ingest(&serial, path, &o, &e1);
	o.threads = 3;
	int rc2 = cg_ingest(&par, path, &o, &e2);
	int rc3 = direct(&small, path, &o, block_bytes, &e3);
	assert_int_equal(rc1, rc2);
	assert_int_equal(rc1, rc3);
	if (rc1 < 0) {
		assert_string_equal(e1.msg, e2.msg);
		assert_string_equal(e1.msg, e3.msg);
		assert_null(serial);
		assert_null(par);
		assert_null(small);
		return rc1;
	}
	same_timeline(serial, par);
	same_timeline(serial, small);
	cg_timeline_free(serial);
	cg_timeline_free(par);
	cg_timeline_free(small);
	return 0;
}

static void every_sample_reads_the_same_on_several_threads(void **state)
{
	static const char *const samples[] = {"mlp_adam.jsonl", "mlp_adam.jsonl.gz", "cnn_sgd.jsonl",
					      "leak_loss_history.jsonl", "mlp_adam_cut.jsonl"};
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
		assert_int_equal(both_ways(tu_sample(samples[i]), o, 4096), 0);
		assert_int_equal(both_ways(tu_sample(samples[i]), o, 0), 0);
	}
}

/* A trace with everything that makes parallel reading hard: bad lines of
 * every sort, warnings, escapes for cJSON, blank and CRLF lines, anomalies
 * for finalize, a second meta record far from the first, more diagnostics
 * than are kept, an overlong line, a cut last line. */
static char *messy_trace(size_t *len, bool cut)
{
	size_t cap = 1 << 21, n = 0;
	char *t = malloc(cap);
	n += (size_t)snprintf(t + n, cap - n, "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"run\":\"x\"}\n"
				  "{\"kind\":\"span_start\",\"id\":\"root\",\"name\":\"r\",\"start_ns\":0,\"span_kind\":\"function\"}\n");
	for (int i = 0; i < 3000; i++) {
		const char *dev = i % 3 == 0 ? "cuda:1" : "cuda:0";
		switch (i % 17) {
		case 0: n += (size_t)snprintf(t + n, cap - n, "{\"kind\":\"memory\",\"timestamp_ns\":\n"); break;
		case 1: n += (size_t)snprintf(t + n, cap - n, "\r\n   \n"); break;
		case 2: n += (size_t)snprintf(t + n, cap - n, "{\"kind\":\"future_kind_%d\"}\n", i % 5); break;
		case 3: n += (size_t)snprintf(t + n, cap - n, "{\"kind\":\"memory\",\"timestamp_ns\":%d,\"tensor_id\":\"t\\u00e9%d\","
					      "\"span_id\":\"root\",\"device\":\"%s\",\"bytes\":%d,\"action\":\"free\",\"dtype\":\"f32\"}\r\n",
					      5 * i, i, dev, i); break; /* a free before any alloc */
		case 4: n += (size_t)snprintf(t + n, cap - n, "{\"kind\":\"memory\",\"timestamp_ns\":%d,\"tensor_id\":\"b%d\","
					      "\"span_id\":\"nowhere\",\"device\":\"%s\",\"bytes\":7,\"action\":\"alloc\",\"dtype\":\"float16\","
					      "\"category\":\"weird_cat\"}\n", 5 * i, i % 40, dev); break;
		case 5: n += (size_t)snprintf(t + n, cap - n, "{\"kind\":\"op\",\"span_id\":\"root\",\"op_name\":\"aten::mm\","
					      "\"inputs\":[\"x%d\",\"y\"],\"shape\":[%d,3],\"dtype\":\"bf16\",\"device\":\"%s\","
					      "\"duration_ns\":5}\n", i, i, dev); break;
		case 6: n += (size_t)snprintf(t + n, cap - n, "{\"kind\":\"span_start\",\"id\":\"s%d\",\"parent_id\":\"%s\","
					      "\"name\":\"n%d\",\"start_ns\":%d,\"span_kind\":\"module\",\"step\":\"%s\"}\n",
					      i, i > 100 ? "s91" : "root", i % 7, 5 * i, i % 2 ? "forward" : "sideways"); break;
		case 7: n += (size_t)snprintf(t + n, cap - n, "{\"kind\":\"span_end\",\"id\":\"s%d\",\"duration_ns\":3}\n", i - 1); break;
		case 8: n += (size_t)snprintf(t + n, cap - n, "{\"kind\":\"device_memory\",\"timestamp_ns\":%d,\"device\":\"%s\","
					      "\"used_bytes\":100,\"free_bytes\":%d}\n", 5 * i, dev, i); break;
		case 9: n += (size_t)snprintf(t + n, cap - n, "{\"kind\":\"gradient\",\"event_id\":\"g%d\",\"root\":\"M\","
					      "\"key\":\"k\",\"state\":\"present\",\"norm\":%d.25}\n", i, i); break;
		case 10: n += (size_t)snprintf(t + n, cap - n, "{\"kind\":\"edge\",\"from_span\":\"s%d\",\"to_span\":\"root\","
					       "\"duration_ns\":1}\n", i - 4); break;
		case 11: n += (size_t)snprintf(t + n, cap - n, "{\"kind\":\"tensor\",\"span_id\":\"root\",\"tensor_id\":\"p%d\","
					       "\"shape\":[2,2],\"dtype\":\"f32\",\"device\":\"%s\",\"category\":\"parameter\"}\n", i, dev); break;
		case 12: if (i == 12 * 17 + 12)
				 n += (size_t)snprintf(t + n, cap - n, "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/7\",\"other\":1}\n");
			 else
				 n += (size_t)snprintf(t + n, cap - n, "[\"not an object\"]\n");
			 break;
		case 13: n += (size_t)snprintf(t + n, cap - n, "{\"kind\":\"op\",\"op_name\":\"%0400d\"}\n", i); break; /* overlong */
		default: n += (size_t)snprintf(t + n, cap - n, "{\"kind\":\"memory\",\"timestamp_ns\":%d,\"tensor_id\":\"b%d\","
					       "\"span_id\":\"s%d\",\"device\":\"%s\",\"bytes\":%d,\"action\":\"%s\",\"dtype\":\"f32\","
					       "\"shape\":[%d]}\n", 5 * i, i % 40, i - i % 17 + 6, dev, 8 + i % 3,
					       i % 2 ? "free" : "alloc", i % 9); break;
		}
	}
	if (cut)
		n += (size_t)snprintf(t + n, cap - n, "{\"kind\":\"memory\",\"timestamp_ns\":99999,\"tens");
	*len = n;
	return t;
}

static void a_messy_trace_reads_the_same_on_several_threads(void **state)
{
	size_t n;
	char *text = messy_trace(&n, true);
	const char *plain = tu_write("messy.jsonl", text, n);
	const char *gz = tu_write_gz("messy.jsonl.gz", text, n);
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	o.max_line_bytes = 300;
	for (size_t block = 512; block <= 65536; block *= 8) {
		assert_int_equal(both_ways(plain, o, block), 0);
		assert_int_equal(both_ways(gz, o, block), 0);
	}
	o.cjson_only = true;
	assert_int_equal(both_ways(plain, o, 4096), 0);

	/* The file really is messy: check a few of the things it exercises. */
	cg_timeline *tl;
	cg_error err;
	o.threads = 2;
	o.block_bytes = 4096;
	o.cjson_only = false;
	assert_int_equal(cg_ingest(&tl, plain, &o, &err), 0);
	assert_true(tl->source.truncated);
	assert_true(tl->source.bad_lines > CG_MAX_DIAGS);
	assert_int_equal(tl->source.ndiags, CG_MAX_DIAGS);
	assert_int_equal(tl->source.meta_count, 2);
	assert_true(tl->source.unknown_categories > 0);
	assert_true(tl->anomalies[CG_ANOM_FREE_BEFORE_TRACE].count > 0);
	assert_true(tl->anomalies[CG_ANOM_UNKNOWN_SPAN].count > 0);
	assert_int_equal(tl->ndevices, 2);
	cg_timeline_free(tl);
	free(text);
}

static void strict_mode_stops_at_the_same_line_on_several_threads(void **state)
{
	size_t n;
	char *text = messy_trace(&n, false);
	const char *p = tu_write("strict.jsonl", text, n);
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	o.strict = true;
	assert_int_equal(both_ways(p, o, 1024), CG_EINPUT);
	free(text);
}

static void a_string_limit_stops_at_the_same_line_on_several_threads(void **state)
{
	size_t n;
	char *text = messy_trace(&n, false);
	const char *p = tu_write("limit.jsonl", text, n);
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	o.max_line_bytes = 300;
	o.max_string_bytes = 6000;
	assert_int_equal(both_ways(p, o, 2048), CG_ELIMIT);
	free(text);
}

static void a_generated_trace_reads_the_same_on_several_threads(void **state)
{
	/* Memory records of two devices interleaved with lifetimes across
	 * blocks, so frees are paired with allocations of other shards. */
	size_t cap = 4 << 20, n = 0;
	char *t = malloc(cap);
	n += (size_t)snprintf(t, cap, "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\"}\n"
				   "{\"kind\":\"span_start\",\"id\":\"s\",\"name\":\"r\",\"start_ns\":0,\"span_kind\":\"function\"}\n");
	for (int i = 0; i < 20000; i++) {
		int id = i / 2 % 997, dev = id % 2;
		n += (size_t)snprintf(t + n, cap - n, "{\"kind\":\"memory\",\"timestamp_ns\":%d,\"tensor_id\":\"t%d\","
				      "\"span_id\":\"s\",\"device\":\"cuda:%d\",\"bytes\":%d,\"action\":\"%s\",\"dtype\":\"f32\"}\n",
				      (i * 7919) % 50000, id, dev, 1 + id, (i / 997) % 2 ? "free" : "alloc");
	}
	const char *p = tu_write("generated.jsonl", t, n);
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	assert_int_equal(both_ways(p, o, 8192), 0);
	assert_int_equal(both_ways(p, o, 0), 0);
	free(t);
}

/* Merging keeps device 0's memory records in place and gathers the other
 * devices' apart, to join them after device 0's before finalize: with
 * three devices in uneven shares (the first seen is cuda:2), records
 * naming spans that never started on each, and times out of order on one,
 * the timeline is the single thread's, anomaly examples in line order. */
static void records_of_three_devices_join_in_file_order(void **state)
{
	size_t cap = 4 << 20, n = 0;
	char *t = malloc(cap);
	n += (size_t)snprintf(t, cap, "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\"}\n"
				   "{\"kind\":\"span_start\",\"id\":\"s\",\"name\":\"r\",\"start_ns\":0,\"span_kind\":\"function\"}\n");
	static const int device_of[7] = {2, 0, 1, 0, 2, 2, 0};
	for (int i = 0; i < 15000; i++) {
		int dev = device_of[i * 5 % 7], id = i / 2 % 613;
		int when = dev == 1 ? (i * 7919) % 60000 : i * 4;
		n += (size_t)snprintf(t + n, cap - n, "{\"kind\":\"memory\",\"timestamp_ns\":%d,\"tensor_id\":\"t%d\","
				      "\"span_id\":\"%s\",\"device\":\"cuda:%d\",\"bytes\":%d,\"action\":\"%s\",\"dtype\":\"f32\"}\n",
				      when, id, i % 101 == 9 ? "gone" : "s", dev, 1 + id, (i / 613) % 2 ? "free" : "alloc");
	}
	const char *p = tu_write("three_devices.jsonl", t, n);
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	assert_int_equal(both_ways(p, o, 4096), 0);
	assert_int_equal(both_ways(p, o, 0), 0);

	cg_timeline *tl;
	cg_error err;
	o.threads = 2;
	o.block_bytes = 4096;
	assert_int_equal(cg_ingest(&tl, p, &o, &err), 0);
	assert_true(tl->mem_regrouped); /* the records were grouped as they merged */
	assert_int_equal(tl->ndevices, 3);
	assert_int_equal(tl->anomalies[CG_ANOM_UNKNOWN_SPAN].count, 149);
	assert_string_equal(tl->anomalies[CG_ANOM_UNKNOWN_SPAN].examples[0],
			    "line 12: memory record names span \"gone\", which never started");
	cg_timeline_free(tl);
	free(t);
}

/* Reads path keeping ops and dropping them, on `threads`: the two
 * timelines differ in the ops alone, and each op naming a span is kept as
 * its reference. Returns the dropping one, for the caller to check. */
static cg_timeline *dropped_and_kept_differ_in_ops_alone(const char *path, cg_ingest_options o, unsigned threads)
{
	cg_timeline *kept, *dropped;
	cg_error err;
	o.threads = threads;
	o.block_bytes = 4096;
	o.drop_ops = false;
	assert_int_equal(cg_ingest(&kept, path, &o, &err), 0);
	o.drop_ops = true;
	assert_int_equal(cg_ingest(&dropped, path, &o, &err), 0);
	assert_true(kept->nops > 0);
	assert_int_equal(kept->nop_refs, 0);
	assert_int_equal(dropped->nops, 0);
	assert_int_equal(dropped->nop_inputs, 0);
	size_t r = 0;
	for (size_t i = 0; i < kept->nops; i++)
		if (r < dropped->nop_refs && dropped->op_refs[r].line == kept->ops[i].line)
			r++;
	assert_int_equal(r, dropped->nop_refs); /* the ops' lines, in order */
	size_t nops = kept->nops, nop_inputs = kept->nop_inputs, nop_refs = dropped->nop_refs;
	kept->nops = kept->nop_inputs = dropped->nop_refs = 0;
	same_timeline(kept, dropped);
	kept->nops = nops;
	kept->nop_inputs = nop_inputs;
	dropped->nop_refs = nop_refs;
	cg_timeline_free(kept);
	return dropped;
}

/* Ops dropped (as every command but a report with its Chrome trace reads
 * them): records counted, times seen, strings interned and spans that never
 * started reported as when ops are kept, on one thread or several. */
static void dropping_ops_changes_nothing_but_the_ops(void **state)
{
	static const char trace[] =
		"{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\"}\n"
		"{\"kind\":\"op\",\"span_id\":\"later\",\"op_name\":\"aten::mm\",\"inputs\":[\"a\",\"b\"],"
		"\"dtype\":\"f32\",\"device\":\"cuda:0\",\"timestamp_ns\":5,\"duration_ns\":10}\n"
		"{\"kind\":\"span_start\",\"id\":\"later\",\"name\":\"r\",\"start_ns\":10,\"span_kind\":\"function\"}\n"
		"{\"kind\":\"op\",\"span_id\":\"ghost\",\"op_name\":\"aten::add\",\"dtype\":\"f32\","
		"\"device\":\"cuda:0\",\"timestamp_ns\":20,\"duration_ns\":1}\n"
		"{\"kind\":\"memory\",\"timestamp_ns\":30,\"tensor_id\":\"t\",\"span_id\":\"later\","
		"\"device\":\"cuda:0\",\"bytes\":8,\"action\":\"alloc\",\"dtype\":\"f32\"}\n"
		"{\"kind\":\"op\",\"span_id\":\"\",\"op_name\":\"aten::relu\",\"dtype\":\"f32\","
		"\"device\":\"cuda:1\",\"timestamp_ns\":40,\"duration_ns\":60}\n"
		"{\"kind\":\"op\",\"span_id\":\"ghost2\",\"op_name\":\"aten::sum\",\"dtype\":\"f32\","
		"\"device\":\"cuda:0\",\"timestamp_ns\":50,\"duration_ns\":1}\n";
	const char *p = tu_write("ops.jsonl", trace, sizeof trace - 1);
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	for (unsigned threads = 1; threads <= 2; threads++) {
		cg_timeline *tl = dropped_and_kept_differ_in_ops_alone(p, o, threads);
		/* worked by hand: the ops of lines 2, 4 and 7 name spans (line
		 * 6's names none); it ends at 100 ns, the trace's last moment,
		 * and its device is the trace's second */
		assert_int_equal(tl->ndevices, 2);
		assert_int_equal(tl->nop_refs, 3);
		assert_int_equal(tl->op_refs[0].line, 2);
		assert_int_equal(tl->op_refs[1].line, 4);
		assert_int_equal(tl->op_refs[2].line, 7);
		assert_string_equal(cg_timeline_str(tl, tl->op_refs[1].span), "ghost");
		assert_int_equal(tl->last_t_ns, 100);
		assert_int_equal(tl->anomalies[CG_ANOM_UNKNOWN_SPAN].count, 2);
		assert_string_equal(tl->anomalies[CG_ANOM_UNKNOWN_SPAN].examples[0],
				    "line 4: op names span \"ghost\", which never started");
		assert_string_equal(tl->anomalies[CG_ANOM_UNKNOWN_SPAN].examples[1],
				    "line 7: op names span \"ghost2\", which never started");
		cg_timeline_free(tl);
	}

	/* The messy trace, its ops spread over many shards. */
	size_t n;
	char *text = messy_trace(&n, true);
	const char *messy = tu_write("messy_ops.jsonl", text, n);
	o.max_line_bytes = 300;
	for (unsigned threads = 1; threads <= 3; threads += 2)
		cg_timeline_free(dropped_and_kept_differ_in_ops_alone(messy, o, threads));
	o.drop_ops = true;
	assert_int_equal(both_ways(messy, o, 512), 0);
	assert_int_equal(both_ways(messy, o, 65536), 0);
	free(text);
}

/* A UTF-8 byte-order mark before the first line changes nothing but the
 * file's size, on one thread or several, over small blocks or large, with
 * either parser. */
static void a_byte_order_mark_changes_nothing_on_several_threads(void **state)
{
	size_t n;
	char *text = tu_read(tu_sample("mlp_adam.jsonl"), &n);
	char *marked = malloc(n + 3);
	memcpy(marked, "\xef\xbb\xbf", 3);
	memcpy(marked + 3, text, n);
	const char *plain = tu_write("plain.jsonl", text, n);
	const char *bom = tu_write("bom.jsonl", marked, n + 3);
	free(text);
	free(marked);
	for (int cjson = 0; cjson < 2; cjson++) {
		cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
		o.cjson_only = cjson;
		for (size_t block = 4096; block <= ((size_t)4 << 20); block *= 1024) {
			assert_int_equal(both_ways(bom, o, block), 0);
			for (unsigned threads = 1; threads <= 3; threads += 2) {
				cg_timeline *a = NULL, *b = NULL;
				cg_error err = CG_ERROR_INIT;
				o.threads = threads;
				assert_int_equal(direct(&a, plain, &o, block, &err), 0);
				assert_int_equal(direct(&b, bom, &o, block, &err), 0);
				assert_int_equal(b->source.records[CG_KIND_META], 1);
				assert_int_equal(b->source.bad_lines, 0);
				assert_int_equal(b->source.file_bytes, a->source.file_bytes + 3);
				b->source.file_bytes = a->source.file_bytes;
				b->source.data_bytes = a->source.data_bytes;
				same_timeline(a, b);
				cg_timeline_free(a);
				cg_timeline_free(b);
			}
		}
	}
}

/* lines lines of 1,023 'x' and a newline (1 KiB each, all bad), then one
 * memory record. */
static const char *garbage_then_a_record(const char *name, size_t lines)
{
	const char *p = tu_path(name);
	FILE *f = fopen(p, "wb");
	char line[1024];
	memset(line, 'x', sizeof line - 1);
	line[sizeof line - 1] = '\n';
	for (size_t i = 0; i < lines; i++)
		fwrite(line, 1, sizeof line, f);
	fputs("{\"kind\":\"memory\",\"timestamp_ns\":1,\"tensor_id\":\"a\",\"span_id\":\"s\",\"device\":\"cpu\","
	      "\"bytes\":8,\"action\":\"alloc\",\"dtype\":\"f32\"}\n", f);
	fclose(f);
	return p;
}

/* Reading gives up at the first line that starts 64 MiB or more into the
 * data while no record has been read: at the same line on one thread or
 * several, whatever the blocks. */
static void giving_up_on_garbage_is_decided_at_the_same_line_on_several_threads(void **state)
{
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	/* 65,535 lines of 1 KiB: the record starts 1 KiB before the 64 MiB. */
	char path[600];
	snprintf(path, sizeof path, "%s", garbage_then_a_record("before.jsonl", 65535));
	assert_int_equal(both_ways(path, o, (size_t)1 << 20), 0);
	assert_int_equal(both_ways(path, o, 65536 + 512), 0);
	unlink(path);
	/* 65,536 lines: the record starts at 64 MiB, one line too late. */
	snprintf(path, sizeof path, "%s", garbage_then_a_record("at.jsonl", 65536));
	assert_int_equal(both_ways(path, o, (size_t)1 << 20), CG_EINPUT);
	assert_int_equal(both_ways(path, o, 65536 + 512), CG_EINPUT);
	cg_timeline *tl = NULL;
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_ingest(&tl, path, &o, &err), CG_EINPUT);
	char expect[2048];
	snprintf(expect, sizeof expect, "%s: no record could be read in the first 64 MiB (65536 bad lines), so cgmem "
		 "gives up; first bad line: %s:1: not valid JSON (error near column 1)", path, path);
	assert_string_equal(err.msg, expect);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_sample_reads_the_same_on_several_threads),
		cmocka_unit_test(a_messy_trace_reads_the_same_on_several_threads),
		cmocka_unit_test(strict_mode_stops_at_the_same_line_on_several_threads),
		cmocka_unit_test(a_string_limit_stops_at_the_same_line_on_several_threads),
		cmocka_unit_test(a_generated_trace_reads_the_same_on_several_threads),
		cmocka_unit_test(records_of_three_devices_join_in_file_order),
		cmocka_unit_test(dropping_ops_changes_nothing_but_the_ops),
		cmocka_unit_test(a_byte_order_mark_changes_nothing_on_several_threads),
		cmocka_unit_test(giving_up_on_garbage_is_decided_at_the_same_line_on_several_threads),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
