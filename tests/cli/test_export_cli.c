/* The report's exports (--formats folded, csv) and `cgmem summary --csv`:
 * exact bytes for a trace worked by hand, a hostile name that tries to
 * break the folded format (';', newline) and to run as a spreadsheet
 * formula, the folded bytes of a real allocator snapshot against its
 * oracle's peak, and the usage errors. (Every sample parsed by Python's
 * csv module: export_csv.py.) */
#include "runutil.h"

#include <string.h>

/* The trace, line by line (line numbers are in the CSV):
 *  2-5   spans run > train_step#0 > forward > "bad;name\nx" (phase forward)
 *  6     w   1000 B parameter, in run, op aten::empty    (never freed)
 *  7, 8  a1 200 B and a2 300 B activation in forward, aten::mm (freed at 70, 80)
 *  9     the hostile id, 64 B activation in the hostile span, op `op,"q"` (never freed)
 *  10    n0  8 B input, no op, in a span the trace never started: none (never freed)
 *        -> the peak: 1000 + 200 + 300 + 64 + 8 = 1572 B at 65 ns
 *  16-19 train_step#1 > forward: b1 100 B at 110, freed at 120
 * Steps: train_step#0 [10, 95], train_step#1 [100, 130]. */
static const char trace[] =
	"{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"run_id\":\"export\"}\n"
	"{\"kind\":\"span_start\",\"id\":\"s1\",\"name\":\"run\",\"start_ns\":0,\"span_kind\":\"function\"}\n"
	"{\"kind\":\"span_start\",\"id\":\"s2\",\"parent_id\":\"s1\",\"name\":\"train_step#0\",\"start_ns\":10,"
	"\"span_kind\":\"function\"}\n"
	"{\"kind\":\"span_start\",\"id\":\"s3\",\"parent_id\":\"s2\",\"name\":\"forward\",\"start_ns\":20,"
	"\"span_kind\":\"function\",\"step\":\"forward\"}\n"
	"{\"kind\":\"span_start\",\"id\":\"s4\",\"parent_id\":\"s3\",\"name\":\"bad;name\\nx\",\"start_ns\":25,"
	"\"span_kind\":\"module\",\"step\":\"forward\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":30,\"tensor_id\":\"w\",\"span_id\":\"s1\",\"op_name\":\"aten::empty\","
	"\"device\":\"cuda:0\",\"bytes\":1000,\"action\":\"alloc\",\"dtype\":\"f32\",\"category\":\"parameter\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":40,\"tensor_id\":\"a1\",\"span_id\":\"s3\",\"op_name\":\"aten::mm\","
	"\"device\":\"cuda:0\",\"bytes\":200,\"action\":\"alloc\",\"dtype\":\"f32\",\"category\":\"activation\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":50,\"tensor_id\":\"a2\",\"span_id\":\"s3\",\"op_name\":\"aten::mm\","
	"\"device\":\"cuda:0\",\"bytes\":300,\"action\":\"alloc\",\"dtype\":\"f32\",\"category\":\"activation\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":60,\"tensor_id\":\"=HYPERLINK(\\\"http://e\\\",\\\"x\\\")\","
	"\"span_id\":\"s4\",\"op_name\":\"op,\\\"q\\\"\",\"device\":\"cuda:0\",\"bytes\":64,\"action\":\"alloc\","
	"\"dtype\":\"f32\",\"category\":\"activation\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":65,\"tensor_id\":\"n0\",\"span_id\":\"gone\",\"device\":\"cuda:0\",\"bytes\":8,"
	"\"action\":\"alloc\",\"dtype\":\"f32\",\"category\":\"input\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":70,\"tensor_id\":\"a1\",\"span_id\":\"s3\",\"device\":\"cuda:0\","
	"\"bytes\":200,\"action\":\"free\",\"dtype\":\"f32\",\"category\":\"activation\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":80,\"tensor_id\":\"a2\",\"span_id\":\"s3\",\"device\":\"cuda:0\","
	"\"bytes\":300,\"action\":\"free\",\"dtype\":\"f32\",\"category\":\"activation\"}\n"
	"{\"kind\":\"span_end\",\"id\":\"s4\",\"duration_ns\":60}\n"
	"{\"kind\":\"span_end\",\"id\":\"s3\",\"duration_ns\":70}\n"
	"{\"kind\":\"span_end\",\"id\":\"s2\",\"duration_ns\":85}\n"
	"{\"kind\":\"span_start\",\"id\":\"s5\",\"parent_id\":\"s1\",\"name\":\"train_step#1\",\"start_ns\":100,"
	"\"span_kind\":\"function\"}\n"
	"{\"kind\":\"span_start\",\"id\":\"s6\",\"parent_id\":\"s5\",\"name\":\"forward\",\"start_ns\":105,"
	"\"span_kind\":\"function\",\"step\":\"forward\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":110,\"tensor_id\":\"b1\",\"span_id\":\"s6\",\"op_name\":\"aten::mm\","
	"\"device\":\"cuda:0\",\"bytes\":100,\"action\":\"alloc\",\"dtype\":\"f32\",\"category\":\"activation\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":120,\"tensor_id\":\"b1\",\"span_id\":\"s6\",\"device\":\"cuda:0\","
	"\"bytes\":100,\"action\":\"free\",\"dtype\":\"f32\",\"category\":\"activation\"}\n"
	"{\"kind\":\"span_end\",\"id\":\"s6\",\"duration_ns\":20}\n"
	"{\"kind\":\"span_end\",\"id\":\"s5\",\"duration_ns\":30}\n"
	"{\"kind\":\"span_end\",\"id\":\"s1\",\"duration_ns\":140}\n";

/* Stacks root first; w's op is its leaf (not the span's name); a1 and a2
 * share a stack (500 B); ';' in the hostile span is ':' and its newline a
 * space; n0 has no span. Sorted by the stack's bytes: '(' < 'r', "aten" <
 * "train", "aten::mm" < "bad:name x". */
static const char live_at_peak[] = "(no span);[input] 8\n"
				   "run;aten::empty;[parameter] 1000\n"
				   "run;train_step#0;forward;aten::mm;[activation] 500\n"
				   "run;train_step#0;forward;bad:name x;op,\"q\";[activation] 64\n";

/* Live at the end: w (a parameter: meant to stay), the hostile 64 B and n0;
 * the step span is written as the steps' label. */
static const char leaks[] = "(no span);[input] 8\n"
			    "run;train_step#*;forward;bad:name x;op,\"q\";[activation] 64\n";

/* Largest first (ties: allocated first). The hostile id is quoted for its
 * ',' and '"' ('"' doubled) and starts with ' so that no spreadsheet runs
 * it; the path keeps its newline inside quotes. */
static const char peak_csv[] =
	"device,id,bytes,category,phase,span_path,op,allocated_ns,line\r\n"
	"cuda:0,w,1000,parameter,none,run,aten::empty,30,6\r\n"
	"cuda:0,a2,300,activation,forward,run/train_step#0/forward,aten::mm,50,8\r\n"
	"cuda:0,a1,200,activation,forward,run/train_step#0/forward,aten::mm,40,7\r\n"
	"cuda:0,\"'=HYPERLINK(\"\"http://e\"\",\"\"x\"\")\",64,activation,forward,"
	"\"run/train_step#0/forward/bad;name\nx\",\"op,\"\"q\"\"\",60,9\r\n"
	"cuda:0,n0,8,input,none,,,65,10\r\n";

/* Step 0: live 0 B when it begins at 10 ns, 1572 B at 65 ns, 1072 B at its
 * end; its spans' records allocated a1 + a2 + the hostile 64 B (564 B, w
 * is run's and n0 no span's) and freed a1 + a2. Step 1: b1 only. */
static const char steps_csv[] =
	"step,name,device,start_ns,end_ns,live_at_start_bytes,peak_bytes,peak_ns,live_at_end_bytes,growth_bytes,"
	"allocated_bytes,freed_bytes,allocations,frees\r\n"
	"0,train_step#0,cuda:0,10,95,0,1572,65,1072,1072,564,500,3,2\r\n"
	"1,train_step#1,cuda:0,100,130,1072,1172,110,1072,0,100,100,1,1\r\n";

static bool present(const char *dir, const char *name)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return tu_exists(path);
}

static void report(const char *formats, const char *dir)
{
	const char *in = tu_write("export.jsonl", trace, sizeof trace - 1);
	char *out, *err;
	int rc = tu_run(&out, &err, NULL, "report", "-q", "--formats", formats, "-o", tu_path(dir), in, NULL);
	if (rc != 0)
		fail_msg("report --formats %s: exit %d: %s", formats, rc, err);
	free(out);
	free(err);
}

static void folded_files_hold_the_hand_worked_stacks(void **state)
{
	(void)state;
	report("folded", "r_folded");
	const char *dir = tu_path("r_folded");
	char *t = tu_read_in(dir, "live_at_peak.cuda-0.folded", NULL);
	assert_string_equal(t, live_at_peak);
	free(t);
	t = tu_read_in(dir, "leaks.cuda-0.folded", NULL);
	assert_string_equal(t, leaks);
	free(t);
	/* folded alone: no chart, no CSV, and report.md says so */
	assert_false(present(dir, "timeline.cuda-0.png"));
	assert_false(present(dir, "timeline.cuda-0.svg"));
	assert_false(present(dir, "peak.cuda-0.csv"));
	char *md = tu_read_in(dir, "report.md", NULL);
	assert_non_null(strstr(md, "No charts were drawn: --formats named no chart format (png, svg, pdf)."));
	assert_non_null(strstr(md, "| live\\_at\\_peak.cuda-0.folded | Live memory at the peak on cuda:0, as collapsed stacks |"));
	assert_null(strstr(md, "![")); /* no figure links to files that are not there */
	free(md);
}

static void csv_files_hold_the_hand_worked_rows(void **state)
{
	(void)state;
	report("csv,svg", "r_csv");
	const char *dir = tu_path("r_csv");
	char *t = tu_read_in(dir, "peak.cuda-0.csv", NULL);
	assert_string_equal(t, peak_csv);
	free(t);
	t = tu_read_in(dir, "steps.csv", NULL);
	assert_string_equal(t, steps_csv);
	free(t);
	assert_true(present(dir, "timeline.cuda-0.svg"));
	assert_false(present(dir, "live_at_peak.cuda-0.folded"));
	char *md = tu_read_in(dir, "report.md", NULL);
	assert_null(strstr(md, "No charts were drawn"));
	free(md);
}

static void summary_csv_prints_one_section(void **state)
{
	(void)state;
	const char *in = tu_write("export.jsonl", trace, sizeof trace - 1);
	char *out, *err;
	assert_int_equal(tu_run(&out, &err, NULL, "summary", "--csv", "peak", in, NULL), 0);
	assert_string_equal(out, peak_csv);
	free(out);
	free(err);
	assert_int_equal(tu_run(&out, &err, NULL, "summary", "--csv=steps", in, NULL), 0);
	assert_string_equal(out, steps_csv);
	free(out);
	free(err);
}

static void summary_csv_usage_errors_name_the_sections(void **state)
{
	(void)state;
	const char *in = tu_write("export.jsonl", trace, sizeof trace - 1);
	char *out, *err;
	assert_int_equal(tu_run(&out, &err, NULL, "summary", "--csv", "peek", in, NULL), 2);
	assert_non_null(strstr(err, "cgmem summary: --csv: 'peek' is not a section (peak, steps); did you mean 'peak'?\n"));
	assert_string_equal(out, "");
	free(out);
	free(err);
	assert_int_equal(tu_run(&out, &err, NULL, "summary", "--csv", "ranks", in, NULL), 2);
	assert_non_null(strstr(err, "cgmem summary: --csv: 'ranks' is not a section (peak, steps)\n"));
	free(out);
	free(err);
	assert_int_equal(tu_run(&out, &err, NULL, "summary", "--csv", "peak", "--json", in, NULL), 2);
	assert_non_null(strstr(err, "cgmem summary: --csv and --json each print a document of their own; give one\n"));
	free(out);
	free(err);
}

static void report_formats_lists_the_formats(void **state)
{
	(void)state;
	const char *in = tu_write("export.jsonl", trace, sizeof trace - 1);
	char *out, *err;
	assert_int_equal(tu_run(&out, &err, NULL, "report", "-o", tu_path("r_bad"), "--formats", "png,flame", in, NULL),
			 2);
	assert_non_null(strstr(err, "cgmem report: --formats: 'flame' is not a format (png, svg, pdf, folded, csv)\n"));
	free(out);
	free(err);
	assert_false(tu_exists(tu_path("r_bad")));
}

/* The folded bytes of a real snapshot add up to its peak as the
 * independent oracle replays it (trace.replay.active.peak.bytes). */
static void snapshot_folded_bytes_add_up_to_the_oracle_peak(void **state)
{
	(void)state;
	const char *sample = tu_sample("snapshots/magma27_cs336_memory_snapshot.pickle");
	cJSON *oracle = tu_json_file(tu_sample("snapshots/magma27_cs336_memory_snapshot.oracle.json"));
	uint64_t peak = tu_json_u64(oracle, "devices", "0", "trace", "replay", "active", "peak", "bytes", NULL);
	cJSON_Delete(oracle);
	char *out, *err;
	assert_int_equal(tu_run(&out, &err, NULL, "report", "-q", "--formats", "folded", "-o", tu_path("r_snap"), sample,
				NULL),
			 0);
	free(out);
	free(err);
	char *t = tu_read_in(tu_path("r_snap"), "live_at_peak.cuda-0.folded", NULL);
	uint64_t sum = 0;
	size_t lines = 0;
	for (char *p = t; *p; lines++) {
		char *nl = strchr(p, '\n');
		assert_non_null(nl);
		char *sp = nl;
		while (sp > p && sp[-1] != ' ')
			sp--;
		assert_true(sp > p); /* "stack bytes" */
		sum += strtoull(sp, NULL, 10);
		p = nl + 1;
	}
	assert_true(lines > 10);
	assert_int_equal(sum, peak);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(folded_files_hold_the_hand_worked_stacks),
		cmocka_unit_test(csv_files_hold_the_hand_worked_rows),
		cmocka_unit_test(summary_csv_prints_one_section),
		cmocka_unit_test(summary_csv_usage_errors_name_the_sections),
		cmocka_unit_test(report_formats_lists_the_formats),
		cmocka_unit_test(snapshot_folded_bytes_add_up_to_the_oracle_peak),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
