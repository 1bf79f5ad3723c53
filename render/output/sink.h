/* An output file written through a buffer, plain or gzip-compressed.
 * Errors are sticky (as cairo's): write freely, check at close. */
#ifndef CG_SINK_H
#define CG_SINK_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

typedef struct cg_sink cg_sink;

/* Creates path (truncating it). gzip_level 0 writes plain bytes; 1-9 gzip,
 * compressed by worker threads (render/gzwriter.h) while the caller writes
 * on; the bytes do not depend on the threads. */
int cg_sink_open(cg_sink **out, const char *path, int gzip_level, cg_error *err);
/* A sink into memory, for tests and for building strings. */
cg_sink *cg_sink_memory(void);

void cg_sink_write(cg_sink *s, const void *p, size_t n);
void cg_sink_puts(cg_sink *s, const char *str);
void cg_sink_putc(cg_sink *s, char c);
/* Room for n bytes (at most CG_SINK_RESERVE_MAX) in the sink's own buffer,
 * for writers that format numbers in place: write up to n bytes at the
 * returned pointer, then cg_sink_commit() how many were written. The
 * pointer is valid until the next call on s. */
#define CG_SINK_RESERVE_MAX ((size_t)64 << 10)
char *cg_sink_reserve(cg_sink *s, size_t n);
void cg_sink_commit(cg_sink *s, size_t n);
void cg_sink_printf(cg_sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Bytes written so far (before compression). */
size_t cg_sink_written(const cg_sink *s);
/* A memory sink's contents, NUL-terminated (borrowed). */
const char *cg_sink_data(const cg_sink *s, size_t *len);

/* Flushes and closes; returns the first error of the sink's life, if any.
 * Frees s in every case. */
int cg_sink_close(cg_sink *s, cg_error *err);

#endif
