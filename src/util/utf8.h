/* UTF-8 validation for trace lines, which must be valid UTF-8 without NUL bytes. */
#ifndef CG_UTF8_H
#define CG_UTF8_H

#include <stddef.h>

typedef enum cg_utf8_status { CG_UTF8_OK, CG_UTF8_NUL, CG_UTF8_INVALID } cg_utf8_status;

/* Checks s[0..n); on failure *offset is the byte offset of the problem. */
cg_utf8_status cg_utf8_check(const char *s, size_t n, size_t *offset);

/* Length of the longest prefix of s[0..n) not longer than max bytes that
 * does not cut a multi-byte character (s must be valid UTF-8). */
size_t cg_utf8_prefix(const char *s, size_t n, size_t max);

#endif
