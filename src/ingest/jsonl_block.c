#include "jsonl_block.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "record.h"
#include "xalloc.h"

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

static int bad_line(cg_jsonl_ctx *in, uint64_t line, const char *msg, cg_error *err)
{
	if (in->o->strict)
		return cg_error_set(err, CG_EINPUT, "%s:%" PRIu64 ": %s", in->name, line, msg);
	cg_diag_add(in->tl, CG_DIAG_BAD_LINE, line, "%s", msg);
	return 0;
}

void cg_jsonl_mark_truncated(cg_timeline *tl, uint64_t line, const char *note)
{
	cg_source *src = &tl->source;
	if (src->truncated)
		return;
	src->truncated = true;
	src->truncated_line = line;
	src->truncation_note = cg_strdup(note);
}

static int parse_line(cg_jsonl_ctx *in, const char *line, size_t len, uint64_t lineno,
		      bool last_unterminated, cg_error *err);

/* The block is only read: a block may be read again (ingest_par.c). */
static int one_line(cg_jsonl_ctx *in, const char *line, size_t len, uint64_t lineno, bool last_unterminated,
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
	return parse_line(in, line, len, lineno, last_unterminated, err);
}

static int parse_line(cg_jsonl_ctx *in, const char *line, size_t len, uint64_t lineno,
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
			cg_jsonl_mark_truncated(in->tl, lineno, note);
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

bool cg_jsonl_no_record_yet(const cg_timeline *tl)
{
	for (int k = 0; k < CG_KIND_COUNT; k++)
		if (tl->source.records[k])
			return false;
	return true;
}

int cg_jsonl_no_record(const cg_jsonl_ctx *in, bool within, cg_error *err)
{
	const cg_source *src = &in->tl->source;
	char first[600] = "";
	/* The first bad line says why; without one, the first line-level warning (an unknown kind). */
	const cg_diag *d = NULL;
	for (size_t i = 0; i < src->ndiags && !d; i++)
		if (src->diags[i].kind == CG_DIAG_BAD_LINE)
			d = &src->diags[i];
	for (size_t i = 0; i < src->ndiags && !d; i++)
		if (src->diags[i].line)
			d = &src->diags[i];
	if (d)
		snprintf(first, sizeof first, "; first %s line: %s:%" PRIu64 ": %s",
			 d->kind == CG_DIAG_BAD_LINE ? "bad" : "skipped", in->name, d->line, d->msg);
	if (within)
		return cg_error_set(err, CG_EINPUT, "%s: no record could be read in the first %" PRIu64
				    " MiB%s (%" PRIu64 " bad line%s), so cgmem gives up%s", in->name,
				    in->give_up_bytes >> 20, in->device ? " of this character device" : "",
				    src->bad_lines, src->bad_lines == 1 ? "" : "s", first);
	return cg_error_set(err, CG_EINPUT, "%s: no record could be read (%" PRIu64 " lines, %" PRIu64 " bad)%s",
			    in->name, src->lines, src->bad_lines, first);
}

bool cg_jsonl_gives_up_at(const cg_jsonl_ctx *in, uint64_t off)
{
	return in->give_up_bytes && off >= in->give_up_bytes && cg_jsonl_no_record_yet(in->tl);
}

int cg_jsonl_block_add(cg_jsonl_ctx *in, cg_block *b, cg_error *err)
{
	if (b->overlong) {
		in->tl->source.lines = b->first_line;
		if (!b->overlong_more) {
			char msg[160];
			snprintf(msg, sizeof msg, "line is longer than the limit of %zu bytes (--max-line-bytes)",
				 in->o->max_line_bytes);
			int rc = bad_line(in, b->first_line, msg, err);
			if (rc < 0)
				return rc;
		}
		return cg_jsonl_gives_up_at(in, b->offset + b->overlong_bytes) ? cg_jsonl_no_record(in, true, err) : 0;
	}
	in->tl->source.lines = b->first_line + b->nlines - 1;
	const char *p = b->data, *end = b->data + b->len;
	uint64_t lineno = b->first_line;
	while (p < end) {
		if (cg_jsonl_gives_up_at(in, b->offset + (uint64_t)(p - b->data)))
			return cg_jsonl_no_record(in, true, err);
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		int rc = one_line(in, p, len, lineno, !nl && b->ends_without_newline, err);
		if (rc < 0)
			return rc;
		p += len + 1;
		lineno++;
	}
	return 0;
}
