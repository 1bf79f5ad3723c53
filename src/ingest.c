#include "ingest.h"

#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "format.h"
#include "ingest_private.h"
#include "kineto.h"
#include "memtimeline_raw.h"
#include "progress.h"
#include "record.h"
#include "xalloc.h"

typedef cg_ingest_ctx ingest;

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

static int bad_line(ingest *in, uint64_t line, const char *msg, cg_error *err)
{
	if (in->o->strict)
		return cg_error_set(err, CG_EINPUT, "%s:%" PRIu64 ": %s", in->name, line, msg);
	cg_diag_add(in->tl, CG_DIAG_BAD_LINE, line, "%s", msg);
	return 0;
}

static void mark_truncated(ingest *in, uint64_t line, const char *note)
{
	cg_source *src = &in->tl->source;
	if (src->truncated)
		return;
	src->truncated = true;
	src->truncated_line = line;
	src->truncation_note = cg_strdup(note);
}

static int parse_line(ingest *in, const char *line, size_t len, uint64_t lineno,
		      bool last_unterminated, cg_error *err);

/* line[len] is writable: the newline, or the spare byte after the last line.
 * It holds a NUL while the line is parsed, and what it held after: a block
 * may be read again (ingest_par.c). */
static int one_line(ingest *in, char *line, size_t len, uint64_t lineno, bool last_unterminated,
		    cg_error *err)
{
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (blank(line, len)) {
		in->tl->source.blank_lines++;
		return 0;
	}
	char msg[512];
	if (len > in->o->max_line_bytes) {
		snprintf(msg, sizeof msg, "line is %zu bytes, longer than the limit of %zu (--max-line-bytes)",
			 len, in->o->max_line_bytes);
		return bad_line(in, lineno, msg, err);
	}
	if (lineno >= UINT32_MAX)
		return cg_error_set(err, CG_ELIMIT, "%s: more than %u lines", in->name, UINT32_MAX - 1);
	char saved = line[len];
	line[len] = '\0';
	int rc = parse_line(in, line, len, lineno, last_unterminated, err);
	line[len] = saved;
	return rc;
}

static int parse_line(ingest *in, const char *line, size_t len, uint64_t lineno,
		      bool last_unterminated, cg_error *err)
{
	char msg[512];
	const cg_fields *f;
	if (cg_jsonl_parse(in->parser, line, len, &f, msg, sizeof msg) < 0) {
		if (last_unterminated) {
			char note[160];
			snprintf(note, sizeof note,
				 "trace ends mid-record at line %" PRIu64 " (the recording process probably died)",
				 lineno);
			mark_truncated(in, lineno, note);
			return 0;
		}
		return bad_line(in, lineno, msg, err);
	}
	int rc = cg_record_add(in->tl, f, (uint32_t)lineno, msg, sizeof msg);
	if (rc == CG_RECORD_ADDED)
		return 0;
	if (rc == CG_RECORD_BAD)
		return bad_line(in, lineno, msg, err);
	if (rc == CG_RECORD_UNKNOWN_KIND) {
		cg_diag_add(in->tl, CG_DIAG_WARNING, lineno, "%s (skipped)", msg);
		return 0;
	}
	return cg_error_set(err, rc, "%s:%" PRIu64 ": %s", in->name, lineno, msg);
}

int cg_ingest_block(ingest *in, cg_block *b, cg_error *err)
{
	if (b->overlong) {
		in->tl->source.lines = b->first_line;
		char msg[160];
		snprintf(msg, sizeof msg, "line is longer than the limit of %zu bytes (--max-line-bytes)",
			 in->o->max_line_bytes);
		return bad_line(in, b->first_line, msg, err);
	}
	in->tl->source.lines = b->first_line + b->nlines - 1;
	char *p = b->data, *end = b->data + b->len;
	uint64_t lineno = b->first_line;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		int rc = one_line(in, p, len, lineno, !nl && b->ends_without_newline, err);
		if (rc < 0)
			return rc;
		p += len + 1;
		lineno++;
	}
	return 0;
}

static void describe_source(cg_timeline *tl, const char *path, const cg_reader *r)
{
	cg_source *src = &tl->source;
	src->path = cg_strdup(path);
	src->display_name = cg_strdup(cg_reader_name(r));
	src->format = cg_strdup("candle-graph/trace/6 JSONL");
	src->gzip = cg_reader_is_gzip(r);
}

static uint64_t records_added(const cg_source *src)
{
	uint64_t n = 0;
	for (int k = 0; k < CG_KIND_COUNT; k++)
		n += src->records[k];
	return n;
}

static unsigned thread_count(const cg_ingest_options *o)
{
	if (o->threads)
		return o->threads;
	/* Beyond a few parse threads the merging thread sets the pace, and each
	 * thread keeps two 4 MiB blocks in flight. */
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 8 ? 8 : (unsigned)n;
}

static int read_serially(ingest *in, cg_reader *r, cg_error *err)
{
	cg_progress progress;
	cg_progress_start(&progress, in->o->progress, in->name, cg_reader_file_size(r));
	cg_block b;
	int rc;
	while ((rc = cg_reader_next(r, &b, err)) > 0) {
		rc = cg_ingest_block(in, &b, err);
		cg_reader_release(r, &b);
		if (rc < 0)
			break;
		cg_progress_update(&progress, cg_reader_bytes_in(r));
	}
	cg_progress_finish(&progress);
	return rc;
}

int cg_ingest(cg_timeline **out, const char *path, const cg_ingest_options *o, cg_error *err)
{
	cg_ingest_options defaults = CG_INGEST_OPTIONS_INIT;
	if (!o)
		o = &defaults;
	*out = NULL;

	cg_reader_options ro = CG_READER_OPTIONS_INIT;
	ro.max_line_bytes = o->max_line_bytes;
	if (o->block_bytes)
		ro.block_bytes = o->block_bytes;
	cg_reader *r = NULL;
	int rc = cg_reader_open(&r, path, &ro, err);
	if (rc < 0)
		return rc;
	/* PyTorch's formats are one JSON document each, with their own readers. */
	cg_format format;
	rc = cg_format_detect(r, &format, err);
	if (rc == 0 && format == CG_FORMAT_CHROME)
		rc = cg_kineto_ingest(out, r, path, o, err);
	else if (rc == 0 && format == CG_FORMAT_MEMORY_TIMELINE)
		rc = cg_memtimeline_ingest(out, r, path, o, err);
	if (rc < 0 || format != CG_FORMAT_JSONL) {
		cg_reader_close(r);
		return rc;
	}

	cg_timeline_limits lim = {o->max_string_bytes};
	ingest in = {cg_timeline_new(&lim), o, cg_jsonl_parser_new(), cg_reader_name(r)};
	cg_jsonl_parser_set_cjson_only(in.parser, o->cjson_only);
	describe_source(in.tl, path, r);
	unsigned threads = thread_count(o);
	if (threads > 1)
		rc = cg_ingest_parallel(&in, r, threads, err);
	else
		rc = read_serially(&in, r, err);

	cg_source *src = &in.tl->source;
	src->file_bytes = cg_reader_bytes_in(r);
	src->data_bytes = cg_reader_bytes_out(r);
	if (rc == 0 && cg_reader_gzip_truncated(r)) {
		mark_truncated(&in, src->lines, "the gzip stream ends early: the file was cut short");
		cg_diag_add(in.tl, CG_DIAG_WARNING, 0, "gzip stream ends before its end marker (file cut short)");
	}
	if (rc == 0 && records_added(src) == 0) {
		if (src->lines == src->blank_lines && !src->truncated)
			rc = cg_error_set(err, CG_EINPUT, "%s: the trace is empty", in.name);
		else
			rc = cg_error_set(err, CG_EINPUT, "%s: no record could be read (%" PRIu64
					  " lines, %" PRIu64 " bad)", in.name, src->lines, src->bad_lines);
	}
	if (rc == 0 && !src->meta_seen)
		cg_diag_add(in.tl, CG_DIAG_WARNING, 0, "no meta record: the run's metadata is unknown");
	if (rc == 0)
		rc = cg_timeline_finalize(in.tl, err);

	cg_jsonl_parser_free(in.parser);
	cg_reader_close(r);
	if (rc < 0) {
		cg_timeline_free(in.tl);
		return rc;
	}
	*out = in.tl;
	return 0;
}
