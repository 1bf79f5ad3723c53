/* The command line: option parsing driven by one table per command, which
 * also produces each command's --help text (as libgit2's CLI does). The
 * commands themselves are listed in main.c. */
#ifndef CG_ARGS_H
#define CG_ARGS_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"

/* Exit statuses, documented in --help and cgmem(1). */
enum {
	CG_EXIT_OK = 0,
	CG_EXIT_INPUT = 1, /* bad input, or a file could not be read or written */
	CG_EXIT_USAGE = 2, /* the command line is wrong */
	CG_EXIT_CHECK = 3, /* cgmem check: a limit was exceeded */
};

typedef struct cg_opt {
	const char *name;  /* long name, without "--" */
	char short_name;   /* 0 when there is none */
	const char *arg;   /* placeholder for the value ("DIR"), NULL for a flag */
	const char *help;
} cg_opt;

#define CG_OPT_END {NULL, 0, NULL, NULL}
#define CG_MAX_OPTS 48

/* What the command line said: for each option of the table, its value
 * (the last one given; "" for a flag) or NULL; then the operands. */
typedef struct cg_args {
	const char *value[CG_MAX_OPTS];
	const char **operands;
	int noperands;
} cg_args;

typedef struct cg_command {
	const char *name;
	const char *operands; /* "FILE" */
	const char *summary;  /* one line for `cgmem --help` */
	const char *details;  /* paragraphs after the options in `cgmem help NAME` */
	const cg_opt *opts;
	int (*run)(const struct cg_command *cmd, const cg_args *args);
} cg_command;

/* Parses argv (after the command name) against cmd's table. Returns 0, or
 * CG_EUSAGE with a message naming the bad option. args->operands is freed
 * by cg_args_free. */
int cg_args_parse(const cg_command *cmd, int argc, char **argv, cg_args *args, cg_error *err);
void cg_args_free(cg_args *args);
/* The value of option `name`, or NULL when not given. */
const char *cg_args_get(const cg_command *cmd, const cg_args *args, const char *name);
bool cg_args_flag(const cg_command *cmd, const cg_args *args, const char *name);

/* Writes `cgmem help NAME`. */
void cg_command_help(const cg_command *cmd, FILE *out);

/* Reports a usage error and returns CG_EXIT_USAGE. */
int cg_usage_error(const cg_command *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
