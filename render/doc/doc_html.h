/* The HTML backend of the document model (doc.h). */
#ifndef CG_DOC_HTML_H
#define CG_DOC_HTML_H

#include "doc.h"
#include "error.h"
#include "sink.h"

/* One self-contained HTML file: CSS inline (small screens and print
 * included), each figure's SVG read from dir and inlined with links to its
 * files in dir, an id on every heading and a table of contents before the
 * first, no scripts and nothing fetched from the network. */
int cg_doc_write_html(const cg_doc *d, cg_sink *out, const char *dir, cg_error *err);

#endif
