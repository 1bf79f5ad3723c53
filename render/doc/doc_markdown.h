/* The Markdown backend of the document model (doc.h). */
#ifndef CG_DOC_MARKDOWN_H
#define CG_DOC_MARKDOWN_H

#include "doc.h"
#include "sink.h"

/* Markdown for write-ups: charts embedded by relative path. */
void cg_doc_write_markdown(const cg_doc *d, cg_sink *out);

#endif
