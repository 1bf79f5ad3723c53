/* What the binary makes of input that is not quite a trace, or not one at
 * all: a byte-order mark, endless devices, a Chrome trace whose first key
 * is long, compressed and UTF-16 files named by their magic bytes. Each
 * case asserts the exact message and the exit status. */
#include "runutil.h"

#include <string.h>
#include <unistd.h>

/* summary.json of `cgmem summary --json ARGS... FILE`, asserted valid. */
static cJSON *summary_json(const char *trace, const char *threads, const char *parser)
{
	char *so, *se;
	int rc = tu_run(&so, &se, NULL, "summary", "--json", "--threads", threads, "--parser", parser, trace, NULL);
	if (rc != 0)
		fail_msg("exit %d; stderr: %s", rc, se);
	cJSON *j = cJSON_Parse(so);
	if (!j)
		fail_msg("summary.json of %s is not valid JSON: %.300s", trace, so);
	free(so);
	free(se);
	return j;
}

/* --- a UTF-8 byte-order mark ------------------------------------------------- */

static void a_byte_order_mark_before_a_jsonl_trace_changes_nothing(void **state)
{
	size_t n;
	char *text = tu_read(tu_sample("mlp_adam.jsonl"), &n);
	char *marked = malloc(n + 3);
	memcpy(marked, "\xef\xbb\xbf", 3);
	memcpy(marked + 3, text, n);
	char plain[600], bom[600]; /* tu_path's buffers rotate */
	snprintf(plain, sizeof plain, "%s", tu_write("plain.jsonl", text, n));
	snprintf(bom, sizeof bom, "%s", tu_write("bom.jsonl", marked, n + 3));
	free(text);
	free(marked);
	static const char *const threads[] = {"1", "2"}, *const parsers[] = {"fast", "cjson"};
	for (int t = 0; t < 2; t++) {
		for (int p = 0; p < 2; p++) {
			cJSON *a = summary_json(plain, threads[t], parsers[p]);
			cJSON *b = summary_json(bom, threads[t], parsers[p]);
			assert_int_equal(tu_json_u64(b, "source", "records", "meta", NULL), 1);
			assert_int_equal(tu_json_u64(b, "source", "bad_lines", NULL), 0);
			assert_int_equal(tu_json_u64(b, "source", "file_bytes", NULL),
					 tu_json_u64(a, "source", "file_bytes", NULL) + 3);
			/* The path and the three bytes of the mark aside, the same document. */
			static const char *const differ[] = {"path", "file_bytes", "data_bytes"};
			for (int k = 0; k < 3; k++) {
				cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItem(a, "source"), differ[k]);
				cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItem(b, "source"), differ[k]);
			}
			assert_true(cJSON_Compare(a, b, true));
			cJSON_Delete(a);
			cJSON_Delete(b);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_byte_order_mark_before_a_jsonl_trace_changes_nothing),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
