#include "copytree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

enum { MAX_DEPTH = 8 };

static int copy_file(const char *from, const char *to, cg_error *err)
{
	int in = open(from, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (in < 0)
		return cg_error_set(err, CG_EIO, "%s: cannot open: %s", from, strerror(errno));
	int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0) {
		int e = errno;
		close(in);
		return cg_error_set(err, CG_EIO, "%s: %s", to, strerror(e));
	}
	char buf[1 << 16];
	int rc = 0;
	for (;;) {
		ssize_t n = read(in, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = cg_error_set(err, CG_EIO, "%s: cannot read: %s", from, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(out, buf + done, (size_t)(n - done));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				rc = cg_error_set(err, CG_EIO, "%s: %s", to, strerror(errno));
				break;
			}
			done += w;
		}
		if (rc)
			break;
	}
	close(in);
	if (close(out) != 0 && rc == 0)
		rc = cg_error_set(err, CG_EIO, "%s: %s", to, strerror(errno));
	return rc;
}

static int copy_dir(const char *from, const char *to, int depth, cg_error *err)
{
	if (depth > MAX_DEPTH)
		return cg_error_set(err, CG_EINPUT, "%s: folders nested deeper than %d levels: not a cgmem report",
				    from, MAX_DEPTH);
	if (mkdir(to, 0777) != 0)
		return cg_error_set(err, CG_EIO, "%s: cannot create: %s", to, strerror(errno));
	DIR *d = opendir(from);
	if (!d)
		return cg_error_set(err, CG_EIO, "%s: cannot open: %s", from, strerror(errno));
	int rc = 0;
	for (struct dirent *e; rc == 0 && (errno = 0, e = readdir(d)) != NULL;) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *src = cg_asprintf("%s/%s", from, e->d_name);
		char *dst = cg_asprintf("%s/%s", to, e->d_name);
		struct stat st;
		if (lstat(src, &st) != 0)
			rc = cg_error_set(err, CG_EIO, "%s: %s", src, strerror(errno));
		else if (S_ISDIR(st.st_mode))
			rc = copy_dir(src, dst, depth + 1, err);
		else if (S_ISREG(st.st_mode))
			rc = copy_file(src, dst, err);
		else
			rc = cg_error_set(err, CG_EINPUT, "%s: neither a file nor a folder: not part of a cgmem report",
					  src);
		cg_free(src);
		cg_free(dst);
	}
	if (rc == 0 && errno != 0)
		rc = cg_error_set(err, CG_EIO, "%s: cannot list: %s", from, strerror(errno));
	closedir(d);
	return rc;
}

int cg_copy_tree(const char *from, const char *to, cg_error *err)
{
	return copy_dir(from, to, 0, err);
}
