#include "ingest.h"

#include <inttypes.h>

#include "diag.h"
#include "format.h"
#include "jsonl_ingest.h"
#include "kineto.h"
#include "memtimeline_raw.h"
#include "membudget.h"
#include "snapshot_ingest.h"

uint64_t cg_ingest_default_max_records(void)
{
	uint64_t budget = cg_memory_budget();
	/* Twice the cost: record arrays double as they grow (up to half of
	 * them is room not used yet), and reading and the report need memory
	 * of their own. */
	uint64_t n = budget == UINT64_MAX ? UINT64_MAX : budget / (2 * CG_RECORD_COST);
	return n < CG_MIN_DEFAULT_RECORDS ? CG_MIN_DEFAULT_RECORDS : n;
}

/* o with its record limit decided: the readers take 0 for none. */
static cg_ingest_options resolved(const cg_ingest_options *o)
{
	cg_ingest_options r = *o;
	if (r.max_records == 0)
		r.max_records = cg_ingest_default_max_records();
	if (r.max_records == UINT64_MAX)
		r.max_records = 0;
	return r;
}

static cg_reader_options reader_options(const cg_ingest_options *o)
{
	cg_reader_options ro = CG_READER_OPTIONS_INIT;
	ro.max_line_bytes = o->max_line_bytes;
	if (o->block_bytes)
		ro.block_bytes = o->block_bytes;
	return ro;
}

/* Reads r, whichever format it holds, and closes it. */
static int ingest_reader(cg_timeline **out, cg_reader *r, const char *path, const cg_ingest_options *o,
			 cg_error *err)
{
	/* PyTorch's formats are one document each (JSON, or a pickle), with their own readers. */
	cg_format format;
	int rc = cg_format_detect(r, &format, err);
	if (rc == 0 && format == CG_FORMAT_CHROME)
		rc = cg_kineto_ingest(out, r, path, o, err);
	else if (rc == 0 && format == CG_FORMAT_SNAPSHOT)
		rc = cg_snapshot_ingest(out, r, path, o, err);
	else if (rc == 0 && format == CG_FORMAT_MEMORY_TIMELINE)
		rc = cg_memtimeline_ingest(out, r, path, o, err);
	else if (rc == 0)
		rc = cg_jsonl_ingest(out, r, path, o, err);
	uint64_t at;
	if (rc == 0 && cg_reader_gzip_trailing(r, &at)) {
		uint64_t size = cg_reader_file_size(r);
		if (size > at)
			cg_diag_add(*out, CG_DIAG_WARNING, 0, "byte offset %" PRIu64 ": the last %" PRIu64
				    " bytes, after the last gzip member, are not gzip data (ignored)", at, size - at);
		else
			cg_diag_add(*out, CG_DIAG_WARNING, 0, "byte offset %" PRIu64 ": the bytes after the last "
				    "gzip member are not gzip data (ignored)", at);
	}
	cg_reader_close(r);
	return rc;
}

int cg_ingest(cg_timeline **out, const char *path, const cg_ingest_options *o, cg_error *err)
{
	cg_ingest_options defaults = CG_INGEST_OPTIONS_INIT;
	if (!o)
		o = &defaults;
	*out = NULL;
	cg_ingest_options io = resolved(o);
	cg_reader_options ro = reader_options(&io);
	cg_reader *r = NULL;
	int rc = cg_reader_open(&r, path, &ro, err);
	return rc < 0 ? rc : ingest_reader(out, r, path, &io, err);
}

int cg_ingest_memory(cg_timeline **out, const void *data, size_t len, const char *name,
		     const cg_ingest_options *o, cg_error *err)
{
	cg_ingest_options defaults = CG_INGEST_OPTIONS_INIT;
	if (!o)
		o = &defaults;
	*out = NULL;
	if (!name)
		name = "<memory>";
	cg_ingest_options io = resolved(o);
	cg_reader_options ro = reader_options(&io);
	cg_reader *r = NULL;
	int rc = cg_reader_open_memory(&r, data, len, name, &ro, err);
	return rc < 0 ? rc : ingest_reader(out, r, name, &io, err);
}
