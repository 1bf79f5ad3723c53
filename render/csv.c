#include "csv.h"

#include <inttypes.h>
#include <string.h>

#include "escape.h"

static const char *const section_names[CG_CSV_SECTION_COUNT] = {"peak", "steps"};

const char *cg_csv_section_name(cg_csv_section s)
{
	return s < CG_CSV_SECTION_COUNT ? section_names[s] : "?";
}

bool cg_csv_section_parse(const char *name, cg_csv_section *out)
{
	for (int s = 0; s < CG_CSV_SECTION_COUNT; s++)
		if (strcmp(name, section_names[s]) == 0) {
			*out = (cg_csv_section)s;
			return true;
		}
	return false;
}

/* One row being written: fields are separated as they come. */
typedef struct row {
	cg_sink *out;
	bool first;
} row;

static void sep(row *r)
{
	if (!r->first)
		cg_sink_putc(r->out, ',');
	r->first = false;
}

/* A field from the trace (formula starts neutralised). */
static void text(row *r, const char *s)
{
	sep(r);
	cg_escape_csv(r->out, s, strlen(s), true);
}

static void u64(row *r, uint64_t v)
{
	sep(r);
	cg_sink_printf(r->out, "%" PRIu64, v);
}

static void i64(row *r, int64_t v)
{
	sep(r);
	cg_sink_printf(r->out, "%" PRId64, v);
}

static void empty(row *r)
{
	sep(r);
}

static void end(row *r)
{
	cg_sink_puts(r->out, "\r\n");
	r->first = true;
}

static void header(cg_sink *out, const char *names)
{
	cg_sink_puts(out, names);
	cg_sink_puts(out, "\r\n");
}

static void peak_rows(row *r, const cg_analysis *a, uint32_t d)
{
	const cg_timeline *tl = a->tl;
	const cg_liveset_device *ls = &a->at_peak->devices[d];
	const char *device = cg_timeline_str(tl, tl->devices[d].name);
	char path[CG_SPAN_PATH_MAX];
	/* Without pairing no allocation is known to be live: no rows. */
	for (size_t i = 0; ls->listed && i < ls->nallocs; i++) {
		const cg_live_alloc *la = &ls->allocs[i];
		/* Memory from before the trace is known by its free only. */
		uint32_t rec = la->alloc != CG_NONE ? la->alloc : la->end;
		const cg_mem *m = rec != CG_NONE ? &tl->mem[rec] : NULL;
		text(r, device);
		char id[CG_TENSOR_ID_BUF];
		size_t id_len;
		text(r, m ? cg_timeline_tensor_text(tl, m->tensor, id, &id_len) : "");
		u64(r, la->bytes);
		text(r, cg_category_name(cg_live_alloc_category(tl, la)));
		text(r, cg_phase_name(cg_live_alloc_phase(tl, la)));
		if (la->alloc != CG_NONE) {
			text(r, cg_timeline_span_path(tl, m->span, path, sizeof path));
			text(r, cg_timeline_str(tl, cg_timeline_mem_op(tl, m)));
			u64(r, m->t_ns);
			u64(r, m->line);
		} else {
			empty(r);
			empty(r);
			empty(r);
			if (m)
				u64(r, m->line);
			else
				empty(r);
		}
		end(r);
	}
	uint64_t baseline = ls->listed ? cg_liveset_unlisted_baseline(tl, ls) : 0;
	if (baseline) {
		/* One row for what was allocated before profiling: its bytes are
		 * known, its allocations are not. */
		text(r, device);
		empty(r);
		u64(r, baseline);
		text(r, cg_category_name(CG_CAT_BASELINE));
		text(r, cg_phase_name(CG_PHASE_NONE));
		empty(r);
		empty(r);
		empty(r);
		empty(r);
		end(r);
	}
}

static void steps_rows(row *r, const cg_analysis *a)
{
	const cg_timeline *tl = a->tl;
	const cg_steps_result *st = a->steps;
	for (uint32_t k = 0; k < st->nsteps; k++) {
		for (uint32_t d = 0; d < tl->ndevices; d++) {
			const cg_overtime_device *od = &a->overtime->devices[d];
			if (!od->timed || k >= od->nsteps)
				continue;
			const cg_step_stats *s = &od->steps[k];
			u64(r, k);
			text(r, cg_timeline_str(tl, tl->spans[st->steps[k].span].name));
			text(r, cg_timeline_str(tl, tl->devices[d].name));
			u64(r, st->steps[k].start_ns);
			u64(r, st->steps[k].end_ns);
			u64(r, s->live_at_start);
			u64(r, s->peak_bytes);
			u64(r, s->peak_t_ns);
			u64(r, s->live_at_end);
			i64(r, s->growth);
			u64(r, s->allocated_bytes);
			u64(r, s->freed_bytes);
			u64(r, s->allocations);
			u64(r, s->frees);
			end(r);
		}
	}
}

void cg_csv_write(cg_sink *out, const cg_analysis *a, cg_csv_section s, uint32_t device)
{
	row r = {out, true};
	if (s == CG_CSV_PEAK) {
		header(out, "device,id,bytes,category,phase,span_path,op,allocated_ns,line");
		for (uint32_t d = 0; d < a->tl->ndevices; d++)
			if (device == CG_NONE || device == d)
				peak_rows(&r, a, d);
	} else {
		header(out, "step,name,device,start_ns,end_ns,live_at_start_bytes,peak_bytes,peak_ns,"
			    "live_at_end_bytes,growth_bytes,allocated_bytes,freed_bytes,allocations,frees");
		steps_rows(&r, a);
	}
}
