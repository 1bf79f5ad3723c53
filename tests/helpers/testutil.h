/* Shared helpers for cgmem's cmocka tests, which every layer's tests may
 * use: temporary files, reading JSON back, the samples. The helpers of a
 * layer are beside it: tlbuild.h (model: timelines built by hand),
 * ingestutil.h (ingest: traces from text), runutil.h (the cgmem binary),
 * chartutil.h (charts' pixels), difftrace.h (two small runs to compare). */
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
/* Reads dir/name, failing the test when it was not written. */
char *tu_read_in(const char *dir, const char *name, size_t *len);
/* How many times what occurs in s (overlapping occurrences counted). */
size_t tu_count(const char *s, const char *what);
/* Does path exist (without following a final symbolic link)? */
bool tu_exists(const char *path);
/* A fresh empty folder standing for "/" to code that reads /proc and /sys
 * under a root it is given (cpus.h, membudget.h); the path stays valid
 * until the next call. */
const char *tu_fake_root(void);
/* Writes text into root/rel ("/proc/self/cgroup"), making its folders. */
void tu_fake_put(const char *root, const char *rel, const char *text);
/* Removes the temporary folder. */
void tu_cleanup(void);

/* Parses a JSON file; asserts it parses. */
cJSON *tu_json_file(const char *path);
/* Follows a path of object keys and array indexes: tu_json_at(j, "devices", "0", "peak", "bytes"). */
cJSON *tu_json_at(cJSON *j, ...);
/* The exact integer at a path (asserts it is a non-negative integer). */
uint64_t tu_json_u64(cJSON *j, ...);

/* The one sample file path: SAMPLES_DIR/name */
const char *tu_sample(const char *name);

#endif
