/* The restricted unpickler: files Python's pickle module wrote (protocols
 * 2 to 5, plain and gzip) against the objects Python pickled
 * (tests/ingest/make_pickles.py); pickles built byte by byte for what
 * Python does not write: each refused opcode, the opcodes only other
 * writers use, LONG1 of 255 bytes, truncated frames and files, memo
 * indices, the structural errors, repeated keys and cycles. Memory, depth
 * and on_item are in test_pickle_limits.c. */
#include "pkbuild.h"

/* --- the value as text, in make_pickles.py's format ------------------ */

typedef struct text {
	char *s;
	size_t n, cap;
} text;

static void text_add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(text *t, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	assert_true(k >= 0 && (size_t)k < sizeof line);
	if (t->n + (size_t)k + 1 > t->cap) {
		t->cap = (t->n + (size_t)k + 1) * 2;
		t->s = realloc(t->s, t->cap);
	}
	memcpy(t->s + t->n, line, (size_t)k + 1);
	t->n += (size_t)k;
}

/* Pre-order, with an explicit stack (never more than max_nodes). */
static char *dump(const cg_pk *root, size_t max_nodes)
{
	text t = {0};
	size_t cap = 1024, sp = 0, seen = 0;
	const cg_pk **st = malloc(cap * sizeof *st);
	st[sp++] = root;
	while (sp) {
		const cg_pk *v = st[--sp];
		assert_true(++seen <= max_nodes);
		switch (v->type) {
		case CG_PK_NONE:
			text_add(&t, "N\n");
			break;
		case CG_PK_BOOL:
			text_add(&t, v->v.b ? "T\n" : "F\n");
			break;
		case CG_PK_INT:
			if (v->flags & CG_PK_INT_UNSIGNED)
				text_add(&t, "I%llu\n", (unsigned long long)v->v.u);
			else
				text_add(&t, "I%lld\n", (long long)v->v.i);
			break;
		case CG_PK_FLOAT:
			text_add(&t, "D%.17g\n", v->v.f);
			break;
		case CG_PK_STR:
			text_add(&t, "S");
			for (uint32_t i = 0; i < v->len; i++)
				text_add(&t, "%02x", (unsigned char)v->v.s[i]);
			text_add(&t, " %d\n", (v->flags & CG_PK_STR_NOT_UTF8) ? 1 : 0);
			assert_int_equal(v->v.s[v->len], '\0');
			break;
		default: {
			size_t n = v->type == CG_PK_DICT ? 2 * (size_t)v->len : v->len;
			text_add(&t, "%c%u\n",
				 v->type == CG_PK_TUPLE	 ? '('
				 : v->type == CG_PK_LIST ? '['
							 : '{',
				 v->len);
			if (sp + n > cap) {
				cap = (sp + n) * 2;
				st = realloc(st, cap * sizeof *st);
			}
			for (size_t i = n; i > 0; i--)
				st[sp++] = v->v.items[i - 1];
		}
		}
	}
	free(st);
	return t.s;
}

/* --- files Python wrote ---------------------------------------------- */

static void python_pickles_load_as_python_wrote_them(void **state)
{
	size_t len;
	char *manifest = tu_read(pickles_path("manifest.txt"), &len);
	assert_non_null(manifest);
	int files = 0, errors = 0;
	for (char *line = strtok(manifest, "\n"); line; line = strtok(NULL, "\n")) {
		char name[256], kind[16];
		int used = 0;
		assert_int_equal(sscanf(line, "%255s %15s %n", name, kind, &used), 2);
		const char *path = pickles_path(name);
		loaded l = load_file(path, NULL);
		if (strcmp(kind, "ok") == 0) {
			if (l.rc != 0)
				fail_msg("%s: %s", name, l.err.msg);
			assert_int_equal(cg_pickle_protocol(l.pk), atoi(line + used));
			char want_name[300];
			snprintf(want_name, sizeof want_name, "%s.expect", name);
			char *want = tu_read(pickles_path(want_name), &len);
			assert_non_null(want);
			char *got = dump(l.root, 100000);
			assert_string_equal(got, want);
			free(got);
			free(want);
			cg_pickle_free(l.pk);
			files++;
		} else {
			unsigned long long at;
			int k = 0;
			assert_int_equal(sscanf(line + used, "%llu %n", &at, &k), 1);
			char want[1024];
			snprintf(want, sizeof want, "%s: byte %llu: %s", path, at, line + used + k);
			assert_int_equal(l.rc, CG_EINPUT);
			if (strncmp(l.err.msg, want, strlen(want)) != 0)
				fail_msg("got \"%s\", wanted \"%s\"", l.err.msg, want);
			errors++;
		}
	}
	free(manifest);
	assert_int_equal(files, 9);
	assert_int_equal(errors, 9);
}

static void the_shared_frames_list_is_one_node_and_big_ints_keep_their_sign(void **state)
{
	loaded l = load_file(pickles_path("basic_p4.pickle"), NULL);
	assert_int_equal(l.rc, 0);
	const cg_pk *a = cg_pk_dict_get(l.root, "frames_a"), *b = cg_pk_dict_get(l.root, "frames_b");
	assert_non_null(a);
	assert_ptr_equal(a, b); /* BINGET pushed the same node, no copy */
	assert_true(cg_pickle_memo_gets(l.pk) > 0);
	assert_true(cg_pickle_memo_puts(l.pk) > cg_pickle_memo_gets(l.pk));

	cg_pk *const *ints;
	size_t n = cg_pk_seq(cg_pk_dict_get(l.root, "ints"), &ints);
	assert_int_equal(n, 17);
	uint64_t u;
	int64_t i;
	/* 2^63 and 2^64 - 1 (LONG1 of 9 bytes): unsigned only. */
	assert_true(ints[13]->flags & CG_PK_INT_UNSIGNED);
	assert_true(cg_pk_uint(ints[13], &u) && u == (uint64_t)1 << 63);
	assert_false(cg_pk_int(ints[13], &i));
	assert_true(cg_pk_uint(ints[14], &u) && u == UINT64_MAX);
	/* -2^63: signed only. */
	assert_true(cg_pk_int(ints[15], &i) && i == INT64_MIN);
	assert_false(cg_pk_uint(ints[15], &u));
	assert_true(cg_pk_int(ints[11], &i) && i == 47294971904);
	assert_true(cg_pk_uint(ints[11], &u) && u == 47294971904u);
	/* A bool is not an int here. */
	cg_pk *const *consts;
	assert_int_equal(cg_pk_seq(cg_pk_dict_get(l.root, "consts"), &consts), 3);
	assert_false(cg_pk_int(consts[0], &i));

	const cg_pk *s = cg_pk_dict_get(l.root, "surrogate");
	assert_int_equal(s->len, 9);
	assert_memory_equal(s->v.s, "caf\xed\xb3\xa9.py", 9);
	assert_true(s->flags & CG_PK_STR_NOT_UTF8);
	const cg_pk *nul = cg_pk_dict_get(l.root, "nul");
	assert_int_equal(nul->len, 3);
	assert_false(nul->flags & CG_PK_STR_NOT_UTF8); /* NUL is valid UTF-8 */
	assert_false(cg_pk_dict_get(l.root, "long_str")->flags & CG_PK_STR_NOT_UTF8);
	assert_true(cg_pk_str_is(cg_pk_dict_get(cg_pk_dict_get(l.root, "one_key"), "k"), "v"));
	assert_false(cg_pk_str_is(nul, "a"));
	assert_null(cg_pk_dict_get(l.root, "nope"));
	assert_null(cg_pk_dict_get(a, "frames_a")); /* not a dict */
	cg_pickle_free(l.pk);
}

/* --- refusals --------------------------------------------------------- */
/* --- refusals --------------------------------------------------------- */

static void each_refused_opcode_is_named_at_its_offset(void **state)
{
	int code = 0, unused = 0, unknown = 0;
	for (unsigned op = 0; op < 256; op++) {
		const char *name = cg_pickle_opcode_name((unsigned char)op);
		bytes b = pickle_of(LIT(""));
		put_byte(&b, op);
		put_repeat(&b, 0, 16);
		loaded l = load_bytes(b.d, b.n, NULL);
		char want[256];
		if (!name) {
			snprintf(want, sizeof want, "t.pickle: byte 2: unknown opcode 0x%02x", op);
			unknown++;
		} else if (strchr("PQRbcio", (int)op) || (op >= 0x81 && op <= 0x84) || op == 0x92 ||
			   op == 0x93 || op == 0x97 || op == 0x98) {
			snprintf(want, sizeof want,
				 "t.pickle: byte 2: opcode %s (0x%02x) refused: it would import and call "
				 "Python "
				 "code; a snapshot holds only plain data",
				 name, op);
			code++;
		} else if (strchr("FILSTUVgpBC", (int)op) || (op >= 0x8e && op <= 0x91) || op == 0x96) {
			snprintf(want, sizeof want,
				 "t.pickle: byte 2: opcode %s (0x%02x) refused: it is not used by PyTorch "
				 "snapshots",
				 name, op);
			unused++;
		} else {
			free(b.d);
			cg_pickle_free(l.pk);
			continue; /* accepted: it reads zeros, then fails or not */
		}
		assert_int_equal(l.rc, CG_EINPUT);
		if (strncmp(l.err.msg, want, strlen(want)) != 0)
			fail_msg("0x%02x: got \"%s\", wanted \"%s\"", op, l.err.msg, want);
		free(b.d);
	}
	assert_int_equal(code, 15);
	assert_int_equal(unused, 16);
	assert_int_equal(unknown, 256 - 68);
	assert_string_equal(cg_pickle_opcode_name(0x63), "GLOBAL");
	assert_string_equal(cg_pickle_opcode_name(0x8a), "LONG1");
}

static void global_os_system_and_reduce_are_refused_before_anything_runs(void **state)
{
	/* What pickle.dumps of os.system("echo pwned") looks like at protocol 2. */
	static const char global[] = "\x80\x02"
				     "cos\nsystem\nq\x00X\x04\x00\x00\x00echoq\x01\x85q\x02Rq\x03.";
	bytes b = {0};
	put(&b, global, sizeof global - 1);
	expect_error(&b, NULL,
		     "t.pickle: byte 2: opcode GLOBAL (0x63) refused: it would import and call Python code");
	free(b.d);
	expect_error_str("N)R.", (size_t)-1, "t.pickle: byte 4: opcode REDUCE (0x52) refused");
	expect_error_str("\x8c\x02os\x8c\x06system\x93.", (size_t)-1,
			 "t.pickle: byte 14: opcode STACK_GLOBAL");
	/* Protocol 0 text, as pickle.dumps({'a': 1}, protocol=0) writes it. */
	bytes p0 = {0};
	put_str(&p0, "(dp0\nVa\np1\nI1\ns.");
	expect_error(&p0, NULL, "t.pickle: byte 0: not a pickle of protocol 2 to 5");
	free(p0.d);
	bytes proto = {0};
	put_str(&proto, "\x80\x06N.");
	expect_error(&proto, NULL, "t.pickle: byte 0: pickle protocol 6 is not supported (2 to 5 are)");
	proto.n = 0;
	put_str(&proto, "\x80\x01N.");
	expect_error(&proto, NULL, "t.pickle: byte 0: pickle protocol 1 is not supported");
	free(proto.d);
	bytes empty = {0};
	expect_error(&empty, NULL,
		     "t.pickle: byte 0: the pickle ends before its STOP opcode (file cut short?)");
}

/* --- opcodes Python does not write ------------------------------------ */

static void dict_list_pop_dup_long4_and_binunicode8_are_read(void **state)
{
	bytes b = pickle_of(LIT("]("));
	/* DICT from a mark, with a BINUNICODE and a BINUNICODE8 key */
	put_str(&b, "(X\x01");
	put_repeat(&b, 0, 3);
	put_str(&b, "aK\x01\x8d\x01");
	put_repeat(&b, 0, 7);
	put_str(&b, "bK\x02");
	put_byte(&b, 'd');
	put_str(&b, "(K\x01K\x02l"); /* LIST */
	put_str(&b, "K\x09"
		    "0"); /* POP */
	put_str(&b, "(K\x01K\x02"
		    "1"); /* POP_MARK */
	put_str(&b, "K\x03"
		    "2\x86");		      /* DUP, TUPLE2 */
	put(&b, LIT("\x8b\x2c\x01\x00\x00")); /* LONG4 of 300 bytes: -2 */
	put_byte(&b, 0xfe);
	put_repeat(&b, 0xff, 299);
	put(&b, LIT("\x8b\x00\x00\x00\x00"));		/* LONG4 of 0 bytes: 0 */
	put_str(&b, "\x88\x89N(K\x01K\x02K\x03K\x04t"); /* NEWTRUE NEWFALSE NONE TUPLE */
	put_str(&b, "e.");
	loaded l = load_bytes(b.d, b.n, NULL);
	if (l.rc)
		fail_msg("%s", l.err.msg);
	char *got = dump(l.root, 100);
	assert_string_equal(got, "[9\n{2\nS61 0\nI1\nS62 0\nI2\n[2\nI1\nI2\n(2\nI3\nI3\nI-2\nI0\nT\nF\nN\n"
				 "(4\nI1\nI2\nI3\nI4\n");
	free(got);
	cg_pickle_free(l.pk);
	free(b.d);
}

static void long1_up_to_255_bytes_is_read_when_the_value_fits(void **state)
{
	static const struct {
		unsigned n;
		unsigned char low[9]; /* the first bytes; the rest repeat fill */
		unsigned nlow, fill;
		bool ok, is_unsigned;
		uint64_t value;
	} cases[] = {
		{0, {0}, 0, 0, true, false, 0},
		{255, {5}, 1, 0x00, true, false, 5},		   /* 5, sign-extended */
		{255, {0xff}, 1, 0xff, true, false, (uint64_t)-1}, /* -1 */
		{255, {0xfe, 0xff}, 2, 0xff, true, false, (uint64_t)-2},
		{9, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0}, 9, 0, true, true, UINT64_MAX},
		{255, {0, 0, 0, 0, 0, 0, 0, 0x80}, 8, 0x00, true, true, (uint64_t)1 << 63}, /* 2^63 */
		{8, {0, 0, 0, 0, 0, 0, 0, 0x80}, 8, 0, true, false, (uint64_t)INT64_MIN},   /* -2^63 */
		{9, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff}, 9, 0, false, false, 0},
		{255, {1}, 1, 0x00, false, false, 0},			 /* with a 1 at byte 200 below */
		{9, {0, 0, 0, 0, 0, 0, 0, 0, 1}, 9, 0, false, false, 0}, /* 2^64 */
		{7, {0, 0, 0, 0, 0, 0, 0x80}, 7, 0, true, false, (uint64_t) - ((int64_t)1 << 55)},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		bytes b = pickle_of(LIT("\x8a"));
		put_byte(&b, cases[k].n);
		for (unsigned i = 0; i < cases[k].n; i++) {
			unsigned c = i < cases[k].nlow ? cases[k].low[i] : cases[k].fill;
			put_byte(&b, k == 8 && i == 200 ? 1 : c); /* 1 + 2^1600: too big */
		}
		put_byte(&b, '.');
		loaded l = load_bytes(b.d, b.n, NULL);
		if (!cases[k].ok) {
			char want[128];
			snprintf(want, sizeof want,
				 "t.pickle: byte 2: integer does not fit in 64 bits (LONG1 of %u bytes)",
				 cases[k].n);
			assert_int_equal(l.rc, CG_EINPUT);
			assert_string_equal(l.err.msg, want);
		} else {
			assert_int_equal(l.rc, 0);
			assert_int_equal(l.root->type, CG_PK_INT);
			assert_int_equal(!!(l.root->flags & CG_PK_INT_UNSIGNED), cases[k].is_unsigned);
			assert_int_equal(l.root->v.u, cases[k].value);
			cg_pickle_free(l.pk);
		}
		free(b.d);
	}
}

/* CPython's C pickler ends a dict of a multiple of 1000 keys with an
 * empty MARK SETITEMS, and a list of 1000k + 1 items with MARK x APPENDS:
 * {"a": [1]} written that way is still {"a": [1]}. */
static void empty_batches_as_cpython_writes_them(void **state)
{
	bytes b = pickle_of(LIT("}(\x8c\x01" "a](K\x01" "eu(u."));
	loaded l = load_bytes(b.d, b.n, NULL);
	assert_int_equal(l.rc, 0);
	assert_int_equal(l.root->type, CG_PK_DICT);
	assert_int_equal(l.root->len, 1);
	const cg_pk *a = cg_pk_dict_get(l.root, "a");
	assert_non_null(a);
	assert_int_equal(a->type, CG_PK_LIST);
	assert_int_equal(a->len, 1);
	assert_int_equal(a->v.items[0]->v.i, 1);
	cg_pickle_free(l.pk);
	free(b.d);
}

/* --- bounds ----------------------------------------------------------- */

static void frames_and_lengths_are_checked_against_the_bytes_left(void **state)
{
	bytes b = pickle_of(LIT("\x95"));
	put_le(&b, 1000, 8);
	put_str(&b, "N.");
	expect_error(&b, NULL, "t.pickle: byte 2: a FRAME of 1000 bytes runs past the end of the file");
	b.n = 3;
	put_le(&b, 2, 8);
	put_str(&b, "N.");
	loaded l = load_bytes(b.d, b.n, NULL); /* the exact length */
	assert_int_equal(l.rc, 0);
	cg_pickle_free(l.pk);
	/* Through gzip the size is not known: only the limit applies. */
	b.n = 3;
	put_le(&b, (uint64_t)1 << 40, 8);
	put_str(&b, "N.");
	const char *gz = tu_write_gz("frame.pickle.gz", b.d, b.n);
	l = load_file(gz, NULL);
	assert_int_equal(l.rc, CG_EINPUT);
	assert_non_null(
		strstr(l.err.msg, ": byte 2: a FRAME of 1099511627776 bytes is larger than the limit"));
	free(b.d);

	expect_error_str(
		LIT("X\xe8\x03\x00\x00"
		    "abc."),
		"t.pickle: byte 2: a str of 1000 bytes runs past the end of the file (4 bytes left)");
	expect_error_str(
		LIT("\x8d\x00\x00\x00\x00\x02\x00\x00\x00"
		    "abc."),
		"t.pickle: byte 2: a str of 8589934592 bytes is longer than the limit of 4294967294");
	expect_error_str(LIT("\x8b\xff\xff\xff\xff"), "t.pickle: byte 2: LONG4 with a negative length");
	expect_error_str(LIT("\x8b\x00\x01\x00\x00\x01."),
			 "t.pickle: byte 2: an integer of 256 bytes runs past");
	expect_error_str(LIT("N"),
			 "t.pickle: byte 3: the pickle ends before its STOP opcode (file cut short?)");
	expect_error_str(LIT("J\x01\x02"), "t.pickle: byte 5: the pickle ends before its STOP opcode");
}

static void every_cut_of_a_python_file_is_an_error_at_its_end(void **state)
{
	size_t len;
	char *data = tu_read(pickles_path("basic_p4.pickle"), &len);
	assert_non_null(data);
	for (size_t n = 0; n < len; n++) {
		loaded l = load_bytes(data, n, NULL);
		assert_int_equal(l.rc, CG_EINPUT);
		char want[128];
		snprintf(want, sizeof want, "t.pickle: byte %zu: the pickle ends before its STOP opcode", n);
		/* A str or FRAME whose length runs past the cut is caught at its opcode instead. */
		if (strncmp(l.err.msg, want, strlen(want)) != 0 &&
		    !strstr(l.err.msg, "runs past the end of the file"))
			fail_msg("cut at %zu: %s", n, l.err.msg);
	}
	/* The gzip copy cut in half. */
	char *gz = tu_read(pickles_path("basic_p4.pickle.gz"), &len);
	loaded l = load_file(tu_write("half.pickle.gz", gz, len / 2), NULL);
	assert_int_equal(l.rc < 0, true);
	free(gz);
	free(data);
}

static void memo_indices_are_checked(void **state)
{
	expect_error_str(LIT("h\x05."), "t.pickle: byte 2: memo entry 5 is empty (the memo has 0 slots)");
	expect_error_str(LIT("N\x94j\xff\xff\xff\xff."),
			 "t.pickle: byte 4: memo index 4294967295 is beyond the limit of 4294967294");
	expect_error_str(LIT("Nq\x03"
			     "0h\x01."),
			 "t.pickle: byte 6: memo entry 1 is empty (the memo has 4 slots)");
	expect_error_str(LIT("Nr\x40\x42\x0f\x00."),
			 "t.pickle: byte 3: memo index 1000000 skips far past the 0 entries");
	expect_error_str(LIT("\x94."),
			 "t.pickle: byte 2: a memo put with nothing on the stack (stack underflow)");
	bytes b = pickle_of("N\x94\x94\x94\x94\x94.", (size_t)-1);
	cg_pickle_options o = CG_PICKLE_OPTIONS_INIT;
	o.max_memo = 4;
	expect_error(&b, &o, "t.pickle: byte 7: memo index 4 is beyond the limit of 4");
	free(b.d);
	/* A slot written again takes the new value; MEMOIZE stores at len(memo),
	 * the number of slots set (2 here: 0 and 5), as Python does. */
	loaded l = load_bytes(LIT("\x80\x04K\x01q\x00"
				  "0K\x02q\x00"
				  "0K\x07q\x05"
				  "0K\x08\x94"
				  "0(h\x00h\x02t."),
			      NULL);
	if (l.rc)
		fail_msg("%s", l.err.msg);
	char *got = dump(l.root, 10);
	assert_string_equal(got, "(2\nI2\nI8\n");
	free(got);
	cg_pickle_free(l.pk);
}

/* --- structure -------------------------------------------------------- */

static void structural_errors_name_their_offset(void **state)
{
	static const struct {
		const char *body, *want;
	} cases[] = {
		{"}(K\x01u.", "byte 6: SETITEMS with an odd number of values (1)"},
		{"}(K\x01K\x02K\x03u.", "byte 10: SETITEMS with an odd number of values (3)"},
		{"(K\x01K\x02K\x03"
		 "d.",
		 "byte 9: DICT with an odd number of values (3)"},
		{"}(K\x01"
		 "e.",
		 "byte 6: APPENDS to a value that is not a list"},
		{"}K\x01"
		 "a.",
		 "byte 5: APPEND to a value that is not a list"},
		{"](K\x01K\x02u.", "byte 8: SETITEMS on a value that is not a dict"},
		{"]K\x01K\x02s.", "byte 7: SETITEM on a value that is not a dict"},
		{"]e.", "byte 3: APPENDS without a MARK before it (mark stack underflow)"},
		{"}u.", "byte 3: SETITEMS without a MARK"},
		{"Nt.", "byte 3: TUPLE without a MARK"},
		{"l.", "byte 2: LIST without a MARK"},
		{"d.", "byte 2: DICT without a MARK"},
		{"1.", "byte 2: POP_MARK without a MARK"},
		{"(e.", "byte 3: APPENDS needs more values than the stack holds (stack underflow)"},
		{"(K\x01u.", "byte 5: SETITEMS needs more values"},
		{"a.", "byte 2: APPEND needs more values than the stack holds (stack underflow)"},
		{"](K\x01"
		 "a.",
		 "byte 6: APPEND needs more values"}, /* the list is below the mark */
		{"}K\x01s.", "byte 5: SETITEM needs more values"},
		{"N\x86.", "byte 3: TUPLE2 needs more values"},
		{"NN\x87.", "byte 4: TUPLE3 needs more values"},
		{"\x85.", "byte 2: TUPLE1 needs more values"},
		{"0.", "byte 2: POP needs more values"},
		{"2.", "byte 2: DUP needs more values"},
		{"NN.", "byte 4: STOP with 2 values and 0 MARKs on the stack (one value expected)"},
		{"(N.", "byte 4: STOP with 1 values and 1 MARKs on the stack (one value expected)"},
		{".", "byte 2: STOP with 0 values and 0 MARKs"},
		{"\xff", "byte 2: unknown opcode 0xff"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		char want[256];
		snprintf(want, sizeof want, "t.pickle: %s", cases[k].want);
		expect_error_str(cases[k].body, (size_t)-1, want);
	}
	/* POP of an empty frame drops its mark, as in Python. */
	loaded l = load_bytes(LIT("\x80\x04N(0."), NULL);
	assert_int_equal(l.rc, 0);
	assert_int_equal(l.root->type, CG_PK_NONE);
	cg_pickle_free(l.pk);
}

static void repeated_keys_keep_their_place_and_take_the_last_value(void **state)
{
	loaded l = load_bytes(LIT("\x80\x04}(\x8c\x01"
				  "aK\x01\x8c\x01"
				  "bK\x02\x8c\x01"
				  "aK\x03K\x07K\x08K\x07K\x09u."),
			      NULL);
	if (l.rc)
		fail_msg("%s", l.err.msg);
	char *got = dump(l.root, 100);
	assert_string_equal(got, "{3\nS61 0\nI3\nS62 0\nI2\nI7\nI9\n"); /* {'a': 3, 'b': 2, 7: 9} */
	free(got);
	cg_pickle_free(l.pk);

	/* Above 32 pairs a repeat is kept as another pair; a lookup still gives the last value. */
	bytes b = pickle_of(LIT("}("));
	for (int i = 0; i < 40; i++) {
		char key[8];
		snprintf(key, sizeof key, "k%02d", i);
		put_str(&b, "\x8c\x03");
		put_str(&b, key);
		put_str(&b, "K");
		put_byte(&b, (unsigned)i);
	}
	put_str(&b, "\x8c\x03k00K\x63u.");
	l = load_bytes(b.d, b.n, NULL);
	assert_int_equal(l.rc, 0);
	assert_int_equal(l.root->len, 41);
	int64_t v;
	assert_true(cg_pk_int(cg_pk_dict_get(l.root, "k00"), &v) && v == 99);
	assert_true(cg_pk_int(cg_pk_dict_get(l.root, "k39"), &v) && v == 39);
	cg_pickle_free(l.pk);
	free(b.d);
}

static void cycles_through_the_memo_load_and_free(void **state)
{
	loaded l = load_bytes(LIT("\x80\x04]\x94h\x00"
				  "a."),
			      NULL); /* a = []; a.append(a) */
	assert_int_equal(l.rc, 0);
	assert_int_equal(l.root->len, 1);
	assert_ptr_equal(l.root->v.items[0], l.root);
	cg_pickle_free(l.pk);
	l = load_bytes(LIT("\x80\x04}\x94K\x01h\x00s."), NULL); /* d = {}; d[1] = d */
	assert_int_equal(l.rc, 0);
	assert_ptr_equal(l.root->v.items[1], l.root);
	cg_pickle_free(l.pk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(python_pickles_load_as_python_wrote_them),
		cmocka_unit_test(the_shared_frames_list_is_one_node_and_big_ints_keep_their_sign),
		cmocka_unit_test(each_refused_opcode_is_named_at_its_offset),
		cmocka_unit_test(global_os_system_and_reduce_are_refused_before_anything_runs),
		cmocka_unit_test(dict_list_pop_dup_long4_and_binunicode8_are_read),
		cmocka_unit_test(long1_up_to_255_bytes_is_read_when_the_value_fits),
		cmocka_unit_test(empty_batches_as_cpython_writes_them),
		cmocka_unit_test(frames_and_lengths_are_checked_against_the_bytes_left),
		cmocka_unit_test(every_cut_of_a_python_file_is_an_error_at_its_end),
		cmocka_unit_test(memo_indices_are_checked),
		cmocka_unit_test(structural_errors_name_their_offset),
		cmocka_unit_test(repeated_keys_keep_their_place_and_take_the_last_value),
		cmocka_unit_test(cycles_through_the_memo_load_and_free),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
