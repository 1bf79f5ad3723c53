#include "diag.h"

#include <inttypes.h>
#include <stdarg.h>

#include "xalloc.h"

void cg_diag_add(cg_timeline *tl, cg_diag_kind kind, uint64_t line, const char *fmt, ...)
{
	cg_source *src = &tl->source;
	if (kind == CG_DIAG_BAD_LINE)
		src->bad_lines++;
	else
		src->warnings++;
	if (src->ndiags >= CG_MAX_DIAGS)
		return;
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	CG_GROW(src->diags, src->diags_cap, src->ndiags + 1);
	src->diags[src->ndiags++] = (cg_diag){line, kind, cg_strdup(buf)};
}

void cg_diag_print(const cg_timeline *tl, FILE *out, size_t max)
{
	const cg_source *src = &tl->source;
	const char *name = src->display_name ? src->display_name : "trace";
	size_t shown = 0;
	for (size_t i = 0; i < src->ndiags && shown < max; i++, shown++) {
		const cg_diag *d = &src->diags[i];
		const char *what = d->kind == CG_DIAG_WARNING ? "warning: " : "";
		if (d->line && src->lines_are_events)
			fprintf(out, "%s: event %" PRIu64 ": %s%s\n", name, d->line, what, d->msg);
		else if (d->line)
			fprintf(out, "%s:%" PRIu64 ": %s%s\n", name, d->line, what, d->msg);
		else
			fprintf(out, "%s: %s%s\n", name, what, d->msg);
	}
	uint64_t total = src->bad_lines + src->warnings;
	if (total > shown)
		fprintf(out, "%s: ... %" PRIu64 " more diagnostics (%" PRIu64 " bad lines, %" PRIu64
			     " warnings in all)\n", name, total - shown, src->bad_lines, src->warnings);
}
