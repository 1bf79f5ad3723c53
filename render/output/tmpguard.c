#define _GNU_SOURCE /* syscall, renameat2 */
#include "tmpguard.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h> /* renameat2 */
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A slot's life: FREE -> SETUP (owner filling it) -> ACTIVE -> BUSY (owner
 * renaming or removing the folder) -> FREE, or ACTIVE -> CLEANING (a signal
 * or exit() is removing it; the process ends). Only the transitions out of
 * ACTIVE race, and both are compare-and-swap, so the folder is removed once
 * and never under a rename. */
enum { SLOT_FREE, SLOT_SETUP, SLOT_ACTIVE, SLOT_BUSY, SLOT_CLEANING };

#define NSLOTS 8
#define NAME_CAP 64

static struct slot {
	atomic_int state;
	int parent_fd, dir_fd;
	char name[NAME_CAP];
} slots[NSLOTS];

/* A signal that came while a slot was BUSY, acted on at release. */
static atomic_int deferred_signal;
static atomic_flag exit_hook_registered = ATOMIC_FLAG_INIT;

/* What getdents64 returns, as the kernel lays it out (linux_dirent64). */
struct raw_dirent {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* Deleting entries while listing may skip some: list again until a pass
 * finds nothing. Passes, listings per pass and rmdir attempts are all
 * bounded, so a writer racing us cannot keep us here: with one listing
 * unbounded, a thread creating files as fast as we unlink them kept a
 * removal going for minutes. */
#define MAX_PASSES 64
#define MAX_LISTINGS 64 /* per pass, of up to 2 KiB of entries each */
#define MAX_RMDIRS 8
/* cgmem's folders are flat; depth is bounded to bound the stack. */
#define MAX_DEPTH 8

static int empty_dir(int fd, int depth)
{
	_Alignas(8) char buf[2048];
	for (int pass = 0; pass < MAX_PASSES; pass++) {
		if (lseek(fd, 0, SEEK_SET) < 0)
			return -1;
		bool any = false;
		long n;
		int listings = 0;
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
			if (++listings > MAX_LISTINGS) {
				any = true; /* the next pass goes on */
				break;
			}
			for (long off = 0; off < n;) {
				struct raw_dirent *e = (struct raw_dirent *)(void *)(buf + off);
				off += e->reclen;
				const char *name = e->name;
				if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
					continue;
				any = true;
				if (unlinkat(fd, name, 0) == 0 || errno == ENOENT)
					continue;
				if ((errno != EISDIR && errno != EPERM) || depth >= MAX_DEPTH)
					return -1;
				int sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (sub < 0)
					return -1;
				int rc = empty_dir(sub, depth + 1);
				close(sub);
				if (rc < 0 || (unlinkat(fd, name, AT_REMOVEDIR) < 0 && errno != ENOENT))
					return -1;
			}
		}
		if (n < 0)
			return -1;
		if (!any)
			return 0;
	}
	errno = ENOTEMPTY;
	return -1;
}

int cg_tmpguard_remove_at(int parent_fd, const char *name, int dir_fd)
{
	/* Threads still writing (charts) open files by path: once the name is
	 * gone they cannot create any. The new name keeps the prefix, so a
	 * later run's stale cleanup finds the folder if we stop half way. */
	char gone[NAME_MAX + 1];
	size_t n = strlen(name);
	if (n + 1 < sizeof gone) {
		memcpy(gone, name, n);
		memcpy(gone + n, "~", 2);
		if (renameat2(parent_fd, name, parent_fd, gone, RENAME_NOREPLACE) == 0)
			name = gone;
	}
	/* A thread writing through a descriptor may still create a file
	 * between the last listing and the rmdir: empty the folder again. */
	for (int tries = 0; tries < MAX_RMDIRS; tries++) {
		int saved = errno;
		if (empty_dir(dir_fd, 0) < 0 && errno != ENOTEMPTY)
			return -1;
		errno = saved;
		if (unlinkat(parent_fd, name, AT_REMOVEDIR) == 0)
			return 0;
		if (errno == ENOENT)
			return 0;
		if (errno != ENOTEMPTY && errno != EEXIST)
			return -1;
	}
	errno = ENOTEMPTY;
	return -1;
}

/* Removes every ACTIVE folder; they stay CLEANING, as the process ends. */
static void remove_all(void)
{
	for (int i = 0; i < NSLOTS; i++) {
		int expected = SLOT_ACTIVE;
		if (atomic_compare_exchange_strong(&slots[i].state, &expected, SLOT_CLEANING))
			cg_tmpguard_remove_at(slots[i].parent_fd, slots[i].name, slots[i].dir_fd);
	}
}

static bool any_busy(void)
{
	for (int i = 0; i < NSLOTS; i++)
		if (atomic_load(&slots[i].state) == SLOT_BUSY)
			return true;
	return false;
}

/* Ends the process by sig, as if it had not been caught. */
static void die_by(int sig)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	raise(sig);
	/* In a handler sig is blocked: it is delivered when unblocked. */
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

static void on_signal(int sig)
{
	int saved = errno;
	remove_all();
	if (any_busy()) {
		/* The owner is renaming: it ends the process at release... */
		int none = 0;
		atomic_compare_exchange_strong(&deferred_signal, &none, sig);
		if (any_busy()) {
			errno = saved;
			return;
		}
		/* ...unless it released before seeing the signal: take it back
		 * (if the owner took it, the owner ends the process). */
		int mine = sig;
		if (!atomic_compare_exchange_strong(&deferred_signal, &mine, 0)) {
			errno = saved;
			return;
		}
		remove_all();
	}
	die_by(sig);
	errno = saved;
}

static void on_exit_hook(void)
{
	remove_all();
}

int cg_tmpguard_add(int parent_fd, int dir_fd, const char *name)
{
	size_t n = strlen(name);
	if (n >= NAME_CAP)
		return -1;
	if (!atomic_flag_test_and_set(&exit_hook_registered))
		atexit(on_exit_hook);
	for (int i = 0; i < NSLOTS; i++) {
		int expected = SLOT_FREE;
		if (!atomic_compare_exchange_strong(&slots[i].state, &expected, SLOT_SETUP))
			continue;
		slots[i].parent_fd = parent_fd;
		slots[i].dir_fd = dir_fd;
		memcpy(slots[i].name, name, n + 1);
		atomic_store(&slots[i].state, SLOT_ACTIVE);
		return i;
	}
	return -1;
}

void cg_tmpguard_hold(int slot)
{
	if (slot < 0)
		return;
	int expected = SLOT_ACTIVE;
	if (atomic_compare_exchange_strong(&slots[slot].state, &expected, SLOT_BUSY) || expected == SLOT_BUSY)
		return; /* held now, or already (a failed commit aborting) */
	/* A signal handler (or exit) on another thread is removing the
	 * folder and will end the process. */
	for (;;)
		pause();
}

void cg_tmpguard_release(int slot)
{
	if (slot < 0)
		return;
	atomic_store(&slots[slot].state, SLOT_FREE);
	int sig = atomic_exchange(&deferred_signal, 0);
	if (sig) {
		remove_all();
		die_by(sig);
	}
}

void cg_tmpguard_catch_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* One handler at a time: a second signal waits for the first. */
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old;
		/* A signal ignored by whoever started us (nohup) stays ignored. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
	signal(SIGXFSZ, SIG_IGN);
}
