/* A temporary folder of the fuzzing process's own (/tmp/cgmem-fuzz-XXXXXX),
 * made on first use and removed with everything in it when the process
 * exits, for targets that write output folders. */
#ifndef CG_FUZZ_TMPDIR_H
#define CG_FUZZ_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>

#include "outdir.h"

static char fuzz_tmpdir_path[64];

static void fuzz_tmpdir_remove(void)
{
	if (fuzz_tmpdir_path[0])
		cg_remove_tree(fuzz_tmpdir_path);
}

/* The folder (borrowed); exits when none can be made. */
static const char *fuzz_tmpdir(void)
{
	if (!fuzz_tmpdir_path[0]) {
		snprintf(fuzz_tmpdir_path, sizeof fuzz_tmpdir_path, "/tmp/cgmem-fuzz-XXXXXX");
		if (!mkdtemp(fuzz_tmpdir_path)) {
			perror("fuzz: mkdtemp");
			exit(1);
		}
		atexit(fuzz_tmpdir_remove);
	}
	return fuzz_tmpdir_path;
}

#endif
