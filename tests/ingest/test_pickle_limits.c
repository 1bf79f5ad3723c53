/* The restricted unpickler's limits: memory stays one node per value
 * however often the memo references it (a million references, references
 * of references), a million levels of nesting load and free without
 * recursion, a huge claimed length costs only the bytes there, and the
 * on_item hook sees the right values below each list, takes trace entries
 * while reading and frees what it takes (memo slot included). */
#include "pkbuild.h"

static void a_long_str_claimed_in_a_gzip_file_costs_only_the_bytes_there(void **state)
{
	bytes b = pickle_of(LIT("X\xf0\xff\xff\xff"));
	put_repeat(&b, 'a', 100000);
	const char *gz = tu_write_gz("long.pickle.gz", b.d, b.n);
	start_counting();
	loaded l = load_file(gz, NULL);
	cg_set_allocator(NULL);
	assert_int_equal(l.rc, CG_EINPUT);
	assert_non_null(strstr(l.err.msg, ": byte 100007: the pickle ends before its STOP opcode"));
	assert_true(peak_bytes < ((size_t)40 << 20)); /* not the 4 GB the length claims */
	assert_int_equal(live_bytes, 0);
	free(b.d);
}

/* --- memory ---------------------------------------------------------- */

static void a_list_referenced_a_million_times_costs_one_list(void **state)
{
	/* [L, L, ... L] with L = [0, 1, ... 999], as Python writes it: batches of
	 * 1000 BINGETs and APPENDS (the first batch holds L itself). */
	bytes b = pickle_of(LIT("](]\x94("));
	for (unsigned i = 0; i < 1000; i++) {
		put_byte(&b, 'J');
		put_le(&b, i, 4);
	}
	put_byte(&b, 'e');
	for (unsigned i = 1; i < 1000; i++)
		put(&b, "h\x00", 2);
	put_byte(&b, 'e');
	for (unsigned batch = 1; batch < 1000; batch++) {
		put_byte(&b, '(');
		for (unsigned i = 0; i < 1000; i++)
			put(&b, "h\x00", 2);
		put_byte(&b, 'e');
	}
	put_byte(&b, '.');
	start_counting();
	loaded l = load_bytes(b.d, b.n, NULL);
	size_t peak = peak_bytes;
	if (l.rc)
		fail_msg("%s", l.err.msg);
	assert_int_equal(l.root->len, MILLION);
	const cg_pk *first = l.root->v.items[0];
	assert_int_equal(first->len, 1000);
	for (size_t i = 0; i < MILLION; i++)
		assert_ptr_equal(l.root->v.items[i], first);
	assert_int_equal(cg_pickle_memo_gets(l.pk), MILLION - 1);
	print_message("memo bomb: %zu bytes file, peak %zu bytes, %zu allocated in all\n", b.n, peak,
		      total_bytes);
	assert_true(peak < ((size_t)16 << 20)); /* a copy per reference would be > 24 MB of nodes alone */
	cg_pickle_free(l.pk);
	assert_int_equal(live_bytes, 0);
	cg_set_allocator(NULL);
	free(b.d);
}

static void memo_references_of_references_stay_shared(void **state)
{
	/* L0 = [1]; L(k) = [L(k-1)] * 10, nine times: 10^9 leaves as Python would
	 * see them. Each list is POPped, so only its memo slot holds it. */
	bytes b = pickle_of(LIT("]\x94K\x01"
				"a0"));
	for (unsigned k = 1; k < 10; k++) {
		put_str(&b, "]\x94(");
		for (int i = 0; i < 10; i++) {
			put_byte(&b, 'h');
			put_byte(&b, k - 1);
		}
		put_str(&b, "e0");
	}
	put_str(&b, "h\x09.");
	start_counting();
	loaded l = load_bytes(b.d, b.n, NULL);
	if (l.rc)
		fail_msg("%s", l.err.msg);
	assert_true(peak_bytes < ((size_t)4 << 20)); /* the reader's 1 MiB buffer, a few lists */
	const cg_pk *v = l.root;
	for (int k = 9; k > 0; k--) {
		assert_int_equal(v->len, 10);
		assert_ptr_equal(v->v.items[0], v->v.items[9]);
		v = v->v.items[0];
	}
	assert_int_equal(v->len, 1);
	cg_pickle_free(l.pk);
	assert_int_equal(live_bytes, 0);
	cg_set_allocator(NULL);
	free(b.d);
}

/* MILLION lists nested by APPEND (extra: one more EMPTY_LIST first). */
static bytes deep_nest(size_t lists)
{
	bytes b = pickle_of(LIT(""));
	put_repeat(&b, ']', lists);
	put_repeat(&b, 'a', lists - 1);
	put_byte(&b, '.');
	return b;
}

static void nesting_a_million_deep_loads_and_frees_without_recursion(void **state)
{
	bytes b = deep_nest(MILLION);
	loaded l = load_bytes(b.d, b.n, NULL);
	if (l.rc)
		fail_msg("%s", l.err.msg);
	size_t depth = 1;
	for (const cg_pk *v = l.root; v->len; v = v->v.items[0])
		depth++;
	assert_int_equal(depth, MILLION);
	cg_pickle_free(l.pk); /* frees chunks, not nodes one by one */
	free(b.d);

	b = deep_nest(MILLION + 1);
	expect_error(&b, NULL,
		     "t.pickle: byte 1000002: more than 1000000 values on the stack (nested too deep)");
	free(b.d);
	b = pickle_of(LIT(""));
	put_repeat(&b, '(', MILLION + 1);
	expect_error(&b, NULL, "t.pickle: byte 1000002: more than 1000000 MARKs open (nested too deep)");
	free(b.d);
	cg_pickle_options o = CG_PICKLE_OPTIONS_INIT;
	o.max_depth = 10;
	b = deep_nest(11);
	expect_error(&b, &o, "t.pickle: byte 12: more than 10 values on the stack");
	free(b.d);
}

/* --- on_item ---------------------------------------------------------- */

typedef struct seen {
	size_t calls, taken;
	const cg_pk *list[16], *below[16][4];
	size_t nbelow[16];
	uint64_t addr[16];
	bool take_entries, take_all;
	size_t take_call; /* take only this call (1-based), when nonzero */
	int fail_at_call;
} seen;

static int watch(void *ctx, const cg_pk *list, const cg_pk *const *below, size_t nbelow, const cg_pk *item,
		 cg_error *err)
{
	seen *s = ctx;
	size_t k = s->calls++;
	if (k < 16) {
		s->list[k] = list;
		s->nbelow[k] = nbelow;
		for (size_t i = 0; i < nbelow; i++)
			s->below[k][i] = below[i];
	}
	if (s->fail_at_call && (int)s->calls == s->fail_at_call)
		return cg_error_set(err, CG_ELIMIT, "stopped by the callback");
	if (s->take_call)
		return s->calls == s->take_call;
	if (s->take_all)
		return 1;
	/* A trace entry: the list right above device_traces' outer list. */
	if (s->take_entries && nbelow >= 2 && below[0]->type == CG_PK_LIST &&
	    cg_pk_str_is(below[1], "device_traces")) {
		uint64_t a;
		assert_true(cg_pk_uint(cg_pk_dict_get(item, "addr"), &a));
		cg_pk *const *frames;
		assert_int_equal(cg_pk_seq(cg_pk_dict_get(item, "frames"), &frames), 2);
		assert_true(cg_pk_str_is(cg_pk_dict_get(frames[0], "filename"), "train.py"));
		s->addr[s->taken++ % 16] = a;
		return 1;
	}
	return 0;
}

static void on_item_sees_the_values_below_the_list(void **state)
{
	cg_pickle_options o = CG_PICKLE_OPTIONS_INIT;
	seen s = {0};
	o.on_item = watch;
	o.ctx = &s;
	/* {"device_traces": [[e0 .. e4]]}: MARK e0 .. e4 APPENDS, then APPEND the inner list. */
	loaded l = load_file(pickles_path("traces_one_key.pickle"), &o);
	assert_int_equal(l.rc, 0);
	const cg_pk *outer = cg_pk_dict_get(l.root, "device_traces");
	assert_int_equal(
		s.calls,
		5 + 2 + 1); /* the entries, the shared frames list's 2 items (once), the inner list */
	size_t e = 0;
	for (size_t k = 0; k < s.calls; k++) {
		if (s.list[k] != outer->v.items[0])
			continue;
		e++;
		assert_int_equal(s.nbelow[k], 3);
		assert_ptr_equal(s.below[k][0], outer);
		assert_true(cg_pk_str_is(s.below[k][1], "device_traces"));
		assert_ptr_equal(s.below[k][2], l.root);
	}
	assert_int_equal(e, 5);
	assert_ptr_equal(s.list[s.calls - 1], outer); /* the inner list joins the outer one last */
	assert_int_equal(s.nbelow[s.calls - 1], 2);
	cg_pickle_free(l.pk);

	/* {"segments": [...], "device_traces": [[e0, e1, e2], [e3, e4]]}: MARK inner0 inner1 APPENDS. */
	memset(&s, 0, sizeof s);
	l = load_file(pickles_path("traces_two_devices.pickle"), &o);
	assert_int_equal(l.rc, 0);
	outer = cg_pk_dict_get(l.root, "device_traces");
	const cg_pk *segs = cg_pk_dict_get(l.root, "segments");
	size_t first = 0, second = 0;
	for (size_t k = 0; k < s.calls && k < 16; k++) {
		if (s.list[k] == outer->v.items[0]) {
			first++;
			assert_int_equal(s.nbelow[k], 4);
			assert_ptr_equal(s.below[k][0], outer);
			assert_true(cg_pk_str_is(s.below[k][1], "device_traces"));
			assert_ptr_equal(s.below[k][2], segs);
			assert_true(cg_pk_str_is(s.below[k][3], "segments"));
		} else if (s.list[k] == outer->v.items[1]) {
			second++;
			assert_ptr_equal(s.below[k][0], outer->v.items[0]); /* its sibling, under the mark */
			assert_ptr_equal(s.below[k][1], outer);
			assert_true(cg_pk_str_is(s.below[k][2], "device_traces"));
		}
	}
	assert_int_equal(first, 3);
	assert_int_equal(second, 2);
	cg_pickle_free(l.pk);
}

static void on_item_can_take_every_trace_entry(void **state)
{
	cg_pickle_options o = CG_PICKLE_OPTIONS_INIT;
	seen s = {0};
	s.take_entries = true;
	o.on_item = watch;
	o.ctx = &s;
	loaded l = load_file(pickles_path("traces_one_key.pickle"), &o);
	if (l.rc)
		fail_msg("%s", l.err.msg);
	assert_int_equal(s.taken, 5);
	for (int i = 0; i < 5; i++) /* make_pickles.py: 0x7f0000000000 + 512 * i */
		assert_int_equal(s.addr[i], 0x7f0000000000ull + 512u * (unsigned)i);
	const cg_pk *outer = cg_pk_dict_get(l.root, "device_traces");
	assert_int_equal(outer->len, 1);
	assert_int_equal(outer->v.items[0]->len, 0); /* the tree never held them */
	cg_pickle_free(l.pk);
}

static void a_consumed_memo_entry_cannot_be_gotten_again(void **state)
{
	cg_pickle_options o = CG_PICKLE_OPTIONS_INIT;
	seen s = {0};
	s.take_all = true;
	o.on_item = watch;
	o.ctx = &s;
	bytes b = pickle_of(LIT("]}\x94"
				"ah\x00"
				"a."));
	expect_error(&b, &o,
		     "t.pickle: byte 6: memo entry 0 was consumed (taken by the reader's item callback)");
	free(b.d);
	/* Taken while the stack still holds another copy: the memo keeps it. */
	memset(&s, 0, sizeof s);
	s.take_all = true;
	loaded l = load_bytes(LIT("\x80\x04}\x94]h\x00"
				  "ah\x00"
				  "a0."),
			      &o);
	if (l.rc)
		fail_msg("%s", l.err.msg);
	assert_int_equal(s.calls, 2);
	assert_int_equal(l.root->type, CG_PK_DICT);
	cg_pickle_free(l.pk);
	/* Held by its memo slot alone once POPped: taking it empties the slot. */
	b = pickle_of(LIT("}\x94"
			  "0]h\x00"
			  "ah\x00."));
	expect_error(&b, &o, "t.pickle: byte 9: memo entry 0 was consumed");
	free(b.d);
	/* The callback's error stops the load. */
	memset(&s, 0, sizeof s);
	s.fail_at_call = 2;
	l = load_file(pickles_path("traces_one_key.pickle"), &o);
	assert_int_equal(l.rc, CG_ELIMIT);
	assert_string_equal(l.err.msg, "stopped by the callback");
}

static void a_taken_deep_item_is_freed_without_recursion(void **state)
{
	cg_pickle_options o = CG_PICKLE_OPTIONS_INIT;
	seen s = {0};
	s.take_call = MILLION - 1; /* the last APPEND: the 999,999-deep chain joining the root */
	o.on_item = watch;
	o.ctx = &s;
	bytes b = deep_nest(MILLION);
	loaded l = load_bytes(b.d, b.n, &o);
	if (l.rc)
		fail_msg("%s", l.err.msg);
	assert_int_equal(s.calls, MILLION - 1);
	assert_int_equal(l.root->len, 0);
	cg_pickle_free(l.pk);
	free(b.d);
	/* A self-containing list taken from itself. */
	memset(&s, 0, sizeof s);
	s.take_all = true;
	l = load_bytes(LIT("\x80\x04]\x94h\x00"
			   "a."),
		       &o);
	assert_int_equal(l.rc, 0);
	assert_int_equal(l.root->len, 0);
	cg_pickle_free(l.pk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_long_str_claimed_in_a_gzip_file_costs_only_the_bytes_there),
		cmocka_unit_test(a_list_referenced_a_million_times_costs_one_list),
		cmocka_unit_test(memo_references_of_references_stay_shared),
		cmocka_unit_test(nesting_a_million_deep_loads_and_frees_without_recursion),
		cmocka_unit_test(on_item_sees_the_values_below_the_list),
		cmocka_unit_test(on_item_can_take_every_trace_entry),
		cmocka_unit_test(a_consumed_memo_entry_cannot_be_gotten_again),
		cmocka_unit_test(a_taken_deep_item_is_freed_without_recursion),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
