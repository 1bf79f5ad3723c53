/* A document (doc.h) written into an output folder in both forms: the one
 * place above the two backends. */
#ifndef CG_DOC_SAVE_H
#define CG_DOC_SAVE_H

#include <stdbool.h>

#include "doc.h"
#include "outdir.h"

/* Writes STEM.md and, when html is set, STEM.html into the output folder
 * (whose SVGs the HTML inlines). Returns 0 or the first error. */
int cg_doc_save(const cg_doc *d, cg_outdir *od, const char *stem, bool html, cg_error *err);

#endif
