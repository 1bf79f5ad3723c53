#include "diag.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "utf8.h"
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
	cg_utf8_vformat(buf, sizeof buf, fmt, ap); /* a long one ends at a character, with "…" */
	va_end(ap);
	CG_GROW(src->diags, src->diags_cap, src->ndiags + 1);
	src->diags[src->ndiags++] = (cg_diag){line, kind, cg_strdup(buf)};
}
