/* Saving a document into an output folder (doc_save.h): STEM.md and
 * STEM.html, the same bytes the two backends write, recorded in the
 * manifest; only STEM.md without html; a folder that cannot be written is
 * CG_EIO. */
#include "testutil.h"

#include <string.h>
#include <unistd.h>

#include "doc.h"
#include "doc_html.h"
#include "doc_markdown.h"
#include "doc_save.h"
#include "outdir.h"
#include "sink.h"

static cg_doc *sample_doc(void)
{
	cg_doc *d = cg_doc_new("Memory report \xe2\x80\x94 <run>");
	cg_doc_heading(d, 2, "Key figures");
	cg_doc_table(d, 2, "lr");
	cg_doc_row(d, (const char *const[]){"figure", "value"});
	cg_doc_row(d, (const char *const[]){"peak", "15.44 MiB"});
	cg_doc_figure(d, "chart", "Live memory");
	return d;
}

static bool exists_in(const char *dir, const char *name)
{
	char p[700];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	return tu_exists(p);
}

static void both_files_hold_what_the_backends_write(void **state)
{
	const char *dir = tu_path("report");
	cg_outdir *od;
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_outdir_begin(&od, dir, false, &err), 0);
	/* the chart the HTML inlines is in the folder being written */
	char *svg = cg_outdir_path(od, "chart.svg");
	FILE *f = fopen(svg, "w");
	assert_non_null(f);
	fputs("<svg id=\"a\"><rect/></svg>", f);
	assert_int_equal(fclose(f), 0);
	free(svg);
	cg_doc *d = sample_doc();
	assert_int_equal(cg_doc_save(d, od, "report", true, &err), 0);

	cg_sink *md = cg_sink_memory(), *html = cg_sink_memory();
	cg_doc_write_markdown_in(d, md, cg_outdir_dir(od));
	assert_int_equal(cg_doc_write_html(d, html, cg_outdir_dir(od), &err), 0);
	assert_int_equal(cg_outdir_commit(od, &err), 0);

	char *got_md = tu_read_in(dir, "report.md", NULL), *got_html = tu_read_in(dir, "report.html", NULL);
	assert_string_equal(got_md, cg_sink_data(md, NULL));
	assert_string_equal(got_html, cg_sink_data(html, NULL));
	assert_non_null(strstr(got_html, "<svg id=\"f1_a\"><rect/></svg>"));
	assert_non_null(strstr(got_md, "](chart.svg)")); /* the only file of it written */
	char *manifest = tu_read_in(dir, CG_OUTDIR_MANIFEST, NULL);
	assert_string_equal(manifest, "chart.svg\nreport.md\nreport.html\n");
	free(manifest);
	free(got_md);
	free(got_html);
	cg_sink_close(md, NULL);
	cg_sink_close(html, NULL);
	cg_doc_free(d);
}

static void without_html_only_the_markdown_is_written(void **state)
{
	const char *dir = tu_path("md-only");
	cg_outdir *od;
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_outdir_begin(&od, dir, false, &err), 0);
	cg_doc *d = sample_doc();
	assert_int_equal(cg_doc_save(d, od, "diff", false, &err), 0);
	assert_int_equal(cg_outdir_commit(od, &err), 0);
	char *md = tu_read_in(dir, "diff.md", NULL);
	assert_non_null(strstr(md, "# Memory report \xe2\x80\x94 &lt;run&gt;\n"));
	free(md);
	assert_false(exists_in(dir, "diff.html"));
	char *manifest = tu_read_in(dir, CG_OUTDIR_MANIFEST, NULL);
	assert_string_equal(manifest, "diff.md\n");
	free(manifest);
	cg_doc_free(d);
}

/* The folder vanished under us: the first file cannot be created. */
static void an_unwritable_folder_is_an_io_error(void **state)
{
	const char *dir = tu_path("gone");
	cg_outdir *od;
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_outdir_begin(&od, dir, false, &err), 0);
	assert_int_equal(cg_remove_tree(cg_outdir_dir(od)), 0);
	cg_doc *d = sample_doc();
	assert_int_equal(cg_doc_save(d, od, "report", true, &err), CG_EIO);
	assert_non_null(strstr(err.msg, "report.md"));
	cg_outdir_abort(od);
	assert_false(tu_exists(dir));
	cg_doc_free(d);
}

/* A file that fails when written (here a link to /dev/full, the disk full
 * already) is CG_EIO naming it, for either file. */
static void a_full_disk_is_an_io_error_naming_the_file(void **state)
{
	static const char *const names[] = {"report.md", "report.html"};
	for (int k = 0; k < 2; k++) {
		cg_outdir *od;
		cg_error err = CG_ERROR_INIT;
		assert_int_equal(cg_outdir_begin(&od, tu_path("full"), false, &err), 0);
		/* made beside cg_outdir_path: the output folder hands out a name once */
		char p[700];
		snprintf(p, sizeof p, "%s/%s", cg_outdir_dir(od), names[k]);
		assert_int_equal(symlink("/dev/full", p), 0);
		cg_doc *d = sample_doc();
		assert_int_equal(cg_doc_save(d, od, "report", true, &err), CG_EIO);
		assert_non_null(strstr(err.msg, names[k]));
		assert_non_null(strstr(err.msg, "No space left on device"));
		cg_outdir_abort(od);
		cg_doc_free(d);
	}
	assert_false(tu_exists(tu_path("full")));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(both_files_hold_what_the_backends_write),
		cmocka_unit_test(without_html_only_the_markdown_is_written),
		cmocka_unit_test(an_unwritable_folder_is_an_io_error),
		cmocka_unit_test(a_full_disk_is_an_io_error_naming_the_file),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
