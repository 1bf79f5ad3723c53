/* The per-device sections of summary.json (summary_device.h,
 * docs/summary-format.md, figures defined in docs/analysis.md), on the
 * trace of test_summary_json.c worked out by hand:
 *
 *   line  t    record                          live   span (phase)
 *   2-9        spans run [0, 1000], fwd [100, 400] (forward),
 *              bwd [400, 700] (backward), opt [700, 900] (optimizer)
 *   10    10   w   +1000 parameter  "empty"    1000   run
 *   11    110  a1  +400  activation "linear"   1400   fwd
 *   12    120  a2  +200  activation "relu"     1600   fwd
 *   13    410  g   +1000 gradient   "grad"     2600   bwd   <- the peak
 *   14    415  checkpoint used 3000, free 1000, reserved 4000
 *   15    420  a1  -400                        2200   bwd
 *   16    430  a2  -200                        2000   bwd
 *   17    440  ws  +300  temporary  "mm_ws"    2300   bwd
 *   18    450  ws  -300                        2000   bwd
 *   19    710  m   +500  optimizer_state       2500   opt
 *   20    720  g   -1000                       1500   opt
 *   21    800  x   +50   activation "leaky"    1550   opt   <- the end
 */
#include "summary_trace.h"
#include "jsonpath.h"

#include <string.h>

#include "analysis.h"
#include "summary_json.h"

#define A CG_ALLOC
#define F CG_FREE
#define DEV "cuda:0"

static cg_timeline *hand_trace(bool paired)
{
	cg_timeline *tl = tu_tl_new();
	tl->source.pairing_known = paired;
	summary_trace_add(tl);
	tu_tl_finalize(tl);
	return tl;
}

/* The first device of tl's summary, parsed (*doc to free). */
static cJSON *device_of(const cg_timeline *tl, cJSON **doc)
{
	cg_analysis *a;
	cg_error err = CG_ERROR_INIT;
	if (cg_analysis_run(&a, tl, NULL, &err) < 0)
		fail_msg("analysis failed: %s", err.msg);
	cg_sink *s = cg_sink_memory();
	cg_summary_json_write(s, a, false);
	*doc = cJSON_Parse(cg_sink_data(s, NULL));
	if (!*doc)
		fail_msg("summary.json does not parse:\n%s", cg_sink_data(s, NULL));
	cg_sink_close(s, NULL);
	cg_analysis_free(a);
	return tu_json_at(*doc, "devices", "0", NULL);
}

static const char *const categories[] = {"parameter", "optimizer_state", "input",   "temporary",	"activation",
					 "gradient",  "autograd_detail", "unknown", "before_profiling"};

/* bytes and count of each category in a by_category object; the others 0. */
static void assert_by_category(cJSON *by, const char *const *names, const uint64_t *bytes, const uint64_t *counts,
			       size_t n)
{
	assert_int_equal(cJSON_GetArraySize(by), 9);
	for (size_t c = 0; c < 9; c++) {
		uint64_t b = 0, k = 0;
		for (size_t i = 0; i < n; i++)
			if (strcmp(names[i], categories[c]) == 0)
				b = bytes[i], k = counts[i];
		if (U64(by, categories[c], "bytes") != b || U64(by, categories[c], "count") != k)
			fail_msg("%s: %llu B in %llu, expected %llu in %llu", categories[c],
				 (unsigned long long)U64(by, categories[c], "bytes"),
				 (unsigned long long)U64(by, categories[c], "count"), (unsigned long long)b,
				 (unsigned long long)k);
	}
}

/* At the peak (after g): w, a1, a2 and g; by the phase that allocated
 * them: none (w in run) 1000, forward 600, backward 1000. */
static void at_peak_breaks_the_peak_down(void **state)
{
	cg_timeline *tl = hand_trace(true);
	cJSON *doc, *d = device_of(tl, &doc);
	cJSON *p = AT(d, "at_peak");
	assert_int_equal(U64(p, "live_bytes"), 2600);
	assert_int_equal(U64(p, "live_allocations"), 4);
	assert_by_category(AT(p, "by_category"), (const char *const[]){"parameter", "activation", "gradient"},
			   (const uint64_t[]){1000, 600, 1000}, (const uint64_t[]){1, 2, 1}, 3);
	IS_TRUE(p, "allocations_listed");
	assert_int_equal(U64(p, "by_phase", "none", "bytes"), 1000);
	assert_int_equal(U64(p, "by_phase", "none", "by_category", "parameter"), 1000);
	assert_int_equal(U64(p, "by_phase", "forward", "bytes"), 600);
	assert_int_equal(U64(p, "by_phase", "forward", "by_category", "activation"), 600);
	assert_int_equal(U64(p, "by_phase", "backward", "bytes"), 1000);
	assert_int_equal(U64(p, "by_phase", "backward", "by_category", "gradient"), 1000);
	assert_int_equal(U64(p, "by_phase", "optimizer", "bytes"), 0);
	/* only non-zero categories are listed */
	assert_int_equal(LEN(p, "by_phase", "forward", "by_category"), 1);
	assert_int_equal(LEN(p, "by_phase", "optimizer", "by_category"), 0);
	/* largest first; w before g, both 1000 B, as it was allocated first */
	assert_int_equal(LEN(p, "top"), 4);
	static const char *const order[] = {"w", "g", "a1", "a2"};
	for (int i = 0; i < 4; i++) {
		char k[4];
		snprintf(k, sizeof k, "%d", i);
		assert_string_equal(STR(p, "top", k, "tensor"), order[i]);
	}
	/* an allocation object in full */
	cJSON *w = AT(p, "top", "0");
	assert_int_equal(U64(w, "bytes"), 1000);
	assert_string_equal(STR(w, "category"), "parameter");
	assert_string_equal(STR(w, "op"), "empty");
	assert_string_equal(STR(w, "span_path"), "run");
	assert_string_equal(STR(w, "phase"), "none");
	assert_int_equal(U64(w, "shape", "0"), 250);
	assert_string_equal(STR(w, "dtype"), "f32");
	assert_int_equal(U64(w, "allocated_ns"), 10);
	assert_int_equal(U64(w, "line"), 10);
	IS_FALSE(w, "before_trace");
	IS_NULL(w, "freed_ns");
	IS_NULL(w, "ended_by");
	assert_int_equal(U64(p, "top", "2", "freed_ns"), 420);
	cJSON_Delete(doc);
	cg_timeline_free(tl);
}

/* The node named name in a span tree (its index in *index). */
static cJSON *node(cJSON *tree, const char *name, int *index)
{
	for (int i = 0; i < cJSON_GetArraySize(tree); i++) {
		cJSON *n = cJSON_GetArrayItem(tree, i);
		if (strcmp(json_str(AT(n, "name")), name) == 0) {
			if (index)
				*index = i;
			return n;
		}
	}
	fail_msg("no node %s", name);
	return NULL;
}

/* all (2600: nothing outside spans) > run (own 1000: w) > fwd (600: a1,
 * a2) and bwd (1000: g), in pre-order. */
static void the_span_tree_holds_the_live_bytes_by_path(void **state)
{
	cg_timeline *tl = hand_trace(true);
	cJSON *doc, *d = device_of(tl, &doc);
	cJSON *t = AT(d, "span_tree_at_peak");
	cJSON *root = cJSON_GetArrayItem(t, 0);
	assert_string_equal(STR(root, "name"), "all");
	assert_string_equal(STR(root, "kind"), "root");
	assert_int_equal(U64(root, "depth"), 0);
	IS_NULL(root, "parent");
	assert_int_equal(U64(root, "own_bytes"), 0);
	assert_int_equal(U64(root, "total_bytes"), 2600);
	assert_int_equal(U64(root, "count"), 4);
	int run_i, fwd_i, bwd_i;
	cJSON *run = node(t, "run", &run_i), *fwd = node(t, "fwd", &fwd_i), *bwd = node(t, "bwd", &bwd_i);
	assert_string_equal(STR(run, "kind"), "span");
	assert_int_equal(U64(run, "depth"), 1);
	assert_int_equal(U64(run, "parent"), 0);
	assert_int_equal(U64(run, "own_bytes"), 1000);
	assert_int_equal(U64(run, "own_count"), 1);
	assert_int_equal(U64(run, "total_bytes"), 2600);
	assert_int_equal(U64(run, "count"), 4);
	assert_int_equal(U64(fwd, "parent"), (uint64_t)run_i);
	assert_int_equal(U64(fwd, "depth"), 2);
	assert_string_equal(STR(fwd, "phase"), "forward");
	assert_int_equal(U64(fwd, "own_bytes"), 600);
	assert_int_equal(U64(fwd, "own_count"), 2);
	assert_int_equal(U64(fwd, "total_bytes"), 600);
	assert_string_equal(STR(bwd, "phase"), "backward");
	assert_int_equal(U64(bwd, "total_bytes"), 1000);
	/* pre-order, children in the time order of their spans */
	assert_true(run_i < fwd_i && fwd_i < bwd_i);
	cJSON_Delete(doc);
	cg_timeline_free(tl);
}

/* Category maxima, and each phase's window: forward [100, 400] enters at
 * 1000 and peaks at 1600 (t 120); backward [400, 700] at 2600 (t 410);
 * optimizer [700, 900] enters at 2000 and peaks at 2500 (t 710). */
static void over_time_has_category_maxima_and_phase_peaks(void **state)
{
	cg_timeline *tl = hand_trace(true);
	cJSON *doc, *d = device_of(tl, &doc);
	cJSON *o = AT(d, "over_time");
	IS_TRUE(o, "timed");
	static const struct {
		const char *category;
		uint64_t bytes, t;
	} maxima[] = {{"parameter", 1000, 10},	{"activation", 600, 120},      {"gradient", 1000, 410},
		      {"temporary", 300, 440}, {"optimizer_state", 500, 710}};
	for (size_t i = 0; i < sizeof maxima / sizeof *maxima; i++) {
		assert_int_equal(U64(o, "by_category", maxima[i].category, "max_bytes"), maxima[i].bytes);
		assert_int_equal(U64(o, "by_category", maxima[i].category, "max_time_ns"), maxima[i].t);
	}
	assert_int_equal(U64(o, "by_category", "input", "max_bytes"), 0);
	IS_NULL(o, "by_category", "input", "max_time_ns");
	static const struct {
		const char *phase;
		uint64_t peak, t, allocated, freed, allocations, frees;
	} phases[] = {{"forward", 1600, 120, 600, 0, 2, 0},
		      {"backward", 2600, 410, 1300, 900, 2, 3},
		      {"optimizer", 2500, 710, 550, 1000, 2, 1}};
	for (size_t i = 0; i < 3; i++) {
		cJSON *p = AT(o, "by_phase", phases[i].phase);
		IS_TRUE(p, "ran");
		assert_int_equal(U64(p, "peak_bytes"), phases[i].peak);
		assert_int_equal(U64(p, "peak_time_ns"), phases[i].t);
		assert_int_equal(U64(p, "allocated_bytes"), phases[i].allocated);
		assert_int_equal(U64(p, "freed_bytes"), phases[i].freed);
		assert_int_equal(U64(p, "allocations"), phases[i].allocations);
		assert_int_equal(U64(p, "frees"), phases[i].frees);
	}
	/* w, allocated in run, has no phase */
	assert_int_equal(U64(o, "by_phase", "none", "allocated_bytes"), 1000);
	assert_int_equal(U64(o, "by_phase", "none", "allocations"), 1);
	assert_int_equal(LEN(o, "steps"), 0);
	cJSON_Delete(doc);
	cg_timeline_free(tl);
}

/* At t 415 live is 2600: fragmentation (4000 - 2600) / 4000 = 0.35;
 * capacity 3000 + 1000; outside the allocator 3000 - 4000 = -1000. */
static void checkpoints_have_fragmentation_and_headroom(void **state)
{
	cg_timeline *tl = hand_trace(true);
	cJSON *doc, *d = device_of(tl, &doc);
	cJSON *c = AT(d, "checkpoints");
	assert_int_equal(U64(c, "count"), 1);
	cJSON *k = AT(c, "list", "0");
	assert_int_equal(U64(k, "time_ns"), 415);
	assert_int_equal(U64(k, "line"), 14);
	assert_int_equal(U64(k, "used_bytes"), 3000);
	assert_int_equal(U64(k, "free_bytes"), 1000);
	assert_int_equal(U64(k, "capacity_bytes"), 4000);
	assert_int_equal(U64(k, "reserved_bytes"), 4000);
	assert_int_equal(U64(k, "live_bytes"), 2600);
	assert_true(DBL(k, "fragmentation") == 0.35);
	assert_true(DBL(k, "outside_allocator_bytes") == -1000.0);
	assert_true(DBL(c, "max_fragmentation", "value") == 0.35);
	assert_int_equal(U64(c, "max_fragmentation", "time_ns"), 415);
	assert_int_equal(U64(c, "nearest_peak", "time_ns"), 415);
	assert_int_equal(U64(c, "nearest_peak", "headroom_bytes"), 1000);
	assert_int_equal(U64(c, "nearest_peak", "capacity_bytes"), 4000);
	cJSON_Delete(doc);
	cg_timeline_free(tl);
}

/* Every request is small (docs/analysis.md, section 5): rounded to 512 B
 * (w 1024, a1 512, a2 512, g 1024, ...), all in the one 2 MiB small-pool
 * segment mapped for w at t 10, one 2 MiB page with expandable segments.
 * At the peak the blocks w, a1, a2, g fill the segment's first 3072 B:
 * the rest, 2097152 - 3072 = 2094080 B, is one free block. */
static void the_allocator_replay_is_an_estimate(void **state)
{
	cg_timeline *tl = hand_trace(true);
	cJSON *doc, *d = device_of(tl, &doc);
	cJSON *r = AT(d, "allocator_replay");
	IS_TRUE(r, "estimate");
	IS_TRUE(r, "available");
	IS_NULL(r, "unavailable_reason");
	const char *variants[] = {"standard", "expandable_segments"};
	for (int v = 0; v < 2; v++) {
		cJSON *s = AT(r, variants[v]);
		assert_int_equal(U64(s, "peak_reserved_bytes"), 2097152);
		assert_int_equal(U64(s, "peak_time_ns"), 10);
		assert_int_equal(U64(s, "segments"), 1);
		assert_int_equal(LEN(s, "reserved_over_time"), 1);
		assert_int_equal(U64(s, "reserved_over_time", "0", "0"), 10);
		assert_int_equal(U64(s, "reserved_over_time", "0", "1"), 2097152);
	}
	cJSON *p = AT(r, "standard", "at_peak");
	assert_int_equal(U64(p, "reserved_bytes"), 2097152);
	assert_int_equal(U64(p, "allocated_bytes"), 3072);
	assert_int_equal(U64(p, "live_bytes"), 2600);
	assert_int_equal(U64(p, "free_bytes"), 2094080);
	assert_int_equal(U64(p, "largest_free_block_bytes"), 2094080);
	assert_true(DBL(p, "fragmentation") == (2097152.0 - 2600.0) / 2097152.0);
	assert_true(DBL(p, "fragmentation_largest_free") == 0.0);
	assert_true(DBL(r, "expandable_saves_bytes") == 0.0);
	assert_int_equal(U64(d, "checkpoints", "list", "0", "estimated_reserved_bytes"), 2097152);
	cJSON_Delete(doc);
	cg_timeline_free(tl);
}

/* Live at the end: w (parameter), m (optimizer state) and x (an
 * activation): x alone is a leak candidate, made in run/opt outside any
 * step. */
static void leaks_are_what_is_neither_parameter_nor_optimizer_state(void **state)
{
	cg_timeline *tl = hand_trace(true);
	cJSON *doc, *d = device_of(tl, &doc);
	cJSON *l = AT(d, "leaks");
	IS_TRUE(l, "available");
	assert_int_equal(U64(l, "bytes"), 50);
	assert_int_equal(U64(l, "count"), 1);
	assert_int_equal(U64(l, "groups_total"), 1);
	cJSON *g = AT(l, "groups", "0");
	assert_string_equal(STR(g, "span_path"), "run/opt");
	assert_string_equal(STR(g, "op"), "leaky");
	assert_string_equal(STR(g, "category"), "activation");
	assert_int_equal(U64(g, "bytes"), 50);
	assert_int_equal(U64(g, "count"), 1);
	assert_int_equal(U64(g, "steps"), 0);
	assert_int_equal(U64(g, "first_ns"), 800);
	assert_int_equal(U64(g, "last_ns"), 800);
	assert_string_equal(STR(g, "example_tensor"), "x");
	assert_int_equal(U64(g, "example_line"), 21);
	assert_int_equal(LEN(l, "per_step"), 0);
	assert_int_equal(U64(l, "outside_steps", "count"), 1);
	assert_int_equal(U64(l, "outside_steps", "bytes"), 50);
	assert_int_equal(U64(l, "leaking_steps"), 0);
	cJSON_Delete(doc);
	cg_timeline_free(tl);
}

/* Lifetimes: a1, a2 and g lived 310 ns, ws 10 ns. Four buckets a decade:
 * 10 ns is in bucket 5, [10^1, 10^1.25) = [10, 18) rounded up; 310 ns in
 * bucket 10, [10^2.25, 10^2.5) = [178, 317); buckets 6 to 9 are empty.
 * ws, freed (450) before its span bwd ended (700), is the one temporary;
 * a1 outlived fwd (420 > 400) and g bwd (720 > 700). */
static void lifetimes_have_buckets_and_temporaries(void **state)
{
	cg_timeline *tl = hand_trace(true);
	cJSON *doc, *d = device_of(tl, &doc);
	cJSON *l = AT(d, "lifetimes");
	IS_TRUE(l, "available");
	assert_int_equal(U64(l, "buckets_per_decade"), 4);
	assert_int_equal(U64(l, "ended", "count"), 4);
	assert_int_equal(U64(l, "ended", "bytes"), 1900);
	assert_int_equal(U64(l, "never_freed", "count"), 3);
	assert_int_equal(U64(l, "never_freed", "bytes"), 1550);
	assert_int_equal(U64(l, "before_trace", "count"), 0);
	assert_int_equal(LEN(l, "buckets"), 6);
	cJSON *first = AT(l, "buckets", "0"), *last = AT(l, "buckets", "5");
	assert_int_equal(U64(first, "lower_ns"), 10);
	assert_int_equal(U64(first, "upper_ns"), 18);
	assert_int_equal(U64(first, "count"), 1);
	assert_int_equal(U64(first, "bytes"), 300);
	assert_int_equal(U64(first, "by_category", "temporary", "bytes"), 300);
	for (int b = 1; b < 5; b++) {
		char k[4];
		snprintf(k, sizeof k, "%d", b);
		assert_int_equal(U64(l, "buckets", k, "count"), 0);
	}
	assert_int_equal(U64(last, "lower_ns"), 178);
	assert_int_equal(U64(last, "upper_ns"), 317);
	assert_int_equal(U64(last, "count"), 3);
	assert_int_equal(U64(last, "bytes"), 1600);
	assert_int_equal(U64(last, "by_category", "activation", "count"), 2);
	assert_int_equal(U64(last, "by_category", "activation", "bytes"), 600);
	assert_int_equal(U64(last, "by_category", "gradient", "bytes"), 1000);
	assert_int_equal(LEN(last, "by_category"), 2);
	assert_int_equal(U64(l, "temporaries", "count"), 1);
	assert_int_equal(U64(l, "temporaries", "bytes"), 300);
	assert_int_equal(U64(l, "temporaries", "by_category", "temporary", "count"), 1);
	assert_int_equal(LEN(l, "temporaries", "by_category"), 1);
	cJSON_Delete(doc);
	cg_timeline_free(tl);
}

/* The end is x's record at t 800, 100 ns into opt; the last checkpoint
 * used 3000 of 4000 (under 95 %): no verdict. */
static void the_end_says_where_and_what_was_live(void **state)
{
	cg_timeline *tl = hand_trace(true);
	cJSON *doc, *d = device_of(tl, &doc);
	cJSON *e = AT(d, "end");
	assert_string_equal(STR(e, "moment"), "last_record");
	assert_int_equal(U64(e, "time_ns"), 800);
	assert_int_equal(U64(e, "last_record_ns"), 800);
	assert_int_equal(U64(e, "live_bytes"), 1550);
	assert_int_equal(U64(e, "live_allocations"), 3);
	assert_by_category(AT(e, "by_category"), (const char *const[]){"parameter", "optimizer_state", "activation"},
			   (const uint64_t[]){1000, 500, 50}, (const uint64_t[]){1, 1, 1}, 3);
	IS_NULL(e, "out_of_memory");
	assert_int_equal(U64(e, "checkpoint", "time_ns"), 415);
	assert_int_equal(U64(e, "checkpoint", "line"), 14);
	assert_int_equal(U64(e, "checkpoint", "used_bytes"), 3000);
	assert_int_equal(U64(e, "checkpoint", "capacity_bytes"), 4000);
	assert_int_equal(U64(e, "checkpoint", "headroom_bytes"), 1000);
	assert_int_equal(U64(e, "checkpoint", "reserved_bytes"), 4000);
	IS_FALSE(e, "nearly_full");
	assert_string_equal(STR(e, "where", "span_path"), "run/opt");
	assert_string_equal(STR(e, "where", "phase"), "optimizer");
	assert_int_equal(U64(e, "where", "into_phase_ns"), 100);
	IS_NULL(e, "where", "step");
	IS_NULL(e, "where", "step_name");
	assert_int_equal(LEN(e, "largest_live"), 3);
	assert_string_equal(STR(e, "largest_live", "0", "tensor"), "w");
	assert_string_equal(STR(e, "largest_live", "1", "tensor"), "m");
	assert_string_equal(STR(e, "largest_live", "2", "tensor"), "x");
	/* every allocation, latest first */
	static const char *const last[] = {"x", "m", "ws", "g", "a2", "a1", "w"};
	assert_int_equal(LEN(e, "last_allocations"), 7);
	for (int i = 0; i < 7; i++) {
		char k[4];
		snprintf(k, sizeof k, "%d", i);
		assert_string_equal(STR(e, "last_allocations", k, "tensor"), last[i]);
	}
	assert_int_equal(U64(e, "last_allocations", "2", "freed_ns"), 450);
	IS_NULL(e, "verdict");
	cJSON_Delete(doc);
	cg_timeline_free(tl);
}

/* Without pairing the live bytes by category are still exact, but which
 * allocation was live when is not known: lists and trees are null, ends
 * "unknown" (docs/summary-format.md). */
static void without_pairing_per_allocation_figures_are_null(void **state)
{
	cg_timeline *tl = hand_trace(false);
	cJSON *doc, *d = device_of(tl, &doc);
	assert_true(cJSON_IsFalse(AT(doc, "source", "pairing_known")));
	assert_int_equal(U64(d, "peak", "bytes"), 2600);
	cJSON *p = AT(d, "at_peak");
	assert_by_category(AT(p, "by_category"), (const char *const[]){"parameter", "activation", "gradient"},
			   (const uint64_t[]){1000, 600, 1000}, (const uint64_t[]){1, 2, 1}, 3);
	IS_FALSE(p, "allocations_listed");
	IS_NULL(p, "by_phase");
	IS_NULL(p, "top");
	IS_NULL(d, "span_tree_at_peak");
	IS_NULL(d, "peak", "allocation", "freed_ns");
	assert_string_equal(STR(d, "peak", "allocation", "ended_by"), "unknown");
	IS_FALSE(d, "allocator_replay", "available");
	assert_true(cJSON_IsString(AT(d, "allocator_replay", "unavailable_reason")));
	assert_null(AT(d, "allocator_replay", "standard"));
	IS_FALSE(d, "leaks", "available");
	IS_FALSE(d, "lifetimes", "available");
	IS_NULL(d, "end", "largest_live");
	assert_int_equal(U64(d, "end", "live_bytes"), 1550);
	cJSON_Delete(doc);
	cg_timeline_free(tl);
}

/* "old" (64 B, line 2) was allocated before the trace and freed at t 5:
 * live at the peak, which is before the first record, and known from its
 * free only. */
static void an_allocation_from_before_the_trace_is_known_by_its_free(void **state)
{
	cg_timeline *tl = tu_tl_new();
	tu_mem(tl, 5, "old", NULL, DEV, 64, F, CG_CAT_ACTIVATION, "dropped");
	tu_mem(tl, 6, "y", NULL, DEV, 10, A, CG_CAT_ACTIVATION, NULL);
	tu_tl_finalize(tl);
	cJSON *doc, *d = device_of(tl, &doc);
	assert_int_equal(LEN(d, "at_peak", "top"), 1);
	cJSON *o = AT(d, "at_peak", "top", "0");
	assert_string_equal(STR(o, "tensor"), "old");
	assert_int_equal(U64(o, "bytes"), 64);
	assert_string_equal(STR(o, "category"), "activation");
	IS_NULL(o, "op"); /* always null before the trace */
	IS_NULL(o, "span_path");
	assert_string_equal(STR(o, "phase"), "none");
	assert_int_equal(LEN(o, "shape"), 0);
	IS_NULL(o, "allocated_ns");
	assert_int_equal(U64(o, "line"), 2);
	IS_TRUE(o, "before_trace");
	assert_int_equal(U64(o, "freed_ns"), 5);
	assert_string_equal(STR(o, "ended_by"), "free");
	cJSON *before = node(AT(d, "span_tree_at_peak"), "(allocated before the trace)", NULL);
	assert_string_equal(STR(before, "kind"), "before_trace");
	assert_int_equal(U64(before, "own_bytes"), 64);
	assert_int_equal(U64(d, "lifetimes", "before_trace", "count"), 1);
	assert_int_equal(U64(d, "lifetimes", "before_trace", "bytes"), 64);
	/* at the end only y is live, made outside any span */
	assert_int_equal(U64(d, "end", "live_bytes"), 10);
	IS_NULL(d, "end", "where", "span_path");
	cJSON_Delete(doc);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(at_peak_breaks_the_peak_down),
		cmocka_unit_test(the_span_tree_holds_the_live_bytes_by_path),
		cmocka_unit_test(over_time_has_category_maxima_and_phase_peaks),
		cmocka_unit_test(checkpoints_have_fragmentation_and_headroom),
		cmocka_unit_test(the_allocator_replay_is_an_estimate),
		cmocka_unit_test(leaks_are_what_is_neither_parameter_nor_optimizer_state),
		cmocka_unit_test(lifetimes_have_buckets_and_temporaries),
		cmocka_unit_test(the_end_says_where_and_what_was_live),
		cmocka_unit_test(without_pairing_per_allocation_figures_are_null),
		cmocka_unit_test(an_allocation_from_before_the_trace_is_known_by_its_free),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
