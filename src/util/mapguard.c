#define _GNU_SOURCE /* MAP_ANONYMOUS */
#include "mapguard.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A few readers at once at most (the ranks of a job are read in turn). */
#define SLOTS 16

/* A slot's range is [start, end); a free slot's is empty (end 0). */
typedef struct slot {
	atomic_bool used;
	_Atomic uintptr_t start, end;
	atomic_int fd; /* the mapped file, to find where it ends now */
	atomic_bool hit;
} slot;

static slot slots[SLOTS];
static struct sigaction previous;
static uintptr_t page_size;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

static bool zeros(uintptr_t from, uintptr_t to)
{
	return from >= to || mmap((void *)from, to - from, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
				     MAP_FAILED;
}

/* Only what is safe in a signal handler: atomics, fstat and mmap. Every
 * page past the file's end now reads as zeros, and the faulting page too
 * when it is not among them (a read error inside the file); the access is
 * then made again. */
static void on_sigbus(int sig, siginfo_t *info, void *uctx)
{
	uintptr_t a = (uintptr_t)info->si_addr, mask = page_size - 1;
	for (int i = 0; i < SLOTS; i++) {
		uintptr_t start = atomic_load(&slots[i].start), end = atomic_load(&slots[i].end);
		if (a < start || a >= end)
			continue;
		struct stat st;
		uintptr_t past = end; /* the first page wholly past the end of the file */
		if (fstat(atomic_load(&slots[i].fd), &st) == 0 && st.st_size >= 0 && (uintmax_t)st.st_size < end - start)
			past = (start + (uintptr_t)st.st_size + mask) & ~mask;
		uintptr_t page = a & ~mask;
		if (!zeros(past, end) || (page < past && !zeros(page, page + page_size)))
			break;
		atomic_store(&slots[i].hit, true);
		return;
	}
	/* Not ours: as the handler before would have done. */
	if (previous.sa_flags & SA_SIGINFO) {
		previous.sa_sigaction(sig, info, uctx);
	} else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
		previous.sa_handler(sig);
	} else {
		signal(sig, SIG_DFL); /* the fault happens again and ends the process */
	}
}

/* (Again) when another handler took SIGBUS since: a program embedding the
 * library, or a test harness, may install its own per run. */
static void install(void)
{
	pthread_mutex_lock(&install_lock);
	struct sigaction now;
	if (sigaction(SIGBUS, NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_sigbus) {
		pthread_mutex_unlock(&install_lock);
		return;
	}
	page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &previous);
	pthread_mutex_unlock(&install_lock);
}

int cg_mapguard_add(const void *start, size_t len, int fd)
{
	install();
	for (int i = 0; i < SLOTS; i++) {
		bool free_slot = false;
		/* The range is empty until its end is stored last. */
		if (atomic_compare_exchange_strong(&slots[i].used, &free_slot, true)) {
			atomic_store(&slots[i].hit, false);
			atomic_store(&slots[i].fd, fd);
			atomic_store(&slots[i].start, (uintptr_t)start);
			/* the last page is mapped whole */
			atomic_store(&slots[i].end, ((uintptr_t)start + len + page_size - 1) & ~(page_size - 1));
			return i;
		}
	}
	return -1;
}

bool cg_mapguard_hit(int guard)
{
	return guard >= 0 && guard < SLOTS && atomic_load(&slots[guard].hit);
}

void cg_mapguard_remove(int guard)
{
	if (guard < 0 || guard >= SLOTS)
		return;
	atomic_store(&slots[guard].end, 0);
	atomic_store(&slots[guard].start, 0);
	atomic_store(&slots[guard].used, false);
}
