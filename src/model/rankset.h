/* The ranks of a distributed job, as the top report needs them: one row
 * per rank with its devices' key figures, taken from each rank's partial
 * result (its summary.json; docs/ranks.md). The set is plain data: merging
 * two sets is their union, kept sorted by rank, so any grouping and any
 * order of merges gives the same set. */
#ifndef CG_RANKSET_H
#define CG_RANKSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "enums.h"
#include "error.h"

/* How a rank's number was found (docs/ranks.md, in this order). */
typedef enum cg_rank_from {
	CG_RANK_FROM_DISTRIBUTED, /* distributedInfo.rank (run.rank of summary.json) */
	CG_RANK_FROM_REGEX,	  /* --rank-from REGEX on the file name */
	CG_RANK_FROM_NAME,	  /* the file name: rank[-_]?N, else a trailing _N */
	CG_RANK_FROM_COUNT
} cg_rank_from;

/* How a rank's trace ends. */
typedef enum cg_rank_stop { CG_RANK_STOP_END, CG_RANK_STOP_OOM, CG_RANK_STOP_CUT, CG_RANK_STOP_COUNT } cg_rank_stop;

typedef struct cg_rank_device {
	char *name;
	int64_t peak_bytes;
	bool has_peak_time;
	int64_t peak_time_ns;
	char *step;  /* the step the peak is in, NULL when none */
	char *phase; /* the phase of the allocation that set the peak, NULL when none */
	bool has_capacity;
	int64_t capacity_bytes;
	bool oom; /* this device ran out of memory */
	/* per phase its peak (has_phase[p] when the phase ran) */
	bool has_phase[CG_PHASE_COUNT];
	int64_t phase_peak[CG_PHASE_COUNT];
	/* live bytes at the peak by category */
	int64_t at_peak[CG_CAT_COUNT];
	/* live bytes over [0, series_end_ns] of the rank's trace, downsampled
	 * (over_time.live_series: per bucket the max); nseries 0 when the
	 * partial has none (older cgmem) */
	int64_t series_end_ns;
	size_t nseries;
	int64_t *series;
} cg_rank_device;

typedef struct cg_rank {
	int64_t rank;
	cg_rank_from from;
	bool has_world_size;
	int64_t world_size;
	char *file;   /* the trace's file name, without its folder */
	char *format; /* "candle-graph/trace/6 JSONL", ... */
	cg_rank_stop stop;
	int64_t stop_ns; /* when the trace ends (the last record or the OOM), ns from its start */
	/* the wall clock of that end, when the trace says when it started */
	bool has_wall;
	int64_t stop_unix_ns;
	cg_rank_device *devices;
	size_t ndevices;
} cg_rank;

typedef struct cg_rankset {
	cg_rank *ranks; /* sorted by rank once cg_rankset_merge or _sort ran */
	size_t n, cap;
} cg_rankset;

/* A new empty row appended to s (zeroed; the caller fills it). */
cg_rank *cg_rankset_add(cg_rankset *s);
/* A new device appended to r (zeroed). */
cg_rank_device *cg_rank_add_device(cg_rank *r);
/* Frees the rows; s is empty and reusable. NULL is a no-op. */
void cg_rankset_clear(cg_rankset *s);

/* Sorts by rank. Two rows of one rank are an error (CG_EINPUT) naming
 * both files and how each got the number; the set is left sorted. */
int cg_rankset_sort(cg_rankset *s, cg_error *err);
/* The same error when the last row's rank is another row's, else 0: for
 * callers that act on a rank's number as soon as they have it. */
int cg_rankset_check_last(const cg_rankset *s, cg_error *err);
/* Moves every row of from into into (from is left empty), then sorts:
 * the union. */
int cg_rankset_merge(cg_rankset *into, cg_rankset *from, cg_error *err);

const char *cg_rank_from_name(cg_rank_from f);	 /* "distributedInfo.rank", "--rank-from on its name", "its file name" */
const char *cg_rank_from_key(cg_rank_from f);	 /* "distributed_info", "regex", "file_name" */
bool cg_rank_from_parse(const char *s, cg_rank_from *out); /* from the key */
const char *cg_rank_stop_key(cg_rank_stop s);	 /* "end", "oom", "cut" */
bool cg_rank_stop_parse(const char *s, cg_rank_stop *out);

#endif
