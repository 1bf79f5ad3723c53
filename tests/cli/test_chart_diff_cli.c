/* The charts of cgmem diff through the binary: well-formed SVG, the
 * requested size, the same bytes for the same input. (Their pixels:
 * tests/render/chart/test_chart_diff.c.) */
#include "runutil.h"

#include <string.h>

static bool png_size(const char *path, unsigned *w, unsigned *h)
{
	size_t n;
	unsigned char *d = (unsigned char *)tu_read(path, &n);
	if (!d || n < 24 || memcmp(d, "\x89PNG", 4) != 0) {
		free(d);
		return false;
	}
	*w = (unsigned)d[16] << 24 | (unsigned)d[17] << 16 | (unsigned)d[18] << 8 | d[19];
	*h = (unsigned)d[20] << 24 | (unsigned)d[21] << 16 | (unsigned)d[22] << 8 | d[23];
	free(d);
	return true;
}

static void diff_charts_are_well_formed_sized_and_deterministic(void **state)
{
	const char *out[2] = {tu_path("c1"), tu_path("c2")};
	for (int k = 0; k < 2; k++)
		assert_int_equal(tu_run(NULL, NULL, NULL, "diff", tu_sample("mlp_adam.jsonl"),
					tu_sample("leak_loss_history.jsonl"), "-o", out[k], "-q", "--align", "phases", NULL),
				 0);
	static const char *const names[] = {"diff_timeline.cpu", "diff_change.cpu"};
	for (size_t i = 0; i < 2; i++) {
		char p1[600], p2[600];
		snprintf(p1, sizeof p1, "%s/%s.svg", out[0], names[i]);
		snprintf(p2, sizeof p2, "%s/%s.svg", out[1], names[i]);
		size_t n1, n2;
		char *s1 = tu_read(p1, &n1), *s2 = tu_read(p2, &n2);
		assert_non_null(s1);
		assert_non_null(s2);
		assert_int_equal(n1, n2);
		assert_memory_equal(s1, s2, n1);
		assert_non_null(strstr(s1, "width=\"1600px\""));
		free(s1);
		free(s2);
		char cmd[700];
		snprintf(cmd, sizeof cmd, "xmllint --noout '%s' 2>&1", p1);
		assert_int_equal(system(cmd), 0);
		unsigned w, h;
		snprintf(p1, sizeof p1, "%s/%s.png", out[0], names[i]);
		assert_true(png_size(p1, &w, &h));
		assert_int_equal(w, 1600);
		assert_int_equal(h, 900);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(diff_charts_are_well_formed_sized_and_deterministic),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
