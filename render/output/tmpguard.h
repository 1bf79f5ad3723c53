/* Temporary folders removed on every exit the process controls.
 *
 * The output folder (outdir.c) registers its temporary folder here while it
 * is being written. If the process is stopped by SIGINT, SIGTERM or SIGHUP
 * (once cg_tmpguard_catch_signals has installed the handlers), or exits
 * through exit() — the allocator's out-of-memory path — the folder is
 * removed before the process ends. The handler is async-signal-safe: it
 * removes the tree through the file descriptors registered with openat,
 * getdents64 and unlinkat only, and may run on any thread, including while
 * a worker thread is still writing a file into the folder.
 *
 *     int slot = cg_tmpguard_add(parent_fd, dir_fd, name);
 *     ... write files ...
 *     cg_tmpguard_hold(slot);     // before renaming or removing the folder
 *     rename / remove
 *     cg_tmpguard_release(slot);  // a signal that came meanwhile acts now
 */
#ifndef CG_TMPGUARD_H
#define CG_TMPGUARD_H

/* Registers folder `name` (at most 63 bytes) of the folder open as
 * parent_fd, itself open as dir_fd; both descriptors stay the caller's
 * and must stay open until release. Returns the slot, or -1 when every
 * slot is taken (the folder is then not guarded). */
int cg_tmpguard_add(int parent_fd, int dir_fd, const char *name);
/* The owner is about to rename or remove the folder: from now on a signal
 * is deferred until release. If a signal is already removing the folder,
 * this never returns (the process is ending). slot -1 is a no-op. */
void cg_tmpguard_hold(int slot);
/* Frees the slot; a signal deferred since hold now removes the other
 * guarded folders and ends the process as the signal would have. */
void cg_tmpguard_release(int slot);

/* Installs the handlers of SIGINT, SIGTERM and SIGHUP (each removes the
 * guarded folders, then ends the process by the same signal, so the exit
 * status is the conventional one) and ignores SIGXFSZ, so that a write
 * past the file size limit fails with EFBIG and the output folder is
 * abandoned on its ordinary error path. For programs; a library leaves
 * signals to its caller. */
void cg_tmpguard_catch_signals(void);

/* Removes folder `name` of parent_fd and everything in it, without
 * following symbolic links; dir_fd is the folder itself, open. The folder
 * is first renamed to `name~`, so that threads writing by path cannot
 * add files while it is emptied. Only async-signal-safe calls. Returns 0,
 * or -1 with errno set (the folder may then be left as `name~`). */
int cg_tmpguard_remove_at(int parent_fd, const char *name, int dir_fd);

#endif
