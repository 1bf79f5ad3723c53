/* The Markdown backend of the document model (doc.h). */
#ifndef CG_DOC_MARKDOWN_H
#define CG_DOC_MARKDOWN_H

#include "doc.h"
#include "sink.h"

/* Markdown for write-ups: charts embedded by relative path, as NAME.png;
 * a "Contents:" line of links to the h2s before the first heading, each h2
 * carrying its anchor (<a id>, cg_doc_heading_ids). */
void cg_doc_write_markdown(const cg_doc *d, cg_sink *out);
/* The same for a document saved into dir: each chart links the file of it
 * that dir holds, NAME.png, else NAME.svg, else NAME.pdf. */
void cg_doc_write_markdown_in(const cg_doc *d, cg_sink *out, const char *dir);

#endif
