/* Copying a report folder into another (cgmem merge puts each rank's own
 * report into ranks/N/ as cgmem report does). */
#ifndef CG_COPYTREE_H
#define CG_COPYTREE_H

#include "error.h"

/* Copies the folder `from` to `to` (which must not exist): folders and
 * regular files only, at most 8 levels deep; anything else (a symbolic
 * link, a device) is CG_EINPUT naming it, as a report cgmem wrote has
 * none. On error `to` may be partly written (it is inside a temporary
 * output folder). */
int cg_copy_tree(const char *from, const char *to, cg_error *err);

#endif
