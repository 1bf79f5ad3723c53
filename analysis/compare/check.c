#include "check.h"

#include <string.h>
#include <strings.h>

#include "xalloc.h"

const char *cg_check_kind_name(cg_check_kind k)
{
	static const char *const names[CG_CHECK_KIND_COUNT] = {"max-peak", "max-fragmentation", "max-leaked",
							       "max-growth"};
	return k < CG_CHECK_KIND_COUNT ? names[k] : "?";
}

cg_check_outcome cg_check_outcome_of(const cg_check_verdict *v)
{
	if (!v->ok)
		return CG_CHECK_FAILS;
	return v->measured ? CG_CHECK_HOLDS : CG_CHECK_NOT_APPLICABLE;
}

const char *cg_check_outcome_word(cg_check_outcome o)
{
	static const char *const words[] = {"ok", "FAIL", "n/a"};
	return (unsigned)o < sizeof words / sizeof words[0] ? words[o] : "?";
}

const char *cg_check_reason(const cg_check_verdict *v)
{
	if (v->measured)
		return NULL;
	if (v->kind != CG_CHECK_FRAGMENTATION)
		return "not measured"; /* only fragmentation can be unknown today */
	if (v->source == CG_FRAG_NOT_APPLICABLE)
		return "a CPU has no caching allocator and no checkpoint records reserved bytes";
	return "no checkpoint records reserved bytes and the allocator replay is not available";
}

static bool same_name(const cg_timeline *tl, uint32_t d, const char *name, size_t len)
{
	cg_str s = tl->devices[d].name;
	return cg_strtab_len(tl->strings, s) == len && memcmp(cg_timeline_str(tl, s), name, len) == 0;
}

typedef struct builder {
	cg_check_result *r;
	size_t cap;
} builder;

static cg_check_verdict *add(builder *b, cg_check_kind kind, const cg_timeline *tl, uint32_t d)
{
	CG_GROW(b->r->verdicts, b->cap, b->r->n + 1);
	cg_check_verdict *v = &b->r->verdicts[b->r->n++];
	*v = (cg_check_verdict){.kind = (uint8_t)kind, .device = cg_timeline_str(tl, tl->devices[d].name),
				.measured = true, .source = CG_FRAG_UNKNOWN};
	return v;
}

/* A CPU has no caching allocator to replay (the end-of-trace pass uses
 * the same rule). */
static bool is_cpu(const cg_timeline *tl, uint32_t d)
{
	return strncasecmp(cg_timeline_str(tl, tl->devices[d].name), "cpu", 3) == 0;
}

static void fragmentation(cg_check_verdict *v, const cg_analysis *a, uint32_t d, double limit)
{
	const cg_checkpoints_device *cp = &a->checkpoints->devices[d];
	const cg_replay_device *rp = &a->replay->devices[d];
	if (cp->max_fragmentation != CG_NONE) {
		v->source = CG_FRAG_CHECKPOINT;
		v->value = cp->list[cp->max_fragmentation].fragmentation;
		v->t_ns = cp->list[cp->max_fragmentation].t_ns;
	} else if (is_cpu(a->tl, d)) {
		v->source = CG_FRAG_NOT_APPLICABLE;
		v->measured = false;
		v->ok = true;
		return;
	} else if (rp->available) {
		v->source = CG_FRAG_REPLAY;
		v->value = rp->standard.at_peak.frag_reserved;
		v->t_ns = a->peak->devices[d].peak_t_ns;
	} else {
		/* cannot be judged: n/a with the reason, as a CPU's (issue 19) */
		v->measured = false;
		v->ok = true;
		return;
	}
	v->ok = !(v->value > limit);
}

/* Growth judged in integers: (peak - base) * 100 * 10^6 > limit_millionths * base. */
static void growth(cg_check_verdict *v, uint64_t peak, uint64_t base, uint64_t limit_millionths)
{
	v->bytes = peak;
	v->base_bytes = base;
	if (peak <= base) {
		v->value = peak < base ? -((double)(base - peak) / (double)base * 100.0) : 0.0;
		v->ok = true;
		return;
	}
	if (base == 0) {
		v->unbounded = true;
		v->ok = false;
		return;
	}
	v->value = (double)(peak - base) / (double)base * 100.0;
	__uint128_t grown = (__uint128_t)(peak - base) * 100u * 1000000u;
	v->ok = grown <= (__uint128_t)limit_millionths * base;
}

/* Baseline device index by name, through a string table (devices can be
 * many: no quadratic search). */
typedef struct name_index {
	cg_strtab *names;
	uint32_t *index; /* by string id */
	uint32_t n;
} name_index;

static void index_devices(name_index *x, const cg_timeline *tl)
{
	x->names = cg_strtab_new(0);
	cg_str *ids = cg_malloc((tl->ndevices ? tl->ndevices : 1) * sizeof *ids);
	for (uint32_t d = 0; d < tl->ndevices; d++)
		(void)cg_strtab_intern(x->names, cg_timeline_str(tl, tl->devices[d].name),
				       cg_strtab_len(tl->strings, tl->devices[d].name), &ids[d]);
	x->n = cg_strtab_count(x->names);
	x->index = cg_malloc((x->n ? x->n : 1) * sizeof *x->index);
	memset(x->index, 0xff, (x->n ? x->n : 1) * sizeof *x->index);
	for (uint32_t d = 0; d < tl->ndevices; d++)
		x->index[ids[d]] = d;
	cg_free(ids);
}

static uint32_t find_device(const name_index *x, const cg_timeline *tl, uint32_t d)
{
	cg_str id;
	if (cg_strtab_find(x->names, cg_timeline_str(tl, tl->devices[d].name),
			   cg_strtab_len(tl->strings, tl->devices[d].name), &id) != 1 || id >= x->n)
		return CG_NONE;
	return x->index[id];
}

int cg_check_run(cg_check_result **out, const cg_analysis *a, const cg_analysis *baseline,
		 const cg_check_limits *l, cg_error *err)
{
	const cg_timeline *tl = a->tl;
	*out = NULL;
	if (l->growth && !baseline)
		return cg_error_set(err, CG_EUSAGE, "a growth limit needs a baseline run");
	uint32_t only = CG_NONE;
	if (l->device) {
		for (uint32_t d = 0; d < tl->ndevices && only == CG_NONE; d++)
			if (same_name(tl, d, l->device, strlen(l->device)))
				only = d;
		if (only == CG_NONE)
			return cg_error_set(err, CG_EUSAGE, "%s has no device named '%s'",
					    tl->source.display_name ? tl->source.display_name : "the trace", l->device);
	}
	builder b = {cg_calloc(1, sizeof *b.r), 0};
	name_index base = {0};
	if (l->growth)
		index_devices(&base, baseline->tl);
	const bool want[CG_CHECK_KIND_COUNT] = {l->peak, l->fragmentation, l->leaked, l->growth};
	for (int k = 0; k < CG_CHECK_KIND_COUNT; k++) {
		if (!want[k])
			continue;
		for (uint32_t d = 0; d < tl->ndevices; d++) {
			if (only != CG_NONE && d != only)
				continue;
			cg_check_verdict *v = add(&b, (cg_check_kind)k, tl, d);
			switch ((cg_check_kind)k) {
			case CG_CHECK_PEAK:
				v->bytes = a->peak->devices[d].peak_bytes;
				v->t_ns = a->peak->devices[d].peak_t_ns;
				v->ok = v->bytes <= l->max_peak;
				break;
			case CG_CHECK_FRAGMENTATION:
				fragmentation(v, a, d, l->max_fragmentation);
				break;
			case CG_CHECK_LEAKED:
				v->bytes = cg_leaks_candidate_bytes(a->at_end->devices[d].by_category);
				v->ok = v->bytes <= l->max_leaked;
				break;
			case CG_CHECK_GROWTH: {
				uint32_t bd = find_device(&base, tl, d);
				v->in_baseline = bd != CG_NONE;
				growth(v, a->peak->devices[d].peak_bytes,
				       bd == CG_NONE ? 0 : baseline->peak->devices[bd].peak_bytes, l->max_growth_millionths);
				break;
			}
			case CG_CHECK_KIND_COUNT:
				break;
			}
			if (!v->ok)
				b.r->failed++;
		}
	}
	cg_strtab_free(base.names);
	cg_free(base.index);
	*out = b.r;
	return 0;
}

void cg_check_free(cg_check_result *r)
{
	if (!r)
		return;
	cg_free(r->verdicts);
	cg_free(r);
}
