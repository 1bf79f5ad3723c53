/* A gzip file compressed on several threads while its bytes are still being
 * produced: the caller fills blocks, worker threads deflate them, the
 * caller writes the compressed blocks in order.
 *
 *     cg_gzwriter *g = cg_gzwriter_new(fd, 1, 0);
 *     char *block = cg_gzwriter_block(g);           // CG_GZWRITER_BLOCK bytes
 *     ...fill len bytes...
 *     block = cg_gzwriter_push(g, block, len);      // hands it over, gets the next
 *     ...
 *     int e = cg_gzwriter_finish(g, block, len);   // last bytes; 0 or an errno
 *
 * The file is one gzip member, as pigz writes it: each block is deflated
 * on its own with the 32 KiB of input before it as dictionary and ends with
 * a sync flush, so blocks compress in parallel and any gzip reader reads
 * the concatenation as one stream. The bytes depend only on the input, the
 * block boundaries and the level, never on the number of threads or their
 * timing. Level 1 compresses with cgmem's own encoder (deflate.h), levels
 * 2-9 with zlib. */
#ifndef CG_GZWRITER_H
#define CG_GZWRITER_H

#include <stddef.h>

/* Input bytes per block: large enough that the dictionary (32 KiB) and
 * the sync flush cost little, small enough to keep every thread busy. */
#define CG_GZWRITER_BLOCK ((size_t)1 << 20)

typedef struct cg_gzwriter cg_gzwriter;

/* Writes to fd (not closed) at zlib level 1-9. threads: worker threads,
 * 0 for one per core (at most 8); when none can be started, blocks are
 * compressed by the caller, to the same bytes. */
cg_gzwriter *cg_gzwriter_new(int fd, int level, unsigned threads);
/* An empty block of CG_GZWRITER_BLOCK bytes, owned by g. */
char *cg_gzwriter_block(cg_gzwriter *g);
/* Queues block's first len bytes (len <= CG_GZWRITER_BLOCK; a block from
 * this writer) for compression and returns an empty block for the next
 * bytes. May wait for workers and write finished blocks to fd. */
char *cg_gzwriter_push(cg_gzwriter *g, char *block, size_t len);
/* Compresses the last len bytes of block, writes everything and the gzip
 * trailer, stops the workers and frees g. Returns 0 or the errno of the
 * first failed write (EIO when zlib failed). */
int cg_gzwriter_finish(cg_gzwriter *g, char *block, size_t len);

#endif
