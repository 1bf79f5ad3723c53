#include "deflate.h"

#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "xalloc.h"

/* Greedy LZ77 with one candidate per hash: the position that last had the
 * same next HASH_BYTES bytes. zlib's level 1 follows short hash chains
 * and hashes 3 bytes; on JSON, where repeats are long, one candidate for
 * 6 bytes finds matches as good and costs less. Each block of up to
 * BLOCK_SYMBOLS symbols gets its own Huffman codes, or is stored when that
 * is smaller (input that does not compress). */
#define WINDOW 32768u
#define MAX_MATCH 258u
#define HASH_BITS 15
#define HASH_BYTES 6
#define BLOCK_SYMBOLS (1u << 15)

#define LITLEN_CODES 286
#define DIST_CODES 30
#define CODELEN_CODES 19
#define END_OF_BLOCK 256
#define MAX_BITS 15	    /* longest literal/length or distance code */
#define MAX_CODELEN_BITS 7 /* longest code-length code */
#define STORED_MAX 65535u

/* A symbol: a literal byte (< 256) or a match, length << 16 | distance - 1
 * (lengths are at least 4, so a match is never below 256). */
typedef uint32_t symbol;

struct cg_deflater {
	uint32_t head[1u << HASH_BITS]; /* per hash, the last position with it */
	symbol syms[BLOCK_SYMBOLS];
	size_t nsyms;
	uint32_t litlen_freq[LITLEN_CODES], dist_freq[DIST_CODES];
};

cg_deflater *cg_deflater_new(void)
{
	return cg_calloc(1, sizeof(cg_deflater));
}

void cg_deflater_free(cg_deflater *d)
{
	cg_free(d);
}

/* Per stored block of up to 65,535 bytes, 5 bytes of header; one more
 * partial block per Huffman block (they hold at least BLOCK_SYMBOLS bytes
 * each, but the last), the sync flush, and the bit writer's 8-byte
 * stores: len / 4096 + 64 covers them with room. */
size_t cg_deflate_bound(size_t len)
{
	return len + len / 4096 + 64;
}

/* --- bits --------------------------------------------------------------------- */

/* Deflate packs bits from the least significant end. Every put stores 8
 * bytes and keeps at most 7 bits pending: no branch per code. */
typedef struct bits {
	uint64_t acc;
	unsigned n; /* pending bits, < 8 between puts */
	unsigned char *out;
} bits;

static inline void put(bits *b, uint64_t value, unsigned count)
{
	assert(count <= 56 && value >> count == 0);
	b->acc |= value << b->n;
	b->n += count;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	uint64_t le = __builtin_bswap64(b->acc);
	memcpy(b->out, &le, 8);
#else
	memcpy(b->out, &b->acc, 8);
#endif
	b->out += b->n >> 3;
	b->acc >>= b->n & ~7u;
	b->n &= 7;
}

/* Pads to a byte boundary with zero bits. */
static void align(bits *b)
{
	if (b->n) {
		*b->out++ = (unsigned char)b->acc;
		b->acc = 0;
		b->n = 0;
	}
}

/* --- lengths and distances ------------------------------------------------------ */

static inline unsigned log2_of(uint32_t x)
{
	return 31u - (unsigned)__builtin_clz(x);
}

/* Length 3..258: its code 257..285 and its extra bits (RFC 1951 3.2.5). */
static inline unsigned length_code(unsigned len, unsigned *extra_bits, unsigned *extra)
{
	unsigned x = len - 3;
	if (x < 8 || len == MAX_MATCH) {
		*extra_bits = 0;
		*extra = 0;
		return len == MAX_MATCH ? 285 : 257 + x;
	}
	unsigned k = log2_of(x) - 2; /* extra bits: 1 for 11-18, ..., 5 for 131-257 */
	*extra_bits = k;
	*extra = x & ((1u << k) - 1);
	return 257 + 4 * (k + 1) + ((x >> k) & 3);
}

/* Distance 1..32768: its code 0..29 and its extra bits. */
static inline unsigned dist_code(unsigned dist, unsigned *extra_bits, unsigned *extra)
{
	unsigned x = dist - 1;
	if (x < 4) {
		*extra_bits = 0;
		*extra = 0;
		return x;
	}
	unsigned k = log2_of(x) - 1; /* extra bits: 1 for 5-8, ..., 13 for 16385-32768 */
	*extra_bits = k;
	*extra = x & ((1u << k) - 1);
	return 2 * (k + 1) + ((x >> k) & 1);
}

/* --- Huffman codes --------------------------------------------------------------- */

/* Code lengths of at most max_bits for n symbols of these frequencies.
 * Symbols that never occur get none, but there are always at least two
 * codes: inflaters reject a code of one symbol (zlib's trees.c does the
 * same). */
static void code_lengths(const uint32_t *freq, unsigned n, unsigned max_bits, uint8_t *len)
{
	uint16_t sym[LITLEN_CODES];
	uint32_t weight[2 * LITLEN_CODES];
	uint16_t parent[2 * LITLEN_CODES];
	unsigned depth[2 * LITLEN_CODES];
	assert(n <= LITLEN_CODES);
	unsigned m = 0;
	for (unsigned s = 0; s < n; s++)
		if (freq[s])
			sym[m++] = (uint16_t)s;
	for (unsigned s = 0; m < 2 && s < n; s++)
		if (!freq[s] && (m == 0 || sym[0] != s))
			sym[m++] = (uint16_t)s;
	/* Rarest first (ties by symbol: the lengths depend on the input only). */
	for (unsigned i = 1; i < m; i++) {
		uint16_t s = sym[i];
		unsigned j = i;
		for (; j > 0 && freq[sym[j - 1]] > freq[s]; j--)
			sym[j] = sym[j - 1];
		sym[j] = s;
	}
	/* Huffman's tree with two queues: the leaves in order, and the inner
	 * nodes, made in order of weight. Node m + k is the k-th made. */
	for (unsigned i = 0; i < m; i++)
		weight[i] = freq[sym[i]];
	unsigned leaf = 0, inner = m;
	for (unsigned next = m; next < 2 * m - 1; next++) {
		unsigned pick[2];
		for (int k = 0; k < 2; k++)
			pick[k] = leaf < m && (inner >= next || weight[leaf] <= weight[inner]) ? leaf++ : inner++;
		weight[next] = weight[pick[0]] + weight[pick[1]];
		parent[pick[0]] = parent[pick[1]] = (uint16_t)next;
	}
	depth[2 * m - 2] = 0;
	for (unsigned k = 2 * m - 2; k-- > 0;)
		depth[k] = depth[parent[k]] + 1;
	/* How many codes of each length; those too long are cut to max_bits,
	 * which oversubscribes the code (Kraft sum above 1). Each round takes
	 * one code of max_bits away and splits the deepest shorter leaf into
	 * two one level down: the number of codes stays, the sum falls by one
	 * unit of 2^-max_bits, until it is exactly 1. */
	unsigned count[MAX_BITS + 1] = {0};
	for (unsigned i = 0; i < m; i++)
		count[depth[i] < max_bits ? depth[i] : max_bits]++;
	uint32_t kraft = 0;
	for (unsigned l = 1; l <= max_bits; l++)
		kraft += count[l] << (max_bits - l);
	for (; kraft > (1u << max_bits); kraft--) {
		assert(count[max_bits] > 0);
		count[max_bits]--;
		unsigned l = max_bits - 1;
		while (!count[l])
			l--;
		count[l]--;
		count[l + 1] += 2;
	}
	/* The rarest symbols get the longest codes. */
	memset(len, 0, n);
	unsigned i = 0;
	for (unsigned l = max_bits; l >= 1; l--)
		for (unsigned c = 0; c < count[l]; c++)
			len[sym[i++]] = (uint8_t)l;
}

/* Canonical codes from lengths (RFC 1951 3.2.2), bit-reversed because
 * deflate sends Huffman codes from their most significant bit. */
static void canonical_codes(const uint8_t *len, unsigned n, uint16_t *code)
{
	unsigned count[MAX_BITS + 1] = {0}, next[MAX_BITS + 1] = {0};
	for (unsigned s = 0; s < n; s++)
		count[len[s]]++;
	count[0] = 0;
	for (unsigned l = 1, c = 0; l <= MAX_BITS; l++) {
		c = (c + count[l - 1]) << 1;
		next[l] = c;
	}
	for (unsigned s = 0; s < n; s++) {
		unsigned l = len[s], v = l ? next[l]++ : 0, r = 0;
		for (unsigned k = 0; k < l; k++)
			r |= ((v >> k) & 1) << (l - 1 - k);
		code[s] = (uint16_t)r;
	}
}

/* The order in which a block header gives the code-length code's lengths. */
static const uint8_t codelen_order[CODELEN_CODES] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

/* The code lengths as code-length symbols: 0-15 a length, 16 the previous
 * length 3-6 times, 17 zero 3-10 times, 18 zero 11-138 times; each entry
 * symbol | repeat extra << 8. Counts the symbols into freq. */
static unsigned run_lengths(const uint8_t *lens, unsigned n, uint16_t *out, uint32_t *freq)
{
	unsigned k = 0;
	for (unsigned i = 0; i < n;) {
		uint8_t l = lens[i];
		unsigned run = 1;
		while (i + run < n && lens[i + run] == l)
			run++;
		i += run;
		if (l == 0) {
			for (unsigned r; run >= 11; run -= r) {
				r = run < 138 ? run : 138;
				out[k++] = (uint16_t)(18 | (r - 11) << 8);
				freq[18]++;
			}
			if (run >= 3) {
				out[k++] = (uint16_t)(17 | (run - 3) << 8);
				freq[17]++;
				run = 0;
			}
		} else {
			out[k++] = l;
			freq[l]++;
			run--;
			for (unsigned r; run >= 3; run -= r) {
				r = run < 6 ? run : 6;
				out[k++] = (uint16_t)(16 | (r - 3) << 8);
				freq[16]++;
			}
		}
		for (; run; run--) {
			out[k++] = l;
			freq[l]++;
		}
	}
	return k;
}

/* --- blocks ------------------------------------------------------------------------ */

static void stored_blocks(bits *b, const unsigned char *raw, size_t len, bool final)
{
	size_t off = 0;
	do {
		size_t n = len - off < STORED_MAX ? len - off : STORED_MAX;
		put(b, final && off + n == len, 3); /* BFINAL, BTYPE 00 */
		align(b);
		b->out[0] = (unsigned char)n;
		b->out[1] = (unsigned char)(n >> 8);
		b->out[2] = (unsigned char)~n;
		b->out[3] = (unsigned char)(~n >> 8);
		memcpy(b->out + 4, raw + off, n);
		b->out += 4 + n;
		off += n;
	} while (off < len);
}

/* The symbols gathered, as one block; raw is the input they stand for. */
static void flush_block(cg_deflater *d, bits *b, const unsigned char *raw, size_t raw_len, bool final)
{
	d->litlen_freq[END_OF_BLOCK]++;
	uint8_t litlen_len[LITLEN_CODES], dist_len[DIST_CODES];
	code_lengths(d->litlen_freq, LITLEN_CODES, MAX_BITS, litlen_len);
	code_lengths(d->dist_freq, DIST_CODES, MAX_BITS, dist_len);
	unsigned nlitlen = LITLEN_CODES, ndist = DIST_CODES;
	while (nlitlen > 257 && !litlen_len[nlitlen - 1])
		nlitlen--;
	while (ndist > 1 && !dist_len[ndist - 1])
		ndist--;
	/* Both lists of lengths as one sequence: runs may cross from one into the other. */
	uint8_t lens[LITLEN_CODES + DIST_CODES];
	memcpy(lens, litlen_len, nlitlen);
	memcpy(lens + nlitlen, dist_len, ndist);
	uint16_t runs[LITLEN_CODES + DIST_CODES];
	uint32_t codelen_freq[CODELEN_CODES] = {0};
	unsigned nruns = run_lengths(lens, nlitlen + ndist, runs, codelen_freq);
	uint8_t codelen_len[CODELEN_CODES];
	uint16_t codelen_code[CODELEN_CODES];
	code_lengths(codelen_freq, CODELEN_CODES, MAX_CODELEN_BITS, codelen_len);
	unsigned ncodelen = CODELEN_CODES;
	while (ncodelen > 4 && !codelen_len[codelen_order[ncodelen - 1]])
		ncodelen--;

	/* The block's size both ways, in bits. */
	uint64_t huffman = 3 + 5 + 5 + 4 + 3 * (uint64_t)ncodelen;
	for (unsigned s = 0; s < CODELEN_CODES; s++)
		huffman += (uint64_t)codelen_freq[s] * codelen_len[s];
	huffman += 2 * (uint64_t)codelen_freq[16] + 3 * (uint64_t)codelen_freq[17] + 7 * (uint64_t)codelen_freq[18];
	for (unsigned s = 0; s < LITLEN_CODES; s++)
		huffman += (uint64_t)d->litlen_freq[s] * (litlen_len[s] + (s >= 265 && s < 285 ? (s - 261) / 4 : 0));
	for (unsigned s = 0; s < DIST_CODES; s++)
		huffman += (uint64_t)d->dist_freq[s] * (dist_len[s] + (s >= 4 ? s / 2 - 1 : 0));
	uint64_t stored = 8 * (uint64_t)raw_len + (raw_len / STORED_MAX + 1) * (3 + 7 + 32);
	if (huffman > stored) {
		stored_blocks(b, raw, raw_len, final);
	} else {
		uint16_t litlen_code[LITLEN_CODES], dist_code_of[DIST_CODES];
		canonical_codes(litlen_len, LITLEN_CODES, litlen_code);
		canonical_codes(dist_len, DIST_CODES, dist_code_of);
		canonical_codes(codelen_len, CODELEN_CODES, codelen_code);
		put(b, final, 1);
		put(b, 2, 2); /* BTYPE 10: dynamic Huffman codes */
		put(b, nlitlen - 257, 5);
		put(b, ndist - 1, 5);
		put(b, ncodelen - 4, 4);
		for (unsigned i = 0; i < ncodelen; i++)
			put(b, codelen_len[codelen_order[i]], 3);
		static const uint8_t repeat_bits[CODELEN_CODES] = {[16] = 2, [17] = 3, [18] = 7};
		for (unsigned i = 0; i < nruns; i++) {
			unsigned s = runs[i] & 0xff;
			put(b, codelen_code[s] | (uint64_t)(runs[i] >> 8) << codelen_len[s], codelen_len[s] + repeat_bits[s]);
		}
		/* A length's code and extra bits, looked up per block. */
		uint32_t length_bits[MAX_MATCH + 1];
		uint8_t length_count[MAX_MATCH + 1];
		for (unsigned len = 3; len <= MAX_MATCH; len++) {
			unsigned eb, ex, c = length_code(len, &eb, &ex);
			length_bits[len] = litlen_code[c] | ex << litlen_len[c];
			length_count[len] = (uint8_t)(litlen_len[c] + eb);
		}
		for (size_t i = 0; i < d->nsyms; i++) {
			symbol v = d->syms[i];
			if (v < 256) {
				put(b, litlen_code[v], litlen_len[v]);
				continue;
			}
			unsigned len = v >> 16, eb, ex, c = dist_code((v & 0xffff) + 1, &eb, &ex);
			/* at most 15 + 5 + 15 + 13 bits */
			uint64_t dist = dist_code_of[c] | (uint64_t)ex << dist_len[c];
			put(b, length_bits[len] | dist << length_count[len], length_count[len] + dist_len[c] + eb);
		}
		put(b, litlen_code[END_OF_BLOCK], litlen_len[END_OF_BLOCK]);
	}
	d->nsyms = 0;
	memset(d->litlen_freq, 0, sizeof d->litlen_freq);
	memset(d->dist_freq, 0, sizeof d->dist_freq);
}

/* --- matches -------------------------------------------------------------------------- */

static inline uint64_t load64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t load32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* The hash of the HASH_BYTES bytes at p (it reads 8). */
static inline uint32_t hash_at(const unsigned char *p)
{
	uint64_t v = load64(p);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return (uint32_t)(((v << (64 - 8 * HASH_BYTES)) * 0x9E3779B97F4A7C15ull) >> (64 - HASH_BITS));
}

/* How far p and c agree, up to limit bytes, given the first 4 do;
 * p + limit is readable. */
static inline size_t match_length(const unsigned char *p, const unsigned char *c, size_t limit)
{
	size_t n = 4;
	for (; n + 8 <= limit; n += 8) {
		uint64_t x = load64(p + n) ^ load64(c + n);
		if (x) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			return n + ((size_t)__builtin_clzll(x) >> 3);
#else
			return n + ((size_t)__builtin_ctzll(x) >> 3);
#endif
		}
	}
	while (n < limit && p[n] == c[n])
		n++;
	return n;
}

size_t cg_deflate_chunk(cg_deflater *d, const unsigned char *in, size_t dict_len, size_t len, bool last,
			unsigned char *out)
{
	if (dict_len > WINDOW)
		dict_len = WINDOW;
	/* Positions count from base; chunks are at most a few MiB (gzwriter's
	 * blocks are 1 MiB), far inside 32 bits. */
	assert(len <= UINT32_MAX - WINDOW);
	const unsigned char *base = in - dict_len;
	size_t end = dict_len + len;
	memset(d->head, 0, sizeof d->head);
	for (size_t i = 0; i < dict_len && i + 8 <= end; i++)
		d->head[hash_at(base + i)] = (uint32_t)i;
	d->nsyms = 0;
	bits b = {0, 0, out};
	size_t pos = dict_len, block_start = pos;
	while (pos < end) {
		if (d->nsyms == BLOCK_SYMBOLS) {
			flush_block(d, &b, base + block_start, pos - block_start, false);
			block_start = pos;
		}
		if (pos + 8 <= end) {
			/* An empty slot holds 0: position 0 is real input, and any
			 * candidate is checked against the bytes. */
			uint32_t h = hash_at(base + pos);
			size_t cand = d->head[h], dist = pos - cand;
			d->head[h] = (uint32_t)pos;
			if (dist - 1 < WINDOW && load32(base + cand) == load32(base + pos)) {
				size_t limit = end - pos < MAX_MATCH ? end - pos : MAX_MATCH;
				size_t n = match_length(base + pos, base + cand, limit);
				d->syms[d->nsyms++] = (symbol)(n << 16 | (dist - 1));
				unsigned eb, ex;
				d->litlen_freq[length_code((unsigned)n, &eb, &ex)]++;
				d->dist_freq[dist_code((unsigned)dist, &eb, &ex)]++;
				pos += n;
				continue;
			}
		}
		d->syms[d->nsyms++] = base[pos];
		d->litlen_freq[base[pos]]++;
		pos++;
	}
	if (d->nsyms || last)
		flush_block(d, &b, base + block_start, pos - block_start, last);
	if (last) {
		align(&b);
	} else {
		/* A sync flush, as zlib's Z_SYNC_FLUSH: an empty stored block. */
		put(&b, 0, 3);
		align(&b);
		memcpy(b.out, "\0\0\xff\xff", 4);
		b.out += 4;
	}
	size_t written = (size_t)(b.out - out);
	assert(written + 8 <= cg_deflate_bound(len));
	return written;
}
