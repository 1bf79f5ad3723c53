/* Test helpers for Chrome traces read back as JSON (cJSON only, no
 * cgmem layer): the render tests of the writer and the cli tests of
 * report's trace share them. */
#ifndef CG_TRACECHECK_H
#define CG_TRACECHECK_H

#include "testutil.h"

/* The number at key k of event e (asserts it is one). */
double tu_event_num(cJSON *e, const char *k);
/* The string at key k of event e, or NULL. */
const char *tu_event_str(cJSON *e, const char *k);
/* Every pair of X events on one thread is nested or disjoint, and every
 * span lies within its parent span (args.span_id, args.parent_id). */
void tu_assert_properly_nested(cJSON *events);

#endif
