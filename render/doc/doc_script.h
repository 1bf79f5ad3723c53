/* What report.html holds for its script (doc.h: cg_doc_set_script,
 * cg_doc_data), apart from the page itself: the Content-Security-Policy's
 * script-src, the script element, and the JSON data elements. A document
 * without a script writes none of them: the page is the static one. */
#ifndef CG_DOC_SCRIPT_H
#define CG_DOC_SCRIPT_H

#include "doc.h"
#include "sink.h"

/* "; script-src 'sha256-...'" when d has a script, else nothing. */
void cg_doc_html_csp_script(cg_sink *out, const cg_doc *d);
/* <script>...</script> when d has a script, else nothing. */
void cg_doc_html_script(cg_sink *out, const cg_doc *d);
/* A CG_DOC_DATA block as <script type="application/json" class="NAME">,
 * each '<' of the JSON written \u003c (it can stand only inside a string). */
void cg_doc_html_data(cg_sink *out, const cg_doc_block *b);

#endif
