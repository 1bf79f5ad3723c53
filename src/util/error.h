/* Errors: a small set of codes and a message a user can act on.
 *
 * Functions that can fail on input or I/O return int (0 on success, one of
 * the negative codes below) and fill a cg_error. Input errors name the file
 * and line: "run.jsonl:18233: field \"bytes\" must be a non-negative integer". */
#ifndef CG_ERROR_H
#define CG_ERROR_H

#include "cgmem.h" /* the codes, cg_error and CG_ERROR_INIT are public */

/* Sets code and message; returns code so callers can `return cg_error_set(...)`. */
int cg_error_set(cg_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Process exit status for an error code: 1 for input, I/O and limits, 2 for usage. */
int cg_error_exit_status(int code);

#endif
