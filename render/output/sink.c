#include "sink.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gzwriter.h"
#include "xalloc.h"

#define BUF_BYTES ((size_t)256 << 10)

struct cg_sink {
	int fd; /* -1 for a memory sink */
	char *path;
	char *buf;
	size_t len, cap;
	size_t written;
	cg_gzwriter *gz; /* owns buf while set */
	int err_errno;
	bool failed;
};

int cg_sink_open(cg_sink **out, const char *path, int gzip_level, cg_error *err)
{
	*out = NULL;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return cg_error_set(err, CG_EIO, "%s: %s", path, strerror(errno));
	cg_sink *s = cg_calloc(1, sizeof *s);
	s->fd = fd;
	s->path = cg_strdup(path);
	if (gzip_level > 0) {
		s->gz = cg_gzwriter_new(fd, gzip_level > 9 ? 9 : gzip_level, 0);
		s->cap = CG_GZWRITER_BLOCK;
		s->buf = cg_gzwriter_block(s->gz);
	} else {
		s->cap = BUF_BYTES;
		s->buf = cg_malloc(s->cap);
	}
	*out = s;
	return 0;
}

cg_sink *cg_sink_memory(void)
{
	cg_sink *s = cg_calloc(1, sizeof *s);
	s->fd = -1;
	s->cap = 4096;
	s->buf = cg_malloc(s->cap);
	s->buf[0] = '\0';
	return s;
}

static void write_fd(cg_sink *s, const void *p, size_t n)
{
	const char *c = p;
	while (n > 0 && !s->failed) {
		ssize_t k = write(s->fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			s->failed = true;
			s->err_errno = errno;
			return;
		}
		c += k;
		n -= (size_t)k;
	}
}

static void flush_buf(cg_sink *s)
{
	if (s->fd < 0 || s->len == 0)
		return;
	if (s->gz)
		s->buf = cg_gzwriter_push(s->gz, s->buf, s->len);
	else
		write_fd(s, s->buf, s->len);
	s->len = 0;
}

void cg_sink_write(cg_sink *s, const void *p, size_t n)
{
	if (s->failed)
		return;
	s->written += n;
	if (s->fd < 0) {
		CG_GROW(s->buf, s->cap, s->len + n + 1);
		memcpy(s->buf + s->len, p, n);
		s->len += n;
		s->buf[s->len] = '\0';
		return;
	}
	if (s->len + n > s->cap && s->gz) {
		/* Whole blocks: their boundaries, and so the compressed bytes,
		 * depend only on what was written. */
		const char *c = p;
		while (s->len + n > s->cap) {
			size_t k = s->cap - s->len;
			memcpy(s->buf + s->len, c, k);
			s->len += k;
			c += k;
			n -= k;
			flush_buf(s);
		}
		p = c;
	} else if (s->len + n > s->cap) {
		flush_buf(s);
		if (n > s->cap) {
			write_fd(s, p, n);
			return;
		}
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

char *cg_sink_reserve(cg_sink *s, size_t n)
{
	assert(n <= CG_SINK_RESERVE_MAX);
	if (s->fd < 0) {
		CG_GROW(s->buf, s->cap, s->len + n + 1);
		return s->buf + s->len;
	}
	if (s->len + n > s->cap) {
		flush_buf(s);
		if (n > s->cap && !s->gz) {
			s->cap = n;
			s->buf = cg_realloc(s->buf, s->cap);
		}
	}
	return s->buf + s->len;
}

void cg_sink_commit(cg_sink *s, size_t n)
{
	if (s->failed)
		return;
	s->len += n;
	s->written += n;
	if (s->fd < 0)
		s->buf[s->len] = '\0';
}

void cg_sink_puts(cg_sink *s, const char *str)
{
	cg_sink_write(s, str, strlen(str));
}

void cg_sink_putc(cg_sink *s, char c)
{
	if (s->fd >= 0 && s->len < s->cap) {
		s->buf[s->len++] = c;
		s->written++;
		return;
	}
	cg_sink_write(s, &c, 1);
}

void cg_sink_printf(cg_sink *s, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		cg_sink_write(s, small, (size_t)n);
		return;
	}
	char *big = cg_malloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	cg_sink_write(s, big, (size_t)n);
	cg_free(big);
}

size_t cg_sink_written(const cg_sink *s)
{
	return s->written;
}

const char *cg_sink_data(const cg_sink *s, size_t *len)
{
	if (len)
		*len = s->len;
	return s->buf;
}

int cg_sink_close(cg_sink *s, cg_error *err)
{
	if (!s)
		return 0;
	int rc = 0;
	if (s->fd >= 0) {
		if (s->gz) {
			int e = cg_gzwriter_finish(s->gz, s->buf, s->len);
			s->buf = NULL; /* the writer's, freed with it */
			if (e && !s->failed) {
				s->failed = true;
				s->err_errno = e;
			}
		} else {
			flush_buf(s);
		}
		if (close(s->fd) < 0 && !s->failed) {
			s->failed = true;
			s->err_errno = errno;
		}
		if (s->failed)
			rc = cg_error_set(err, CG_EIO, "%s: %s", s->path, strerror(s->err_errno));
	}
	cg_free(s->buf);
	cg_free(s->path);
	cg_free(s);
	return rc;
}
