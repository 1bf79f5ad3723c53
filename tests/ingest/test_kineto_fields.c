/* The two ways of reading a Kineto event (kineto_fields.h) agree: the scan
 * either declines an event or gives the fields cJSON's tree gives, on every
 * event of every Kineto sample, on mutations of them, on hand-written edge
 * cases and on the fuzz corpus; and a whole trace read with the scan gives
 * the same timeline, in every field, as one read through cJSON alone. */
#include "ingestutil.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "chrome_stream.h"
#include "kineto.h"
#include "kineto_fields_diff.h"
#include "tl_same.h"
#include "xalloc.h"

static const char *const samples[] = {
	"external/kineto_resnet50_num_workers_0.worker0.1623143089861.pt.trace.json.gz",
	"external/tracelens_h100_bert_small.json.gz",
	"external/tracelens_h100_falconsai_nsfw.json.gz",
	"external/tracelens_h100_owlv2_large.json.gz",
	"external/tracelens_h100_qwen1.5_0.5b.json.gz",
	"external/tracelens_mi300_bert_small.json.gz",
	"external/tracelens_mi300_ddp_resnet18_train.json.gz",
	"external/tracelens_mi300_falconsai_nsfw.json.gz",
	"external/tracelens_mi300_owlv2_large.json.gz",
	"external/tracelens_mi300_timesformer.json.gz",
	"external/tracelens_normalization_layer_test.json.gz",
	"external/tracelens_sglang_decode_bs32_capture.json.gz",
	"external/tracelens_vllm_decode_full_graph_capture.pt.trace.json.gz",
};
#define NSAMPLES (sizeof samples / sizeof samples[0])

static void agree(const char *text, size_t len, int *accepted)
{
	const char *why = kfd_compare(text, len, accepted);
	if (why)
		fail_msg("%s on: %.*s", why, (int)(len < 300 ? len : 300), text);
}

static int agrees(const char *text)
{
	int accepted;
	agree(text, strlen(text), &accepted);
	return accepted;
}

/* Small deterministic changes to one event, each compared. */
static void mutate(const char *text, size_t len, uint64_t seed)
{
	static const char bytes[] = "\"\\{}[],:0-.eE \n\t\001xtfn";
	char *buf = cg_malloc(len + 2);
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
	for (int m = 0; m < 8; m++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t at = (size_t)(x % len);
		char b = bytes[(x >> 32) % (sizeof bytes - 1)];
		size_t n = len;
		memcpy(buf, text, len);
		switch (m % 4) {
		case 0: buf[at] = b; break;					/* replace */
		case 1: memmove(buf + at + 1, buf + at, len - at); buf[at] = b; n++; break; /* insert */
		case 2: memmove(buf + at, buf + at + 1, len - at - 1); n--; break; /* delete */
		default: n = at; break;						/* cut */
		}
		int accepted;
		agree(buf, n, &accepted);
	}
	cg_free(buf);
}

/* Every event of path through both ways (and every 31st mutated); returns
 * how many events there were and how many the scan took. */
static void each_event(const char *path, uint64_t *events, uint64_t *taken)
{
	cg_reader *r;
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_reader_open(&r, path, NULL, &err), 0);
	cg_chrome_stream *s = cg_chrome_stream_new(r, NULL);
	cg_chrome_event ev;
	int rc;
	*events = *taken = 0;
	while ((rc = cg_chrome_stream_next(s, &ev, &err)) > 0) {
		int accepted;
		agree(ev.data, ev.len, &accepted);
		++*events;
		*taken += (uint64_t)accepted;
		if (ev.ordinal % 31 == 0 && ev.len > 1)
			mutate(ev.data, ev.len, ev.ordinal);
	}
	assert_int_equal(rc, 0);
	cg_chrome_stream_free(s);
	cg_reader_close(r);
}

static void every_sample_event_gives_the_same_fields_both_ways(void **state)
{
	(void)state;
	for (size_t i = 0; i < NSAMPLES; i++) {
		uint64_t events, taken;
		each_event(tu_sample(samples[i]), &events, &taken);
		/* the scan is for PyTorch's own shape: it must take nearly all */
		if (taken * 100 < events * 99)
			fail_msg("%s: the scan took only %llu of %llu events", samples[i], (unsigned long long)taken,
				 (unsigned long long)events);
	}
}

static void edge_cases_agree_or_are_declined(void **state)
{
	(void)state;
	/* taken: the shape PyTorch writes, and its variations */
	assert_true(agrees("{\"ph\": \"X\", \"name\": \"aten::mm\", \"ts\": 1.5, \"dur\": 2, \"pid\": 1, \"tid\": \"7\"}"));
	assert_true(agrees("{}"));
	assert_true(agrees(" {\n\t\"name\" : \"[memory]\" , \"args\" : { } }\r\n"));
	assert_true(agrees("{\"name\": \"a\", \"name\": \"b\", \"args\": 3, \"args\": {\"Bytes\": 1}}")); /* first wins */
	assert_true(agrees("{\"args\": {\"Bytes\": -8, \"Bytes\": 9, \"Addr\": \"0x7f\", \"Device Id\": null, "
			   "\"Device Type\": [1, {\"x\": [true]}], \"Total Allocated\": 1e3, \"Total Reserved\": {}}}"));
	assert_true(agrees("{\"ts\": -0.0E+05, \"dur\": 00012, \"pid\": false, \"tid\": true}"));
	assert_true(agrees("{\"Bytes\": 5, \"args\": {\"ph\": \"X\", \"name\": \"inner\"}}")); /* not confused */
	assert_true(agrees("{\"name\": \"\xc3\xa9\xff\x01\"}")); /* bytes as they are, as cJSON keeps them */
	/* declined, cJSON decides */
	assert_false(agrees("{\"name\": \"a\\\"b\"}"));			  /* escapes */
	assert_false(agrees("{\"name\": \"a\\u0000b\"}"));
	static const char nul[] = "{\"name\": \"[memory]\0x\"}"; /* a NUL: valuestring ends there */
	int accepted;
	agree(nul, sizeof nul - 1, &accepted);
	assert_false(accepted);
	assert_false(agrees("{\"ts\": 1.}"));			/* not JSON's grammar */
	assert_false(agrees("{\"ts\": .5}"));
	assert_false(agrees("{\"ts\": +1}"));
	assert_false(agrees("{\"ts\": 1e}"));
	assert_false(agrees("{\"ts\": 12345678901234567890123456789012345678901}")); /* 41 digits */
	assert_false(agrees("{\"ts\": 1,}"));			/* trailing comma */
	assert_false(agrees("{\"ts\": 1 2}"));
	assert_false(agrees("{\"ts\": tru}"));
	assert_false(agrees("{\"ts\": nullx}"));
	assert_false(agrees("{\"ts\"\001: 1}"));		/* whitespace only to cJSON */
	assert_false(agrees("[1]"));
	assert_false(agrees("{\"a\": 1} x"));
	assert_false(agrees("{\"a\": 1"));
	assert_false(agrees(""));
	char deep[200];
	size_t n = 0;
	n += (size_t)snprintf(deep, sizeof deep, "{\"args\": {\"x\": ");
	for (int i = 0; i < 40; i++)
		deep[n++] = '[';
	for (int i = 0; i < 40; i++)
		deep[n++] = ']';
	deep[n++] = '}';
	deep[n++] = '}';
	deep[n] = '\0';
	assert_false(agrees(deep)); /* deeper than the scan goes */
}

/* The fuzz target's corpus, each input one event. */
static void every_fuzz_corpus_input_agrees(void **state)
{
	(void)state;
	DIR *d = opendir(FUZZ_CORPUS_DIR);
	assert_non_null(d);
	struct dirent *e;
	int files = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", FUZZ_CORPUS_DIR, e->d_name);
		FILE *f = fopen(path, "rb");
		assert_non_null(f);
		static char buf[1 << 16];
		size_t n = fread(buf, 1, sizeof buf, f);
		fclose(f);
		int accepted;
		agree(buf, n, &accepted);
		files++;
	}
	closedir(d);
	assert_true(files > 0);
}

/* Whole traces: the scan's timeline equals cJSON's in every field. */
static void every_sample_reads_the_same_timeline_both_ways(void **state)
{
	(void)state;
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	for (size_t i = 0; i < NSAMPLES; i++) {
		cg_timeline *fast = NULL, *slow = NULL;
		cg_error e1 = CG_ERROR_INIT, e2 = CG_ERROR_INIT;
		o.cjson_only = false;
		int rc1 = cg_ingest(&fast, tu_sample(samples[i]), &o, &e1);
		o.cjson_only = true;
		int rc2 = cg_ingest(&slow, tu_sample(samples[i]), &o, &e2);
		assert_int_equal(rc1, 0);
		assert_int_equal(rc2, 0);
		same_timeline(fast, slow);
		cg_timeline_free(fast);
		cg_timeline_free(slow);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(edge_cases_agree_or_are_declined),
		cmocka_unit_test(every_sample_event_gives_the_same_fields_both_ways),
		cmocka_unit_test(every_fuzz_corpus_input_agrees),
		cmocka_unit_test(every_sample_reads_the_same_timeline_both_ways),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
