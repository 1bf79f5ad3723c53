/* The comparison of two runs ("base" and "new"): per device, matched by
 * name, the peak of each and the change, and what changed at the peak by
 * category, by phase, by span path and by allocation. Every figure comes
 * from the two analyses; nothing is measured again. docs/analysis.md
 * ("Comparing two runs") defines them.
 *
 *     cg_diff_result *d;
 *     if (cg_diff_run(&d, base_analysis, new_analysis, &err) < 0) ...;
 *     for (size_t i = 0; i < d->ndevices; i++) {
 *             const cg_diff_device *dev = &d->devices[i];
 *             ...dev->peak.v[CG_DIFF_BASE], dev->peak.v[CG_DIFF_NEW]...
 *     }
 *     cg_diff_free(d);
 *
 * Span paths are matched by their names from the root, with the repeating
 * training-step spans written as the steps' label ("train_step#*"), as the
 * leak groups write them: the peak of one run in train_step#0 and of the
 * other in train_step#1 are the same path. Names and paths live in the
 * result. */
#ifndef CG_DIFF_H
#define CG_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "strtab.h"

enum { CG_DIFF_BASE = 0, CG_DIFF_NEW = 1 };

/* A figure in both runs. */
typedef struct cg_diff_pair {
	uint64_t v[2]; /* [CG_DIFF_BASE], [CG_DIFF_NEW] */
} cg_diff_pair;

/* |new - base|, and whether new is the larger. */
static inline uint64_t cg_diff_magnitude(cg_diff_pair p, bool *grew)
{
	if (grew)
		*grew = p.v[1] > p.v[0];
	return p.v[1] >= p.v[0] ? p.v[1] - p.v[0] : p.v[0] - p.v[1];
}
static inline bool cg_diff_changed(cg_diff_pair p)
{
	return p.v[0] != p.v[1];
}
/* The change in percent of base; false when base is 0 (no percentage). */
bool cg_diff_percent(cg_diff_pair p, double *out);

/* A node of the merged span-path tree at the peak: the path of one node of
 * either run's tree (pathtree.h), steps written as their label. */
typedef struct cg_diff_node {
	uint32_t path;	       /* into cg_diff_result's path trie: cg_diff_path() */
	uint32_t parent;       /* index into the device's nodes; CG_NONE for the root */
	uint32_t depth;
	uint8_t kind;	       /* cg_pathnode_kind */
	uint8_t sides;	       /* in the base run's tree (bit 1 << CG_DIFF_BASE), the new one's (1 << CG_DIFF_NEW) */
	cg_diff_pair own;      /* bytes allocated directly in its spans */
	cg_diff_pair total;    /* own + descendants' */
	cg_diff_pair own_count;
	cg_diff_pair total_count;
} cg_diff_node;

/* Allocations live at one peak with fewer counterparts at the other: same
 * span path, op, shape and size. */
typedef struct cg_diff_alloc_group {
	uint8_t side;	   /* the peak they are live at: CG_DIFF_BASE or CG_DIFF_NEW */
	uint32_t path;	   /* into the path trie */
	uint32_t example;  /* a memory record of side's timeline: the allocation, or for an
			    * allocation from before the trace the free that ends it */
	uint64_t size;	   /* bytes of each */
	uint64_t count;	   /* how many more at side's peak than at the other's */
	uint64_t bytes;	   /* count * size */
	cg_diff_pair live; /* allocations of this kind live at each peak */
} cg_diff_alloc_group;

typedef struct cg_diff_device {
	const char *name;	     /* borrowed from the result's strings */
	uint32_t index[2];	     /* device index in each run, CG_NONE when absent */
	cg_diff_pair peak;
	cg_diff_pair peak_t_ns;
	cg_diff_pair live_at_end;    /* live bytes at the end moment */
	/* Live at the end outside parameters, optimizer state and memory from
	 * before profiling: the leak candidates' categories (leaks.h). */
	cg_diff_pair leaked_at_end;
	cg_diff_pair by_category[CG_CAT_COUNT]; /* at the peak */
	/* Both runs' live sets at the peak are listed (pairing known): the
	 * phases, span paths and allocations below are filled. */
	bool listed;
	cg_diff_pair by_phase[CG_PHASE_COUNT];
	cg_diff_node *nodes;	     /* merged tree, pre-order; node 0 is the root */
	uint32_t nnodes;
	/* The nodes that changed (own or total bytes), ordered by the size of
	 * the change of their own bytes, then of their total, then pre-order.
	 * The root is left out unless its own bytes (outside any span) changed. */
	uint32_t *changed;
	uint32_t nchanged;
	cg_diff_alloc_group *groups; /* largest bytes first */
	size_t ngroups;
	cg_diff_pair only_count;     /* allocations at one peak only, per side */
	cg_diff_pair only_bytes;
} cg_diff_device;

typedef struct cg_diff_result {
	/* Devices of the base run in its order, then those only in the new run. */
	cg_diff_device *devices;
	size_t ndevices;
	cg_strtab *names;     /* span names, labels, device names */
	/* The path trie: path p has a parent (CG_NONE for the root), a kind
	 * (cg_pathnode_kind) and a name in names. */
	uint32_t *path_parent;
	uint8_t *path_kind;
	cg_str *path_name;
	uint32_t npaths;
} cg_diff_result;

/* Compares base with new. *out belongs to the caller; the analyses (and
 * their timelines) must outlive it only for the example records of the
 * allocation groups and the device indices. Never fails on input: it
 * returns 0 (err is for future limits). */
int cg_diff_run(cg_diff_result **out, const cg_analysis *base, const cg_analysis *new_a, cg_error *err);
void cg_diff_free(cg_diff_result *r);

/* The span path of trie node p, names joined by '/', cut to size (at most
 * 4 KiB): "run", "run/forward". The root is "" and the nodes for
 * memory from before the trace and before profiling are "(before the
 * trace)" and "(before profiling)". Returns buf. */
char *cg_diff_path(const cg_diff_result *r, uint32_t p, char *buf, size_t size);

#endif
