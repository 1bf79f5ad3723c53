#include "reader.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "xalloc.h"

#define IN_BYTES ((size_t)1 << 20)

struct cg_reader {
	int fd;			   /* -1 when reading from memory */
	bool own_fd;
	bool device; /* a character device */
	const unsigned char *mem; /* cg_reader_open_memory: the bytes, borrowed */
	size_t mem_len, mem_pos;
	char *name;
	uint64_t file_size;
	uint64_t bytes_in, bytes_out;

	unsigned char *in; /* compressed input, or the first bytes of a plain file */
	size_t in_len, in_pos;
	bool eof_in;

	bool gzip;
	bool gzip_truncated;
	bool trailing; /* bytes after the last member that are not another one */
	uint64_t trailing_at;
	bool stream_open; /* inside a gzip member */
	bool z_ready;	  /* inflateInit2 succeeded */
	z_stream z;

	size_t max_line, block_bytes;
	char *carry; /* the start of a line cut by the previous block */
	size_t carry_len, carry_cap;
	size_t carry_pos; /* what cg_reader_read took of carry already */
	uint64_t next_line;
	uint64_t next_offset; /* decompressed offset of carry's first byte */
	bool skipping;	      /* inside an overlong line that has not ended yet */
	uint64_t skipped;     /* its bytes so far */
	bool done;
	char *spare; /* a released block buffer */
	size_t spare_cap;

};

static int read_error(cg_reader *r, cg_error *err)
{
	return cg_error_set(err, CG_EIO, "%s: %s", r->name, strerror(errno));
}

/* read(2) from the file, or the next bytes of the memory buffer. */
static ssize_t source_read(cg_reader *r, void *buf, size_t n)
{
	if (r->fd >= 0)
		return read(r->fd, buf, n);
	size_t k = r->mem_len - r->mem_pos < n ? r->mem_len - r->mem_pos : n;
	if (k)
		memcpy(buf, r->mem + r->mem_pos, k);
	r->mem_pos += k;
	return (ssize_t)k;
}

/* The end of the file came: a regular file must have given the bytes it
 * had when opened, or it was cut short while it was read, and what was
 * read is not the trace. (A file that grew gives its new bytes too.) */
static int reached_end(cg_reader *r, cg_error *err)
{
	r->eof_in = true;
	if (r->fd < 0 || r->bytes_in >= r->file_size)
		return 0;
	return cg_error_set(err, CG_EIO,
			    "%s: the file was cut short while it was read (it ended after %" PRIu64
			    " of its %" PRIu64 " bytes): read it again once it is complete",
			    r->name, r->bytes_in, r->file_size);
}

static int fill_in(cg_reader *r, cg_error *err)
{
	r->in_pos = 0;
	r->in_len = 0;
	for (;;) {
		ssize_t n = source_read(r, r->in, IN_BYTES);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return read_error(r, err);
		r->in_len = (size_t)n;
		r->bytes_in += (uint64_t)n;
		return n == 0 ? reached_end(r, err) : 0;
	}
}

static cg_reader *reader_new(const cg_reader_options *o)
{
	cg_reader_options opts = CG_READER_OPTIONS_INIT;
	if (o)
		opts = *o;
	cg_reader *r = cg_calloc(1, sizeof *r);
	r->max_line = opts.max_line_bytes;
	r->block_bytes = opts.block_bytes;
	r->next_line = 1;
	r->fd = -1;
	return r;
}

static int start(cg_reader **out, cg_reader *r, cg_error *err);

int cg_reader_open_memory(cg_reader **out, const void *data, size_t len, const char *name,
			  const cg_reader_options *o, cg_error *err)
{
	*out = NULL;
	cg_reader *r = reader_new(o);
	r->name = cg_strdup(name ? name : "<memory>");
	r->mem = data;
	r->mem_len = data ? len : 0;
	r->file_size = r->mem_len;
	return start(out, r, err);
}

int cg_reader_open(cg_reader **out, const char *path, const cg_reader_options *o, cg_error *err)
{
	*out = NULL;
	cg_reader *r = reader_new(o);
	if (strcmp(path, "-") == 0) {
		r->fd = 0;
		r->name = cg_strdup("<stdin>");
	} else {
		r->name = cg_strdup(path);
		/* O_NONBLOCK so a FIFO without a writer cannot hang the open. */
		r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (r->fd < 0) {
			int rc = read_error(r, err);
			cg_reader_close(r);
			return rc;
		}
		r->own_fd = true;
		int flags = fcntl(r->fd, F_GETFL);
		if (flags >= 0)
			fcntl(r->fd, F_SETFL, flags & ~O_NONBLOCK);
	}
	struct stat st;
	if (fstat(r->fd, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			cg_error_set(err, CG_EIO, "%s: is a directory, not a trace file", r->name);
			cg_reader_close(r);
			return CG_EIO;
		}
		if (S_ISREG(st.st_mode))
			r->file_size = (uint64_t)st.st_size;
		r->device = S_ISCHR(st.st_mode);
	}
	return start(out, r, err);
}

/* Reads the first bytes and decides plain or gzip. */
static int start(cg_reader **out, cg_reader *r, cg_error *err)
{
	r->in = cg_malloc(IN_BYTES);
	int rc = fill_in(r, err);
	if (rc < 0) {
		cg_reader_close(r);
		return rc;
	}
	/* A short first read of a pipe may hold one byte only; read the second. */
	if (r->in_len == 1 && !r->eof_in) {
		ssize_t n;
		do
			n = source_read(r, r->in + 1, IN_BYTES - 1);
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			rc = read_error(r, err);
			cg_reader_close(r);
			return rc;
		}
		r->in_len += (size_t)n;
		r->bytes_in += (uint64_t)n;
		r->eof_in = n == 0;
	}
	r->gzip = r->in_len >= 2 && r->in[0] == 0x1f && r->in[1] == 0x8b;
	if (r->gzip) {
		if (inflateInit2(&r->z, 16 + MAX_WBITS) != Z_OK) {
			cg_error_set(err, CG_EIO, "%s: cannot start gzip decompression", r->name);
			cg_reader_close(r);
			return CG_EIO;
		}
		r->stream_open = true;
		r->z_ready = true;
	}
	*out = r;
	return 0;
}

void cg_reader_close(cg_reader *r)
{
	if (!r)
		return;
	if (r->z_ready)
		inflateEnd(&r->z);
	if (r->own_fd)
		close(r->fd);
	cg_free(r->name);
	cg_free(r->in);
	cg_free(r->carry);
	cg_free(r->spare);
	cg_free(r);
}

/* Decompresses into dst; returns bytes produced, 0 at the end. */
static int64_t inflate_some(cg_reader *r, char *dst, size_t n, cg_error *err)
{
	size_t produced = 0;
	while (produced < n && !r->done) {
		if (r->in_pos == r->in_len) {
			if (r->eof_in) {
				/* The file ended inside the gzip stream. */
				if (r->stream_open)
					r->gzip_truncated = true;
				r->done = true;
				break;
			}
			int rc = fill_in(r, err);
			if (rc < 0)
				return rc;
			continue;
		}
		if (!r->stream_open) {
			/* After a member: another gzip member, or trailing bytes
			 * (padding, or something appended), which are ignored. */
			bool magic = r->in[r->in_pos] == 0x1f &&
				     (r->in_pos + 1 == r->in_len ? !r->eof_in : r->in[r->in_pos + 1] == 0x8b);
			if (!magic) {
				r->trailing = true;
				r->trailing_at = r->bytes_in - (r->in_len - r->in_pos);
				r->done = true;
				break;
			}
			inflateReset(&r->z);
			r->stream_open = true;
		}
		r->z.next_in = r->in + r->in_pos;
		r->z.avail_in = (uInt)(r->in_len - r->in_pos);
		r->z.next_out = (Bytef *)dst + produced;
		size_t room = n - produced;
		r->z.avail_out = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
		int zrc = inflate(&r->z, Z_NO_FLUSH);
		produced += room - r->z.avail_out;
		r->in_pos = r->in_len - r->z.avail_in;
		if (zrc == Z_STREAM_END) {
			r->stream_open = false;
		} else if (zrc == Z_DATA_ERROR || zrc == Z_NEED_DICT) {
			return cg_error_set(err, CG_EINPUT, "%s: gzip data is corrupt (%s) after %llu bytes",
					    r->name, r->z.msg ? r->z.msg : "invalid data",
					    (unsigned long long)r->bytes_out + produced);
		} else if (zrc == Z_MEM_ERROR) {
			return cg_error_set(err, CG_EIO, "%s: out of memory while decompressing", r->name);
		}
	}
	return (int64_t)produced;
}

static int64_t read_plain(cg_reader *r, char *dst, size_t n, cg_error *err)
{
	if (r->in_pos < r->in_len) {
		size_t k = r->in_len - r->in_pos < n ? r->in_len - r->in_pos : n;
		memcpy(dst, r->in + r->in_pos, k);
		r->in_pos += k;
		return (int64_t)k;
	}
	if (r->eof_in) {
		r->done = true;
		return 0;
	}
	for (;;) {
		ssize_t k = source_read(r, dst, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return read_error(r, err);
		r->bytes_in += (uint64_t)k;
		if (k == 0) {
			r->done = true;
			int rc = reached_end(r, err);
			if (rc < 0)
				return rc;
		}
		return k;
	}
}

static int64_t produce(cg_reader *r, char *dst, size_t n, cg_error *err)
{
	int64_t k = r->gzip ? inflate_some(r, dst, n, err) : read_plain(r, dst, n, err);
	if (k > 0)
		r->bytes_out += (uint64_t)k;
	return k;
}

/* Newlines counted 16 bytes at a time: a memchr call per line costs more
 * than the comparison itself on lines of a few hundred bytes. */
static uint64_t count_lines(const char *p, size_t n)
{
	uint64_t count = 0;
	size_t i = 0;
#ifdef __SSE2__
	/* Each byte lane counts up to 255 matches (cmpeq gives -1, subtracted),
	 * then the lanes are summed. */
	const __m128i nl = _mm_set1_epi8('\n');
	while (i + 16 <= n) {
		__m128i lanes = _mm_setzero_si128();
		for (int k = 0; k < 255 && i + 16 <= n; k++, i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
			lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(v, nl));
		}
		__m128i sums = _mm_sad_epu8(lanes, _mm_setzero_si128());
		count += (uint64_t)_mm_cvtsi128_si32(sums) + (uint64_t)_mm_extract_epi16(sums, 4);
	}
#endif
	for (; i < n; i++)
		count += p[i] == '\n';
	return count;
}

/* Skips up to about budget bytes of an overlong line, so that a line
 * that never ends (a device, an endless pipe) still hands control back
 * block by block; *ended tells whether the line (or the file) ended.
 * Returns bytes skipped or an error. */
static int64_t skip_line(cg_reader *r, cg_block *b, uint64_t budget, bool *ended, cg_error *err)
{
	int64_t skipped = 0;
	*ended = false;
	while ((uint64_t)skipped < budget) {
		int64_t k = produce(r, b->data, b->cap, err);
		if (k < 0)
			return k;
		if (k == 0 && !r->done)
			continue; /* a gzip member boundary */
		if (k == 0) {
			*ended = true;
			return skipped;
		}
		char *nl = memchr(b->data, '\n', (size_t)k);
		if (nl) {
			size_t used = (size_t)(nl - b->data) + 1;
			skipped += (int64_t)used;
			/* What follows the newline starts the next block. */
			r->carry_len = 0;
			CG_GROW(r->carry, r->carry_cap, (size_t)k - used);
			if ((size_t)k > used)
				memcpy(r->carry, nl + 1, (size_t)k - used);
			r->carry_len = (size_t)k - used;
			*ended = true;
			return skipped;
		}
		skipped += k;
	}
	return skipped;
}

/* The overlong line being skipped: its next part, as an overlong block. */
static int skip_more(cg_reader *r, cg_block *b, int64_t skipped, bool ended)
{
	r->skipped += (uint64_t)skipped;
	b->overlong = true;
	b->overlong_bytes = r->skipped;
	b->overlong_open = !ended;
	b->len = 0;
	r->skipping = !ended;
	if (ended)
		r->next_offset += r->skipped;
	return 1;
}

int cg_reader_next(cg_reader *r, cg_block *b, cg_error *err)
{
	memset(b, 0, sizeof *b);
	if (r->done && r->carry_len == 0)
		return 0;
	b->cap = r->block_bytes > r->carry_len ? r->block_bytes : r->carry_len * 2;
	b->offset = r->next_offset;
	if (r->spare && r->spare_cap >= b->cap) {
		/* Filled to the block size only: a larger spare (the first
		 * block's, sized by what format detection peeked) must not make
		 * every later block that large. */
		b->data = r->spare;
		r->spare = NULL;
	} else {
		b->data = cg_malloc(b->cap);
	}
	if (r->carry_len)
		memcpy(b->data, r->carry, r->carry_len);
	b->len = r->carry_len;
	r->carry_len = 0;
	b->first_line = r->next_line;
	if (r->skipping) {
		/* The rest of the overlong line the previous block began. */
		bool ended;
		int64_t skipped = skip_line(r, b, r->block_bytes, &ended, err);
		if (skipped < 0) {
			cg_reader_release(r, b);
			return (int)skipped;
		}
		b->first_line = r->next_line - 1;
		b->overlong_more = true;
		return skip_more(r, b, skipped, ended);
	}

	size_t scanned = 0; /* bytes of b->data known to hold no newline */
	for (;;) {
		char *last = NULL;
		for (size_t i = b->len; i > scanned; i--) {
			if (b->data[i - 1] == '\n') {
				last = b->data + i - 1;
				break;
			}
		}
		if (last) {
			size_t used = (size_t)(last - b->data) + 1;
			CG_GROW(r->carry, r->carry_cap, b->len - used);
			if (b->len > used)
				memcpy(r->carry, last + 1, b->len - used);
			r->carry_len = b->len - used;
			b->len = used;
			r->next_offset += used;
			b->nlines = count_lines(b->data, used);
			r->next_line += b->nlines;
			return 1;
		}
		scanned = b->len;
		if (r->done) {
			if (b->len == 0) {
				cg_reader_release(r, b);
				return 0;
			}
			b->ends_without_newline = true;
			if (b->len == b->cap) /* cap > len, as reader.h promises (no parser writes there now) */
				b->data = cg_realloc(b->data, ++b->cap);
			b->nlines = 1;
			r->next_line++;
			r->next_offset += b->len;
			return 1;
		}
		if (b->len == b->cap) {
			if (b->cap > r->max_line) {
				/* One line longer than the limit: skip it, a
				 * block's worth at a time. */
				bool ended;
				int64_t skipped = skip_line(r, b, r->block_bytes, &ended, err);
				if (skipped < 0) {
					cg_reader_release(r, b);
					return (int)skipped;
				}
				b->nlines = 1;
				r->next_line++;
				r->skipped = b->len;
				return skip_more(r, b, skipped, ended);
			}
			size_t ncap = b->cap * 2 > r->max_line + 1 ? r->max_line + 1 : b->cap * 2;
			b->data = cg_realloc(b->data, ncap);
			b->cap = ncap;
		}
		int64_t k = produce(r, b->data + b->len, b->cap - b->len, err);
		if (k < 0) {
			cg_reader_release(r, b);
			return (int)k;
		}
		b->len += (size_t)k;
	}
}

void cg_reader_release(cg_reader *r, cg_block *b)
{
	if (!b->data)
		return;
	if (!r->spare || b->cap > r->spare_cap) {
		cg_free(r->spare);
		r->spare = b->data;
		r->spare_cap = b->cap;
	} else {
		cg_free(b->data);
	}
	b->data = NULL;
}

int cg_reader_peek(cg_reader *r, size_t want, const char **data, size_t *len, cg_error *err)
{
	/* The peeked bytes wait in carry, where the first block and the first
	 * raw read both start. */
	CG_GROW(r->carry, r->carry_cap, want ? want : 1);
	while (r->carry_len < want && !r->done) {
		int64_t k = produce(r, r->carry + r->carry_len, want - r->carry_len, err);
		if (k < 0)
			return (int)k;
		r->carry_len += (size_t)k;
	}
	*data = r->carry;
	*len = r->carry_len < want ? r->carry_len : want;
	return 0;
}

int64_t cg_reader_read(cg_reader *r, char *buf, size_t n, cg_error *err)
{
	if (r->carry_pos < r->carry_len) {
		/* No memmove of the rest: peeked bytes can be many megabytes
		 * (format detection of a long first object), read in small
		 * pieces. */
		size_t left = r->carry_len - r->carry_pos;
		size_t k = left < n ? left : n;
		memcpy(buf, r->carry + r->carry_pos, k);
		r->carry_pos += k;
		if (r->carry_pos == r->carry_len)
			r->carry_pos = r->carry_len = 0;
		return (int64_t)k;
	}
	if (r->done || n == 0)
		return 0;
	/* produce() may return 0 bytes before the end (a gzip member boundary). */
	int64_t k;
	while ((k = produce(r, buf, n, err)) == 0 && !r->done)
		;
	return k;
}

const char *cg_reader_name(const cg_reader *r) { return r->name; }
bool cg_reader_is_gzip(const cg_reader *r) { return r->gzip; }
bool cg_reader_is_device(const cg_reader *r) { return r->device; }
size_t cg_reader_max_line_bytes(const cg_reader *r) { return r->max_line; }
bool cg_reader_gzip_truncated(const cg_reader *r) { return r->gzip_truncated; }

bool cg_reader_gzip_trailing(const cg_reader *r, uint64_t *offset)
{
	*offset = r->trailing_at;
	return r->trailing;
}
uint64_t cg_reader_file_size(const cg_reader *r) { return r->file_size; }
uint64_t cg_reader_bytes_in(const cg_reader *r) { return r->bytes_in; }
uint64_t cg_reader_bytes_out(const cg_reader *r) { return r->bytes_out; }
