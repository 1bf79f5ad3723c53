#include "ranks_json.h"

#include "jsonw.h"

static void kv_i64(cg_jw *w, const char *key, int64_t v)
{
	cg_jw_key(w, key);
	cg_jw_i64(w, v);
}

static void kv_i64_or_null(cg_jw *w, const char *key, bool has, int64_t v)
{
	cg_jw_key(w, key);
	if (has)
		cg_jw_i64(w, v);
	else
		cg_jw_null(w);
}

static void kv_str_or_null(cg_jw *w, const char *key, const char *s)
{
	cg_jw_key(w, key);
	if (s)
		cg_jw_string(w, s);
	else
		cg_jw_null(w);
}

static void device(cg_jw *w, const cg_rank_device *d)
{
	cg_jw_object(w);
	cg_jw_kv_string(w, "name", d->name);
	kv_i64(w, "peak_bytes", d->peak_bytes);
	kv_i64_or_null(w, "peak_time_ns", d->has_peak_time, d->peak_time_ns);
	kv_str_or_null(w, "step", d->step);
	kv_str_or_null(w, "phase", d->phase);
	kv_i64_or_null(w, "capacity_bytes", d->has_capacity, d->capacity_bytes);
	kv_i64_or_null(w, "headroom_bytes", d->has_capacity, d->capacity_bytes - d->peak_bytes);
	cg_jw_kv_bool(w, "oom", d->oom);
	cg_jw_key(w, "peak_by_phase");
	cg_jw_object(w);
	for (int p = 0; p < CG_PHASE_COUNT; p++)
		kv_i64_or_null(w, cg_phase_name((cg_phase)p), d->has_phase[p], d->phase_peak[p]);
	cg_jw_end(w);
	cg_jw_key(w, "at_peak_by_category");
	cg_jw_object(w);
	for (int c = 0; c < CG_CAT_COUNT; c++)
		kv_i64(w, cg_category_name((cg_category)c), d->at_peak[c]);
	cg_jw_end(w);
	cg_jw_key(w, "live_series");
	if (d->nseries) {
		cg_jw_object(w);
		kv_i64(w, "end_ns", d->series_end_ns);
		cg_jw_key(w, "max_bytes");
		cg_jw_array(w);
		for (size_t k = 0; k < d->nseries; k++)
			cg_jw_i64(w, d->series[k]);
		cg_jw_end(w);
		cg_jw_end(w);
	} else {
		cg_jw_null(w);
	}
	cg_jw_end(w);
}

static void row(cg_jw *w, const cg_rank *r)
{
	cg_jw_object(w);
	kv_i64(w, "rank", r->rank);
	cg_jw_kv_string(w, "rank_from", cg_rank_from_key(r->from));
	kv_i64_or_null(w, "world_size", r->has_world_size, r->world_size);
	cg_jw_kv_string(w, "file", r->file);
	kv_str_or_null(w, "format", r->format);
	cg_jw_kv_string(w, "stop", cg_rank_stop_key(r->stop));
	kv_i64(w, "stop_ns", r->stop_ns);
	kv_i64_or_null(w, "stop_unix_ns", r->has_wall, r->stop_unix_ns);
	cg_jw_key(w, "devices");
	cg_jw_array(w);
	for (size_t d = 0; d < r->ndevices; d++)
		device(w, &r->devices[d]);
	cg_jw_end(w);
	cg_jw_end(w);
}

/* A row reference as {"rank": N, "device": NAME}. */
static void ref(cg_jw *w, const char *key, const cg_rankset *s, cg_rank_ref at)
{
	cg_jw_key(w, key);
	cg_jw_object(w);
	kv_i64(w, "rank", s->ranks[at.rank].rank);
	cg_jw_kv_string(w, "device", s->ranks[at.rank].devices[at.device].name);
	cg_jw_end(w);
}

static void spread(cg_jw *w, const char *key, const cg_rankset *s, const cg_ranks_spread *p)
{
	cg_jw_key(w, key);
	if (p->count == 0) {
		cg_jw_null(w);
		return;
	}
	cg_jw_object(w);
	cg_jw_kv_u64(w, "rows", p->count);
	kv_i64(w, "max_bytes", p->max_bytes);
	ref(w, "max_at", s, p->max_at);
	kv_i64(w, "min_bytes", p->min_bytes);
	ref(w, "min_at", s, p->min_at);
	kv_i64(w, "median_bytes", p->median_bytes);
	kv_i64(w, "max_minus_min_bytes", p->max_bytes - p->min_bytes);
	cg_jw_key(w, "max_over_median");
	if (p->median_bytes > 0)
		cg_jw_double(w, p->max_over_median);
	else
		cg_jw_null(w);
	cg_jw_end(w);
}

static void i64_list(cg_jw *w, const char *key, const int64_t *v, size_t n)
{
	cg_jw_key(w, key);
	cg_jw_array(w);
	for (size_t i = 0; i < n; i++)
		cg_jw_i64(w, v[i]);
	cg_jw_end(w);
}

static void figures(cg_jw *w, const cg_rankset *s, const cg_ranks_result *f)
{
	kv_i64_or_null(w, "world_size", f->world_known, f->world_size);
	cg_jw_kv_bool(w, "world_sizes_disagree", f->world_disagrees);
	i64_list(w, "missing", f->missing, f->nmissing);
	i64_list(w, "beyond_world_size", f->beyond, f->nbeyond);
	spread(w, "peak", s, &f->peak);
	cg_jw_key(w, "peak_by_phase");
	cg_jw_object(w);
	for (int p = 0; p < CG_PHASE_COUNT; p++)
		spread(w, cg_phase_name((cg_phase)p), s, &f->phase[p]);
	cg_jw_end(w);
	cg_jw_key(w, "first_to_stop");
	if (f->has_first_stop) {
		const cg_rank *r = &s->ranks[f->first_stop];
		cg_jw_object(w);
		kv_i64(w, "rank", r->rank);
		cg_jw_kv_string(w, "stop", cg_rank_stop_key(r->stop));
		kv_i64(w, "stop_unix_ns", r->stop_unix_ns);
		cg_jw_kv_u64(w, "ranks_with_wall_clock", f->nwall);
		cg_jw_end(w);
	} else {
		cg_jw_null(w);
	}
	cg_jw_key(w, "outliers");
	cg_jw_object(w);
	kv_i64(w, "median_absolute_deviation_bytes", f->mad_bytes);
	cg_jw_key(w, "list");
	cg_jw_array(w);
	for (size_t i = 0; i < f->noutliers; i++) {
		const cg_rank *r = &s->ranks[f->outliers[i].rank];
		cg_jw_object(w);
		kv_i64(w, "rank", r->rank);
		cg_jw_kv_string(w, "device", r->devices[f->outliers[i].device].name);
		kv_i64(w, "peak_bytes", r->devices[f->outliers[i].device].peak_bytes);
		cg_jw_end(w);
	}
	cg_jw_end(w);
	cg_jw_end(w);
}

void cg_ranks_json_write(cg_sink *out, const cg_rankset *s, const cg_ranks_result *f)
{
	cg_jw w;
	cg_jw_init(&w, out, true);
	cg_jw_object(&w);
	cg_jw_kv_string(&w, "schema", "cgmem/summary/1");
	cg_jw_kv_string(&w, "cgmem_version", CGMEM_VERSION);
	cg_jw_key(&w, "ranks");
	cg_jw_object(&w);
	cg_jw_kv_u64(&w, "count", s->n);
	cg_jw_kv_u64(&w, "device_rows", f->nrows);
	figures(&w, s, f);
	cg_jw_key(&w, "rows");
	cg_jw_array(&w);
	for (size_t i = 0; i < s->n; i++)
		row(&w, &s->ranks[i]);
	cg_jw_end(&w);
	cg_jw_end(&w);
	cg_jw_end(&w);
	cg_sink_putc(out, '\n');
}

int cg_ranks_json_save(const char *path, const cg_rankset *s, const cg_ranks_result *f, cg_error *err)
{
	cg_sink *out;
	int rc = cg_sink_open(&out, path, 0, err);
	if (rc < 0)
		return rc;
	cg_ranks_json_write(out, s, f);
	return cg_sink_close(out, err);
}
