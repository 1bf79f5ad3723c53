/* Streams one big JSON document — a Chrome trace `{"traceEvents": [...], ...}`
 * or a bare array `[...]` — one element of the events array at a time, so
 * that memory is bounded by the largest single event, never by the file.
 *
 * The stream only finds where each element begins and ends (strings,
 * escapes and nesting); the caller parses the element's bytes with cJSON.
 * Small top-level keys other than traceEvents ("baseTimeNanoseconds",
 * "deviceProperties", "traceName", ...) are kept wherever they appear,
 * before or after the array: read them once next() has returned 0.
 *
 *     cg_chrome_stream *s = cg_chrome_stream_new(reader, NULL);
 *     cg_chrome_event ev;
 *     while ((rc = cg_chrome_stream_next(s, &ev, &err)) > 0)
 *             ...cJSON_ParseWithLength(ev.data, ev.len)...
 *     if (rc == 0 && cg_chrome_stream_truncated(s, NULL)) ...analysed up to the cut...
 *     for (size_t i = 0; i < cg_chrome_stream_nkeys(s); i++) ...cg_chrome_stream_key(s, i)...
 *     cg_chrome_stream_free(s);
 */
#ifndef CG_CHROME_STREAM_H
#define CG_CHROME_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "reader.h"

typedef struct cg_chrome_options {
	size_t max_event_bytes; /* longer elements are skipped (reported as overlong) */
	size_t max_key_bytes;	/* top-level values longer than this are not kept */
	size_t read_bytes;	/* bytes asked of the reader at a time (tests use tiny ones) */
} cg_chrome_options;

#define CG_CHROME_OPTIONS_INIT {(size_t)64 << 20, (size_t)1 << 20, (size_t)1 << 20}

/* One element of the events array. data is its JSON text (not
 * NUL-terminated), valid until the next call. When overlong is set, data is
 * NULL: the element was overlong_bytes long and was skipped. */
typedef struct cg_chrome_event {
	const char *data;
	size_t len;
	uint64_t ordinal; /* 1-based position in the array */
	uint64_t offset;  /* byte offset of its first byte in the decompressed document */
	bool overlong;
	uint64_t overlong_bytes;
} cg_chrome_event;

/* A top-level member other than the events array. */
typedef struct cg_chrome_key {
	char *name;	      /* unescaped */
	char *value;	      /* its JSON text (NUL-terminated), NULL when too long to keep */
	size_t value_len;
	uint64_t value_bytes; /* its length in the document */
} cg_chrome_key;

typedef enum cg_chrome_shape {
	CG_CHROME_EMPTY,  /* nothing but whitespace */
	CG_CHROME_OBJECT, /* {"traceEvents": [...], ...} */
	CG_CHROME_ARRAY,  /* [...] */
} cg_chrome_shape;

typedef struct cg_chrome_stream cg_chrome_stream;

/* Reads from r, which stays the caller's (and must outlive the stream).
 * o may be NULL for the defaults. */
cg_chrome_stream *cg_chrome_stream_new(cg_reader *r, const cg_chrome_options *o);
void cg_chrome_stream_free(cg_chrome_stream *s);

/* Returns 1 with the next element in *ev, 0 at the end of the document (or
 * where it was cut off), or a negative code: CG_EINPUT for a malformed
 * document, with the file and byte offset in the message; CG_EIO. */
int cg_chrome_stream_next(cg_chrome_stream *s, cg_chrome_event *ev, cg_error *err);

cg_chrome_shape cg_chrome_stream_shape(const cg_chrome_stream *s);
/* Did the document have an events array (traceEvents, or a bare array)? */
bool cg_chrome_stream_has_events(const cg_chrome_stream *s);
uint64_t cg_chrome_stream_nevents(const cg_chrome_stream *s);
/* The document ended before its closing bracket. in_events: inside the
 * events array (elements after the last one returned are lost). */
bool cg_chrome_stream_truncated(const cg_chrome_stream *s, bool *in_events);
/* When the document was cut short (or gzip_cut: its gzip stream was),
 * writes a sentence saying where into buf and returns true. */
bool cg_chrome_stream_cut_note(const cg_chrome_stream *s, bool gzip_cut, char *buf, size_t size);
/* Non-whitespace bytes followed the document (ignored). */
bool cg_chrome_stream_trailing_bytes(const cg_chrome_stream *s);

size_t cg_chrome_stream_nkeys(const cg_chrome_stream *s);
const cg_chrome_key *cg_chrome_stream_key(const cg_chrome_stream *s, size_t i);

#endif
