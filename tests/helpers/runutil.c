#include "runutil.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

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
	const char *args[64];
	int n = 0;
	va_list ap;
	va_start(ap, stdin_path);
	const char *a;
	while ((a = va_arg(ap, const char *)) != NULL && n < 62)
		args[n++] = a;
	va_end(ap);
	args[n] = NULL;
	return tu_runv(out, err, stdin_path, args);
}

int tu_runv(char **out, char **err, const char *stdin_path, const char *const *args)
{
	char *argv[64];
	int argc = 0;
	argv[argc++] = CGMEM_BIN;
	for (; *args && argc < 63; args++)
		argv[argc++] = (char *)*args;
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

void tu_expectv(const char *const *args, int status, const char *stdout_text)
{
	char *out, *err;
	int rc = tu_runv(&out, &err, NULL, args);
	if (rc != status)
		fail_msg("exit %d, expected %d; stderr: %s", rc, status, err);
	if (stdout_text && strcmp(out, stdout_text) != 0)
		fail_msg("stdout:\n%s\nexpected:\n%s", out, stdout_text);
	free(out);
	free(err);
}
