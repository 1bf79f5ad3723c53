#include "ranks.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

typedef struct valued {
	int64_t v;
	cg_rank_ref at;
	size_t order; /* the row's place, so that sorting is stable */
} valued;

static int by_value(const void *pa, const void *pb)
{
	const valued *a = pa, *b = pb;
	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* The spread of v[0..n) (in row order). */
static cg_ranks_spread spread(valued *v, size_t n)
{
	cg_ranks_spread s = {0};
	if (n == 0)
		return s;
	s.count = n;
	s.max_bytes = s.min_bytes = v[0].v;
	s.max_at = s.min_at = v[0].at;
	for (size_t i = 1; i < n; i++) {
		if (v[i].v > s.max_bytes) {
			s.max_bytes = v[i].v;
			s.max_at = v[i].at;
		}
		if (v[i].v < s.min_bytes) {
			s.min_bytes = v[i].v;
			s.min_at = v[i].at;
		}
	}
	qsort(v, n, sizeof *v, by_value);
	s.median_bytes = v[(n - 1) / 2].v;
	s.max_over_median = s.median_bytes > 0 ? (double)s.max_bytes / (double)s.median_bytes : 0;
	return s;
}

static int cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return (a > b) - (a < b);
}

static void world(cg_ranks_result *r, const cg_rankset *s)
{
	for (size_t i = 0; i < s->n; i++) {
		if (!s->ranks[i].has_world_size)
			continue;
		int64_t w = s->ranks[i].world_size;
		if (r->world_known && w != r->world_size)
			r->world_disagrees = true;
		if (!r->world_known || w > r->world_size)
			r->world_size = w;
		r->world_known = true;
	}
	if (!r->world_known || r->world_size <= 0)
		return;
	/* s is sorted by rank: walk it beside 0 .. world_size - 1 */
	size_t i = 0;
	for (int64_t k = 0; k < r->world_size; k++) {
		while (i < s->n && s->ranks[i].rank < k)
			i++;
		if (i == s->n || s->ranks[i].rank != k) {
			r->missing = cg_realloc(r->missing, (r->nmissing + 1) * sizeof *r->missing);
			r->missing[r->nmissing++] = k;
		}
	}
	for (size_t j = 0; j < s->n; j++)
		if (s->ranks[j].rank >= r->world_size) {
			r->beyond = cg_realloc(r->beyond, (r->nbeyond + 1) * sizeof *r->beyond);
			r->beyond[r->nbeyond++] = s->ranks[j].rank;
		}
}

void cg_ranks_run(cg_ranks_result **out, const cg_rankset *s)
{
	cg_ranks_result *r = cg_calloc(1, sizeof *r);
	size_t rows = 0;
	for (size_t i = 0; i < s->n; i++)
		rows += s->ranks[i].ndevices;
	r->nrows = rows;
	valued *v = cg_malloc((rows ? rows : 1) * sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		for (size_t d = 0; d < s->ranks[i].ndevices; d++, n++)
			v[n] = (valued){s->ranks[i].devices[d].peak_bytes, {i, d}, n};
	r->peak = spread(v, n);
	/* outliers, by the median absolute deviation */
	valued *dev = cg_malloc((rows ? rows : 1) * sizeof *dev);
	for (size_t k = 0; k < n; k++) {
		int64_t x = v[k].v - r->peak.median_bytes;
		dev[k] = (valued){x < 0 ? -x : x, v[k].at, v[k].order};
	}
	if (n > 0) {
		qsort(dev, n, sizeof *dev, by_value);
		r->mad_bytes = dev[(n - 1) / 2].v;
	}
	/* in row order: by rank, then device */
	for (size_t i = 0, k = 0; i < s->n; i++)
		for (size_t d = 0; d < s->ranks[i].ndevices; d++, k++) {
			int64_t x = s->ranks[i].devices[d].peak_bytes - r->peak.median_bytes;
			x = x < 0 ? -x : x;
			if (x > CG_RANKS_OUTLIER_MADS * r->mad_bytes &&
			    (double)x > CG_RANKS_OUTLIER_SHARE * (double)r->peak.median_bytes) {
				r->outliers = cg_realloc(r->outliers, (r->noutliers + 1) * sizeof *r->outliers);
				r->outliers[r->noutliers++] = (cg_rank_ref){i, d};
			}
		}
	cg_free(dev);
	for (int p = 0; p < CG_PHASE_COUNT; p++) {
		n = 0;
		for (size_t i = 0, k = 0; i < s->n; i++)
			for (size_t d = 0; d < s->ranks[i].ndevices; d++, k++)
				if (s->ranks[i].devices[d].has_phase[p])
					v[n++] = (valued){s->ranks[i].devices[d].phase_peak[p], {i, d}, k};
		r->phase[p] = spread(v, n);
	}
	cg_free(v);
	for (size_t i = 0; i < s->n; i++) {
		if (!s->ranks[i].has_wall)
			continue;
		r->nwall++;
		if (!r->has_first_stop || s->ranks[i].stop_unix_ns < s->ranks[r->first_stop].stop_unix_ns) {
			r->has_first_stop = true;
			r->first_stop = i;
		}
	}
	world(r, s);
	if (r->nmissing > 1)
		qsort(r->missing, r->nmissing, sizeof *r->missing, cmp_i64);
	*out = r;
}

void cg_ranks_free(cg_ranks_result *r)
{
	if (!r)
		return;
	cg_free(r->missing);
	cg_free(r->beyond);
	cg_free(r->outliers);
	cg_free(r);
}
