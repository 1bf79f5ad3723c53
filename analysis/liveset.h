/* Live-set pass: what was live on each device at one moment (the peak, the
 * end of the trace), rebuilt in one pass over the device's records from the
 * pairing, never from per-event snapshots.
 *
 *     uint32_t after[ndevices];              // e.g. each device's peak record
 *     cg_liveset_result *ls;
 *     cg_liveset_run(&ls, tl, after, &err);
 *     const cg_liveset_device *d = &ls->devices[0];
 *     for (size_t i = 0; i < d->nallocs && i < 20; i++) ...d->allocs[i]...   // largest first
 *     cg_liveset_free(ls);
 *
 * Bytes by category come from running sums, so they are right also when the
 * trace's frees could not be paired (tl->source.pairing_known false); the
 * list of allocations and the phase breakdown need the pairing and are left
 * empty (listed false) without it. */
#ifndef CG_LIVESET_H
#define CG_LIVESET_H

#include <stdbool.h>
#include <stdint.h>

#include "timeline.h"

/* One allocation live at the moment. */
typedef struct cg_live_alloc {
	uint32_t alloc; /* its alloc record (index into tl->mem); CG_NONE: allocated before the trace */
	uint32_t end;	/* the record that ends it (its free, or an alloc reusing the live id); CG_NONE: never */
	uint64_t bytes;
} cg_live_alloc;

typedef struct cg_liveset_device {
	uint32_t after;		 /* the moment: after this record (index into tl->mem); CG_NONE: before any */
	uint64_t bytes;		 /* live bytes, before-profiling baseline included */
	uint64_t count;		 /* live allocations (those from before the trace included; baseline not) */
	uint64_t by_category[CG_CAT_COUNT];	/* baseline under CG_CAT_BASELINE */
	uint64_t count_by_category[CG_CAT_COUNT];
	bool listed;		 /* pairing known: allocs, by_phase and by_phase_category are filled */
	uint64_t by_phase[CG_PHASE_COUNT]; /* by the phase that allocated; before-trace and baseline under none */
	uint64_t by_phase_category[CG_PHASE_COUNT][CG_CAT_COUNT];
	cg_live_alloc *allocs;	 /* every live allocation, largest first; ties: allocated first first */
	size_t nallocs;
} cg_liveset_device;

typedef struct cg_liveset_result {
	uint32_t ndevices;
	cg_liveset_device *devices; /* indexed like tl->devices */
} cg_liveset_result;

/* Rebuilds the live set of every device d after record after[d] (an index
 * into tl->mem within d's records, or CG_NONE for the moment before its
 * first record). *out belongs to the caller. */
int cg_liveset_run(cg_liveset_result **out, const cg_timeline *tl, const uint32_t *after, cg_error *err);
void cg_liveset_free(cg_liveset_result *r);

/* The live set of device d alone after record after, as cg_liveset_run
 * fills it; out's list belongs to the caller (cg_liveset_device_clear). */
void cg_liveset_device_at(cg_liveset_device *out, const cg_timeline *tl, uint32_t d, uint32_t after);
/* The live sets of device d after each of after[0..n) (in any order), as
 * n calls of cg_liveset_device_at fill them, in one pass over d's records
 * (n passes would cost n times the device's records: 64 step peaks of
 * report.html's explorer took a quarter of `report` at 10 M lines). Each
 * out[j]'s list belongs to the caller (cg_liveset_device_clear). */
void cg_liveset_device_many(cg_liveset_device *out, const cg_timeline *tl, uint32_t d, const uint32_t *after,
			    size_t n);
void cg_liveset_device_clear(cg_liveset_device *ls);

/* The category and phase of a live allocation (its free's category when it
 * was allocated before the trace; phase none then). */
cg_category cg_live_alloc_category(const cg_timeline *tl, const cg_live_alloc *a);
cg_phase cg_live_alloc_phase(const cg_timeline *tl, const cg_live_alloc *a);

/* The before-profiling bytes of ls that no listed allocation holds: the
 * baseline, without the blocks from before the trace that it frees (in a
 * trace without categories those are "before profiling" too, and listed).
 * A list of ls->allocs plus one row of these bytes adds up to ls->bytes. */
uint64_t cg_liveset_unlisted_baseline(const cg_timeline *tl, const cg_liveset_device *ls);

#endif
