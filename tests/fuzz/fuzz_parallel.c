/* libFuzzer target: parallel JSONL ingest (ingest_par.c, tlmerge.c) against
 * the single-threaded reading of the same bytes. The first byte sets the
 * parse threads (2-5), the second the block size (a few bytes to a few KiB,
 * so that blocks end inside lines and shards meet strings, devices and
 * meta records their neighbours saw first), the third the line limit, the
 * string limit, strict mode, the cJSON parser and dropped ops; the rest is
 * the trace (plain or gzip).
 * Both timelines must be the same to the last diagnostic: same error, same
 * counters, same string ids, same records, same peaks. A difference aborts.
 * The bytes go to the JSONL reader directly (cg_jsonl_ingest): through
 * cg_ingest, format detection peeks 256 KiB into the first block, and an
 * input shorter than that would be one block whatever its size.
 *   build-fuzz/tests/fuzz/fuzz_parallel tests/fuzz/corpus_parallel */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonl_ingest.h"
#include "reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void differ(const char *what)
{
	fprintf(stderr, "fuzz_parallel: threads and one thread differ: %s\n", what);
	abort();
}

#define SAME(field, what)                                                                                          \
	do {                                                                                                       \
		if ((a)->field != (b)->field)                                                                      \
			differ(what);                                                                              \
	} while (0)
#define SAME_ARRAY(arr, n, what)                                                                                   \
	do {                                                                                                       \
		SAME(n, what " count");                                                                            \
		for (size_t i_ = 0; i_ < (a)->n; i_++)                                                             \
			if (memcmp(&(a)->arr[i_], &(b)->arr[i_], sizeof *(a)->arr) != 0)                           \
				differ(what);                                                                      \
	} while (0)

static void same_strings(const cg_strtab *x, const cg_strtab *y, const char *what)
{
	uint32_t n = cg_strtab_count(x);
	if (n != cg_strtab_count(y))
		differ(what);
	for (cg_str id = 0; id < n; id++) {
		size_t len = cg_strtab_len(x, id);
		if (len != cg_strtab_len(y, id) || memcmp(cg_strtab_get(x, id), cg_strtab_get(y, id), len) != 0)
			differ(what);
	}
}

static void same_source(const cg_source *a, const cg_source *b)
{
	SAME(gzip, "gzip");
	SAME(file_bytes, "file bytes");
	SAME(data_bytes, "data bytes");
	SAME(lines, "lines");
	for (int k = 0; k < CG_KIND_COUNT; k++)
		SAME(records[k], "records of a kind");
	SAME(blank_lines, "blank lines");
	SAME(bad_lines, "bad lines");
	SAME(unknown_kinds, "unknown kinds");
	SAME(unknown_categories, "unknown categories");
	SAME(unknown_values, "unknown values");
	SAME(warnings, "warnings");
	SAME(truncated, "truncated");
	SAME(truncated_line, "truncated line");
	if ((a->truncation_note == NULL) != (b->truncation_note == NULL) ||
	    (a->truncation_note && strcmp(a->truncation_note, b->truncation_note) != 0))
		differ("truncation note");
	SAME(meta_seen, "meta seen");
	SAME(meta_count, "meta count");
	SAME(meta_line, "meta line");
	SAME(schema, "schema");
	SAME(ndiags, "diagnostics kept");
	for (size_t i = 0; i < a->ndiags; i++)
		if (a->diags[i].line != b->diags[i].line || a->diags[i].kind != b->diags[i].kind ||
		    strcmp(a->diags[i].msg, b->diags[i].msg) != 0)
			differ("a diagnostic");
}

/* The highest running sum of each device's live bytes, in time order. */
static void same_peaks(const cg_timeline *a, const cg_timeline *b)
{
	for (uint32_t d = 0; d < a->ndevices; d++) {
		uint64_t live[2] = {0, 0}, peak[2] = {0, 0};
		const cg_timeline *t[2] = {a, b};
		for (int s = 0; s < 2; s++) {
			const cg_device *dev = &t[s]->devices[d];
			live[s] = dev->preexisting_bytes + dev->baseline_bytes;
			peak[s] = live[s];
			for (uint32_t i = dev->mem_first; i < dev->mem_first + dev->mem_count; i++) {
				const cg_mem *m = &t[s]->mem[i];
				if (m->action == CG_ALLOC)
					live[s] += m->bytes;
				else
					live[s] -= m->bytes;
				if (live[s] > peak[s])
					peak[s] = live[s];
			}
		}
		if (peak[0] != peak[1] || live[0] != live[1])
			differ("a device's peak");
	}
}

/* Records with padding compared field by field. */
static void same_mem(const cg_mem *x, const cg_mem *y)
{
	if (x->t_ns != y->t_ns || x->bytes != y->bytes || x->tensor.v != y->tensor.v || x->span != y->span ||
	    x->site != y->site || x->pair != y->pair || x->line != y->line ||
	    x->action != y->action || x->category != y->category || x->flags != y->flags)
		differ("memory records");
}

static void same_site(const cg_mem_site *x, const cg_mem_site *y)
{
	if (x->op != y->op || x->shape != y->shape || x->dtype != y->dtype || x->device != y->device)
		differ("memory record sites");
}

static void same_tensor(const cg_tensor *x, const cg_tensor *y)
{
	if (x->storage_bytes != y->storage_bytes || x->tensor != y->tensor || x->span != y->span ||
	    x->shape != y->shape || x->line != y->line || x->device != y->device || x->dtype != y->dtype ||
	    x->category != y->category || x->flags != y->flags)
		differ("tensors");
}

static void same_device(const cg_device *x, const cg_device *y)
{
	if (x->name != y->name || x->mem_first != y->mem_first || x->mem_count != y->mem_count ||
	    x->devmem_count != y->devmem_count || x->preexisting_bytes != y->preexisting_bytes ||
	    x->preexisting_count != y->preexisting_count || x->baseline_bytes != y->baseline_bytes ||
	    memcmp(x->initial_by_cat, y->initial_by_cat, sizeof x->initial_by_cat) != 0 ||
	    x->live_at_end != y->live_at_end || x->live_count_at_end != y->live_count_at_end)
		differ("devices");
}

#define SAME_EACH(arr, n, cmp, what)                                                                               \
	do {                                                                                                       \
		SAME(n, what " count");                                                                            \
		for (size_t i_ = 0; i_ < (a)->n; i_++)                                                             \
			cmp(&(a)->arr[i_], &(b)->arr[i_]);                                                         \
	} while (0)

static void same_timeline(const cg_timeline *a, const cg_timeline *b)
{
	same_source(&a->source, &b->source);
	same_strings(a->strings, b->strings, "string table");
	same_strings(a->shapes, b->shapes, "shape table");
	SAME_EACH(mem, nmem, same_mem, "memory records");
	SAME_EACH(mem_sites, nmem_sites, same_site, "memory record sites");
	SAME_ARRAY(spans, nspans, "spans");
	SAME_ARRAY(ops, nops, "ops");
	SAME_ARRAY(op_inputs, nop_inputs, "op inputs");
	SAME_ARRAY(op_refs, nop_refs, "op span references");
	SAME_EACH(tensors, ntensors, same_tensor, "tensors");
	SAME_ARRAY(devmem, ndevmem, "device checkpoints");
	SAME_ARRAY(ooms, nooms, "out-of-memory events");
	SAME(nedges, "edges count");
	for (size_t i = 0; i < a->nedges; i++)
		if (a->edges[i].duration_ns != b->edges[i].duration_ns || a->edges[i].from_span != b->edges[i].from_span ||
		    a->edges[i].to_span != b->edges[i].to_span || a->edges[i].line != b->edges[i].line)
			differ("edges");
	SAME(nmeta, "meta count");
	for (size_t i = 0; i < a->nmeta; i++)
		if (a->meta[i].key != b->meta[i].key || a->meta[i].value != b->meta[i].value ||
		    a->meta[i].is_string != b->meta[i].is_string)
			differ("meta entries");
	SAME_EACH(devices, ndevices, same_device, "devices");
	SAME_ARRAY(dtypes, ndtypes, "dtypes");
	SAME_ARRAY(replacements, nreplacements, "replacements");
	SAME(ngradients, "gradients count");
	for (size_t i = 0; i < a->ngradients; i++) {
		const cg_gradient *x = &a->gradients[i], *y = &b->gradients[i];
		/* norm compared as bits: NaN is a value a trace may hold */
		if (memcmp(&x->norm, &y->norm, sizeof x->norm) != 0 || x->event_id != y->event_id ||
		    x->root != y->root || x->key != y->key || x->line != y->line || x->state != y->state ||
		    x->has_norm != y->has_norm)
			differ("gradients");
	}
	for (int k = 0; k < CG_ANOM_COUNT; k++) {
		SAME(anomalies[k].count, "anomaly count");
		SAME(anomalies[k].nexamples, "anomaly examples");
		for (uint32_t i = 0; i < a->anomalies[k].nexamples; i++)
			if (strcmp(a->anomalies[k].examples[i], b->anomalies[k].examples[i]) != 0)
				differ("an anomaly example");
	}
	SAME(first_t_ns, "first time");
	SAME(last_t_ns, "last time");
	same_peaks(a, b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	static const size_t line_limits[4] = {(size_t)1 << 20, 64, 300, 4096};
	static const size_t string_limits[4] = {(size_t)8 << 20, 2048, 8192, 65536};
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	unsigned threads = 2 + data[0] % 4;
	o.block_bytes = data[1] < 128 ? 1 + (size_t)data[1] : (size_t)(data[1] - 127) * 64;
	o.max_line_bytes = line_limits[data[2] & 3];
	o.max_string_bytes = string_limits[data[2] >> 2 & 3];
	o.strict = data[2] >> 4 & 1;
	o.cjson_only = data[2] >> 5 & 1;
	o.drop_ops = data[2] >> 6 & 1;
	data += 3;
	size -= 3;

	cg_timeline *tl[2] = {NULL, NULL};
	cg_error err[2] = {CG_ERROR_INIT, CG_ERROR_INIT};
	int rc[2];
	cg_reader_options ro = CG_READER_OPTIONS_INIT;
	ro.max_line_bytes = o.max_line_bytes;
	ro.block_bytes = o.block_bytes;
	for (int s = 0; s < 2; s++) {
		o.threads = s == 0 ? 1 : threads;
		cg_reader *r;
		rc[s] = cg_reader_open_memory(&r, data, size, "fuzz.jsonl", &ro, &err[s]);
		if (rc[s] == 0) {
			rc[s] = cg_jsonl_ingest(&tl[s], r, "fuzz.jsonl", &o, &err[s]);
			cg_reader_close(r);
		}
	}
	if (rc[0] != rc[1])
		differ("the result");
	if (rc[0] < 0 && strcmp(err[0].msg, err[1].msg) != 0)
		differ("the error message");
	if (rc[0] == 0)
		same_timeline(tl[0], tl[1]);
	cg_timeline_free(tl[0]);
	cg_timeline_free(tl[1]);
	return 0;
}
