#include "analysis.h"

#include <string.h>

#include "parallel.h"
#include "xalloc.h"

typedef struct replay_task {
	cg_analysis *a;
	cg_replay_input in;
} replay_task;

static void run_replay(void *arg)
{
	replay_task *t = arg;
	cg_replay_run(&t->a->replay, t->a->tl, &t->in, NULL);
}

/* Plain data handed from pass to pass, built once here. */
typedef struct shared {
	uint32_t *peak_after;	/* per device: the peak's record */
	uint64_t *peak_t_ns;
	uint32_t *end_after;	/* per device: the end moment's record */
	uint64_t *step_start, *step_end;
	uint32_t *step_span;
	uint32_t **end_allocs;	/* per device: alloc records live at the end */
	size_t *nend_allocs;
	bool *per_step;		/* per device: per-step figures were evaluated */
	replay_task replay;	/* reads peak_after and end_after until joined */
	cg_task replay_task;
	bool replay_started;
} shared;

static void join_replay(shared *s)
{
	if (s->replay_started)
		cg_task_join(&s->replay_task);
	s->replay_started = false;
}

static void shared_free(shared *s, uint32_t ndevices)
{
	cg_free(s->peak_after);
	cg_free(s->peak_t_ns);
	cg_free(s->end_after);
	cg_free(s->step_start);
	cg_free(s->step_end);
	cg_free(s->step_span);
	if (s->end_allocs)
		for (uint32_t d = 0; d < ndevices; d++)
			cg_free(s->end_allocs[d]);
	cg_free(s->end_allocs);
	cg_free(s->nend_allocs);
	cg_free(s->per_step);
}

/* The alloc records of a live set (those from before the trace have none). */
static uint32_t *alloc_indices(const cg_liveset_device *ls, size_t *n)
{
	uint32_t *idx = cg_malloc((ls->nallocs ? ls->nallocs : 1) * sizeof *idx);
	*n = 0;
	for (size_t i = 0; i < ls->nallocs; i++)
		if (ls->allocs[i].alloc != CG_NONE)
			idx[(*n)++] = ls->allocs[i].alloc;
	return idx;
}

static int build_peak_trees(cg_analysis *a, cg_error *err)
{
	const cg_timeline *tl = a->tl;
	size_t nd1 = tl->ndevices ? tl->ndevices : 1;
	cg_pathtree_input *in = cg_calloc(nd1, sizeof *in);
	uint32_t **idx = cg_calloc(nd1, sizeof *idx);
	for (uint32_t d = 0; d < tl->ndevices; d++) {
		const cg_liveset_device *ls = &a->at_peak->devices[d];
		if (!ls->listed)
			continue;
		in[d].build = true;
		idx[d] = alloc_indices(ls, &in[d].nallocs);
		in[d].allocs = idx[d];
		for (size_t i = 0; i < ls->nallocs; i++) {
			if (ls->allocs[i].alloc == CG_NONE) {
				in[d].before_trace_bytes += ls->allocs[i].bytes;
				in[d].before_trace_count++;
			}
		}
		in[d].baseline_bytes = tl->devices[d].baseline_bytes;
	}
	int rc = cg_pathtree_run(&a->peak_trees, tl, in, tl->ndevices, err);
	for (uint32_t d = 0; d < tl->ndevices; d++)
		cg_free(idx[d]);
	cg_free(idx);
	cg_free(in);
	return rc;
}

#define RUN(call) \
	do { \
		if ((rc = (call)) < 0) \
			return rc; \
	} while (0)

static int run_passes(cg_analysis *a, shared *s, cg_error *err)
{
	const cg_timeline *tl = a->tl;
	uint32_t nd = tl->ndevices;
	size_t nd1 = nd ? nd : 1;
	int rc;

	RUN(cg_peak_run(&a->peak, tl, err));
	s->peak_after = cg_malloc(nd1 * sizeof *s->peak_after);
	s->peak_t_ns = cg_malloc(nd1 * sizeof *s->peak_t_ns);
	s->end_after = cg_malloc(nd1 * sizeof *s->end_after);
	for (uint32_t d = 0; d < nd; d++) {
		s->peak_after[d] = a->peak->devices[d].peak_index;
		s->peak_t_ns[d] = a->peak->devices[d].peak_t_ns;
		cg_endtrace_moment(tl, d, &s->end_after[d], NULL);
	}
	/* The allocator replay takes longer than every other pass together:
	 * it runs beside them, on its own threads. */
	s->replay = (replay_task){a, {s->peak_after, s->end_after, a->options.threads}};
	if (a->options.threads == 1) {
		run_replay(&s->replay);
	} else {
		cg_task_start(&s->replay_task, run_replay, &s->replay);
		s->replay_started = true;
	}

	RUN(cg_liveset_run(&a->at_peak, tl, s->peak_after, err));
	RUN(cg_liveset_run(&a->at_end, tl, s->end_after, err));
	RUN(build_peak_trees(a, err));

	RUN(cg_steps_run(&a->steps, tl, err));
	uint32_t ns = a->steps->nsteps;
	s->step_start = cg_malloc((ns ? ns : 1) * sizeof *s->step_start);
	s->step_end = cg_malloc((ns ? ns : 1) * sizeof *s->step_end);
	s->step_span = cg_malloc((ns ? ns : 1) * sizeof *s->step_span);
	for (uint32_t k = 0; k < ns; k++) {
		s->step_start[k] = a->steps->steps[k].start_ns;
		s->step_end[k] = a->steps->steps[k].end_ns;
		s->step_span[k] = a->steps->steps[k].span;
	}
	cg_overtime_input ot = {ns, s->step_start, s->step_end, a->steps->step_of_span, a->steps->nspans, 0,
			       a->options.threads};
	RUN(cg_overtime_run(&a->overtime, tl, &ot, err));
	RUN(cg_checkpoints_run(&a->checkpoints, tl, s->peak_t_ns, err));

	s->end_allocs = cg_calloc(nd1, sizeof *s->end_allocs);
	s->nend_allocs = cg_calloc(nd1, sizeof *s->nend_allocs);
	for (uint32_t d = 0; d < nd; d++)
		s->end_allocs[d] = alloc_indices(&a->at_end->devices[d], &s->nend_allocs[d]);
	s->per_step = cg_malloc(nd1 * sizeof *s->per_step);
	for (uint32_t d = 0; d < nd; d++)
		s->per_step[d] = a->overtime->devices[d].timed;
	cg_leaks_input lk = {(const uint32_t *const *)s->end_allocs, s->nend_allocs, ns, s->step_span,
			     a->steps->step_of_span, a->steps->nspans, a->steps->label, s->per_step};
	RUN(cg_leaks_run(&a->leaks, tl, &lk, err));
	RUN(cg_lifetimes_run(&a->lifetimes, tl, a->options.threads, err));
	RUN(cg_gradients_run(&a->gradients, tl, err));
	RUN(cg_allocstate_run(&a->allocstate, tl, err));
	/* Only the end-of-trace verdict reads the replay (its estimate at the
	 * end): every other pass runs while the replay does. */
	join_replay(s);

	uint64_t *live = cg_malloc(nd1 * sizeof *live);
	uint64_t *by_category = cg_malloc(nd1 * CG_CAT_COUNT * sizeof *by_category);
	uint64_t *estimated = cg_malloc(nd1 * sizeof *estimated);
	for (uint32_t d = 0; d < nd; d++) {
		live[d] = a->at_end->devices[d].bytes;
		memcpy(by_category + (size_t)d * CG_CAT_COUNT, a->at_end->devices[d].by_category,
		       sizeof a->at_end->devices[d].by_category);
		estimated[d] = a->replay->devices[d].available ? a->replay->devices[d].standard.at_end.reserved : 0;
	}
	cg_endtrace_input et = {live, by_category, estimated, ns, s->step_span, a->steps->step_of_span,
				a->steps->nspans, a->options.top_n};
	rc = cg_endtrace_run(&a->end, tl, &et, err);
	cg_free(live);
	cg_free(by_category);
	cg_free(estimated);
	return rc;
}

int cg_analysis_run(cg_analysis **out, const cg_timeline *tl, const cg_analysis_options *o,
		    cg_error *err)
{
	cg_analysis_options defaults = CG_ANALYSIS_OPTIONS_INIT;
	*out = NULL;
	if (!tl->finalized)
		return cg_error_set(err, CG_EUSAGE, "the timeline must be finalized before analysis");
	cg_analysis *a = cg_calloc(1, sizeof *a);
	a->tl = tl;
	a->options = o ? *o : defaults;
	shared s = {0};
	int rc = run_passes(a, &s, err);
	join_replay(&s); /* also when a pass failed */
	shared_free(&s, tl->ndevices);
	if (rc < 0) {
		cg_analysis_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

void cg_analysis_free(cg_analysis *a)
{
	if (!a)
		return;
	cg_pathtree_free(a->peak_trees);
	cg_peak_free(a->peak);
	cg_liveset_free(a->at_peak);
	cg_steps_free(a->steps);
	cg_overtime_free(a->overtime);
	cg_checkpoints_free(a->checkpoints);
	cg_replay_free(a->replay);
	cg_liveset_free(a->at_end);
	cg_leaks_free(a->leaks);
	cg_lifetimes_free(a->lifetimes);
	cg_endtrace_free(a->end);
	cg_gradients_free(a->gradients);
	cg_allocstate_free(a->allocstate);
	cg_free(a);
}
