#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static char tmpdir[256];

const char *tu_tmpdir(void)
{
	if (!tmpdir[0]) {
		const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
		snprintf(tmpdir, sizeof tmpdir, "%s/cgmem-test-XXXXXX", base);
		assert_non_null(mkdtemp(tmpdir));
	}
	return tmpdir;
}

const char *tu_path(const char *name)
{
	static char bufs[8][512];
	static int next;
	char *b = bufs[next++ % 8];
	snprintf(b, 512, "%s/%s", tu_tmpdir(), name);
	return b;
}

const char *tu_write(const char *name, const void *data, size_t n)
{
	if (n == (size_t)-1)
		n = strlen(data);
	const char *p = tu_path(name);
	FILE *f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	return p;
}

const char *tu_write_gz(const char *name, const void *data, size_t n)
{
	if (n == (size_t)-1)
		n = strlen(data);
	const char *p = tu_path(name);
	gzFile g = gzopen(p, "wb");
	assert_non_null(g);
	assert_int_equal(gzwrite(g, data, (unsigned)n), (int)n);
	assert_int_equal(gzclose(g), Z_OK);
	return p;
}

char *tu_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	size_t k;
	while ((k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += k;
		if (cap - n - 1 == 0) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

char *tu_read_in(const char *dir, const char *name, size_t *len)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	char *s = tu_read(path, len);
	if (!s)
		fail_msg("%s was not written", path);
	return s;
}

size_t tu_count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

bool tu_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

const char *tu_fake_root(void)
{
	static char root[512];
	static int n;
	char name[32];
	snprintf(name, sizeof name, "root%d", n++);
	snprintf(root, sizeof root, "%s", tu_path(name));
	if (mkdir(root, 0755) != 0)
		fail_msg("cannot create %s", root);
	return root;
}

void tu_fake_put(const char *root, const char *rel, const char *text)
{
	char path[1024];
	snprintf(path, sizeof path, "%s%s", root, rel);
	for (char *p = path + strlen(root) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	FILE *f = fopen(path, "w");
	if (!f)
		fail_msg("cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

void tu_cleanup(void)
{
	if (tmpdir[0]) {
		/* Tests may leave read-only folders behind. */
		char cmd[600];
		snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", tmpdir, tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", tmpdir);
		tmpdir[0] = '\0';
	}
}

cJSON *tu_json_file(const char *path)
{
	char *text = tu_read(path, NULL);
	if (!text)
		fail_msg("cannot read %s", path);
	cJSON *j = cJSON_Parse(text);
	if (!j)
		fail_msg("%s is not valid JSON", path);
	free(text);
	return j;
}

static cJSON *walk(cJSON *j, va_list ap)
{
	const char *k;
	while ((k = va_arg(ap, const char *)) != NULL) {
		if (!j)
			return NULL;
		if (cJSON_IsArray(j))
			j = cJSON_GetArrayItem(j, atoi(k));
		else
			j = cJSON_GetObjectItemCaseSensitive(j, k);
	}
	return j;
}

cJSON *tu_json_at(cJSON *j, ...)
{
	va_list ap;
	va_start(ap, j);
	cJSON *r = walk(j, ap);
	va_end(ap);
	return r;
}

uint64_t tu_json_u64(cJSON *j, ...)
{
	va_list ap;
	va_start(ap, j);
	cJSON *r = walk(j, ap);
	va_end(ap);
	if (!cJSON_IsNumber(r))
		fail_msg("not a number at the given path");
	double v = r->valuedouble;
	if (v < 0 || v != (double)(uint64_t)v)
		fail_msg("not a non-negative integer: %f", v);
	return (uint64_t)v;
}

const char *tu_sample(const char *name)
{
	static char bufs[4][512];
	static int next;
	char *b = bufs[next++ % 4];
	snprintf(b, 512, "%s/%s", SAMPLES_DIR, name);
	return b;
}

