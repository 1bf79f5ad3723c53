#include "jsonl_ingest.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "diag.h"
#include "finalize.h"
#include "ingest_par.h"
#include "jsonl_block.h"
#include "parallel.h"
#include "xalloc.h"

static void describe_source(cg_timeline *tl, const char *path, const cg_reader *r)
{
	cg_source *src = &tl->source;
	src->path = cg_strdup(path);
	src->display_name = cg_strdup(cg_reader_name(r));
	src->format = cg_strdup("candle-graph/trace/6 JSONL");
	src->gzip = cg_reader_is_gzip(r);
}

static unsigned thread_count(const cg_ingest_options *o)
{
	if (o->threads)
		return o->threads;
	/* Beyond a few parse threads the merging thread sets the pace, and each
	 * thread keeps two 4 MiB blocks in flight. */
	unsigned n = cg_cpu_count();
	return n > 8 ? 8 : n;
}

static int read_serially(cg_jsonl_ctx *in, cg_reader *r, cg_error *err)
{
	cg_block b;
	int rc;
	while ((rc = cg_reader_next(r, &b, err)) > 0) {
		rc = cg_jsonl_block_add(in, &b, err);
		cg_reader_release(r, &b);
		if (rc < 0)
			break;
		cg_ingest_progress(in->o, cg_reader_bytes_in(r), cg_reader_file_size(r), false);
	}
	cg_ingest_progress(in->o, cg_reader_bytes_in(r), cg_reader_file_size(r), true);
	return rc;
}

int cg_jsonl_ingest(cg_timeline **out, cg_reader *r, const char *path, const cg_ingest_options *o,
		    cg_error *err)
{
	cg_ingest_options defaults = CG_INGEST_OPTIONS_INIT;
	if (!o)
		o = &defaults;
	*out = NULL;
	int rc;
	cg_jsonl_ctx in = {cg_ingest_timeline_new(o), o, cg_jsonl_parser_new(), cg_reader_name(r),
			   CG_JSONL_GIVE_UP_BYTES, cg_reader_is_device(r)};
	cg_jsonl_parser_set_cjson_only(in.parser, o->cjson_only);
	describe_source(in.tl, path, r);
	unsigned threads = thread_count(o);
	if (threads > 1)
		rc = cg_jsonl_parallel(&in, r, threads, err);
	else
		rc = read_serially(&in, r, err);

	cg_source *src = &in.tl->source;
	src->file_bytes = cg_reader_bytes_in(r);
	src->data_bytes = cg_reader_bytes_out(r);
	if (rc == 0 && cg_reader_gzip_truncated(r)) {
		cg_jsonl_mark_truncated(in.tl, src->lines, "the gzip stream ends early: the file was cut short");
		cg_diag_add(in.tl, CG_DIAG_WARNING, 0, "gzip stream ends before its end marker (file cut short)");
	}
	if (rc == 0 && cg_jsonl_no_record_yet(in.tl)) {
		if (src->lines == src->blank_lines && !src->truncated)
			rc = cg_error_set(err, CG_EINPUT, "%s: the trace is empty", in.name);
		else
			rc = cg_jsonl_no_record(&in, false, err);
	}
	if (rc == 0 && !src->meta_seen)
		cg_diag_add(in.tl, CG_DIAG_WARNING, 0, "no meta record: the run's metadata is unknown");
	if (rc == 0)
		rc = cg_timeline_finalize_threads(in.tl, o->threads, err);

	cg_jsonl_parser_free(in.parser);
	if (rc < 0) {
		cg_timeline_free(in.tl);
		return rc;
	}
	*out = in.tl;
	return 0;
}
