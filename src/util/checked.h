/* Overflow-checked arithmetic for sizes that come from untrusted traces.
 * Each returns true when the result fits (as libgit2's integer.h). */
#ifndef CG_CHECKED_H
#define CG_CHECKED_H

#include <stdbool.h>
#include <stdint.h>

static inline bool cg_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	return !__builtin_add_overflow(a, b, out);
}

static inline bool cg_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	return !__builtin_mul_overflow(a, b, out);
}

static inline bool cg_add_size(size_t a, size_t b, size_t *out)
{
	return !__builtin_add_overflow(a, b, out);
}

static inline bool cg_mul_size(size_t a, size_t b, size_t *out)
{
	return !__builtin_mul_overflow(a, b, out);
}

#endif
