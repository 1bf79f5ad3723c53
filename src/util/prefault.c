#include "prefault.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "parallel.h"
#include "xalloc.h"

#ifdef __linux__
#include <sys/mman.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
#endif

#define STEP ((size_t)2 << 20) /* populated at a time, the lock held */

struct cg_prefault {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool stop;
	/* the regions: set under the lock by the writer's thread */
	char *base[CG_PREFAULT_REGIONS];
	size_t len[CG_PREFAULT_REGIONS];
	_Atomic size_t used[CG_PREFAULT_REGIONS];
	_Atomic size_t done[CG_PREFAULT_REGIONS]; /* bytes from base made present */
};

static bool populate(char *p, size_t n)
{
#ifdef __linux__
	uintptr_t from = (uintptr_t)p & ~(uintptr_t)4095, to = (uintptr_t)p + n;
	return madvise((void *)from, to - from, MADV_POPULATE_WRITE) == 0;
#else
	(void)p;
	(void)n;
	return false;
#endif
}

/* One step of work on the first region that wants it; false when none does. */
static bool step(cg_prefault *pf)
{
	for (unsigned k = 0; k < CG_PREFAULT_REGIONS; k++) {
		size_t done = atomic_load_explicit(&pf->done[k], memory_order_relaxed);
		size_t want = atomic_load_explicit(&pf->used[k], memory_order_relaxed) + CG_PREFAULT_AHEAD;
		want = want < pf->len[k] ? want : pf->len[k];
		if (!pf->base[k] || done >= want)
			continue;
		size_t n = want - done < STEP ? want - done : STEP;
		if (!populate(pf->base[k] + done, n))
			n = pf->len[k] - done; /* the kernel refused: give the region up */
		atomic_store_explicit(&pf->done[k], done + n, memory_order_relaxed);
		return true;
	}
	return false;
}

static void *run(void *arg)
{
	cg_prefault *pf = arg;
	pthread_mutex_lock(&pf->lock);
	while (!pf->stop) {
		if (step(pf))
			continue;
		/* woken by cg_prefault_used when a region wants more; the timeout
		 * covers a wake-up sent while this thread was not waiting */
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 2000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&pf->wake, &pf->lock, &until);
	}
	pthread_mutex_unlock(&pf->lock);
	return NULL;
}

cg_prefault *cg_prefault_start(void)
{
	if (cg_cpu_count() < 2)
		return NULL;
	/* the kernel must know the advice: try it on a page of our own */
	static _Atomic int supported = -1;
	if (atomic_load(&supported) < 0) {
		char *probe = cg_malloc(8192);
		atomic_store(&supported, populate(probe + 4096, 1));
		cg_free(probe);
	}
	if (!atomic_load(&supported))
		return NULL;
	cg_prefault *pf = cg_calloc(1, sizeof *pf);
	pthread_mutex_init(&pf->lock, NULL);
	pthread_cond_init(&pf->wake, NULL);
	if (pthread_create(&pf->thread, NULL, run, pf) != 0) {
		pthread_cond_destroy(&pf->wake);
		pthread_mutex_destroy(&pf->lock);
		cg_free(pf);
		return NULL;
	}
	return pf;
}

void cg_prefault_region(cg_prefault *pf, unsigned k, void *base, size_t len)
{
	if (!pf || k >= CG_PREFAULT_REGIONS)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->base[k] = base;
	pf->len[k] = base ? len : 0;
	atomic_store_explicit(&pf->used[k], 0, memory_order_relaxed);
	atomic_store_explicit(&pf->done[k], 0, memory_order_relaxed);
	pthread_cond_signal(&pf->wake);
	pthread_mutex_unlock(&pf->lock);
}

void cg_prefault_used(cg_prefault *pf, unsigned k, size_t used)
{
	if (!pf || k >= CG_PREFAULT_REGIONS)
		return;
	atomic_store_explicit(&pf->used[k], used, memory_order_relaxed);
	/* a wake-up only when the thread has fallen within half the distance
	 * (len is the caller's own: it set it) */
	size_t done = atomic_load_explicit(&pf->done[k], memory_order_relaxed);
	if (done < pf->len[k] && used + CG_PREFAULT_AHEAD / 2 > done)
		pthread_cond_signal(&pf->wake);
}

void cg_prefault_stop(cg_prefault *pf)
{
	if (!pf)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->stop = true;
	pthread_cond_signal(&pf->wake);
	pthread_mutex_unlock(&pf->lock);
	pthread_join(pf->thread, NULL);
	pthread_cond_destroy(&pf->wake);
	pthread_mutex_destroy(&pf->lock);
	cg_free(pf);
}
