/* cgmem summary: the analysis of a trace printed for a terminal
 * (summary_text.h), or with --json the summary.json document on standard
 * output. */
#include <stdio.h>

#include "analysis.h"
#include "cmd_common.h"
#include "commands.h"
#include "summary_json.h"
#include "summary_text.h"

static const cg_opt summary_opts[] = {
	{"json", 0, NULL, "print summary.json to standard output instead of text"},
	CG_TOP_OPT,
	CG_INGEST_OPTS,
	CG_OPT_END,
};

static int run_summary(const cg_command *cmd, const cg_args *args)
{
	if (args->noperands != 1)
		return cg_usage_error(cmd, args->noperands ? "give exactly one trace file" : "no trace file given");
	cg_cmd_input in;
	int status = cg_cmd_input_options(cmd, args, &in);
	if (status)
		return status;
	cg_timeline *tl;
	cg_analysis *a;
	status = cg_cmd_analyse(cmd, &in, args->operands[0], &tl, &a);
	if (status)
		return status;
	cg_sink *s = cg_sink_memory();
	if (cg_args_flag(cmd, args, "json")) {
		cg_summary_json_write(s, a, true);
		cg_sink_putc(s, '\n');
	} else {
		cg_summary_text_write(s, a);
	}
	status = cg_cmd_print(cmd, s);
	cg_analysis_free(a);
	cg_timeline_free(tl);
	return status;
}

const cg_command cg_cmd_summary = {
	"summary",
	"FILE",
	"analyse a trace and print the key figures (--json: summary.json)",
	"Prints the analysis for a terminal: each device's peak and what was live then,\n"
	"breakdowns by category, phase and span path, figures over time and per step,\n"
	"checkpoints, the allocator replay (an estimate), leaks, lifetimes and the end of\n"
	"the trace with a verdict when the run looks like it died. Sizes are in binary\n"
	"units (1 MiB = 1,048,576 bytes). Every figure is defined in docs/analysis.md.\n"
	"--json prints the summary.json document instead (docs/summary-format.md).\n",
	summary_opts,
	run_summary,
};
