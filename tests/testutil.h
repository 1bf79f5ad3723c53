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

/* Building a timeline by hand, for pass tests whose answers are worked
 * out on paper. Each helper asserts success; lines are numbered in call
 * order from 2. Call tu_tl_finalize before running passes; before it the
 * test may set tl->source.pairing_known, categories_known, truncated and
 * devices[d].baseline_bytes (make the device with tu_device first). */
cg_timeline *tu_tl_new(void);
uint16_t tu_device(cg_timeline *tl, const char *name);
/* A span from start to end (end UINT64_MAX: never ended); parent NULL for a root. */
void tu_span(cg_timeline *tl, const char *id, const char *parent, const char *name, uint64_t start, uint64_t end,
	     cg_phase step);
/* An allocation or free; span and op may be NULL. */
void tu_mem(cg_timeline *tl, uint64_t t, const char *tensor, const char *span, const char *device, uint64_t bytes,
	    cg_action action, cg_category category, const char *op);
/* A device_memory checkpoint; used UINT64_MAX: not recorded (then free is
 * ignored); reserved UINT64_MAX: not recorded. */
void tu_devmem(cg_timeline *tl, uint64_t t, const char *device, uint64_t used, uint64_t free_bytes,
	       uint64_t reserved);
void tu_oom(cg_timeline *tl, uint64_t t, const char *device, uint64_t bytes);
void tu_gradient(cg_timeline *tl, const char *root, const char *key, cg_grad_state state, bool has_norm,
		 double norm);
void tu_tl_finalize(cg_timeline *tl);
/* The index into tl->mem of the record at a line (after finalize). */
uint32_t tu_mem_at_line(const cg_timeline *tl, uint32_t line);

/* The one sample file path: SAMPLES_DIR/name */
const char *tu_sample(const char *name);

#endif
