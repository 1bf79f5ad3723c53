#include "decimal.h"

#include <string.h>

static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				  "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
				  "8081828384858687888990919293949596979899";

/* Two digits a division, written backwards into a scratch buffer. */
char *cg_u64_decimal(char *p, uint64_t v)
{
	char tmp[CG_U64_DECIMAL_MAX];
	size_t i = sizeof tmp;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		i -= 2;
		memcpy(tmp + i, digit_pairs + 2 * r, 2);
	}
	if (v >= 10) {
		i -= 2;
		memcpy(tmp + i, digit_pairs + 2 * v, 2);
	} else {
		tmp[--i] = (char)('0' + v);
	}
	memcpy(p, tmp + i, sizeof tmp - i);
	return p + sizeof tmp - i;
}
