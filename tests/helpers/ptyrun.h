/* Test helper of the command line: the cgmem binary run with its standard
 * output on a pseudo-terminal of a given width, as a user at a terminal
 * runs it. Only tests/cli links it (with runutil). */
#ifndef CG_PTYRUN_H
#define CG_PTYRUN_H

/* Runs cgmem with arguments (NULL-terminated): stdin /dev/null, stdout a
 * new pty of cols columns (output processing off, so lines end in "\n"),
 * stderr a file. The environment is the test's (setenv before). Returns
 * what the terminal received (caller frees); *status the exit status. */
char *tu_run_pty(int *status, unsigned short cols, ...);

#endif
