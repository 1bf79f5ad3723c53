#include "pageutil.h"

#include "testutil.h"

#include <string.h>

const char tu_hostile_trace[] =
	"{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"run_id\":\"" TU_HOSTILE_SCRIPT
	"\",\"model\":\"" TU_HOSTILE_IMG "\"}\n"
	"{\"kind\":\"span_start\",\"id\":\"s|1\",\"name\":\"" TU_HOSTILE_SCRIPT
	"|pipe\",\"start_ns\":0,\"span_kind\":\"op\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":2,\"tensor_id\":\"" TU_HOSTILE_IMG "\",\"span_id\":\"s|1\",\"device\":\"cpu\","
	"\"bytes\":64,\"action\":\"alloc\",\"dtype\":\"f32\",\"op_name\":\"" TU_HOSTILE_SCRIPT "\",\"category\":\"activation\"}\n"
	"{\"kind\":\"memory\",\"timestamp_ns\":5,\"tensor_id\":\"x" TU_HOSTILE_IMG "\",\"span_id\":\"s|1\",\"device\":\"cpu\","
	"\"bytes\":64,\"action\":\"free\",\"dtype\":\"f32\",\"category\":\"" TU_HOSTILE_SCRIPT "\"}\n";

char *tu_without_explorer(const char *html)
{
	char *s = strdup(html);
	const char *cuts[][2] = {{"; script-src 'sha256-", "'"}, {"<script>", "</script>\n"}, {TU_DATA_TAG, "</script>\n"}};
	for (size_t c = 0; c < 3; c++) {
		char *p;
		while ((p = strstr(s, cuts[c][0])) != NULL) {
			char *end = strstr(p + strlen(cuts[c][0]), cuts[c][1]);
			assert_non_null(end);
			end += strlen(cuts[c][1]);
			memmove(p, end, strlen(end) + 1);
		}
	}
	return s;
}

char *tu_data_element(const char *html, size_t k)
{
	const char *p = strstr(html, TU_DATA_TAG);
	for (size_t i = 0; p && i < k; i++)
		p = strstr(p + 1, TU_DATA_TAG);
	assert_non_null(p);
	p += strlen(TU_DATA_TAG);
	const char *end = strstr(p, "</script>");
	assert_non_null(end);
	return strndup(p, (size_t)(end - p));
}
