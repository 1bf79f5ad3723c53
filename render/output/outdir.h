/* The output folder, written completely or not at all.
 *
 * Files are written into a new temporary folder beside the target and the
 * folder is renamed into place at the end; on failure the temporary folder
 * is removed and the target is left exactly as it was.
 *
 *     cg_outdir *od;
 *     if (cg_outdir_begin(&od, "out", false, &err) < 0) ...;
 *     char *p = cg_outdir_path(od, "summary.json");   // write the file at p
 *     ...
 *     if (failed) cg_outdir_abort(od); else rc = cg_outdir_commit(od, &err);
 *
 * A target holding files cgmem did not write is refused unless force is
 * set; a target that is a symbolic link or a file is always refused. */
#ifndef CG_OUTDIR_H
#define CG_OUTDIR_H

#include <stdbool.h>

#include "error.h"

typedef struct cg_outdir cg_outdir;

/* The name of the manifest cgmem leaves in every folder it writes. */
#define CG_OUTDIR_MANIFEST ".cgmem-manifest"

int cg_outdir_begin(cg_outdir **out, const char *path, bool force, cg_error *err);
/* Path of file `name` inside the temporary folder (caller frees); the name
 * is recorded in the manifest. */
char *cg_outdir_path(cg_outdir *od, const char *name);
/* The temporary folder files are written into (borrowed). */
const char *cg_outdir_dir(const cg_outdir *od);
/* Moves the folder into place; frees od. */
int cg_outdir_commit(cg_outdir *od, cg_error *err);
/* Removes the temporary folder; frees od. NULL is a no-op. */
void cg_outdir_abort(cg_outdir *od);

/* Removes a folder and everything in it, without following symbolic links. */
int cg_remove_tree(const char *path);

#endif
