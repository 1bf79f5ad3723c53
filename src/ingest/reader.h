/* Reads a trace file (or standard input) as blocks of whole lines, plain or
 * gzip-compressed (decided by the first bytes, not the name), never holding
 * more of the file than one block. Formats that are not line-based read the
 * same decompressed bytes with cg_reader_read() instead; cg_reader_peek()
 * looks at the first bytes without consuming them, whichever API follows.
 *
 *     cg_reader *r;
 *     if (cg_reader_open(&r, "run.jsonl.gz", NULL, &err) < 0) ...;
 *     cg_block b;
 *     while ((rc = cg_reader_next(r, &b, &err)) > 0) {
 *             ...lines in b.data[0 .. b.len)...
 *             cg_reader_release(r, &b);
 *     }
 *     cg_reader_close(r);
 */
#ifndef CG_READER_H
#define CG_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct cg_reader_options {
	size_t max_line_bytes; /* longer lines are skipped and reported */
	size_t block_bytes;    /* size of a block of lines */
} cg_reader_options;

#define CG_READER_OPTIONS_INIT {(size_t)64 << 20, (size_t)4 << 20}

/* A block of lines. Every line ends in '\n' except, when
 * ends_without_newline is set, the last line of the file (then cap > len).
 * offset is where the block starts in the decompressed bytes.
 *
 * When overlong is set the block holds no data: line first_line is longer
 * than the limit and is skipped, about a block's worth of bytes per
 * overlong block, so that a line that never ends cannot keep the reader
 * from its caller. overlong_bytes counts the line's bytes so far (its
 * newline included once it ended); overlong_open says the line goes on in
 * the next block, which has overlong_more set and nlines 0. */
typedef struct cg_block {
	char *data;
	size_t len, cap;
	uint64_t offset;
	uint64_t first_line;
	uint64_t nlines;
	bool ends_without_newline;
	bool overlong;
	bool overlong_open, overlong_more;
	uint64_t overlong_bytes;
} cg_block;

typedef struct cg_reader cg_reader;

/* path "-" reads standard input. Errors name the file: "run.jsonl: No such file or directory". */
int cg_reader_open(cg_reader **out, const char *path, const cg_reader_options *o, cg_error *err);
/* The same over len bytes at data (borrowed until cg_reader_close), named
 * name in messages ("<memory>" when NULL). */
int cg_reader_open_memory(cg_reader **out, const void *data, size_t len, const char *name,
			  const cg_reader_options *o, cg_error *err);
void cg_reader_close(cg_reader *r);

/* Returns 1 with the next block in *b, 0 at the end of the file, or a
 * negative code (a read error, corrupt gzip data). */
int cg_reader_next(cg_reader *r, cg_block *b, cg_error *err);
/* Gives a block's buffer back for reuse. */
void cg_reader_release(cg_reader *r, cg_block *b);

/* Makes the first decompressed bytes of the file visible without consuming
 * them: *data points at up to want bytes (fewer only when the file is
 * shorter), valid until the next call on r. Only before the first
 * cg_reader_next() or cg_reader_read(). Returns 0 or a negative code. */
int cg_reader_peek(cg_reader *r, size_t want, const char **data, size_t *len, cg_error *err);

/* Raw decompressed bytes: copies up to n into buf and returns how many, 0
 * at the end of the file, or a negative code. Do not mix with
 * cg_reader_next() on the same reader. */
int64_t cg_reader_read(cg_reader *r, char *buf, size_t n, cg_error *err);

const char *cg_reader_name(const cg_reader *r); /* the path, or "<stdin>" */
bool cg_reader_is_gzip(const cg_reader *r);
bool cg_reader_is_device(const cg_reader *r); /* a character device, such as /dev/zero */
size_t cg_reader_max_line_bytes(const cg_reader *r); /* the limit it was opened with */
/* True when a gzip stream ended before its end marker (the file was cut short). */
bool cg_reader_gzip_truncated(const cg_reader *r);
/* True when bytes follow the last gzip member that are not another member
 * (they are not read); *offset is where they start in the file. */
bool cg_reader_gzip_trailing(const cg_reader *r, uint64_t *offset);
uint64_t cg_reader_file_size(const cg_reader *r); /* 0 when not known */
uint64_t cg_reader_bytes_in(const cg_reader *r);  /* read from the file so far */
uint64_t cg_reader_bytes_out(const cg_reader *r); /* after decompression */

#endif
