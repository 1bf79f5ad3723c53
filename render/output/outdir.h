/* The output folder, written completely or not at all.
 *
 * Files are written into a new temporary folder beside the target and the
 * folder is renamed into place at the end; on failure the temporary folder
 * is removed and the target is left exactly as it was.
 *
 *     cg_outdir *od;
 *     if (cg_outdir_begin(&od, "out", false, &err) < 0) ...;
 *     char *p;
 *     if (cg_outdir_file(od, "summary.json", &p, &err) < 0) ...;  // write the file at p
 *     ...
 *     if (failed) cg_outdir_abort(od); else rc = cg_outdir_commit(od, &err);
 *
 * A target holding files cgmem did not write is refused unless force is
 * set; a target that is a symbolic link or a file is always refused.
 *
 * The temporary folder is ".cgmem-tmp-<tag>-XXXXXX" in the target's parent
 * (34 bytes whatever the target's name; the tag is a hash of the target's
 * name), locked with flock for as long as its run owns it. begin removes
 * the temporary folders of the same target that no live run holds (left by
 * a run that was killed), and the folder of this run is removed on every
 * exit the process controls: abort, exit() (out of memory) and, in a
 * program that called cg_outdir_catch_signals, SIGINT, SIGTERM and SIGHUP. */
#ifndef CG_OUTDIR_H
#define CG_OUTDIR_H

#include <stdbool.h>

#include "error.h"

typedef struct cg_outdir cg_outdir;

/* The name of the manifest cgmem leaves in every folder it writes. */
#define CG_OUTDIR_MANIFEST ".cgmem-manifest"

int cg_outdir_begin(cg_outdir **out, const char *path, bool force, cg_error *err);
/* *path: file `name` inside the temporary folder (caller frees); the name
 * is recorded in the manifest. A name already handed out (or the
 * manifest's) is refused: CG_EUSAGE naming it, *path NULL, since two
 * outputs would overwrite each other. */
int cg_outdir_file(cg_outdir *od, const char *name, char **path, cg_error *err);
/* The path file `name` will have inside the temporary folder (caller
 * frees), without recording the name: for a file written ahead of its
 * turn, on another thread, and taken with cg_outdir_file in its place in
 * the manifest's order. */
char *cg_outdir_tmp_path(const cg_outdir *od, const char *name);
/* cg_outdir_file without the message: the path, or NULL when refused. */
char *cg_outdir_path(cg_outdir *od, const char *name);
/* The temporary folder files are written into (borrowed). */
const char *cg_outdir_dir(const cg_outdir *od);
/* Moves the folder into place; frees od. */
int cg_outdir_commit(cg_outdir *od, cg_error *err);
/* Removes the temporary folder; frees od. NULL is a no-op. */
void cg_outdir_abort(cg_outdir *od);

/* For programs: removes the temporary folders on SIGINT, SIGTERM and
 * SIGHUP before ending by the signal, and ignores SIGXFSZ so that a file
 * over the size limit is a write error (EFBIG) that aborts the folder. */
void cg_outdir_catch_signals(void);

/* Removes a folder and everything in it, without following symbolic links. */
int cg_remove_tree(const char *path);

#endif
