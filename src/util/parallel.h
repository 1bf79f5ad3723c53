/* Independent jobs on threads, for the passes after ingest:
 *
 *     cg_parallel_for(n, 0, fn, ctx);     // fn(ctx, i) for every i < n, on every usable CPU
 *
 *     cg_task t;
 *     cg_task_start(&t, fn, arg);         // fn(arg) beside the caller
 *     ...other work...
 *     cg_task_join(&t);
 *
 * Jobs must not depend on each other's order. When no thread can be
 * started the caller runs the work itself: results never depend on the
 * threads, only the time does. */
#ifndef CG_PARALLEL_H
#define CG_PARALLEL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* The CPUs this process may use (cpus.h: online, affinity mask, cgroup
 * quota), at least 1 and at most 64. */
unsigned cg_cpu_count(void);

/* Runs fn(ctx, i) for i in [0, n) on up to threads threads (0: one per
 * CPU the process may use), the caller's among them; returns when every
 * job is done. */
void cg_parallel_for(size_t n, unsigned threads, void (*fn)(void *ctx, size_t i), void *ctx);

/* Below this many items (records, say) a thread costs more than it saves. */
#define CG_PARALLEL_MIN_ITEMS 65536

/* n items cut into runs, one a thread: how many runs (threads 0: one per
 * usable CPU; a single run below min_items), and run k's items
 * [*from, *to) of nruns, the last taking the remainder. */
size_t cg_parallel_runs(size_t n, unsigned threads, size_t min_items);
void cg_parallel_run_range(size_t n, size_t nruns, size_t k, size_t *from, size_t *to);

typedef struct cg_task {
	pthread_t thread;
	bool started;
	void (*fn)(void *arg);
	void *arg;
} cg_task;

/* Runs fn(arg) on a new thread, or at once on the caller's when none can
 * be started. Every started task must be joined. */
void cg_task_start(cg_task *t, void (*fn)(void *arg), void *arg);
void cg_task_join(cg_task *t);

/* A one-way gate: cg_gate_wait returns once some thread has called
 * cg_gate_open (at once if it already has); it never closes. */
typedef struct cg_gate {
	pthread_mutex_t lock;
	pthread_cond_t opened_cond;
	bool opened;
} cg_gate;

void cg_gate_init(cg_gate *g);
void cg_gate_open(cg_gate *g);
void cg_gate_wait(cg_gate *g);
void cg_gate_destroy(cg_gate *g);

#endif
