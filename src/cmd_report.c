/* cgmem report: a trace in, a report folder out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "charts.h"
#include "chrome_trace.h"
#include "cmd_common.h"
#include "outdir.h"
#include "report.h"
#include "summary_json.h"
#include "units.h"
#include "xalloc.h"

static const cg_opt report_opts[] = {
	{"output", 'o', "DIR", "write the report into DIR (required)"},
	{"force", 'f', NULL, "replace DIR even when it holds files cgmem did not write"},
	{"trace", 0, "NAME", "name of the Chrome trace in DIR (default trace.json.gz; .json: plain)"},
	{"no-trace", 0, NULL, "do not write the Chrome trace"},
	{"no-html", 0, NULL, "do not write report.html"},
	{"trace-full", 0, NULL, "every memory record in the Chrome trace (default: ~1M samples)"},
	CG_TOP_OPT,
	CG_INGEST_OPTS,
	CG_OPT_END,
};

typedef struct report_options {
	const char *trace_name; /* NULL: no Chrome trace */
	bool html;
	cg_chrome_options chrome;
} report_options;

/* Writes every output file into the temporary folder. */
static int write_outputs(cg_outdir *od, const cg_analysis *a, const report_options *ro, cg_error *err)
{
	char *path = cg_outdir_path(od, "summary.json");
	int rc = cg_summary_json_save(path, a, err);
	cg_free(path);
	cg_chart_list charts = {0};
	if (rc == 0)
		rc = cg_charts_write(od, a, NULL, &charts, err);
	if (rc == 0)
		rc = cg_report_write(od, a, &charts, ro->html, err);
	cg_chart_list_free(&charts);
	if (rc == 0 && ro->trace_name) {
		path = cg_outdir_path(od, ro->trace_name);
		rc = cg_chrome_trace_save(path, a, &ro->chrome, err);
		cg_free(path);
	}
	return rc;
}

/* --trace names a file inside the report folder: "x.json", or "DIR/x.json". */
static int trace_option(const cg_command *cmd, const cg_args *args, const char *dir, report_options *ro)
{
	ro->chrome = (cg_chrome_options)CG_CHROME_OPTIONS_INIT;
	ro->chrome.full = cg_args_flag(cmd, args, "trace-full");
	const char *name = cg_args_get(cmd, args, "trace");
	if (cg_args_flag(cmd, args, "no-trace")) {
		if (name || ro->chrome.full)
			return cg_usage_error(cmd, "--no-trace contradicts --trace and --trace-full");
		ro->trace_name = NULL;
		return 0;
	}
	if (!name) {
		ro->trace_name = "trace.json.gz";
		return 0;
	}
	size_t dlen = strlen(dir);
	while (dlen > 1 && dir[dlen - 1] == '/')
		dlen--;
	if (strncmp(name, dir, dlen) == 0 && name[dlen] == '/')
		name += dlen + 1;
	size_t n = strlen(name);
	bool json = (n > 5 && strcmp(name + n - 5, ".json") == 0) || (n > 8 && strcmp(name + n - 8, ".json.gz") == 0);
	if (strchr(name, '/') || !json || name[0] == '.')
		return cg_usage_error(cmd, "--trace: '%s' must be a file name ending in .json or .json.gz, "
				      "written inside the report folder", cg_args_get(cmd, args, "trace"));
	ro->trace_name = name;
	return 0;
}

static void print_figures(const cg_analysis *a, const char *dir)
{
	const cg_timeline *tl = a->tl;
	for (uint32_t d = 0; d < tl->ndevices; d++) {
		const cg_peak_device *p = &a->peak->devices[d];
		char bytes[32], exact[32], when[32];
		printf("%s: peak %s (%s B) at %s\n", cg_timeline_str(tl, tl->devices[d].name),
		       cg_fmt_bytes(bytes, sizeof bytes, p->peak_bytes),
		       cg_fmt_count(exact, sizeof exact, p->peak_bytes),
		       cg_fmt_time(when, sizeof when, p->peak_t_ns));
	}
	if (tl->source.truncated)
		printf("note: %s\n", tl->source.truncation_note);
	for (uint32_t d = 0; a->end && d < a->end->ndevices; d++)
		if (a->end->devices[d].verdict)
			printf("%s: %s\n", cg_timeline_str(tl, tl->devices[d].name), a->end->devices[d].verdict);
	printf("report written to %s/ (report.html, report.md, summary.json)\n", dir);
}

static int run_report(const cg_command *cmd, const cg_args *args)
{
	if (args->noperands != 1)
		return cg_usage_error(cmd, args->noperands ? "give exactly one trace file" : "no trace file given");
	const char *dir = cg_args_get(cmd, args, "output");
	if (!dir || !*dir)
		return cg_usage_error(cmd, "no output folder given (-o DIR)");
	bool quiet = cg_args_flag(cmd, args, "quiet");
	cg_ingest_options io;
	cg_analysis_options ao = CG_ANALYSIS_OPTIONS_INIT;
	int status = cg_cmd_ingest_options(cmd, args, &io);
	if (status == 0)
		status = cg_cmd_top_option(cmd, args, &ao.top_n);
	if (status)
		return status;
	report_options ro;
	ro.html = !cg_args_flag(cmd, args, "no-html");
	status = trace_option(cmd, args, dir, &ro);
	if (status)
		return status;

	cg_timeline *tl = NULL;
	status = cg_cmd_ingest_stats(cmd, args->operands[0], &io, quiet, cg_args_flag(cmd, args, "stats"), &tl);
	if (status)
		return status;

	cg_error err = CG_ERROR_INIT;
	cg_analysis *a = NULL;
	cg_outdir *od = NULL;
	int rc = cg_analysis_run(&a, tl, &ao, &err);
	if (rc == 0)
		rc = cg_outdir_begin(&od, dir, cg_args_flag(cmd, args, "force"), &err);
	if (rc == 0) {
		rc = write_outputs(od, a, &ro, &err);
		if (rc < 0)
			cg_outdir_abort(od);
		else
			rc = cg_outdir_commit(od, &err);
	}
	if (rc < 0) {
		fprintf(stderr, "cgmem report: %s\n", err.msg);
		status = cg_error_exit_status(rc);
	} else if (!quiet) {
		print_figures(a, dir);
	}
	cg_analysis_free(a);
	cg_timeline_free(tl);
	return status;
}

const cg_command cg_cmd_report = {
	"report",
	"FILE",
	"analyse a trace and write a report folder (summary.json, trace.json.gz, ...)",
	"FILE is a candle-graph/trace/6 JSONL trace, a PyTorch profiler Chrome trace\n"
	"(recorded with profile_memory=True) or a PyTorch export_memory_timeline raw\n"
	"file, plain or gzip-compressed, told apart by content; - reads standard input.\n"
	"Bad lines (events) are reported with their number and skipped; a trace cut\n"
	"off mid-record (a crashed run) is analysed up to the cut.\n"
	"The folder is written completely or not at all: an earlier report in DIR is\n"
	"replaced only once the new one is complete.\n",
	report_opts,
	run_report,
};
