/* Unsigned integers in decimal without printf, for writers that emit
 * hundreds of thousands of numbers (summary.json, the Chrome trace). */
#ifndef CG_DECIMAL_H
#define CG_DECIMAL_H

#include <stdint.h>

/* The longest uint64_t in decimal: 18446744073709551615. */
#define CG_U64_DECIMAL_MAX 20

/* v as "%" PRIu64 writes it, at p (room for CG_U64_DECIMAL_MAX bytes, no
 * NUL written); returns the end. */
char *cg_u64_decimal(char *p, uint64_t v);

#endif
