/* Span paths as a reader sees them (stackview.h): a PyTorch stack as frames,
 * innermost first, boring frames folded and counted, the nearest module as
 * the "where", long stacks behind a <details>, and never a silent cut. */
#include "tlbuild.h"

#include <string.h>

#include "analysis.h"
#include "doc.h"
#include "doc_html.h"
#include "report.h"
#include "sink.h"
#include "stackview.h"
#include "summary_text.h"
#include "utf8.h"
#include "xalloc.h"

/* A stack as torch.profiler(with_stack=True, with_modules=True) records it,
 * root first: 9 frames, 5 of them boring (<string>, multiprocessing, the
 * two module.py wrappers, the built-in method at an address). */
static const char *const stack[] = {
	"<string>(1): <module>",
	"multiprocessing/spawn.py(122): spawn_main",
	"app/run.py(10): main",
	"nn.Module: Net_0",
	"torch/nn/modules/module.py(1518): _wrapped_call_impl",
	"torch/nn/modules/module.py(1527): _call_impl",
	"app/net.py(20): forward",
	"<built-in method linear of PyCapsule object at 0x7ce6c2c1df60>",
	"aten::linear",
};
#define NSTACK (sizeof stack / sizeof stack[0])

#define SEP " \xe2\x80\xb9 "
#define SHORT "aten::linear" SEP "app/net.py(20): forward" SEP "nn.Module: Net_0" SEP "\xe2\x80\xa6 (9 frames, 5 folded)"

static void boring_frames_are_the_plumbing_and_nothing_else(void **state)
{
	(void)state;
	assert_true(cg_stack_boring("multiprocessing/process.py(108): run"));
	assert_true(cg_stack_boring("/usr/lib/python3.10/multiprocessing/spawn.py(135): _main"));
	assert_true(cg_stack_boring("<string>(1): <module>"));
	assert_true(cg_stack_boring("torch/nn/modules/module.py(1527): _call_impl"));
	assert_true(cg_stack_boring("<built-in method to of Tensor object at 0x7ce279c5bf20>"));
	assert_false(cg_stack_boring("<built-in function next>"));
	assert_false(cg_stack_boring("nn.Module: Net_0"));
	assert_false(cg_stack_boring("my/nn/modules/layer.py(3): forward"));
	assert_false(cg_stack_boring("aten::mul"));
	assert_false(cg_stack_boring("train_step#0"));
}

static void a_stack_is_shown_innermost_first_with_its_boring_frames_folded(void **state)
{
	(void)state;
	char buf[512];
	assert_string_equal(cg_stack_short(stack, NSTACK, buf, sizeof buf), SHORT);
	char *c = cg_stack_cell(stack, NSTACK);
	assert_string_equal(c, SHORT "\naten::linear\napp/net.py(20): forward\nnn.Module: Net_0\napp/run.py(10): main\n"
				     "(5 frames folded: multiprocessing, <string>, nn/modules/module.py, built-in methods; "
				     "summary.json has them)");
	cg_free(c);
	/* a short stack with nothing folded is one line, whole */
	const char *two[] = {"app/run.py(10): main", "aten::add"};
	assert_string_equal(cg_stack_short(two, 2, buf, sizeof buf), "aten::add" SEP "app/run.py(10): main");
	c = cg_stack_cell(two, 2);
	assert_string_equal(c, "aten::add" SEP "app/run.py(10): main");
	cg_free(c);
}

static void the_separator_never_occurs_inside_a_frame(void **state)
{
	(void)state;
	const char *odd[] = {"a" SEP "b.py(1): f", "line\nbreak"};
	char buf[256];
	assert_string_equal(cg_stack_short(odd, 2, buf, sizeof buf), "line break" SEP "a < b.py(1): f");
}

/* A name that ends inside the separator's bytes, or one byte after its
 * first, is read to its end and no further (fuzz_snapshot found a three-byte
 * compare reading past "(before profiling)"): in heap blocks of exactly
 * their size, so AddressSanitizer sees a read past the end. */
static void a_name_ending_in_part_of_the_separator_is_read_to_its_end_only(void **state)
{
	(void)state;
	char *a = cg_strdup("f\xe2"), *b = cg_strdup("g\xe2\x80"), *c = cg_strdup("(h)");
	const char *names[] = {a, b, c};
	char buf[256];
	assert_string_equal(cg_stack_short(names, 3, buf, sizeof buf), "(h)" SEP "g\xe2\x80" SEP "f\xe2");
	cg_free(a);
	cg_free(b);
	cg_free(c);
}

static void a_short_form_cut_by_its_buffer_ends_in_an_ellipsis_at_a_character(void **state)
{
	(void)state;
	const char *wide[] = {"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"};
	for (size_t size = 4; size <= 20; size++) { /* 20 bytes of text: each cuts it */
		char buf[32];
		cg_stack_short(wide, 1, buf, size);
		size_t n = strlen(buf), off;
		assert_true(n < size);
		assert_int_equal(cg_utf8_check(buf, n, &off), CG_UTF8_OK);
		assert_true(n >= 3 && strcmp(buf + n - 3, "\xe2\x80\xa6") == 0);
	}
}

/* The stack above as spans of a PyTorch trace, with a 4 KiB allocation
 * in aten::linear on cuda:0: the peak. */
static cg_timeline *pytorch_run(void)
{
	cg_timeline *tl = tu_tl_new();
	char id[8], parent[8];
	for (size_t i = 0; i < NSTACK; i++) {
		snprintf(id, sizeof id, "s%zu", i);
		snprintf(parent, sizeof parent, "s%zu", i ? i - 1 : 0);
		tu_span(tl, id, i ? parent : NULL, stack[i], 10 * i, 1000 - 10 * i, CG_PHASE_NONE);
	}
	tu_mem(tl, 500, "x", "s8", "cuda:0", 4096, CG_ALLOC, CG_CAT_UNKNOWN, "aten::linear");
	tu_tl_finalize(tl);
	cg_free(tl->source.format);
	tl->source.format = cg_strdup("Chrome trace (PyTorch profiler)");
	for (uint32_t s = 0; s < tl->nspans; s++)
		if (strncmp(cg_timeline_str(tl, tl->spans[s].name), "nn.Module: ", 11) == 0)
			tl->spans[s].kind = CG_SPAN_MODULE;
	return tl;
}

static size_t find(const cg_doc *d, cg_doc_kind kind, const char *prefix)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->blocks[i].kind == kind && strncmp(d->blocks[i].text ? d->blocks[i].text : "", prefix, strlen(prefix)) == 0)
			return i;
	fail_msg("no block starting \"%s\"", prefix);
	return 0;
}

static void the_report_shows_a_pytorch_stack_as_frames_with_its_module_as_where(void **state)
{
	(void)state;
	cg_timeline *tl = pytorch_run();
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	cg_doc *d = cg_report_build(a, NULL);
	const char *p = d->blocks[find(d, CG_DOC_PARAGRAPH, "Live memory peaked")].text;
	assert_non_null(strstr(p, "was allocated in nn.Module: Net_0, at " SHORT ". 1 allocations were live."));
	size_t i = find(d, CG_DOC_DETAILS, "The stack of that allocation");
	assert_string_equal(d->blocks[i].text, "The stack of that allocation, innermost first (9 frames)");
	assert_string_equal(d->blocks[i].body, "aten::linear\napp/net.py(20): forward\nnn.Module: Net_0\napp/run.py(10): main\n"
					       "(5 frames folded: multiprocessing, <string>, nn/modules/module.py, "
					       "built-in methods; summary.json has them)");
	size_t h = find(d, CG_DOC_HEADING, "Largest allocations live at the peak");
	while (d->blocks[h].kind != CG_DOC_TABLE)
		h++;
	const cg_doc_block *t = &d->blocks[h];
	assert_int_equal(t->align[7], 's');
	assert_string_equal(t->cells[7], "where: module \xc2\xb7 stack, innermost first");
	assert_true(strncmp(t->cells[8 + 7], "nn.Module: Net_0 \xc2\xb7 " SHORT "\naten::linear\n", 40) == 0);
	/* in HTML: the short form, the frames behind it */
	cg_sink *s = cg_sink_memory();
	assert_int_equal(cg_doc_write_html(d, s, ".", NULL), 0);
	const char *html = cg_sink_data(s, NULL);
	assert_non_null(strstr(html, "<details><summary>nn.Module: Net_0 \xc2\xb7 aten::linear"));
	assert_non_null(strstr(html, "<li>app/run.py(10): main</li>"));
	assert_int_equal(cg_sink_close(s, NULL), 0);
	cg_doc_free(d);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

/* The terminal's tree at the peak: the chain of nine frames is one row. */
static void the_summary_tree_folds_a_chain_of_frames_into_one_row(void **state)
{
	(void)state;
	cg_timeline *tl = pytorch_run();
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	cg_sink *s = cg_sink_memory();
	cg_summary_text_options o = CG_SUMMARY_TEXT_OPTIONS_INIT;
	o.width = 100;
	cg_summary_text_write(s, a, &o);
	const char *text = cg_sink_data(s, NULL);
	const char *tree = strstr(text, "  at the peak, by span path (nodes with 5 % or more)\n");
	assert_non_null(tree);
	tree = strchr(tree, '\n') + 1;
	const char *end = strchr(tree, '\n');
	char row[256];
	snprintf(row, sizeof row, "%.*s", (int)(end - tree), tree);
	assert_string_equal(row, /* label, bytes right-aligned in 11 columns, share in 9 */
			    "    aten::linear" SEP "\xe2\x80\xa6 (9 frames)" "   4.00 KiB" "  100.0 %");
	assert_true(end[1] == '\n'); /* and no other row */
	assert_int_equal(cg_sink_close(s, NULL), 0);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

/* A candle-graph path keeps its '/' look, and a span name longer than the
 * old 1,023-byte buffer is said whole. */
static void a_long_candle_graph_path_is_never_cut_silently(void **state)
{
	(void)state;
	char name[1500];
	memset(name, 'n', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "r", NULL, "run", 0, 1000, CG_PHASE_NONE);
	tu_span(tl, "l", "r", name, 10, 900, CG_PHASE_NONE);
	tu_mem(tl, 500, "x", "l", "cpu", 4096, CG_ALLOC, CG_CAT_ACTIVATION, "aten::mm");
	tu_tl_finalize(tl);
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	cg_doc *d = cg_report_build(a, NULL);
	const char *p = d->blocks[find(d, CG_DOC_PARAGRAPH, "Live memory peaked")].text;
	char *want = cg_asprintf("was allocated in run/%s. 1 allocations were live.", name);
	assert_non_null(strstr(p, want));
	cg_free(want);
	/* beyond CG_SPAN_PATH_MAX the text ends in an ellipsis */
	char small[64];
	cg_stack_span_text(tl, tl->mem[0].span, small, sizeof small);
	assert_int_equal(strlen(small), 63);
	assert_string_equal(small + 60, "\xe2\x80\xa6");
	cg_doc_free(d);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(boring_frames_are_the_plumbing_and_nothing_else),
		cmocka_unit_test(a_stack_is_shown_innermost_first_with_its_boring_frames_folded),
		cmocka_unit_test(the_separator_never_occurs_inside_a_frame),
		cmocka_unit_test(a_name_ending_in_part_of_the_separator_is_read_to_its_end_only),
		cmocka_unit_test(a_short_form_cut_by_its_buffer_ends_in_an_ellipsis_at_a_character),
		cmocka_unit_test(the_report_shows_a_pytorch_stack_as_frames_with_its_module_as_where),
		cmocka_unit_test(the_summary_tree_folds_a_chain_of_frames_into_one_row),
		cmocka_unit_test(a_long_candle_graph_path_is_never_cut_silently),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
