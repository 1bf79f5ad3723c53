#include "tlmerge.h"

#include <assert.h>
#include <string.h>

#include "xalloc.h"

/* src's ids -> dst's ids. */
typedef struct remap {
	cg_str *str;
	uint32_t *shape;
	uint16_t *device;
	uint8_t dtype[UINT8_MAX + 1];
	uint32_t *site;
} remap;

static bool count_fits(size_t a, size_t b)
{
	return a + b < CG_NONE - 1;
}

bool cg_timeline_mergeable(const cg_timeline *dst, const cg_timeline *src)
{
	if (dst->finalized || src->finalized || dst->drop_ops != src->drop_ops)
		return false;
	if (src->source.meta_count > 0 && dst->source.meta_seen)
		return false;
	if ((size_t)dst->ndevices + src->ndevices >= UINT16_MAX ||
	    (size_t)dst->ndtypes + src->ndtypes > UINT8_MAX)
		return false;
	if (dst->max_records && (src->nrecords > dst->max_records || dst->nrecords > dst->max_records - src->nrecords))
		return false; /* read again line by line, to stop at the exact record */
	if (!cg_strtab_can_add(dst->strings, src->strings) || !cg_strtab_can_add(dst->shapes, src->shapes))
		return false;
	return count_fits(dst->nmem + dst->nmem_rest, src->nmem + src->nmem_rest) &&
	       count_fits(dst->nspans, src->nspans) &&
	       count_fits(dst->nops, src->nops) && count_fits(dst->nop_inputs, src->nop_inputs) &&
	       count_fits(dst->nop_refs, src->nop_refs) &&
	       count_fits(dst->ntensors, src->ntensors) && count_fits(dst->ndevmem, src->ndevmem) &&
	       count_fits(dst->ngradients, src->ngradients) && count_fits(dst->nedges, src->nedges) &&
	       count_fits(dst->nooms, src->nooms) && count_fits(dst->nmeta, src->nmeta) &&
	       count_fits(dst->nspan_ends, src->nspan_ends) && dst->nmem_sites + src->nmem_sites <= CG_MAX_MEM_SITES;
}

/* Interns every string of src into dst in src's id order, which is the
 * order of first use in the lines src holds. */
static cg_str *map_table(cg_strtab *dst, const cg_strtab *src)
{
	uint32_t n = cg_strtab_count(src);
	cg_str *map = cg_malloc((size_t)n * sizeof *map);
	int rc = cg_strtab_intern_all(dst, src, map);
	(void)rc; /* cg_timeline_mergeable checked the limit */
	return map;
}

static void map_devices(cg_timeline *dst, const cg_timeline *src, remap *maps)
{
	const cg_str *str = maps->str;
	for (uint32_t d = 0; d < src->ndevices; d++) {
		uint16_t found = 0;
		int rc = cg_timeline_device_by_str(dst, str[src->devices[d].name], &found);
		(void)rc; /* cg_timeline_mergeable checked that the devices fit */
		maps->device[d] = found;
	}
}

/* As cg_timeline_dtype does: the same name is the same dtype. */
static void map_dtypes(cg_timeline *dst, const cg_timeline *src, remap *maps)
{
	const cg_str *str = maps->str;
	for (uint32_t i = 0; i < src->ndtypes; i++) {
		cg_str name = str[src->dtypes[i].name];
		uint32_t found = CG_NONE;
		for (uint32_t k = 0; k < dst->ndtypes && found == CG_NONE; k++)
			if (dst->dtypes[k].name == name)
				found = k;
		if (found == CG_NONE) {
			size_t cap = dst->dtypes_cap;
			CG_GROW(dst->dtypes, cap, (size_t)dst->ndtypes + 1);
			dst->dtypes_cap = (uint32_t)cap;
			dst->dtypes[dst->ndtypes] = (cg_dtype_entry){name, src->dtypes[i].size};
			found = dst->ndtypes++;
		}
		maps->dtype[i] = (uint8_t)found;
	}
}

/* How an array that must grow grows (cg_timeline_merge_expecting). */
typedef struct growth {
	double scale;
	uint64_t most_bytes;
	size_t most_records; /* the record limit: no array grows past it */
} growth;

/* Room for n more records of an array, then a pointer to the first (the
 * array itself, perhaps NULL, when n is 0: NULL + 0 is undefined). */
#define APPEND_ROOM(dst, arr, count, cap, n) \
	((n) ? (room((void **)&(dst)->arr, &(dst)->cap, (dst)->count + (n), sizeof *(dst)->arr, grow), \
		(dst)->arr + (dst)->count) \
	     : (dst)->arr)

static void room(void **arr, size_t *cap, size_t need, size_t size, growth g)
{
	if (need <= *cap)
		return;
	double want = (double)need * g.scale;
	if (want > (double)g.most_records && need <= g.most_records)
		want = (double)g.most_records;
	if (want <= (double)need || want >= (double)(CG_NONE - 1) || want * (double)size > (double)g.most_bytes) {
		cg_grow_at_most(arr, cap, need, size, g.most_records); /* doubling */
		return;
	}
	*arr = cg_reallocarray(*arr, (size_t)want, size);
	*cap = (size_t)want;
}

/* Sites in src's order of first use, as reading src's lines into dst
 * would add them. */
static void map_sites(cg_timeline *dst, const cg_timeline *src, remap *maps)
{
	maps->site = cg_malloc((src->nmem_sites ? src->nmem_sites : 1) * sizeof *maps->site);
	for (size_t i = 0; i < src->nmem_sites; i++) {
		const cg_mem_site *ss = &src->mem_sites[i];
		int rc = cg_timeline_mem_site(dst, maps->str[ss->op], maps->shape[ss->shape], maps->dtype[ss->dtype],
					      maps->device[ss->device], &maps->site[i]);
		(void)rc; /* cg_timeline_mergeable checked that the sites fit */
	}
}

static void remap_mem(cg_mem *m, const cg_mem *from, const remap *maps)
{
	*m = *from;
	if (cg_tensor_id_is_str(m->tensor))
		m->tensor = cg_tensor_id_str(maps->str[cg_tensor_id_string(m->tensor)]);
	m->span = maps->str[m->span];
	m->site = maps->site[m->site]; /* < CG_MAX_MEM_SITES: cg_timeline_mergeable */
}

/* src is a shard, never split. */
static void append_memory(cg_timeline *dst, const cg_timeline *src, const remap *maps, growth grow)
{
	assert(src->nmem_rest == 0);
	if (!dst->split_devices) {
		cg_mem *m = APPEND_ROOM(dst, mem, nmem, mem_cap, src->nmem);
		for (size_t i = 0; i < src->nmem; i++)
			remap_mem(&m[i], &src->mem[i], maps);
		dst->nmem += src->nmem;
		return;
	}
	/* mem takes room for every record, so that the others join device
	 * 0's there (cg_timeline_join_devices) without moving them */
	if (!src->nmem)
		return;
	room((void **)&dst->mem, &dst->mem_cap, dst->nmem + dst->nmem_rest + src->nmem, sizeof *dst->mem, grow);
	cg_mem *first = APPEND_ROOM(dst, mem_rest, nmem_rest, mem_rest_cap, src->nmem), *r = first;
	for (size_t i = 0; i < src->nmem; i++) {
		cg_mem m;
		remap_mem(&m, &src->mem[i], maps);
		if (dst->mem_sites[m.site].device != 0)
			*r++ = m;
		else
			dst->mem[dst->nmem++] = m;
	}
	dst->nmem_rest += (size_t)(r - first);
}

static void append_records(cg_timeline *dst, const cg_timeline *src, const remap *maps, growth grow)
{
	const cg_str *s = maps->str;
	const uint32_t *shape = maps->shape;
	const uint16_t *dev = maps->device;
	const uint8_t *dt = maps->dtype;

	append_memory(dst, src, maps, grow);

	cg_span *sp = APPEND_ROOM(dst, spans, nspans, spans_cap, src->nspans);
	for (size_t i = 0; i < src->nspans; i++) {
		sp[i] = src->spans[i];
		sp[i].id = s[sp[i].id];
		sp[i].name = s[sp[i].name];
		sp[i].parent = s[sp[i].parent];
	}
	dst->nspans += src->nspans;
	for (size_t i = dst->nspans - src->nspans; i < dst->nspans; i++)
		cg_timeline_note_span(dst, i);

	cg_op *op = APPEND_ROOM(dst, ops, nops, ops_cap, src->nops);
	for (size_t i = 0; i < src->nops; i++) {
		op[i] = src->ops[i];
		op[i].name = s[op[i].name];
		op[i].output = s[op[i].output];
		op[i].span = s[op[i].span];
		op[i].shape = shape[op[i].shape];
		op[i].device = dev[op[i].device];
		op[i].dtype = dt[op[i].dtype];
		op[i].inputs_first += (uint32_t)dst->nop_inputs;
	}
	dst->nops += src->nops;

	cg_str *in = APPEND_ROOM(dst, op_inputs, nop_inputs, op_inputs_cap, src->nop_inputs);
	for (size_t i = 0; i < src->nop_inputs; i++)
		in[i] = s[src->op_inputs[i]];
	dst->nop_inputs += src->nop_inputs;

	cg_op_ref *ref = APPEND_ROOM(dst, op_refs, nop_refs, op_refs_cap, src->nop_refs);
	for (size_t i = 0; i < src->nop_refs; i++)
		ref[i] = (cg_op_ref){s[src->op_refs[i].span], src->op_refs[i].line};
	dst->nop_refs += src->nop_refs;

	cg_tensor *t = APPEND_ROOM(dst, tensors, ntensors, tensors_cap, src->ntensors);
	for (size_t i = 0; i < src->ntensors; i++) {
		t[i] = src->tensors[i];
		t[i].tensor = s[t[i].tensor];
		t[i].span = s[t[i].span];
		t[i].shape = shape[t[i].shape];
		t[i].device = dev[t[i].device];
		t[i].dtype = dt[t[i].dtype];
	}
	dst->ntensors += src->ntensors;

	cg_devmem *dm = APPEND_ROOM(dst, devmem, ndevmem, devmem_cap, src->ndevmem);
	for (size_t i = 0; i < src->ndevmem; i++) {
		dm[i] = src->devmem[i];
		dm[i].device = dev[dm[i].device];
	}
	dst->ndevmem += src->ndevmem;

	cg_gradient *g = APPEND_ROOM(dst, gradients, ngradients, gradients_cap, src->ngradients);
	for (size_t i = 0; i < src->ngradients; i++) {
		g[i] = src->gradients[i];
		g[i].event_id = s[g[i].event_id];
		g[i].root = s[g[i].root];
		g[i].key = s[g[i].key];
	}
	dst->ngradients += src->ngradients;

	cg_edge *e = APPEND_ROOM(dst, edges, nedges, edges_cap, src->nedges);
	for (size_t i = 0; i < src->nedges; i++) {
		e[i] = src->edges[i];
		e[i].from_span = s[e[i].from_span];
		e[i].to_span = s[e[i].to_span];
	}
	dst->nedges += src->nedges;

	cg_oom *o = APPEND_ROOM(dst, ooms, nooms, ooms_cap, src->nooms);
	for (size_t i = 0; i < src->nooms; i++) {
		o[i] = src->ooms[i];
		o[i].device = dev[o[i].device];
	}
	dst->nooms += src->nooms;

	cg_meta_entry *me = APPEND_ROOM(dst, meta, nmeta, meta_cap, src->nmeta);
	for (size_t i = 0; i < src->nmeta; i++) {
		me[i] = src->meta[i];
		me[i].key = s[me[i].key];
		me[i].value = s[me[i].value];
	}
	dst->nmeta += src->nmeta;

	/* ends whose span started earlier apply now; the shard's spans are
	 * in, so the lines tell which started before the end */
	struct cg_span_end_rec *se = APPEND_ROOM(dst, span_ends, nspan_ends, span_ends_cap, src->nspan_ends);
	size_t waiting = 0;
	for (size_t i = 0; i < src->nspan_ends; i++) {
		struct cg_span_end_rec end = src->span_ends[i];
		end.id = s[end.id];
		if (!cg_timeline_end_span_now(dst, end.id, end.duration_ns, end.line))
			se[waiting++] = end;
	}
	dst->nspan_ends += waiting;
	dst->nrecords += src->nrecords;
}

/* Counters add up; the first CG_MAX_DIAGS diagnostics of the whole file
 * are kept, in file order. */
static void merge_source(cg_timeline *dst, cg_timeline *src, const cg_str *str)
{
	cg_source *d = &dst->source, *s = &src->source;
	if (s->lines > d->lines)
		d->lines = s->lines;
	for (int k = 0; k < CG_KIND_COUNT; k++)
		d->records[k] += s->records[k];
	d->blank_lines += s->blank_lines;
	d->bad_lines += s->bad_lines;
	d->unknown_kinds += s->unknown_kinds;
	d->unknown_categories += s->unknown_categories;
	d->unknown_values += s->unknown_values;
	d->warnings += s->warnings;
	d->meta_count += s->meta_count;
	if (s->meta_seen && !d->meta_seen) {
		d->meta_seen = true;
		d->meta_line = s->meta_line;
		d->schema = str[s->schema];
	}
	if (s->truncated && !d->truncated) {
		d->truncated = true;
		d->truncated_line = s->truncated_line;
		d->truncation_note = s->truncation_note;
		s->truncation_note = NULL;
	}
	for (size_t i = 0; i < s->ndiags; i++) {
		if (d->ndiags < CG_MAX_DIAGS) {
			CG_GROW(d->diags, d->diags_cap, d->ndiags + 1);
			d->diags[d->ndiags++] = s->diags[i];
		} else {
			cg_free(s->diags[i].msg);
		}
	}
	s->ndiags = 0;
	if (src->first_t_ns < dst->first_t_ns)
		dst->first_t_ns = src->first_t_ns;
	if (src->last_t_ns > dst->last_t_ns)
		dst->last_t_ns = src->last_t_ns;
}

void cg_timeline_merge(cg_timeline *dst, cg_timeline *src)
{
	cg_timeline_merge_expecting(dst, src, 1.0, 0);
}

void cg_timeline_merge_expecting(cg_timeline *dst, cg_timeline *src, double scale, uint64_t most_bytes)
{
	/* a shard that ended spans itself may have ended a duplicate */
	assert(src->defer_span_ends || src->nspans == 0);
	remap maps;
	cg_strtab_expect(dst->strings, src->strings, scale, most_bytes);
	cg_strtab_expect(dst->shapes, src->shapes, scale, most_bytes);
	maps.str = map_table(dst->strings, src->strings);
	maps.shape = map_table(dst->shapes, src->shapes);
	maps.device = cg_malloc(((size_t)src->ndevices + 1) * sizeof *maps.device);
	map_devices(dst, src, &maps);
	map_dtypes(dst, src, &maps);
	map_sites(dst, src, &maps);
	append_records(dst, src, &maps, (growth){scale, most_bytes, cg_timeline_record_room(dst)});
	merge_source(dst, src, maps.str);
	cg_free(maps.str);
	cg_free(maps.shape);
	cg_free(maps.device);
	cg_free(maps.site);
	cg_timeline_reset(src);
}

void cg_timeline_reset(cg_timeline *tl)
{
	cg_strtab_clear(tl->strings);
	cg_strtab_clear(tl->shapes);
	tl->nmem = tl->nspans = tl->nops = tl->nop_inputs = tl->nop_refs = tl->ntensors = 0;
	tl->nmem_sites = 0;
	if (tl->site_index)
		memset(tl->site_index, 0, tl->site_index_cap * sizeof *tl->site_index);
	tl->last_site = CG_NONE;
	tl->ndevmem = tl->ngradients = tl->nedges = tl->nooms = tl->nmeta = 0;
	tl->nrecords = 0;
	tl->limit_hit = CG_LIMIT_NONE;
	tl->nspan_ends = tl->nreplacements = 0;
	if (tl->span_by_id)
		memset(tl->span_by_id, 0, tl->span_by_id_cap * sizeof *tl->span_by_id);
	if (tl->end_waits)
		memset(tl->end_waits, 0, tl->end_waits_cap);
	tl->ndevices = 0;
	if (tl->device_index)
		memset(tl->device_index, 0, tl->device_index_cap * sizeof *tl->device_index);
	tl->ndtypes = 0;
	tl->last_device = CG_NONE;
	tl->first_t_ns = UINT64_MAX;
	tl->last_t_ns = 0;
	for (int a = 0; a < CG_ANOM_COUNT; a++) {
		for (uint32_t i = 0; i < tl->anomalies[a].nexamples; i++)
			cg_free(tl->anomalies[a].examples[i]);
		memset(&tl->anomalies[a], 0, sizeof tl->anomalies[a]);
	}
	cg_source *s = &tl->source;
	for (size_t i = 0; i < s->ndiags; i++)
		cg_free(s->diags[i].msg);
	cg_free(s->truncation_note);
	cg_free(s->time_origin);
	cg_diag *diags = s->diags;
	size_t diags_cap = s->diags_cap;
	char *path = s->path, *display_name = s->display_name, *format = s->format;
	memset(s, 0, sizeof *s);
	s->diags = diags;
	s->diags_cap = diags_cap;
	s->path = path;
	s->display_name = display_name;
	s->format = format;
	s->categories_known = true;
	s->pairing_known = true;
	uint8_t unknown;
	cg_timeline_dtype(tl, "unknown", 7, &unknown);
}
