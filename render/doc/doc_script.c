#include "doc_script.h"

#include <string.h>

#include "escape.h"

void cg_doc_html_csp_script(cg_sink *out, const cg_doc *d)
{
	if (!d->script)
		return;
	/* The hash admits this script and nothing else: text from the trace
	 * that got past the escaping still could not run. default-src 'none'
	 * already forbids every connection. */
	cg_sink_printf(out, "; script-src 'sha256-%s'", d->script_hash);
}

void cg_doc_html_script(cg_sink *out, const cg_doc *d)
{
	if (!d->script)
		return;
	/* The text must be the hashed bytes exactly: no escaping (the script
	 * is ours and holds no "</script"). */
	cg_sink_puts(out, "<script>");
	cg_sink_puts(out, d->script);
	cg_sink_puts(out, "</script>\n");
}

void cg_doc_html_data(cg_sink *out, const cg_doc_block *b)
{
	cg_sink_puts(out, "<script type=\"application/json\" class=\"");
	cg_escape_html(out, b->name, strlen(b->name));
	cg_sink_puts(out, "\">");
	const char *run = b->text;
	for (const char *q = b->text; *q; q++) {
		if (*q != '<')
			continue;
		cg_sink_write(out, run, (size_t)(q - run));
		cg_sink_puts(out, "\\u003c");
		run = q + 1;
	}
	cg_sink_puts(out, run);
	cg_sink_puts(out, "</script>\n");
}
