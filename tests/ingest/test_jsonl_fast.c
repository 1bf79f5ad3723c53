/* The fast JSONL scanner against cJSON: every line of every sample and every
 * input of the fuzz corpus goes through both paths, which must agree field
 * by field whenever the scanner accepts a line. */
#include "testutil.h"

#include <dirent.h>
#include <string.h>

#include "jsonl_diff.h"
#include "jsonl_parser.h"

typedef struct paths {
	cg_jsonl_parser *fast, *ref;
	size_t lines, accepted;
} paths;

/* Compares the paths on text[0..len); returns whether the line is a meta record. */
static bool compare_line(paths *p, const char *text, size_t len, const char *where)
{
	char *line = malloc(len + 1);
	memcpy(line, text, len);
	line[len] = '\0';
	int accepted;
	const char *why = jd_compare(p->fast, p->ref, line, len, &accepted);
	if (why)
		fail_msg("%s: %s: %.*s", where, why, (int)(len < 200 ? len : 200), line);
	p->lines++;
	p->accepted += (size_t)accepted;
	bool meta = strstr(line, "\"kind\":\"meta\"") != NULL;
	free(line);
	return meta;
}

static paths open_paths(void)
{
	return (paths){cg_jsonl_parser_new(), cg_jsonl_parser_new(), 0, 0};
}

static void close_paths(paths *p)
{
	cg_jsonl_parser_free(p->fast);
	cg_jsonl_parser_free(p->ref);
}

/* Does the scanner accept this line (and agree with cJSON)? */
static bool accepts(const char *line)
{
	paths p = open_paths();
	compare_line(&p, line, strlen(line), "hand-written line");
	bool ok = p.accepted == 1;
	close_paths(&p);
	return ok;
}

static void every_sample_line_gives_the_same_fields_by_both_paths(void **state)
{
	static const char *const samples[] = {"mlp_adam.jsonl", "cnn_sgd.jsonl",
					      "leak_loss_history.jsonl", "mlp_adam_cut.jsonl"};
	for (size_t s = 0; s < sizeof samples / sizeof samples[0]; s++) {
		size_t n;
		char *text = tu_read(tu_sample(samples[s]), &n);
		assert_non_null(text);
		paths p = open_paths();
		size_t metas = 0, cut = 0;
		for (char *line = text; line < text + n;) {
			char *nl = memchr(line, '\n', (size_t)(text + n - line));
			size_t len = nl ? (size_t)(nl - line) : (size_t)(text + n - line);
			metas += compare_line(&p, line, len, samples[s]);
			cut += !nl;
			line += len + 1;
		}
		/* Everything but the meta line (and a cut last line) is a common shape. */
		assert_int_equal(p.accepted, p.lines - metas - cut);
		close_paths(&p);
		free(text);
	}
}

static void every_fuzz_corpus_input_gives_the_same_fields_by_both_paths(void **state)
{
	DIR *d = opendir(FUZZ_CORPUS_DIR);
	assert_non_null(d);
	paths p = open_paths();
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", FUZZ_CORPUS_DIR, e->d_name);
		size_t n;
		char *data = tu_read(path, &n);
		assert_non_null(data);
		compare_line(&p, data, n, e->d_name);
		free(data);
	}
	closedir(d);
	assert_true(p.lines >= 30);
	assert_true(p.accepted > 0 && p.accepted < p.lines);
	close_paths(&p);
}

static void common_shapes_are_scanned_without_cjson(void **state)
{
	assert_true(accepts("{}"));
	assert_true(accepts(" {\t\"kind\" : \"memory\" , \"bytes\" : 12 ,\"shape\":[ 1 , 2 ] } "));
	assert_true(accepts("{\"kind\":\"op\",\"input_shapes\":[[512,784],[]],\"x\":{\"y\":[true,false,null]}}"));
	assert_true(accepts("{\"kind\":\"memory\",\"bytes\":-0,\"shape\":[01,2]}"));
	assert_true(accepts("{\"shape\":[[1,2],{\"a\":[3]},\"x\",true,null],\"inputs\":[]}"));
	assert_true(accepts("{\"kind\":\"op\",\"shape\":{\"not\":\"an array\"}}"));
}

static void duplicate_keys_keep_their_first_value_in_both_paths(void **state)
{
	paths p = open_paths();
	const char *line = "{\"bytes\":1,\"inputs\":[\"a\",\"b\"],\"bytes\":2,\"inputs\":[\"c\"]}";
	compare_line(&p, line, strlen(line), "duplicates");
	assert_int_equal(p.accepted, 1);
	const cg_fields *f;
	assert_int_equal(cg_jsonl_parse_fast(p.fast, line, strlen(line), &f), 1);
	assert_int_equal(f->v[CG_F_BYTES].n, 1);
	assert_memory_equal(f->v[CG_F_BYTES].s, "1", 1);
	assert_int_equal(f->v[CG_F_INPUTS].count, 2);
	assert_int_equal(f->nelems, 2);
	assert_string_equal(f->elems[1].s, "b");
	close_paths(&p);
}

static void anything_unusual_is_left_to_cjson(void **state)
{
	assert_false(accepts("{\"kind\":\"mem\\u006fry\"}"));	       /* escape */
	assert_false(accepts("{\"name\":\"caf\xc3\xa9\"}"));	       /* non-ASCII */
	assert_false(accepts("{\"name\":\"tab\there\"}"));	       /* control byte */
	assert_true(accepts("{\"norm\":1.5e3,\"bytes\":-0.25E-07}"));
	assert_false(accepts("{\"bytes\":1.}"));		       /* strtod's, not JSON's */
	assert_false(accepts("{\"bytes\":.5}"));
	assert_false(accepts("{\"bytes\":1,}"));		       /* invalid */
	assert_false(accepts("{\"bytes\":1} x"));		       /* trailing text */
	assert_false(accepts("[1,2,3]"));			       /* not an object */
	assert_false(accepts("{\"measured\":truex}"));		       /* invalid literal */
	assert_false(accepts("{\"kind\":\"op\",\r\"bytes\":1}"));      /* cJSON's whitespace */
	assert_false(accepts("{\"kind\":\"meta\",\"schema\":\"x\"}")); /* meta keeps members */
	assert_false(accepts("{\"bytes\":12345678901234567890123456789012345678901}"));
	char deep[200] = "{\"a\":";
	for (int i = 0; i < 40; i++)
		strcat(deep, "[");
	for (int i = 0; i < 40; i++)
		strcat(deep, "]");
	strcat(deep, "}");
	assert_false(accepts(deep));
}

/* One parser reads these in turn, learning and reusing line shapes; each
 * line must give what cJSON gives, and be accepted or declined as when read
 * alone. */
static void lines_read_by_a_learned_shape_agree_with_cjson(void **state)
{
	static const struct {
		const char *line;
		bool accepted;
	} lines[] = {
		{"{\"kind\":\"memory\",\"bytes\":12,\"shape\":[1,2],\"device\":\"cuda:0\"}", true},
		{"{\"kind\":\"memory\",\"bytes\":7,\"shape\":[3],\"device\":\"cpu\"}", true},
		{"{\"kind\":\"memory\",\"bytes\":8,\"shape\":[],\"device\":\"a-much-longer-device-name\"}", true},
		{"{\"kind\":\"memory\",\"bytes\":7,\"shape\":[3],\"device\":\"cpu\",\"action\":\"free\"}", true},
		{"{\"kind\":\"memory\",\"bytes\":7,\"shape\":[3]}", true},
		{"{\"kind\":\"memory\",\"bytes\":7,\"shape\":[3]}", true},
		{"{\"kind\":\"memory\",\"bytes\":7 ,\"shape\":[3]}", true},
		{"{\"kind\":\"memory\",\"bytes\":7,\"shape\":[3],\"bytes\":9}", true},
		{"{\"kind\":\"memory\",\"bytes\":7,\"shape\":[3]}", true},
		{"{\"kind\":\"memory\",\"bytes\":1.,\"shape\":[3]}", false},
		{"{\"kind\":\"memory\",\"bytes\":7,\"shape\":[3]} x", false},
		{"{\"kind\":\"memory\",\"bytes\":7,\"shape\":[3]}   ", true},
		{"{\"kind\":\"memory\",\"bytes\":7,\"shape\":[3,\"x\"]}", true},
		{"{\"kind\":\"memory\",\"bytes\":7,\"shape\":[3}", false},
		{"{\"kind\":\"memory\",\"bytes\":7,\"shape\":[4]}", true},
		{"{\"kind\":\"memory\",\"bytes\":\"7\",\"shape\":{\"a\":1}}", true},
		{"{\"kind\":\"memory\",\"bytes\":7,\"shape\":[4],", false},
		{"{\"kind\":\"memory\",\"bytes\":7,\"shape\":", false},
		{"{\"kind\":\"memory\",\"not_a_key\":1,\"bytes\":3}", true},
		{"{\"kind\":\"memory\",\"not_a_key\":1,\"bytes\":3}", true},
		{"{\"kind\":\"memory\",\"bytes\":5,\"an_unread_key_of_many_bytes\":1}", true},
		{"{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\"}", false},
		{"{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\"}", false},
		{"{\"kind\":\"span_end\",\"id\":\"s1\",\"duration_ns\":5}", true},
		{"{\"kind\":\"span_end\",\"id\":\"s2\",\"duration_ns\":6}", true},
		{"{\"kind\":\"span_end\",\"id\":\"s2\",\"duration_ns\":6.}", false},
		{"{\"bytes\":1}", true},
	};
	paths p = open_paths();
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		size_t before = p.accepted;
		compare_line(&p, lines[i].line, strlen(lines[i].line), "shaped lines");
		if ((p.accepted > before) != lines[i].accepted)
			fail_msg("line %zu: %s", i, lines[i].line);
		if (accepts(lines[i].line) != lines[i].accepted)
			fail_msg("line %zu read alone: %s", i, lines[i].line);
	}
	/* The repeats were read by a shape: lines 1, 2, 5, 8, 11, 14 at least. */
	assert_true(p.fast->shaped_lines >= 6);
	close_paths(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_sample_line_gives_the_same_fields_by_both_paths),
		cmocka_unit_test(every_fuzz_corpus_input_gives_the_same_fields_by_both_paths),
		cmocka_unit_test(common_shapes_are_scanned_without_cjson),
		cmocka_unit_test(duplicate_keys_keep_their_first_value_in_both_paths),
		cmocka_unit_test(anything_unusual_is_left_to_cjson),
		cmocka_unit_test(lines_read_by_a_learned_shape_agree_with_cjson),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
