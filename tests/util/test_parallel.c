/* Parallel loops and tasks: every job runs exactly once, whatever the
 * number of threads; results never depend on the threads. */
#include "testutil.h"

#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "parallel.h"

#define MAX_N 5000

typedef struct runs {
	atomic_int count[MAX_N];
	pthread_t thread[MAX_N];
	atomic_size_t calls;
} runs;

static void count_job(void *ctx, size_t i)
{
	runs *r = ctx;
	atomic_fetch_add(&r->count[i], 1);
	atomic_fetch_add(&r->calls, 1);
	r->thread[i] = pthread_self();
}

static runs *run_loop(size_t n, unsigned threads)
{
	runs *r = calloc(1, sizeof *r);
	for (size_t i = 0; i < MAX_N; i++)
		atomic_init(&r->count[i], 0);
	atomic_init(&r->calls, 0);
	cg_parallel_for(n, threads, count_job, r);
	return r;
}

static void every_index_runs_exactly_once_for_any_n_and_threads(void **state)
{
	const size_t ns[] = {0, 1, 2, 7, 64, 1000, MAX_N};
	/* 0: one per core; 1: the caller alone; 200: more than n for most n and
	 * more than the 64 threads cg_parallel_for starts at most */
	const unsigned threads[] = {0, 1, 2, 3, 8, 200};
	for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
		for (size_t b = 0; b < sizeof threads / sizeof threads[0]; b++) {
			runs *r = run_loop(ns[a], threads[b]);
			assert_int_equal(atomic_load(&r->calls), ns[a]);
			for (size_t i = 0; i < MAX_N; i++)
				if (atomic_load(&r->count[i]) != (i < ns[a] ? 1 : 0))
					fail_msg("n %zu, threads %u: index %zu ran %d times", ns[a], threads[b], i,
						 atomic_load(&r->count[i]));
			free(r);
		}
}

static void more_threads_than_jobs_still_run_each_job_once(void **state)
{
	runs *r = run_loop(3, 50);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(atomic_load(&r->count[i]), 1);
	assert_int_equal(atomic_load(&r->count[3]), 0);
	free(r);
}

static void one_thread_is_the_callers_own(void **state)
{
	runs *r = run_loop(100, 1);
	pthread_t self = pthread_self();
	for (size_t i = 0; i < 100; i++)
		assert_true(pthread_equal(r->thread[i], self));
	free(r);
}

static void no_more_threads_are_used_than_asked_for(void **state)
{
	/* 3 threads, the caller's among them: at most 3 distinct threads ran jobs */
	runs *r = run_loop(2000, 3);
	pthread_t seen[4];
	size_t nseen = 0;
	for (size_t i = 0; i < 2000; i++) {
		size_t k = 0;
		while (k < nseen && !pthread_equal(seen[k], r->thread[i]))
			k++;
		if (k == nseen) {
			assert_true(nseen < 3);
			seen[nseen++] = r->thread[i];
		}
	}
	assert_true(nseen >= 1);
	free(r);
}

typedef struct sum_ctx {
	uint64_t part[1000];
} sum_ctx;

static void square_job(void *ctx, size_t i)
{
	((sum_ctx *)ctx)->part[i] = (uint64_t)i * i;
}

static void results_do_not_depend_on_the_threads(void **state)
{
	/* sum of i^2 for i < 1000 = 999 * 1000 * 1999 / 6 = 332,833,500 */
	const unsigned threads[] = {0, 1, 4, 1000};
	for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
		sum_ctx c;
		memset(&c, 0, sizeof c);
		cg_parallel_for(1000, threads[t], square_job, &c);
		uint64_t sum = 0;
		for (size_t i = 0; i < 1000; i++)
			sum += c.part[i];
		assert_int_equal(sum, 332833500);
	}
}

typedef struct task_ctx {
	int value;
	pthread_t ran_on;
} task_ctx;

static void task_fn(void *arg)
{
	task_ctx *c = arg;
	c->value += 42;
	c->ran_on = pthread_self();
}

static void a_task_has_run_once_when_joined(void **state)
{
	task_ctx c = {0};
	cg_task t;
	cg_task_start(&t, task_fn, &c);
	bool started = t.started;
	cg_task_join(&t);
	assert_int_equal(c.value, 42);
	assert_false(t.started);
	/* on its own thread when one could be started, else at once on the caller's */
	assert_int_equal(!pthread_equal(c.ran_on, pthread_self()), started);
	cg_task_join(&t); /* a second join does nothing */
	assert_int_equal(c.value, 42);
}

static void tasks_run_beside_the_caller(void **state)
{
	task_ctx c[4] = {{0}};
	cg_task t[4];
	for (int i = 0; i < 4; i++)
		cg_task_start(&t[i], task_fn, &c[i]);
	bool started[4];
	for (int i = 0; i < 4; i++)
		started[i] = t[i].started;
	for (int i = 0; i < 4; i++)
		cg_task_join(&t[i]);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(c[i].value, 42);
		/* a started task ran on another thread; one that could not start ran here */
		assert_int_equal(!pthread_equal(c[i].ran_on, pthread_self()), started[i]);
	}
}

typedef struct gated {
	cg_gate gate;
	int value; /* written before the gate opens, read after the wait */
} gated;

static void open_after_writing(void *arg)
{
	gated *g = arg;
	usleep(10000);
	g->value = 42;
	cg_gate_open(&g->gate);
}

static void a_gate_wait_returns_after_another_thread_opens_it(void **state)
{
	(void)state;
	gated g = {.value = 0};
	cg_gate_init(&g.gate);
	cg_task t;
	cg_task_start(&t, open_after_writing, &g);
	cg_gate_wait(&g.gate);
	assert_int_equal(g.value, 42);
	cg_gate_wait(&g.gate); /* it stays open */
	cg_task_join(&t);
	cg_gate_destroy(&g.gate);
}

/* Runs: one a thread from min_items on, one below it or on one thread;
 * their ranges cover every item once, in order, the last taking the rest. */
static void runs_cut_items_into_adjacent_ranges(void **state)
{
	(void)state;
	assert_int_equal(cg_parallel_runs(99, 4, 100), 1);
	assert_int_equal(cg_parallel_runs(100, 4, 100), 4);
	assert_int_equal(cg_parallel_runs(1000, 1, 100), 1);
	assert_true(cg_parallel_runs(1000, 0, 100) >= 1);
	static const size_t sizes[] = {0, 1, 7, 100, 101, 65537};
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
		for (size_t nruns = 1; nruns <= 5; nruns++) {
			size_t expect = 0, from, to;
			for (size_t k = 0; k < nruns; k++) {
				cg_parallel_run_range(sizes[s], nruns, k, &from, &to);
				assert_int_equal(from, expect);
				assert_true(to >= from);
				if (k + 1 < nruns)
					assert_int_equal(to - from, sizes[s] / nruns);
				expect = to;
			}
			assert_int_equal(expect, sizes[s]);
		}
}

static void at_least_one_cpu_is_counted(void **state)
{
	unsigned n = cg_cpu_count();
	assert_true(n >= 1);
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	assert_true(n <= (online < 1 ? 1 : (unsigned long)online));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_index_runs_exactly_once_for_any_n_and_threads),
		cmocka_unit_test(more_threads_than_jobs_still_run_each_job_once),
		cmocka_unit_test(one_thread_is_the_callers_own),
		cmocka_unit_test(no_more_threads_are_used_than_asked_for),
		cmocka_unit_test(results_do_not_depend_on_the_threads),
		cmocka_unit_test(runs_cut_items_into_adjacent_ranges),
		cmocka_unit_test(a_task_has_run_once_when_joined),
		cmocka_unit_test(tasks_run_beside_the_caller),
		cmocka_unit_test(a_gate_wait_returns_after_another_thread_opens_it),
		cmocka_unit_test(at_least_one_cpu_is_counted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
