/* Test helper of the pages cgmem writes with an explorer (report.html,
 * diff.html; docs/report-explore.md): the page less its explorer, its data
 * elements, and a trace whose names try to break out of the page. Only
 * tests/cli links it. */
#ifndef CG_PAGEUTIL_H
#define CG_PAGEUTIL_H

#include <stddef.h>

/* The opening tag of an explorer data element. */
#define TU_DATA_TAG "<script type=\"application/json\" class=\"cgx-data\">"

/* Names that would run script if a page let them out of their data. */
#define TU_HOSTILE_SCRIPT "<script>alert(1)</script>"
#define TU_HOSTILE_IMG "\\\"><img src=x onerror=alert(2)>"
/* A JSONL trace whose run id, model, span name, tensor ids, op name and
 * category are those names. */
extern const char tu_hostile_trace[];

/* The page less what the explorer adds: the CSP's script-src, the script
 * element in <head> and each data element (with its newline). Caller frees. */
char *tu_without_explorer(const char *html);
/* The text of the k-th data element of html (caller frees). */
char *tu_data_element(const char *html, size_t k);

#endif
