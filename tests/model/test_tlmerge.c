/* Merging shards: appending a shard holding lines k.. of a trace to a
 * timeline holding lines ..k-1 gives exactly the timeline of adding every
 * line in order (tlmerge.h), for every k; when that cannot be promised
 * cg_timeline_mergeable says no; cg_timeline_reset empties for reuse. The
 * reference is always the same records added one by one to one timeline. */
#include "testutil.h"

#include <string.h>

#include "devgroup.h"
#include "diag.h"
#include "finalize.h"
#include "tlmerge.h"
#include "xalloc.h"

typedef enum { R_META, R_SPAN, R_END, R_MEM, R_OP, R_TENSOR, R_DEVMEM, R_GRAD, R_EDGE, R_OOM, R_DIAG, R_BLANK } rkind;

/* One line of a trace: strings a, b, c mean what each kind says below. */
typedef struct rec {
	rkind k;
	uint64_t t, v;
	const char *a, *b, *c, *dev, *dtype;
} rec;

/* Strings, devices and dtypes first met in different places, so that ids
 * differ between a shard and the whole. */
static const rec trace[] = {
	{R_META, 0, 0, "run_id", "r1", NULL, NULL, NULL},
	{R_SPAN, 0, 0, "s0", NULL, "run", NULL, NULL},
	{R_SPAN, 5, 0, "s1", "s0", "step", NULL, NULL},
	{R_MEM, 10, 64, "t1", "s1", "aten::mm", "cuda:0", "f32"},
	{R_OP, 11, 7, "aten::mm", "s1", "t1", "cuda:0", "f32"},
	{R_BLANK, 0, 0, NULL, NULL, NULL, NULL, NULL},
	{R_MEM, 12, 32, "t2", "s1", NULL, "cpu", "torch.float16"},
	{R_DIAG, 0, 1, "bad line", NULL, NULL, NULL, NULL},
	{R_TENSOR, 0, 128, "w", "s0", NULL, "cuda:1", "bf16"},
	{R_DEVMEM, 13, 1000, NULL, NULL, NULL, "cuda:1", NULL},
	{R_MEM, 14, 64, "t1", "s1", "aten::add", "cuda:0", "f32"},
	{R_MEM, 15, 48, "7f3a00000200#3", "s1", "aten::add", "cuda:0", "f32"}, /* packed: kept as it is */
	{R_END, 0, 20, "s1", NULL, NULL, NULL, NULL},
	{R_GRAD, 0, 0, "g1", "model", "w", NULL, NULL},
	{R_EDGE, 0, 3, "s1", "s2", NULL, NULL, NULL},
	{R_SPAN, 30, 0, "s2", "s0", "opt", NULL, NULL},
	{R_MEM, 31, 8, "t3", "s2", "aten::zero_", "cuda:1", "i64"},
	{R_OOM, 32, 4096, NULL, NULL, NULL, "cuda:0", NULL},
	{R_DIAG, 0, 0, "a warning", NULL, NULL, NULL, NULL},
	{R_MEM, 33, 16, "old", "s2", NULL, "cpu", "torch.float16"},
	/* span ends applied as they come or left for finalize: the same */
	{R_END, 0, 7, "x", NULL, NULL, NULL, NULL},  /* before x starts: waits */
	{R_SPAN, 34, 0, "x", "s0", "late", NULL, NULL},
	{R_END, 0, 9, "x", NULL, NULL, NULL, NULL},  /* a second end: the first is x's */
	{R_SPAN, 35, 0, "s2", "s0", "again", NULL, NULL}, /* s2 again: a duplicate */
	{R_END, 0, 11, "s2", NULL, NULL, NULL, NULL}, /* ends the first s2 */
	{R_END, 0, 5, "nope", NULL, NULL, NULL, NULL}, /* never started */
	{R_END, 0, 100, "s0", NULL, NULL, NULL, NULL},
};
#define NTRACE (sizeof trace / sizeof trace[0])

static cg_str str(cg_timeline *tl, const char *s)
{
	cg_str id = CG_STR_EMPTY;
	if (s)
		assert_int_equal(cg_timeline_intern(tl, s, strlen(s), &id), 0);
	return id;
}

static uint16_t dev(cg_timeline *tl, const char *name)
{
	uint16_t d;
	assert_int_equal(cg_timeline_device(tl, name, strlen(name), &d), 0);
	return d;
}

static uint8_t dtype(cg_timeline *tl, const char *name)
{
	uint8_t d;
	assert_int_equal(cg_timeline_dtype(tl, name, strlen(name), &d), 0);
	return d;
}

static uint32_t shape(cg_timeline *tl, uint64_t a, uint64_t b)
{
	uint64_t dims[] = {a, b};
	uint32_t id;
	assert_int_equal(cg_timeline_intern_shape(tl, dims, 2, &id), 0);
	return id;
}

/* Adds trace line `line` (1-based) as ingest would. */
static void add(cg_timeline *tl, const rec *r, uint32_t line)
{
	cg_source *src = &tl->source;
	src->lines = line;
	switch (r->k) {
	case R_META:
		if (!src->meta_seen) {
			src->meta_seen = true;
			src->meta_line = line;
			src->schema = str(tl, "candle-graph/trace/6");
		}
		src->meta_count++;
		assert_int_equal(cg_timeline_add_meta(tl, str(tl, r->a), str(tl, r->b), true), 0);
		src->records[CG_KIND_META]++;
		break;
	case R_SPAN: {
		cg_span s = {.start_ns = r->t, .end_ns = r->t, .line = line, .step = CG_PHASE_FORWARD};
		s.id = str(tl, r->a);
		s.parent = str(tl, r->b);
		s.name = str(tl, r->c);
		assert_int_equal(cg_timeline_add_span(tl, &s), 0);
		src->records[CG_KIND_SPAN_START]++;
		break;
	}
	case R_END:
		assert_int_equal(cg_timeline_add_span_end(tl, str(tl, r->a), r->v, line), 0);
		src->records[CG_KIND_SPAN_END]++;
		break;
	case R_MEM: {
		cg_mem_in m = {.t_ns = r->t, .bytes = r->v, .line = line, .action = CG_ALLOC, .category = CG_CAT_ACTIVATION};
		if (!r->a || !cg_tensor_id_pack(r->a, strlen(r->a), &m.tensor))
			m.tensor = cg_tensor_id_str(str(tl, r->a));
		m.span = str(tl, r->b);
		m.op = str(tl, r->c);
		m.device = dev(tl, r->dev);
		m.dtype = dtype(tl, r->dtype);
		m.shape = shape(tl, r->v, 3);
		assert_int_equal(cg_timeline_add_mem(tl, &m), 0);
		src->records[CG_KIND_MEMORY]++;
		break;
	}
	case R_OP: {
		cg_op op = {.t_ns = r->t, .duration_ns = r->v, .line = line, .storage_bytes = 12};
		op.name = str(tl, r->a);
		op.span = str(tl, r->b);
		op.output = str(tl, r->c);
		op.device = dev(tl, r->dev);
		op.dtype = dtype(tl, r->dtype);
		op.shape = shape(tl, 4, 4);
		cg_str inputs[] = {str(tl, "t1"), str(tl, "input-only")};
		assert_int_equal(cg_timeline_add_op(tl, &op, inputs, 2), 0);
		src->records[CG_KIND_OP]++;
		break;
	}
	case R_TENSOR: {
		cg_tensor t = {.storage_bytes = r->v, .line = line, .category = CG_CAT_PARAMETER};
		t.tensor = str(tl, r->a);
		t.span = str(tl, r->b);
		t.device = dev(tl, r->dev);
		t.dtype = dtype(tl, r->dtype);
		t.shape = shape(tl, 8, 16);
		assert_int_equal(cg_timeline_add_tensor(tl, &t), 0);
		src->records[CG_KIND_TENSOR]++;
		break;
	}
	case R_DEVMEM: {
		cg_devmem d = {.t_ns = r->t, .used_bytes = r->v, .free_bytes = 5, .line = line, .has_used = true};
		d.device = dev(tl, r->dev);
		assert_int_equal(cg_timeline_add_devmem(tl, &d), 0);
		src->records[CG_KIND_DEVICE_MEMORY]++;
		break;
	}
	case R_GRAD: {
		cg_gradient g = {.norm = 0.5, .line = line, .has_norm = true};
		g.event_id = str(tl, r->a);
		g.root = str(tl, r->b);
		g.key = str(tl, r->c);
		assert_int_equal(cg_timeline_add_gradient(tl, &g), 0);
		src->records[CG_KIND_GRADIENT]++;
		break;
	}
	case R_EDGE: {
		cg_edge e = {.duration_ns = r->v, .line = line};
		e.from_span = str(tl, r->a);
		e.to_span = str(tl, r->b);
		assert_int_equal(cg_timeline_add_edge(tl, &e), 0);
		src->records[CG_KIND_EDGE]++;
		break;
	}
	case R_OOM: {
		cg_oom o = {.t_ns = r->t, .bytes = r->v, .line = line};
		o.device = dev(tl, r->dev);
		assert_int_equal(cg_timeline_add_oom(tl, &o), 0);
		break;
	}
	case R_DIAG:
		cg_diag_add(tl, r->v ? CG_DIAG_BAD_LINE : CG_DIAG_WARNING, line, "%s", r->a);
		break;
	case R_BLANK:
		src->blank_lines++;
		break;
	}
}

static void add_range(cg_timeline *tl, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		add(tl, &trace[i], (uint32_t)i + 1);
}

static cg_timeline *new_tl(void)
{
	cg_timeline *tl = cg_timeline_new(NULL);
	tl->source.display_name = cg_strdup("test.jsonl");
	return tl;
}

/* A timeline merged into another, as the parallel ingest's shards are. */
static cg_timeline *new_shard(void)
{
	cg_timeline *tl = new_tl();
	cg_timeline_defer_span_ends(tl);
	return tl;
}

/* Field by field (structs have padding): the two timelines are the same. */
static void assert_same(const cg_timeline *x, const cg_timeline *y)
{
	assert_int_equal(cg_strtab_count(x->strings), cg_strtab_count(y->strings));
	for (uint32_t i = 0; i < cg_strtab_count(x->strings); i++) {
		assert_int_equal(cg_strtab_len(x->strings, i), cg_strtab_len(y->strings, i));
		assert_memory_equal(cg_strtab_get(x->strings, i), cg_strtab_get(y->strings, i),
				    cg_strtab_len(x->strings, i) + 1);
	}
	assert_int_equal(cg_strtab_count(x->shapes), cg_strtab_count(y->shapes));
	for (uint32_t i = 0; i < cg_strtab_count(x->shapes); i++) {
		assert_int_equal(cg_strtab_len(x->shapes, i), cg_strtab_len(y->shapes, i));
		assert_memory_equal(cg_strtab_get(x->shapes, i), cg_strtab_get(y->shapes, i),
				    cg_strtab_len(x->shapes, i) + 1);
	}
	assert_int_equal(x->ndevices, y->ndevices);
	for (uint32_t d = 0; d < x->ndevices; d++) {
		const cg_device *a = &x->devices[d], *b = &y->devices[d];
		assert_int_equal(a->name, b->name);
		assert_int_equal(a->mem_first, b->mem_first);
		assert_int_equal(a->mem_count, b->mem_count);
		assert_int_equal(a->devmem_count, b->devmem_count);
		assert_int_equal(a->preexisting_bytes, b->preexisting_bytes);
		assert_int_equal(a->live_at_end, b->live_at_end);
		assert_int_equal(a->live_count_at_end, b->live_count_at_end);
	}
	assert_int_equal(x->ndtypes, y->ndtypes);
	for (uint32_t d = 0; d < x->ndtypes; d++) {
		assert_int_equal(x->dtypes[d].name, y->dtypes[d].name);
		assert_int_equal(x->dtypes[d].size, y->dtypes[d].size);
	}
#define SAME_ARRAY(arr, n, ...) \
	do { \
		assert_int_equal(x->n, y->n); \
		for (size_t i = 0; i < x->n; i++) { \
			const __typeof__(*x->arr) *p = &x->arr[i], *q = &y->arr[i]; \
			__VA_ARGS__ \
		} \
	} while (0)
#define F(f) assert_true(p->f == q->f)
	SAME_ARRAY(mem, nmem, F(t_ns); F(bytes); F(tensor.v); F(span); F(site); F(pair); F(line);
		   F(action); F(category); F(flags););
	SAME_ARRAY(mem_sites, nmem_sites, F(op); F(shape); F(dtype); F(device););
	SAME_ARRAY(spans, nspans, F(start_ns); F(end_ns); F(id); F(name); F(parent); F(line); F(depth); F(kind);
		   F(step); F(phase); F(flags););
	SAME_ARRAY(ops, nops, F(t_ns); F(duration_ns); F(storage_bytes); F(input_storage_bytes); F(name); F(output);
		   F(span); F(shape); F(inputs_first); F(line); F(device); F(dtype); F(flags););
	assert_int_equal(x->nop_inputs, y->nop_inputs);
	assert_memory_equal(x->op_inputs, y->op_inputs, x->nop_inputs * sizeof *x->op_inputs);
	SAME_ARRAY(tensors, ntensors, F(storage_bytes); F(tensor); F(span); F(shape); F(line); F(device); F(dtype);
		   F(category); F(flags););
	SAME_ARRAY(devmem, ndevmem, F(t_ns); F(used_bytes); F(free_bytes); F(reserved_bytes); F(line); F(device);
		   F(has_used); F(has_reserved););
	SAME_ARRAY(gradients, ngradients, F(norm); F(event_id); F(root); F(key); F(line); F(state); F(has_norm););
	SAME_ARRAY(edges, nedges, F(duration_ns); F(from_span); F(to_span); F(line););
	SAME_ARRAY(ooms, nooms, F(t_ns); F(bytes); F(line); F(device););
	SAME_ARRAY(meta, nmeta, F(key); F(value); F(is_string););
	SAME_ARRAY(span_ends, nspan_ends, F(duration_ns); F(id); F(line););
	SAME_ARRAY(replacements, nreplacements, F(alloc); F(replaced););
#undef F
	const cg_source *s = &x->source, *t = &y->source;
	assert_int_equal(s->lines, t->lines);
	for (int k = 0; k < CG_KIND_COUNT; k++)
		assert_int_equal(s->records[k], t->records[k]);
	assert_int_equal(s->blank_lines, t->blank_lines);
	assert_int_equal(s->bad_lines, t->bad_lines);
	assert_int_equal(s->warnings, t->warnings);
	assert_int_equal(s->meta_seen, t->meta_seen);
	assert_int_equal(s->meta_count, t->meta_count);
	assert_int_equal(s->meta_line, t->meta_line);
	assert_int_equal(s->schema, t->schema);
	assert_int_equal(s->ndiags, t->ndiags);
	for (size_t i = 0; i < s->ndiags; i++) {
		assert_int_equal(s->diags[i].line, t->diags[i].line);
		assert_int_equal(s->diags[i].kind, t->diags[i].kind);
		assert_string_equal(s->diags[i].msg, t->diags[i].msg);
	}
	for (int a = 0; a < CG_ANOM_COUNT; a++) {
		assert_int_equal(x->anomalies[a].count, y->anomalies[a].count);
		for (uint32_t i = 0; i < x->anomalies[a].nexamples; i++)
			assert_string_equal(x->anomalies[a].examples[i], y->anomalies[a].examples[i]);
	}
	assert_int_equal(x->first_t_ns, y->first_t_ns);
	assert_int_equal(x->last_t_ns, y->last_t_ns);
}

static void finalize(cg_timeline *tl)
{
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_timeline_finalize(tl, &err), 0);
}

static void a_shard_merged_at_any_line_gives_the_whole_timeline(void **state)
{
	cg_timeline *ref = new_tl();
	add_range(ref, 0, NTRACE);
	for (size_t k = 0; k <= NTRACE; k++) {
		cg_timeline *dst = new_tl(), *shard = new_shard();
		add_range(dst, 0, k);
		add_range(shard, k, NTRACE);
		assert_true(cg_timeline_mergeable(dst, shard));
		cg_timeline_merge(dst, shard);
		assert_same(ref, dst);
		assert_int_equal(shard->nmem, 0); /* emptied */
		cg_timeline_free(dst);
		cg_timeline_free(shard);
	}
	cg_timeline_free(ref);
}

static void three_shards_through_one_reused_timeline_finalize_alike(void **state)
{
	/* lines [0, i) added directly, [i, j) and [j, n) merged through the same
	 * shard (emptied by each merge); then both are finalized: pairs, span
	 * tree and anomalies agree too */
	cg_timeline *ref = new_tl();
	add_range(ref, 0, NTRACE);
	finalize(ref);
	assert_true(ref->anomalies[CG_ANOM_ALLOC_OF_LIVE_ID].count == 1); /* t1 twice on cuda:0 */
	/* each span's first end, wherever its start is; a duplicate start is dropped */
	for (size_t i = 0; i < ref->nspans; i++) {
		const char *id = cg_timeline_str(ref, ref->spans[i].id);
		if (!strcmp(id, "x"))
			assert_int_equal(ref->spans[i].end_ns, 34 + 7);
		if (!strcmp(id, "s2"))
			assert_int_equal(ref->spans[i].end_ns, 30 + 11);
	}
	assert_int_equal(ref->anomalies[CG_ANOM_DUPLICATE_SPAN].count, 1);
	assert_int_equal(ref->anomalies[CG_ANOM_SPAN_END_WITHOUT_START].count, 1);
	for (size_t i = 0; i <= NTRACE; i += 3)
		for (size_t j = i; j <= NTRACE; j += 4) {
			cg_timeline *dst = new_tl(), *shard = new_shard();
			add_range(dst, 0, i);
			add_range(shard, i, j);
			assert_true(cg_timeline_mergeable(dst, shard));
			cg_timeline_merge(dst, shard);
			add_range(shard, j, NTRACE);
			assert_true(cg_timeline_mergeable(dst, shard));
			cg_timeline_merge(dst, shard);
			finalize(dst);
			assert_same(ref, dst);
			cg_timeline_free(dst);
			cg_timeline_free(shard);
		}
	cg_timeline_free(ref);
}

/* Split, device 0's memory records stay in mem and the others' gather
 * apart, whether added line by line or merged; joined, mem holds them
 * grouped by device, each device's in file order, before finalize; and
 * finalized, the timeline is the one never split. */
static void a_split_timeline_joins_its_records_grouped_by_device(void **state)
{
	(void)state;
	cg_timeline *ref = new_tl();
	add_range(ref, 0, NTRACE);
	for (size_t i = 0; i <= NTRACE; i += 2)
		for (size_t j = i; j <= NTRACE; j += 3) {
			cg_timeline *dst = new_tl(), *shard = new_shard();
			cg_timeline_split_devices(dst);
			add_range(dst, 0, i);
			add_range(shard, i, j);
			cg_timeline_merge(dst, shard);
			add_range(shard, j, NTRACE);
			cg_timeline_merge(dst, shard);
			for (size_t k = 0; k < dst->nmem; k++)
				assert_int_equal(cg_timeline_mem_device(dst, &dst->mem[k]), 0);
			cg_timeline_join_devices(dst, 2);
			assert_int_equal(dst->nmem, ref->nmem);
			assert_int_equal(dst->nmem_rest, 0);
			assert_null(dst->mem_rest);
			/* device by device, each device's records in ref's order */
			size_t k = 0;
			for (uint16_t d = 0; d < ref->ndevices; d++)
				for (size_t r = 0; r < ref->nmem; r++)
					if (cg_timeline_mem_device(ref, &ref->mem[r]) == d) {
						assert_int_equal(cg_timeline_mem_device(dst, &dst->mem[k]), d);
						assert_int_equal(dst->mem[k].line, ref->mem[r].line);
						assert_int_equal(dst->mem[k].t_ns, ref->mem[r].t_ns);
						k++;
					}
			assert_int_equal(k, dst->nmem);
			cg_timeline *want = new_tl();
			add_range(want, 0, NTRACE);
			finalize(want);
			finalize(dst);
			assert_same(want, dst);
			cg_timeline_free(want);
			cg_timeline_free(dst);
			cg_timeline_free(shard);
		}
	cg_timeline_free(ref);
}

static void arrays_grow_to_the_expected_size_within_the_bound(void **state)
{
	(void)state;
	cg_timeline *ref = new_tl();
	add_range(ref, 0, NTRACE);
	/* the first shard said to be a fortieth of the trace: room for forty
	 * times its records at once; the rest then fits without growing */
	size_t cut = NTRACE / 5;
	cg_timeline *dst = new_tl(), *shard = new_shard(), *doubling = new_tl();
	add_range(shard, 0, cut);
	size_t first = shard->nmem;
	assert_true(first > 0);
	cg_timeline_merge_expecting(dst, shard, 40.0, UINT64_MAX);
	assert_int_equal(dst->mem_cap, first * 40);
	cg_mem *before = dst->mem;
	add_range(shard, cut, NTRACE);
	cg_timeline_merge_expecting(dst, shard, 1.0, UINT64_MAX);
	assert_ptr_equal(dst->mem, before);
	assert_same(ref, dst);
	cg_timeline_free(dst);
	/* room that would take more bytes than allowed: doubling, as a plain merge */
	dst = new_tl();
	add_range(shard, 0, cut);
	cg_timeline_merge_expecting(dst, shard, 40.0, first * 40 * sizeof(cg_mem) - 1);
	add_range(shard, 0, cut);
	cg_timeline_merge(doubling, shard);
	assert_int_equal(dst->mem_cap, doubling->mem_cap);
	assert_true(dst->mem_cap < first * 40);
	add_range(shard, cut, NTRACE);
	cg_timeline_merge_expecting(dst, shard, 40.0, 0);
	assert_same(ref, dst);
	cg_timeline_free(doubling);
	cg_timeline_free(dst);
	cg_timeline_free(shard);
	cg_timeline_free(ref);
}

static void diagnostics_add_up_and_the_first_200_of_the_file_are_kept(void **state)
{
	/* 150 in dst, 100 in the shard: 250 counted; kept, dst's 150 then the
	 * shard's first 50 */
	cg_timeline *dst = new_tl(), *shard = new_shard();
	for (int i = 0; i < 150; i++)
		cg_diag_add(dst, CG_DIAG_BAD_LINE, (uint64_t)i + 1, "dst %d", i);
	for (int i = 0; i < 100; i++)
		cg_diag_add(shard, CG_DIAG_WARNING, (uint64_t)i + 151, "shard %d", i);
	shard->source.truncated = true;
	shard->source.truncated_line = 251;
	shard->source.truncation_note = cg_strdup("ends mid-record");
	assert_true(cg_timeline_mergeable(dst, shard));
	cg_timeline_merge(dst, shard);
	const cg_source *s = &dst->source;
	assert_int_equal(s->bad_lines, 150);
	assert_int_equal(s->warnings, 100);
	assert_int_equal(s->ndiags, CG_MAX_DIAGS);
	assert_string_equal(s->diags[149].msg, "dst 149");
	assert_string_equal(s->diags[150].msg, "shard 0");
	assert_int_equal(s->diags[150].line, 151);
	assert_string_equal(s->diags[199].msg, "shard 49");
	assert_true(s->truncated);
	assert_int_equal(s->truncated_line, 251);
	assert_string_equal(s->truncation_note, "ends mid-record");
	assert_null(shard->source.truncation_note);
	assert_int_equal(shard->source.ndiags, 0);
	cg_timeline_free(dst);
	cg_timeline_free(shard);
}

static void a_second_meta_record_is_not_mergeable(void **state)
{
	cg_timeline *dst = new_tl(), *shard = new_shard();
	add_range(dst, 0, 1); /* the meta record */
	add_range(shard, 1, 3);
	assert_true(cg_timeline_mergeable(dst, shard));
	add(shard, &trace[0], 4); /* a meta record after dst's: only dst could say what it means */
	assert_false(cg_timeline_mergeable(dst, shard));
	/* without one in dst, the shard's is the first */
	cg_timeline *fresh = new_tl();
	assert_true(cg_timeline_mergeable(fresh, shard));
	cg_timeline_merge(fresh, shard);
	assert_true(fresh->source.meta_seen);
	assert_int_equal(fresh->source.meta_line, 4);
	assert_string_equal(cg_timeline_str(fresh, fresh->source.schema), "candle-graph/trace/6");
	cg_timeline_free(dst);
	cg_timeline_free(shard);
	cg_timeline_free(fresh);
}

static void finalized_timelines_are_not_mergeable(void **state)
{
	cg_timeline *dst = new_tl(), *shard = new_shard(), *fresh = new_tl();
	add_range(shard, 1, 4);
	assert_true(cg_timeline_mergeable(dst, shard));
	finalize(shard);
	assert_false(cg_timeline_mergeable(dst, shard));
	finalize(dst);
	assert_false(cg_timeline_mergeable(dst, fresh));
	cg_timeline_free(dst);
	cg_timeline_free(shard);
	cg_timeline_free(fresh);
}

static void add_devices(cg_timeline *tl, const char *prefix, unsigned n)
{
	char name[32];
	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof name, "%s%u", prefix, i);
		dev(tl, name);
	}
}

static void devices_or_dtypes_beyond_their_limits_are_not_mergeable(void **state)
{
	/* 40000 + 30000 devices could be 70000 > 65535; 40000 + 10 cannot */
	cg_timeline *dst = new_tl(), *many = new_tl(), *few = new_tl();
	add_devices(dst, "a", 40000);
	add_devices(many, "b", 30000);
	add_devices(few, "c", 10);
	assert_false(cg_timeline_mergeable(dst, many));
	assert_true(cg_timeline_mergeable(dst, few));
	cg_timeline_free(dst);
	cg_timeline_free(many);
	cg_timeline_free(few);

	/* 1 + 200 dtypes and 1 + 100 could be 300 > 256; 1 + 200 and 1 + 10 cannot */
	dst = new_tl();
	many = new_tl();
	few = new_tl();
	char name[32];
	for (int i = 0; i < 200; i++)
		dtype(dst, (snprintf(name, sizeof name, "a%d", i), name));
	for (int i = 0; i < 100; i++)
		dtype(many, (snprintf(name, sizeof name, "b%d", i), name));
	for (int i = 0; i < 10; i++)
		dtype(few, (snprintf(name, sizeof name, "c%d", i), name));
	assert_false(cg_timeline_mergeable(dst, many));
	assert_true(cg_timeline_mergeable(dst, few));
	cg_timeline_merge(dst, few);
	assert_int_equal(dst->ndtypes, 211); /* "unknown" is shared */
	cg_timeline_free(dst);
	cg_timeline_free(many);
	cg_timeline_free(few);
}

static void strings_beyond_the_limit_are_not_mergeable(void **state)
{
	/* a 64 KiB string limit: 10000 strings of 20 bytes (200,000 bytes of
	 * text alone) cannot fit; three short ones can */
	cg_timeline_limits lim = {.max_string_bytes = 64 << 10};
	cg_timeline *dst = cg_timeline_new(&lim), *big = cg_timeline_new(NULL), *small = cg_timeline_new(NULL);
	char s[32];
	for (int i = 0; i < 10000; i++)
		str(big, (snprintf(s, sizeof s, "string-number-%06d", i), s));
	str(small, "a");
	str(small, "b");
	str(small, "c");
	assert_false(cg_timeline_mergeable(dst, big));
	assert_true(cg_timeline_mergeable(dst, small));
	cg_timeline_free(dst);
	cg_timeline_free(big);
	cg_timeline_free(small);
}

/* The trace holds 23 records (spans, their ends, memory, op, tensor,
 * device_memory, gradient, edge, oom; not meta, blanks or diagnostics), 7 of
 * them in its first 10 entries: a shard of the other 16 merges under a limit
 * of 23, to 23 records, and not under 22 (the block is then read again line
 * by line, to stop at the exact line). */
static void a_shard_that_would_cross_the_record_limit_is_not_mergeable(void **state)
{
	cg_timeline *dst = new_tl(), *shard = new_shard();
	add_range(dst, 0, 10);
	add_range(shard, 10, NTRACE);
	assert_int_equal(dst->nrecords, 7);
	assert_int_equal(shard->nrecords, 16);
	cg_timeline_set_max_records(dst, 22);
	assert_false(cg_timeline_mergeable(dst, shard));
	cg_timeline_set_max_records(dst, 23);
	assert_true(cg_timeline_mergeable(dst, shard));
	cg_timeline_merge(dst, shard);
	assert_int_equal(dst->nrecords, 23);
	assert_int_equal(shard->nrecords, 0);
	cg_oom o = {0};
	assert_int_equal(cg_timeline_add_oom(dst, &o), CG_ELIMIT);
	assert_int_equal(dst->limit_hit, CG_LIMIT_RECORDS);
	char why[256];
	assert_string_equal(cg_timeline_limit_text(dst, why, sizeof why),
			    "more than 23 records (--max-records 23): each takes about 100 bytes of memory; "
			    "raise the limit if the machine has it");
	/* Metadata is not counted. */
	assert_int_equal(cg_timeline_add_meta(dst, str(dst, "k"), str(dst, "v"), true), 0);
	assert_int_equal(cg_timeline_records_fit(dst, 0), 0);
	assert_int_equal(cg_timeline_records_fit(dst, 1), CG_ELIMIT);
	cg_timeline_free(dst);
	cg_timeline_free(shard);
}

static void reset_empties_everything_but_the_source_names_and_limit(void **state)
{
	cg_timeline_limits lim = {.max_string_bytes = 1 << 20};
	cg_timeline *tl = cg_timeline_new(&lim);
	tl->source.path = cg_strdup("x.jsonl");
	tl->source.display_name = cg_strdup("x.jsonl");
	tl->source.format = cg_strdup("JSONL");
	add_range(tl, 0, NTRACE);
	tl->source.pairing_known = false;
	tl->source.truncation_note = cg_strdup("cut");
	/* Freed by the reset (leak checkers see it otherwise). */
	tl->source.time_origin = cg_strdup("1419247332500.684 us");
	cg_timeline_anomaly(tl, CG_ANOM_DOUBLE_FREE, "an example");
	cg_timeline_reset(tl);
	assert_null(tl->source.time_origin);
	assert_int_equal(tl->nmem + tl->nspans + tl->nops + tl->nop_inputs + tl->ntensors + tl->ndevmem +
				 tl->ngradients + tl->nedges + tl->nooms + tl->nmeta + tl->nspan_ends,
			 0);
	assert_int_equal(tl->ndevices, 0);
	assert_int_equal(tl->ndtypes, 1); /* "unknown" again */
	assert_int_equal(cg_strtab_count(tl->strings), 2); /* "" and "unknown" */
	assert_int_equal(cg_strtab_count(tl->shapes), 1);
	assert_int_equal(cg_strtab_limit(tl->strings), 1 << 20);
	assert_int_equal(tl->first_t_ns, UINT64_MAX);
	assert_int_equal(tl->last_t_ns, 0);
	assert_int_equal(tl->anomalies[CG_ANOM_DOUBLE_FREE].count, 0);
	const cg_source *s = &tl->source;
	assert_int_equal(s->lines + s->blank_lines + s->bad_lines + s->warnings + s->meta_count + s->ndiags, 0);
	assert_false(s->meta_seen);
	assert_null(s->truncation_note);
	assert_true(s->pairing_known);
	assert_true(s->categories_known);
	assert_string_equal(s->path, "x.jsonl");
	assert_string_equal(s->format, "JSONL");
	/* and it works as new: same ids as a fresh timeline */
	cg_timeline *fresh = cg_timeline_new(&lim);
	add_range(tl, 0, NTRACE);
	add_range(fresh, 0, NTRACE);
	assert_same(fresh, tl);
	cg_timeline_free(tl);
	cg_timeline_free(fresh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_shard_merged_at_any_line_gives_the_whole_timeline),
		cmocka_unit_test(three_shards_through_one_reused_timeline_finalize_alike),
		cmocka_unit_test(a_split_timeline_joins_its_records_grouped_by_device),
		cmocka_unit_test(arrays_grow_to_the_expected_size_within_the_bound),
		cmocka_unit_test(diagnostics_add_up_and_the_first_200_of_the_file_are_kept),
		cmocka_unit_test(a_second_meta_record_is_not_mergeable),
		cmocka_unit_test(finalized_timelines_are_not_mergeable),
		cmocka_unit_test(devices_or_dtypes_beyond_their_limits_are_not_mergeable),
		cmocka_unit_test(strings_beyond_the_limit_are_not_mergeable),
		cmocka_unit_test(a_shard_that_would_cross_the_record_limit_is_not_mergeable),
		cmocka_unit_test(reset_empties_everything_but_the_source_names_and_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
