/* Shared helpers for cgmem's cmocka tests: temporary files, running the
 * real binary, reading JSON back. */
#ifndef CG_TESTUTIL_H
#define CG_TESTUTIL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "ingest.h"
#include "timeline.h"

/* A fresh temporary folder for this test (removed by tu_cleanup). */
const char *tu_tmpdir(void);
/* Path of name inside tu_tmpdir(); returns a static buffer rotated among 8. */
const char *tu_path(const char *name);
/* Writes n bytes (or a C string when n == (size_t)-1) into tu_path(name). */
const char *tu_write(const char *name, const void *data, size_t n);
/* Writes data gzip-compressed. */
const char *tu_write_gz(const char *name, const void *data, size_t n);
/* Reads a whole file; NULL when it cannot. Caller frees with free(). */
char *tu_read(const char *path, size_t *len);
/* Does path exist (without following a final symbolic link)? */
bool tu_exists(const char *path);
/* Removes the temporary folder. */
void tu_cleanup(void);

/* Ingests text (as a file) with default options; asserts success. */
cg_timeline *tu_ingest_text(const char *text);
/* Ingests and returns the result code; err and *out as cg_ingest. */
int tu_ingest_text_rc(const char *text, const cg_ingest_options *o, cg_timeline **out, cg_error *err);

/* Runs the cgmem binary with arguments (NULL-terminated), stdin from
 * stdin_path (NULL: /dev/null). Captures stdout and stderr (caller frees).
 * Returns the exit status, or -signal. */
int tu_run(char **out, char **err, const char *stdin_path, ...);

/* Parses a JSON file; asserts it parses. */
cJSON *tu_json_file(const char *path);
/* Follows a path of object keys and array indexes: tu_json_at(j, "devices", "0", "peak", "bytes"). */
cJSON *tu_json_at(cJSON *j, ...);
/* The exact integer at a path (asserts it is a non-negative integer). */
uint64_t tu_json_u64(cJSON *j, ...);

/* The one sample file path: SAMPLES_DIR/name */
const char *tu_sample(const char *name);

#endif
