/* Test helper of the command line: the cgmem binary run with its standard
 * output on a pseudo-terminal of a given width, as a user at a terminal
 * runs it. Only tests/cli links it (with runutil). */
#ifndef CG_PTYRUN_H
#define CG_PTYRUN_H

/* Runs cgmem with arguments (NULL-terminated): stdin /dev/null, stdout a
 * new pty of cols columns (output processing off, so lines end in "\n"),
 * stderr the file tu_path(".pty-stderr"). The environment is the test's (setenv before). Returns
 * what the terminal received (caller frees); *status the exit status. */
char *tu_run_pty(int *status, unsigned short cols, ...);
/* The same with the pty on fd (1: stdout, 2: stderr; the other goes to
 * the file tu_path(".pty-stderr") or tu_path(".pty-stdout")) and the
 * arguments in a NULL-terminated array. */
char *tu_run_pty_fd(int *status, int fd, unsigned short cols, const char *const *args);

#endif
