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
