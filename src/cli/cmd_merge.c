/* cgmem merge: partial results of a job's ranks (each rank's summary.json,
 * or earlier merges) into the top report, or with --json into one partial
 * again, so that merges form a tree (docs/ranks.md). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd_common.h"
#include "cmd_ranks.h"
#include "commands.h"
#include "partial.h"
#include "ranks.h"
#include "ranks_json.h"
#include "termtext.h"

static const cg_opt merge_opts[] = {
	{"output", 'o', "DIR", "write the top report into DIR"},
	{"json", 0, NULL, "print the merged partial (a ranks document) to standard output instead"},
	{"force", 'f', NULL, "replace DIR even when it holds files cgmem did not write"},
	{"no-html", 0, NULL, "do not write report.html"},
	CG_RANK_FROM_OPT,
	{"quiet", 'q', NULL, "no summary lines; errors only"},
	CG_OPT_END,
};

static int load_all(const cg_command *cmd, const cg_args *args, const regex_t *re, cg_rankset *set)
{
	cg_error err = CG_ERROR_INIT;
	for (int i = 0; i < args->noperands; i++) {
		cg_rankset part = {0};
		int rc = cg_partial_load(&part, args->operands[i], re, &err);
		if (rc == 0)
			rc = cg_rankset_merge(set, &part, &err);
		cg_rankset_clear(&part);
		if (rc < 0) {
			cg_termtext_line(stderr, "cgmem %s: %s", cmd->name, err.msg);
			return cg_error_exit_status(rc);
		}
	}
	return 0;
}

static int write_dir(const cg_command *cmd, const cg_args *args, const char *dir, cg_rankset *set)
{
	cg_error err = CG_ERROR_INIT;
	cg_outdir *od = NULL;
	int rc = cg_outdir_begin(&od, dir, cg_args_flag(cmd, args, "force"), &err);
	if (rc == 0) {
		rc = cg_cmd_ranks_write_top(od, set, !cg_args_flag(cmd, args, "no-html"), &err);
		if (rc < 0)
			cg_outdir_abort(od);
		else
			rc = cg_outdir_commit(od, &err);
	}
	if (rc < 0) {
		cg_termtext_line(stderr, "cgmem %s: %s", cmd->name, err.msg);
		return cg_error_exit_status(rc);
	}
	if (cg_args_flag(cmd, args, "quiet"))
		return 0;
	cg_cmd_ranks_print(set);
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	cg_termtext_line(stdout, "top report of %zu ranks written to %.*s/ (report.html, report.md, summary.json)",
			 set->n, (int)n, dir);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "cgmem merge: cannot write to standard output (the report in %s is complete)\n", dir);
		return CG_EXIT_INPUT;
	}
	return 0;
}

static int run_merge(const cg_command *cmd, const cg_args *args)
{
	if (args->noperands < 1)
		return cg_usage_error(cmd, "no partial result given (each rank's cgmem summary --json)");
	const char *dir = cg_args_get(cmd, args, "output");
	bool json = cg_args_flag(cmd, args, "json");
	if (json == (dir != NULL))
		return cg_usage_error(cmd, json ? "--json prints the merged partial; -o DIR writes the report: give one"
						: "give -o DIR (the top report) or --json (the merged partial)");
	if (dir && !*dir)
		return cg_usage_error(cmd, "-o: the output folder is empty");
	if (json && (cg_args_flag(cmd, args, "force") || cg_args_flag(cmd, args, "no-html")))
		return cg_usage_error(cmd, "--force and --no-html are for -o DIR; --json prints one document");
	regex_t re;
	bool has_re;
	int status = cg_cmd_rank_regex(cmd, args, &re, &has_re);
	if (status)
		return status;
	cg_rankset set = {0};
	status = load_all(cmd, args, has_re ? &re : NULL, &set);
	if (status == 0 && json) {
		cg_ranks_result *f;
		cg_ranks_run(&f, &set);
		cg_sink *s = cg_sink_memory();
		cg_ranks_json_write(s, &set, f);
		cg_ranks_free(f);
		status = cg_cmd_print(cmd, s);
	} else if (status == 0) {
		status = write_dir(cmd, args, dir, &set);
	}
	cg_rankset_clear(&set);
	if (has_re)
		regfree(&re);
	return status;
}

const cg_command cg_cmd_merge = {
	"merge",
	"PART...",
	"merge the partial results of a job's ranks into its top report (or --json: one partial)",
	"Each PART is a rank's partial result, the summary.json that\n"
	"`cgmem summary FILE --json` prints (the map step), or a ranks document that\n"
	"`cgmem merge --json` printed: merges form a tree, and any grouping and any\n"
	"order of the same ranks give byte-identical output. -o DIR writes the top\n"
	"report (summary.json with its \"ranks\" section, report.md, report.html), the\n"
	"same files as `cgmem report FILE... -o DIR` over the ranks' traces; the\n"
	"per-rank reports in DIR/ranks/N/ are written by cgmem report only.\n"
	"A rank's number is its trace's distributedInfo.rank, else --rank-from on\n"
	"the trace's file name, else rank[-_]?N in the name, else a trailing _N\n"
	"before the first '.' (docs/ranks.md). Two parts of one rank are an error;\n"
	"ranks missing from world_size are a finding of the report.\n",
	merge_opts,
	run_merge,
};
