/* What `cgmem report FILE...` and `cgmem merge` share (docs/ranks.md):
 * --rank-from, and the top report of a job's ranks written from their
 * rows, so that both build it through one code path. */
#ifndef CG_CMD_RANKS_H
#define CG_CMD_RANKS_H

#include <regex.h>
#include <stdbool.h>

#include "args.h"
#include "outdir.h"
#include "rankset.h"

#define CG_RANK_FROM_OPT \
	{"rank-from", 0, "REGEX", "the rank of a file whose trace has no distributedInfo.rank: its name's first " \
				  "group (or match) of REGEX, POSIX extended (default: rank[-_]?N, else a trailing _N)"}

/* --rank-from: compiles it into *re and sets *has (regfree when set).
 * Prints a usage error and returns CG_EXIT_USAGE on a bad REGEX, else 0. */
int cg_cmd_rank_regex(const cg_command *cmd, const cg_args *args, regex_t *re, bool *has);

/* Sorts s (two files of one rank: an error), computes the figures and
 * writes summary.json, report.md and, with html, report.html into od.
 * Returns 0 or a negative code with err set. */
int cg_cmd_ranks_write_top(cg_outdir *od, cg_rankset *s, bool html, cg_error *err);

/* One line per rank and device on standard output: "rank 3: cuda:0 peak
 * 1.17 GiB (1,258,291,200 B) at 0.400 s". */
void cg_cmd_ranks_print(const cg_rankset *s);

#endif
