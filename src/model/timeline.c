#include "timeline.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "checked.h"
#include "snapshot.h"
#include "units.h"
#include "utf8.h"
#include "xalloc.h"

static const char *const anomaly_names[CG_ANOM_COUNT] = {
	"free_before_trace", "alloc_of_live_id", "double_free", "bytes_mismatch",
	"unknown_span", "duplicate_span", "span_end_without_start", "span_never_ended",
	"span_cycle",
};

static const char *const anomaly_descriptions[CG_ANOM_COUNT] = {
	"frees of tensors allocated before the trace began (counted live from the start)",
	"allocations of an id that was still live (the earlier allocation ends there)",
	"frees of an id already freed (ignored)",
	"frees whose bytes differ from their allocation's (the allocation's bytes are released)",
	"records naming a span that never started",
	"span ids started more than once (the first is kept)",
	"span ends without a matching start",
	"spans still open when the trace ends (they run to its end)",
	"span parent chains that loop (the loop is cut)",
};

const char *cg_anomaly_name(cg_anomaly a)
{
	return a < CG_ANOM_COUNT ? anomaly_names[a] : "?";
}

const char *cg_anomaly_description(cg_anomaly a)
{
	return a < CG_ANOM_COUNT ? anomaly_descriptions[a] : "?";
}

cg_timeline *cg_timeline_new(const cg_timeline_limits *limits)
{
	cg_timeline_limits lim = CG_TIMELINE_LIMITS_INIT;
	if (limits)
		lim = *limits;
	cg_timeline *tl = cg_calloc(1, sizeof *tl);
	tl->strings = cg_strtab_new(lim.max_string_bytes);
	tl->shapes = cg_strtab_new(lim.max_string_bytes);
	tl->drop_ops = lim.drop_ops;
	tl->last_device = CG_NONE;
	tl->last_site = CG_NONE;
	tl->first_t_ns = UINT64_MAX;
	tl->source.categories_known = true;
	tl->source.pairing_known = true;
	uint8_t unknown;
	cg_timeline_dtype(tl, "unknown", 7, &unknown);
	return tl;
}

void cg_timeline_set_max_records(cg_timeline *tl, uint64_t n)
{
	tl->max_records = n;
}

void cg_timeline_free(cg_timeline *tl)
{
	if (!tl)
		return;
	cg_strtab_free(tl->strings);
	cg_strtab_free(tl->shapes);
	cg_free(tl->mem);
	cg_free(tl->mem_rest);
	cg_free(tl->mem_sites);
	cg_free(tl->site_index);
	cg_free(tl->spans);
	cg_free(tl->ops);
	cg_free(tl->op_inputs);
	cg_free(tl->op_refs);
	cg_free(tl->tensors);
	cg_free(tl->devmem);
	cg_free(tl->gradients);
	cg_free(tl->edges);
	cg_free(tl->ooms);
	cg_free(tl->meta);
	cg_free(tl->devices);
	cg_free(tl->device_index);
	cg_free(tl->dtypes);
	cg_free(tl->replacements);
	cg_free(tl->span_ends);
	cg_free(tl->span_by_id);
	cg_free(tl->end_waits);
	cg_snapshot_free(tl->snapshot);
	for (int a = 0; a < CG_ANOM_COUNT; a++)
		for (uint32_t i = 0; i < tl->anomalies[a].nexamples; i++)
			cg_free(tl->anomalies[a].examples[i]);
	cg_free(tl->source.path);
	cg_free(tl->source.display_name);
	cg_free(tl->source.format);
	cg_free(tl->source.truncation_note);
	cg_free(tl->source.time_origin);
	for (size_t i = 0; i < tl->source.ndiags; i++)
		cg_free(tl->source.diags[i].msg);
	cg_free(tl->source.diags);
	cg_free(tl);
}

static int hit(cg_timeline *tl, cg_limit what)
{
	tl->limit_hit = what;
	return CG_ELIMIT;
}

char *cg_timeline_limit_text(const cg_timeline *tl, char *buf, size_t size)
{
	switch (tl->limit_hit) {
	case CG_LIMIT_STRINGS: {
		/* whole MiB as given on the command line; a smaller limit exactly */
		size_t limit = cg_strtab_limit(tl->strings);
		char text[32];
		if (limit % ((size_t)1 << 20) == 0)
			snprintf(text, sizeof text, "%zu MiB", limit >> 20);
		else
			cg_fmt_bytes(text, sizeof text, limit);
		snprintf(buf, size, "the trace's strings exceed the limit of %s (raise it with --max-string-memory)",
			 text);
		break;
	}
	case CG_LIMIT_DEVICES: snprintf(buf, size, "more than %u devices", UINT16_MAX); break;
	case CG_LIMIT_RECORDS:
		snprintf(buf, size, "more than %" PRIu64 " records (--max-records %" PRIu64 "): each takes about %u "
			 "bytes of memory; raise the limit if the machine has it", tl->max_records, tl->max_records,
			 CG_RECORD_COST);
		break;
	case CG_LIMIT_INDEX: snprintf(buf, size, "more than %u records of one kind", CG_NONE - 2); break;
	case CG_LIMIT_SITES:
		snprintf(buf, size, "more than %u distinct (op, shape, dtype, device) of memory records",
			 CG_MAX_MEM_SITES);
		break;
	default: snprintf(buf, size, "%s", ""); break;
	}
	return buf;
}

char *cg_timeline_where(const cg_timeline *tl, uint64_t line, char *buf, size_t size)
{
	const char *name = tl->source.display_name ? tl->source.display_name : "trace";
	if (tl->source.lines_are_events)
		snprintf(buf, size, "%s: event %" PRIu64, name, line);
	else
		snprintf(buf, size, "%s:%" PRIu64, name, line);
	return buf;
}

int cg_timeline_records_fit(cg_timeline *tl, uint64_t n)
{
	if (tl->max_records && (n > tl->max_records || tl->nrecords > tl->max_records - n))
		return hit(tl, CG_LIMIT_RECORDS);
	return 0;
}

int cg_timeline_intern(cg_timeline *tl, const char *s, size_t n, cg_str *out)
{
	int rc = cg_strtab_intern(tl->strings, s, n, out);
	return rc == CG_ELIMIT ? hit(tl, CG_LIMIT_STRINGS) : rc;
}

int cg_timeline_intern_shape(cg_timeline *tl, const uint64_t *dims, size_t ndims, uint32_t *out)
{
	size_t n;
	if (__builtin_mul_overflow(ndims, sizeof(uint64_t), &n))
		return hit(tl, CG_LIMIT_STRINGS);
	int rc = cg_strtab_intern(tl->shapes, (const char *)dims, n, out);
	return rc == CG_ELIMIT ? hit(tl, CG_LIMIT_STRINGS) : rc;
}

size_t cg_timeline_shape_ndims(const cg_timeline *tl, uint32_t shape)
{
	return cg_strtab_len(tl->shapes, shape) / sizeof(uint64_t);
}

uint64_t cg_timeline_shape_dim(const cg_timeline *tl, uint32_t shape, size_t i)
{
	uint64_t d = 0;
	if (i < cg_timeline_shape_ndims(tl, shape))
		memcpy(&d, cg_strtab_get(tl->shapes, shape) + i * sizeof d, sizeof d);
	return d;
}

char *cg_timeline_shape_format(const cg_timeline *tl, uint32_t shape, char *buf, size_t size)
{
	size_t nd = cg_timeline_shape_ndims(tl, shape), len = 0;
	if (size == 0)
		return buf;
	buf[0] = '\0';
	len += (size_t)snprintf(buf, size, "[");
	for (size_t i = 0; i < nd && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%" PRIu64, i ? ", " : "",
					cg_timeline_shape_dim(tl, shape, i));
	if (len < size)
		snprintf(buf + len, size - len, "]");
	return buf;
}

static size_t device_slot(cg_str id, size_t cap)
{
	return (size_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

/* Devices are found by name through a small hash, so a trace naming many
 * devices costs linear time, not quadratic. */
static void device_index_put(cg_timeline *tl, cg_str id, uint32_t d)
{
	if ((size_t)(tl->ndevices + 1) * 2 > tl->device_index_cap) {
		size_t cap = tl->device_index_cap ? tl->device_index_cap * 2 : 16;
		uint32_t *slots = cg_calloc(cap, sizeof *slots);
		for (uint32_t k = 0; k < tl->ndevices; k++) {
			size_t i = device_slot(tl->devices[k].name, cap);
			while (slots[i])
				i = (i + 1) & (cap - 1);
			slots[i] = k + 1;
		}
		cg_free(tl->device_index);
		tl->device_index = slots;
		tl->device_index_cap = cap;
	}
	size_t i = device_slot(id, tl->device_index_cap);
	while (tl->device_index[i])
		i = (i + 1) & (tl->device_index_cap - 1);
	tl->device_index[i] = d + 1;
}

int cg_timeline_device_by_str(cg_timeline *tl, cg_str id, uint16_t *out)
{
	if (tl->device_index_cap) {
		for (size_t i = device_slot(id, tl->device_index_cap); tl->device_index[i];
		     i = (i + 1) & (tl->device_index_cap - 1)) {
			uint32_t d = tl->device_index[i] - 1;
			if (tl->devices[d].name == id) {
				tl->last_device = d;
				*out = (uint16_t)d;
				return 0;
			}
		}
	}
	if (tl->ndevices >= UINT16_MAX)
		return hit(tl, CG_LIMIT_DEVICES);
	size_t cap = tl->devices_cap;
	CG_GROW(tl->devices, cap, (size_t)tl->ndevices + 1);
	tl->devices_cap = (uint32_t)cap;
	memset(&tl->devices[tl->ndevices], 0, sizeof(cg_device));
	tl->devices[tl->ndevices].name = id;
	device_index_put(tl, id, tl->ndevices);
	tl->last_device = tl->ndevices;
	*out = (uint16_t)tl->ndevices++;
	return 0;
}

int cg_timeline_device(cg_timeline *tl, const char *name, size_t n, uint16_t *out)
{
	/* Traces name the same device again and again: check the last one first. */
	if (tl->last_device != CG_NONE) {
		cg_str last = tl->devices[tl->last_device].name;
		if (cg_strtab_equals(tl->strings, last, name, n)) {
			*out = (uint16_t)tl->last_device;
			return 0;
		}
	}
	cg_str id;
	int rc = cg_timeline_intern(tl, name, n, &id);
	if (rc < 0)
		return rc;
	return cg_timeline_device_by_str(tl, id, out);
}

/* The last spelling looked up on this thread, and what it gave: traces
 * repeat one dtype line after line. Checked against the table before use,
 * so a timeline reset or freed since cannot fool it. */
static _Thread_local struct {
	const cg_timeline *tl;
	uint8_t dtype;
	uint8_t n, canon_n;
	char s[24], canon[24];
} last_dtype;

static bool cached_dtype(const cg_timeline *tl, const char *name, size_t n, uint8_t *out)
{
	if (last_dtype.tl != tl || last_dtype.n != n || n > sizeof last_dtype.s ||
	    memcmp(last_dtype.s, name, n) != 0 || last_dtype.dtype >= tl->ndtypes)
		return false;
	cg_str id = tl->dtypes[last_dtype.dtype].name;
	if (cg_strtab_len(tl->strings, id) != last_dtype.canon_n ||
	    memcmp(cg_strtab_get(tl->strings, id), last_dtype.canon, last_dtype.canon_n) != 0)
		return false;
	*out = last_dtype.dtype;
	return true;
}

static void remember_dtype(const cg_timeline *tl, const char *name, size_t n, const char *canon,
			   size_t canon_n, uint8_t dtype)
{
	if (n > sizeof last_dtype.s || canon_n > sizeof last_dtype.canon)
		return;
	last_dtype.tl = tl;
	last_dtype.dtype = dtype;
	last_dtype.n = (uint8_t)n;
	last_dtype.canon_n = (uint8_t)canon_n;
	memcpy(last_dtype.s, name, n);
	memcpy(last_dtype.canon, canon, canon_n);
}

int cg_timeline_dtype(cg_timeline *tl, const char *name, size_t n, uint8_t *out)
{
	if (cached_dtype(tl, name, n, out))
		return 0;
	char canon[64];
	size_t len = cg_dtype_canonical(name, n, canon, sizeof canon);
	cg_str id;
	int rc = cg_timeline_intern(tl, canon, len, &id);
	if (rc < 0)
		return rc;
	for (uint32_t i = 0; i < tl->ndtypes; i++) {
		if (tl->dtypes[i].name == id) {
			*out = (uint8_t)i;
			remember_dtype(tl, name, n, canon, len, *out);
			return 0;
		}
	}
	if (tl->ndtypes > UINT8_MAX) {
		*out = 0;
		return 0;
	}
	size_t cap = tl->dtypes_cap;
	CG_GROW(tl->dtypes, cap, (size_t)tl->ndtypes + 1);
	tl->dtypes_cap = (uint32_t)cap;
	tl->dtypes[tl->ndtypes] = (cg_dtype_entry){id, cg_dtype_size(canon)};
	*out = (uint8_t)tl->ndtypes++;
	return 0;
}

static void see_time(cg_timeline *tl, uint64_t t)
{
	if (t < tl->first_t_ns)
		tl->first_t_ns = t;
	if (t > tl->last_t_ns)
		tl->last_t_ns = t;
}

/* Record arrays are indexed by uint32_t; CG_NONE is reserved. No array
 * grows past the record limit, which none can outgrow (under `ulimit -v`
 * a doubling beyond it could be refused while the records fit). */
#define APPEND_UNCOUNTED(tl, arr, n, cap, rec) \
	do { \
		if ((tl)->n >= CG_NONE - 1) \
			return hit(tl, CG_LIMIT_INDEX); \
		if ((tl)->n + 1 > (tl)->cap) \
			cg_grow_at_most((void **)&(tl)->arr, &(tl)->cap, (tl)->n + 1, sizeof *(tl)->arr, \
					cg_timeline_record_room(tl)); \
		(tl)->arr[(tl)->n++] = *(rec); \
	} while (0)

/* Every record of every format passes here (but the run's metadata, a few
 * keys), so the record limit is kept here. */
#define APPEND(tl, arr, n, cap, rec) \
	do { \
		if ((tl)->max_records && (tl)->nrecords >= (tl)->max_records) \
			return hit(tl, CG_LIMIT_RECORDS); \
		APPEND_UNCOUNTED(tl, arr, n, cap, rec); \
		(tl)->nrecords++; \
	} while (0)

_Static_assert(sizeof(cg_mem) == 40, "a memory record is 40 bytes (docs/performance.md)");
_Static_assert(sizeof(cg_op) == 60, "an op record is 60 bytes (docs/performance.md)");

static size_t site_hash(cg_str op, uint32_t shape, uint8_t dtype, uint16_t device)
{
	uint64_t k = ((uint64_t)op << 32 | shape) * 0x9e3779b97f4a7c15u ^
		     ((uint64_t)device << 8 | dtype) * 0xc2b2ae3d27d4eb4fu;
	return (size_t)(k ^ k >> 29);
}

static bool site_is(const cg_mem_site *s, cg_str op, uint32_t shape, uint8_t dtype, uint16_t device)
{
	return s->op == op && s->shape == shape && s->dtype == dtype && s->device == device;
}

static void site_rehash(cg_timeline *tl, size_t cap)
{
	cg_free(tl->site_index);
	tl->site_index = cg_calloc(cap, sizeof *tl->site_index);
	tl->site_index_cap = cap;
	for (size_t i = 0; i < tl->nmem_sites; i++) {
		const cg_mem_site *s = &tl->mem_sites[i];
		size_t h = site_hash(s->op, s->shape, s->dtype, s->device) & (cap - 1);
		while (tl->site_index[h])
			h = (h + 1) & (cap - 1);
		tl->site_index[h] = (uint32_t)i + 1;
	}
}

int cg_timeline_mem_site(cg_timeline *tl, cg_str op, uint32_t shape, uint8_t dtype, uint16_t device, uint32_t *out)
{
	if (tl->last_site != CG_NONE && site_is(&tl->mem_sites[tl->last_site], op, shape, dtype, device)) {
		*out = tl->last_site;
		return 0;
	}
	if ((tl->nmem_sites + 1) * 2 > tl->site_index_cap)
		site_rehash(tl, tl->site_index_cap ? tl->site_index_cap * 2 : 64);
	size_t mask = tl->site_index_cap - 1, h = site_hash(op, shape, dtype, device) & mask;
	for (; tl->site_index[h]; h = (h + 1) & mask) {
		uint32_t i = tl->site_index[h] - 1;
		if (site_is(&tl->mem_sites[i], op, shape, dtype, device)) {
			*out = tl->last_site = i;
			return 0;
		}
	}
	if (tl->nmem_sites >= CG_MAX_MEM_SITES)
		return hit(tl, CG_LIMIT_SITES);
	CG_GROW(tl->mem_sites, tl->mem_sites_cap, tl->nmem_sites + 1);
	tl->mem_sites[tl->nmem_sites] = (cg_mem_site){op, shape, device, dtype};
	tl->site_index[h] = (uint32_t)tl->nmem_sites + 1;
	*out = tl->last_site = (uint32_t)tl->nmem_sites++;
	return 0;
}

void cg_timeline_reserve_mem(cg_timeline *tl, size_t n)
{
	if (n <= CG_NONE - 1 - tl->nmem)
		CG_GROW(tl->mem, tl->mem_cap, tl->nmem + n);
}

int cg_timeline_add_mem(cg_timeline *tl, const cg_mem_in *in)
{
	if (tl->max_records && tl->nrecords >= tl->max_records)
		return hit(tl, CG_LIMIT_RECORDS);
	if (tl->nmem + tl->nmem_rest >= CG_NONE - 1)
		return hit(tl, CG_LIMIT_INDEX);
	uint32_t site;
	int rc = cg_timeline_mem_site(tl, in->op, in->shape, in->dtype, in->device, &site);
	if (rc < 0)
		return rc;
	cg_mem m = {in->t_ns, in->bytes, in->tensor, in->span, in->pair, in->line, site,
		    in->action & 1u, in->category & 15u, in->flags & 31u};
	assert(m.action == in->action && m.category == in->category && m.flags == in->flags);
	if (tl->split_devices && in->device != 0)
		APPEND(tl, mem_rest, nmem_rest, mem_rest_cap, &m);
	else
		APPEND(tl, mem, nmem, mem_cap, &m);
	see_time(tl, m.t_ns);
	return 0;
}

int cg_timeline_add_span(cg_timeline *tl, const cg_span *s)
{
	assert(!tl->spans_indexed);
	APPEND(tl, spans, nspans, spans_cap, s);
	see_time(tl, s->start_ns);
	cg_timeline_note_span(tl, tl->nspans - 1);
	return 0;
}

void cg_timeline_note_span(cg_timeline *tl, size_t i)
{
	cg_str id = tl->spans[i].id;
	if (tl->defer_span_ends)
		return;
	if (id >= tl->span_by_id_cap) {
		size_t old = tl->span_by_id_cap;
		CG_GROW(tl->span_by_id, tl->span_by_id_cap, (size_t)id + 1);
		memset(tl->span_by_id + old, 0, (tl->span_by_id_cap - old) * sizeof *tl->span_by_id);
	}
	if (!tl->span_by_id[id] && i < CG_NONE - 1)
		tl->span_by_id[id] = (uint32_t)i + 1;
}

void cg_timeline_defer_span_ends(cg_timeline *tl)
{
	tl->defer_span_ends = true;
}

static bool end_waits(const cg_timeline *tl, cg_str id)
{
	return id / 8 < tl->end_waits_cap && (tl->end_waits[id / 8] >> (id % 8) & 1);
}

/* What finalize would do with the end (spantree.c, apply_ends) when the
 * first span of its id started before it and no earlier end of that id
 * waits: the first end applies, later ones change nothing. Else the end
 * waits, and so will every later end of its id, keeping their order. */
bool cg_timeline_end_span_now(cg_timeline *tl, cg_str id, uint64_t duration_ns, uint32_t line)
{
	if (tl->defer_span_ends)
		return false;
	uint32_t s = id < tl->span_by_id_cap ? tl->span_by_id[id] : 0;
	if (end_waits(tl, id) || !s || tl->spans[s - 1].line > line) {
		if (id / 8 >= tl->end_waits_cap) {
			size_t old = tl->end_waits_cap;
			CG_GROW(tl->end_waits, tl->end_waits_cap, (size_t)id / 8 + 1);
			memset(tl->end_waits + old, 0, tl->end_waits_cap - old);
		}
		tl->end_waits[id / 8] |= (uint8_t)(1u << (id % 8));
		return false;
	}
	cg_span *sp = &tl->spans[s - 1];
	if (sp->flags & CG_SPAN_ENDED)
		return true;
	if (!cg_add_u64(sp->start_ns, duration_ns, &sp->end_ns))
		sp->end_ns = UINT64_MAX;
	sp->flags |= CG_SPAN_ENDED;
	if (sp->end_ns > tl->last_t_ns)
		tl->last_t_ns = sp->end_ns;
	return true;
}

int cg_timeline_add_span_resolved(cg_timeline *tl, const cg_span *s)
{
	assert(s->parent == CG_NONE || s->parent < tl->nspans);
	assert(s->end_ns >= s->start_ns);
	assert(tl->nspans == 0 || tl->spans_indexed);
	if (tl->max_records && tl->nrecords + 1 >= tl->max_records)
		return hit(tl, CG_LIMIT_RECORDS); /* the span or its end would not fit */
	cg_span r = *s;
	r.id = CG_STR_EMPTY;
	r.flags |= CG_SPAN_ENDED;
	APPEND(tl, spans, nspans, spans_cap, &r);
	tl->nrecords++; /* its end */
	tl->spans_indexed = true;
	see_time(tl, s->start_ns);
	see_time(tl, s->end_ns);
	return 0;
}

int cg_timeline_add_span_end(cg_timeline *tl, cg_str id, uint64_t duration_ns, uint32_t line)
{
	if (tl->max_records && tl->nrecords >= tl->max_records)
		return hit(tl, CG_LIMIT_RECORDS);
	if (cg_timeline_end_span_now(tl, id, duration_ns, line)) {
		tl->nrecords++;
		return 0;
	}
	struct cg_span_end_rec e = {duration_ns, id, line};
	APPEND(tl, span_ends, nspan_ends, span_ends_cap, &e);
	return 0;
}

int cg_timeline_add_op(cg_timeline *tl, const cg_op *op, const cg_str *inputs, size_t ninputs)
{
	uint64_t end;
	if (tl->drop_ops) {
		if (tl->max_records && tl->nrecords >= tl->max_records)
			return hit(tl, CG_LIMIT_RECORDS);
		if (op->span != CG_STR_EMPTY)
			APPEND_UNCOUNTED(tl, op_refs, nop_refs, op_refs_cap, (&(cg_op_ref){op->span, op->line}));
		tl->nrecords++;
	} else {
		if (ninputs > CG_NONE - 1 - tl->nop_inputs)
			return hit(tl, CG_LIMIT_INDEX);
		cg_op o = *op;
		o.inputs_first = (uint32_t)tl->nop_inputs;
		APPEND(tl, ops, nops, ops_cap, &o);
		CG_GROW(tl->op_inputs, tl->op_inputs_cap, tl->nop_inputs + ninputs);
		if (ninputs)
			memcpy(tl->op_inputs + tl->nop_inputs, inputs, ninputs * sizeof *inputs);
		tl->nop_inputs += ninputs;
	}
	see_time(tl, op->t_ns);
	if (cg_add_u64(op->t_ns, op->duration_ns, &end))
		see_time(tl, end);
	return 0;
}

int cg_timeline_add_tensor(cg_timeline *tl, const cg_tensor *t)
{
	APPEND(tl, tensors, ntensors, tensors_cap, t);
	return 0;
}

int cg_timeline_add_devmem(cg_timeline *tl, const cg_devmem *d)
{
	APPEND(tl, devmem, ndevmem, devmem_cap, d);
	see_time(tl, d->t_ns);
	return 0;
}

int cg_timeline_add_gradient(cg_timeline *tl, const cg_gradient *g)
{
	APPEND(tl, gradients, ngradients, gradients_cap, g);
	return 0;
}

int cg_timeline_add_edge(cg_timeline *tl, const cg_edge *e)
{
	APPEND(tl, edges, nedges, edges_cap, e);
	return 0;
}

int cg_timeline_add_oom(cg_timeline *tl, const cg_oom *o)
{
	APPEND(tl, ooms, nooms, ooms_cap, o);
	see_time(tl, o->t_ns);
	return 0;
}

int cg_timeline_add_meta(cg_timeline *tl, cg_str key, cg_str value, bool is_string)
{
	cg_meta_entry e = {key, value, is_string};
	APPEND_UNCOUNTED(tl, meta, nmeta, meta_cap, &e);
	return 0;
}

void cg_timeline_anomaly(cg_timeline *tl, cg_anomaly a, const char *fmt, ...)
{
	cg_anomaly_stats *s = &tl->anomalies[a];
	s->count++;
	if (s->nexamples >= CG_ANOMALY_EXAMPLES)
		return;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	cg_utf8_vformat(buf, sizeof buf, fmt, ap);
	va_end(ap);
	s->examples[s->nexamples++] = cg_strdup(buf);
}

uint32_t cg_timeline_mem_replaced(const cg_timeline *tl, uint32_t i)
{
	const cg_mem *m = &tl->mem[i];
	if (m->action != CG_ALLOC || !(m->flags & CG_MEM_REPLACES))
		return CG_NONE;
	size_t lo = 0, hi = tl->nreplacements;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (tl->replacements[mid].alloc < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < tl->nreplacements && tl->replacements[lo].alloc == i)
		return tl->replacements[lo].replaced;
	return CG_NONE;
}

const char *cg_timeline_tensor_text(const cg_timeline *tl, cg_tensor_id t, char buf[CG_TENSOR_ID_BUF], size_t *len)
{
	if (cg_tensor_id_is_str(t)) {
		cg_str s = cg_tensor_id_string(t);
		*len = cg_strtab_len(tl->strings, s);
		return cg_timeline_str(tl, s);
	}
	*len = cg_tensor_id_format(t, buf);
	return buf;
}

const char *cg_timeline_span_id(const cg_timeline *tl, uint32_t span, char buf[CG_SPAN_ID_BUF], size_t *len)
{
	const cg_span *s = &tl->spans[span];
	if (!tl->spans_indexed) {
		*len = cg_strtab_len(tl->strings, s->id);
		return cg_timeline_str(tl, s->id);
	}
	/* "#%u" without snprintf: a Chrome trace output writes every span's id */
	char tmp[10];
	size_t n = 0;
	uint32_t v = s->line;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	buf[0] = '#';
	for (size_t i = 0; i < n; i++)
		buf[1 + i] = tmp[n - 1 - i];
	buf[n + 1] = '\0';
	*len = n + 1;
	return buf;
}

char *cg_timeline_span_path(const cg_timeline *tl, uint32_t span, char *buf, size_t size)
{
	if (size == 0)
		return buf;
	buf[0] = '\0';
	if (span == CG_NONE || span >= tl->nspans)
		return buf;
	/* Walk to the root, then write names from the root down. */
	uint32_t chain[256];
	size_t n = 0;
	for (uint32_t s = span; s != CG_NONE && n < sizeof chain / sizeof chain[0]; s = tl->spans[s].parent)
		chain[n++] = s;
	size_t len = 0;
	if (n == sizeof chain / sizeof chain[0] && tl->spans[chain[n - 1]].parent != CG_NONE)
		len += (size_t)snprintf(buf, size, "…/");
	while (n > 0 && len < size) {
		const char *name = cg_timeline_str(tl, tl->spans[chain[--n]].name);
		len += (size_t)snprintf(buf + len, size - len, "%s%s", name, n ? "/" : "");
	}
	if (len >= size) {
		/* Cut by the buffer: end at a character, not inside one. */
		size_t k = strlen(buf), j = k;
		while (j > 0 && ((unsigned char)buf[j - 1] & 0xc0) == 0x80)
			j--;
		if (j > 0 && cg_utf8_sequence((const unsigned char *)buf + j - 1, k - j + 1) == 0)
			buf[j - 1] = '\0';
	}
	return buf;
}

char *cg_timeline_fmt_time(const cg_timeline *tl, char *buf, size_t size, uint64_t t_ns)
{
	if (!tl->source.time_is_index)
		return cg_fmt_time(buf, size, t_ns);
	char n[32];
	snprintf(buf, size, "entry %s", cg_fmt_count(n, sizeof n, t_ns));
	return buf;
}
