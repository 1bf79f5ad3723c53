#include "cmd_common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cpus.h"
#include "infer.h"
#include "parallel.h"
#include "progress.h"
#include "termtext.h"
#include "units.h"
#include "xalloc.h"

static int size_option(const cg_command *cmd, const cg_args *args, const char *name, size_t *out)
{
	const char *v = cg_args_get(cmd, args, name);
	if (!v)
		return 0;
	uint64_t n;
	if (cg_parse_size(v, &n) < 0 || n == 0 || n > SIZE_MAX / 2)
		return cg_usage_error(cmd, "--%s: '%s' is not a size (try 64MiB or 1000000)", name, v);
	*out = (size_t)n;
	return 0;
}

/* --max-records N: plain digits; 0 is no limit (the library's UINT64_MAX). */
static int records_option(const cg_command *cmd, const cg_args *args, uint64_t *out)
{
	const char *v = cg_args_get(cmd, args, "max-records");
	if (!v)
		return 0;
	bool digits = *v != '\0' && strlen(v) <= 19;
	for (const char *p = v; *p; p++)
		digits &= *p >= '0' && *p <= '9';
	if (!digits)
		return cg_usage_error(cmd, "--max-records: '%s' is not a number of records (0 for no limit)", v);
	uint64_t n = strtoull(v, NULL, 10);
	*out = n == 0 ? UINT64_MAX : n;
	return 0;
}

static int ingest_options(const cg_command *cmd, const cg_args *args, cg_ingest_options *o)
{
	*o = (cg_ingest_options)CG_INGEST_OPTIONS_INIT;
	o->drop_ops = true; /* report keeps them for its Chrome trace */
	o->strict = cg_args_flag(cmd, args, "strict");
	int rc = size_option(cmd, args, "max-line-bytes", &o->max_line_bytes);
	if (rc)
		return rc;
	const char *threads = cg_args_get(cmd, args, "threads");
	if (threads) {
		char *end;
		unsigned long n = strtoul(threads, &end, 10);
		if (end == threads || *end || n == 0 || n > 64)
			return cg_usage_error(cmd, "--threads: '%s' is not a number from 1 to 64", threads);
		o->threads = (unsigned)n;
	} else {
		/* Beyond 8 the merging thread of ingest sets the pace. */
		unsigned n = cg_cpu_count();
		o->threads = n > 8 ? 8 : n;
	}
	const char *parser = cg_args_get(cmd, args, "parser");
	if (parser && strcmp(parser, "cjson") == 0)
		o->cjson_only = true;
	else if (parser && strcmp(parser, "fast") != 0)
		return cg_usage_error(cmd, "--parser: '%s' is not fast or cjson", parser);
	const char *stack = cg_args_get(cmd, args, "stack");
	if (stack && strcmp(stack, "full") == 0)
		o->stack_full = true;
	else if (stack && strcmp(stack, "user") != 0)
		return cg_usage_error(cmd, "--stack: '%s' is not user or full", stack);
	if ((rc = records_option(cmd, args, &o->max_records)))
		return rc;
	return size_option(cmd, args, "max-string-memory", &o->max_string_bytes);
}

static int top_option(const cg_command *cmd, const cg_args *args, unsigned *top)
{
	const char *v = cg_args_get(cmd, args, "top");
	*top = 20;
	if (!v)
		return 0;
	uint64_t n;
	/* plain digits only: "20", not "20k" */
	bool digits = *v != '\0';
	for (const char *p = v; *p; p++)
		digits &= *p >= '0' && *p <= '9';
	if (!digits || cg_parse_size(v, &n) < 0 || n == 0 || n > 100000)
		return cg_usage_error(cmd, "--top: '%s' is not a number from 1 to 100000", v);
	*top = (unsigned)n;
	return 0;
}

int cg_cmd_input_options(const cg_command *cmd, const cg_args *args, cg_cmd_input *in)
{
	in->quiet = cg_args_flag(cmd, args, "quiet");
	in->stats = cg_args_flag(cmd, args, "stats");
	in->no_infer = cg_args_flag(cmd, args, "no-infer");
	int rc = ingest_options(cmd, args, &in->ingest);
	if (rc)
		return rc;
	in->analysis = (cg_analysis_options)CG_ANALYSIS_OPTIONS_INIT;
	in->analysis.threads = in->ingest.threads;
	return top_option(cmd, args, &in->analysis.top_n);
}

/* Peak resident memory of the process so far, in bytes. */
static uint64_t peak_rss(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_maxrss * 1024 : 0;
}

static void print_stats(const cg_timeline *tl, double seconds, unsigned threads)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	const cg_source *src = &tl->source;
	size_t strings = cg_strtab_used_bytes(tl->strings) + cg_strtab_used_bytes(tl->shapes);
	size_t reserved = cg_strtab_bytes(tl->strings) + cg_strtab_bytes(tl->shapes);
	fprintf(stderr,
		"stats: ingest %.3f s, %" PRIu64 " lines, %" PRIu64 " bytes read (%.0f MB/s), "
		"%zu memory records, %u strings in %zu bytes (%zu reserved), peak RSS %" PRIu64 " bytes, "
		"threads %u (CPUs: %ld online, %u usable)\n",
		seconds, src->lines, src->data_bytes, seconds > 0 ? (double)src->data_bytes / seconds / 1e6 : 0.0,
		tl->nmem, cg_strtab_count(tl->strings), strings, reserved, peak_rss(), threads, online,
		cg_cpus_usable());
}

/* The kept diagnostics as "file:line: message", at most max of them, then
 * a line saying how many more there were. */
static void print_diagnostics(const cg_timeline *tl, FILE *out, size_t max)
{
	const cg_source *src = &tl->source;
	const char *name = src->display_name ? src->display_name : "trace";
	size_t shown = 0;
	for (size_t i = 0; i < src->ndiags && shown < max; i++, shown++) {
		const cg_diag *d = &src->diags[i];
		const char *what = d->kind == CG_DIAG_WARNING ? "warning: " : "";
		/* the file name and the message may quote the trace: escaped */
		if (d->line && src->lines_are_events)
			cg_termtext_line(out, "%s: event %" PRIu64 ": %s%s", name, d->line, what, d->msg);
		else if (d->line)
			cg_termtext_line(out, "%s:%" PRIu64 ": %s%s", name, d->line, what, d->msg);
		else
			cg_termtext_line(out, "%s: %s%s", name, what, d->msg);
	}
	uint64_t total = src->bad_lines + src->warnings;
	if (total > shown)
		cg_termtext_line(out, "%s: ... %" PRIu64 " more diagnostics (%" PRIu64 " bad lines, %" PRIu64
				 " warnings in all)", name, total - shown, src->bad_lines, src->warnings);
}

static int ingest(const cg_command *cmd, cg_cmd_input *in, const char *path, cg_timeline **out)
{
	cg_progress_line_init(&in->progress, !in->quiet && isatty(STDERR_FILENO) ? stderr : NULL,
			      strcmp(path, "-") == 0 ? "<stdin>" : path);
	cg_ingest_options o = in->ingest;
	o.progress = cg_progress_line_draw;
	o.progress_ctx = &in->progress;
	cg_error err = CG_ERROR_INIT;
	double start = cg_now();
	if (cg_ingest(out, path, &o, &err) < 0) {
		cg_termtext_line(stderr, "cgmem %s: %s", cmd->name, err.msg);
		return cg_error_exit_status(err.code);
	}
	if (in->stats)
		print_stats(*out, cg_now() - start, in->ingest.threads);
	if (!in->quiet)
		print_diagnostics(*out, stderr, 20);
	return 0;
}

int cg_cmd_print(const cg_command *cmd, cg_sink *s)
{
	size_t len;
	const char *data = cg_sink_data(s, &len);
	fwrite(data, 1, len, stdout);
	cg_sink_close(s, NULL);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "cgmem %s: cannot write to standard output\n", cmd->name);
		return CG_EXIT_INPUT;
	}
	return 0;
}

/* The steps' windows come from the steps pass. */
void cg_cmd_infer_categories(cg_timeline *tl)
{
	if (!cg_infer_applies(tl))
		return;
	cg_error err = CG_ERROR_INIT;
	cg_steps_result *st = NULL;
	cg_infer_result *r = NULL;
	cg_infer_step *w = NULL;
	if (cg_steps_run(&st, tl, &err) < 0)
		goto cleanup;
	w = cg_calloc(st->nsteps ? st->nsteps : 1, sizeof *w);
	for (uint32_t k = 0; k < st->nsteps; k++)
		w[k] = (cg_infer_step){st->steps[k].start_ns, st->steps[k].end_ns};
	if (cg_infer_run(&r, tl, w, st->nsteps, &err) == 0)
		cg_infer_apply(tl, r);
cleanup:
	cg_infer_free(r);
	free(w);
	cg_steps_free(st);
}

int cg_cmd_analyse(const cg_command *cmd, cg_cmd_input *in, const char *path, cg_timeline **tl,
		   cg_analysis **a)
{
	*tl = NULL;
	*a = NULL;
	int status = ingest(cmd, in, path, tl);
	if (status)
		return status;
	if (!in->no_infer)
		cg_cmd_infer_categories(*tl);
	cg_error err = CG_ERROR_INIT;
	char what[300];
	snprintf(what, sizeof what, "analysing %s", in->progress.name); /* escaped */
	cg_progress_line_stage(&in->progress, what);
	int rc = cg_analysis_run(a, *tl, &in->analysis, &err);
	cg_progress_line_end(&in->progress);
	if (rc < 0) {
		cg_termtext_line(stderr, "cgmem %s: %s", cmd->name, err.msg);
		cg_timeline_free(*tl);
		*tl = NULL;
		return cg_error_exit_status(err.code);
	}
	return 0;
}
