#include "ingestutil.h"

#include <stdio.h>
#include <string.h>

int tu_ingest_text_rc(const char *text, const cg_ingest_options *o, cg_timeline **out, cg_error *err)
{
	static int counter;
	char name[64];
	snprintf(name, sizeof name, "trace%d.jsonl", counter++);
	const char *p = tu_write(name, text, (size_t)-1);
	return cg_ingest(out, p, o, err);
}

cg_timeline *tu_ingest_text(const char *text)
{
	cg_timeline *tl = NULL;
	cg_error err = CG_ERROR_INIT;
	int rc = tu_ingest_text_rc(text, NULL, &tl, &err);
	if (rc != 0)
		fail_msg("ingest failed: %s", err.msg);
	return tl;
}
