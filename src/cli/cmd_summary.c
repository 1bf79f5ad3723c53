/* cgmem summary: the analysis of a trace printed for a terminal
 * (summary_text.h), or with --json the summary.json document on standard
 * output, or with --csv one table as CSV (csv.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "cmd_common.h"
#include "commands.h"
#include "csv.h"
#include "summary_json.h"
#include "summary_text.h"
#include "terminal.h"

static const cg_opt summary_opts[] = {
	{"json", 0, NULL, "print summary.json to standard output instead of text"},
	{"brief", 0, NULL, "per device only the peak, what filled it and the five largest allocations then"},
	{"color", 0, "WHEN", "auto (default: on a terminal, unless NO_COLOR is set), always or never"},
	{"csv", 0, "SECTION", "print one table as CSV instead: peak (allocations live at the peak), steps"},
	CG_TOP_OPT,
	CG_INGEST_OPTS,
	CG_OPT_END,
};

/* How the text is laid out: the terminal's width and colour (terminal.h),
 * --brief. */
static int text_options(const cg_command *cmd, const cg_args *args, cg_summary_text_options *o)
{
	cg_color_mode color = CG_COLOR_AUTO;
	const char *v = cg_args_get(cmd, args, "color");
	if (v && cg_color_mode_parse(v, &color) < 0)
		return cg_usage_error(cmd, "--color: '%s' is not auto, always or never", v);
	o->brief = cg_args_flag(cmd, args, "brief");
	if (o->brief && cg_args_flag(cmd, args, "json"))
		return cg_usage_error(cmd, "--brief is for the text; --json prints the whole summary.json");
	o->width = cg_terminal_width(STDOUT_FILENO);
	o->color = cg_terminal_color(STDOUT_FILENO, color);
	return 0;
}

static int run_summary(const cg_command *cmd, const cg_args *args)
{
	if (args->noperands != 1)
		return cg_usage_error(cmd, args->noperands ? "give exactly one trace file" : "no trace file given");
	cg_csv_section section = CG_CSV_PEAK;
	const char *csv = cg_args_get(cmd, args, "csv");
	if (csv && cg_args_flag(cmd, args, "json"))
		return cg_usage_error(cmd, "--csv and --json each print a document of their own; give one");
	if (csv && cg_args_flag(cmd, args, "brief"))
		return cg_usage_error(cmd, "--brief is for the text; --csv prints one whole table");
	if (csv && !cg_csv_section_parse(csv, &section)) {
		const char *names[CG_CSV_SECTION_COUNT];
		for (int k = 0; k < CG_CSV_SECTION_COUNT; k++)
			names[k] = cg_csv_section_name((cg_csv_section)k);
		char hint[128];
		cg_args_suggest(hint, sizeof hint, csv, strlen(csv), names, CG_CSV_SECTION_COUNT, "");
		return cg_usage_error(cmd, "--csv: '%s' is not a section (peak, steps)%s", csv, hint);
	}
	cg_summary_text_options text = CG_SUMMARY_TEXT_OPTIONS_INIT;
	int status = text_options(cmd, args, &text);
	if (status)
		return status;
	cg_cmd_input in;
	status = cg_cmd_input_options(cmd, args, &in);
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
		cg_summary_text_write(s, a, &text);
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
	"Prints the analysis for a terminal: first the verdict on how the trace ends\n"
	"(FAIL when a device ran out of memory or the trace was cut off, as when the\n"
	"process died; warn when a device was nearly full; else ok), then each device's\n"
	"peak and what was live then, breakdowns by category, phase and span path,\n"
	"figures over time and per step, checkpoints, the allocator replay (an\n"
	"estimate), leaks, lifetimes and the end of the trace. Sizes are in binary units\n"
	"(1 MiB = 1,048,576 bytes). Every figure is defined in docs/analysis.md.\n"
	"\n"
	"The text is as wide as the terminal (COLUMNS when standard output is not one,\n"
	"else 100 columns; at least 80, at most 512). Columns of a list that the trace's\n"
	"format leaves empty (category, phase, op, shape, dtype) are left out. On a\n"
	"terminal FAIL is red and the peak bold, unless NO_COLOR is set (--color).\n"
	"--brief prints per device the peak, what filled it and the five largest\n"
	"allocations then. --json prints the summary.json document instead\n"
	"(docs/summary-format.md).\n"
	"--csv SECTION prints one table as CSV (RFC 4180, CRLF line ends; columns in\n"
	"docs/exports.md): peak, every allocation live at each device's peak; steps,\n"
	"the steps table per step and device. Names from the trace that a spreadsheet\n"
	"would read as a formula (= + - @ TAB CR first) get a leading '.\n",
	summary_opts,
	run_summary,
};
