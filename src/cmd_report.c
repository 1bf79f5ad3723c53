/* cgmem report: a trace in, a report folder out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "cmd_common.h"
#include "outdir.h"
#include "summary_json.h"
#include "units.h"
#include "xalloc.h"

static const cg_opt report_opts[] = {
	{"output", 'o', "DIR", "write the report into DIR (required)"},
	{"force", 'f', NULL, "replace DIR even when it holds files cgmem did not write"},
	CG_INGEST_OPTS,
	CG_OPT_END,
};

/* Writes every output file into the temporary folder. */
static int write_outputs(cg_outdir *od, const cg_analysis *a, cg_error *err)
{
	char *path = cg_outdir_path(od, "summary.json");
	int rc = cg_summary_json_save(path, a, err);
	cg_free(path);
	return rc;
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
	printf("report written to %s/\n", dir);
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
	int status = cg_cmd_ingest_options(cmd, args, &io);
	if (status)
		return status;

	cg_timeline *tl = NULL;
	status = cg_cmd_ingest_stats(cmd, args->operands[0], &io, quiet, cg_args_flag(cmd, args, "stats"), &tl);
	if (status)
		return status;

	cg_error err = CG_ERROR_INIT;
	cg_analysis *a = NULL;
	cg_outdir *od = NULL;
	int rc = cg_analysis_run(&a, tl, NULL, &err);
	if (rc == 0)
		rc = cg_outdir_begin(&od, dir, cg_args_flag(cmd, args, "force"), &err);
	if (rc == 0) {
		rc = write_outputs(od, a, &err);
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
	"analyse a trace and write a report folder (summary.json, ...)",
	"FILE is a candle-graph/trace/6 JSONL trace, plain or gzip-compressed; - reads\n"
	"standard input. Bad lines are reported with their line number and skipped;\n"
	"a trace cut off mid-record (a crashed run) is analysed up to the cut.\n"
	"The folder is written completely or not at all: an earlier report in DIR is\n"
	"replaced only once the new one is complete.\n",
	report_opts,
	run_report,
};
