#include "progress.h"

#include <string.h>
#include <time.h>

#include "termtext.h"

double cg_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cg_progress_line_init(cg_progress_line *p, FILE *out, const char *name)
{
	*p = (cg_progress_line){.out = out, .start = cg_now()};
	p->last = p->start;
	cg_termtext_escape(p->name, sizeof p->name, name, strlen(name));
}

static void draw(cg_progress_line *p, uint64_t done, uint64_t total)
{
	double now = cg_now();
	if (now - p->last < 0.25)
		return;
	p->last = now;
	double mib = (double)done / (1024.0 * 1024.0);
	double rate = (double)done / 1e6 / (now - p->start);
	if (total)
		fprintf(p->out, "\r\033[Kreading %s: %.1f of %.1f MiB (%.0f%%), %.0f MB/s", p->name, mib,
			(double)total / (1024.0 * 1024.0), 100.0 * (double)done / (double)total, rate);
	else
		fprintf(p->out, "\r\033[Kreading %s: %.1f MiB, %.0f MB/s", p->name, mib, rate);
	fflush(p->out);
	p->shown = true;
}

void cg_progress_line_draw(void *ctx, uint64_t bytes_read, uint64_t file_bytes, bool done)
{
	cg_progress_line *p = ctx;
	if (!p->out)
		return;
	if (!done) {
		draw(p, bytes_read, file_bytes);
		return;
	}
	cg_progress_line_end(p);
}

void cg_progress_line_stage(cg_progress_line *p, const char *what)
{
	if (!p->out)
		return;
	fprintf(p->out, "\r\033[K%s...", what);
	fflush(p->out);
	p->shown = true;
}

void cg_progress_line_end(cg_progress_line *p)
{
	if (p->out && p->shown) {
		fprintf(p->out, "\r\033[K");
		fflush(p->out);
	}
	p->shown = false;
}
