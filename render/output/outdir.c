#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE */
#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tmpguard.h"
#include "xalloc.h"

/* Temporary names are short and of fixed length whatever the target's
 * name (a target may have NAME_MAX bytes): ".cgmem-tmp-" and 16 hex digits
 * of a hash of the target's name tie the folder to its output for stale
 * cleanup, then mkdtemp's six random characters. */
#define TMP_PREFIX ".cgmem-tmp-"
#define OLD_PREFIX ".cgmem-old-"
#define TMP_NAME_CAP 40
#define PREFIX_CAP 32 /* ".cgmem-tmp-" + 16 + "-" and a NUL: 29 */

struct cg_outdir {
	char *target;   /* as given */
	char *base;     /* its last component, the name in parent_fd */
	char *tmp;      /* parent/tmp_name, where files are written */
	char tmp_name[TMP_NAME_CAP];
	int parent_fd;  /* the folder holding target and tmp */
	int lock_fd;    /* tmp itself, locked while this run owns it */
	int guard;      /* tmpguard slot, or -1 */
	char **files;
	size_t nfiles, files_cap;
};

static void free_outdir(cg_outdir *od);

static char *parent_of(const char *path)
{
	char *copy = cg_strdup(path);
	size_t n = strlen(copy);
	while (n > 1 && copy[n - 1] == '/')
		copy[--n] = '\0';
	char *slash = strrchr(copy, '/');
	if (!slash) {
		cg_free(copy);
		return cg_strdup(".");
	}
	if (slash == copy)
		slash[1] = '\0';
	else
		*slash = '\0';
	return copy;
}

static char *base_of(const char *path)
{
	char *copy = cg_strdup(path);
	size_t n = strlen(copy);
	while (n > 1 && copy[n - 1] == '/')
		copy[--n] = '\0';
	char *slash = strrchr(copy, '/');
	char *base = cg_strdup(slash ? slash + 1 : copy);
	cg_free(copy);
	return base;
}

/* Is every entry of dir listed in its manifest? Sets *stranger to the
 * first that is not. */
static bool written_by_cgmem(const char *dir, char *stranger, size_t size)
{
	char *manifest_path = cg_asprintf("%s/%s", dir, CG_OUTDIR_MANIFEST);
	FILE *mf = fopen(manifest_path, "r");
	cg_free(manifest_path);
	char *manifest = NULL;
	size_t mlen = 0;
	if (mf) {
		char chunk[4096];
		size_t k;
		while ((k = fread(chunk, 1, sizeof chunk, mf)) > 0 && mlen < (1u << 20)) {
			manifest = cg_realloc(manifest, mlen + k + 1);
			memcpy(manifest + mlen, chunk, k);
			mlen += k;
		}
		fclose(mf);
	}
	DIR *d = opendir(dir);
	bool ok = d != NULL;
	if (!d)
		snprintf(stranger, size, "(unreadable: %s)", strerror(errno));
	struct dirent *e;
	while (ok && (e = readdir(d)) != NULL) {
		const char *name = e->d_name;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcmp(name, CG_OUTDIR_MANIFEST) == 0)
			continue;
		bool listed = false;
		size_t nlen = strlen(name);
		for (size_t i = 0; manifest && i < mlen;) {
			char *nl = memchr(manifest + i, '\n', mlen - i);
			size_t len = nl ? (size_t)(nl - (manifest + i)) : mlen - i;
			if (len == nlen && memcmp(manifest + i, name, len) == 0) {
				listed = true;
				break;
			}
			i += len + 1;
		}
		if (!listed) {
			snprintf(stranger, size, "%s", name);
			ok = false;
		}
	}
	if (d)
		closedir(d);
	cg_free(manifest);
	return ok;
}

/* FNV-1a over the target's name: the same output gets the same tag in
 * every run, so a run finds the folders earlier runs left for it. */
static uint64_t name_tag(const char *s)
{
	uint64_t h = 14695981039346656037u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

/* ".cgmem-tmp-<tag>-" (or -old-) for the output named base. */
static void tag_prefix(char *buf, const char *kind, const char *base)
{
	snprintf(buf, PREFIX_CAP, "%s%016" PRIx64 "-", kind, name_tag(base));
}

/* Is the folder open as fd still the one called name? */
static bool same_folder(int parent_fd, const char *name, int fd)
{
	struct stat a, b;
	return fstat(fd, &a) == 0 && fstatat(parent_fd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

static int open_dir_at(int parent_fd, const char *name)
{
	return openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Removes what earlier runs on the same output left when they were killed:
 * temporary folders whose lock nobody holds. A folder a live run writes is
 * locked by it, as is an old report a run has moved aside; a folder whose
 * lock cannot be taken (also: a file system without flock) is left alone.
 * An old report moved aside by a run killed before it put the new one in
 * place is put back. */
static void remove_stale(int parent_fd, const char *base, const char *own)
{
	char tmp_pre[PREFIX_CAP], old_pre[PREFIX_CAP];
	tag_prefix(tmp_pre, TMP_PREFIX, base);
	tag_prefix(old_pre, OLD_PREFIX, base);
	size_t plen = strlen(tmp_pre);
	int fd = open_dir_at(parent_fd, ".");
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	/* Names first: the folder is not changed while it is being read. */
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if ((strncmp(e->d_name, tmp_pre, plen) == 0 || strncmp(e->d_name, old_pre, plen) == 0) &&
		    strcmp(e->d_name, own) != 0) {
			CG_GROW(names, cap, n + 1);
			names[n++] = cg_strdup(e->d_name);
		}
	}
	closedir(d);
	for (size_t i = 0; i < n; i++) {
		int dfd = open_dir_at(parent_fd, names[i]);
		if (dfd < 0)
			continue;
		struct stat st;
		if (flock(dfd, LOCK_EX | LOCK_NB) == 0 && same_folder(parent_fd, names[i], dfd)) {
			bool old = strncmp(names[i], old_pre, plen) == 0;
			if (!old || fstatat(parent_fd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
			    renameat(parent_fd, names[i], parent_fd, base) < 0)
				cg_tmpguard_remove_at(parent_fd, names[i], dfd);
		}
		close(dfd);
		cg_free(names[i]);
	}
	cg_free(names);
}

/* Makes the temporary folder and locks it. A stale cleanup of another run
 * may lock (and remove) a folder between mkdtemp and our lock: then try
 * another name. Returns the folder's descriptor, or -1 with errno set. */
static int make_tmp(int parent_fd, const char *parent, const char *base, char *name, char **path)
{
	for (int attempt = 0; attempt < 100; attempt++) {
		char pre[PREFIX_CAP];
		tag_prefix(pre, TMP_PREFIX, base);
		snprintf(name, TMP_NAME_CAP, "%sXXXXXX", pre);
		char *tmp = cg_asprintf("%s/%s", parent, name);
		if (!mkdtemp(tmp)) {
			int e = errno;
			cg_free(tmp);
			errno = e;
			return -1;
		}
		memcpy(name, tmp + strlen(tmp) - strlen(name), strlen(name) + 1);
		int fd = open_dir_at(parent_fd, name);
		if (fd < 0) {
			int e = errno;
			cg_free(tmp);
			if (e == ENOENT) /* removed already by the other run's cleanup */
				continue;
			errno = e;
			return -1;
		}
		/* Where flock is not supported the folder goes unlocked, and
		 * others leave it alone, as they cannot lock it either. */
		bool taken = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
		if (!taken && same_folder(parent_fd, name, fd)) {
			*path = tmp;
			return fd;
		}
		close(fd);
		cg_free(tmp);
	}
	errno = EAGAIN;
	return -1;
}

int cg_outdir_begin(cg_outdir **out, const char *path, bool force, cg_error *err)
{
	*out = NULL;
	if (path[0] == '\0')
		return cg_error_set(err, CG_EUSAGE, "the output folder name is empty");
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			return cg_error_set(err, CG_EIO,
					    "%s: is a symbolic link; cgmem only replaces real folders "
					    "(give the folder it points to instead)", path);
		if (!S_ISDIR(st.st_mode))
			return cg_error_set(err, CG_EIO, "%s: exists and is not a folder", path);
		char stranger[256];
		if (!force && !written_by_cgmem(path, stranger, sizeof stranger))
			return cg_error_set(err, CG_EIO,
					    "%s: holds files cgmem did not write (%s); "
					    "use --force to replace the folder, or choose another", path, stranger);
	} else if (errno != ENOENT) {
		return cg_error_set(err, CG_EIO, "%s: %s", path, strerror(errno));
	}

	cg_outdir *od = cg_calloc(1, sizeof *od);
	od->target = cg_strdup(path);
	od->base = base_of(path);
	od->guard = -1;
	od->lock_fd = -1;
	char *parent = parent_of(path);
	od->parent_fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* A signal between mkdtemp and the guard would leave the folder:
	 * it waits until the guard is in place. */
	sigset_t sigs, old_mask;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, &old_mask);
	if (od->parent_fd >= 0)
		od->lock_fd = make_tmp(od->parent_fd, parent, od->base, od->tmp_name, &od->tmp);
	if (od->lock_fd >= 0)
		od->guard = cg_tmpguard_add(od->parent_fd, od->lock_fd, od->tmp_name);
	int e = errno;
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	if (od->lock_fd < 0) {
		cg_error_set(err, CG_EIO, "%s: cannot create the output folder there: %s", parent, strerror(e));
		cg_free(parent);
		free_outdir(od);
		return CG_EIO;
	}
	cg_free(parent);
	/* mkdtemp makes the folder private; a report folder is as any other. */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(od->lock_fd, 0777 & ~mask);
	remove_stale(od->parent_fd, od->base, od->tmp_name);
	*out = od;
	return 0;
}

int cg_outdir_file(cg_outdir *od, const char *name, char **path, cg_error *err)
{
	*path = NULL;
	bool taken = strcmp(name, CG_OUTDIR_MANIFEST) == 0;
	for (size_t i = 0; i < od->nfiles && !taken; i++)
		taken = strcmp(od->files[i], name) == 0;
	if (taken)
		return cg_error_set(err, CG_EUSAGE, "%s: two files of the report are both named '%s'", od->target, name);
	CG_GROW(od->files, od->files_cap, od->nfiles + 1);
	od->files[od->nfiles++] = cg_strdup(name);
	*path = cg_asprintf("%s/%s", od->tmp, name);
	return 0;
}

char *cg_outdir_tmp_path(const cg_outdir *od, const char *name)
{
	return cg_asprintf("%s/%s", od->tmp, name);
}

char *cg_outdir_path(cg_outdir *od, const char *name)
{
	char *path;
	cg_outdir_file(od, name, &path, NULL);
	return path;
}

const char *cg_outdir_dir(const cg_outdir *od)
{
	return od->tmp;
}

void cg_outdir_catch_signals(void)
{
	cg_tmpguard_catch_signals();
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

int cg_remove_tree(const char *path)
{
	return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void free_outdir(cg_outdir *od)
{
	/* The slot goes first: a signal must not find descriptors closed. */
	cg_tmpguard_release(od->guard);
	if (od->lock_fd >= 0)
		close(od->lock_fd);
	if (od->parent_fd >= 0)
		close(od->parent_fd);
	for (size_t i = 0; i < od->nfiles; i++)
		cg_free(od->files[i]);
	cg_free(od->files);
	cg_free(od->target);
	cg_free(od->base);
	cg_free(od->tmp);
	cg_free(od);
}

void cg_outdir_abort(cg_outdir *od)
{
	if (!od)
		return;
	cg_tmpguard_hold(od->guard);
	cg_tmpguard_remove_at(od->parent_fd, od->tmp_name, od->lock_fd);
	free_outdir(od);
}

static int write_manifest(cg_outdir *od, cg_error *err)
{
	char *path = cg_asprintf("%s/%s", od->tmp, CG_OUTDIR_MANIFEST);
	FILE *f = fopen(path, "w");
	int rc = 0;
	if (!f) {
		rc = cg_error_set(err, CG_EIO, "%s: %s", path, strerror(errno));
	} else {
		for (size_t i = 0; i < od->nfiles; i++)
			fprintf(f, "%s\n", od->files[i]);
		if (ferror(f) | (fclose(f) != 0))
			rc = cg_error_set(err, CG_EIO, "%s: %s", path, strerror(errno));
	}
	cg_free(path);
	return rc;
}

/* No exchange on this file system: move the old report aside (locked, so
 * that a stale cleanup puts it back if we are killed), then the new one in. */
static int replace_by_moving_aside(cg_outdir *od)
{
	int pfd = od->parent_fd;
	int old_fd = open_dir_at(pfd, od->base);
	if (old_fd >= 0)
		flock(old_fd, LOCK_EX | LOCK_NB);
	char pre[PREFIX_CAP];
	tag_prefix(pre, OLD_PREFIX, od->base);
	char *parent = parent_of(od->target);
	char *old = cg_asprintf("%s/%sXXXXXX", parent, pre);
	cg_free(parent);
	const char *old_name = old + strlen(old) - strlen(pre) - 6;
	int rc = -1;
	if (!mkdtemp(old)) {
		/* errno says why */
	} else if (renameat(pfd, od->base, pfd, old_name) < 0) {
		int e = errno;
		unlinkat(pfd, old_name, AT_REMOVEDIR);
		errno = e;
	} else if (renameat(pfd, od->tmp_name, pfd, od->base) < 0) {
		int e = errno;
		renameat(pfd, old_name, pfd, od->base);
		errno = e;
	} else {
		if (old_fd >= 0)
			cg_tmpguard_remove_at(pfd, old_name, old_fd);
		else
			cg_remove_tree(old);
		rc = 0;
	}
	int e = errno;
	if (old_fd >= 0)
		close(old_fd);
	cg_free(old);
	errno = e;
	return rc;
}

int cg_outdir_commit(cg_outdir *od, cg_error *err)
{
	int rc = write_manifest(od, err);
	if (rc < 0) {
		cg_outdir_abort(od);
		return rc;
	}
	/* From here a signal waits until the folder is in place. */
	cg_tmpguard_hold(od->guard);
	int pfd = od->parent_fd;
	struct stat st;
	if (fstatat(pfd, od->base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (renameat(pfd, od->tmp_name, pfd, od->base) == 0) {
			free_outdir(od);
			return 0;
		}
		/* A run beside us put its report there first: replace it. */
		if (errno != EEXIST && errno != ENOTEMPTY) {
			rc = cg_error_set(err, CG_EIO, "%s: cannot move the report into place: %s", od->target,
					  strerror(errno));
			cg_outdir_abort(od);
			return rc;
		}
	}
	/* Swap atomically; the old report ends up in the temporary name. */
	if (renameat2(pfd, od->tmp_name, pfd, od->base, RENAME_EXCHANGE) < 0) {
		if ((errno == EINVAL || errno == ENOSYS) && replace_by_moving_aside(od) == 0) {
			free_outdir(od);
			return 0;
		}
		rc = cg_error_set(err, CG_EIO, "%s: cannot replace the old report: %s", od->target, strerror(errno));
		cg_outdir_abort(od);
		return rc;
	}
	int old_fd = open_dir_at(pfd, od->tmp_name);
	if (old_fd >= 0) {
		cg_tmpguard_remove_at(pfd, od->tmp_name, old_fd);
		close(old_fd);
	}
	free_outdir(od);
	return 0;
}
