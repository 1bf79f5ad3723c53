#include "memtimeline_raw.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "chrome_stream.h"
#include "diag.h"
#include "finalize.h"
#include "jsontext.h"
#include "xalloc.h"

/* torch/profiler/_memory_profiler.py: Action and Category. */
enum { ACT_PREEXISTING = 1, ACT_CREATE, ACT_INCREMENT_VERSION, ACT_DESTROY };

#define DEVICE "cuda:0"

typedef struct rec {
	int64_t t;
	int64_t bytes;
	uint32_t ordinal;
	uint8_t action;
	uint8_t category;
} rec;

typedef struct raw {
	cg_timeline *tl;
	const cg_ingest_options *o;
	const char *name;
	rec *recs;
	size_t n, cap;
	uint64_t zero_bytes;
} raw;

static int bad(raw *x, uint64_t ordinal, const char *msg, cg_error *err)
{
	if (x->o->strict)
		return cg_error_set(err, CG_EINPUT, "%s: record %" PRIu64 ": %s", x->name, ordinal, msg);
	cg_diag_add(x->tl, CG_DIAG_BAD_LINE, ordinal, "%s", msg);
	return 0;
}

static int one_record(raw *x, const cg_chrome_event *ev, cg_error *err)
{
	if (ev->ordinal >= UINT32_MAX)
		return cg_error_set(err, CG_ELIMIT, "%s: more than %u records", x->name, UINT32_MAX - 1);
	if (ev->overlong)
		return bad(x, ev->ordinal, "record longer than the limit (--max-line-bytes)", err);
	/* cJSON checks the syntax; the numbers are read from their text, as
	 * nanosecond timestamps do not fit a double. */
	cJSON *j = cJSON_ParseWithLength(ev->data, ev->len);
	bool shape = cJSON_IsArray(j) && cJSON_GetArraySize(j) == 4;
	for (const cJSON *c = j ? j->child : NULL; c && shape; c = c->next)
		shape = cJSON_IsNumber(c);
	cJSON_Delete(j);
	if (!shape)
		return bad(x, ev->ordinal, "not an array of 4 numbers [timestamp, action, bytes, category]", err);
	cg_json_span v[4];
	cg_json_children(ev->data, ev->data + ev->len, CG_JSON_WS_JSON, v, 4);
	int64_t t, action, bytes, category;
	if (cg_json_int(v[0].p, v[0].n, &t) < 0 || cg_json_int(v[1].p, v[1].n, &action) < 0 ||
	    cg_json_int(v[2].p, v[2].n, &bytes) < 0 || cg_json_int(v[3].p, v[3].n, &category) < 0)
		return bad(x, ev->ordinal, "a field is not a 64-bit integer", err);
	if (action < ACT_PREEXISTING || action > ACT_DESTROY)
		return bad(x, ev->ordinal, "action is not 1 (pre-existing), 2 (create), 3 (increment version) or 4 (destroy)", err);
	if (action != ACT_PREEXISTING && t < 0)
		return bad(x, ev->ordinal, "negative timestamp on a record that is not pre-existing", err);
	if (bytes == INT64_MIN)
		return bad(x, ev->ordinal, "bytes out of range", err);
	if (bytes == 0) {
		x->zero_bytes++;
		return 0;
	}
	if (category < 0 || category > CG_CAT_UNKNOWN) {
		x->tl->source.unknown_categories++;
		category = CG_CAT_UNKNOWN;
	}
	if (cg_timeline_records_fit(x->tl, x->n + 1) < 0) {
		char why[256];
		return cg_error_set(err, CG_ELIMIT, "%s: record %" PRIu64 ": %s", x->name, ev->ordinal,
				    cg_timeline_limit_text(x->tl, why, sizeof why));
	}
	CG_GROW(x->recs, x->cap, x->n + 1);
	x->recs[x->n++] = (rec){t, bytes, (uint32_t)ev->ordinal, (uint8_t)action, (uint8_t)category};
	return 0;
}

static int add(raw *x, const rec *r, uint64_t t_ns, uint16_t device)
{
	cg_mem_in m = {0};
	m.t_ns = t_ns;
	m.bytes = r->bytes < 0 ? (uint64_t)-r->bytes : (uint64_t)r->bytes;
	m.span = CG_STR_EMPTY;
	m.pair = CG_NONE;
	m.line = r->ordinal;
	m.device = device;
	m.action = (uint8_t)(r->bytes < 0 ? CG_FREE : CG_ALLOC);
	m.category = r->category;
	return cg_timeline_add_mem(x->tl, &m);
}

static int meta(cg_timeline *tl, const char *key, const char *value)
{
	cg_str k, v;
	int rc = cg_timeline_intern(tl, key, strlen(key), &k);
	if (rc == 0)
		rc = cg_timeline_intern(tl, value, strlen(value), &v);
	return rc < 0 ? rc : cg_timeline_add_meta(tl, k, v, true);
}

/* Pre-existing records first, at time 0; then the rest in file order. */
static int build(raw *x)
{
	cg_timeline *tl = x->tl;
	int64_t origin = INT64_MAX;
	for (size_t i = 0; i < x->n; i++)
		if (x->recs[i].action != ACT_PREEXISTING && x->recs[i].t < origin)
			origin = x->recs[i].t;
	if (origin == INT64_MAX)
		origin = 0;
	uint16_t device;
	int rc = cg_timeline_device(tl, DEVICE, strlen(DEVICE), &device);
	for (size_t i = 0; i < x->n && rc == 0; i++)
		if (x->recs[i].action == ACT_PREEXISTING)
			rc = add(x, &x->recs[i], 0, device);
	for (size_t i = 0; i < x->n && rc == 0; i++)
		if (x->recs[i].action != ACT_PREEXISTING)
			rc = add(x, &x->recs[i], (uint64_t)(x->recs[i].t - origin), device);
	if (rc == 0)
		rc = meta(tl, "device_note", "the raw memory timeline does not record its device: "
					     DEVICE " assumed (export_memory_timeline's default)");
	if (rc < 0)
		return rc;
	cg_source *src = &tl->source;
	src->records[CG_KIND_MEMORY] = x->n;
	if (x->n > 0 && origin != 0) {
		char text[48];
		snprintf(text, sizeof text, "%" PRId64 " ns", origin);
		src->time_origin = cg_strdup(text);
		if (origin >= INT64_C(1000000000000000000)) { /* after September 2001: epoch ns */
			src->time_origin_known = true;
			src->time_origin_unix_ns = origin;
		}
	}
	return 0;
}

static void describe(raw *x, const cg_chrome_stream *s, cg_reader *r, const char *path)
{
	cg_source *src = &x->tl->source;
	src->path = cg_strdup(path);
	src->display_name = cg_strdup(x->name);
	src->format = cg_strdup("PyTorch memory timeline (export_memory_timeline raw)");
	src->gzip = cg_reader_is_gzip(r);
	src->file_bytes = cg_reader_bytes_in(r);
	src->data_bytes = cg_reader_bytes_out(r);
	src->lines = cg_chrome_stream_nevents(s);
	src->lines_are_events = true;
	src->pairing_known = false;
	char note[256];
	if (cg_chrome_stream_cut_note(s, cg_reader_gzip_truncated(r), note, sizeof note)) {
		src->truncated = true;
		src->truncated_line = cg_chrome_stream_nevents(s) + 1;
		src->truncation_note = cg_strdup(note);
	}
}

int cg_memtimeline_ingest(cg_timeline **out, cg_reader *r, const char *path, const cg_ingest_options *o,
			  cg_error *err)
{
	cg_ingest_options defaults = CG_INGEST_OPTIONS_INIT;
	if (!o)
		o = &defaults;
	*out = NULL;
	raw x = {cg_ingest_timeline_new(o), o, cg_reader_name(r), NULL, 0, 0, 0};
	cg_chrome_options co = CG_CHROME_OPTIONS_INIT;
	co.max_event_bytes = o->max_line_bytes;
	cg_chrome_stream *s = cg_chrome_stream_new(r, &co);
	cg_chrome_event ev;
	int rc;
	while ((rc = cg_chrome_stream_next(s, &ev, err)) > 0)
		if ((rc = one_record(&x, &ev, err)) < 0)
			break;
	if (rc == 0) {
		describe(&x, s, r, path);
		if (x.zero_bytes)
			cg_diag_add(x.tl, CG_DIAG_WARNING, 0, "%" PRIu64 " records of 0 bytes were skipped", x.zero_bytes);
		if (x.tl->source.unknown_categories)
			cg_diag_add(x.tl, CG_DIAG_WARNING, 0, "%" PRIu64 " records with a category outside 0-7 "
				    "were counted as unknown", x.tl->source.unknown_categories);
		if (x.n == 0)
			rc = cg_error_set(err, CG_EINPUT, "%s: no memory records in this memory timeline%s", x.name,
					  x.tl->source.truncated ? " (the file is cut short)" : "");
	}
	if (rc == 0 && (rc = build(&x)) < 0) {
		char why[256];
		cg_error_set(err, rc, "%s: %s", x.name, cg_timeline_limit_text(x.tl, why, sizeof why));
	}
	if (rc == 0)
		rc = cg_timeline_finalize(x.tl, err);
	cg_chrome_stream_free(s);
	cg_free(x.recs);
	if (rc < 0) {
		cg_timeline_free(x.tl);
		return rc;
	}
	*out = x.tl;
	return 0;
}
