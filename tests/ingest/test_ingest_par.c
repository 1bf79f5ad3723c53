/* Parallel ingest gives the timeline single-threaded ingest gives, in every
 * respect: records and their order, line numbers, strings and their ids,
 * devices, dtypes, diagnostics and their order, anomalies, truncation, and
 * the first error in strict mode or at a limit. Small blocks make many
 * shards out of small files. */
#include "testutil.h"

#include <string.h>

#define FIELD(a, b, f) \
	do { \
		if ((a).f != (b).f) \
			fail_msg("%s[%zu].%s differs: %llu != %llu", what, i, #f, (unsigned long long)(a).f, \
				 (unsigned long long)(b).f); \
	} while (0)

static void same_strtab(const cg_strtab *a, const cg_strtab *b, const char *what)
{
	assert_int_equal(cg_strtab_count(a), cg_strtab_count(b));
	for (cg_str id = 0; id < cg_strtab_count(a); id++) {
		size_t n = cg_strtab_len(a, id);
		if (n != cg_strtab_len(b, id) || memcmp(cg_strtab_get(a, id), cg_strtab_get(b, id), n) != 0)
			fail_msg("%s: string %u differs", what, id);
	}
}

static void same_records(const cg_timeline *x, const cg_timeline *y)
{
	const char *what = "mem";
	assert_int_equal(x->nmem, y->nmem);
	for (size_t i = 0; i < x->nmem; i++) {
		FIELD(x->mem[i], y->mem[i], t_ns); FIELD(x->mem[i], y->mem[i], bytes);
		FIELD(x->mem[i], y->mem[i], tensor); FIELD(x->mem[i], y->mem[i], span);
		FIELD(x->mem[i], y->mem[i], op); FIELD(x->mem[i], y->mem[i], shape);
		FIELD(x->mem[i], y->mem[i], pair); FIELD(x->mem[i], y->mem[i], line);
		FIELD(x->mem[i], y->mem[i], device); FIELD(x->mem[i], y->mem[i], action);
		FIELD(x->mem[i], y->mem[i], category); FIELD(x->mem[i], y->mem[i], dtype);
		FIELD(x->mem[i], y->mem[i], flags);
	}
	what = "spans";
	assert_int_equal(x->nspans, y->nspans);
	for (size_t i = 0; i < x->nspans; i++) {
		FIELD(x->spans[i], y->spans[i], start_ns); FIELD(x->spans[i], y->spans[i], end_ns);
		FIELD(x->spans[i], y->spans[i], id); FIELD(x->spans[i], y->spans[i], name);
		FIELD(x->spans[i], y->spans[i], parent); FIELD(x->spans[i], y->spans[i], line);
		FIELD(x->spans[i], y->spans[i], depth); FIELD(x->spans[i], y->spans[i], kind);
		FIELD(x->spans[i], y->spans[i], step); FIELD(x->spans[i], y->spans[i], phase);
		FIELD(x->spans[i], y->spans[i], flags);
	}
	what = "ops";
	assert_int_equal(x->nops, y->nops);
	for (size_t i = 0; i < x->nops; i++) {
		FIELD(x->ops[i], y->ops[i], t_ns); FIELD(x->ops[i], y->ops[i], duration_ns);
		FIELD(x->ops[i], y->ops[i], storage_bytes); FIELD(x->ops[i], y->ops[i], input_storage_bytes);
		FIELD(x->ops[i], y->ops[i], name); FIELD(x->ops[i], y->ops[i], output);
		FIELD(x->ops[i], y->ops[i], span); FIELD(x->ops[i], y->ops[i], shape);
		FIELD(x->ops[i], y->ops[i], inputs_first); FIELD(x->ops[i], y->ops[i], inputs_count);
		FIELD(x->ops[i], y->ops[i], line); FIELD(x->ops[i], y->ops[i], device);
		FIELD(x->ops[i], y->ops[i], dtype); FIELD(x->ops[i], y->ops[i], flags);
	}
	assert_int_equal(x->nop_inputs, y->nop_inputs);
	if (x->nop_inputs)
		assert_memory_equal(x->op_inputs, y->op_inputs, x->nop_inputs * sizeof *x->op_inputs);
	what = "tensors";
	assert_int_equal(x->ntensors, y->ntensors);
	for (size_t i = 0; i < x->ntensors; i++) {
		FIELD(x->tensors[i], y->tensors[i], storage_bytes); FIELD(x->tensors[i], y->tensors[i], tensor);
		FIELD(x->tensors[i], y->tensors[i], span); FIELD(x->tensors[i], y->tensors[i], shape);
		FIELD(x->tensors[i], y->tensors[i], line); FIELD(x->tensors[i], y->tensors[i], device);
		FIELD(x->tensors[i], y->tensors[i], dtype); FIELD(x->tensors[i], y->tensors[i], category);
		FIELD(x->tensors[i], y->tensors[i], flags);
	}
	what = "devmem";
	assert_int_equal(x->ndevmem, y->ndevmem);
	for (size_t i = 0; i < x->ndevmem; i++) {
		FIELD(x->devmem[i], y->devmem[i], t_ns); FIELD(x->devmem[i], y->devmem[i], used_bytes);
		FIELD(x->devmem[i], y->devmem[i], free_bytes); FIELD(x->devmem[i], y->devmem[i], reserved_bytes);
		FIELD(x->devmem[i], y->devmem[i], line); FIELD(x->devmem[i], y->devmem[i], device);
		FIELD(x->devmem[i], y->devmem[i], has_used); FIELD(x->devmem[i], y->devmem[i], has_reserved);
	}
	what = "gradients";
	assert_int_equal(x->ngradients, y->ngradients);
	for (size_t i = 0; i < x->ngradients; i++) {
		assert_true(x->gradients[i].norm == y->gradients[i].norm);
		FIELD(x->gradients[i], y->gradients[i], event_id); FIELD(x->gradients[i], y->gradients[i], root);
		FIELD(x->gradients[i], y->gradients[i], key); FIELD(x->gradients[i], y->gradients[i], line);
		FIELD(x->gradients[i], y->gradients[i], state); FIELD(x->gradients[i], y->gradients[i], has_norm);
	}
	what = "edges";
	assert_int_equal(x->nedges, y->nedges);
	for (size_t i = 0; i < x->nedges; i++) {
		FIELD(x->edges[i], y->edges[i], duration_ns); FIELD(x->edges[i], y->edges[i], from_span);
		FIELD(x->edges[i], y->edges[i], to_span); FIELD(x->edges[i], y->edges[i], line);
	}
	what = "meta";
	assert_int_equal(x->nmeta, y->nmeta);
	for (size_t i = 0; i < x->nmeta; i++) {
		FIELD(x->meta[i], y->meta[i], key); FIELD(x->meta[i], y->meta[i], value);
		FIELD(x->meta[i], y->meta[i], is_string);
	}
	what = "replacements";
	assert_int_equal(x->nreplacements, y->nreplacements);
	for (size_t i = 0; i < x->nreplacements; i++) {
		FIELD(x->replacements[i], y->replacements[i], alloc);
		FIELD(x->replacements[i], y->replacements[i], replaced);
	}
}

static void same_source(const cg_source *a, const cg_source *b)
{
	assert_int_equal(a->lines, b->lines);
	assert_memory_equal(a->records, b->records, sizeof a->records);
	assert_int_equal(a->blank_lines, b->blank_lines);
	assert_int_equal(a->bad_lines, b->bad_lines);
	assert_int_equal(a->unknown_kinds, b->unknown_kinds);
	assert_int_equal(a->unknown_categories, b->unknown_categories);
	assert_int_equal(a->unknown_values, b->unknown_values);
	assert_int_equal(a->warnings, b->warnings);
	assert_int_equal(a->truncated, b->truncated);
	assert_int_equal(a->truncated_line, b->truncated_line);
	if (a->truncation_note || b->truncation_note)
		assert_string_equal(a->truncation_note, b->truncation_note);
	assert_int_equal(a->meta_seen, b->meta_seen);
	assert_int_equal(a->meta_count, b->meta_count);
	assert_int_equal(a->meta_line, b->meta_line);
	assert_int_equal(a->schema, b->schema);
	assert_int_equal(a->file_bytes, b->file_bytes);
	assert_int_equal(a->data_bytes, b->data_bytes);
	assert_int_equal(a->ndiags, b->ndiags);
	for (size_t i = 0; i < a->ndiags; i++) {
		assert_int_equal(a->diags[i].line, b->diags[i].line);
		assert_int_equal(a->diags[i].kind, b->diags[i].kind);
		assert_string_equal(a->diags[i].msg, b->diags[i].msg);
	}
}

static void same_timeline(const cg_timeline *x, const cg_timeline *y)
{
	same_strtab(x->strings, y->strings, "strings");
	same_strtab(x->shapes, y->shapes, "shapes");
	same_records(x, y);
	assert_int_equal(x->ndevices, y->ndevices);
	for (uint32_t d = 0; d < x->ndevices; d++) {
		const cg_device *a = &x->devices[d], *b = &y->devices[d];
		assert_int_equal(a->name, b->name);
		assert_int_equal(a->mem_first, b->mem_first);
		assert_int_equal(a->mem_count, b->mem_count);
		assert_int_equal(a->devmem_count, b->devmem_count);
		assert_int_equal(a->preexisting_bytes, b->preexisting_bytes);
		assert_int_equal(a->preexisting_count, b->preexisting_count);
		assert_int_equal(a->live_at_end, b->live_at_end);
		assert_int_equal(a->live_count_at_end, b->live_count_at_end);
	}
	assert_int_equal(x->ndtypes, y->ndtypes);
	for (uint32_t i = 0; i < x->ndtypes; i++) {
		assert_int_equal(x->dtypes[i].name, y->dtypes[i].name);
		assert_int_equal(x->dtypes[i].size, y->dtypes[i].size);
	}
	for (int a = 0; a < CG_ANOM_COUNT; a++) {
		assert_int_equal(x->anomalies[a].count, y->anomalies[a].count);
		assert_int_equal(x->anomalies[a].nexamples, y->anomalies[a].nexamples);
		for (uint32_t i = 0; i < x->anomalies[a].nexamples; i++)
			assert_string_equal(x->anomalies[a].examples[i], y->anomalies[a].examples[i]);
	}
	assert_int_equal(x->first_t_ns, y->first_t_ns);
	assert_int_equal(x->last_t_ns, y->last_t_ns);
	same_source(&x->source, &y->source);
}

/* Ingests path with one thread and with several over small blocks; checks
 * both give the same timeline, or the same error. Returns the result code. */
static int both_ways(const char *path, cg_ingest_options o, size_t block_bytes)
{
	cg_timeline *serial = NULL, *par = NULL;
	cg_error e1 = CG_ERROR_INIT, e2 = CG_ERROR_INIT;
	o.threads = 1;
	o.block_bytes = block_bytes;
	int rc1 = cg_ingest(&serial, path, &o, &e1);
	o.threads = 3;
	int rc2 = cg_ingest(&par, path, &o, &e2);
	assert_int_equal(rc1, rc2);
	if (rc1 < 0) {
		assert_string_equal(e1.msg, e2.msg);
		assert_null(serial);
		assert_null(par);
		return rc1;
	}
	same_timeline(serial, par);
	cg_timeline_free(serial);
	cg_timeline_free(par);
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

static char *summary_with(const char *outname, const char *opt1, const char *opt2)
{
	char *so, *se;
	const char *out = tu_path(outname);
	int rc = tu_run(&so, &se, NULL, "report", tu_sample("leak_loss_history.jsonl"), "-o", out, "-q",
			"--no-trace", opt1, opt2, NULL);
	if (rc != 0)
		fail_msg("cgmem report %s %s exited %d: %s", opt1, opt2 ? opt2 : "", rc, se);
	free(so);
	free(se);
	char path[600];
	snprintf(path, sizeof path, "%s/summary.json", out);
	char *text = tu_read(path, NULL);
	assert_non_null(text);
	return text;
}

static void the_report_is_the_same_for_any_thread_count_and_parser(void **state)
{
	char *one = summary_with("out-t1", "--threads=1", NULL);
	char *three = summary_with("out-t3", "--threads=3", NULL);
	char *cjson = summary_with("out-cj", "--parser=cjson", "--threads=2");
	/* summary.json names no output folder, so the files compare whole. */
	assert_string_equal(one, three);
	assert_string_equal(one, cjson);
	free(one);
	free(three);
	free(cjson);

	char *so, *se;
	assert_int_equal(tu_run(&so, &se, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", tu_path("x"),
				"--threads", "0", NULL), 2);
	assert_non_null(strstr(se, "--threads: '0' is not a number from 1 to 64"));
	free(so);
	free(se);
	assert_int_equal(tu_run(&so, &se, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", tu_path("x"),
				"--parser", "simd", NULL), 2);
	assert_non_null(strstr(se, "--parser: 'simd' is not fast or cjson"));
	free(so);
	free(se);
	assert_int_equal(tu_run(&so, &se, NULL, "report", tu_sample("mlp_adam.jsonl"), "-o", tu_path("y"),
				"-q", "--no-trace", "--stats", NULL), 0);
	assert_non_null(strstr(se, "stats: ingest "));
	assert_non_null(strstr(se, "7207 lines, 1160621 bytes read"));
	assert_non_null(strstr(se, "1064 memory records"));
	free(so);
	free(se);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_sample_reads_the_same_on_several_threads),
		cmocka_unit_test(a_messy_trace_reads_the_same_on_several_threads),
		cmocka_unit_test(strict_mode_stops_at_the_same_line_on_several_threads),
		cmocka_unit_test(a_string_limit_stops_at_the_same_line_on_several_threads),
		cmocka_unit_test(a_generated_trace_reads_the_same_on_several_threads),
		cmocka_unit_test(the_report_is_the_same_for_any_thread_count_and_parser),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
