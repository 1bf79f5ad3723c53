/* What the commands that read traces share: their options, and reading
 * and analysing a trace with its diagnostics and errors printed. */
#ifndef CG_CMD_COMMON_H
#define CG_CMD_COMMON_H

#include <stdbool.h>

#include "analysis.h"
#include "args.h"
#include "ingest.h"
#include "progress.h"
#include "sink.h"

/* Options every trace-reading command takes; spliced into their tables. */
#define CG_INGEST_OPTS \
	{"strict", 0, NULL, "stop at the first bad line instead of skipping it"}, \
	{"quiet", 'q', NULL, "no progress, warnings or summary; errors only"}, \
	{"max-line-bytes", 0, "SIZE", "longer lines are bad lines (default 64MiB)"}, \
	{"max-string-memory", 0, "SIZE", "fail when the trace's strings need more (default 2GiB)"}, \
	{"max-records", 0, "N", "fail beyond N records, each about 100 bytes of memory (default: what the memory " \
				"the process may use holds, at least 1000000; 0: no limit)"}, \
	{"threads", 0, "N", "parse and analyse on N threads (default: one per CPU the process may use, " \
				"after its affinity mask and cgroup CPU quota, at most 8; 1: on the calling thread)"}, \
	{"parser", 0, "NAME", "fast (default: a scanner, cJSON for the rest) or cjson (every line)"}, \
	{"stack", 0, "HOW", "allocator snapshots: user (default: Python standard-library and PyTorch frames folded away) or full"}, \
	{"stats", 0, NULL, "print where ingest spent its time and memory to stderr"}, \
	{"no-infer", 0, NULL, "PyTorch profiler traces: show memory categories as unknown, as the trace has them, " \
			      "instead of inferring them"}

/* The --top N option of commands that list allocations (default 20). */
#define CG_TOP_OPT {"top", 'n', "N", "list the N largest allocations, leak groups, ... (default 20)"}

/* How a command reads and analyses its traces. */
typedef struct cg_cmd_input {
	cg_ingest_options ingest;
	cg_analysis_options analysis;
	bool quiet; /* --quiet: errors only */
	bool stats; /* --stats: ingest time, throughput and memory on stderr */
	bool no_infer; /* --no-infer: categories a trace does not record stay unknown */
	cg_progress_line progress; /* of the last file read, for the stages after it */
} cg_cmd_input;

/* Fills in from the options of CG_INGEST_OPTS and CG_TOP_OPT (a command
 * without --top gets the default). Prints a usage error and returns
 * CG_EXIT_USAGE on a bad value, else 0. */
int cg_cmd_input_options(const cg_command *cmd, const cg_args *args, cg_cmd_input *in);

/* Reads path and analyses it: progress on a terminal (reading, then
 * "analysing NAME", erased when done; in->progress is left for the
 * command's own stages), the diagnostics (unless quiet) and the stats
 * (with --stats) on stderr. A PyTorch profiler trace, which records no
 * categories, gets inferred ones (cg_cmd_infer_categories) unless
 * in->no_infer. On
 * success *tl and *a are the caller's (cg_analysis_free, then
 * cg_timeline_free). On failure prints "cgmem CMD: message" and returns
 * the exit status; whatever was built is freed and set to NULL. */
int cg_cmd_analyse(const cg_command *cmd, cg_cmd_input *in, const char *path, cg_timeline **tl,
		   cg_analysis **a);

/* Gives a finalized timeline whose trace records no categories inferred
 * ones (analysis/infer.h, cg_infer_applies), before any pass reads them;
 * any other trace is left as it is. */
void cg_cmd_infer_categories(cg_timeline *tl);

/* Writes what a renderer wrote into the memory sink s to standard output
 * and closes s. Returns 0, or prints "cgmem CMD: cannot write to standard
 * output" and returns CG_EXIT_INPUT. */
int cg_cmd_print(const cg_command *cmd, cg_sink *s);

#endif
