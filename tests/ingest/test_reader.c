/* Reading a trace file, or bytes in memory, as blocks of whole lines or as
 * raw bytes: plain or gzip by content, every block size, the last line
 * without a newline, overlong lines, gzip cut short, corrupt or in several
 * members, peeking, the byte counters, and the files that cannot be read. */
#include "testutil.h"

#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "reader.h"
#include "xalloc.h"

/* Lines of every length from 0 to 40 bytes, their bytes varied. */
static size_t sample_text(char *buf, size_t cap, bool last_newline)
{
	size_t n = 0;
	for (int len = 0; len <= 40; len++) {
		assert_true(n + (size_t)len + 1 < cap);
		for (int i = 0; i < len; i++)
			buf[n++] = (char)('a' + (len * 7 + i) % 26);
		buf[n++] = '\n';
	}
	if (!last_newline)
		n--; /* the 40-byte line ends the file */
	buf[n] = '\0';
	return n;
}

static uint64_t newlines(const char *p, size_t n)
{
	uint64_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += p[i] == '\n';
	return k;
}

/* What the blocks of a reader held, checked block by block. */
typedef struct blocks {
	char *text; /* the blocks' bytes one after another */
	size_t len, cap;
	uint64_t lines;	   /* lines seen, overlong ones included */
	size_t nblocks;
	uint64_t overlong_line[8], overlong_bytes[8];
	size_t noverlong;
	bool unterminated; /* the last block ended without a newline */
	int rc;		   /* what cg_reader_next returned last */
	cg_error err;
} blocks;

/* Reads every block of r. Each block must start at the line after the
 * previous block's last, hold whole lines only (end in a newline, but for
 * the file's last line) and count them right. */
static void read_blocks(cg_reader *r, blocks *out)
{
	memset(out, 0, sizeof *out);
	cg_block b;
	uint64_t offset = 0;   /* where the next line starts */
	bool skipping = false; /* an overlong line goes on */
	while ((out->rc = cg_reader_next(r, &b, &out->err)) > 0) {
		assert_false(out->unterminated); /* nothing after the last line */
		assert_int_equal(b.offset, offset);
		out->nblocks++;
		if (b.overlong) {
			assert_int_equal(b.len, 0);
			/* A line skipped over several blocks: the same line, its bytes so far. */
			assert_int_equal(b.overlong_more, skipping);
			assert_int_equal(b.first_line, skipping ? out->lines : out->lines + 1);
			assert_int_equal(b.nlines, skipping ? 0 : 1);
			if (!skipping) {
				assert_true(out->noverlong < 8);
				out->overlong_line[out->noverlong++] = b.first_line;
			}
			out->overlong_bytes[out->noverlong - 1] = b.overlong_bytes;
			out->lines += b.nlines;
			skipping = b.overlong_open;
			if (!skipping)
				offset += b.overlong_bytes;
			cg_reader_release(r, &b);
			continue;
		}
		assert_false(skipping);
		assert_int_equal(b.first_line, out->lines + 1);
		offset += b.len;
		assert_true(b.len > 0);
		uint64_t nl = newlines(b.data, b.len);
		if (b.ends_without_newline) {
			assert_true(b.data[b.len - 1] != '\n');
			assert_int_equal(b.nlines, nl + 1);
			assert_true(b.cap > b.len); /* room for the parser's NUL */
			out->unterminated = true;
		} else {
			assert_int_equal(b.data[b.len - 1], '\n');
			assert_int_equal(b.nlines, nl);
		}
		out->lines += b.nlines;
		if (out->len + b.len + 1 > out->cap) {
			out->cap = 2 * (out->len + b.len + 1);
			out->text = realloc(out->text, out->cap);
		}
		memcpy(out->text + out->len, b.data, b.len);
		out->len += b.len;
		out->text[out->len] = '\0';
		cg_reader_release(r, &b);
	}
	/* Past the end it stays at the end. */
	if (out->rc == 0)
		assert_int_equal(cg_reader_next(r, &b, &out->err), 0);
}

static cg_reader *open_file(const char *path, size_t block_bytes, size_t max_line)
{
	cg_reader_options o = CG_READER_OPTIONS_INIT;
	if (block_bytes)
		o.block_bytes = block_bytes;
	if (max_line)
		o.max_line_bytes = max_line;
	cg_reader *r = NULL;
	cg_error err = CG_ERROR_INIT;
	if (cg_reader_open(&r, path, &o, &err) < 0)
		fail_msg("cannot open %s: %s", path, err.msg);
	return r;
}

static cg_reader *open_memory(const void *data, size_t n, size_t block_bytes, size_t max_line)
{
	cg_reader_options o = CG_READER_OPTIONS_INIT;
	if (block_bytes)
		o.block_bytes = block_bytes;
	if (max_line)
		o.max_line_bytes = max_line;
	cg_reader *r = NULL;
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_reader_open_memory(&r, data, n, "mem.jsonl", &o, &err), 0);
	return r;
}

/* The gzip file of text, as bytes (caller frees). */
static char *gzip_bytes(const char *name, const char *text, size_t n, size_t *gzlen)
{
	char *gz = tu_read(tu_write_gz(name, text, n), gzlen);
	assert_non_null(gz);
	return gz;
}

static void blocks_hold_whole_lines_at_every_block_size(void **state)
{
	char text[2048];
	for (int last_newline = 0; last_newline < 2; last_newline++) {
		size_t n = sample_text(text, sizeof text, last_newline);
		const char *plain = tu_write("lines.txt", text, n);
		size_t gzlen;
		char *gz = gzip_bytes("lines.gz", text, n, &gzlen);
		const char *gzpath = tu_write("lines.gz", gz, gzlen);
		/* 41 lines of 0 .. 40 bytes: sizes below, at and above a line's. */
		for (size_t bs = 1; bs <= 96; bs++) {
			cg_reader *readers[4] = {open_file(plain, bs, 0), open_file(gzpath, bs, 0),
						 open_memory(text, n, bs, 0), open_memory(gz, gzlen, bs, 0)};
			for (int k = 0; k < 4; k++) {
				blocks got;
				read_blocks(readers[k], &got);
				assert_int_equal(got.rc, 0);
				assert_int_equal(got.len, n);
				assert_memory_equal(got.text, text, n);
				assert_int_equal(got.lines, 41);
				assert_int_equal(got.unterminated, !last_newline);
				assert_int_equal(got.noverlong, 0);
				assert_int_equal(cg_reader_is_gzip(readers[k]), k % 2 == 1);
				free(got.text);
				cg_reader_close(readers[k]);
			}
		}
		free(gz);
	}
}

static void a_line_cut_across_reads_and_gzip_members_comes_whole(void **state)
{
	/* Member one ends inside "split here": the block still holds it whole. */
	size_t n1, n2;
	char *m1 = gzip_bytes("m1.gz", "line one\nsplit ", (size_t)-1, &n1);
	char *m2 = gzip_bytes("m2.gz", "here\nlast\n", (size_t)-1, &n2);
	char *both = malloc(n1 + n2);
	memcpy(both, m1, n1);
	memcpy(both + n1, m2, n2);
	const char *path = tu_write("both.gz", both, n1 + n2);
	for (size_t bs = 1; bs <= 32; bs++) {
		cg_reader *r = open_file(path, bs, 0);
		blocks got;
		read_blocks(r, &got);
		assert_int_equal(got.rc, 0);
		assert_string_equal(got.text, "line one\nsplit here\nlast\n");
		assert_int_equal(got.lines, 3);
		assert_false(cg_reader_gzip_truncated(r));
		/* Every compressed byte read, every plain one given. */
		assert_int_equal(cg_reader_bytes_in(r), n1 + n2);
		assert_int_equal(cg_reader_bytes_out(r), 25);
		free(got.text);
		cg_reader_close(r);
	}
	/* Raw reads cross the member boundary too, 3 bytes at a time. */
	cg_reader *r = open_memory(both, n1 + n2, 0, 0);
	char out[64];
	size_t len = 0;
	int64_t k;
	cg_error err;
	while ((k = cg_reader_read(r, out + len, 3, &err)) > 0)
		len += (size_t)k;
	assert_int_equal(k, 0);
	assert_int_equal(len, 25);
	assert_memory_equal(out, "line one\nsplit here\nlast\n", 25);
	assert_int_equal(cg_reader_read(r, out, 3, &err), 0);
	cg_reader_close(r);
	free(m1);
	free(m2);
	free(both);
}

static void bytes_after_the_last_gzip_member_are_ignored(void **state)
{
	size_t n;
	char *gz = gzip_bytes("pad.gz", "a\nb\n", (size_t)-1, &n);
	gz = realloc(gz, n + 4);
	memset(gz + n, 0, 4); /* padding, as some tools write */
	cg_reader *r = open_memory(gz, n + 4, 0, 0);
	blocks got;
	read_blocks(r, &got);
	assert_int_equal(got.rc, 0);
	assert_string_equal(got.text, "a\nb\n");
	assert_false(cg_reader_gzip_truncated(r));
	free(got.text);
	cg_reader_close(r);
	free(gz);
}

/* 100 lines "line 000\n" .. "line 099\n", 900 bytes. */
static size_t numbered_lines(char *text)
{
	for (int i = 0; i < 100; i++)
		snprintf(text + 9 * i, 10, "line %03d\n", i);
	return 900;
}

/* A plain file is read in blocks by read(2); one that grows while it is
 * read gives its new lines too. */
static void a_plain_file_is_read_in_blocks_and_what_it_grows_by_too(void **state)
{
	char text[1024];
	size_t n = numbered_lines(text);
	for (int change = 0; change < 2; change++) {
		const char *path = tu_write("plain.jsonl", text, n);
		cg_reader *r = open_file(path, 64, 0);
		cg_block b;
		cg_error err = CG_ERROR_INIT;
		assert_int_equal(cg_reader_next(r, &b, &err), 1);
		assert_int_equal(b.len, 63); /* seven lines: the last newline in 64 bytes */
		assert_int_equal(b.nlines, 7);
		assert_memory_equal(b.data, text, 63);
		cg_reader_release(r, &b);
		size_t want = n;
		if (change == 1) {
			/* grown by two lines after the first block */
			int fd = open(path, O_WRONLY | O_APPEND);
			assert_true(fd >= 0);
			assert_int_equal(write(fd, "line 100\nline 101\n", 18), 18);
			close(fd);
			memcpy(text + n, "line 100\nline 101\n", 18);
			want = n + 18;
		}
		char got[1024];
		size_t len = 63;
		uint64_t lines = 7;
		int rc;
		while ((rc = cg_reader_next(r, &b, &err)) > 0) {
			assert_int_equal(b.offset, len);
			assert_int_equal(b.first_line, lines + 1);
			assert_true(len + b.len <= sizeof got);
			memcpy(got + len, b.data, b.len);
			len += b.len;
			lines += b.nlines;
			cg_reader_release(r, &b);
		}
		assert_int_equal(rc, 0);
		assert_int_equal(len, want);
		assert_memory_equal(got + 63, text + 63, want - 63);
		assert_int_equal(lines, want / 9);
		assert_int_equal(cg_reader_bytes_in(r), want);
		assert_int_equal(cg_reader_bytes_out(r), want);
		cg_reader_close(r);
	}
}

/* A file cut short by another process while it is read, past what the
 * reader has taken in: reading ends in an error naming the file, not in
 * a shorter trace (plain and gzip alike: the bytes read from the file
 * are counted). */
static void a_file_cut_short_while_read_is_an_error_not_a_shorter_trace(void **state)
{
	const size_t n = (size_t)3 << 20, cut = (size_t)3 << 19;
	char *text = cg_malloc(n);
	for (size_t i = 0; i < n / 16; i++)
		snprintf(text + 16 * i, 17, "line %010zu", i), text[16 * i + 15] = '\n';
	const char *path = tu_write("cut.jsonl", text, n);
	cg_free(text);
	cg_reader *r = open_file(path, 64 << 10, 0);
	cg_block b;
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_reader_next(r, &b, &err), 1);
	cg_reader_release(r, &b);
	assert_int_equal(truncate(path, (off_t)cut), 0);
	uint64_t lines = 0;
	int rc;
	while ((rc = cg_reader_next(r, &b, &err)) > 0) {
		lines += b.nlines;
		cg_reader_release(r, &b);
	}
	assert_int_equal(rc, CG_EIO);
	assert_true(lines < cut / 16);
	assert_non_null(strstr(err.msg, "cut.jsonl: the file was cut short while it was read (it ended after "
					"1572864 of its 3145728 bytes)"));
	cg_reader_close(r);
}

static void the_last_line_without_a_newline_is_a_line(void **state)
{
	cg_reader *r = open_memory("one\ntwo", 7, 0, 0);
	cg_block b;
	cg_error err;
	/* "one\n" is whole when read; whether "two" is too is known at the end. */
	assert_int_equal(cg_reader_next(r, &b, &err), 1);
	assert_int_equal(b.len, 4);
	assert_int_equal(b.nlines, 1);
	assert_false(b.ends_without_newline);
	cg_reader_release(r, &b);
	assert_int_equal(cg_reader_next(r, &b, &err), 1);
	assert_int_equal(b.len, 3);
	assert_int_equal(b.first_line, 2);
	assert_int_equal(b.nlines, 1);
	assert_true(b.ends_without_newline);
	assert_true(b.cap > b.len);
	b.data[b.len] = '\0'; /* the spare byte is writable */
	assert_string_equal(b.data, "two");
	cg_reader_release(r, &b);
	assert_int_equal(cg_reader_next(r, &b, &err), 0);
	cg_reader_close(r);

	/* A file of one line without a newline, exactly one block long. */
	r = open_memory("abcd", 4, 4, 0);
	assert_int_equal(cg_reader_next(r, &b, &err), 1);
	assert_int_equal(b.len, 4);
	assert_true(b.ends_without_newline);
	assert_true(b.cap > b.len);
	cg_reader_release(r, &b);
	cg_reader_close(r);
}

/* Every line of text is either in the blocks, in order, or reported
 * overlong with its number and its bytes (its newline included, so that
 * every byte of the file is accounted for); lines within the limit are
 * never overlong. Returns how many were reported. */
static size_t every_line_accounted_for(const char *text, const blocks *got, size_t limit)
{
	const char *p = text, *q = got->text ? got->text : "";
	size_t j = 0;
	for (uint64_t line = 1; *p; line++) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
		if (j < got->noverlong && got->overlong_line[j] == line) {
			assert_true(len - (nl != NULL) > limit);
			assert_int_equal(got->overlong_bytes[j], len);
			j++;
		} else {
			assert_memory_equal(q, p, len);
			q += len;
		}
		p += len;
	}
	assert_int_equal(j, got->noverlong);
	assert_int_equal(*q, '\0');
	return j;
}

static void overlong_lines_are_skipped_and_reported_with_their_number(void **state)
{
	/* Limit 10 bytes. A line that does not fit in the block being filled is
	 * skipped; one that does may come whole (the block can hold twice
	 * what it carried over), and the JSONL layer measures it. */
	const char *first = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nok\n"; /* 30 bytes at line 1 */
	char mixed[512];
	snprintf(mixed, sizeof mixed, "short\n%s\nok\n%s\nyyyyyyyyyyyy\n0123456789\nzzzzzzzzzzz",
		 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", /* line 2: 30 bytes */
		 "wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww");
	for (size_t bs = 1; bs <= 12; bs++) {
		size_t gzlen;
		char *gz = gzip_bytes("long.gz", mixed, strlen(mixed), &gzlen);
		for (int k = 0; k < 2; k++) {
			cg_reader *r = k ? open_memory(gz, gzlen, bs, 10) : open_memory(mixed, strlen(mixed), bs, 10);
			blocks got;
			read_blocks(r, &got);
			assert_int_equal(got.rc, 0);
			assert_int_equal(got.lines, 7);
			every_line_accounted_for(mixed, &got, 10);
			/* Line 4 is 100 bytes, more than a block here ever holds (at
			 * most twice the larger of the block and the limit + 1). */
			bool skipped = false;
			for (size_t j = 0; j < got.noverlong; j++)
				skipped |= got.overlong_line[j] == 4 && got.overlong_bytes[j] == 101;
			assert_true(skipped);
			free(got.text);
			cg_reader_close(r);
		}
		free(gz);

		/* Nothing carried over: the first line cannot fit a block of at most 11. */
		if (bs > 10)
			continue;
		cg_reader *r = open_memory(first, strlen(first), bs, 10);
		blocks got;
		read_blocks(r, &got);
		assert_int_equal(got.noverlong, 1);
		assert_int_equal(got.overlong_line[0], 1);
		assert_int_equal(got.overlong_bytes[0], 31);
		assert_string_equal(got.text, "ok\n");
		assert_int_equal(got.lines, 2);
		free(got.text);
		cg_reader_close(r);
	}
}

static void a_line_exactly_at_the_limit_is_kept(void **state)
{
	/* 10 bytes and its newline, limit 10: not longer than the limit. */
	for (size_t bs = 1; bs <= 12; bs++) {
		cg_reader *r = open_memory("0123456789\nab\n", 14, bs, 10);
		blocks got;
		read_blocks(r, &got);
		assert_int_equal(got.noverlong, 0);
		assert_string_equal(got.text, "0123456789\nab\n");
		free(got.text);
		cg_reader_close(r);
	}
}

static void long_files_keep_their_line_numbers_across_blocks(void **state)
{
	/* 3 MiB, past the reader's 1 MiB input buffer, in 64 KiB blocks. */
	size_t cap = 3u << 20, n = 0;
	char *text = malloc(cap + 64);
	uint64_t lines = 0;
	while (n < cap) {
		lines++;
		n += (size_t)sprintf(text + n, "line %llu %.*s\n", (unsigned long long)lines, (int)(lines % 50),
				     "..................................................");
	}
	const char *plain = tu_write("long.txt", text, n);
	const char *gz = tu_write_gz("long.txt.gz", text, n);
	for (int k = 0; k < 2; k++) {
		cg_reader *r = open_file(k ? gz : plain, 64 << 10, 0);
		blocks got;
		read_blocks(r, &got);
		assert_int_equal(got.rc, 0);
		assert_int_equal(got.lines, lines);
		assert_true(got.nblocks >= 48); /* 3 MiB / 64 KiB */
		assert_int_equal(got.len, n);
		assert_memory_equal(got.text, text, n);
		assert_int_equal(cg_reader_bytes_out(r), n);
		free(got.text);
		cg_reader_close(r);
	}
	free(text);
}

static void gzip_is_decided_by_content_not_by_name(void **state)
{
	const char *plain_named_gz = tu_write("plain.jsonl.gz", "a\n", 2);
	const char *gz_named_plain = tu_write_gz("gzip.jsonl", "b\n", 2);
	cg_reader *r = open_file(plain_named_gz, 0, 0);
	blocks got;
	assert_false(cg_reader_is_gzip(r));
	read_blocks(r, &got);
	assert_string_equal(got.text, "a\n");
	free(got.text);
	cg_reader_close(r);
	r = open_file(gz_named_plain, 0, 0);
	assert_true(cg_reader_is_gzip(r));
	read_blocks(r, &got);
	assert_string_equal(got.text, "b\n");
	free(got.text);
	cg_reader_close(r);
	/* One byte of the gzip magic is not gzip. */
	r = open_memory("\x1f", 1, 0, 0);
	assert_false(cg_reader_is_gzip(r));
	cg_reader_close(r);
}

static void a_gzip_stream_cut_short_ends_the_lines_read_so_far(void **state)
{
	char text[2048];
	size_t n = sample_text(text, sizeof text, true);
	size_t gzlen;
	char *gz = gzip_bytes("cut.gz", text, n, &gzlen);
	cg_reader *r = open_memory(gz, gzlen, 0, 0);
	blocks got;
	read_blocks(r, &got);
	assert_false(cg_reader_gzip_truncated(r)); /* whole */
	free(got.text);
	cg_reader_close(r);

	/* Cut anywhere from inside the header to just before the 8-byte trailer. */
	for (size_t cut = 5; cut < gzlen; cut += 7) {
		r = open_memory(gz, cut, 0, 0);
		read_blocks(r, &got);
		assert_int_equal(got.rc, 0); /* not an error: the caller marks truncation */
		assert_true(cg_reader_gzip_truncated(r));
		assert_true(got.len <= n);
		if (got.len)
			assert_memory_equal(got.text, text, got.len); /* a prefix of the text */
		free(got.text);
		cg_reader_close(r);
	}
	free(gz);
}

static void corrupt_gzip_data_is_an_input_error_naming_the_file(void **state)
{
	const char *text = "{\"kind\":\"meta\"}\n";
	size_t gzlen;
	char *gz = gzip_bytes("bad.gz", text, (size_t)-1, &gzlen);

	/* A flipped CRC (the trailer's first 4 bytes): all 16 bytes come out first. */
	gz[gzlen - 8] ^= 0x55;
	const char *path = tu_write("badcrc.gz", gz, gzlen);
	cg_reader *r = open_file(path, 0, 0);
	blocks got;
	read_blocks(r, &got);
	assert_int_equal(got.rc, CG_EINPUT);
	assert_int_equal(got.err.code, CG_EINPUT);
	char want[600];
	snprintf(want, sizeof want, "%s: gzip data is corrupt (incorrect data check) after 16 bytes", path);
	assert_string_equal(got.err.msg, want);
	free(got.text);
	cg_reader_close(r);

	/* Compression method 7 in the header (deflate is 8): nothing comes out. */
	gz[gzlen - 8] ^= 0x55;
	gz[2] = 7;
	r = open_memory(gz, gzlen, 0, 0);
	char buf[64];
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_reader_read(r, buf, sizeof buf, &err), CG_EINPUT);
	assert_string_equal(err.msg, "mem.jsonl: gzip data is corrupt (unknown compression method) after 0 bytes");
	cg_reader_close(r);
	free(gz);
}

/* CPU seconds to peek at n bytes and read them back in 1 KiB pieces. */
static double read_back_a_peek(const char *data, size_t n)
{
	cg_reader *r = open_memory(data, n, 0, 0);
	cg_error err;
	const char *p;
	size_t len;
	struct timespec t0, t1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	assert_int_equal(cg_reader_peek(r, n, &p, &len, &err), 0);
	assert_int_equal(len, n);
	char buf[1024];
	size_t got = 0;
	int64_t k;
	while ((k = cg_reader_read(r, buf, sizeof buf, &err)) > 0) {
		assert_memory_equal(buf, data + got, (size_t)k);
		got += (size_t)k;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	assert_int_equal(got, n);
	cg_reader_close(r);
	return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
}

static void a_large_peek_is_read_back_in_linear_time(void **state)
{
	/* Format detection may peek at megabytes (a compact Chrome trace's
	 * long first value); the Chrome reader then takes them in small
	 * pieces. Eight times the bytes: about eight times the time (moving
	 * the rest of the peek on every read made it 64 times). */
	size_t big = (size_t)16 << 20;
	char *data = malloc(big);
	for (size_t i = 0; i < big; i++)
		data[i] = (char)('a' + i % 23);
	double small_t = 1e9, big_t = 1e9;
	for (int i = 0; i < 3; i++) {
		double a = read_back_a_peek(data, big / 8), b = read_back_a_peek(data, big);
		small_t = a < small_t ? a : small_t;
		big_t = b < big_t ? b : big_t;
	}
	if (big_t > 24 * small_t + 0.01)
		fail_msg("2 MiB: %.4f s, 16 MiB: %.4f s", small_t, big_t);
	free(data);
}

static void peeked_bytes_are_read_again_by_either_api(void **state)
{
	const char *text = "{\"kind\":\"meta\"}\nsecond\n";
	size_t n = strlen(text), gzlen;
	char *gz = gzip_bytes("peek.gz", text, n, &gzlen);
	for (int k = 0; k < 2; k++) {
		/* Peek, peek further, then lines. */
		cg_reader *r = k ? open_memory(gz, gzlen, 0, 0) : open_memory(text, n, 0, 0);
		const char *data;
		size_t len;
		cg_error err;
		assert_int_equal(cg_reader_peek(r, 3, &data, &len, &err), 0);
		assert_int_equal(len, 3);
		assert_memory_equal(data, "{\"k", 3);
		assert_int_equal(cg_reader_peek(r, 9, &data, &len, &err), 0);
		assert_int_equal(len, 9);
		assert_memory_equal(data, "{\"kind\":\"", 9);
		blocks got;
		read_blocks(r, &got);
		assert_string_equal(got.text, text);
		assert_int_equal(got.lines, 2);
		free(got.text);
		cg_reader_close(r);

		/* Peek past the end: the whole file, then raw reads from its start. */
		r = k ? open_memory(gz, gzlen, 0, 0) : open_memory(text, n, 0, 0);
		assert_int_equal(cg_reader_peek(r, 1000, &data, &len, &err), 0);
		assert_int_equal(len, n);
		assert_memory_equal(data, text, n);
		char buf[64];
		assert_int_equal(cg_reader_read(r, buf, 5, &err), 5);
		assert_memory_equal(buf, text, 5);
		assert_int_equal(cg_reader_read(r, buf, sizeof buf, &err), (int64_t)n - 5);
		assert_memory_equal(buf, text + 5, n - 5);
		assert_int_equal(cg_reader_read(r, buf, sizeof buf, &err), 0);
		cg_reader_close(r);
	}
	free(gz);
}

static void blocks_after_a_large_peek_keep_the_block_size(void **state)
{
	/* 20,000 lines of 100 bytes (2,000,000 B) read in 512-byte blocks
	 * after peeking 256 KiB, as format detection does: the first block
	 * holds what was peeked, every later block at most 512 bytes, so at
	 * least (2,000,000 - 262,144) / 512 = 3,394 more blocks. */
	size_t n = 20000 * 100;
	char *text = malloc(n + 1);
	for (size_t i = 0; i < 20000; i++) {
		memset(text + i * 100, 'x', 99);
		text[i * 100 + 99] = '\n';
	}
	text[n] = '\0';
	cg_reader *r = open_memory(text, n, 512, 0);
	const char *data;
	size_t len;
	cg_error err;
	assert_int_equal(cg_reader_peek(r, (size_t)256 << 10, &data, &len, &err), 0);
	cg_block b;
	size_t nblocks = 0, bytes = 0, largest_after_first = 0;
	while (cg_reader_next(r, &b, &err) > 0) {
		if (nblocks++ && b.len > largest_after_first)
			largest_after_first = b.len;
		bytes += b.len;
		cg_reader_release(r, &b);
	}
	assert_int_equal(bytes, n);
	assert_true(largest_after_first <= 512);
	assert_true(nblocks >= 1 + 3394);
	cg_reader_close(r);
	free(text);
}

static void raw_reads_give_every_byte_once(void **state)
{
	char text[2048];
	size_t n = sample_text(text, sizeof text, false);
	const char *gz = tu_write_gz("raw.gz", text, n);
	for (size_t chunk = 1; chunk <= 64; chunk *= 3) {
		cg_reader *r = open_file(gz, 0, 0);
		char out[2048];
		size_t len = 0;
		int64_t k;
		cg_error err;
		while ((k = cg_reader_read(r, out + len, chunk, &err)) > 0) {
			assert_true((size_t)k <= chunk);
			len += (size_t)k;
		}
		assert_int_equal(k, 0);
		assert_int_equal(len, n);
		assert_memory_equal(out, text, n);
		assert_int_equal(cg_reader_read(r, out, 0, &err), 0);
		cg_reader_close(r);
	}
}

static void byte_counters_count_the_file_and_what_it_holds(void **state)
{
	char text[2048];
	size_t n = sample_text(text, sizeof text, true);
	const char *plain = tu_write("count.txt", text, n);
	size_t gzlen;
	char *gz = gzip_bytes("count.gz", text, n, &gzlen);
	const char *gzpath = tu_write("count.gz", gz, gzlen);

	cg_reader *r = open_file(plain, 0, 0);
	assert_int_equal(cg_reader_file_size(r), n);
	blocks got;
	read_blocks(r, &got);
	assert_int_equal(cg_reader_bytes_in(r), n);
	assert_int_equal(cg_reader_bytes_out(r), n);
	assert_string_equal(cg_reader_name(r), plain);
	free(got.text);
	cg_reader_close(r);

	r = open_file(gzpath, 0, 0);
	assert_int_equal(cg_reader_file_size(r), gzlen);
	read_blocks(r, &got);
	assert_int_equal(cg_reader_bytes_in(r), gzlen);
	assert_int_equal(cg_reader_bytes_out(r), n);
	free(got.text);
	cg_reader_close(r);

	/* Memory: its length is the file's size; the name given, or "<memory>". */
	cg_reader_options o = CG_READER_OPTIONS_INIT;
	cg_error err;
	assert_int_equal(cg_reader_open_memory(&r, gz, gzlen, NULL, &o, &err), 0);
	assert_string_equal(cg_reader_name(r), "<memory>");
	assert_int_equal(cg_reader_file_size(r), gzlen);
	read_blocks(r, &got);
	assert_int_equal(cg_reader_bytes_in(r), gzlen);
	assert_int_equal(cg_reader_bytes_out(r), n);
	free(got.text);
	cg_reader_close(r);
	free(gz);
}

/* Standard input from a pipe whose writer sends the first byte alone: the
 * reader must not decide gzip or plain on one byte. */
static void standard_input_is_read_through_a_pipe(void **state)
{
	const char *text = "x\ny\n";
	size_t gzlen;
	char *gz = gzip_bytes("stdin.gz", text, (size_t)-1, &gzlen);
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		ssize_t w = write(fds[1], gz, 1);
		usleep(100000);
		w += write(fds[1], gz + 1, gzlen - 1);
		_exit(w == (ssize_t)gzlen ? 0 : 1);
	}
	close(fds[1]);
	int saved = dup(0);
	assert_true(saved >= 0);
	assert_int_equal(dup2(fds[0], 0), 0);
	close(fds[0]);
	cg_reader *r = open_file("-", 0, 0);
	assert_string_equal(cg_reader_name(r), "<stdin>");
	assert_true(cg_reader_is_gzip(r));
	assert_int_equal(cg_reader_file_size(r), 0); /* a pipe has no size */
	blocks got;
	read_blocks(r, &got);
	cg_reader_close(r);
	assert_int_equal(dup2(saved, 0), 0);
	close(saved);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(got.text, "x\ny\n");
	assert_int_equal(got.lines, 2);
	free(got.text);
	free(gz);
}

static void files_that_cannot_be_read_give_messages_naming_them(void **state)
{
	cg_reader *r = (cg_reader *)1;
	cg_error err = CG_ERROR_INIT;
	char want[600];
	assert_int_equal(cg_reader_open(&r, tu_tmpdir(), NULL, &err), CG_EIO);
	assert_null(r);
	snprintf(want, sizeof want, "%s: is a directory, not a trace file", tu_tmpdir());
	assert_string_equal(err.msg, want);
	assert_int_equal(err.code, CG_EIO);

	const char *missing = tu_path("missing.jsonl");
	r = (cg_reader *)1;
	assert_int_equal(cg_reader_open(&r, missing, NULL, &err), CG_EIO);
	assert_null(r);
	snprintf(want, sizeof want, "%s: No such file or directory", missing);
	assert_string_equal(err.msg, want);
}

static void an_empty_file_has_no_blocks_and_no_bytes(void **state)
{
	const char *empty = tu_write("empty.txt", "", 0);
	cg_reader *r = open_file(empty, 0, 0);
	const char *data;
	size_t len = 99;
	cg_error err;
	assert_int_equal(cg_reader_peek(r, 16, &data, &len, &err), 0);
	assert_int_equal(len, 0);
	blocks got;
	read_blocks(r, &got);
	assert_int_equal(got.rc, 0);
	assert_int_equal(got.nblocks, 0);
	assert_int_equal(cg_reader_file_size(r), 0);
	assert_int_equal(cg_reader_bytes_out(r), 0);
	assert_false(cg_reader_is_gzip(r));
	cg_reader_close(r);

	/* Nothing at all in memory; and a gzip file of nothing, which is whole. */
	r = open_memory(NULL, 0, 0, 0);
	char buf[8];
	assert_int_equal(cg_reader_read(r, buf, sizeof buf, &err), 0);
	cg_reader_close(r);
	r = open_file(tu_write_gz("empty.gz", "", 0), 0, 0);
	assert_true(cg_reader_is_gzip(r));
	read_blocks(r, &got);
	assert_int_equal(got.nblocks, 0);
	assert_false(cg_reader_gzip_truncated(r));
	cg_reader_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(blocks_hold_whole_lines_at_every_block_size),
		cmocka_unit_test(a_line_cut_across_reads_and_gzip_members_comes_whole),
		cmocka_unit_test(bytes_after_the_last_gzip_member_are_ignored),
		cmocka_unit_test(the_last_line_without_a_newline_is_a_line),
		cmocka_unit_test(a_plain_file_is_read_in_blocks_and_what_it_grows_by_too),
		cmocka_unit_test(a_file_cut_short_while_read_is_an_error_not_a_shorter_trace),
		cmocka_unit_test(overlong_lines_are_skipped_and_reported_with_their_number),
		cmocka_unit_test(a_line_exactly_at_the_limit_is_kept),
		cmocka_unit_test(long_files_keep_their_line_numbers_across_blocks),
		cmocka_unit_test(gzip_is_decided_by_content_not_by_name),
		cmocka_unit_test(a_gzip_stream_cut_short_ends_the_lines_read_so_far),
		cmocka_unit_test(corrupt_gzip_data_is_an_input_error_naming_the_file),
		cmocka_unit_test(peeked_bytes_are_read_again_by_either_api),
		cmocka_unit_test(a_large_peek_is_read_back_in_linear_time),
		cmocka_unit_test(blocks_after_a_large_peek_keep_the_block_size),
		cmocka_unit_test(raw_reads_give_every_byte_once),
		cmocka_unit_test(byte_counters_count_the_file_and_what_it_holds),
		cmocka_unit_test(standard_input_is_read_through_a_pipe),
		cmocka_unit_test(files_that_cannot_be_read_give_messages_naming_them),
		cmocka_unit_test(an_empty_file_has_no_blocks_and_no_bytes),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
