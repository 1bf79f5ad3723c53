/* Nesting complete events per thread by containment, with overlaps clipped
 * or re-parented, and the innermost span around each instant. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "spannest.h"

#define NONE UINT32_MAX

static cg_nest_span sp(int64_t start, int64_t end, uint32_t thread, uint32_t order)
{
	return (cg_nest_span){start, end, thread, order, order, 0, false, false};
}

static cg_nest_point pt(int64_t t, uint32_t thread, uint32_t order)
{
	return (cg_nest_point){t, thread, order, order, 0};
}

/* The payload (here: the order) of the span a sorted index points at. */
static uint32_t who(const cg_nest_span *s, uint32_t i)
{
	return i == NONE ? NONE : s[i].payload;
}

static void children_nest_inside_parents_in_any_file_order(void **state)
{
	/* Written child first, as threads flush inner events first. */
	cg_nest_span s[] = {sp(20, 30, 1, 1), sp(0, 100, 1, 2), sp(40, 60, 1, 3), sp(45, 50, 1, 4)};
	cg_nest_counts c;
	cg_nest_build(s, 4, NULL, 0, &c);
	assert_int_equal(c.clipped + c.reparented, 0);
	assert_int_equal(s[0].payload, 2);
	assert_int_equal(who(s, s[0].parent), NONE);
	for (int i = 1; i < 4; i++) {
		uint32_t p = s[i].payload;
		uint32_t expect = p == 4 ? 3 : 2;
		assert_int_equal(who(s, s[i].parent), expect);
		assert_false(s[i].clipped);
	}
}

static void a_span_ending_after_its_parent_is_clipped_to_it(void **state)
{
	/* [5, 12] sticks out 2 past [0, 10] and shares 5 with it. */
	cg_nest_span s[] = {sp(0, 10, 1, 1), sp(5, 12, 1, 2), sp(12, 20, 1, 3)};
	cg_nest_counts c;
	cg_nest_build(s, 3, NULL, 0, &c);
	assert_int_equal(c.clipped, 1);
	assert_int_equal(c.reparented, 0);
	assert_int_equal(s[1].payload, 2);
	assert_int_equal(s[1].end, 10);
	assert_true(s[1].clipped);
	assert_int_equal(who(s, s[1].parent), 1);
	/* The next one starts after both ended: a root again. */
	assert_int_equal(who(s, s[2].parent), NONE);
}

static void a_long_span_beginning_inside_a_short_one_becomes_its_sibling(void **state)
{
	/* As PyTorch's ProfilerStep#N opens inside the Python call that starts it:
	 * [15, 90] shares 5 with [10, 20] and outlives it by 70. */
	cg_nest_span s[] = {sp(0, 100, 1, 1), sp(10, 20, 1, 2), sp(15, 90, 1, 3), sp(18, 19, 1, 4), sp(50, 60, 1, 5)};
	cg_nest_point p[] = {pt(12, 1, 10), pt(17, 1, 11), pt(55, 1, 12), pt(95, 1, 13)};
	cg_nest_counts c;
	cg_nest_build(s, 5, p, 4, &c);
	assert_int_equal(c.clipped, 0);
	assert_int_equal(c.reparented, 1);
	assert_int_equal(s[2].payload, 3);
	assert_int_equal(s[2].end, 90);
	assert_true(s[2].reparented);
	assert_int_equal(who(s, s[1].parent), 1);
	assert_int_equal(who(s, s[2].parent), 1);
	/* Later ranges inside both siblings go under the later one. */
	assert_int_equal(who(s, s[3].parent), 3);
	assert_int_equal(who(s, s[4].parent), 3);
	uint32_t expect[14] = {0};
	expect[10] = 2, expect[11] = 3, expect[12] = 5, expect[13] = 1;
	for (int i = 0; i < 4; i++)
		assert_int_equal(who(s, p[i].span), expect[p[i].payload]);

	/* With nothing around them, it becomes a root. */
	cg_nest_span r[] = {sp(0, 10, 1, 1), sp(8, 100, 1, 2)};
	cg_nest_build(r, 2, NULL, 0, &c);
	assert_int_equal(c.reparented, 1);
	assert_int_equal(who(r, r[1].parent), NONE);
}

static void equal_ranges_nest_in_file_order_and_touching_ones_are_siblings(void **state)
{
	cg_nest_span s[] = {sp(0, 10, 1, 2), sp(0, 10, 1, 1), sp(10, 10, 1, 3), sp(10, 15, 1, 4)};
	cg_nest_build(s, 4, NULL, 0, NULL);
	assert_int_equal(s[0].payload, 1);
	assert_int_equal(who(s, s[1].parent), 1);
	/* [10,15] starts where the others end: a root; the empty [10,10] lies inside it. */
	assert_int_equal(s[2].payload, 4);
	assert_int_equal(who(s, s[2].parent), NONE);
	assert_int_equal(who(s, s[3].parent), 4);
}

static void threads_nest_separately(void **state)
{
	cg_nest_span s[] = {sp(0, 100, 2, 1), sp(10, 20, 1, 2)};
	cg_nest_build(s, 2, NULL, 0, NULL);
	assert_int_equal(who(s, s[0].parent), NONE);
	assert_int_equal(who(s, s[1].parent), NONE);
}

static void a_point_takes_the_innermost_span_around_it_on_its_thread(void **state)
{
	cg_nest_span s[] = {sp(0, 100, 1, 1), sp(20, 30, 1, 2), sp(30, 40, 1, 3), sp(0, 100, 2, 4)};
	cg_nest_point p[] = {
		pt(25, 1, 10), /* inside 2 */
		pt(30, 1, 11), /* 2 ends and 3 starts: 3, the one starting there */
		pt(20, 1, 12), /* at 2's start */
		pt(50, 1, 13), /* back in 1 */
		pt(100, 1, 14), /* at 1's end */
		pt(101, 1, 15), /* after everything */
		pt(-5, 1, 16), /* before everything */
		pt(50, 3, 17), /* a thread without spans */
		pt(50, 2, 18),
	};
	cg_nest_build(s, 4, p, 9, NULL);
	uint32_t expect[19] = {0};
	expect[10] = 2, expect[11] = 3, expect[12] = 2, expect[13] = 1, expect[14] = 1;
	expect[15] = NONE, expect[16] = NONE, expect[17] = NONE, expect[18] = 4;
	for (int i = 0; i < 9; i++)
		assert_int_equal(who(s, p[i].span), expect[p[i].payload]);
}

/* The order spans are nested in: by thread, start, the longer first, then
 * file order, as a reference sort gives it, whether the input comes as a
 * few long sorted runs (as profilers write spans), reversed, or shuffled. */
static int reference(const void *a, const void *b)
{
	const cg_nest_span *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void spans_are_sorted_from_any_order(void **state)
{
	(void)state;
	enum { N = 5000 };
	static cg_nest_span in[N], want[N];
	uint64_t x = 12345;
	for (int layout = 0; layout < 4; layout++) {
		for (uint32_t i = 0; i < N; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			int64_t start = layout == 0 ? (int64_t)(i % 1250) * 10 /* four sorted runs */
				      : layout == 1 ? (int64_t)(N - i)	    /* reversed: every span a run */
				      : layout == 2 ? (int64_t)(x % 100)	    /* shuffled, many ties */
						    : (int64_t)(i / 7);	    /* sorted: one run */
			in[i] = sp(start, start + (int64_t)(x >> 40) % 50, layout == 2 ? (uint32_t)(x >> 20) % 3 : 0, i);
		}
		memcpy(want, in, sizeof in);
		qsort(want, N, sizeof *want, reference);
		cg_nest_build(in, N, NULL, 0, NULL);
		for (uint32_t i = 0; i < N; i++)
			if (in[i].order != want[i].order)
				fail_msg("layout %d: span %u is #%u, want #%u", layout, i, in[i].order, want[i].order);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(children_nest_inside_parents_in_any_file_order),
		cmocka_unit_test(a_span_ending_after_its_parent_is_clipped_to_it),
		cmocka_unit_test(a_long_span_beginning_inside_a_short_one_becomes_its_sibling),
		cmocka_unit_test(equal_ranges_nest_in_file_order_and_touching_ones_are_siblings),
		cmocka_unit_test(threads_nest_separately),
		cmocka_unit_test(a_point_takes_the_innermost_span_around_it_on_its_thread),
		cmocka_unit_test(spans_are_sorted_from_any_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
