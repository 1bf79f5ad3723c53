#include "summary_json.h"

#include <string.h>

#include "devorder.h"
#include "jsonw.h"
#include "summary_allocstate.h"
#include "summary_device.h"
#include "xalloc.h"

static void write_source(cg_jw *w, const cg_timeline *tl)
{
	const cg_source *s = &tl->source;
	cg_jw_key(w, "source");
	cg_jw_object(w);
	cg_jw_kv_string(w, "path", s->path ? s->path : "");
	cg_jw_kv_string(w, "format", s->format ? s->format : "");
	cg_jw_kv_bool(w, "gzip", s->gzip);
	cg_jw_kv_u64(w, "file_bytes", s->file_bytes);
	cg_jw_kv_u64(w, "data_bytes", s->data_bytes);
	cg_jw_kv_u64(w, "lines", s->lines);
	/* What "lines", every "line" and "truncated_at_line" count. */
	cg_jw_kv_string(w, "positions", s->lines_are_events ? "events" : "lines");
	cg_jw_key(w, "time_origin");
	if (s->time_origin)
		cg_jw_string(w, s->time_origin);
	else
		cg_jw_null(w);
	cg_jw_key(w, "time_origin_unix_ns");
	if (s->time_origin_known)
		cg_jw_i64(w, s->time_origin_unix_ns);
	else
		cg_jw_null(w);
	cg_jw_key(w, "records");
	cg_jw_object(w);
	for (int k = 0; k < CG_KIND_COUNT; k++)
		cg_jw_kv_u64(w, cg_kind_name((cg_kind)k), s->records[k]);
	cg_jw_end(w);
	cg_jw_kv_u64(w, "blank_lines", s->blank_lines);
	cg_jw_kv_u64(w, "bad_lines", s->bad_lines);
	cg_jw_kv_u64(w, "unknown_kinds", s->unknown_kinds);
	cg_jw_kv_u64(w, "unknown_categories", s->unknown_categories);
	cg_jw_kv_u64(w, "unknown_values", s->unknown_values);
	cg_jw_kv_u64(w, "warnings", s->warnings);
	cg_jw_kv_bool(w, "truncated", s->truncated);
	cg_jw_key(w, "truncated_at_line");
	if (s->truncated)
		cg_jw_u64(w, s->truncated_line);
	else
		cg_jw_null(w);
	cg_jw_key(w, "truncation_note");
	if (s->truncation_note)
		cg_jw_string(w, s->truncation_note);
	else
		cg_jw_null(w);
	cg_jw_kv_bool(w, "categories_known", s->categories_known);
	cg_jw_kv_bool(w, "categories_inferred", s->categories_inferred);
	cg_jw_kv_bool(w, "pairing_known", s->pairing_known);
	cg_jw_key(w, "diagnostics");
	cg_jw_array(w);
	for (size_t i = 0; i < s->ndiags; i++) {
		cg_jw_object(w);
		cg_jw_kv_u64(w, "line", s->diags[i].line);
		cg_jw_kv_string(w, "kind", s->diags[i].kind == CG_DIAG_WARNING ? "warning" : "bad_line");
		cg_jw_kv_string(w, "message", s->diags[i].msg);
		cg_jw_end(w);
	}
	cg_jw_end(w);
	cg_jw_end(w);
}

static void write_run(cg_jw *w, const cg_timeline *tl)
{
	cg_jw_key(w, "run");
	cg_jw_object(w);
	cg_jw_key(w, "schema");
	if (tl->source.meta_seen)
		cg_jw_string(w, cg_timeline_str(tl, tl->source.schema));
	else
		cg_jw_null(w);
	cg_jw_key(w, "meta");
	cg_jw_object(w);
	for (size_t i = 0; i < tl->nmeta; i++) {
		const cg_meta_entry *m = &tl->meta[i];
		cg_jw_key(w, cg_timeline_str(tl, m->key));
		const char *v = cg_timeline_str(tl, m->value);
		if (m->is_string)
			cg_jw_string_n(w, v, cg_strtab_len(tl->strings, m->value));
		else
			cg_jw_raw(w, v, strlen(v));
	}
	cg_jw_end(w);
	cg_jw_key(w, "rank");
	if (tl->source.has_rank)
		cg_jw_i64(w, tl->source.rank);
	else
		cg_jw_null(w);
	cg_jw_key(w, "world_size");
	if (tl->source.has_world_size)
		cg_jw_i64(w, tl->source.world_size);
	else
		cg_jw_null(w);
	cg_jw_end(w);
}

static void write_anomalies(cg_jw *w, const cg_timeline *tl)
{
	cg_jw_key(w, "anomalies");
	cg_jw_object(w);
	for (int a = 0; a < CG_ANOM_COUNT; a++) {
		const cg_anomaly_stats *s = &tl->anomalies[a];
		cg_jw_key(w, cg_anomaly_name((cg_anomaly)a));
		cg_jw_object(w);
		cg_jw_kv_u64(w, "count", s->count);
		cg_jw_key(w, "examples");
		cg_jw_array(w);
		for (uint32_t i = 0; i < s->nexamples; i++)
			cg_jw_string(w, s->examples[i]);
		cg_jw_end(w);
		cg_jw_end(w);
	}
	cg_jw_end(w);
}

static void write_steps(cg_jw *w, const cg_analysis *a)
{
	const cg_timeline *tl = a->tl;
	const cg_steps_result *st = a->steps;
	cg_jw_key(w, "steps");
	cg_jw_object(w);
	cg_jw_kv_bool(w, "detected", st->nsteps > 0);
	cg_jw_key(w, "label");
	if (st->label)
		cg_jw_string(w, st->label);
	else
		cg_jw_null(w);
	cg_jw_kv_u64(w, "count", st->nsteps);
	cg_jw_key(w, "list");
	cg_jw_array(w);
	for (uint32_t k = 0; k < st->nsteps; k++) {
		const cg_span *sp = &tl->spans[st->steps[k].span];
		cg_jw_object(w);
		cg_jw_kv_u64(w, "index", k);
		cg_jw_key(w, "name");
		cg_jw_string_n(w, cg_timeline_str(tl, sp->name), cg_strtab_len(tl->strings, sp->name));
		cg_jw_key(w, "span_id");
		char idbuf[CG_SPAN_ID_BUF];
		size_t idlen;
		const char *id = cg_timeline_span_id(tl, st->steps[k].span, idbuf, &idlen);
		cg_jw_string_n(w, id, idlen);
		cg_jw_kv_u64(w, "start_ns", st->steps[k].start_ns);
		cg_jw_kv_u64(w, "end_ns", st->steps[k].end_ns);
		cg_jw_kv_bool(w, "ended", (sp->flags & CG_SPAN_ENDED) != 0);
		cg_jw_end(w);
	}
	cg_jw_end(w);
	cg_jw_end(w);
}

static void write_gradients(cg_jw *w, const cg_analysis *a)
{
	const cg_timeline *tl = a->tl;
	const cg_gradients_result *g = a->gradients;
	cg_jw_key(w, "gradients");
	cg_jw_object(w);
	cg_jw_kv_u64(w, "records", g->records);
	cg_jw_kv_u64(w, "parameters", g->parameters);
	cg_jw_key(w, "by_state");
	cg_jw_object(w);
	for (int k = 0; k < CG_GRAD_STATE_COUNT; k++)
		cg_jw_kv_u64(w, cg_grad_state_name((cg_grad_state)k), g->by_state[k]);
	cg_jw_end(w);
	cg_jw_kv_u64(w, "non_finite_norms", g->non_finite_norms);
	cg_jw_key(w, "problems");
	cg_jw_array(w);
	for (size_t i = 0; i < g->nproblems; i++) {
		const cg_gradient_problem *p = &g->problems[i];
		cg_jw_object(w);
		cg_jw_key(w, "root");
		cg_jw_string_n(w, cg_timeline_str(tl, p->root), cg_strtab_len(tl->strings, p->root));
		cg_jw_key(w, "key");
		cg_jw_string_n(w, cg_timeline_str(tl, p->key), cg_strtab_len(tl->strings, p->key));
		cg_jw_kv_u64(w, "missing", p->missing);
		cg_jw_kv_u64(w, "non_finite", p->non_finite);
		cg_jw_kv_u64(w, "records", p->records);
		cg_jw_kv_u64(w, "first_line", p->first_line);
		cg_jw_end(w);
	}
	cg_jw_end(w);
	cg_jw_end(w);
}

static void write_devices(cg_jw *w, const cg_analysis *a)
{
	const cg_timeline *tl = a->tl;
	/* the order reports show the devices in: indexes into "devices" */
	uint32_t *order = cg_device_order(tl);
	cg_jw_key(w, "device_order");
	cg_jw_array(w);
	for (uint32_t k = 0; k < tl->ndevices; k++)
		cg_jw_u64(w, order[k]);
	cg_jw_end(w);
	cg_free(order);
	cg_jw_key(w, "devices");
	cg_jw_array(w);
	for (uint32_t d = 0; d < tl->ndevices; d++) {
		const cg_device *dev = &tl->devices[d];
		const cg_peak_device *p = &a->peak->devices[d];
		cg_jw_object(w);
		cg_jw_kv_string(w, "name", cg_timeline_str(tl, dev->name));
		cg_jw_kv_u64(w, "memory_records", dev->mem_count);
		cg_jw_kv_u64(w, "allocations", p->allocations);
		cg_jw_kv_u64(w, "frees", p->frees);
		cg_jw_kv_u64(w, "bytes_allocated", p->bytes_allocated);
		cg_jw_kv_u64(w, "before_trace_bytes", dev->preexisting_bytes);
		cg_jw_kv_u64(w, "before_trace_allocations", dev->preexisting_count);
		cg_jw_kv_u64(w, "baseline_bytes", dev->baseline_bytes);
		cg_jw_key(w, "capacity_bytes");
		if (dev->has_capacity)
			cg_jw_u64(w, dev->capacity_bytes);
		else
			cg_jw_null(w);
		cg_jw_key(w, "peak");
		cg_jw_object(w);
		cg_jw_kv_u64(w, "bytes", p->peak_bytes);
		cg_jw_kv_u64(w, "time_ns", p->peak_t_ns);
		cg_jw_key(w, "line");
		if (p->peak_index != CG_NONE)
			cg_jw_u64(w, tl->mem[p->peak_index].line);
		else
			cg_jw_null(w);
		cg_jw_key(w, "record_index");
		if (p->peak_index != CG_NONE)
			cg_jw_u64(w, p->peak_index - dev->mem_first);
		else
			cg_jw_null(w);
		cg_jw_kv_u64(w, "reached_times", p->reached_times);
		cg_jw_kv_u64(w, "live_allocations", p->live_at_peak);
		cg_jw_key(w, "allocation");
		if (p->peak_index != CG_NONE)
			cg_summary_json_alloc(w, tl, p->peak_index, tl->mem[p->peak_index].pair,
					      tl->mem[p->peak_index].bytes);
		else
			cg_jw_null(w);
		cg_jw_end(w);
		cg_jw_kv_u64(w, "live_bytes_at_end", p->live_at_end);
		cg_jw_kv_u64(w, "live_allocations_at_end", p->live_count_at_end);
		cg_jw_key(w, "first_record_ns");
		if (dev->mem_count)
			cg_jw_u64(w, p->first_t_ns);
		else
			cg_jw_null(w);
		cg_jw_key(w, "last_record_ns");
		if (dev->mem_count)
			cg_jw_u64(w, p->last_t_ns);
		else
			cg_jw_null(w);
		cg_summary_json_device_sections(w, a, d);
		cg_summary_json_allocator_state(w, a, d);
		cg_jw_end(w);
	}
	cg_jw_end(w);
}

void cg_summary_json_write(cg_sink *out, const cg_analysis *a, bool pretty)
{
	cg_jw w;
	cg_jw_init(&w, out, pretty);
	cg_jw_object(&w);
	cg_jw_kv_string(&w, "schema", "cgmem/summary/1");
	cg_jw_kv_string(&w, "cgmem_version", CGMEM_VERSION);
	write_source(&w, a->tl);
	write_run(&w, a->tl);
	cg_summary_json_snapshot(&w, a->tl);
	cg_jw_key(&w, "options");
	cg_jw_object(&w);
	cg_jw_kv_u64(&w, "top", a->options.top_n);
	cg_jw_end(&w);
	write_anomalies(&w, a->tl);
	write_steps(&w, a);
	write_gradients(&w, a);
	write_devices(&w, a);
	cg_jw_end(&w);
}

int cg_summary_json_save(const char *path, const cg_analysis *a, cg_error *err)
{
	cg_sink *s;
	int rc = cg_sink_open(&s, path, 0, err);
	if (rc < 0)
		return rc;
	cg_summary_json_write(s, a, true);
	return cg_sink_close(s, err);
}
