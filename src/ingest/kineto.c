#include "kineto.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "chrome_stream.h"
#include "diag.h"
#include "finalize.h"
#include "jsontext.h"
#include "kineto_events.h"
#include "kineto_par.h"
#include "parallel.h"
#include "spannest.h"
#include "xalloc.h"

/* --- building the timeline --------------------------------------------------- */

/* b - a for a <= b, which always fits in 64 unsigned bits (not always in signed). */
static uint64_t since(int64_t b, int64_t a)
{
	return (uint64_t)b - (uint64_t)a;
}

/* The innermost operator at or above each span (sorted index), for
 * cg_mem.op. Parents come before their children in the sorted array, so one
 * pass in order finds it for every span: O(spans), where walking up from
 * each memory event to the root cost depth x events. */
static cg_str *ops_of_spans(const cg_kineto_events *k)
{
	cg_str *op = cg_malloc((k->nnest ? k->nnest : 1) * sizeof *op);
	for (size_t i = 0; i < k->nnest; i++) {
		const cg_nest_span *ns = &k->nest[i];
		const cg_kineto_span *sp = &k->spans[ns->payload];
		assert(ns->parent == UINT32_MAX || ns->parent < i);
		if (sp->kind == CG_SPAN_OP)
			op[i] = sp->name;
		else
			op[i] = ns->parent == UINT32_MAX ? CG_STR_EMPTY : op[ns->parent];
	}
	return op;
}

/* Spans in their sorted (nesting) order, which is their index in the
 * timeline: parents come first, so each is added resolved. */
static int add_spans(cg_kineto_events *k)
{
	k->tl->spans_indexed = true; /* also without spans: memory records name none by index */
	for (size_t i = 0; i < k->nnest; i++) {
		const cg_nest_span *ns = &k->nest[i];
		const cg_kineto_span *sp = &k->spans[ns->payload];
		cg_span s = {0};
		s.start_ns = since(ns->start, k->origin);
		s.end_ns = s.start_ns + since(ns->end, ns->start);
		s.name = sp->name;
		s.parent = ns->parent;
		s.line = ns->order;
		s.kind = sp->kind;
		s.step = sp->step;
		s.flags = CG_SPAN_MEASURED;
		int rc = cg_timeline_add_span_resolved(k->tl, &s);
		if (rc < 0)
			return rc;
	}
	k->tl->source.records[CG_KIND_SPAN_START] = k->nnest;
	return 0;
}

static int add_memory(cg_kineto_events *k, const uint32_t *span_of, const cg_str *op_of)
{
	cg_timeline *tl = k->tl;
	for (size_t i = 0; i < k->nmem; i++) {
		const cg_kineto_mem *km = &k->mem[i];
		cg_mem_in m = {0};
		m.t_ns = since(km->ts, k->origin);
		m.bytes = km->bytes;
		m.tensor = cg_tensor_id_str(km->addr);
		m.span = span_of[i];
		m.op = op_of[i];
		m.pair = CG_NONE;
		m.line = km->ordinal;
		m.device = km->device;
		m.action = (uint8_t)(km->flags & CG_KM_FREE ? CG_FREE : CG_ALLOC);
		m.category = CG_CAT_UNKNOWN;
		int rc = cg_timeline_add_mem(tl, &m);
		if (rc < 0)
			return rc;
		if (km->flags & CG_KM_TOTAL_RESERVED) {
			cg_devmem d = {0};
			d.t_ns = m.t_ns;
			d.reserved_bytes = km->total_reserved;
			d.has_reserved = true;
			d.line = km->ordinal;
			d.device = km->device;
			if ((rc = cg_timeline_add_devmem(tl, &d)) < 0)
				return rc;
			tl->source.records[CG_KIND_DEVICE_MEMORY]++;
		}
	}
	tl->source.records[CG_KIND_MEMORY] = k->nmem;
	for (size_t i = 0; i < k->nooms; i++) {
		const cg_kineto_oom *ko = &k->ooms[i];
		cg_oom o = {0};
		o.t_ns = since(ko->ts, k->origin);
		o.bytes = ko->bytes;
		o.total_allocated = ko->total_allocated;
		o.total_reserved = ko->total_reserved;
		o.line = ko->ordinal;
		o.device = ko->device;
		o.has_totals = ko->has_totals;
		int rc = cg_timeline_add_oom(tl, &o);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static bool is_profiler_step(const cg_str name, const cg_timeline *tl)
{
	const char *s = cg_timeline_str(tl, name);
	if (strncmp(s, "ProfilerStep#", 13) != 0 || !s[13])
		return false;
	for (s += 13; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* PyTorch records no forward range: forward is what a step does before
 * its first backward work (docs/pytorch-traces.md, "Spans and phases").
 * A step is a ProfilerStep#N range or, in a trace without them, a root
 * range; its first backward work is the earliest start of a backward-phase
 * span (autograd::engine::evaluate_function, on any thread) inside its
 * window. Below the step, each span without a phase of its own that ends
 * by then becomes forward (its children inherit it); one that straddles
 * that moment (a Python frame around the whole iteration) stays without a
 * phase, and the rule goes on below it. */
static void forward_before_backward(cg_kineto_events *k)
{
	int64_t *bwd = cg_malloc((k->nnest ? k->nnest : 1) * sizeof *bwd);
	size_t nb = 0;
	bool any_step = false;
	for (size_t i = 0; i < k->nnest; i++) {
		const cg_kineto_span *sp = &k->spans[k->nest[i].payload];
		if (sp->step == CG_PHASE_BACKWARD)
			bwd[nb++] = k->nest[i].start;
		any_step |= is_profiler_step(sp->name, k->tl);
	}
	qsort(bwd, nb, sizeof *bwd, cmp_i64);
	/* first[i]: the first backward start of the step at or above span i
	 * that the rule still applies to; INT64_MIN: none */
	int64_t *first = cg_malloc((k->nnest ? k->nnest : 1) * sizeof *first);
	for (size_t i = 0; i < k->nnest; i++) {
		const cg_nest_span *ns = &k->nest[i];
		first[i] = INT64_MIN;
		bool step = any_step ? is_profiler_step(k->spans[ns->payload].name, k->tl) : ns->parent == UINT32_MAX;
		if (!step || k->spans[ns->payload].step != CG_PHASE_NONE || nb == 0)
			continue;
		size_t lo = 0, hi = nb;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (bwd[mid] < ns->start)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < nb && bwd[lo] <= ns->end)
			first[i] = bwd[lo];
	}
	/* parents come before their children */
	for (size_t i = 0; i < k->nnest; i++) {
		const cg_nest_span *ns = &k->nest[i];
		cg_kineto_span *sp = &k->spans[ns->payload];
		if (ns->parent == UINT32_MAX || first[ns->parent] == INT64_MIN || sp->step != CG_PHASE_NONE ||
		    first[i] != INT64_MIN)
			continue;
		int64_t b = first[ns->parent];
		if (ns->end <= b)
			sp->step = CG_PHASE_FORWARD;
		else if (ns->start < b)
			first[i] = b;
	}
	cg_free(first);
	cg_free(bwd);
}

/* Spans nested per thread; each memory event takes the innermost span
 * around it on its own thread. */
static int build(cg_kineto_events *k)
{
	cg_nest_point *pts = cg_malloc((k->nmem ? k->nmem : 1) * sizeof *pts);
	for (size_t i = 0; i < k->nmem; i++)
		pts[i] = (cg_nest_point){k->mem[i].ts, k->mem[i].thread, k->mem[i].ordinal, (uint32_t)i, 0};
	cg_nest_counts nc;
	cg_nest_build(k->nest, k->nnest, pts, k->nmem, &nc);
	forward_before_backward(k);
	if (nc.clipped || nc.reparented)
		cg_diag_add(k->tl, CG_DIAG_WARNING, 0,
			    "%" PRIu64 " complete events overlapped the end of the event they began in: %" PRIu64
			    " stuck out less than they overlapped and were cut back to its end, %" PRIu64
			    " became its siblings", nc.clipped + nc.reparented, nc.clipped, nc.reparented);

	/* span indices: spans are added resolved (cg_timeline_add_span_resolved),
	 * their ids "#" and their event number, not strings */
	uint32_t *span_of = cg_malloc((k->nmem ? k->nmem : 1) * sizeof *span_of);
	cg_str *op_of = cg_calloc(k->nmem ? k->nmem : 1, sizeof *op_of);
	cg_str *span_op = ops_of_spans(k);
	for (size_t j = 0; j < k->nmem; j++) {
		span_of[pts[j].payload] = pts[j].span;
		if (pts[j].span != UINT32_MAX)
			op_of[pts[j].payload] = span_op[pts[j].span];
	}
	cg_free(span_op);
	int rc = add_spans(k);
	if (rc == 0)
		rc = add_memory(k, span_of, op_of);
	cg_free(pts);
	cg_free(span_of);
	cg_free(op_of);
	return rc;
}

static const cg_kineto_mem *event_at(const cg_kineto_events *k, uint32_t ordinal)
{
	size_t lo = 0, hi = k->nmem;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->mem[mid].ordinal < ordinal)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k->nmem && k->mem[lo].ordinal == ordinal ? &k->mem[lo] : NULL;
}

/* Baseline = Total Allocated after the first event that has it, minus what
 * the replay holds live there (frees of blocks from before the trace
 * included, as pairing counts them). Then every later Total Allocated
 * should equal baseline + replayed live bytes: say where it does not. */
static int set_baseline(cg_kineto_events *k, uint16_t d, cg_error *err)
{
	cg_timeline *tl = k->tl;
	const cg_device *dev = &tl->devices[d];
	const char *dname = cg_timeline_str(tl, dev->name);
	uint64_t plus = dev->preexisting_bytes, minus = 0, baseline = 0;
	bool found = false;
	for (uint32_t j = 0; j < dev->mem_count && !found; j++) {
		uint32_t i = dev->mem_first + j;
		if (!cg_add_u64(plus, cg_mem_added(&tl->mem[i]), &plus) ||
		    !cg_add_u64(minus, cg_timeline_mem_removed(tl, i), &minus))
			return 0; /* sums beyond 64 bits: finalize has said so */
		const cg_kineto_mem *km = event_at(k, tl->mem[i].line);
		if (!km || !(km->flags & CG_KM_TOTAL_ALLOCATED))
			continue;
		found = true;
		uint64_t have;
		if (!cg_add_u64(km->total_allocated, minus, &have) || have < plus) {
			cg_diag_add(tl, CG_DIAG_WARNING, km->ordinal,
				    "%s: \"Total Allocated\" (%" PRIu64 " B) is less than the bytes this trace "
				    "shows live there; no baseline assumed", dname, km->total_allocated);
			return 0;
		}
		baseline = have - plus;
	}
	if (!found)
		return 0;
	if (baseline < dev->baseline_bytes) {
		cg_diag_add(tl, CG_DIAG_WARNING, 0,
			    "%s: \"Total Allocated\" implies %" PRIu64 " B allocated before profiling, "
			    "less than the %" PRIu64 " B the frees need; keeping the latter",
			    dname, baseline, dev->baseline_bytes);
		return 0;
	}
	return cg_timeline_set_baseline(tl, d, baseline, err);
}

static void check_totals(cg_kineto_events *k, uint16_t d)
{
	cg_timeline *tl = k->tl;
	const cg_device *dev = &tl->devices[d];
	uint64_t live = dev->baseline_bytes + dev->preexisting_bytes; /* checked by finalize */
	uint64_t checked = 0, differ = 0;
	uint32_t first = 0;
	uint64_t first_trace = 0, first_replay = 0;
	for (uint32_t j = 0; j < dev->mem_count; j++) {
		uint32_t i = dev->mem_first + j;
		live += cg_mem_added(&tl->mem[i]);
		live -= cg_timeline_mem_removed(tl, i);
		const cg_kineto_mem *km = event_at(k, tl->mem[i].line);
		if (!km || !(km->flags & CG_KM_TOTAL_ALLOCATED))
			continue;
		checked++;
		if (km->total_allocated != live && differ++ == 0) {
			first = km->ordinal;
			first_trace = km->total_allocated;
			first_replay = live;
		}
	}
	if (differ)
		cg_diag_add(tl, CG_DIAG_WARNING, first,
			    "%s: \"Total Allocated\" differs from cgmem's replay at %" PRIu64 " of %" PRIu64
			    " events (first here: the trace says %" PRIu64 " B, the replay %" PRIu64 " B)",
			    cg_timeline_str(tl, dev->name), differ, checked, first_trace, first_replay);
}

/* --- the document ------------------------------------------------------------ */

static int add_meta(cg_timeline *tl, const char *key, const char *value, size_t n, bool is_string)
{
	cg_str k, v;
	int rc = cg_timeline_intern(tl, key, strlen(key), &k);
	if (rc == 0)
		rc = cg_timeline_intern(tl, value, n, &v);
	if (rc == 0)
		rc = cg_timeline_add_meta(tl, k, v, is_string);
	return rc;
}

/* deviceProperties' totalGlobalMem by id, for set_capacities. An entry
 * without an integral id and size is left out. */
static void keep_gpus(cg_kineto_events *k, const cJSON *props)
{
	const cJSON *dp;
	cJSON_ArrayForEach(dp, props) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(dp, "id");
		const cJSON *mem = cJSON_GetObjectItemCaseSensitive(dp, "totalGlobalMem");
		/* both below 2^53 in any real trace, so exact as doubles */
		if (!cJSON_IsNumber(id) || !cJSON_IsNumber(mem) || id->valuedouble < 0 || id->valuedouble > 65535 ||
		    mem->valuedouble <= 0 || mem->valuedouble >= 9007199254740992.0 ||
		    id->valuedouble != (double)(int64_t)id->valuedouble ||
		    mem->valuedouble != (double)(uint64_t)mem->valuedouble)
			continue;
		k->gpus = cg_realloc(k->gpus, (k->ngpus + 1) * sizeof *k->gpus);
		k->gpus[k->ngpus++] = (cg_kineto_gpu){(int64_t)id->valuedouble, (uint64_t)mem->valuedouble};
	}
}

/* A GPU device's capacity: the deviceProperties entry whose id is its
 * index ("cuda:1" and "hip:1" are both entry 1: ROCm builds write the
 * same deviceProperties). */
static void set_capacities(cg_kineto_events *k)
{
	cg_timeline *tl = k->tl;
	for (uint16_t d = 0; d < tl->ndevices; d++) {
		const char *name = cg_timeline_str(tl, tl->devices[d].name);
		const char *p = strncmp(name, "cuda:", 5) == 0 ? name + 5 : strncmp(name, "hip:", 4) == 0 ? name + 4 : NULL;
		if (!p || *p < '0' || *p > '9')
			continue;
		char *end;
		long long id = strtoll(p, &end, 10);
		if (*end)
			continue;
		for (size_t i = 0; i < k->ngpus; i++) {
			if (k->gpus[i].id == id) {
				tl->devices[d].capacity_bytes = k->gpus[i].total_bytes;
				tl->devices[d].has_capacity = true;
				break;
			}
		}
	}
}

/* JSON text without the whitespace between tokens, in place (strings and
 * numbers kept byte for byte, where cJSON's printer would round a large
 * integer through a double). Returns the new length. */
static size_t compact_json(char *s, size_t n)
{
	size_t o = 0;
	bool in_string = false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (in_string) {
			s[o++] = c;
			if (c == '\\' && i + 1 < n)
				s[o++] = s[++i];
			else if (c == '"')
				in_string = false;
		} else if (c == '"') {
			in_string = true;
			s[o++] = c;
		} else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			s[o++] = c;
		}
	}
	return o;
}

/* An object kept whole (distributedInfo, metadata): its JSON text. */
static int add_meta_object(cg_timeline *tl, const cg_chrome_key *key)
{
	char *text = cg_strndup(key->value, key->value_len);
	size_t n = compact_json(text, key->value_len);
	int rc = add_meta(tl, key->name, text, n, false);
	cg_free(text);
	return rc;
}

/* distributedInfo's rank and world_size, when integers. */
static void keep_rank(cg_kineto_events *k, const cJSON *info)
{
	cg_source *src = &k->tl->source;
	const cJSON *rank = cJSON_GetObjectItemCaseSensitive(info, "rank");
	const cJSON *size = cJSON_GetObjectItemCaseSensitive(info, "world_size");
	if (cJSON_IsNumber(rank) && rank->valuedouble >= 0 && rank->valuedouble < 1e15 &&
	    rank->valuedouble == (double)(int64_t)rank->valuedouble) {
		src->has_rank = true;
		src->rank = (int64_t)rank->valuedouble;
	}
	if (cJSON_IsNumber(size) && size->valuedouble >= 1 && size->valuedouble < 1e15 &&
	    size->valuedouble == (double)(int64_t)size->valuedouble) {
		src->has_world_size = true;
		src->world_size = (int64_t)size->valuedouble;
	}
}

/* Small top-level keys become run metadata: scalars as written, the
 * distributedInfo and metadata objects as JSON text, and the GPU names from deviceProperties (their sizes become device capacities). */
static int keep_keys(cg_kineto_events *k, const cg_chrome_stream *s, int64_t *base_ns, bool *has_base)
{
	*has_base = false;
	for (size_t i = 0; i < cg_chrome_stream_nkeys(s); i++) {
		const cg_chrome_key *key = cg_chrome_stream_key(s, i);
		if (!key->value)
			continue;
		cJSON *j = cJSON_ParseWithLength(key->value, key->value_len);
		int rc = 0;
		if (cJSON_IsString(j)) {
			rc = add_meta(k->tl, key->name, j->valuestring, strlen(j->valuestring), true);
		} else if (cJSON_IsNumber(j) || cJSON_IsBool(j) || cJSON_IsNull(j)) {
			rc = add_meta(k->tl, key->name, key->value, key->value_len, false);
			if (strcmp(key->name, "baseTimeNanoseconds") == 0 &&
			    cg_json_int(key->value, key->value_len, base_ns) == 0)
				*has_base = true;
		} else if (cJSON_IsObject(j) && (strcmp(key->name, "distributedInfo") == 0 ||
						  strcmp(key->name, "metadata") == 0)) {
			rc = add_meta_object(k->tl, key);
			if (strcmp(key->name, "distributedInfo") == 0)
				keep_rank(k, j);
		} else if (cJSON_IsArray(j) && strcmp(key->name, "deviceProperties") == 0) {
			cJSON *names = cJSON_CreateArray();
			const cJSON *dp;
			cJSON_ArrayForEach(dp, j) {
				const cJSON *nm = cJSON_GetObjectItemCaseSensitive(dp, "name");
				if (cJSON_IsString(nm))
					cJSON_AddItemToArray(names, cJSON_CreateString(nm->valuestring));
			}
			keep_gpus(k, j);
			char *text = cJSON_PrintUnformatted(names);
			if (text)
				rc = add_meta(k->tl, "device_names", text, strlen(text), false);
			cJSON_free(text);
			cJSON_Delete(names);
		}
		cJSON_Delete(j);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static void describe(cg_kineto_events *k, const cg_chrome_stream *s, cg_reader *r, const char *path,
		     int64_t base_ns, bool has_base)
{
	cg_source *src = &k->tl->source;
	src->path = cg_strdup(path);
	src->display_name = cg_strdup(k->name);
	src->format = cg_strdup(cg_chrome_stream_shape(s) == CG_CHROME_ARRAY
					? "Chrome trace, JSON array (PyTorch profiler)"
					: "Chrome trace (PyTorch profiler)");
	src->gzip = cg_reader_is_gzip(r);
	src->file_bytes = cg_reader_bytes_in(r);
	src->data_bytes = cg_reader_bytes_out(r);
	src->lines = cg_chrome_stream_nevents(s);
	src->lines_are_events = true;
	src->categories_known = false;
	src->pairing_known = k->without_addr == 0;
	if (k->have_origin) {
		src->time_origin = cg_strdup(k->origin_text);
		/* Kineto writes epoch microseconds, or microseconds after
		 * baseTimeNanoseconds; 10^18 ns is September 2001. */
		int64_t abs;
		if (has_base && !__builtin_add_overflow(base_ns, k->origin, &abs)) {
			src->time_origin_known = true;
			src->time_origin_unix_ns = abs;
		} else if (!has_base && k->origin >= INT64_C(1000000000000000000)) {
			src->time_origin_known = true;
			src->time_origin_unix_ns = k->origin;
		}
	}
}

static void note_truncation(cg_kineto_events *k, const cg_chrome_stream *s, cg_reader *r)
{
	char note[256];
	bool gz = cg_reader_gzip_truncated(r);
	if (!cg_chrome_stream_cut_note(s, gz, note, sizeof note))
		return;
	cg_source *src = &k->tl->source;
	src->truncated = true;
	src->truncated_line = cg_chrome_stream_nevents(s) + 1;
	src->truncation_note = cg_strdup(note);
	if (gz)
		cg_diag_add(k->tl, CG_DIAG_WARNING, 0, "gzip stream ends before its end marker (file cut short)");
}

/* "FILE: event N: " (N the event's position in traceEvents, from 1) and
 * which limit was hit, with its value. */
static int limit_error(const cg_kineto_events *k, const cg_chrome_event *ev, cg_error *err)
{
	char why[256], at[48] = "";
	if (k->tl->limit_hit == CG_LIMIT_NONE)
		snprintf(why, sizeof why, "more distinct threads than cgmem can hold");
	else
		cg_timeline_limit_text(k->tl, why, sizeof why);
	if (ev)
		snprintf(at, sizeof at, "event %" PRIu64 ": ", ev->ordinal);
	return cg_error_set(err, CG_ELIMIT, "%s: %s%s", k->name, at, why);
}

static int finish(cg_kineto_events *k, cg_chrome_stream *s, cg_reader *r, const char *path, cg_error *err)
{
	cg_timeline *tl = k->tl;
	int64_t base_ns = 0;
	bool has_base;
	int rc = keep_keys(k, s, &base_ns, &has_base);
	if (rc < 0)
		return limit_error(k, NULL, err);
	describe(k, s, r, path, base_ns, has_base);
	note_truncation(k, s, r);
	if (cg_chrome_stream_trailing_bytes(s))
		cg_diag_add(tl, CG_DIAG_WARNING, 0, "bytes after the end of the JSON document were ignored");

	if (cg_chrome_stream_shape(s) == CG_CHROME_EMPTY)
		return cg_error_set(err, CG_EINPUT, "%s: the trace is empty", k->name);
	if (!cg_chrome_stream_has_events(s) && !tl->source.truncated)
		return cg_error_set(err, CG_EINPUT, "%s: a JSON object without \"traceEvents\": not a Chrome trace", k->name);
	if (k->nmem == 0 && k->nooms == 0)
		return cg_error_set(err, CG_EINPUT,
				    "%s: no [memory] events among %" PRIu64 " events%s: record the trace with "
				    "torch.profiler.profile(profile_memory=True)", k->name,
				    cg_chrome_stream_nevents(s), tl->source.truncated ? " (the trace is cut short)" : "");
	if (k->zero_bytes)
		cg_diag_add(tl, CG_DIAG_WARNING, 0, "%" PRIu64 " [memory] events of 0 bytes were skipped", k->zero_bytes);
	if (k->without_addr)
		cg_diag_add(tl, CG_DIAG_WARNING, 0,
			    "%" PRIu64 " of %zu [memory] events have no \"Addr\" (PyTorch before ~1.10): frees cannot be "
			    "paired with allocations; live bytes are the running sum of \"Bytes\"",
			    k->without_addr, k->nmem);

	rc = build(k);
	if (rc < 0)
		return limit_error(k, NULL, err);
	rc = cg_timeline_finalize(tl, err);
	if (rc == 0)
		set_capacities(k);
	for (uint16_t d = 0; d < tl->ndevices && rc == 0; d++) {
		rc = set_baseline(k, d, err);
		if (rc == 0)
			check_totals(k, d);
	}
	return rc;
}

/* One event, in document order: its fields when they were read already. */
static int one_event(void *ctx, const cg_chrome_event *ev, const cg_kineto_fields *f, cg_error *err)
{
	cg_kineto_events *k = ctx;
	if (ev->ordinal >= UINT32_MAX)
		return cg_error_set(err, CG_ELIMIT, "%s: more than %u events", k->name, UINT32_MAX - 1);
	int rc = f ? cg_kineto_events_take(k, f, (uint32_t)ev->ordinal, err) : cg_kineto_events_add(k, ev, err);
	if (rc == CG_ELIMIT) /* interning and record arrays say nothing themselves */
		limit_error(k, ev, err);
	return rc;
}

int cg_kineto_ingest(cg_timeline **out, cg_reader *r, const char *path, const cg_ingest_options *o,
		     cg_error *err)
{
	cg_ingest_options defaults = CG_INGEST_OPTIONS_INIT;
	if (!o)
		o = &defaults;
	*out = NULL;
	cg_kineto_events k;
	cg_kineto_events_init(&k, cg_ingest_timeline_new(o), o, cg_reader_name(r));
	k.slow_only = o->cjson_only;

	cg_chrome_options co = CG_CHROME_OPTIONS_INIT;
	co.max_event_bytes = o->max_line_bytes;
	cg_chrome_stream *s = cg_chrome_stream_new(r, &co);

	int rc;
	/* Past a few parse threads the reader thread's scan sets the pace. */
	unsigned threads = o->threads ? o->threads : cg_cpu_count();
	if (threads > 1) {
		rc = cg_kineto_read_parallel(s, r, o, threads > 4 ? 3 : threads - 1, !o->cjson_only, one_event, &k, err);
	} else {
		cg_chrome_event ev;
		while ((rc = cg_chrome_stream_next(s, &ev, err)) > 0) {
			if ((rc = one_event(&k, &ev, NULL, err)) < 0)
				break;
			if ((ev.ordinal & 4095) == 0)
				cg_ingest_progress(o, cg_reader_bytes_in(r), cg_reader_file_size(r), false);
		}
	}
	cg_ingest_progress(o, cg_reader_bytes_in(r), cg_reader_file_size(r), true);
	if (rc == 0)
		rc = finish(&k, s, r, path, err);

	cg_chrome_stream_free(s);
	cg_kineto_events_free(&k);
	if (rc < 0) {
		cg_timeline_free(k.tl);
		return rc;
	}
	*out = k.tl;
	return 0;
}
