#include "diff_json.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "jsonw.h"
#include "summary_device.h"

static const char *const side_names[2] = {"base", "new"};

static void kv_null(cg_jw *w, const char *key)
{
	cg_jw_key(w, key);
	cg_jw_null(w);
}

/* The change new - base, exact at any size: JSON numbers are text. */
static void write_delta(cg_jw *w, cg_diff_pair p)
{
	bool grew;
	uint64_t m = cg_diff_magnitude(p, &grew);
	if (grew || m == 0) {
		cg_jw_u64(w, m);
		return;
	}
	char buf[32];
	int n = snprintf(buf, sizeof buf, "-%" PRIu64, m);
	cg_jw_raw(w, buf, (size_t)n);
}

/* {"base": b, "new": n, "change": n - b, "change_percent": ...}; a side
 * the device is absent from is null, and so is the change. */
static void write_change(cg_jw *w, const char *key, cg_diff_pair p, const bool known[2])
{
	cg_jw_key(w, key);
	cg_jw_object(w);
	for (int s = 0; s < 2; s++) {
		cg_jw_key(w, side_names[s]);
		if (known[s])
			cg_jw_u64(w, p.v[s]);
		else
			cg_jw_null(w);
	}
	cg_jw_key(w, "change");
	if (known[0] && known[1])
		write_delta(w, p);
	else
		cg_jw_null(w);
	double pct;
	cg_jw_key(w, "change_percent");
	if (known[0] && known[1] && cg_diff_percent(p, &pct))
		cg_jw_double(w, pct);
	else
		cg_jw_null(w);
	cg_jw_end(w);
}

static void write_counts(cg_jw *w, const char *key, cg_diff_pair p)
{
	cg_jw_key(w, key);
	cg_jw_object(w);
	cg_jw_kv_u64(w, "base", p.v[0]);
	cg_jw_kv_u64(w, "new", p.v[1]);
	cg_jw_end(w);
}

static const char *meta_string(const cg_timeline *tl, const char *key)
{
	for (size_t i = 0; i < tl->nmeta; i++)
		if (tl->meta[i].is_string && strcmp(cg_timeline_str(tl, tl->meta[i].key), key) == 0)
			return cg_timeline_str(tl, tl->meta[i].value);
	return NULL;
}

static void write_run(cg_jw *w, const char *key, const cg_analysis *a)
{
	const cg_timeline *tl = a->tl;
	const cg_source *s = &tl->source;
	cg_jw_key(w, key);
	cg_jw_object(w);
	cg_jw_kv_string(w, "path", s->path ? s->path : "");
	cg_jw_kv_string(w, "format", s->format ? s->format : "");
	cg_jw_kv_bool(w, "gzip", s->gzip);
	const char *run_id = meta_string(tl, "run_id");
	cg_jw_key(w, "run_id");
	if (run_id)
		cg_jw_string(w, run_id);
	else
		cg_jw_null(w);
	cg_jw_kv_u64(w, "duration_ns", tl->last_t_ns);
	cg_jw_kv_u64(w, "steps", a->steps->nsteps);
	cg_jw_key(w, "steps_label");
	if (a->steps->label)
		cg_jw_string(w, a->steps->label);
	else
		cg_jw_null(w);
	cg_jw_kv_bool(w, "truncated", s->truncated);
	cg_jw_key(w, "truncation_note");
	if (s->truncation_note)
		cg_jw_string(w, s->truncation_note);
	else
		cg_jw_null(w);
	cg_jw_kv_bool(w, "pairing_known", s->pairing_known);
	cg_jw_kv_bool(w, "categories_known", s->categories_known);
	cg_jw_kv_bool(w, "categories_inferred", s->categories_inferred);
	cg_jw_kv_u64(w, "bad_lines", s->bad_lines);
	cg_jw_end(w);
}

static void write_alignment(cg_jw *w, const cg_alignment *al)
{
	cg_jw_key(w, "alignment");
	if (!al) {
		cg_jw_null(w);
		return;
	}
	cg_jw_object(w);
	cg_jw_kv_string(w, "mode", cg_align_mode_name(al->mode));
	write_counts(w, "phase_windows", (cg_diff_pair){{al->nwindows[0], al->nwindows[1]}});
	cg_jw_kv_u64(w, "matched_steps", al->steps_matched);
	cg_jw_kv_u64(w, "matched_windows", al->matched);
	cg_jw_end(w);
}

static void write_span_paths(cg_jw *w, const cg_diff_view *v, const cg_diff_device *dev)
{
	cg_jw_kv_u64(w, "span_paths_changed", dev->nchanged);
	cg_jw_key(w, "span_paths");
	cg_jw_array(w);
	const bool both[2] = {true, true};
	char path[CG_SPAN_PATH_MAX];
	for (uint32_t k = 0; k < dev->nchanged && k < v->top; k++) {
		const cg_diff_node *n = &dev->nodes[dev->changed[k]];
		cg_jw_object(w);
		cg_jw_kv_string(w, "path", cg_diff_path(v->diff, n->path, path, sizeof path));
		write_change(w, "own_bytes", n->own, both);
		write_change(w, "total_bytes", n->total, both);
		write_counts(w, "own_count", n->own_count);
		write_counts(w, "total_count", n->total_count);
		cg_jw_end(w);
	}
	cg_jw_end(w);
}

static void write_group(cg_jw *w, const cg_diff_view *v, const cg_diff_alloc_group *g)
{
	const cg_timeline *tl = v->run[g->side]->tl;
	const cg_mem *m = &tl->mem[g->example];
	bool before = v->diff->path_kind[g->path] == CG_PATHNODE_BEFORE_TRACE;
	char path[CG_SPAN_PATH_MAX];
	cg_jw_object(w);
	cg_jw_kv_string(w, "peak", side_names[g->side]);
	cg_jw_kv_string(w, "path", cg_diff_path(v->diff, g->path, path, sizeof path));
	cg_jw_key(w, "op");
	if (cg_timeline_mem_op(tl, m) == CG_STR_EMPTY)
		cg_jw_null(w);
	else
		cg_jw_string_n(w, cg_timeline_str(tl, cg_timeline_mem_op(tl, m)), cg_strtab_len(tl->strings, cg_timeline_mem_op(tl, m)));
	cg_jw_key(w, "shape");
	cg_jw_array(w);
	for (size_t i = 0; i < cg_timeline_shape_ndims(tl, cg_timeline_mem_shape(tl, m)); i++)
		cg_jw_u64(w, cg_timeline_shape_dim(tl, cg_timeline_mem_shape(tl, m), i));
	cg_jw_end(w);
	cg_jw_kv_u64(w, "size", g->size);
	cg_jw_kv_u64(w, "count", g->count);
	cg_jw_kv_u64(w, "bytes", g->bytes);
	write_counts(w, "live", g->live);
	cg_jw_key(w, "example");
	if (before)
		cg_summary_json_alloc(w, tl, CG_NONE, g->example, g->size);
	else
		cg_summary_json_alloc(w, tl, g->example, m->pair, g->size);
	cg_jw_end(w);
}

static void write_allocations(cg_jw *w, const cg_diff_view *v, const cg_diff_device *dev)
{
	cg_jw_key(w, "allocations_at_one_peak");
	cg_jw_object(w);
	for (int s = 0; s < 2; s++) {
		cg_jw_key(w, side_names[s]);
		cg_jw_object(w);
		cg_jw_kv_u64(w, "count", dev->only_count.v[s]);
		cg_jw_kv_u64(w, "bytes", dev->only_bytes.v[s]);
		cg_jw_end(w);
	}
	cg_jw_kv_u64(w, "groups_count", dev->ngroups);
	cg_jw_key(w, "groups");
	cg_jw_array(w);
	for (size_t k = 0; k < dev->ngroups && k < v->top; k++)
		write_group(w, v, &dev->groups[k]);
	cg_jw_end(w);
	cg_jw_end(w);
}

static void write_device(cg_jw *w, const cg_diff_view *v, const cg_diff_device *dev)
{
	const bool known[2] = {dev->index[0] != CG_NONE, dev->index[1] != CG_NONE};
	cg_jw_object(w);
	cg_jw_kv_string(w, "name", dev->name);
	cg_jw_kv_bool(w, "in_base", known[0]);
	cg_jw_kv_bool(w, "in_new", known[1]);
	write_change(w, "peak_bytes", dev->peak, known);
	cg_jw_key(w, "peak_time_ns");
	cg_jw_object(w);
	for (int s = 0; s < 2; s++) {
		cg_jw_key(w, side_names[s]);
		if (known[s])
			cg_jw_u64(w, dev->peak_t_ns.v[s]);
		else
			cg_jw_null(w);
	}
	cg_jw_end(w);
	write_change(w, "live_at_end_bytes", dev->live_at_end, known);
	write_change(w, "leaked_at_end_bytes", dev->leaked_at_end, known);

	cg_jw_key(w, "at_peak");
	cg_jw_object(w);
	cg_jw_key(w, "by_category");
	cg_jw_object(w);
	for (int c = 0; c < CG_CAT_COUNT; c++)
		write_change(w, cg_category_name((cg_category)c), dev->by_category[c], known);
	cg_jw_end(w);
	cg_jw_kv_bool(w, "listed", dev->listed);
	if (dev->listed) {
		const bool both[2] = {true, true};
		cg_jw_key(w, "by_phase");
		cg_jw_object(w);
		for (int p = 0; p < CG_PHASE_COUNT; p++)
			write_change(w, cg_phase_name((cg_phase)p), dev->by_phase[p], both);
		cg_jw_end(w);
		write_span_paths(w, v, dev);
		write_allocations(w, v, dev);
	} else {
		kv_null(w, "by_phase");
		kv_null(w, "span_paths_changed");
		kv_null(w, "span_paths");
		kv_null(w, "allocations_at_one_peak");
	}
	cg_jw_end(w);
	cg_jw_end(w);
}

void cg_diff_json_write(cg_sink *out, const cg_diff_view *v, bool pretty)
{
	cg_jw w;
	cg_jw_init(&w, out, pretty);
	cg_jw_object(&w);
	cg_jw_kv_string(&w, "schema", "cgmem/diff/1");
	cg_jw_kv_string(&w, "cgmem_version", CGMEM_VERSION);
	cg_jw_key(&w, "options");
	cg_jw_object(&w);
	cg_jw_kv_u64(&w, "top", v->top);
	cg_jw_end(&w);
	cg_jw_key(&w, "runs");
	cg_jw_object(&w);
	write_run(&w, "base", v->run[0]);
	write_run(&w, "new", v->run[1]);
	cg_jw_end(&w);
	write_alignment(&w, v->align);
	cg_jw_key(&w, "devices");
	cg_jw_array(&w);
	for (size_t i = 0; i < v->diff->ndevices; i++)
		write_device(&w, v, &v->diff->devices[i]);
	cg_jw_end(&w);
	cg_jw_end(&w);
	if (pretty)
		cg_sink_putc(out, '\n');
}

int cg_diff_json_save(const char *path, const cg_diff_view *v, cg_error *err)
{
	cg_sink *s;
	int rc = cg_sink_open(&s, path, 0, err);
	if (rc < 0)
		return rc;
	cg_diff_json_write(s, v, true);
	return cg_sink_close(s, err);
}
