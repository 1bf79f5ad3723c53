/* Leaks pass: allocations still live at the end whose category is neither
 * parameter nor optimizer state (those are meant to stay), grouped by span
 * path and op, and how many of them each step left behind.
 *
 * Step spans in a group's path are written with the steps' label
 * ("run/train_step#N" becomes "run/train_step#*"), so the same leak from every step forms
 * one group whose `steps` counts the steps it came from.
 *
 *     cg_leaks_input in = {live_allocs, nlive, nsteps, step_span, step_of_span, nspans, "train_step#*"};
 *     cg_leaks_result *lk;
 *     cg_leaks_run(&lk, tl, &in, &err);
 *     for (size_t g = 0; g < lk->devices[0].ngroups; g++) ...lk->devices[0].groups[g].path...
 *     cg_leaks_free(lk);
 */
#ifndef CG_LEAKS_H
#define CG_LEAKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timeline.h"

typedef struct cg_leaks_input {
	const uint32_t *const *live_allocs; /* per device: alloc records live at the end moment */
	const size_t *nlive;		    /* per device: how many */
	uint32_t nsteps;
	const uint32_t *step_span;	    /* per step: its span index */
	const uint32_t *step_of_span;	    /* per span: its step or CG_NONE (NULL without steps) */
	uint32_t nspans;
	const char *step_label;		    /* names step spans in paths ("train_step#*") */
	const bool *per_step;		    /* per device: give per-step figures (NULL: every device) */
} cg_leaks_input;

/* A category value meaning the group's allocations have several. */
#define CG_LEAKS_MIXED CG_CAT_COUNT

typedef struct cg_leak_group {
	char *path;	   /* span path, steps by their label; "" for allocations outside any span */
	cg_str op;	   /* op name, CG_STR_EMPTY when not recorded */
	uint8_t category;  /* shared by its allocations, or CG_LEAKS_MIXED */
	uint64_t bytes;
	uint64_t count;
	uint32_t steps;	   /* distinct steps that allocated them */
	uint64_t first_ns; /* first and last allocation */
	uint64_t last_ns;
	uint32_t example;  /* its first alloc record (index into tl->mem) */
} cg_leak_group;

typedef struct cg_leaks_device {
	bool available;		/* pairing known */
	uint64_t bytes;		/* all leak candidates */
	uint64_t count;
	cg_leak_group *groups;	/* largest first */
	size_t ngroups;
	uint32_t nsteps;	/* the input's steps, or 0 when per_step says no */
	uint64_t *step_bytes;	/* per step: candidate bytes its records allocated */
	uint64_t *step_count;
	uint64_t outside_steps_bytes; /* candidates allocated outside every step (0 without per-step figures) */
	uint64_t outside_steps_count;
	uint32_t leaking_steps;	/* steps that left candidates behind */
} cg_leaks_device;

typedef struct cg_leaks_result {
	uint32_t ndevices;
	cg_leaks_device *devices;
} cg_leaks_result;

int cg_leaks_run(cg_leaks_result **out, const cg_timeline *tl, const cg_leaks_input *in, cg_error *err);
void cg_leaks_free(cg_leaks_result *r);

/* Is category c a leak candidate when live at the end? */
bool cg_leaks_category_counts(cg_category c);

/* The bytes of live bytes by category (a live set's by_category) whose
 * category is a leak candidate's: live outside parameters, optimizer state
 * and memory from before profiling. Known with or without pairing; `cgmem
 * check --max-leaked` and `cgmem diff` read it at the end moment.
 * Saturates at 2^64 - 1. */
uint64_t cg_leaks_candidate_bytes(const uint64_t by_category[CG_CAT_COUNT]);

#endif
