#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE */
#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

struct cg_outdir {
	char *target;
	char *tmp;
	char **files;
	size_t nfiles, files_cap;
};

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

	char *parent = parent_of(path), *base = base_of(path);
	char *tmp = cg_asprintf("%s/.%s.cgmem-tmp-XXXXXX", parent, base);
	cg_free(base);
	if (!mkdtemp(tmp)) {
		int e = errno;
		cg_error_set(err, CG_EIO, "%s: cannot create the output folder there: %s", parent,
			     strerror(e));
		cg_free(parent);
		cg_free(tmp);
		return CG_EIO;
	}
	cg_free(parent);
	/* mkdtemp makes the folder private; a report folder is as any other. */
	mode_t mask = umask(0);
	umask(mask);
	chmod(tmp, 0777 & ~mask);
	cg_outdir *od = cg_calloc(1, sizeof *od);
	od->target = cg_strdup(path);
	od->tmp = tmp;
	*out = od;
	return 0;
}

char *cg_outdir_path(cg_outdir *od, const char *name)
{
	for (size_t i = 0; i < od->nfiles; i++)
		if (strcmp(od->files[i], name) == 0)
			return cg_asprintf("%s/%s", od->tmp, name);
	CG_GROW(od->files, od->files_cap, od->nfiles + 1);
	od->files[od->nfiles++] = cg_strdup(name);
	return cg_asprintf("%s/%s", od->tmp, name);
}

const char *cg_outdir_dir(const cg_outdir *od)
{
	return od->tmp;
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
	for (size_t i = 0; i < od->nfiles; i++)
		cg_free(od->files[i]);
	cg_free(od->files);
	cg_free(od->target);
	cg_free(od->tmp);
	cg_free(od);
}

void cg_outdir_abort(cg_outdir *od)
{
	if (!od)
		return;
	cg_remove_tree(od->tmp);
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

int cg_outdir_commit(cg_outdir *od, cg_error *err)
{
	int rc = write_manifest(od, err);
	if (rc < 0) {
		cg_outdir_abort(od);
		return rc;
	}
	struct stat st;
	bool exists = lstat(od->target, &st) == 0;
	if (!exists) {
		if (rename(od->tmp, od->target) < 0) {
			rc = cg_error_set(err, CG_EIO, "%s: cannot move the report into place: %s",
					  od->target, strerror(errno));
			cg_outdir_abort(od);
			return rc;
		}
		free_outdir(od);
		return 0;
	}
	/* Swap atomically; the old report ends up in the temporary name. */
	if (renameat2(AT_FDCWD, od->tmp, AT_FDCWD, od->target, RENAME_EXCHANGE) < 0) {
		if (errno != EINVAL && errno != ENOSYS)
			goto failed;
		/* No exchange on this file system: move the old one aside first. */
		char *old = cg_asprintf("%s.cgmem-old-XXXXXX", od->tmp);
		if (!mkdtemp(old) || rename(od->target, old) < 0) {
			rmdir(old);
			cg_free(old);
			goto failed;
		}
		if (rename(od->tmp, od->target) < 0) {
			int e = errno;
			rename(old, od->target);
			cg_free(old);
			errno = e;
			goto failed;
		}
		cg_remove_tree(old);
		cg_free(old);
		free_outdir(od);
		return 0;
	}
	cg_remove_tree(od->tmp);
	free_outdir(od);
	return 0;
failed:
	rc = cg_error_set(err, CG_EIO, "%s: cannot replace the old report: %s", od->target, strerror(errno));
	cg_outdir_abort(od);
	return rc;
}
