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

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

bool cg_tensor_id_pack(const char *s, size_t n, cg_tensor_id *out)
{
	size_t i = 0;
	uint64_t addr = 0, seq = 0;
	/* at most 12 digits; the first not a 0 unless it is all */
	for (; i < n && i <= 12 && s[i] != '#'; i++) {
		int d = hex_digit(s[i]);
		if (d < 0 || (i == 1 && s[0] == '0'))
			return false;
		addr = addr << 4 | (uint64_t)d;
	}
	if (i == 0 || i > 12 || i == n || addr >> ADDR_BITS)
		return false;
	size_t from = ++i;
	for (; i < n && i - from < 8; i++) {
		if (s[i] < '0' || s[i] > '9' || (i == from + 1 && s[from] == '0'))
			return false;
		seq = seq * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == from || i != n)
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
