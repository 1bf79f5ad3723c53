/* End to end on real allocator snapshots: cgmem report on every snapshot
 * of samples/snapshots/ reproduces the figures of its independent oracle
 * (NAME.oracle.json, written by the corpus's snapshot_oracle.py, which
 * shares no code with cgmem). */
#include "runutil.h"

#include <string.h>

static const char *const names[] = {
	"magma27_cs336_memory_snapshot", "yiyi_1.3b_snapshot_41810bae", "yiyi_1.3b_snapshot_6a8eab0b",
	"yiyi_1.3b_snapshot_d8e64782",	 "yiyi_oom_snapshot",
};

static cJSON *report(const char *name, const char *extra)
{
	char trace[256], out[600], path[700];
	snprintf(trace, sizeof trace, "snapshots/%s.pickle", name);
	snprintf(out, sizeof out, "%s", tu_path(name));
	char *so, *se;
	int rc = extra ? tu_run(&so, &se, NULL, "report", tu_sample(trace), "-o", out, "--quiet", extra, NULL)
		       : tu_run(&so, &se, NULL, "report", tu_sample(trace), "-o", out, "--quiet", NULL);
	if (rc != 0)
		fail_msg("cgmem report %s exited %d: %s", trace, rc, se);
	free(so);
	free(se);
	snprintf(path, sizeof path, "%s/summary.json", out);
	return tu_json_file(path);
}

static cJSON *oracle(const char *name)
{
	char path[256];
	snprintf(path, sizeof path, "snapshots/%s.oracle.json", name);
	return tu_json_file(tu_sample(path));
}

/* An integer of the oracle that may be null: UINT64_MAX then. */
static int64_t i64_at(cJSON *j)
{
	assert_non_null(j);
	if (cJSON_IsNull(j))
		return INT64_MIN;
	assert_true(cJSON_IsNumber(j));
	return (int64_t)j->valuedouble;
}

static void state_by(cJSON *o_blocks, cJSON *a_blocks, const char *oracle_state, const char *ours)
{
	cJSON *o = tu_json_at(o_blocks, "by_state", oracle_state, NULL);
	uint64_t count = o ? tu_json_u64(o, "count", NULL) : 0, bytes = o ? tu_json_u64(o, "bytes", NULL) : 0;
	assert_int_equal(tu_json_u64(a_blocks, ours, "count", NULL), count);
	assert_int_equal(tu_json_u64(a_blocks, ours, "bytes", NULL), bytes);
}

static void series(cJSON *o, cJSON *a)
{
	assert_int_equal(tu_json_u64(a, "before_first_bytes", NULL), tu_json_u64(o, "live_before_first_bytes", NULL));
	assert_int_equal(tu_json_u64(a, "peak", "bytes", NULL), tu_json_u64(o, "peak", "bytes", NULL));
	assert_int_equal(i64_at(tu_json_at(a, "peak", "entry_index", NULL)), i64_at(tu_json_at(o, "peak", "index", NULL)));
	assert_int_equal(tu_json_u64(a, "at_end_bytes", NULL), tu_json_u64(o, "live_at_end_bytes", NULL));
	assert_int_equal(tu_json_u64(a, "end_segments_bytes", NULL), tu_json_u64(o, "end_segments_bytes", NULL));
	assert_int_equal(cJSON_IsTrue(tu_json_at(a, "end_matches", NULL)),
			 cJSON_IsTrue(tu_json_at(o, "end_matches", NULL)));
}

static void check(const char *name)
{
	cJSON *sum = report(name, NULL), *o = oracle(name);
	cJSON *od = tu_json_at(o, "devices", "0", NULL);
	cJSON *dev = tu_json_at(sum, "devices", "0", NULL);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(dev, "name", NULL)), "cuda:0");
	cJSON *a = tu_json_at(dev, "allocator_state", NULL);
	assert_non_null(a);

	/* the segments and blocks */
	assert_int_equal(tu_json_u64(a, "segments", "count", NULL), tu_json_u64(od, "segments", "count", NULL));
	cJSON *types = tu_json_at(od, "segments", "by_type", NULL);
	cJSON *large = cJSON_GetObjectItem(types, "large"), *small = cJSON_GetObjectItem(types, "small");
	assert_int_equal(tu_json_u64(a, "segments", "large", NULL), large ? (uint64_t)large->valuedouble : 0);
	assert_int_equal(tu_json_u64(a, "segments", "small", NULL), small ? (uint64_t)small->valuedouble : 0);
	assert_int_equal(tu_json_u64(a, "segments", "expandable", NULL), tu_json_u64(od, "segments", "expandable", NULL));
	cJSON *ob = tu_json_at(od, "blocks", NULL), *ab = tu_json_at(a, "blocks", NULL);
	assert_int_equal(tu_json_u64(ab, "count", NULL), tu_json_u64(ob, "count", NULL));
	state_by(ob, ab, "active_allocated", "allocated");
	state_by(ob, ab, "inactive", "inactive");
	assert_int_equal(tu_json_u64(ab, "pending_free", "bytes", NULL), tu_json_u64(ob, "pending_bytes", NULL));
	assert_int_equal(tu_json_u64(ab, "pending_free", "count", NULL), tu_json_u64(ob, "pending_count", NULL));

	/* the figures */
	cJSON *f = tu_json_at(od, "figures", NULL);
	assert_int_equal(tu_json_u64(a, "reserved_bytes", NULL), tu_json_u64(f, "reserved_bytes", NULL));
	assert_int_equal(tu_json_u64(a, "allocated_bytes", NULL), tu_json_u64(f, "allocated_bytes", NULL));
	assert_int_equal(tu_json_u64(a, "active_bytes", NULL), tu_json_u64(f, "active_bytes", NULL));
	assert_int_equal(tu_json_u64(a, "inactive_bytes", NULL), tu_json_u64(f, "inactive_bytes", NULL));
	assert_int_equal(tu_json_u64(a, "rounding_waste_bytes", NULL), tu_json_u64(f, "internal_waste_bytes", NULL));
	assert_int_equal(tu_json_u64(a, "allocated_requested_bytes", NULL),
			 tu_json_u64(f, "allocated_requested_bytes", NULL));
	assert_int_equal(tu_json_u64(a, "active_requested_bytes", NULL), tu_json_u64(f, "active_requested_bytes", NULL));
	assert_int_equal(tu_json_u64(a, "largest_free_block", "bytes", NULL),
			 tu_json_u64(f, "largest_inactive_block", "size", NULL));
	assert_int_equal(tu_json_u64(a, "largest_free_block", "address", NULL),
			 tu_json_u64(f, "largest_inactive_block", "address", NULL));
	/* both computed as 1 - largest / inactive in double precision */
	assert_true(tu_json_at(a, "fragmentation_largest_free", NULL)->valuedouble ==
		    tu_json_at(f, "fragmentation_tf", NULL)->valuedouble);
	uint64_t reserved = tu_json_u64(f, "reserved_bytes", NULL);
	double frag = (double)tu_json_u64(f, "reserved_minus_allocated_bytes", NULL) / (double)reserved;
	assert_true(tu_json_at(a, "fragmentation_reserved", NULL)->valuedouble == frag);

	/* the ten largest active blocks, in order */
	cJSON *otop = tu_json_at(od, "largest_active_blocks", NULL), *atop = tu_json_at(a, "largest_blocks", NULL);
	assert_int_equal(cJSON_GetArraySize(atop), cJSON_GetArraySize(otop));
	for (int i = 0; i < cJSON_GetArraySize(otop); i++) {
		cJSON *x = cJSON_GetArrayItem(otop, i), *y = cJSON_GetArrayItem(atop, i);
		assert_int_equal(tu_json_u64(y, "bytes", NULL), tu_json_u64(x, "size", NULL));
		assert_int_equal(tu_json_u64(y, "requested_bytes", NULL), tu_json_u64(x, "requested_size", NULL));
		assert_int_equal(tu_json_u64(y, "address", NULL), tu_json_u64(x, "address", NULL));
		assert_int_equal(tu_json_u64(y, "frames", NULL), tu_json_u64(x, "n_frames", NULL));
	}

	/* the trace, replayed */
	cJSON *t = tu_json_at(od, "trace", NULL), *at = tu_json_at(a, "trace", NULL);
	assert_int_equal(tu_json_u64(at, "entries", NULL), tu_json_u64(t, "entries", NULL));
	for (cJSON *c = tu_json_at(t, "actions", NULL)->child; c; c = c->next)
		assert_int_equal(tu_json_u64(at, "actions", c->string, NULL), (uint64_t)c->valuedouble);
	series(tu_json_at(t, "replay", "active", NULL), tu_json_at(at, "active", NULL));
	series(tu_json_at(t, "replay", "allocated", NULL), tu_json_at(at, "allocated", NULL));
	cJSON *orv = tu_json_at(t, "replay", "reserved", NULL), *arv = tu_json_at(at, "reserved", NULL);
	assert_int_equal(tu_json_u64(arv, "before_first_bytes", NULL), tu_json_u64(orv, "reserved_before_first_bytes", NULL));
	assert_int_equal(tu_json_u64(arv, "max", "bytes", NULL), tu_json_u64(orv, "max", "bytes", NULL));
	assert_int_equal(i64_at(tu_json_at(arv, "max", "entry_index", NULL)), i64_at(tu_json_at(orv, "max", "index", NULL)));
	assert_int_equal(tu_json_u64(arv, "at_end_bytes", NULL), tu_json_u64(orv, "reserved_at_end_bytes", NULL));
	assert_int_equal(cJSON_IsTrue(tu_json_at(a, "consistent", NULL)), cJSON_IsTrue(tu_json_at(od, "consistent", NULL)));
	assert_int_equal(tu_json_u64(at, "memory_viz_max_bytes", NULL),
			 tu_json_u64(t, "memory_viz", "active_memory_timeline_max_bytes", NULL));
	assert_int_equal(cJSON_GetArraySize(tu_json_at(t, "oom", NULL)),
			 cJSON_IsNull(tu_json_at(a, "oom", NULL)) ? 0 : tu_json_u64(a, "oom", "entries", NULL));

	/* cgmem's own peak is the active series', memory from before the
	 * trace included; with time_us, at the oracle's entry */
	cJSON *peak = tu_json_at(t, "replay", "active", "peak", NULL);
	assert_int_equal(tu_json_u64(dev, "peak", "bytes", NULL), tu_json_u64(peak, "bytes", NULL));
	int64_t idx = i64_at(tu_json_at(peak, "index", NULL));
	if (idx >= 0)
		assert_int_equal(tu_json_u64(dev, "peak", "line", NULL), (uint64_t)idx + 1);
	assert_int_equal(tu_json_u64(dev, "live_bytes_at_end", NULL),
			 tu_json_u64(t, "replay", "active", "live_at_end_bytes", NULL));
	cJSON_Delete(sum);
	cJSON_Delete(o);
}

static void magma27(void **state)
{
	check(names[0]);
}
static void yiyi_41810bae(void **state)
{
	check(names[1]);
}
static void yiyi_6a8eab0b(void **state)
{
	check(names[2]);
}
static void yiyi_d8e64782(void **state)
{
	check(names[3]);
}
static void yiyi_oom(void **state)
{
	check(names[4]);
}

/* With --stack full the innermost frame of each large block is the
 * oracle's top_frame_filtered (memory_viz hides only C++ frames). */
static void full_stacks_keep_the_oracles_frames(void **state)
{
	for (size_t n = 0; n < sizeof names / sizeof *names; n++) {
		cJSON *sum = report(names[n], "--stack=full"), *o = oracle(names[n]);
		cJSON *otop = tu_json_at(o, "devices", "0", "largest_active_blocks", NULL);
		cJSON *atop = tu_json_at(sum, "devices", "0", "allocator_state", "largest_blocks", NULL);
		for (int i = 0; i < cJSON_GetArraySize(otop); i++) {
			cJSON *want = tu_json_at(cJSON_GetArrayItem(otop, i), "top_frame_filtered", NULL);
			cJSON *got = tu_json_at(cJSON_GetArrayItem(atop, i), "top_frame", NULL);
			if (cJSON_IsNull(want))
				assert_true(cJSON_IsNull(got));
			else
				assert_string_equal(cJSON_GetStringValue(got), cJSON_GetStringValue(want));
		}
		cJSON_Delete(sum);
		cJSON_Delete(o);
	}
}

/* tests/cli/snapshots/hand_worked.pickle (make_hand_worked.py), worked
 * by hand. Device 1 ends with A = 0x100000 (1,000 B requested, allocated)
 * and B = 0x100400 (1,000 B, pending) in one expandable 4,096-byte
 * segment with 2,048 B free; its trace is segment_map, alloc B,
 * free_requested B, oom (1 GiB, 123 B free), an unknown action.
 * Active series backwards: {A, B} = 2,000; undoing alloc B leaves 1,000
 * before the first entry; after entry 1 it is 2,000 (the peak), and stays.
 * Allocated series: {A} = 1,000 at the end; undoing free_requested B puts
 * it back (2,000), undoing alloc B removes it (1,000): peak 2,000 after
 * entry 1, 1,000 at the end. Reserved: 4,096 at the end, 0 before the
 * segment_map. OOM: 123 + 2,048 < 1 GiB, so total size, and expandable
 * segments were on already. */
static void hand_worked_snapshot(void **state)
{
	const char *out = tu_path("hand");
	char *so, *se, path[600];
	int rc = tu_run(&so, &se, NULL, "report", HAND_WORKED, "-o", out, NULL);
	assert_int_equal(rc, 0);
	/* the unknown action is named on stderr */
	assert_non_null(strstr(se, "1 trace entry with an action cgmem does not know was skipped"));
	free(so);
	free(se);
	snprintf(path, sizeof path, "%s/summary.json", out);
	cJSON *sum = tu_json_file(path);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(sum, "devices", "0", "name", NULL)), "cuda:0");
	cJSON *dev = tu_json_at(sum, "devices", "1", NULL);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(dev, "name", NULL)), "cuda:1");
	cJSON *a = tu_json_at(dev, "allocator_state", NULL);
	assert_int_equal(tu_json_u64(a, "reserved_bytes", NULL), 4096);
	assert_int_equal(tu_json_u64(a, "allocated_bytes", NULL), 1024);
	assert_int_equal(tu_json_u64(a, "active_bytes", NULL), 2048);
	assert_int_equal(tu_json_u64(a, "inactive_bytes", NULL), 2048);
	assert_int_equal(tu_json_u64(a, "rounding_waste_bytes", NULL), 48);
	assert_int_equal(tu_json_u64(a, "segments", "expandable", NULL), 1);
	assert_int_equal(tu_json_u64(a, "blocks", "pending_free", "bytes", NULL), 1024);
	assert_true(tu_json_at(a, "fragmentation_reserved", NULL)->valuedouble == 0.75);
	cJSON *t = tu_json_at(a, "trace", NULL);
	assert_int_equal(tu_json_u64(t, "entries", NULL), 5);
	assert_int_equal(tu_json_u64(t, "actions", "unknown", NULL), 1);
	assert_int_equal(tu_json_u64(t, "active", "before_first_bytes", NULL), 1000);
	assert_int_equal(tu_json_u64(t, "active", "peak", "bytes", NULL), 2000);
	assert_int_equal(tu_json_u64(t, "active", "peak", "entry_index", NULL), 1);
	assert_int_equal(tu_json_u64(t, "active", "at_end_bytes", NULL), 2000);
	assert_int_equal(tu_json_u64(t, "allocated", "peak", "bytes", NULL), 2000);
	assert_int_equal(tu_json_u64(t, "allocated", "at_end_bytes", NULL), 1000);
	assert_int_equal(tu_json_u64(t, "reserved", "before_first_bytes", NULL), 0);
	assert_int_equal(tu_json_u64(t, "reserved", "max", "bytes", NULL), 4096);
	assert_int_equal(tu_json_u64(t, "reserved", "max", "entry_index", NULL), 0);
	assert_true(cJSON_IsTrue(tu_json_at(a, "consistent", NULL)));
	assert_int_equal(tu_json_u64(a, "oom", "request_bytes", NULL), 1073741824);
	assert_int_equal(tu_json_u64(a, "oom", "device_free_bytes", NULL), 123);
	assert_int_equal(tu_json_u64(a, "oom", "entry_index", NULL), 3);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(a, "oom", "cause", NULL)), "total_size");
	assert_false(cJSON_IsTrue(tu_json_at(a, "oom", "fits_with_expandable_segments", NULL)));
	/* the stack: the standard library's runpy folded away; the name that
	 * was not UTF-8 (a lone surrogate, ed b3 a9) shown safely, each byte
	 * as U+FFFD */
	assert_string_equal(cJSON_GetStringValue(tu_json_at(a, "largest_blocks", "0", "top_frame", NULL)),
			    "caf\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd.py:3 f");
	assert_int_equal(tu_json_u64(sum, "snapshot", "strings_not_utf8", NULL), 1);
	/* time_us from the earliest entry (device 0's lone snapshot at 9 µs):
	 * the peak after entry 1 at 11 µs is 2,000 ns from the start */
	assert_int_equal(tu_json_u64(t, "active", "peak", "time_ns", NULL), 2000);
	assert_int_equal(tu_json_u64(dev, "peak", "bytes", NULL), 2000);
	assert_int_equal(tu_json_u64(dev, "peak", "time_ns", NULL), 2000);
	cJSON_Delete(sum);
	/* the report states the verdict */
	snprintf(path, sizeof path, "%s/report.md", out);
	char *md = tu_read(path, NULL);
	assert_non_null(strstr(md, "The run asked for 1.00 GiB with 123 B free on the device"));
	free(md);
}

static cJSON *summary_json(const char *file, const char *outname)
{
	const char *out = tu_path(outname);
	char *so, *se, path[600];
	int rc = tu_run(&so, &se, NULL, "report", file, "-o", out, "--quiet", NULL);
	if (rc != 0)
		fail_msg("cgmem report %s exited %d: %s", file, rc, se);
	free(so);
	free(se);
	snprintf(path, sizeof path, "%s/summary.json", out);
	return tu_json_file(path);
}

/* torch.cuda.memory_snapshot()'s bare segment list, pickled with protocol
 * 2 and gzipped, read from standard input: the hand-worked segment, no
 * trace; its two blocks in use (1,000 B requested each) are what was live
 * all along. */
static void a_bare_segment_list_from_stdin(void **state)
{
	const char *out = tu_path("list");
	char *so, *se, path[600];
	int rc = tu_run(&so, &se, HAND_WORKED_DIR "/hand_worked_list.pickle.gz", "report", "-", "-o", out, "-q", NULL);
	assert_int_equal(rc, 0);
	free(so);
	free(se);
	snprintf(path, sizeof path, "%s/summary.json", out);
	cJSON *sum = tu_json_file(path);
	assert_true(cJSON_IsTrue(tu_json_at(sum, "source", "gzip", NULL)));
	assert_string_equal(cJSON_GetStringValue(tu_json_at(sum, "snapshot", "form", NULL)), "segment list");
	assert_int_equal(tu_json_u64(sum, "snapshot", "pickle_protocol", NULL), 2);
	cJSON *dev = tu_json_at(sum, "devices", "0", NULL);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(dev, "name", NULL)), "cuda:1");
	assert_int_equal(tu_json_u64(dev, "allocator_state", "reserved_bytes", NULL), 4096);
	assert_int_equal(tu_json_u64(dev, "allocator_state", "active_requested_bytes", NULL), 2000);
	assert_true(cJSON_IsNull(tu_json_at(dev, "allocator_state", "trace", NULL)));
	assert_int_equal(tu_json_u64(dev, "peak", "bytes", NULL), 2000);
	cJSON_Delete(sum);
}

/* hand_worked_steps.pickle: two ProfilerStep ranges (1000-1990 µs and
 * 2000-2990 µs, epoch) each with forward (+10..+400) and backward
 * (+500..+900); a 100 B alloc in each forward, freed in its backward, and
 * 300 B allocated in the second backward at 2700 µs, never freed. Time 0
 * is the first annotation (1000 µs), before the first entry. */
static void annotations_give_steps_and_phases(void **state)
{
	cJSON *sum = summary_json(HAND_WORKED_DIR "/hand_worked_steps.pickle", "steps");
	assert_int_equal(tu_json_u64(sum, "steps", "count", NULL), 2);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(sum, "steps", "label", NULL)), "ProfilerStep#*");
	assert_int_equal(tu_json_u64(sum, "steps", "list", "1", "start_ns", NULL), 1000000);
	assert_int_equal(tu_json_u64(sum, "steps", "list", "1", "end_ns", NULL), 1990000);
	cJSON *dev = tu_json_at(sum, "devices", "0", NULL);
	assert_int_equal(tu_json_u64(dev, "peak", "bytes", NULL), 300);
	assert_int_equal(tu_json_u64(dev, "peak", "time_ns", NULL), 1700000);
	cJSON *alloc = tu_json_at(dev, "peak", "allocation", NULL);
	assert_string_equal(cJSON_GetStringValue(tu_json_at(alloc, "phase", NULL)), "backward");
	assert_string_equal(cJSON_GetStringValue(tu_json_at(alloc, "span_path", NULL)),
			    "ProfilerStep#1/backward/train.py:10 step");
	cJSON_Delete(sum);
}

/* cgmem diff of two snapshots compares their peaks (the oracles' active
 * peaks), and cgmem check judges a snapshot's peak. */
static void diff_and_check_work_on_snapshots(void **state)
{
	char a[256], b[256];
	snprintf(a, sizeof a, "%s", tu_sample("snapshots/yiyi_1.3b_snapshot_41810bae.pickle"));
	snprintf(b, sizeof b, "%s", tu_sample("snapshots/yiyi_1.3b_snapshot_6a8eab0b.pickle"));
	const char *out = tu_path("diff");
	char *so, *se, path[600];
	assert_int_equal(tu_run(&so, &se, NULL, "diff", a, b, "-o", out, "-q", NULL), 0);
	free(so);
	free(se);
	snprintf(path, sizeof path, "%s/diff.json", out);
	cJSON *d = tu_json_file(path);
	cJSON *oa = oracle(names[1]), *ob = oracle(names[2]);
	cJSON *peak = tu_json_at(d, "devices", "0", "peak_bytes", NULL);
	assert_int_equal(tu_json_u64(peak, "base", NULL),
			 tu_json_u64(oa, "devices", "0", "trace", "replay", "active", "peak", "bytes", NULL));
	assert_int_equal(tu_json_u64(peak, "new", NULL),
			 tu_json_u64(ob, "devices", "0", "trace", "replay", "active", "peak", "bytes", NULL));
	cJSON_Delete(d);
	cJSON_Delete(oa);
	cJSON_Delete(ob);

	/* MAGMA27's peak is 13,923,997,700 B (its oracle): a limit there
	 * holds, one byte less fails (exit 3) */
	char *so2, *se2;
	const char *m = tu_sample("snapshots/magma27_cs336_memory_snapshot.pickle");
	assert_int_equal(tu_run(&so, &se, NULL, "check", m, "--max-peak", "13923997700", "-q", NULL), 0);
	assert_int_equal(tu_run(&so2, &se2, NULL, "check", m, "--max-peak", "13923997699", "-q", NULL), 3);
	assert_non_null(strstr(so2, "FAIL  max-peak cuda:0: 12.97 GiB (13,923,997,700 B)"));
	free(so);
	free(se);
	free(so2);
	free(se2);
}

/* A pickle that would run code is refused at its first such opcode, the
 * message naming the file, the byte offset and the opcode. */
static void code_in_a_pickle_is_refused(void **state)
{
	static const char evil[] = "\x80\x04\x95\x1a\x00\x00\x00\x00\x00\x00\x00"
				   "\x8c\x02os\x94\x8c\x06system\x94\x93\x94\x8c\x02id\x94\x85\x94R\x94.";
	const char *f = tu_write("evil.pickle", evil, sizeof evil - 1);
	char *so, *se;
	int rc = tu_run(&so, &se, NULL, "summary", f, NULL);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(se, "evil.pickle: byte 25: opcode STACK_GLOBAL (0x93) refused"));
	free(so);
	free(se);
	/* protocol 0 text (GLOBAL "os system") */
	f = tu_write("text.pickle", "cos\nsystem\n(S'id'\ntR.", (size_t)-1);
	rc = tu_run(&so, &se, NULL, "summary", f, NULL);
	assert_int_equal(rc, 1);
	free(so);
	free(se);
}

/* Other pickles are named as such, with what they hold (protocol 2,
 * written by hand: a list of ints, a dict without "segments", an int). */
static void a_pickle_that_is_no_snapshot_says_so(void **state)
{
	static const struct {
		const char *bytes;
		size_t n;
		const char *message;
	} cases[] = {
		{"\x80\x02]q\x00(K\x01K\x02" "e.", 12,
		 "other.pickle: a pickle of a list whose first item is an int, not an allocator snapshot"},
		{"\x80\x02}q\x00X\x01\x00\x00\x00" "aq\x01K\x01s.", 17,
		 "other.pickle: a pickle, but not an allocator snapshot: its dict has no \"segments\""},
		{"\x80\x02K\x05.", 5, "other.pickle: a pickle of an int, not an allocator snapshot"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *f = tu_write("other.pickle", cases[i].bytes, cases[i].n);
		char *so, *se;
		int rc = tu_run(&so, &se, NULL, "summary", f, NULL);
		assert_int_equal(rc, 1);
		if (!strstr(se, cases[i].message))
			fail_msg("case %zu: %s", i, se);
		free(so);
		free(se);
	}
}

/* A snapshot cut short is an error naming where it ends, not a report
 * of half a snapshot. */
static void a_cut_snapshot_is_an_error(void **state)
{
	size_t n;
	char *data = tu_read(tu_sample("snapshots/yiyi_oom_snapshot.pickle"), &n);
	assert_non_null(data);
	const char *f = tu_write("cut.pickle", data, n / 2);
	free(data);
	char *so, *se;
	const char *out = tu_path("cut-out");
	int rc = tu_run(&so, &se, NULL, "report", f, "-o", out, NULL);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(se, "cut.pickle: byte"));
	assert_false(tu_exists(out));
	free(so);
	free(se);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(magma27),
		cmocka_unit_test(yiyi_41810bae),
		cmocka_unit_test(yiyi_6a8eab0b),
		cmocka_unit_test(yiyi_d8e64782),
		cmocka_unit_test(yiyi_oom),
		cmocka_unit_test(full_stacks_keep_the_oracles_frames),
		cmocka_unit_test(hand_worked_snapshot),
		cmocka_unit_test(code_in_a_pickle_is_refused),
		cmocka_unit_test(a_bare_segment_list_from_stdin),
		cmocka_unit_test(annotations_give_steps_and_phases),
		cmocka_unit_test(diff_and_check_work_on_snapshots),
		cmocka_unit_test(a_pickle_that_is_no_snapshot_says_so),
		cmocka_unit_test(a_cut_snapshot_is_an_error),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
