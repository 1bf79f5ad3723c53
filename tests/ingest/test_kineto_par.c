/* Reading a Kineto trace on several threads (kineto_par.c) gives the
 * timeline one thread gives, in every field, or the same error: on three
 * samples (PyTorch 1.9 without "Addr", a large H100 trace, a distributed
 * one), and on generated traces many blocks long with a bad event, a
 * strict-mode error, an overlong event, a syntax error and a cut-off end
 * late in the document. */
#include "ingestutil.h"

#include <string.h>

#include "tl_same.h"
#include "xalloc.h"

static const char *const samples[] = {
	"external/kineto_resnet50_num_workers_0.worker0.1623143089861.pt.trace.json.gz",
	"external/tracelens_h100_owlv2_large.json.gz",
	"external/tracelens_mi300_ddp_resnet18_train.json.gz",
};

/* path read with 1, 2 and 8 threads and, cJSON only, with 3: the same
 * timeline or the same error. Returns the result code. */
static int all_ways(const char *path, cg_ingest_options o)
{
	static const struct {
		unsigned threads;
		bool cjson_only;
	} ways[] = {{1, false}, {2, false}, {8, false}, {3, true}};
	cg_timeline *first = NULL;
	cg_error e0 = CG_ERROR_INIT;
	int rc0 = 0;
	for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
		cg_timeline *tl = NULL;
		cg_error e = CG_ERROR_INIT;
		o.threads = ways[w].threads;
		o.cjson_only = ways[w].cjson_only;
		int rc = cg_ingest(&tl, path, &o, &e);
		if (w == 0) {
			rc0 = rc;
			e0 = e;
			first = tl;
			continue;
		}
		assert_int_equal(rc, rc0);
		if (rc < 0) {
			assert_string_equal(e.msg, e0.msg);
			assert_null(tl);
		} else {
			same_timeline(first, tl);
			cg_timeline_free(tl);
		}
	}
	cg_timeline_free(first);
	return rc0;
}

static void every_sample_reads_the_same_on_several_threads(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
		assert_int_equal(all_ways(tu_sample(samples[i]), (cg_ingest_options)CG_INGEST_OPTIONS_INIT), 0);
}

/* A trace of n events (spans and memory events on two threads); at
 * event bad (1-based, 0: none) the text what is put instead. */
static char *trace(size_t n, size_t bad, const char *what, const char *tail)
{
	size_t cap = 200 * n + 4096, len = 0;
	char *t = cg_malloc(cap);
	len += (size_t)snprintf(t, cap, "{\"traceEvents\": [\n");
	for (size_t i = 1; i <= n; i++) {
		const char *sep = i < n ? ",\n" : "\n";
		if (i == bad)
			len += (size_t)snprintf(t + len, cap - len, "%s%s", what, sep);
		else if (i % 3)
			len += (size_t)snprintf(t + len, cap - len,
						"{\"ph\": \"i\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": %zu, \"ts\": %zu.5, "
						"\"args\": {\"Bytes\": %s%zu, \"Addr\": %zu, \"Device Type\": 1, \"Device Id\": 0}}%s",
						i % 2, i, i % 3 == 1 ? "" : "-", 64 + i / 3 % 7, i / 3, sep);
		else
			len += (size_t)snprintf(t + len, cap - len,
						"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%zu\", \"pid\": 1, "
						"\"tid\": \"%zu\", \"ts\": %zu, \"dur\": 2.25}%s", i % 11, i % 2, i - 1, sep);
	}
	snprintf(t + len, cap - len, "%s", tail);
	return t;
}

static int generated(size_t bad, const char *what, const char *tail, cg_ingest_options o)
{
	char *t = trace(30000, bad, what, tail);
	int rc = all_ways(tu_write("big.json", t, (size_t)-1), o);
	cg_free(t);
	return rc;
}

static void generated_traces_read_the_same_on_several_threads(void **state)
{
	(void)state;
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	const char *end = "], \"baseTimeNanoseconds\": 5}\n";
	assert_int_equal(generated(0, "", end, o), 0);
	/* a bad event late in the document: counted, and fatal when strict */
	assert_int_equal(generated(25001, "{\"ph\": \"i\", \"name\": \"[memory]\", \"ts\": 1, \"args\": {}}", end, o), 0);
	assert_int_equal(generated(25001, "{\"ph\": \"X\", \"name\": \"a\\\"b\", \"ts\": 1e}", end, o), 0);
	o.strict = true;
	assert_int_equal(generated(25001, "{\"ph\": \"i\", \"name\": \"[memory]\", \"ts\": 1, \"args\": {}}", end, o),
			 CG_EINPUT);
	o.strict = false;
	/* not JSON: a syntax error of the document, and a cut-off end */
	assert_int_equal(generated(25001, "{\"ph\": \"X\"} {", end, o), CG_EINPUT);
	assert_int_equal(generated(0, "", "", o), 0);
	/* an event over the limit */
	o.max_line_bytes = 150;
	assert_int_equal(generated(20000, "{\"ph\": \"X\", \"name\": \"                                                     "
					  "                                                                             \"}",
				   end, o), 0);
	o.max_line_bytes = (cg_ingest_options)CG_INGEST_OPTIONS_INIT.max_line_bytes;
	/* a record limit reached late */
	o.max_records = 20000;
	assert_int_equal(generated(0, "", end, o), CG_ELIMIT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_sample_reads_the_same_on_several_threads),
		cmocka_unit_test(generated_traces_read_the_same_on_several_threads),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
