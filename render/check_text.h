/* The verdicts of `cgmem check` for a terminal or a CI log: one line per
 * limit and device, "ok", "FAIL" or "n/a" (cg_check_outcome_of), the
 * limit, the device, the measured value and the limit's value, or for a
 * figure there is none of, why:
 *
 *     FAIL  max-peak cpu: 18.48 MiB (19,379,476 B) > 12.00 MiB (12,582,912 B)
 *     n/a   max-fragmentation cpu: not applicable, limit 0.3 (a CPU has ...)
 *
 * The device's name is escaped (termtext.h): a "\r" in it cannot make the
 * line start with "ok". */
#ifndef CG_CHECK_TEXT_H
#define CG_CHECK_TEXT_H

#include "check.h"
#include "sink.h"

/* Writes a line for every verdict of r, judged against l. */
void cg_check_text_write(cg_sink *out, const cg_check_result *r, const cg_check_limits *l);
/* The line of v after its word, without the newline ("max-peak cpu: ...
 * > 12.00 MiB (12,582,912 B)"): what the CI formats (check_ci.h) say. */
void cg_check_text_body(cg_sink *out, const cg_check_verdict *v, const cg_check_limits *l);

#endif
