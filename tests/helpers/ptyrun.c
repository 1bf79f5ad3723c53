#define _GNU_SOURCE /* posix_openpt, ptsname */
#include "ptyrun.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "testutil.h"

char *tu_run_pty(int *status, unsigned short cols, ...)
{
	const char *args[64];
	int n = 0;
	va_list ap;
	va_start(ap, cols);
	const char *a;
	while ((a = va_arg(ap, const char *)) != NULL && n < 62)
		args[n++] = a;
	va_end(ap);
	args[n] = NULL;
	return tu_run_pty_fd(status, 1, cols, args);
}

char *tu_run_pty_fd(int *status, int fd, unsigned short cols, const char *const *args)
{
	char *argv[64];
	int argc = 0;
	argv[argc++] = CGMEM_BIN;
	for (; *args && argc < 63; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;

	int master = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(master >= 0);
	assert_int_equal(grantpt(master), 0);
	assert_int_equal(unlockpt(master), 0);
	struct winsize ws = {.ws_row = 50, .ws_col = cols};
	assert_int_equal(ioctl(master, TIOCSWINSZ, &ws), 0);
	char slave_name[256];
	snprintf(slave_name, sizeof slave_name, "%s", ptsname(master));
	/* the other of stdout and stderr goes to a file */
	const char *file_path = tu_path(fd == 1 ? ".pty-stderr" : ".pty-stdout");
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int slave = open(slave_name, O_RDWR | O_NOCTTY);
		int file = open(file_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int in = open("/dev/null", O_RDONLY);
		struct termios t;
		if (slave < 0 || file < 0 || in < 0 || tcgetattr(slave, &t) < 0)
			_exit(127);
		t.c_oflag &= ~(tcflag_t)OPOST; /* "\n" stays "\n" */
		tcsetattr(slave, TCSANOW, &t);
		dup2(in, 0);
		dup2(fd == 1 ? slave : file, 1);
		dup2(fd == 1 ? file : slave, 2);
		close(master);
		execv(CGMEM_BIN, argv);
		_exit(127);
	}
	size_t cap = 1 << 16, n = 0;
	char *text = malloc(cap);
	for (;;) {
		if (cap - n < 2)
			text = realloc(text, cap *= 2);
		ssize_t k = read(master, text + n, cap - n - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break; /* EIO once the child, the last holder of the slave, is gone */
		n += (size_t)k;
	}
	text[n] = '\0';
	close(master);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return text;
}
