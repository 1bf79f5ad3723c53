/* The command line: option parsing driven by one table per command, which
 * also produces each command's --help text (as libgit2's CLI does). The
 * commands themselves are listed in main.c. */
#ifndef CG_ARGS_H
#define CG_ARGS_H

#include <stdbool.h>
#include <stddef.h>
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
	bool help; /* -h or --help, which every command takes beside its table */
} cg_args;

typedef struct cg_command {
	const char *name;
	const char *operands; /* "FILE" */
	const char *summary;  /* one line for `cgmem --help` */
	const char *details;  /* paragraphs after the options in `cgmem help NAME` */
	const cg_opt *opts;
	int (*run)(const struct cg_command *cmd, const cg_args *args);
} cg_command;

/* Parses argv (after the command name) against cmd's table, the GNU way:
 * "--name VALUE", "--name=VALUE", any unambiguous prefix of a long name
 * ("--thr 2" for --threads), short options alone or clustered ("-qf",
 * "-qo DIR", "-n7"), "--" ending the options, "-" an operand. Returns 0,
 * or CG_EUSAGE with a message naming the bad option: "unknown option
 * --focre; did you mean '--force'?", "option --no is ambiguous
 * (--no-trace, --no-html)". args->operands is freed by cg_args_free. */
int cg_args_parse(const cg_command *cmd, int argc, char **argv, cg_args *args, cg_error *err);
void cg_args_free(cg_args *args);
/* The index in opts of the long option name[0..len) (without "--"): the
 * option of that name, or the only one whose name it begins. Else
 * CG_EUSAGE with the message cg_args_parse gives. */
int cg_opt_lookup(const cg_opt *opts, const char *name, size_t len, cg_error *err);

/* How many edits (insert, delete, replace, swap two neighbours) a
 * mistyped name may be from the names suggested for it. */
#define CG_SUGGEST_EDITS 2

/* Writes into buf "; did you mean 'PREFIXNAME'?" for the name of names
 * nearest to word[0..len) within CG_SUGGEST_EDITS edits (every one as
 * near, joined by " or "), or "" when none is that near. */
void cg_args_suggest(char *buf, size_t size, const char *word, size_t len, const char *const *names, size_t n,
		     const char *prefix);

/* The value of option `name` (its exact name), or NULL when not given. */
const char *cg_args_get(const cg_command *cmd, const cg_args *args, const char *name);
bool cg_args_flag(const cg_command *cmd, const cg_args *args, const char *name);

/* Writes `cgmem help NAME`. */
void cg_command_help(const cg_command *cmd, FILE *out);

/* Reports a usage error and returns CG_EXIT_USAGE. */
int cg_usage_error(const cg_command *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
