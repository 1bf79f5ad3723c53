/* Two timelines equal in every respect: records and their order, line
 * numbers, strings and their ids, devices, dtypes, diagnostics and their
 * order, anomalies, truncation. For the ingest tests that read the same
 * trace two ways (threads, memory or file); header-only, each test file
 * that includes it calls same_timeline. */
#ifndef CG_TL_SAME_H
#define CG_TL_SAME_H

#include "ingestutil.h"

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
		FIELD(x->mem[i], y->mem[i], tensor.v); FIELD(x->mem[i], y->mem[i], span);
		FIELD(x->mem[i], y->mem[i], site);
		FIELD(x->mem[i], y->mem[i], pair); FIELD(x->mem[i], y->mem[i], line);
		FIELD(x->mem[i], y->mem[i], action);
		FIELD(x->mem[i], y->mem[i], category); FIELD(x->mem[i], y->mem[i], flags);
	}
	what = "mem_sites";
	assert_int_equal(x->nmem_sites, y->nmem_sites);
	for (size_t i = 0; i < x->nmem_sites; i++) {
		FIELD(x->mem_sites[i], y->mem_sites[i], op); FIELD(x->mem_sites[i], y->mem_sites[i], shape);
		FIELD(x->mem_sites[i], y->mem_sites[i], dtype); FIELD(x->mem_sites[i], y->mem_sites[i], device);
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
		FIELD(x->ops[i], y->ops[i], inputs_first);
		FIELD(x->ops[i], y->ops[i], line); FIELD(x->ops[i], y->ops[i], device);
		FIELD(x->ops[i], y->ops[i], dtype); FIELD(x->ops[i], y->ops[i], flags);
	}
	assert_int_equal(x->nop_inputs, y->nop_inputs);
	if (x->nop_inputs)
		assert_memory_equal(x->op_inputs, y->op_inputs, x->nop_inputs * sizeof *x->op_inputs);
	what = "op_refs";
	assert_int_equal(x->nop_refs, y->nop_refs);
	for (size_t i = 0; i < x->nop_refs; i++) {
		FIELD(x->op_refs[i], y->op_refs[i], span); FIELD(x->op_refs[i], y->op_refs[i], line);
	}
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
	what = "ooms";
	assert_int_equal(x->nooms, y->nooms);
	for (size_t i = 0; i < x->nooms; i++) {
		FIELD(x->ooms[i], y->ooms[i], t_ns); FIELD(x->ooms[i], y->ooms[i], bytes);
		FIELD(x->ooms[i], y->ooms[i], total_allocated); FIELD(x->ooms[i], y->ooms[i], total_reserved);
		FIELD(x->ooms[i], y->ooms[i], line); FIELD(x->ooms[i], y->ooms[i], device);
		FIELD(x->ooms[i], y->ooms[i], has_totals);
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
	assert_string_equal(a->format, b->format);
	assert_int_equal(a->gzip, b->gzip);
	assert_int_equal(a->lines_are_events, b->lines_are_events);
	assert_int_equal(a->categories_known, b->categories_known);
	assert_int_equal(a->pairing_known, b->pairing_known);
	assert_int_equal(a->time_origin_known, b->time_origin_known);
	assert_int_equal(a->time_origin_unix_ns, b->time_origin_unix_ns);
	assert_true((a->time_origin == NULL) == (b->time_origin == NULL));
	if (a->time_origin)
		assert_string_equal(a->time_origin, b->time_origin);
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
		assert_int_equal(a->baseline_bytes, b->baseline_bytes);
		assert_memory_equal(a->initial_by_cat, b->initial_by_cat, sizeof a->initial_by_cat);
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

#endif
