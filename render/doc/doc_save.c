#include "doc_save.h"

#include <stdio.h>

#include "doc_html.h"
#include "doc_markdown.h"
#include "xalloc.h"

/* STEM.EXT, as Markdown or HTML. */
static int save_one(const cg_doc *d, cg_outdir *od, const char *stem, const char *ext, bool html, cg_error *err)
{
	char name[64];
	snprintf(name, sizeof name, "%s.%s", stem, ext);
	char *path;
	int rc = cg_outdir_file(od, name, &path, err);
	if (rc < 0)
		return rc;
	cg_sink *s;
	rc = cg_sink_open(&s, path, 0, err);
	cg_free(path);
	if (rc < 0)
		return rc;
	if (html)
		rc = cg_doc_write_html(d, s, cg_outdir_dir(od), err);
	else
		cg_doc_write_markdown_in(d, s, cg_outdir_dir(od));
	int closed = cg_sink_close(s, err);
	return rc < 0 ? rc : closed;
}

int cg_doc_save(const cg_doc *d, cg_outdir *od, const char *stem, bool html, cg_error *err)
{
	int rc = save_one(d, od, stem, "md", false, err);
	if (rc == 0 && html)
		rc = save_one(d, od, stem, "html", true, err);
	return rc;
}
