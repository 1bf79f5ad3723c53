/* Kineto ranges nested deep: the operator of each memory event is found in
 * time proportional to the trace, not to nesting depth x events. Two sizes
 * in one run, CPU time compared: 4 times the depth and 4 times the events
 * (16 times depth x events) must cost well under 8 times the time. */
#include "ingestutil.h"

#include <string.h>
#include <time.h>

#include "ingest.h"
#include "timeline.h"
#include "xalloc.h"

/* An operator around depth nested user_annotation ranges, and events
 * allocations inside the innermost one: each event's operator is the
 * outermost range. Range i starts at i us and ends at end - i, strictly
 * inside range i - 1. */
static char *nested_trace(unsigned depth, unsigned events)
{
	size_t cap = ((size_t)depth + events) * 260 + 256, n = 0;
	char *t = cg_malloc(cap);
	unsigned end = 2 * depth + events + 10;
	n += (size_t)snprintf(t + n, cap - n,
			      "{\"traceEvents\": [\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::outer\","
			      "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":%u}",
			      end + 1);
	for (unsigned i = 1; i <= depth; i++)
		n += (size_t)snprintf(t + n, cap - n,
				      ",\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"r%u\",\"pid\":1,\"tid\":1,"
				      "\"ts\":%u,\"dur\":%u}",
				      i, i, end - 2 * i);
	for (unsigned j = 0; j < events; j++)
		n += (size_t)snprintf(t + n, cap - n,
				      ",\n{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\","
				      "\"pid\":1,\"tid\":1,\"ts\":%u,\"args\":{\"Device Type\":1,\"Device Id\":0,"
				      "\"Addr\":%u,\"Bytes\":8,\"Total Allocated\":%u,\"Total Reserved\":0}}",
				      depth + 1 + j, 4096 + 8 * j, 8 * (j + 1));
	n += (size_t)snprintf(t + n, cap - n, "\n]}\n");
	assert_true(n < cap);
	return t;
}

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads the trace (the best of three runs, against a loaded machine) and
 * checks that every event's operator is the outermost range. */
static double time_ingest(unsigned depth, unsigned events)
{
	char *text = nested_trace(depth, events);
	char name[64];
	snprintf(name, sizeof name, "nested-%u.json", depth);
	const char *path = tu_write(name, text, (size_t)-1);
	cg_free(text);
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	o.threads = 1;
	double best = 1e30;
	for (int run = 0; run < 3; run++) {
		cg_timeline *tl = NULL;
		cg_error err = CG_ERROR_INIT;
		double t0 = cpu_seconds();
		int rc = cg_ingest(&tl, path, &o, &err);
		double t = cpu_seconds() - t0;
		if (rc != 0)
			fail_msg("ingest failed: %s", err.msg);
		assert_int_equal(tl->nmem, events);
		for (uint32_t i = 0; i < tl->nmem; i++)
			assert_string_equal(cg_timeline_str(tl, cg_timeline_mem_op(tl, &tl->mem[i])), "aten::outer");
		cg_timeline_free(tl);
		if (t < best)
			best = t;
	}
	return best;
}

static void nesting_depth_times_events_costs_time_in_proportion_to_the_trace(void **state)
{
	(void)state;
	double small = time_ingest(4000, 12000);
	double large = time_ingest(16000, 48000);
	print_message("depth 4000 x 12000 events: %.3f s; depth 16000 x 48000 events: %.3f s (x%.1f)\n", small,
		      large, large / small);
	/* Linear: x4 (a little more with the sorts); depth x events: x16. */
	if (large > 8 * small)
		fail_msg("4 times the trace took %.1f times the time", large / small);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nesting_depth_times_events_costs_time_in_proportion_to_the_trace),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
