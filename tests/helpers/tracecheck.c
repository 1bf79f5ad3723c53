#include "tracecheck.h"

#include <stdlib.h>
#include <string.h>

double tu_event_num(cJSON *e, const char *k)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(e, k);
	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

const char *tu_event_str(cJSON *e, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, k));
}

typedef struct xev {
	double start, end, tid;
	const char *name, *id, *parent;
} xev;

static int cmp_xev(const void *a, const void *b)
{
	const xev *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

void tu_assert_properly_nested(cJSON *events)
{
	size_t n = 0, cap = 1024;
	xev *x = malloc(cap * sizeof *x);
	cJSON *e;
	cJSON_ArrayForEach(e, events)
	{
		if (strcmp(tu_event_str(e, "ph"), "X") != 0)
			continue;
		if (n == cap)
			x = realloc(x, (cap *= 2) * sizeof *x);
		cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
		double st = tu_event_num(e, "ts");
		x[n++] = (xev){st, st + tu_event_num(e, "dur"), tu_event_num(e, "tid"), tu_event_str(e, "name"), tu_event_str(args, "span_id"),
			       tu_event_str(args, "parent_id")};
	}
	qsort(x, n, sizeof *x, cmp_xev);
	/* per thread, a stack of open slices: each new one must fit in the top */
	size_t *stack = malloc((n + 1) * sizeof *stack), depth = 0;
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && x[i].tid != x[i - 1].tid)
			depth = 0;
		/* ts + dur in doubles may land a hair past the next slice's ts: the
		 * same slack as the overlap check below */
		while (depth && x[stack[depth - 1]].end <= x[i].start + 1e-9 && x[stack[depth - 1]].end < x[i].end)
			depth--;
		if (depth && x[i].end > x[stack[depth - 1]].end + 1e-9)
			fail_msg("%s [%f,%f] overlaps %s [%f,%f] on tid %g", x[i].name, x[i].start, x[i].end,
				 x[stack[depth - 1]].name, x[stack[depth - 1]].start, x[stack[depth - 1]].end, x[i].tid);
		stack[depth++] = i;
	}
	for (size_t i = 0; i < n; i++) {
		if (!x[i].parent)
			continue;
		size_t found = 0;
		for (size_t k = 0; k < n; k++) {
			if (x[k].id && strcmp(x[k].id, x[i].parent) == 0) {
				assert_true(x[k].start <= x[i].start && x[i].end <= x[k].end + 1e-9);
				found++;
			}
		}
		assert_int_equal(found, 1);
	}
	free(stack);
	free(x);
}
