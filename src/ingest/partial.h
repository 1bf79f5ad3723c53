/* Partial results of a distributed job's ranks (docs/ranks.md): a rank's
 * summary.json (what `cgmem summary FILE --json` prints), or a ranks
 * document (what `cgmem merge --json` prints: summary.json with a "ranks"
 * section) read into a cg_rankset, and the rules that give a rank its
 * number when the trace does not say.
 *
 *     cg_rankset s = {0};
 *     if (cg_partial_load(&s, "part3.json", NULL, &err) < 0) ...;
 *     if (cg_rankset_sort(&s, &err) < 0) ...;   // two files, one rank
 *     cg_rankset_clear(&s);
 */
#ifndef CG_PARTIAL_H
#define CG_PARTIAL_H

#include <regex.h>
#include <stddef.h>

#include "rankset.h"

/* The rank in a file name (its folder is ignored), by the rules of
 * docs/ranks.md: re's first group (or whole match) when re is given and
 * matches, else "rank" (any case) with an optional - or _ and digits, else
 * a trailing _N before the first '.'. Returns true and sets *rank and
 * *from, or false. */
bool cg_rank_from_file_name(const char *name, const regex_t *re, int64_t *rank, cg_rank_from *from);

/* Compiles --rank-from's REGEX (POSIX extended). CG_EUSAGE naming the
 * problem when it is not one. regfree it. */
int cg_rank_regex_compile(regex_t *re, const char *pattern, cg_error *err);

/* Reads the partial in text[0..n) (name is for messages) and appends its
 * rows to s, unsorted. A summary.json gives one row, its rank from
 * run.rank, else from the trace's file name (source.path; re as above);
 * a ranks document gives its rows. CG_EINPUT with "NAME: problem" when the
 * text is not a partial or its rank cannot be found. */
int cg_partial_read(cg_rankset *s, const char *text, size_t n, const char *name, const regex_t *re, cg_error *err);
/* cg_partial_read of a file; CG_EIO when it cannot be read. */
int cg_partial_load(cg_rankset *s, const char *path, const regex_t *re, cg_error *err);

#endif
