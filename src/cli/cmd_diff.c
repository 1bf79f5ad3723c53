/* cgmem diff: two traces in, a comparison folder out (diff.md, diff.html,
 * diff.json and the charts). */
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "chart_diff.h"
#include "cmd_common.h"
#include "commands.h"
#include "compare.h"
#include "diff_json.h"
#include "diff_report.h"
#include "outdir.h"
#include "termtext.h"
#include "units.h"
#include "xalloc.h"

static const cg_opt diff_opts[] = {
	{"output", 'o', "DIR", "write the comparison into DIR (required)"},
	{"force", 'f', NULL, "replace DIR even when it holds files cgmem did not write"},
	{"align", 0, "HOW", "start (each run's own time, the default) or phases (aligned)"},
	{"no-html", 0, NULL, "do not write diff.html"},
	{"no-js", 0, NULL, "diff.html without its explorer: the static page alone (also --static-html)"},
	{"static-html", 0, NULL, "the same as --no-js"},
	CG_TOP_OPT,
	CG_INGEST_OPTS,
	CG_OPT_END,
};

static int write_outputs(cg_outdir *od, const cg_diff_view *v, bool html, bool js, cg_error *err)
{
	char *path = cg_outdir_path(od, "diff.json");
	int rc = cg_diff_json_save(path, v, err);
	cg_free(path);
	cg_chart_list charts = {0};
	if (rc == 0)
		rc = cg_diff_charts_write(od, v, NULL, &charts, err);
	if (rc == 0)
		rc = cg_diff_report_write(od, v, &charts, html, js, err);
	cg_chart_list_free(&charts);
	return rc;
}

static void print_figures(const cg_diff_result *d, const char *dir)
{
	for (size_t i = 0; i < d->ndevices; i++) {
		const cg_diff_device *dev = &d->devices[i];
		char b0[32], b1[32], c[32];
		if (dev->index[0] == CG_NONE || dev->index[1] == CG_NONE) {
			int s = dev->index[0] == CG_NONE ? 1 : 0;
			cg_termtext_line(stdout, "%s: only in the %s run, peak %s", dev->name, s ? "new" : "base",
					 cg_fmt_bytes(b0, sizeof b0, dev->peak.v[s]));
			continue;
		}
		bool grew;
		uint64_t m = cg_diff_magnitude(dev->peak, &grew);
		double pct;
		char pc[32] = "";
		if (cg_diff_percent(dev->peak, &pct))
			snprintf(pc, sizeof pc, ", %+.1f %%", pct);
		cg_termtext_line(stdout, "%s: peak %s \xe2\x86\x92 %s (%s%s%s)", dev->name,
				 cg_fmt_bytes(b0, sizeof b0, dev->peak.v[0]), cg_fmt_bytes(b1, sizeof b1, dev->peak.v[1]),
				 m == 0 ? "" : grew ? "+" : "-", cg_fmt_bytes(c, sizeof c, m), pc);
	}
	cg_termtext_line(stdout, "diff written to %s/", dir);
}

static int align_option(const cg_command *cmd, const cg_args *args, cg_align_mode *mode)
{
	const char *v = cg_args_get(cmd, args, "align");
	*mode = CG_ALIGN_START;
	if (!v || strcmp(v, "start") == 0)
		return 0;
	if (strcmp(v, "phases") == 0) {
		*mode = CG_ALIGN_PHASES;
		return 0;
	}
	return cg_usage_error(cmd, "--align: '%s' is neither start nor phases", v);
}

static int run_diff(const cg_command *cmd, const cg_args *args)
{
	if (args->noperands != 2)
		return cg_usage_error(cmd, "give two trace files: the base run, then the new one");
	const char *dir = cg_args_get(cmd, args, "output");
	if (!dir || !*dir)
		return cg_usage_error(cmd, "no output folder given (-o DIR)");
	cg_cmd_input in;
	cg_align_mode mode;
	int status = cg_cmd_input_options(cmd, args, &in);
	if (status == 0)
		status = align_option(cmd, args, &mode);
	if (status)
		return status;

	cg_timeline *tl[2] = {NULL, NULL};
	cg_analysis *a[2] = {NULL, NULL};
	cg_diff_view *v = NULL;
	for (int s = 0; s < 2 && status == 0; s++)
		status = cg_cmd_analyse(cmd, &in, args->operands[s], &tl[s], &a[s]);
	if (status == 0) {
		cg_error err = CG_ERROR_INIT;
		cg_outdir *od = NULL;
		cg_progress_line_stage(&in.progress, "comparing the runs and writing the folder");
		int rc = cg_diff_view_new(&v, a[0], a[1], mode, in.analysis.top_n, &err);
		if (rc == 0)
			rc = cg_outdir_begin(&od, dir, cg_args_flag(cmd, args, "force"), &err);
		if (rc == 0) {
			bool js = !cg_args_flag(cmd, args, "no-js") && !cg_args_flag(cmd, args, "static-html");
			rc = write_outputs(od, v, !cg_args_flag(cmd, args, "no-html"), js, &err);
			if (rc < 0)
				cg_outdir_abort(od);
			else
				rc = cg_outdir_commit(od, &err);
		}
		cg_progress_line_end(&in.progress);
		if (rc < 0) {
			cg_termtext_line(stderr, "cgmem diff: %s", err.msg);
			status = cg_error_exit_status(rc);
		} else if (!in.quiet) {
			print_figures(v->diff, dir);
		}
	}
	cg_diff_view_free(v);
	for (int s = 0; s < 2; s++) {
		cg_analysis_free(a[s]);
		cg_timeline_free(tl[s]);
	}
	return status;
}

const cg_command cg_cmd_diff = {
	"diff",
	"BASE NEW",
	"compare two runs and write a folder (diff.md, diff.html, diff.json, charts)",
	"BASE and NEW are traces of two runs in any format report reads (plain or gzip,\n"
	"cut off or whole). Devices are matched by name. For each, the peak of both runs\n"
	"and the change; the change at the peak by category, by phase and by span path\n"
	"(training steps written as their label, train_step#*, so the peaks compare\n"
	"whichever step they fell in); and the allocations live at one peak without a\n"
	"counterpart at the other, matched by span path, op, shape and size.\n"
	"Charts: both timelines on one axis, each run's time over its duration\n"
	"(--align start) or with their phase boundaries aligned (--align phases), and\n"
	"the change at the peak by category and span path as diverging bars.\n"
	"diff.html explores both runs per device (zoom, hover, pin a moment) with a\n"
	"script and data inside the page; --no-js writes the static page alone.\n"
	"The folder is written completely or not at all, as report writes its own.\n"
	"diff.json is documented in docs/diff-format.md.\n",
	diff_opts,
	run_diff,
};
