#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "outdir.h"
#include "xalloc.h"

extern char **environ;

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

bool tu_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

void tu_cleanup(void)
{
	if (tmpdir[0]) {
		/* Tests may leave read-only folders behind. */
		char cmd[600];
		snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' 2>/dev/null", tmpdir);
		if (system(cmd) != 0) {
		}
		cg_remove_tree(tmpdir);
		tmpdir[0] = '\0';
	}
}

int tu_ingest_text_rc(const char *text, const cg_ingest_options *o, cg_timeline **out, cg_error *err)
{
	static int counter;
	char name[64];
	snprintf(name, sizeof name, "trace%d.jsonl", counter++);
	const char *p = tu_write(name, text, (size_t)-1);
	return cg_ingest(out, p, o, err);
}

cg_timeline *tu_ingest_text(const char *text)
{
	cg_timeline *tl = NULL;
	cg_error err = CG_ERROR_INIT;
	int rc = tu_ingest_text_rc(text, NULL, &tl, &err);
	if (rc != 0)
		fail_msg("ingest failed: %s", err.msg);
	return tl;
}

static char *slurp_fd(int fd)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (cap - n < 2) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
		ssize_t k = read(fd, buf + n, cap - n - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	buf[n] = '\0';
	return buf;
}

int tu_run(char **out, char **err, const char *stdin_path, ...)
{
	char *argv[64];
	int argc = 0;
	argv[argc++] = CGMEM_BIN;
	va_list ap;
	va_start(ap, stdin_path);
	const char *a;
	while ((a = va_arg(ap, const char *)) != NULL && argc < 63)
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;

	const char *out_path = tu_path(".stdout"), *err_path = tu_path(".stderr");
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, stdin_path ? stdin_path : "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	pid_t pid;
	int rc = posix_spawn(&pid, CGMEM_BIN, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	assert_int_equal(rc, 0);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	int fd = open(out_path, O_RDONLY);
	char *o = slurp_fd(fd);
	close(fd);
	fd = open(err_path, O_RDONLY);
	char *e = slurp_fd(fd);
	close(fd);
	if (out)
		*out = o;
	else
		free(o);
	if (err)
		*err = e;
	else
		free(e);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
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

static uint32_t next_line;

static cg_str intern(cg_timeline *tl, const char *s)
{
	cg_str id = CG_STR_EMPTY;
	if (s)
		assert_int_equal(cg_timeline_intern(tl, s, strlen(s), &id), 0);
	return id;
}

cg_timeline *tu_tl_new(void)
{
	cg_timeline *tl = cg_timeline_new(NULL);
	tl->source.display_name = cg_strdup("test.jsonl");
	tl->source.path = cg_strdup("test.jsonl");
	tl->source.format = cg_strdup("hand-built");
	next_line = 2;
	return tl;
}

uint16_t tu_device(cg_timeline *tl, const char *name)
{
	uint16_t d;
	assert_int_equal(cg_timeline_device(tl, name, strlen(name), &d), 0);
	return d;
}

void tu_span(cg_timeline *tl, const char *id, const char *parent, const char *name, uint64_t start, uint64_t end,
	     cg_phase step)
{
	cg_span s = {0};
	s.start_ns = start;
	s.end_ns = start;
	s.id = intern(tl, id);
	s.parent = intern(tl, parent);
	s.name = intern(tl, name);
	s.line = next_line++;
	s.kind = CG_SPAN_FUNCTION;
	s.step = (uint8_t)step;
	s.phase = (uint8_t)step;
	assert_int_equal(cg_timeline_add_span(tl, &s), 0);
	if (end != UINT64_MAX)
		assert_int_equal(cg_timeline_add_span_end(tl, s.id, end - start, next_line++), 0);
}

void tu_mem(cg_timeline *tl, uint64_t t, const char *tensor, const char *span, const char *device, uint64_t bytes,
	    cg_action action, cg_category category, const char *op)
{
	cg_mem m = {0};
	m.t_ns = t;
	m.bytes = bytes;
	m.tensor = intern(tl, tensor);
	m.span = intern(tl, span);
	m.op = intern(tl, op);
	m.line = next_line++;
	m.device = tu_device(tl, device);
	m.action = (uint8_t)action;
	m.category = (uint8_t)category;
	uint8_t dt;
	assert_int_equal(cg_timeline_dtype(tl, "f32", 3, &dt), 0);
	m.dtype = dt;
	assert_int_equal(cg_timeline_add_mem(tl, &m), 0);
}

void tu_devmem(cg_timeline *tl, uint64_t t, const char *device, uint64_t used, uint64_t free_bytes,
	       uint64_t reserved)
{
	cg_devmem d = {0};
	d.t_ns = t;
	d.has_used = used != UINT64_MAX;
	d.used_bytes = d.has_used ? used : 0;
	d.free_bytes = d.has_used ? free_bytes : 0;
	d.has_reserved = reserved != UINT64_MAX;
	d.reserved_bytes = d.has_reserved ? reserved : 0;
	d.line = next_line++;
	d.device = tu_device(tl, device);
	assert_int_equal(cg_timeline_add_devmem(tl, &d), 0);
}

void tu_oom(cg_timeline *tl, uint64_t t, const char *device, uint64_t bytes)
{
	cg_oom o = {0};
	o.t_ns = t;
	o.bytes = bytes;
	o.line = next_line++;
	o.device = tu_device(tl, device);
	assert_int_equal(cg_timeline_add_oom(tl, &o), 0);
}

void tu_gradient(cg_timeline *tl, const char *root, const char *key, cg_grad_state state, bool has_norm,
		 double norm)
{
	cg_gradient g = {0};
	char event[256];
	snprintf(event, sizeof event, "grad:%s.%s:%u", root, key, next_line);
	g.event_id = intern(tl, event);
	g.root = intern(tl, root);
	g.key = intern(tl, key);
	g.line = next_line++;
	g.state = (uint8_t)state;
	g.has_norm = has_norm;
	g.norm = norm;
	assert_int_equal(cg_timeline_add_gradient(tl, &g), 0);
}

void tu_tl_finalize(cg_timeline *tl)
{
	cg_error err = CG_ERROR_INIT;
	if (cg_timeline_finalize(tl, &err) != 0)
		fail_msg("finalize failed: %s", err.msg);
}

uint32_t tu_mem_at_line(const cg_timeline *tl, uint32_t line)
{
	for (size_t i = 0; i < tl->nmem; i++)
		if (tl->mem[i].line == line)
			return (uint32_t)i;
	fail_msg("no memory record at line %u", line);
	return CG_NONE;
}
