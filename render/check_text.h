/* The verdicts of `cgmem check` for a terminal or a CI log: one line per
 * limit and device, "ok" or "FAIL", the limit, the device, the measured
 * value and the limit's value:
 *
 *     FAIL  max-peak cpu: 18.48 MiB (19,379,476 B) > 12.00 MiB (12,582,912 B)
 *
 * The device's name is escaped (termtext.h): a "\r" in it cannot make the
 * line start with "ok". */
#ifndef CG_CHECK_TEXT_H
#define CG_CHECK_TEXT_H

#include "check.h"
#include "sink.h"

/* Writes a line for every verdict of r, judged against l. */
void cg_check_text_write(cg_sink *out, const cg_check_result *r, const cg_check_limits *l);

#endif
