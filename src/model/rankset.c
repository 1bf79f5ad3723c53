#include "rankset.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "xalloc.h"

cg_rank *cg_rankset_add(cg_rankset *s)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->ranks = cg_realloc(s->ranks, s->cap * sizeof *s->ranks);
	}
	cg_rank *r = &s->ranks[s->n++];
	memset(r, 0, sizeof *r);
	return r;
}

cg_rank_device *cg_rank_add_device(cg_rank *r)
{
	r->devices = cg_realloc(r->devices, (r->ndevices + 1) * sizeof *r->devices);
	cg_rank_device *d = &r->devices[r->ndevices++];
	memset(d, 0, sizeof *d);
	return d;
}

static void rank_free(cg_rank *r)
{
	for (size_t i = 0; i < r->ndevices; i++) {
		cg_free(r->devices[i].name);
		cg_free(r->devices[i].step);
		cg_free(r->devices[i].phase);
		cg_free(r->devices[i].series);
	}
	cg_free(r->devices);
	cg_free(r->file);
	cg_free(r->format);
}

void cg_rankset_clear(cg_rankset *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		rank_free(&s->ranks[i]);
	cg_free(s->ranks);
	memset(s, 0, sizeof *s);
}

/* By rank, then by file name, so that the order of equal ranks (an error,
 * but reported) is the same whatever the input order. */
static int by_rank(const void *pa, const void *pb)
{
	const cg_rank *a = pa, *b = pb;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return strcmp(a->file ? a->file : "", b->file ? b->file : "");
}

static int claimed_twice(const cg_rank *a, const cg_rank *b, cg_error *err)
{
	return cg_error_set(err, CG_EINPUT, "rank %" PRId64 " is claimed by two files: %s (from %s) and %s (from %s)",
			    a->rank, a->file, cg_rank_from_name(a->from), b->file, cg_rank_from_name(b->from));
}

static bool is_cpu(const char *name)
{
	return name && strncasecmp(name, "cpu", 3) == 0;
}

/* A rank's accelerators before its CPUs, each in the trace's order, as
 * every report shows devices (a PyTorch trace meets "cpu" first). */
static void accelerators_first(cg_rank *r)
{
	if (r->ndevices < 2)
		return;
	cg_rank_device *order = cg_reallocarray(NULL, r->ndevices, sizeof *order);
	size_t k = 0;
	for (int cpu = 0; cpu < 2; cpu++)
		for (size_t d = 0; d < r->ndevices; d++)
			if (is_cpu(r->devices[d].name) == (cpu == 1))
				order[k++] = r->devices[d];
	memcpy(r->devices, order, r->ndevices * sizeof *order);
	cg_free(order);
}

int cg_rankset_sort(cg_rankset *s, cg_error *err)
{
	if (s->n > 1)
		qsort(s->ranks, s->n, sizeof *s->ranks, by_rank);
	for (size_t i = 0; i < s->n; i++)
		accelerators_first(&s->ranks[i]);
	for (size_t i = 1; i < s->n; i++)
		if (s->ranks[i - 1].rank == s->ranks[i].rank)
			return claimed_twice(&s->ranks[i - 1], &s->ranks[i], err);
	return 0;
}

int cg_rankset_check_last(const cg_rankset *s, cg_error *err)
{
	for (size_t i = 0; i + 1 < s->n; i++)
		if (s->ranks[i].rank == s->ranks[s->n - 1].rank)
			return claimed_twice(&s->ranks[i], &s->ranks[s->n - 1], err);
	return 0;
}

int cg_rankset_merge(cg_rankset *into, cg_rankset *from, cg_error *err)
{
	for (size_t i = 0; i < from->n; i++)
		*cg_rankset_add(into) = from->ranks[i];
	cg_free(from->ranks);
	memset(from, 0, sizeof *from);
	return cg_rankset_sort(into, err);
}

static const char *const from_names[CG_RANK_FROM_COUNT] = {"distributedInfo.rank", "--rank-from on its name", "its file name"};
static const char *const from_keys[CG_RANK_FROM_COUNT] = {"distributed_info", "regex", "file_name"};
static const char *const stop_keys[CG_RANK_STOP_COUNT] = {"end", "oom", "cut"};

const char *cg_rank_from_name(cg_rank_from f)
{
	return f < CG_RANK_FROM_COUNT ? from_names[f] : "?";
}

const char *cg_rank_from_key(cg_rank_from f)
{
	return f < CG_RANK_FROM_COUNT ? from_keys[f] : "?";
}

bool cg_rank_from_parse(const char *s, cg_rank_from *out)
{
	for (int k = 0; k < CG_RANK_FROM_COUNT; k++)
		if (strcmp(s, from_keys[k]) == 0) {
			*out = (cg_rank_from)k;
			return true;
		}
	return false;
}

const char *cg_rank_stop_key(cg_rank_stop s)
{
	return s < CG_RANK_STOP_COUNT ? stop_keys[s] : "?";
}

bool cg_rank_stop_parse(const char *s, cg_rank_stop *out)
{
	for (int k = 0; k < CG_RANK_STOP_COUNT; k++)
		if (strcmp(s, stop_keys[k]) == 0) {
			*out = (cg_rank_stop)k;
			return true;
		}
	return false;
}
