/* A file mapped for reading can be cut short by another process while it
 * is read: its pages past the new end then raise SIGBUS, which would kill
 * the process. In a guarded range the pages past the file's end (and a
 * page that cannot be read) are replaced by zeros instead, and the guard
 * remembers it, so that the reader can say the file changed.
 *
 *     int g = cg_mapguard_add(map, len, fd);  // -1: not guarded (no slot)
 *     ...read the pages...
 *     if (cg_mapguard_hit(g)) ...the file was cut while it was read...
 *     cg_mapguard_remove(g);               // before munmap
 *
 * Faults outside every guarded range go to the handler that was there
 * before (the default: the process ends, as without the guard). */
#ifndef CG_MAPGUARD_H
#define CG_MAPGUARD_H

#include <stdbool.h>
#include <stddef.h>

/* start: the page-aligned start of a mapping of fd from offset 0. */
int cg_mapguard_add(const void *start, size_t len, int fd);
bool cg_mapguard_hit(int guard);
void cg_mapguard_remove(int guard);

#endif
