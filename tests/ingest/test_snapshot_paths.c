/* The two readers of a snapshot's trace entries give the same timeline:
 * the fast path (pickle_fast.c, the default) and the general unpickler
 * (CG_SNAP_PARSER_GENERAL). Every field of every record, string, span,
 * diagnostic and snapshot array is compared (tl_same.h and
 * snap_digest.h), and so are the error codes and messages with their
 * byte offsets. Inputs: the real snapshots in samples/snapshots, the
 * unpickler's hand-built pickles, the snapshot and pickle fuzz corpora,
 * and snapshots built here byte by byte as CPython's pickler writes them,
 * each with one entry mutated (a key missing or repeated, an unknown key,
 * values of other types, memo references out of range, to a consumed or
 * a pending entry, FRAME opcodes inside an entry, the file cut inside a
 * batch, batches crossing the input buffer, an APPEND to a frame list the
 * fast path shares with another). */
#include "pkbuild.h"
#include "snap_digest.h"
#include "tl_same.h"

#include <dirent.h>
#include <zlib.h>

#include "snapshot_ingest.h"

typedef struct outcome {
	cg_timeline *tl;
	cg_error err;
	int rc;
	cg_snap_parse_stats st;
} outcome;

static outcome ingest_with(const void *data, size_t n, cg_snap_parser parser)
{
	outcome o = {NULL, CG_ERROR_INIT, 0, {0, 0}};
	cg_reader *r;
	assert_int_equal(cg_reader_open_memory(&r, data, n, "t.pickle", NULL, &o.err), 0);
	cg_ingest_options io = CG_INGEST_OPTIONS_INIT;
	io.threads = 1;
	o.rc = cg_snapshot_ingest_with(&o.tl, r, "t.pickle", &io, parser, &o.st, &o.err);
	cg_reader_close(r);
	return o;
}

static int last_rc; /* both()'s result code */

/* Both readers on data; returns the fast path's statistics. */
static cg_snap_parse_stats both(const void *data, size_t n, const char *what)
{
	outcome f = ingest_with(data, n, CG_SNAP_PARSER_FAST);
	outcome g = ingest_with(data, n, CG_SNAP_PARSER_GENERAL);
	if (f.rc != g.rc || strcmp(f.err.msg, g.err.msg) != 0)
		fail_msg("%s: fast: %d \"%s\", general: %d \"%s\"", what, f.rc, f.err.msg, g.rc, g.err.msg);
	assert_int_equal(g.st.fast_entries, 0);
	last_rc = f.rc;
	if (f.rc == 0) {
		same_timeline(f.tl, g.tl);
		snap_digest a = {0}, b = {0};
		snap_digest_of(&a, f.tl);
		snap_digest_of(&b, g.tl);
		if (a.n != b.n || memcmp(a.d, b.d, a.n) != 0)
			fail_msg("%s: the timelines differ", what);
		free(a.d);
		free(b.d);
	}
	cg_timeline_free(f.tl);
	cg_timeline_free(g.tl);
	return f.st;
}

static void *read_whole(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	long len = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	void *d = malloc((size_t)len + 1);
	assert_int_equal(fread(d, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);
	*n = (size_t)len;
	return d;
}

/* Every file of dir ending in suffix ("" for all); returns how many and
 * the fast path's entries in total. */
static size_t both_on_dir(const char *dir, const char *suffix, uint64_t *fast)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	size_t files = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name), sl = strlen(suffix);
		if (e->d_name[0] == '.' || len < sl || strcmp(e->d_name + len - sl, suffix) != 0)
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		size_t n;
		void *data = read_whole(path, &n);
		cg_snap_parse_stats st = both(data, n, path);
		*fast += st.fast_entries;
		free(data);
		files++;
	}
	closedir(d);
	return files;
}

static void real_snapshots_read_the_same_both_ways(void **state)
{
	(void)state;
	uint64_t fast = 0;
	assert_int_equal(both_on_dir(SAMPLES_DIR "/snapshots", ".pickle", &fast), 5);
	assert_true(fast > 5000); /* PyTorch 2.11's 5,163 entries at least: the fast path ran */
}

static void hand_built_pickles_and_fuzz_corpora_read_the_same_both_ways(void **state)
{
	(void)state;
	uint64_t fast = 0;
	assert_true(both_on_dir(PICKLES_DIR, "", &fast) >= 20);
	assert_true(both_on_dir(FUZZ_DIR "/corpus_snapshot", "", &fast) > 100);
	assert_true(both_on_dir(FUZZ_DIR "/corpus_pickle", "", &fast) > 100);
	assert_true(both_on_dir(FUZZ_DIR "/corpus_snapshot_paths", "", &fast) > 40);
	assert_true(fast > 0);
}

/* --- snapshots built byte by byte -------------------------------------- */

enum mutation {
	M_NONE,
	M_NO_SIZE,
	M_NO_ACTION,
	M_UNKNOWN_KEY,
	M_SIZE_STR,
	M_ACTION_INT,
	M_ADDR_NONE,
	M_FRAMES_INT,
	M_MEMO_OUT_OF_RANGE,
	M_GET_CONSUMED,
	M_GET_PENDING,
	M_FRAME_INSIDE,
	M_FRAME_TOO_BIG,
	M_REPEAT_KEY,
	M_LONG_BINPUT,
	M_TRUNCATE,
	M_ADDR_U64,
	M_ADDR_TOO_BIG,
	M_TIME_NEG,
	M_FRAMES_ONE,
	M_FRAMES_EMPTY,
	M_FRAMES_TUPLE,
	M_FRAMES_HOLD_ENTRY,
	M_ACTION_INLINE,
	M_UNKNOWN_ACTION,
	M_OOM,
	M_NO_DICT_MEMO,
	M_FLOAT_VALUE,
	M_LONG_BINGET_KEY,
	M_ONE_PAIR,
	M_TUPLE_VALUE,
	M_NOT_A_DICT,
	M_BINUNICODE_KEY,
	M_NOT_UTF8_ACTION,
	M_MEMO_INT,
	M_NEW_FRAME_DICT,
	M_NEW_FRAME_DICT_ONE,
	M_FRAME_DICT_BECOMES_ENTRY, /* SETITEM "action" on a frame dict the fast path has seen; a new frame list of it 1000 entries on */
	M_SHARED_LIST_APPEND, /* APPEND to context 0's frame list, which the fast path shares with context 4's (equal items) */
	M_COUNT
};

typedef struct sb {
	bytes b;
	uint32_t memo;
	struct {
		const char *s;
		uint32_t idx;
	} strs[64];
	size_t nstrs;
	uint32_t frame_dict[4];
	uint32_t ctx_list[64]; /* memo index + 1 of context k's frame list */
	uint32_t last_dict;    /* memo index of the last entry dict */
	uint32_t first_dict;   /* ... of entry 0's */
	uint32_t entry_like;   /* a dict {"action": "alloc"} outside the trace */
	size_t cut;	       /* M_TRUNCATE: where the file ends */
	bool fresh_lists;      /* every entry its own frame list, of the same gets per context (as CPython writes a stack again) */
} sb;

static uint32_t memoize(sb *s)
{
	put_byte(&s->b, 0x94);
	return s->memo++;
}

static void get(sb *s, uint32_t idx)
{
	if (idx < 256) {
		put_byte(&s->b, 'h');
		put_byte(&s->b, idx);
	} else {
		put_byte(&s->b, 'j');
		put_le(&s->b, idx, 4);
	}
}

static void fresh(sb *s, const char *str)
{
	put_byte(&s->b, 0x8c);
	put_byte(&s->b, (unsigned)strlen(str));
	put_str(&s->b, str);
}

/* A str as CPython writes a shared one: memoized the first time. */
static void str(sb *s, const char *v)
{
	for (size_t i = 0; i < s->nstrs; i++)
		if (!strcmp(s->strs[i].s, v)) {
			get(s, s->strs[i].idx);
			return;
		}
	fresh(s, v);
	s->strs[s->nstrs].s = v;
	s->strs[s->nstrs++].idx = memoize(s);
}

/* CPython's save_long: the smallest opcode, LONG1 of minimal width. */
static void integer(sb *s, int64_t v)
{
	if (v >= 0 && v < 256) {
		put_byte(&s->b, 'K');
		put_byte(&s->b, (unsigned)v);
	} else if (v >= 0 && v < 65536) {
		put_byte(&s->b, 'M');
		put_le(&s->b, (uint64_t)v, 2);
	} else if (v >= INT32_MIN && v <= INT32_MAX) {
		put_byte(&s->b, 'J');
		put_le(&s->b, (uint64_t)v, 4);
	} else {
		int n = 1;
		while (n < 8 && !(v >= -((int64_t)1 << (8 * n - 1)) && v < ((int64_t)1 << (8 * n - 1))))
			n++;
		put_byte(&s->b, 0x8a);
		put_byte(&s->b, (unsigned)n);
		put_le(&s->b, (uint64_t)v, n);
	}
}

static const char *const actions[] = {"alloc", "free_requested", "free_completed"};

static void frames_of(sb *s, unsigned ctx)
{
	if (s->ctx_list[ctx] && !s->fresh_lists) {
		get(s, s->ctx_list[ctx] - 1);
		return;
	}
	put_byte(&s->b, ']');
	s->ctx_list[ctx] = memoize(s) + 1;
	put_byte(&s->b, '(');
	for (unsigned k = 0; k <= ctx % 4; k++)
		get(s, s->frame_dict[(ctx + k) % 4]);
	put_byte(&s->b, 'e');
}

static void entry(sb *s, size_t j, enum mutation m)
{
	unsigned ctx = (unsigned)(j / 3) % 64;
	const char *action = actions[j % 3];
	if (m == M_NOT_A_DICT) {
		integer(s, 5);
		return;
	}
	if (m == M_ONE_PAIR) {
		put_byte(&s->b, '}');
		s->last_dict = memoize(s);
		str(s, "action");
		str(s, action);
		put_byte(&s->b, 's');
		return;
	}
	put_byte(&s->b, '}');
	if (m == M_LONG_BINPUT) {
		put_byte(&s->b, 'r');
		put_le(&s->b, s->memo, 4);
		s->last_dict = s->memo++;
	} else if (m != M_NO_DICT_MEMO) {
		uint32_t prev = s->last_dict;
		s->last_dict = memoize(s);
		if (m == M_GET_PENDING)
			s->entry_like = prev; /* used below: the entry before, still pending */
	}
	put_byte(&s->b, '(');
	if (m == M_FRAME_INSIDE) {
		put_byte(&s->b, 0x95);
		put_le(&s->b, 40, 8);
	}
	if (m != M_NO_ACTION) {
		if (m == M_BINUNICODE_KEY) {
			put_byte(&s->b, 'X');
			put_le(&s->b, 6, 4);
			put_str(&s->b, "action");
		} else {
			str(s, "action");
		}
		if (m == M_ACTION_INT)
			integer(s, 3);
		else if (m == M_ACTION_INLINE)
			fresh(s, action);
		else if (m == M_UNKNOWN_ACTION)
			str(s, "weird");
		else if (m == M_OOM)
			str(s, "oom");
		else if (m == M_NOT_UTF8_ACTION)
			fresh(s, "\xed\xa0\x80");
		else
			str(s, action);
	}
	if (m == M_REPEAT_KEY) {
		str(s, "action");
		str(s, "free_completed");
	}
	if (m == M_LONG_BINGET_KEY) {
		put_byte(&s->b, 'j');
		put_le(&s->b, s->strs[0].idx, 4); /* "segments", a key no entry reads */
		integer(s, 1);
	}
	str(s, m == M_OOM ? "device_free" : "addr");
	if (m == M_ADDR_NONE)
		put_byte(&s->b, 'N');
	else if (m == M_ADDR_U64)
		put(&s->b, "\x8a\x09\x05\x00\x00\x00\x00\x00\x00\x80\x00", 11);
	else if (m == M_ADDR_TOO_BIG)
		put(&s->b, "\x8a\x09\x05\x00\x00\x00\x00\x00\x00\x80\x01", 11);
	else
		integer(s, (int64_t)0x7f0000000000 + (int64_t)ctx * 4096);
	if (m == M_FRAME_TOO_BIG) {
		put_byte(&s->b, 0x95);
		put_le(&s->b, (uint64_t)1 << 40, 8);
	}
	if (m == M_TRUNCATE)
		s->cut = s->b.n;
	if (m != M_NO_SIZE) {
		str(s, "size");
		if (m == M_SIZE_STR)
			fresh(s, "x");
		else
			integer(s, 512 * (ctx % 7 + 1));
	}
	str(s, "stream");
	integer(s, 0);
	if (m == M_MEMO_INT)
		memoize(s);
	str(s, "time_us");
	integer(s, m == M_TIME_NEG ? -5 : (int64_t)1700000000000000 + (int64_t)j * 10);
	str(s, "compile_context");
	fresh(s, "N/A");
	memoize(s);
	str(s, "user_metadata");
	str(s, "");
	if (m == M_UNKNOWN_KEY) {
		str(s, "extra");
		integer(s, 7);
	}
	if (m == M_FLOAT_VALUE) {
		str(s, "ratio");
		put(&s->b, "G\x3f\xf0\x00\x00\x00\x00\x00\x00", 9);
	}
	if (m == M_TUPLE_VALUE) {
		str(s, "pair");
		put(&s->b, "(K\x01K\x02t", 6);
	}
	if (m == M_GET_CONSUMED || m == M_GET_PENDING) {
		str(s, "extra");
		get(s, s->entry_like);
	}
	if (m == M_SHARED_LIST_APPEND) { /* later entries of context 0 have a frame more, of 4 not */
		str(s, "extra");
		get(s, s->ctx_list[0] - 1);
		get(s, s->frame_dict[3]);
		put_byte(&s->b, 'a');
	}
	if (m == M_FRAME_DICT_BECOMES_ENTRY) {
		str(s, "extra");
		get(s, s->frame_dict[2]);
		str(s, "action");
		str(s, "alloc");
		put_byte(&s->b, 's');
	}
	str(s, "frames");
	if (m == M_FRAMES_INT)
		integer(s, 9);
	else if (m == M_MEMO_OUT_OF_RANGE)
		get(s, 60000);
	else if (m == M_FRAMES_ONE) {
		put_byte(&s->b, ']');
		memoize(s);
		get(s, s->frame_dict[1]);
		put_byte(&s->b, 'a');
	} else if (m == M_NEW_FRAME_DICT || m == M_NEW_FRAME_DICT_ONE) {
		put_byte(&s->b, ']');
		memoize(s);
		if (m == M_NEW_FRAME_DICT)
			put_byte(&s->b, '(');
		put_byte(&s->b, '}');
		memoize(s);
		put_byte(&s->b, '(');
		str(s, "name");
		fresh(s, "new_fn");
		memoize(s);
		str(s, "filename");
		str(s, "new.py");
		str(s, "line");
		integer(s, 99);
		put_byte(&s->b, 'u');
		if (m == M_NEW_FRAME_DICT) {
			get(s, s->frame_dict[2]);
			put_byte(&s->b, 'e');
		} else {
			put_byte(&s->b, 'a');
		}
	} else if (m == M_FRAMES_EMPTY) {
		put_byte(&s->b, ']');
		memoize(s);
	} else if (m == M_FRAMES_TUPLE)
		put_byte(&s->b, ')');
	else if (m == M_FRAMES_HOLD_ENTRY) {
		put_byte(&s->b, ']');
		memoize(s);
		put_byte(&s->b, '(');
		get(s, s->frame_dict[0]);
		get(s, s->entry_like);
		put_byte(&s->b, 'e');
	} else
		frames_of(s, ctx);
	put_byte(&s->b, 'u');
}

/* A snapshot of n entries in batches of batch (CPython's 1000), entry
 * `at` mutated by m; FRAME opcodes every 64 KiB between entries when framed. */
static bytes build_lists(size_t n, size_t batch, size_t at, enum mutation m, bool framed, bool fresh_lists)
{
	sb s = {0};
	s.fresh_lists = fresh_lists;
	put(&s.b, "\x80\x04", 2);
	put_byte(&s.b, '}');
	memoize(&s);
	put_byte(&s.b, '(');
	str(&s, "segments");
	put_byte(&s.b, ']');
	memoize(&s);
	put_byte(&s.b, '}');
	memoize(&s);
	put_byte(&s.b, '(');
	str(&s, "device");
	integer(&s, 0);
	str(&s, "address");
	integer(&s, (int64_t)0x7f0000000000);
	str(&s, "total_size");
	integer(&s, 1 << 21);
	str(&s, "stream");
	integer(&s, 0);
	str(&s, "segment_type");
	str(&s, "large");
	str(&s, "blocks");
	put_byte(&s.b, ']');
	memoize(&s);
	put_byte(&s.b, '}');
	memoize(&s);
	put_byte(&s.b, '(');
	str(&s, "address");
	integer(&s, (int64_t)0x7f0000000000);
	str(&s, "size");
	integer(&s, 1 << 21);
	str(&s, "requested_size");
	integer(&s, 1 << 21);
	str(&s, "state");
	str(&s, "inactive");
	put_byte(&s.b, 'u');
	put_byte(&s.b, 'a');
	put_byte(&s.b, 'u');
	put_byte(&s.b, 'a');
	/* frame dicts, and a dict that looks like an entry outside the trace */
	str(&s, "frame_dicts");
	put_byte(&s.b, ']');
	memoize(&s);
	put_byte(&s.b, '(');
	static const char *const files[] = {"train.py", "model.py", "/usr/lib/python3.12/functools.py", "layers.py"};
	for (int k = 0; k < 4; k++) {
		put_byte(&s.b, '}');
		s.frame_dict[k] = memoize(&s);
		put_byte(&s.b, '(');
		str(&s, "name");
		str(&s, k % 2 ? "forward" : "step");
		str(&s, "filename");
		str(&s, files[k]);
		str(&s, "line");
		integer(&s, 10 + k);
		put_byte(&s.b, 'u');
	}
	put_byte(&s.b, '}');
	s.entry_like = memoize(&s);
	put_byte(&s.b, '(');
	str(&s, "action");
	str(&s, "alloc");
	put_byte(&s.b, 'u');
	put_byte(&s.b, 'e');
	str(&s, "device_traces");
	put_byte(&s.b, ']');
	memoize(&s);
	put_byte(&s.b, ']');
	memoize(&s);
	size_t frame_at = s.b.n;
	for (size_t i = 0; i < n; i += batch) {
		size_t end = i + batch < n ? i + batch : n;
		if (n > 1)
			put_byte(&s.b, '(');
		for (size_t j = i; j < end; j++) {
			if (framed && s.b.n - frame_at >= 65536) {
				put_byte(&s.b, 0x95);
				put_le(&s.b, 20, 8);
				frame_at = s.b.n;
			}
			enum mutation mj = j == at ? m : M_NONE;
			if (m == M_FRAME_DICT_BECOMES_ENTRY && j == at + 1000)
				mj = M_NEW_FRAME_DICT; /* the dict in a new list: now an entry there */
			if (mj == M_GET_CONSUMED)
				s.entry_like = s.first_dict; /* taken with its batch */
			entry(&s, j, mj);
			if (j == 0)
				s.first_dict = s.last_dict;
		}
		put_byte(&s.b, n > 1 ? 'e' : 'a');
	}
	put_byte(&s.b, 'a');
	put_byte(&s.b, 'u');
	put_byte(&s.b, '.');
	if (m == M_TRUNCATE && s.cut)
		s.b.n = s.cut;
	return s.b;
}

static bytes build(size_t n, size_t batch, size_t at, enum mutation m, bool framed)
{
	return build_lists(n, batch, at, m, framed, false);
}

static void built_snapshots_read_the_same_both_ways(void **state)
{
	(void)state;
	bytes b = build(3000, 1000, 0, M_NONE, true);
	cg_snap_parse_stats st = both(b.d, b.n, "plain");
	/* every entry read fast (new keys, new frame lists, FRAMEs between
	 * entries); the one batch sent back is the list of frame dicts */
	assert_int_equal(st.fast_entries, 3000);
	assert_int_equal(st.fast_fallbacks, 1);
	free(b.d);
	/* every stack's list written again by each entry: read fast too */
	b = build_lists(3000, 1000, 0, M_NONE, true, true);
	st = both(b.d, b.n, "fresh lists");
	assert_int_equal(st.fast_entries, 3000);
	free(b.d);
	b = build(1, 1000, 5, M_NONE, false);
	both(b.d, b.n, "one entry (APPEND)");
	free(b.d);
	b = build(5000, 2500, 5, M_NONE, false);
	st = both(b.d, b.n, "batches of 2500");
	assert_int_equal(st.fast_entries, 5000);
	free(b.d);
	/* 1.8 MB: batches cross the end of the 1 MiB input buffer; the fast
	 * path moves the batch to the buffer's start and reads on */
	b = build(30000, 1000, 0, M_NONE, true);
	assert_true(b.n > (3u << 19));
	st = both(b.d, b.n, "crossing the buffer");
	assert_int_equal(st.fast_entries, 30000);
	assert_int_equal(st.fast_fallbacks, 1);
	free(b.d);
}

static void mutated_entries_read_the_same_both_ways(void **state)
{
	(void)state;
	for (int fresh = 0; fresh < 2; fresh++)
	for (int m = M_NO_SIZE; m < M_COUNT; m++)
		for (size_t at = 0; at < 2200; at += 1099) {
			if ((m == M_GET_CONSUMED || m == M_FRAME_DICT_BECOMES_ENTRY || m == M_SHARED_LIST_APPEND) && at < 1000)
				continue;
			/* with fresh lists a fourth batch reads, after the frame dict
			 * became an entry, the lists remembered before */
			bytes b = build_lists(fresh ? 3500 : 2500, 1000, at, (enum mutation)m, m % 2, fresh);
			char what[80];
			snprintf(what, sizeof what, "mutation %d at entry %zu%s", m, at, fresh ? ", fresh lists" : "");
			/* the other batches stay fast */
			cg_snap_parse_stats st = both(b.d, b.n, what);
			if (last_rc == 0 && st.fast_entries < 1000)
				fail_msg("%s: %llu fast", what, (unsigned long long)st.fast_entries);
			free(b.d);
		}
}

/* gzip: the same, through the reader's inflate. */
static void gzipped_snapshot_reads_the_same_both_ways(void **state)
{
	(void)state;
	bytes b = build(3000, 1000, 1500, M_UNKNOWN_KEY, true);
	z_stream z = {0};
	assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
	size_t cap = deflateBound(&z, b.n);
	unsigned char *out = malloc(cap);
	z.next_in = b.d;
	z.avail_in = (uInt)b.n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	cg_snap_parse_stats st = both(out, z.total_out, "gzip");
	assert_int_equal(st.fast_entries, 3000);
	deflateEnd(&z);
	free(out);
	free(b.d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(real_snapshots_read_the_same_both_ways),
		cmocka_unit_test(hand_built_pickles_and_fuzz_corpora_read_the_same_both_ways),
		cmocka_unit_test(built_snapshots_read_the_same_both_ways),
		cmocka_unit_test(mutated_entries_read_the_same_both_ways),
		cmocka_unit_test(gzipped_snapshot_reads_the_same_both_ways),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
