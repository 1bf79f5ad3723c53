/* Limits on a run, for continuous integration (`cgmem check`): each limit
 * is judged per device from the analysis, one verdict per limit and device.
 *
 *     cg_check_limits l = CG_CHECK_LIMITS_INIT;
 *     l.peak = true;
 *     l.max_peak = 12ull << 30;
 *     cg_check_result *r;
 *     if (cg_check_run(&r, a, NULL, &l, &err) < 0) ...;   // CG_EUSAGE: no such device
 *     for (size_t i = 0; i < r->n; i++) ...r->verdicts[i].ok...
 *     cg_check_free(r);
 *
 * The figures (docs/analysis.md, "Limits"):
 * - peak: the device's peak of live bytes;
 * - fragmentation: the largest (reserved - live) / reserved at a device
 *   checkpoint; for a device without checkpoints that record reserved
 *   bytes, the allocator replay's estimate at the peak, except on a CPU
 *   ("cpu..."), which has no caching allocator: there it does not apply
 *   and the limit holds;
 * - leaked: bytes live at the end outside parameters, optimizer state and
 *   memory from before profiling (cg_leaks_candidate_bytes);
 * - growth: (peak - baseline's peak) / baseline's peak in percent, the
 *   devices matched by name; from a baseline without the device, or whose
 *   peak is 0, any growth is unbounded.
 * A figure that cannot be measured fails its limit; one that does not apply
 * (a CPU's fragmentation) holds, and every output says "n/a" with the
 * reason (cg_check_outcome_of). */
#ifndef CG_CHECK_H
#define CG_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

typedef enum cg_check_kind {
	CG_CHECK_PEAK,
	CG_CHECK_FRAGMENTATION,
	CG_CHECK_LEAKED,
	CG_CHECK_GROWTH,
	CG_CHECK_KIND_COUNT
} cg_check_kind;

typedef struct cg_check_limits {
	bool peak, fragmentation, leaked, growth; /* which limits apply */
	uint64_t max_peak;			  /* bytes */
	double max_fragmentation;		  /* a ratio, 0.3 for 30 % */
	uint64_t max_leaked;			  /* bytes */
	/* percent in millionths (2.5 % is 2500000), so that growth is judged
	 * exactly in integers */
	uint64_t max_growth_millionths;
	const char *device;			  /* NULL: every device */
} cg_check_limits;

#define CG_CHECK_LIMITS_INIT {false, false, false, false, 0, 0.0, 0, 0, NULL}

typedef enum cg_frag_source {
	CG_FRAG_CHECKPOINT, /* recorded reserved bytes at a checkpoint */
	CG_FRAG_REPLAY,	    /* the allocator replay's estimate at the peak */
	CG_FRAG_NOT_APPLICABLE, /* a CPU without checkpoints: no caching allocator */
	CG_FRAG_UNKNOWN,    /* neither: not measured */
} cg_frag_source;

typedef struct cg_check_verdict {
	uint8_t kind;	     /* cg_check_kind */
	const char *device;  /* borrowed from the run's timeline */
	bool ok;
	bool measured;	     /* false: the figure is unknown or does not apply (n/a) */
	uint64_t bytes;	     /* peak, leaked: the measured bytes; growth: the run's peak */
	double value;	     /* fragmentation: the ratio; growth: percent (when bounded) */
	uint64_t t_ns;	     /* fragmentation at a checkpoint or the peak; peak: its time */
	uint8_t source;	     /* fragmentation: cg_frag_source */
	uint64_t base_bytes; /* growth: the baseline's peak (0 without the device) */
	bool in_baseline;    /* growth: the baseline has the device */
	bool unbounded;	     /* growth: from 0 bytes to more */
} cg_check_verdict;

typedef struct cg_check_result {
	cg_check_verdict *verdicts; /* by limit (the order of cg_check_kind), then device */
	size_t n;
	size_t failed;
} cg_check_result;

/* Judges the limits of l on the analysis a; baseline is needed for growth
 * only (else NULL). *out belongs to the caller. Returns CG_EUSAGE when
 * l->device names no device of the run, or growth is asked without a
 * baseline. */
int cg_check_run(cg_check_result **out, const cg_analysis *a, const cg_analysis *baseline,
		 const cg_check_limits *l, cg_error *err);
void cg_check_free(cg_check_result *r);

/* What a verdict says, one rule for every output (text, JSON, CI formats),
 * so that they cannot disagree: FAIL when the limit fails, n/a when it
 * cannot be judged (the figure is unknown or does not apply), else ok. */
typedef enum cg_check_outcome {
	CG_CHECK_HOLDS,
	CG_CHECK_FAILS,
	CG_CHECK_NOT_APPLICABLE,
} cg_check_outcome;

cg_check_outcome cg_check_outcome_of(const cg_check_verdict *v);
/* "ok", "FAIL", "n/a": the word a text line starts with. */
const char *cg_check_outcome_word(cg_check_outcome o);
/* Why v has no figure ("a CPU has no caching allocator and no checkpoint
 * records reserved bytes"), or NULL when it has one. */
const char *cg_check_reason(const cg_check_verdict *v);

/* "max-peak", "max-fragmentation", "max-leaked", "max-growth": the option
 * that sets the limit. */
const char *cg_check_kind_name(cg_check_kind k);

#endif
