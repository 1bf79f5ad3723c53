/* Largest allocations at the peak: one bar per allocation, in size order,
 * each as long as its bytes and in its category's colour. */
#include "chartutil.h"

#include <string.h>

#include "xalloc.h"

typedef struct geometry {
	double x0, px_per_byte, top, pitch;
} geometry;

/* The chart leaves its geometry in c: x in bytes from the bars' origin,
 * y in rows. */
static geometry geometry_of(const cg_chart *c)
{
	return (geometry){c->plot.x0, (c->plot.x1 - c->plot.x0) / c->x_max, c->plot.y0,
			  (c->plot.y1 - c->plot.y0) / c->y_max};
}

static void bar(cg_chart *c, const geometry *g, int row, uint64_t bytes, unsigned color)
{
	double y = g->top + g->pitch * (row + 0.5), end = g->x0 + (double)bytes * g->px_per_byte;
	assert_int_equal(tc_pixel(c, g->x0 + 2, y), color);
	assert_int_equal(tc_pixel(c, end - 3, y), color);
	/* past the end: the row's background (zebra on odd rows) until the label */
	assert_int_equal(tc_pixel(c, end + 4, y), row % 2 ? 0xF7F7F7 : 0xFFFFFF);
}

static void the_bars_come_in_size_order_as_long_as_their_bytes(void **state)
{
	cg_timeline *tl = tc_small_run();
	cg_chart c;
	cg_analysis *a;
	tc_draw(&c, &a, tl, 0, cg_chart_top_allocations, 1600, 900, 1.0);
	geometry g = geometry_of(&c);
	/* live at the peak: parameter 4000, gradient 3000, activation 1000 */
	assert_true(c.y_max == 3);
	bar(&c, &g, 0, 4000, tc_category(CG_CAT_PARAMETER));
	bar(&c, &g, 1, 3000, tc_category(CG_CAT_GRADIENT));
	bar(&c, &g, 2, 1000, tc_category(CG_CAT_ACTIVATION));
	/* nothing is drawn past the last row */
	assert_int_equal(tc_pixel(&c, g.x0 + 2, g.top + g.pitch * 3.5), 0xFFFFFF);
	tc_close(&c, a);
	cg_timeline_free(tl);
}

static void at_most_fifteen_rows_and_fewer_when_the_height_is_short(void **state)
{
	cg_timeline *tl = tu_tl_new();
	char id[16];
	for (int i = 0; i < 40; i++) {
		snprintf(id, sizeof id, "t%d", i);
		tu_mem(tl, (uint64_t)i * 10, id, NULL, "cpu", 1000 + (uint64_t)i, CG_ALLOC, CG_CAT_ACTIVATION, "aten::empty");
	}
	tu_tl_finalize(tl);
	cg_chart c;
	cg_analysis *a;
	tc_draw(&c, &a, tl, 0, cg_chart_top_allocations, 1600, 900, 1.0);
	assert_true(c.y_max == 15);
	geometry g = geometry_of(&c);
	/* the largest (t39: 1039 B) first, the 15th (t25: 1025 B) last */
	bar(&c, &g, 0, 1039, tc_category(CG_CAT_ACTIVATION));
	bar(&c, &g, 14, 1025, tc_category(CG_CAT_ACTIVATION));
	tc_close(&c, a);

	tc_draw(&c, &a, tl, 0, cg_chart_top_allocations, CG_CHART_MIN_WIDTH, CG_CHART_MIN_HEIGHT, 1.0);
	assert_true(c.y_max < 15 && c.y_max >= 8);
	assert_true(c.plot.y1 <= c.height - 40);
	tc_close(&c, a);
	cg_timeline_free(tl);
}

static void without_pairing_it_is_not_drawn_and_says_why(void **state)
{
	tc_assert_skipped_unpaired(cg_chart_top_allocations_skip, false);
}

/* The "span" of an allocation in a PyTorch stack (with_modules): its
 * nn.Module, not "<built-in method … at 0x…>"; without a module, the nearest
 * frame that is neither an op nor plumbing (the built-in method, module.py). */
static void a_pytorch_allocation_is_shown_under_its_module(void **state)
{
	(void)state;
	static const char *const names[] = {"<string>(1): <module>", "app/net.py(20): forward", "nn.Module: Net_0",
					    "torch/nn/modules/module.py(1527): _call_impl",
					    "<built-in method linear of PyCapsule object at 0x7ce6c2c1df60>", "aten::linear"};
	cg_timeline *tl = tu_tl_new();
	char id[8], parent[8];
	for (size_t i = 0; i < 6; i++) {
		snprintf(id, sizeof id, "s%zu", i);
		snprintf(parent, sizeof parent, "s%zu", i ? i - 1 : 0);
		tu_span(tl, id, i ? parent : NULL, names[i], 10 * i, 1000 - 10 * i, CG_PHASE_NONE);
	}
	tu_mem(tl, 500, "x", "s5", "cuda:0", 4096, CG_ALLOC, CG_CAT_UNKNOWN, "aten::linear");
	tu_tl_finalize(tl);
	cg_free(tl->source.format);
	tl->source.format = cg_strdup("Chrome trace (PyTorch profiler)");
	for (uint32_t k = 0; k < tl->nspans; k++) {
		const char *n = cg_timeline_str(tl, tl->spans[k].name);
		tl->spans[k].kind = strncmp(n, "aten::", 6) == 0 ? CG_SPAN_OP
				    : strncmp(n, "nn.Module: ", 11) == 0 ? CG_SPAN_MODULE
									  : CG_SPAN_FUNCTION;
	}
	uint32_t s = cg_chart_named_span(tl, tl->mem[0].span);
	assert_string_equal(cg_timeline_str(tl, tl->spans[s].name), "nn.Module: Net_0");
	for (uint32_t k = 0; k < tl->nspans; k++)
		if (tl->spans[k].kind == CG_SPAN_MODULE)
			tl->spans[k].kind = CG_SPAN_FUNCTION;
	/* no module: the built-in method and module.py are passed over, and
	 * "nn.Module: Net_0" is an ordinary frame now */
	s = cg_chart_named_span(tl, tl->mem[0].span);
	assert_string_equal(cg_timeline_str(tl, tl->spans[s].name), "nn.Module: Net_0");
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_bars_come_in_size_order_as_long_as_their_bytes),
		cmocka_unit_test(at_most_fifteen_rows_and_fewer_when_the_height_is_short),
		cmocka_unit_test(without_pairing_it_is_not_drawn_and_says_why),
		cmocka_unit_test(a_pytorch_allocation_is_shown_under_its_module),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	cg_charts_shutdown();
	return rc;
}
