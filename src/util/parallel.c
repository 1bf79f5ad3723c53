#include "parallel.h"

#include <stdatomic.h>

#include "cpus.h"

#define MAX_THREADS 64

unsigned cg_cpu_count(void)
{
	unsigned n = cg_cpus_usable();
	return n > MAX_THREADS ? MAX_THREADS : n;
}

typedef struct loop {
	atomic_size_t next;
	size_t n;
	void (*fn)(void *ctx, size_t i);
	void *ctx;
} loop;

/* Takes jobs until none are left: fast jobs do not wait for slow ones. */
static void *run_jobs(void *arg)
{
	loop *l = arg;
	for (size_t i; (i = atomic_fetch_add(&l->next, 1)) < l->n;)
		l->fn(l->ctx, i);
	return NULL;
}

size_t cg_parallel_runs(size_t n, unsigned threads, size_t min_items)
{
	unsigned cpus = threads ? threads : cg_cpu_count();
	return n >= min_items && cpus > 1 ? cpus : 1;
}

void cg_parallel_run_range(size_t n, size_t nruns, size_t k, size_t *from, size_t *to)
{
	*from = n / nruns * k;
	*to = k + 1 == nruns ? n : n / nruns * (k + 1);
}

void cg_parallel_for(size_t n, unsigned threads, void (*fn)(void *ctx, size_t i), void *ctx)
{
	loop l = {.n = n, .fn = fn, .ctx = ctx};
	atomic_init(&l.next, 0);
	if (threads == 0)
		threads = cg_cpu_count();
	size_t helpers = threads - 1 < n ? threads - 1 : (n ? n - 1 : 0);
	if (helpers > MAX_THREADS)
		helpers = MAX_THREADS;
	pthread_t tid[MAX_THREADS];
	size_t started = 0;
	while (started < helpers && pthread_create(&tid[started], NULL, run_jobs, &l) == 0)
		started++;
	run_jobs(&l);
	for (size_t k = 0; k < started; k++)
		pthread_join(tid[k], NULL);
}

static void *run_task(void *arg)
{
	cg_task *t = arg;
	t->fn(t->arg);
	return NULL;
}

void cg_task_start(cg_task *t, void (*fn)(void *arg), void *arg)
{
	t->fn = fn;
	t->arg = arg;
	t->started = pthread_create(&t->thread, NULL, run_task, t) == 0;
	if (!t->started)
		fn(arg);
}

void cg_task_join(cg_task *t)
{
	if (t->started)
		pthread_join(t->thread, NULL);
	t->started = false;
}

void cg_gate_init(cg_gate *g)
{
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->opened_cond, NULL);
	g->opened = false;
}

void cg_gate_open(cg_gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->opened = true;
	pthread_cond_broadcast(&g->opened_cond);
	pthread_mutex_unlock(&g->lock);
}

void cg_gate_wait(cg_gate *g)
{
	pthread_mutex_lock(&g->lock);
	while (!g->opened)
		pthread_cond_wait(&g->opened_cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

void cg_gate_destroy(cg_gate *g)
{
	pthread_cond_destroy(&g->opened_cond);
	pthread_mutex_destroy(&g->lock);
}
