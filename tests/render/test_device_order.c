/* Accelerators before the CPU everywhere a reader meets devices: the
 * report's sections and key figures, the terminal summary, summary.json's
 * device_order; and each device's sections anchored under its name. */
#include "tlbuild.h"

#include <string.h>

#include "analysis.h"
#include "doc.h"
#include "doc_html.h"
#include "report.h"
#include "sink.h"
#include "summary_json.h"
#include "summary_text.h"
#include "xalloc.h"

/* "cpu" appears first (as in every PyTorch trace), then "cuda:0", then a
 * second GPU "cuda:1". */
static cg_timeline *three_devices(void)
{
	cg_timeline *tl = tu_tl_new();
	tu_span(tl, "r", NULL, "run", 0, 1000, CG_PHASE_NONE);
	tu_mem(tl, 100, "a", "r", "cpu", 1024, CG_ALLOC, CG_CAT_ACTIVATION, "aten::empty");
	tu_mem(tl, 200, "b", "r", "cuda:0", 4096, CG_ALLOC, CG_CAT_ACTIVATION, "aten::empty");
	tu_mem(tl, 300, "c", "r", "cuda:1", 2048, CG_ALLOC, CG_CAT_ACTIVATION, "aten::empty");
	tu_tl_finalize(tl);
	return tl;
}

static void the_report_shows_accelerators_first_each_with_anchors_of_its_own(void **state)
{
	(void)state;
	cg_timeline *tl = three_devices();
	assert_string_equal(cg_timeline_str(tl, tl->devices[0].name), "cpu");
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	cg_doc *d = cg_report_build(a, NULL);
	const char *h2[8];
	size_t n = 0, kf = d->n;
	for (size_t i = 0; i < d->n; i++)
		if (d->blocks[i].kind == CG_DOC_HEADING && d->blocks[i].level == 2 && n < 8) {
			if (strcmp(d->blocks[i].text, "Key figures") == 0)
				kf = i;
			h2[n++] = d->blocks[i].text;
		}
	assert_true(n >= 4);
	assert_string_equal(h2[0], "Key figures");
	assert_string_equal(h2[1], "cuda:0");
	assert_string_equal(h2[2], "cuda:1");
	assert_string_equal(h2[3], "cpu");
	/* the key figures' columns in that order too */
	const cg_doc_block *t = &d->blocks[kf + 1];
	assert_int_equal(t->kind, CG_DOC_TABLE);
	assert_string_equal(t->cells[1], "cuda:0");
	assert_string_equal(t->cells[2], "cuda:1");
	assert_string_equal(t->cells[3], "cpu");
	/* anchors: "cuda-1-what-was-live-at-the-peak", not "...-peak-2" */
	char **ids = cg_doc_heading_ids(d);
	bool cuda0 = false, cuda1 = false, cpu = false;
	for (size_t i = 0; i < d->n; i++) {
		if (!ids[i])
			continue;
		assert_null(strstr(ids[i], "-peak-2"));
		cuda0 |= strcmp(ids[i], "cuda-0-what-was-live-at-the-peak") == 0;
		cuda1 |= strcmp(ids[i], "cuda-1-what-was-live-at-the-peak") == 0;
		cpu |= strcmp(ids[i], "cpu-what-was-live-at-the-peak") == 0;
	}
	assert_true(cuda0 && cuda1 && cpu);
	cg_doc_ids_free(ids, d->n);
	cg_sink *s = cg_sink_memory();
	assert_int_equal(cg_doc_write_html(d, s, ".", NULL), 0);
	const char *html = cg_sink_data(s, NULL);
	const char *l0 = strstr(html, "<li><a href=\"#cuda-0-largest-allocations-live-at-the-peak\">");
	const char *l1 = strstr(html, "<li><a href=\"#cpu-largest-allocations-live-at-the-peak\">");
	assert_non_null(l0);
	assert_non_null(l1);
	assert_true(l0 < l1);
	assert_non_null(strstr(html, "<h3 id=\"cuda-1-largest-allocations-live-at-the-peak\">"));
	assert_int_equal(cg_sink_close(s, NULL), 0);
	cg_doc_free(d);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

static void the_summary_and_summary_json_show_accelerators_first(void **state)
{
	(void)state;
	cg_timeline *tl = three_devices();
	cg_analysis *a;
	assert_int_equal(cg_analysis_run(&a, tl, NULL, NULL), 0);
	cg_sink *s = cg_sink_memory();
	cg_summary_text_write(s, a, NULL);
	const char *text = cg_sink_data(s, NULL);
	const char *g0 = strstr(text, "\ncuda:0\n"), *g1 = strstr(text, "\ncuda:1\n"), *c = strstr(text, "\ncpu\n");
	assert_true(g0 && g1 && c);
	assert_true(g0 < g1 && g1 < c);
	assert_int_equal(cg_sink_close(s, NULL), 0);
	s = cg_sink_memory();
	cg_summary_json_write(s, a, false);
	const char *json = cg_sink_data(s, NULL);
	assert_non_null(strstr(json, "\"device_order\":[1,2,0],\"devices\":[{\"name\":\"cpu\""));
	assert_int_equal(cg_sink_close(s, NULL), 0);
	cg_analysis_free(a);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_report_shows_accelerators_first_each_with_anchors_of_its_own),
		cmocka_unit_test(the_summary_and_summary_json_show_accelerators_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
