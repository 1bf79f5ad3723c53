/* cgmem summary: the analysis of a trace printed for a terminal
 * (summary_text.h), or with --json the summary.json document on standard
 * output, or with --csv one table as CSV (csv.h). */
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "cmd_common.h"
#include "commands.h"
#include "csv.h"
#include "summary_json.h"
#include "summary_text.h"

static const cg_opt summary_opts[] = {
	{"json", 0, NULL, "print summary.json to standard output instead of text"},
	{"csv", 0, "SECTION", "print one table as CSV instead: peak (allocations live at the peak), steps"},
	CG_TOP_OPT,
	CG_INGEST_OPTS,
	CG_OPT_END,
};

static int run_summary(const cg_command *cmd, const cg_args *args)
{
	if (args->noperands != 1)
		return cg_usage_error(cmd, args->noperands ? "give exactly one trace file" : "no trace file given");
	cg_csv_section section = CG_CSV_PEAK;
	const char *csv = cg_args_get(cmd, args, "csv");
	if (csv && cg_args_flag(cmd, args, "json"))
		return cg_usage_error(cmd, "--csv and --json each print a document of their own; give one");
	if (csv && !cg_csv_section_parse(csv, &section)) {
		const char *names[CG_CSV_SECTION_COUNT];
		for (int k = 0; k < CG_CSV_SECTION_COUNT; k++)
			names[k] = cg_csv_section_name((cg_csv_section)k);
		char hint[128];
		cg_args_suggest(hint, sizeof hint, csv, strlen(csv), names, CG_CSV_SECTION_COUNT, "");
		return cg_usage_error(cmd, "--csv: '%s' is not a section (peak, steps)%s", csv, hint);
	}
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
	if (csv) {
		cg_csv_write(s, a, section, CG_NONE);
	} else if (cg_args_flag(cmd, args, "json")) {
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
	"--json prints the summary.json document instead (docs/summary-format.md).\n"
	"--csv SECTION prints one table as CSV (RFC 4180, CRLF line ends; columns in\n"
	"docs/exports.md): peak, every allocation live at each device's peak; steps,\n"
	"the steps table per step and device. Names from the trace that a spreadsheet\n"
	"would read as a formula (= + - @ TAB CR first) get a leading '.\n",
	summary_opts,
	run_summary,
};
