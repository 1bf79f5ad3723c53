/* What the command line knows of the terminal on standard output, for the
 * text it prints (`summary`): how wide to lay it out and whether to colour
 * it. Only src/cli looks at the terminal; renderers are told. */
#ifndef CG_TERMINAL_H
#define CG_TERMINAL_H

#include <stdbool.h>

/* The width for text written to fd: the terminal's (TIOCGWINSZ) when fd
 * is one, else COLUMNS when it is set to a number, else 100; never fewer
 * than 80 columns. */
unsigned cg_terminal_width(int fd);

typedef enum cg_color_mode { CG_COLOR_AUTO, CG_COLOR_ALWAYS, CG_COLOR_NEVER } cg_color_mode;

/* Parses --color's value: auto, always or never. Returns 0, or -1. */
int cg_color_mode_parse(const char *s, cg_color_mode *out);

/* Whether to write SGR escapes to fd: always, never, or (auto) when fd is
 * a terminal and NO_COLOR is unset or empty (no-color.org). */
bool cg_terminal_color(int fd, cg_color_mode mode);

#endif
