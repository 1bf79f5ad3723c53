/* What the commands that read traces share: their ingest options and the
 * printing of diagnostics. */
#ifndef CG_CMD_COMMON_H
#define CG_CMD_COMMON_H

#include <stdbool.h>

#include "cli.h"
#include "analysis.h"
#include "ingest.h"

/* Options every trace-reading command takes; spliced into their tables. */
#define CG_INGEST_OPTS \
	{"strict", 0, NULL, "stop at the first bad line instead of skipping it"}, \
	{"quiet", 'q', NULL, "no progress, warnings or summary; errors only"}, \
	{"max-line-bytes", 0, "SIZE", "longer lines are bad lines (default 64MiB)"}, \
	{"max-string-memory", 0, "SIZE", "fail when the trace's strings need more (default 2GiB)"}, \
	{"threads", 0, "N", "parse and analyse on N threads (default: one per core, at most 8; 1: on the calling thread)"}, \
	{"parser", 0, "NAME", "fast (default: a scanner, cJSON for the rest) or cjson (every line)"}, \
	{"stats", 0, NULL, "print where ingest spent its time and memory to stderr"}

/* Fills o from the command line; prints a usage error and returns
 * CG_EXIT_USAGE on a bad value, else 0. */
int cg_cmd_ingest_options(const cg_command *cmd, const cg_args *args, cg_ingest_options *o);

/* The --top N option of commands that list allocations (default 20). */
#define CG_TOP_OPT {"top", 'n', "N", "list the N largest allocations, leak groups, ... (default 20)"}
/* Analysis options of commands with --top: the defaults, --top and the
 * thread count of io. Returns 0, or prints a usage error and returns
 * CG_EXIT_USAGE. */
int cg_cmd_analysis_options(const cg_command *cmd, const cg_args *args, const cg_ingest_options *io,
			    cg_analysis_options *ao);

/* Reads path, printing diagnostics to stderr (unless quiet). Returns 0 or
 * the exit status to stop with. */
int cg_cmd_ingest(const cg_command *cmd, const char *path, const cg_ingest_options *o, bool quiet,
		  cg_timeline **out);
/* The same; with stats, also prints ingest time, throughput, string-table
 * bytes and peak RSS to stderr (for benchmarks). */
int cg_cmd_ingest_stats(const cg_command *cmd, const char *path, const cg_ingest_options *o, bool quiet,
			bool stats, cg_timeline **out);

#endif
