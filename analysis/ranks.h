/* The figures of a job's ranks (docs/ranks.md): over every rank and
 * device, the spread of the peaks (max / median, max - min), per phase the
 * same, the highest peak, the rank that stopped first by the wall clock,
 * the outliers, and the ranks missing from world_size. Plain data from a
 * sorted cg_rankset; the same set gives the same figures.
 *
 *     cg_ranks_result *f;
 *     cg_ranks_run(&f, &set);
 *     ... f->peak.max_bytes ...
 *     cg_ranks_free(f);
 */
#ifndef CG_RANKS_H
#define CG_RANKS_H

#include "rankset.h"

/* A row of the top report: one device of one rank. */
typedef struct cg_rank_ref {
	size_t rank;   /* index into the set */
	size_t device; /* index into its devices */
} cg_rank_ref;

/* The spread of one figure over the rows that have it. The median is the
 * lower middle value for an even count, a value some row has. */
typedef struct cg_ranks_spread {
	size_t count; /* rows with the figure; 0: nothing below is set */
	int64_t max_bytes, min_bytes, median_bytes;
	cg_rank_ref max_at, min_at; /* the first row (by rank, device) with it */
	double max_over_median;	    /* 0 when the median is 0 */
} cg_ranks_spread;

typedef struct cg_ranks_result {
	size_t nrows; /* every device of every rank */
	cg_ranks_spread peak;
	cg_ranks_spread phase[CG_PHASE_COUNT];
	/* world_size: the one the ranks give (the largest when they disagree) */
	bool world_known, world_disagrees;
	int64_t world_size;
	int64_t *missing; /* ranks of 0 .. world_size - 1 no file has, ascending */
	size_t nmissing;
	int64_t *beyond; /* ranks at or past world_size */
	size_t nbeyond;
	bool has_first_stop;
	size_t first_stop;	    /* index of the rank whose trace ends first by the wall clock */
	size_t nwall;		    /* ranks whose traces give the wall clock */
	/* Peaks further from the median than CG_RANKS_OUTLIER_MADS median
	 * absolute deviations and CG_RANKS_OUTLIER_SHARE of the median. */
	int64_t mad_bytes;
	cg_rank_ref *outliers;
	size_t noutliers;
} cg_ranks_result;

#define CG_RANKS_OUTLIER_MADS 3
#define CG_RANKS_OUTLIER_SHARE 0.10

/* Computes the figures of s (sorted). *out is the caller's. */
void cg_ranks_run(cg_ranks_result **out, const cg_rankset *s);
void cg_ranks_free(cg_ranks_result *r);

#endif
