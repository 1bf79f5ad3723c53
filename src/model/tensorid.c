#include "tensorid.h"

/* A packed id: the top bit, 2 bits of layout, then the address shifted
 * right by the layout's alignment and the decimal in the bits left. */
#define ADDR_BITS 47
#define LAYOUT_SHIFT 61
static const unsigned align_bits[4] = {0, 6, 9, 12};

static unsigned seq_bits(unsigned layout)
{
	return LAYOUT_SHIFT - (ADDR_BITS - align_bits[layout]);
}

/* Without a branch per digit: hex digits and letters come in no order a
 * predictor could learn, and millions of ids pass here. */
bool cg_tensor_id_pack(const char *s, size_t n, cg_tensor_id *out)
{
	size_t h = 0, most = n < 13 ? n : 13;
	while (h < most && s[h] != '#')
		h++;
	if (h == most)
		return false;
	const char *hash = s + h;
	size_t digits = n - h - 1;
	/* 1-12 hex digits and 1-8 decimal ones, neither with a leading 0 */
	if (h == 0 || digits - 1 >= 8 || (h > 1 && s[0] == '0') || (digits > 1 && hash[1] == '0'))
		return false;
	uint64_t addr = 0, seq = 0;
	unsigned bad = 0;
	for (size_t i = 0; i < h; i++) {
		unsigned c = (unsigned char)s[i];
		bad |= (c - '0' > 9) & (c - 'a' > 5);
		addr = addr << 4 | ((c & 15) + 9 * (c >> 6)); /* '0'-'9': 0-9, 'a'-'f': 10-15 */
	}
	for (size_t i = 0; i < digits; i++) {
		unsigned d = (unsigned char)hash[1 + i] - '0';
		bad |= d > 9;
		seq = seq * 10 + d;
	}
	if (bad || addr >> ADDR_BITS)
		return false;
	/* the most alignment the address has: each spelling has one layout */
	unsigned layout = 3;
	while (layout > 0 && addr & ((UINT64_C(1) << align_bits[layout]) - 1))
		layout--;
	if (seq >> seq_bits(layout))
		return false;
	out->v = CG_TENSOR_ID_PACKED | (uint64_t)layout << LAYOUT_SHIFT |
		 (addr >> align_bits[layout]) << seq_bits(layout) | seq;
	return true;
}

size_t cg_tensor_id_format(cg_tensor_id t, char buf[CG_TENSOR_ID_BUF])
{
	static const char hex[] = "0123456789abcdef";
	unsigned layout = (unsigned)(t.v >> LAYOUT_SHIFT & 3), bits = seq_bits(layout);
	uint64_t seq = t.v & ((UINT64_C(1) << bits) - 1);
	uint64_t addr = (t.v & ((UINT64_C(1) << LAYOUT_SHIFT) - 1)) >> bits << align_bits[layout];
	char tmp[CG_TENSOR_ID_BUF];
	size_t n = 0, k = 0;
	do
		tmp[k++] = hex[addr & 15];
	while (addr >>= 4);
	while (k)
		buf[n++] = tmp[--k];
	buf[n++] = '#';
	do
		tmp[k++] = (char)('0' + seq % 10);
	while (seq /= 10);
	while (k)
		buf[n++] = tmp[--k];
	buf[n] = '\0';
	return n;
}
