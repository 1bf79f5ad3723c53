/* A fast raw-deflate encoder (RFC 1951) for the gzip writer's level 1, the
 * level of the Chrome trace: about 1.5 times zlib's level 1 on the trace's
 * JSON, and smaller output.
 *
 *     cg_deflater *d = cg_deflater_new();
 *     unsigned char *out = malloc(cg_deflate_bound(len));
 *     size_t n = cg_deflate_chunk(d, in, dict_len, len, last, out);
 *     cg_deflater_free(d);
 *
 * Each chunk is compressed on its own, with the dict_len bytes before it
 * (at most the last 32 KiB count) as the window its matches may reach
 * into, and ends on a byte boundary, so chunks compressed on different
 * threads concatenate into one stream, as pigz does it. Any inflater reads
 * the result; the bytes depend only on the input and the chunk bounds. */
#ifndef CG_DEFLATE_H
#define CG_DEFLATE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cg_deflater cg_deflater;

/* The encoder's working memory (about 260 KB): one per thread. */
cg_deflater *cg_deflater_new(void);
void cg_deflater_free(cg_deflater *d);

/* Room the output of len input bytes needs: never much more than len. */
size_t cg_deflate_bound(size_t len);

/* Compresses in[0..len) into out, which holds cg_deflate_bound(len)
 * bytes; in[-dict_len..0) is the input just before it. Not last: ends with
 * an empty stored block (a sync flush), the stream open. Last: ends the
 * stream with a final block. Returns the bytes written. */
size_t cg_deflate_chunk(cg_deflater *d, const unsigned char *in, size_t dict_len, size_t len, bool last,
			unsigned char *out);

#endif
