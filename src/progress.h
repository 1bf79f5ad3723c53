/* A one-line progress display on stderr while a large file is read. */
#ifndef CG_PROGRESS_H
#define CG_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct cg_progress {
	FILE *out; /* NULL: silent */
	const char *name;
	uint64_t total; /* bytes, 0 when not known */
	double start, last;
	bool shown;
} cg_progress;

/* Starts a display on out, or a silent one when out is NULL. */
void cg_progress_start(cg_progress *p, FILE *out, const char *name, uint64_t total);
/* Redraws at most a few times a second. */
void cg_progress_update(cg_progress *p, uint64_t done);
/* Erases the line. */
void cg_progress_finish(cg_progress *p);

/* Seconds on a monotonic clock. */
double cg_now(void);

#endif
