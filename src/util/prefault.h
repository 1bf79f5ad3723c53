/* Pages of large growing arrays made present ahead of their writer, on a
 * thread of its own. Writing to fresh memory takes page faults, and on a
 * virtual machine whose host hands memory back between runs they cost
 * about 1.8 s a GB, on the writer's critical path. The second CPU, idle
 * while a file is parsed, takes them instead (MADV_POPULATE_WRITE faults
 * pages in without touching their contents, so it never races with the
 * writer).
 *
 *     cg_prefault *pf = cg_prefault_start();       // NULL: nothing to do
 *     cg_prefault_region(pf, 0, array, cap * sizeof *array);
 *     ... append; now and then cg_prefault_used(pf, 0, n * sizeof *array);
 *     cg_prefault_region(pf, 0, NULL, 0);           // before the array moves or goes
 *     cg_prefault_stop(pf);
 *
 * Every call accepts pf == NULL. At most CG_PREFAULT_AHEAD bytes past the
 * used part of a region are made present, so what is never written costs
 * little. */
#ifndef CG_PREFAULT_H
#define CG_PREFAULT_H

#include <stddef.h>

#define CG_PREFAULT_REGIONS 4
#define CG_PREFAULT_AHEAD   ((size_t)32 << 20)

typedef struct cg_prefault cg_prefault;

/* The thread, or NULL with one usable CPU or where the kernel cannot
 * populate pages (before Linux 5.14). */
cg_prefault *cg_prefault_start(void);
/* Region k is base[0 .. len) (NULL: none); its used part starts empty.
 * Returns once the thread no longer works on the region k was before. */
void cg_prefault_region(cg_prefault *pf, unsigned k, void *base, size_t len);
/* The bytes of region k written so far (or about to be). */
void cg_prefault_used(cg_prefault *pf, unsigned k, size_t used);
/* Stops and frees the thread. */
void cg_prefault_stop(cg_prefault *pf);

#endif
