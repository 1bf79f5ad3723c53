/* cgmem report: a trace in, a report folder out. */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis.h"
#include "charts.h"
#include "chrome_trace.h"
#include "cmd_common.h"
#include "cmd_ranks.h"
#include "commands.h"
#include "devorder.h"
#include "export.h"
#include "outdir.h"
#include "parallel.h"
#include "partial.h"
#include "report.h"
#include "summary_json.h"
#include "termtext.h"
#include "units.h"
#include "xalloc.h"

static const cg_opt report_opts[] = {
	{"output", 'o', "DIR", "write the report into DIR (required)"},
	{"force", 'f', NULL, "replace DIR even when it holds files cgmem did not write"},
	{"trace", 0, "NAME", "name of the Chrome trace in DIR (default trace.json.gz; .json: plain)"},
	{"no-trace", 0, NULL, "do not write the Chrome trace"},
	{"no-html", 0, NULL, "do not write report.html"},
	{"no-js", 0, NULL, "report.html without its explorer: the static page alone (also --static-html)"},
	{"static-html", 0, NULL, "the same as --no-js"},
	{"trace-full", 0, NULL, "every memory record in the Chrome trace (default: ~1M counter events)"},
	{"formats", 0, "LIST", "png, svg, pdf (charts), folded, csv (exports), comma-separated (default png,svg)"},
	{"width", 0, "PX", "chart width in pixels (default 1600, at least 800)"},
	{"height", 0, "PX", "chart height in pixels (default 900, at least 450)"},
	{"scale", 0, "S", "PNG pixels per chart pixel, e.g. 2 for HiDPI (default 1)"},
	{"hidpi-names", 0, NULL, "name the PNGs for their scale: NAME@2x.png at --scale 2"},
	CG_RANK_FROM_OPT,
	CG_TOP_OPT,
	CG_INGEST_OPTS,
	CG_OPT_END,
};

typedef struct report_options {
	const char *trace_name; /* NULL: no Chrome trace */
	bool html;
	bool js; /* report.html with its explorer */
	cg_chrome_options chrome;
	cg_charts_options charts;
	cg_export_options exports;
} report_options;

/* The largest PNG side cgmem writes: 8192 px (a 256 MB image). */
#define MAX_PNG_SIDE 8192

static int pixels_option(const cg_command *cmd, const cg_args *args, const char *name, int min, int *out)
{
	const char *v = cg_args_get(cmd, args, name);
	if (!v)
		return 0;
	bool digits = *v != '\0' && strlen(v) <= 6;
	for (const char *p = v; *p; p++)
		digits &= *p >= '0' && *p <= '9';
	long n = digits ? strtol(v, NULL, 10) : 0;
	if (!digits || n < min || n > MAX_PNG_SIDE)
		return cg_usage_error(cmd, "--%s: '%s' is not a whole number of pixels from %d to %d", name, v, min,
				      MAX_PNG_SIDE);
	*out = (int)n;
	return 0;
}

/* --formats: chart files and export files. */
static int formats_option(const cg_command *cmd, const cg_args *args, cg_charts_options *o, cg_export_options *x)
{
	const char *f = cg_args_get(cmd, args, "formats");
	if (!f)
		return 0;
	o->png = o->svg = o->pdf = false;
	bool *const wanted[] = {&o->png, &o->svg, &o->pdf, &x->folded, &x->csv};
	static const char *const names[] = {"png", "svg", "pdf", "folded", "csv"};
	bool any = false;
	for (const char *p = f; *p;) {
		size_t n = strcspn(p, ","), k = 0;
		while (k < sizeof names / sizeof names[0] && !(strlen(names[k]) == n && strncmp(p, names[k], n) == 0))
			k++;
		if (k == sizeof names / sizeof names[0])
			return cg_usage_error(cmd, "--formats: '%.*s' is not a format (png, svg, pdf, folded, csv)", (int)n,
					      p);
		*wanted[k] = any = true;
		p += n;
		if (*p == ',' && *++p == '\0')
			return cg_usage_error(cmd, "--formats: '%s' ends with a comma", f);
	}
	if (!any)
		return cg_usage_error(cmd, "--formats: give png, svg, pdf, folded, csv or a list of them (png,svg)");
	return 0;
}

/* --formats, --width, --height, --scale, --hidpi-names. */
static int chart_options(const cg_command *cmd, const cg_args *args, cg_charts_options *o, cg_export_options *x)
{
	*o = (cg_charts_options)CG_CHARTS_OPTIONS_INIT;
	*x = (cg_export_options)CG_EXPORT_OPTIONS_INIT;
	int frc = formats_option(cmd, args, o, x);
	if (frc)
		return frc;
	int rc = pixels_option(cmd, args, "width", CG_CHART_MIN_WIDTH, &o->size.width);
	if (rc == 0)
		rc = pixels_option(cmd, args, "height", CG_CHART_MIN_HEIGHT, &o->size.height);
	if (rc)
		return rc;
	const char *v = cg_args_get(cmd, args, "scale");
	if (v) {
		char *end = NULL;
		double s = strtod(v, &end);
		if (end == v || *end != '\0' || !(s >= 0.5 && s <= 4))
			return cg_usage_error(cmd, "--scale: '%s' is not a number from 0.5 to 4", v);
		o->size.scale = s;
	}
	o->hidpi_names = cg_args_flag(cmd, args, "hidpi-names");
	if (o->hidpi_names && !o->png)
		return cg_usage_error(cmd, "--hidpi-names names PNGs, and --formats writes none");
	/* cairo needs the whole image in memory: bound it. */
	if (o->size.width * o->size.scale > MAX_PNG_SIDE || o->size.height * o->size.scale > MAX_PNG_SIDE)
		return cg_usage_error(cmd, "--scale %g makes PNGs of %.0f x %.0f pixels; at most %d on a side", o->size.scale,
				      o->size.width * o->size.scale, o->size.height * o->size.scale, MAX_PNG_SIDE);
	return 0;
}

/* The Chrome trace, written on a thread of its own beside the other files
 * (it is the largest of them and deflates on threads of its own). */
typedef struct trace_job {
	const cg_analysis *a;
	cg_chrome_options chrome;
	char *path;
	int rc;
	cg_error err;
	cg_gate light; /* open once the trace's slices are freed, or it has ended */
	cg_task task;
} trace_job;

/* The slices were allocated in the trace thread's malloc arena, which
 * other threads do not reuse: hand their pages back before report.html's
 * explorer data is built on the main thread, or both count at the peak. */
static void trace_light(void *arg)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
	cg_gate_open(arg);
}

static void trace_run(void *arg)
{
	trace_job *j = arg;
	j->rc = cg_chrome_trace_save(j->path, j->a, &j->chrome, &j->err);
	cg_gate_open(&j->light);
}

/* With one CPU there is no core to overlap on: the trace is written last,
 * as before, and no two renderers' memory adds up. */
static trace_job *trace_start(cg_outdir *od, const cg_analysis *a, const report_options *ro)
{
	if (!ro->trace_name || cg_cpu_count() < 2)
		return NULL;
	trace_job *j = cg_calloc(1, sizeof *j);
	j->a = a;
	j->chrome = ro->chrome;
	j->chrome.slices_done = trace_light;
	j->chrome.slices_done_arg = &j->light;
	/* Named in the manifest in its turn, at the end (trace_finish). */
	j->path = cg_outdir_tmp_path(od, ro->trace_name);
	j->err = (cg_error)CG_ERROR_INIT;
	cg_gate_init(&j->light);
	cg_task_start(&j->task, trace_run, j);
	return j;
}

/* Waits for the trace and frees j; the first error in the order the files
 * used to be written in (the other files', then the trace's) is the one
 * reported, as when they were written one after the other. */
static int trace_finish(trace_job *j, cg_outdir *od, const report_options *ro, int rc, cg_error *err)
{
	cg_task_join(&j->task);
	if (rc == 0) {
		char *path;
		rc = cg_outdir_file(od, ro->trace_name, &path, err);
		cg_free(path);
	}
	if (rc == 0 && j->rc < 0) {
		*err = j->err;
		rc = j->rc;
	}
	cg_gate_destroy(&j->light);
	cg_free(j->path);
	cg_free(j);
	return rc;
}

/* report.html's explorer data, worked out on a thread of its own while
 * summary.json and the charts are written. */
typedef struct explorer_job {
	const cg_analysis *a;
	cg_report_explorer *x;
	cg_task task;
} explorer_job;

static void explorer_run(void *arg)
{
	explorer_job *j = arg;
	j->x = cg_report_explorer_new(j->a);
}

/* Writes every output file into the temporary folder, saying which on
 * the progress line. The Chrome trace is written beside the others; the
 * explorer data of report.html, the other large transient, waits for the
 * trace's slices to be freed, so that the two do not add up at the peak.
 * Without the trace, the explorer data is worked out beside the charts. */
static int write_outputs(cg_outdir *od, const cg_analysis *a, const report_options *ro, cg_progress_line *p,
			 cg_error *err)
{
	trace_job *trace = trace_start(od, a, ro);
	explorer_job explorer = {a, NULL, {0}};
	bool ahead = !trace && ro->html && ro->js && cg_cpu_count() > 1;
	if (ahead)
		cg_task_start(&explorer.task, explorer_run, &explorer);
	char *path;
	cg_progress_line_stage(p, "writing summary.json");
	int rc = cg_outdir_file(od, "summary.json", &path, err);
	if (rc == 0)
		rc = cg_summary_json_save(path, a, err);
	cg_free(path);
	cg_chart_list charts = {0};
	if (rc == 0 && (ro->charts.png || ro->charts.svg || ro->charts.pdf)) {
		cg_progress_line_stage(p, "drawing the charts");
		rc = cg_charts_write(od, a, &ro->charts, &charts, err);
	} else if (rc == 0) {
		cg_chart_list_add_device(&charts, CG_EXPORT_NO_CHARTS, CG_NONE, "", "Charts",
					 "--formats named no chart format (png, svg, pdf)");
	}
	if (rc == 0 && (ro->exports.folded || ro->exports.csv)) {
		cg_progress_line_stage(p, "writing the exports");
		rc = cg_export_write(od, a, &ro->exports, &charts, err);
	}
	if (rc == 0) {
		cg_progress_line_stage(p, ro->html ? "writing report.md and report.html" : "writing report.md");
		if (trace)
			cg_gate_wait(&trace->light);
		if (ahead) {
			cg_task_join(&explorer.task);
			ahead = false;
			rc = cg_report_write_ahead(od, a, &charts, ro->html, explorer.x, err);
		} else {
			rc = cg_report_write(od, a, &charts, ro->html, ro->js, err);
		}
	}
	if (ahead)
		cg_task_join(&explorer.task);
	cg_report_explorer_free(explorer.x);
	cg_chart_list_free(&charts);
	if (trace) {
		if (rc == 0)
			cg_progress_line_stage(p, "writing the Chrome trace");
		rc = trace_finish(trace, od, ro, rc, err);
	} else if (rc == 0 && ro->trace_name) {
		cg_progress_line_stage(p, "writing the Chrome trace");
		rc = cg_outdir_file(od, ro->trace_name, &path, err);
		if (rc == 0)
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
	if (cg_report_owns_name(name))
		return cg_usage_error(cmd, "--trace: '%s' is the name of a file the report writes itself; "
				      "choose another name", cg_args_get(cmd, args, "trace"));
	ro->trace_name = name;
	return 0;
}

static void print_figures(const cg_analysis *a, const char *dir)
{
	const cg_timeline *tl = a->tl;
	uint32_t *order = cg_device_order(tl); /* accelerators first, as the report */
	for (uint32_t k = 0; k < tl->ndevices; k++) {
		uint32_t d = order[k];
		const cg_peak_device *p = &a->peak->devices[d];
		char bytes[32], exact[32], when[32];
		/* names from the trace are escaped for the terminal (termtext.h) */
		cg_termtext_line(stdout, "%s: peak %s (%s B) at %s", cg_timeline_str(tl, tl->devices[d].name),
				 cg_fmt_bytes(bytes, sizeof bytes, p->peak_bytes),
				 cg_fmt_count(exact, sizeof exact, p->peak_bytes),
				 cg_timeline_fmt_time(tl, when, sizeof when, p->peak_t_ns));
	}
	if (tl->source.truncated)
		cg_termtext_line(stdout, "note: %s", tl->source.truncation_note);
	for (uint32_t k = 0; a->end && k < a->end->ndevices && k < tl->ndevices; k++)
		if (a->end->devices[order[k]].verdict)
			cg_termtext_line(stdout, "%s: %s", cg_timeline_str(tl, tl->devices[order[k]].name),
					 a->end->devices[order[k]].verdict);
	cg_free(order);
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	cg_termtext_line(stdout, "report written to %.*s/ (report.html, report.md, summary.json)", (int)n, dir);
}

/* One rank of a job: analysed, its row taken from its summary.json (the
 * partial result, read as cgmem merge reads it: one code path), its own
 * report written into ranks/N/, and everything but the row freed. */
static int report_rank(const cg_command *cmd, cg_cmd_input *in, const report_options *ro, const char *path,
		       const regex_t *re, const char *ranks_dir, cg_rankset *set)
{
	cg_timeline *tl;
	cg_analysis *a;
	int status = cg_cmd_analyse(cmd, in, path, &tl, &a);
	if (status)
		return status;
	cg_error err = CG_ERROR_INIT;
	cg_sink *s = cg_sink_memory();
	cg_summary_json_write(s, a, true);
	size_t len;
	const char *text = cg_sink_data(s, &len);
	int rc = cg_partial_read(set, text, len, path, re, &err);
	cg_sink_close(s, NULL);
	if (rc == 0)
		rc = cg_rankset_check_last(set, &err);
	cg_outdir *sub = NULL;
	if (rc == 0) {
		char *dir = cg_asprintf("%s/%" PRId64, ranks_dir, set->ranks[set->n - 1].rank);
		rc = cg_outdir_begin(&sub, dir, false, &err);
		cg_free(dir);
	}
	if (rc == 0) {
		rc = write_outputs(sub, a, ro, &in->progress, &err);
		if (rc < 0)
			cg_outdir_abort(sub);
		else
			rc = cg_outdir_commit(sub, &err);
	}
	cg_progress_line_end(&in->progress);
	cg_analysis_free(a);
	cg_timeline_free(tl);
	if (rc < 0) {
		cg_termtext_line(stderr, "cgmem report: %s", err.msg);
		return cg_error_exit_status(rc);
	}
	return 0;
}

/* cgmem report FILE...: the ranks of one job, in turn (docs/ranks.md). */
static int report_ranks(const cg_command *cmd, const cg_args *args, const char *dir, cg_cmd_input *in,
			const report_options *ro)
{
	regex_t re;
	bool has_re;
	int status = cg_cmd_rank_regex(cmd, args, &re, &has_re);
	if (status)
		return status;
	cg_error err = CG_ERROR_INIT;
	cg_outdir *od = NULL;
	cg_rankset set = {0};
	int rc = cg_outdir_begin(&od, dir, cg_args_flag(cmd, args, "force"), &err);
	char *ranks_dir = rc == 0 ? cg_outdir_path(od, "ranks") : NULL;
	if (rc == 0 && (!ranks_dir || mkdir(ranks_dir, 0777) != 0))
		rc = cg_error_set(&err, CG_EIO, "%s/ranks: cannot create: %s", dir, strerror(errno));
	for (int i = 0; rc == 0 && status == 0 && i < args->noperands; i++)
		status = report_rank(cmd, in, ro, args->operands[i], has_re ? &re : NULL, ranks_dir, &set);
	if (rc == 0 && status == 0) {
		cg_progress_line_stage(&in->progress, "writing the top report");
		rc = cg_cmd_ranks_write_top(od, &set, ro->html, &err);
		cg_progress_line_end(&in->progress);
		rc = rc < 0 ? rc : cg_outdir_commit(od, &err);
		od = NULL;
	}
	cg_outdir_abort(od);
	cg_free(ranks_dir);
	if (rc < 0) {
		cg_termtext_line(stderr, "cgmem report: %s", err.msg);
		status = cg_error_exit_status(rc);
	} else if (status == 0 && !in->quiet) {
		cg_cmd_ranks_print(&set);
		size_t n = strlen(dir);
		while (n > 1 && dir[n - 1] == '/')
			n--;
		cg_termtext_line(stdout, "report of %zu ranks written to %.*s/ (report.html, report.md, summary.json; "
				 "each rank's in ranks/N/)", set.n, (int)n, dir);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "cgmem report: cannot write to standard output (the report in %s is complete)\n",
				dir);
			status = CG_EXIT_INPUT;
		}
	}
	cg_rankset_clear(&set);
	if (has_re)
		regfree(&re);
	return status;
}

static int run_report(const cg_command *cmd, const cg_args *args)
{
	if (args->noperands < 1)
		return cg_usage_error(cmd, "no trace file given");
	if (args->noperands == 1 && cg_args_get(cmd, args, "rank-from"))
		return cg_usage_error(cmd, "--rank-from numbers the ranks of several files; one was given");
	const char *dir = cg_args_get(cmd, args, "output");
	if (!dir || !*dir)
		return cg_usage_error(cmd, "no output folder given (-o DIR)");
	cg_cmd_input in;
	int status = cg_cmd_input_options(cmd, args, &in);
	if (status)
		return status;
	report_options ro;
	ro.html = !cg_args_flag(cmd, args, "no-html");
	ro.js = !cg_args_flag(cmd, args, "no-js") && !cg_args_flag(cmd, args, "static-html");
	status = trace_option(cmd, args, dir, &ro);
	in.ingest.drop_ops = ro.trace_name == NULL; /* only the Chrome trace reads ops */
	if (status == 0)
		status = chart_options(cmd, args, &ro.charts, &ro.exports);
	if (status)
		return status;

	if (args->noperands > 1)
		return report_ranks(cmd, args, dir, &in, &ro);

	cg_timeline *tl;
	cg_analysis *a;
	status = cg_cmd_analyse(cmd, &in, args->operands[0], &tl, &a);
	if (status)
		return status;

	cg_error err = CG_ERROR_INIT;
	cg_outdir *od = NULL;
	int rc = cg_outdir_begin(&od, dir, cg_args_flag(cmd, args, "force"), &err);
	if (rc == 0) {
		rc = write_outputs(od, a, &ro, &in.progress, &err);
		if (rc < 0)
			cg_outdir_abort(od);
		else
			rc = cg_outdir_commit(od, &err);
	}
	cg_progress_line_end(&in.progress);
	if (rc < 0) {
		cg_termtext_line(stderr, "cgmem report: %s", err.msg);
		status = cg_error_exit_status(rc);
	} else if (!in.quiet) {
		print_figures(a, dir);
		/* As summary and check: lines that cannot be written are an
		 * error, though the folder, already in place, stays. */
		errno = 0;
		bool flushed = fflush(stdout) == 0;
		int e = errno;
		if (!flushed || ferror(stdout)) {
			fprintf(stderr, "cgmem report: cannot write to standard output%s%s (the report in %s is complete)\n",
				e ? ": " : "", e ? strerror(e) : "", dir);
			status = CG_EXIT_INPUT;
		}
	}
	cg_analysis_free(a);
	cg_timeline_free(tl);
	return status;
}

const cg_command cg_cmd_report = {
	"report",
	"FILE...",
	"analyse a trace and write a report folder (report.html, report.md, charts, ...)",
	"FILE is a candle-graph/trace/6 JSONL trace, a PyTorch profiler Chrome trace\n"
	"(recorded with profile_memory=True), a PyTorch export_memory_timeline raw\n"
	"file or a PyTorch CUDA allocator snapshot (torch.cuda.memory._dump_snapshot;\n"
	"nothing in the pickle is run), plain or gzip-compressed, told apart by\n"
	"content; - reads standard input.\n"
	"Bad lines (events) are reported with their number and skipped; a trace cut\n"
	"off mid-record (a crashed run) is analysed up to the cut.\n"
	"Charts, per device: timeline, breakdown, icicle, top_allocations, fragmentation,\n"
	"segments (snapshots) and lifetimes, as NAME.DEVICE.png and .svg, or .pdf with\n"
	"--formats pdf (devices whose names give one file name get -2, -3, ...); a chart\n"
	"that does not apply to the trace is left out and report.md says why; with no\n"
	"chart format in --formats no chart is drawn. --width and --height set the\n"
	"layout (SVG, PDF and PNG alike; a PDF page is 1 pt a pixel); --scale only\n"
	"multiplies the PNG's pixels, and with --hidpi-names the PNGs are named for it,\n"
	"as HiDPI pages expect: NAME.DEVICE@2x.png at --scale 2 (none at --scale 1).\n"
	"Exports (docs/exports.md): --formats folded writes collapsed stacks of what was\n"
	"live at the peak and of the leak candidates (live_at_peak.DEVICE.folded,\n"
	"leaks.DEVICE.folded) for flamegraph.pl, inferno, speedscope and Perfetto;\n"
	"--formats csv writes peak.DEVICE.csv and steps.csv (as summary --csv).\n"
	"The folder is written completely or not at all: an earlier report in DIR is\n"
	"replaced only once the new one is complete. The temporary folder beside it\n"
	"(.cgmem-tmp-*) is removed on errors, out of memory, SIGINT, SIGTERM and SIGHUP;\n"
	"one left by a killed run is removed by the next run on DIR.\n"
	"Several FILEs are the ranks of one distributed job (docs/ranks.md): DIR gets\n"
	"the job's top report (summary.json with a \"ranks\" section, report.md,\n"
	"report.html: per rank and device the peak, when, step, phase, headroom and how\n"
	"the trace ends; imbalance, the highest rank, the first to stop by the wall\n"
	"clock, outliers, missing ranks) and each rank's own report in DIR/ranks/N/.\n"
	"The ranks are analysed in turn and only their rows kept. A file's rank is its\n"
	"distributedInfo.rank, else --rank-from on its name, else rank[-_]?N in the\n"
	"name, else a trailing _N before the first '.'; a file without one, or two\n"
	"files of one rank, is an error. cgmem merge builds the same top report from\n"
	"each rank's cgmem summary FILE --json.\n",
	report_opts,
	run_report,
};
