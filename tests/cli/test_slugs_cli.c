/* Devices whose names have one file-name form ("cuda:0", "cuda-0",
 * "cuda/0"; two 200-byte names sharing their first 150 bytes) each get
 * charts of their own in `cgmem report`, linked once each from report.md
 * and report.html. (cg_chart_device_slugs itself: tests/render/chart/test_charts.c.) */
#include "runutil.h"

#include <string.h>
#include <sys/stat.h>

#define NDEV 5

static char long_a[201], long_b[201];

static const char *device(int k)
{
	static const char *const short_names[] = {"cuda:0", "cuda-0", "cuda/0"};
	return k < 3 ? short_names[k] : k == 3 ? long_a : long_b;
}

/* A trace of the devices in mask: each allocates (k + 1) KiB at 100 ns
 * and frees it at 900 ns, inside one span from 0 to 1000 ns, so that a
 * device's charts are the same whichever other devices the trace holds. */
static void write_trace(const char *name, unsigned mask)
{
	char *t = malloc(1 << 16);
	size_t n = 0;
	n += (size_t)snprintf(t + n, 4096, "{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"run_id\":\"slugs\"}\n"
					   "{\"kind\":\"span_start\",\"id\":\"s1\",\"name\":\"run\",\"start_ns\":0,"
					   "\"span_kind\":\"function\"}\n");
	for (int k = 0; k < NDEV; k++) {
		if (!(mask & (1u << k)))
			continue;
		for (int free_it = 0; free_it < 2; free_it++)
			n += (size_t)snprintf(t + n, 4096,
					      "{\"kind\":\"memory\",\"timestamp_ns\":%d,\"tensor_id\":\"t%d\",\"span_id\":\"s1\","
					      "\"device\":\"%s\",\"bytes\":%d,\"action\":\"%s\",\"dtype\":\"f32\","
					      "\"category\":\"activation\"}\n",
					      free_it ? 900 : 100, k, device(k), (k + 1) * 1024, free_it ? "free" : "alloc");
	}
	n += (size_t)snprintf(t + n, 4096, "{\"kind\":\"span_end\",\"id\":\"s1\",\"duration_ns\":1000}\n");
	tu_write(name, t, n);
	free(t);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

static void devices_with_one_file_name_form_get_files_of_their_own(void **state)
{
	memset(long_a, 'A', 150);
	memset(long_a + 150, 'x', 50);
	memset(long_b, 'A', 150);
	memset(long_b + 150, 'y', 50);
	char a127[128];
	memset(a127, 'A', 127);
	a127[127] = '\0';
	/* worked by hand: "cuda-0" is its own slug and keeps it; the others
	 * take -2, -3 in trace order; both long names cut to 127 bytes */
	char expected[NDEV][136];
	snprintf(expected[0], sizeof expected[0], "cuda-0-2");
	snprintf(expected[1], sizeof expected[1], "cuda-0");
	snprintf(expected[2], sizeof expected[2], "cuda-0-3");
	snprintf(expected[3], sizeof expected[3], "%s", a127);
	snprintf(expected[4], sizeof expected[4], "%s-2", a127);

	write_trace("all.jsonl", (1u << NDEV) - 1);
	char *out = strdup(tu_path("out"));
	assert_int_equal(tu_run(NULL, NULL, NULL, "report", tu_path("all.jsonl"), "-o", out, "-q", "--no-trace", NULL), 0);
	char *md = tu_read_in(out, "report.md", NULL);
	for (int k = 0; k < NDEV; k++) {
		/* the device's own trace, alone, in a folder of its own, under
		 * the same file name (the run's name is in the charts' titles) */
		char sub[32], trace[64], one_out[64];
		snprintf(sub, sizeof sub, "one%d", k);
		assert_int_equal(mkdir(tu_path(sub), 0755), 0);
		snprintf(trace, sizeof trace, "one%d/all.jsonl", k);
		write_trace(trace, 1u << k);
		snprintf(one_out, sizeof one_out, "one%d/out", k);
		char *alone = strdup(tu_path(one_out));
		assert_int_equal(tu_run(NULL, NULL, NULL, "report", tu_path(trace), "-o", alone, "-q", "--no-trace", NULL),
				 0);
		static const char *const kinds[] = {"timeline",      "breakdown",     "icicle",
						     "top_allocations", "fragmentation", "lifetimes"};
		for (size_t c = 0; c < sizeof kinds / sizeof kinds[0]; c++) {
			char name[400], alone_name[400];
			snprintf(name, sizeof name, "%s.%.135s.png", kinds[c], expected[k]);
			snprintf(alone_name, sizeof alone_name, "%s.%s.png", kinds[c], k < 3 ? "cuda-0" : a127);
			size_t n1, n2;
			char *mine = tu_read_in(out, name, &n1), *ref = tu_read_in(alone, alone_name, &n2);
			/* the device's own chart, pixel for pixel */
			assert_int_equal(n1, n2);
			assert_memory_equal(mine, ref, n1);
			free(mine);
			free(ref);
		}
		/* linked once, under the device's name */
		char link[800], file_link[400];
		snprintf(link, sizeof link, "on %.200s](timeline.%.135s.png)", device(k), expected[k]);
		snprintf(file_link, sizeof file_link, "](timeline.%.135s.png)", expected[k]);
		if (count(md, link) != 1)
			fail_msg("report.md does not link timeline.%s.png once from %s", expected[k], device(k));
		assert_int_equal(count(md, file_link), 1);
		free(alone);
	}
	free(md);
	/* report.html inlines each figure's SVG, its ids prefixed "f<N>-":
	 * without the prefixes, no two figures are the same file */
	char *html = tu_read_in(out, "report.html", NULL);
	char *svgs[64];
	size_t nsvg = 0;
	for (const char *p = html; nsvg < 64 && (p = strstr(p, "<svg")) != NULL; nsvg++) {
		const char *end = strstr(p, "</svg>");
		assert_non_null(end);
		char pre[16];
		snprintf(pre, sizeof pre, "f%zu-", nsvg + 1);
		size_t plen = strlen(pre);
		char *copy = malloc((size_t)(end - p) + 1), *o = copy;
		for (const char *q = p; q < end;) {
			if ((size_t)(end - q) >= plen && memcmp(q, pre, plen) == 0) {
				q += plen;
				continue;
			}
			*o++ = *q++;
		}
		*o = '\0';
		svgs[nsvg] = copy;
		p = end;
	}
	assert_int_equal(nsvg, NDEV * 6);
	for (size_t i = 0; i < nsvg; i++)
		for (size_t j = i + 1; j < nsvg; j++)
			if (strcmp(svgs[i], svgs[j]) == 0)
				fail_msg("figures %zu and %zu of report.html are the same chart", i + 1, j + 1);
	for (size_t i = 0; i < nsvg; i++)
		free(svgs[i]);
	free(html);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(devices_with_one_file_name_form_get_files_of_their_own),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
