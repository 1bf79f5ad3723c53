/* The terminal on standard output (terminal.h). */
#include "terminal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define PIPED_WIDTH 100
#define LEAST_WIDTH 80

/* COLUMNS as a number of columns, or 0 when unset or not a number. */
static unsigned columns_env(void)
{
	const char *v = getenv("COLUMNS");
	if (!v || !*v || strlen(v) > 6)
		return 0;
	for (const char *p = v; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return (unsigned)strtoul(v, NULL, 10);
}

unsigned cg_terminal_width(int fd)
{
	unsigned width = 0;
	struct winsize ws;
	if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0)
		width = ws.ws_col; /* 0 when the terminal does not know */
	if (width == 0)
		width = columns_env();
	if (width == 0)
		width = PIPED_WIDTH;
	return width < LEAST_WIDTH ? LEAST_WIDTH : width;
}

int cg_color_mode_parse(const char *s, cg_color_mode *out)
{
	static const char *const names[] = {"auto", "always", "never"};
	for (int i = 0; i < 3; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (cg_color_mode)i;
			return 0;
		}
	return -1;
}

bool cg_terminal_color(int fd, cg_color_mode mode)
{
	if (mode != CG_COLOR_AUTO)
		return mode == CG_COLOR_ALWAYS;
	const char *no_color = getenv("NO_COLOR");
	return isatty(fd) && !(no_color && *no_color);
}
