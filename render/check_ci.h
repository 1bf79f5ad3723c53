/* The verdicts of `cgmem check` for CI systems, each line or test case
 * saying what the text line says (check_text.h) by the same rule
 * (cg_check_outcome_of):
 *
 * - GitHub Actions workflow commands: a FAIL as an error annotation, an
 *   n/a as a notice, an ok as the plain text line;
 *
 *     ::error file=run.jsonl,title=cgmem check max-peak cuda%3A0::max-peak cuda:0: 176 B > 175 B
 *
 * - a JUnit XML report: one test case per limit and device, <failure> for
 *   a FAIL, <skipped> for an n/a.
 *
 * Names from the trace are escaped for a terminal first (termtext.h), then
 * for the format, so that no name can start a workflow command of its own
 * or break the XML. */
#ifndef CG_CHECK_CI_H
#define CG_CHECK_CI_H

#include "check.h"
#include "sink.h"

/* Writes the verdicts of r as workflow commands; file is the trace judged
 * (the annotations' file=, left out for "-", standard input). */
void cg_check_github_write(cg_sink *out, const cg_check_result *r, const cg_check_limits *l, const char *file);

/* Writes the verdicts of r as a JUnit XML report: a <testsuites> holding
 * one <testsuite> named after file, baseline (NULL without one) as its
 * property. */
void cg_check_junit_write(cg_sink *out, const cg_check_result *r, const cg_check_limits *l, const char *file,
			  const char *baseline);

#endif
