/* Test helper of the command line: the real cgmem binary run as a user
 * runs it. Only tests/cli links it. */
#ifndef CG_RUNUTIL_H
#define CG_RUNUTIL_H

#include "testutil.h"

/* Runs the cgmem binary with arguments (NULL-terminated), stdin from
 * stdin_path (NULL: /dev/null). Captures stdout and stderr (caller frees).
 * Returns the exit status, or -signal. */
int tu_run(char **out, char **err, const char *stdin_path, ...);
/* The same with the arguments in a NULL-terminated array (at most 62). */
int tu_runv(char **out, char **err, const char *stdin_path, const char *const *args);
/* Runs cgmem with args (stdin /dev/null) and fails the test unless it exits
 * with status and, when stdout_text is not NULL, prints exactly that. */
void tu_expectv(const char *const *args, int status, const char *stdout_text);

#endif
