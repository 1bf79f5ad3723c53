/* PyTorch's export_memory_timeline raw file into a timeline
 * (memtimeline_raw.c): files built here, plain and gzip, with their sums
 * worked by hand, the malformed records of every kind, files with no
 * records, a file cut short, and HTA's sample against its oracle. */
#include "testutil.h"

#include <string.h>

#include "memtimeline_raw.h"

/* Reads text (gzip-compressed when gz) through cg_memtimeline_ingest. */
static int raw_rc(const char *text, bool gz, const cg_ingest_options *o, cg_timeline **out, cg_error *err)
{
	const char *path = gz ? tu_write_gz("t.raw.json.gz", text, (size_t)-1) : tu_write("t.raw.json", text, (size_t)-1);
	cg_reader *r;
	assert_int_equal(cg_reader_open(&r, path, NULL, err), 0);
	int rc = cg_memtimeline_ingest(out, r, path, o, err);
	cg_reader_close(r);
	return rc;
}

static cg_timeline *raw(const char *text, bool gz)
{
	cg_timeline *tl = NULL;
	cg_error err = CG_ERROR_INIT;
	if (raw_rc(text, gz, NULL, &tl, &err) < 0)
		fail_msg("%s", err.msg);
	return tl;
}

static bool has_diag(const cg_timeline *tl, cg_diag_kind kind, uint64_t line, const char *msg)
{
	for (size_t i = 0; i < tl->source.ndiags; i++)
		if (tl->source.diags[i].kind == kind && tl->source.diags[i].line == line &&
		    strcmp(tl->source.diags[i].msg, msg) == 0)
			return true;
	return false;
}

/* Live bytes in all and by category after each record of device 0 in
 * time order (cg_timeline_apply_live), from what was live before the
 * first; the peak is their maximum, and where it is first reached. */
typedef struct live {
	uint64_t peak, peak_by_cat[CG_CAT_COUNT], end, end_by_cat[CG_CAT_COUNT];
	uint32_t peak_line;
} live;

static live replay(const cg_timeline *tl)
{
	live l = {0};
	const cg_device *d = &tl->devices[0];
	uint64_t total = cg_device_initial_live(d), by_cat[CG_CAT_COUNT];
	memcpy(by_cat, d->initial_by_cat, sizeof by_cat);
	l.peak = total;
	memcpy(l.peak_by_cat, by_cat, sizeof by_cat);
	for (uint32_t k = 0; k < d->mem_count; k++) {
		cg_timeline_apply_live(tl, d->mem_first + k, &total, by_cat);
		if (total > l.peak) {
			l.peak = total;
			l.peak_line = tl->mem[d->mem_first + k].line;
			memcpy(l.peak_by_cat, by_cat, sizeof by_cat);
		}
	}
	l.end = total;
	memcpy(l.end_by_cat, by_cat, sizeof by_cat);
	return l;
}

/* The four actions on one device, pre-existing records listed at the start
 * and in the middle, times in ns since the epoch:
 *   1 pre-existing  1000 B parameter
 *   2 create         300 B activation      at origin + 0
 *   3 increment     -300 B activation      at +50 (version 0 of the tensor)
 *   4 increment     +300 B gradient        at +50 (version 1)
 *   5 pre-existing    64 B optimizer state
 *   6 create          16 B unknown         at +100
 *   7 destroy       -300 B gradient        at +150
 *   8 destroy        -16 B unknown         at +200
 * Time order puts 1 and 5 first at 0: live 1000, 1064, then 1364 (2),
 * 1064 (3), 1364 (4), 1380 (6), 1080 (7), 1064 (8). */
static const char four_actions[] =
	"[[-1, 1, 1000, 0],\n"
	" [1000000000000000100, 2, 300, 4],\n"
	" [1000000000000000150, 3, -300, 4],\n"
	" [1000000000000000150, 3, 300, 5],\n"
	" [-1, 1, 64, 1],\n"
	" [1000000000000000200, 2, 16, 7],\n"
	" [1000000000000000250, 4, -300, 5],\n"
	" [1000000000000000300, 4, -16, 7]]\n";

static void the_four_actions_become_allocations_and_frees(void **state)
{
	for (int gz = 0; gz < 2; gz++) {
		cg_timeline *tl = raw(four_actions, gz);
		assert_int_equal(tl->ndevices, 1);
		assert_string_equal(cg_timeline_str(tl, tl->devices[0].name), "cuda:0");
		assert_int_equal(tl->nmem, 8);
		/* Pre-existing first, at time 0, then file order; lines are event numbers. */
		static const uint32_t lines[8] = {1, 5, 2, 3, 4, 6, 7, 8};
		static const uint64_t times[8] = {0, 0, 0, 50, 50, 100, 150, 200};
		static const uint64_t bytes[8] = {1000, 64, 300, 300, 300, 16, 300, 16};
		static const uint8_t actions[8] = {CG_ALLOC, CG_ALLOC, CG_ALLOC, CG_FREE, CG_ALLOC, CG_ALLOC, CG_FREE, CG_FREE};
		static const uint8_t cats[8] = {CG_CAT_PARAMETER, CG_CAT_OPTIMIZER_STATE, CG_CAT_ACTIVATION,
						CG_CAT_ACTIVATION, CG_CAT_GRADIENT, CG_CAT_UNKNOWN, CG_CAT_GRADIENT,
						CG_CAT_UNKNOWN};
		for (int i = 0; i < 8; i++) {
			const cg_mem *m = &tl->mem[tl->devices[0].mem_first + (uint32_t)i];
			assert_int_equal(m->line, lines[i]);
			assert_int_equal(m->t_ns, times[i]);
			assert_int_equal(m->bytes, bytes[i]);
			assert_int_equal(m->action, actions[i]);
			assert_int_equal(m->category, cats[i]);
			assert_int_equal(m->pair, CG_NONE); /* no ids: nothing to pair */
		}
		const cg_source *src = &tl->source;
		assert_false(src->pairing_known);
		assert_true(src->categories_known);
		assert_true(src->lines_are_events);
		assert_int_equal(src->lines, 8);
		assert_int_equal(src->records[CG_KIND_MEMORY], 8);
		assert_int_equal(src->gzip, gz);
		assert_string_equal(src->format, "PyTorch memory timeline (export_memory_timeline raw)");
		assert_false(src->truncated);
		assert_int_equal(src->bad_lines, 0);
		/* The earliest timestamp but the pre-existing ones' -1 is time 0, after 2001: epoch ns. */
		assert_true(src->time_origin_known);
		assert_int_equal(src->time_origin_unix_ns, INT64_C(1000000000000000100));
		assert_string_equal(src->time_origin, "1000000000000000100 ns");
		/* The device is not recorded: the metadata says which was assumed. */
		assert_int_equal(tl->nmeta, 1);
		assert_string_equal(cg_timeline_str(tl, tl->meta[0].key), "device_note");

		live l = replay(tl);
		assert_int_equal(cg_device_initial_live(&tl->devices[0]), 0);
		assert_int_equal(l.peak, 1380);
		assert_int_equal(l.peak_line, 6);
		/* At the peak: 1000 parameter, 64 optimizer state, activation
		 * 300 - 300 = 0, gradient 300, unknown 16. */
		assert_int_equal(l.peak_by_cat[CG_CAT_PARAMETER], 1000);
		assert_int_equal(l.peak_by_cat[CG_CAT_OPTIMIZER_STATE], 64);
		assert_int_equal(l.peak_by_cat[CG_CAT_ACTIVATION], 0);
		assert_int_equal(l.peak_by_cat[CG_CAT_GRADIENT], 300);
		assert_int_equal(l.peak_by_cat[CG_CAT_UNKNOWN], 16);
		/* At the end only the pre-existing 1064 B. */
		assert_int_equal(l.end, 1064);
		assert_int_equal(l.end_by_cat[CG_CAT_PARAMETER], 1000);
		assert_int_equal(l.end_by_cat[CG_CAT_OPTIMIZER_STATE], 64);
		assert_int_equal(tl->devices[0].live_at_end, 1064);
		cg_timeline_free(tl);
	}
}

static void timestamps_before_2001_are_not_taken_for_epoch_time(void **state)
{
	/* Origin 5000 ns: relative times are kept, the epoch is not claimed. */
	cg_timeline *tl = raw("[[5000, 2, 8, 3], [5007, 4, -8, 3]]", false);
	assert_false(tl->source.time_origin_known);
	assert_string_equal(tl->source.time_origin, "5000 ns");
	assert_int_equal(tl->mem[1].t_ns, 7);
	assert_int_equal(tl->mem[0].category, CG_CAT_TEMPORARY);
	cg_timeline_free(tl);
	/* Only pre-existing records: all at 0, and no origin at all. */
	tl = raw("[[-1, 1, 8, 0]]", true);
	assert_int_equal(tl->nmem, 1);
	assert_null(tl->source.time_origin);
	cg_timeline_free(tl);
}

static void malformed_records_are_skipped_with_their_number(void **state)
{
	const char *text =
		"[[-1, 1, 10, 0],\n"			/* 1 fine */
		" \"x\",\n"				/* 2 not an array */
		" [1, 2, 3],\n"				/* 3 three numbers */
		" [5, 9, 1, 0],\n"			/* 4 no such action */
		" [5, 2, 1.5, 0],\n"			/* 5 not an integer */
		" [-5, 2, 8, 0],\n"			/* 6 negative time, not pre-existing */
		" [5, 2, -9223372036854775808, 0],\n"	/* 7 has no magnitude in int64 */
		" [5, 2, 0, 3],\n"			/* 8 zero bytes: skipped, not bad */
		" [5, 2, 7, 12],\n"			/* 9 category outside 0-7: unknown */
		" [5, 2, 7, -1],\n"			/* 10 likewise */
		" [1e30, 2, 1, 0],\n"			/* 11 beyond 64 bits */
		" {\"a\": 1},\n"			/* 12 an object */
		" [5, 2, true, 0],\n"			/* 13 not a number */
		" [5, 2, 4, 0, 9],\n"			/* 14 five numbers */
		" [6, 2, 4, 0]]";			/* 15 fine */
	static const struct {
		uint64_t line;
		const char *msg;
	} bad[] = {
		{2, "not an array of 4 numbers [timestamp, action, bytes, category]"},
		{3, "not an array of 4 numbers [timestamp, action, bytes, category]"},
		{4, "action is not 1 (pre-existing), 2 (create), 3 (increment version) or 4 (destroy)"},
		{5, "a field is not a 64-bit integer"},
		{6, "negative timestamp on a record that is not pre-existing"},
		{7, "bytes out of range"},
		{11, "a field is not a 64-bit integer"},
		{12, "not an array of 4 numbers [timestamp, action, bytes, category]"},
		{13, "not an array of 4 numbers [timestamp, action, bytes, category]"},
		{14, "not an array of 4 numbers [timestamp, action, bytes, category]"},
	};
	for (int gz = 0; gz < 2; gz++) {
		cg_timeline *tl = raw(text, gz);
		const cg_source *src = &tl->source;
		assert_int_equal(src->lines, 15);
		assert_int_equal(src->bad_lines, sizeof bad / sizeof bad[0]);
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
			if (!has_diag(tl, CG_DIAG_BAD_LINE, bad[i].line, bad[i].msg))
				fail_msg("no bad record %llu: %s", (unsigned long long)bad[i].line, bad[i].msg);
		assert_true(has_diag(tl, CG_DIAG_WARNING, 0, "1 records of 0 bytes were skipped"));
		assert_true(has_diag(tl, CG_DIAG_WARNING, 0, "2 records with a category outside 0-7 were counted as unknown"));
		assert_int_equal(src->unknown_categories, 2);
		/* Records 1, 9, 10 and 15 remain: 10 + 7 + 7 + 4 = 28 B. */
		assert_int_equal(tl->nmem, 4);
		assert_int_equal(tl->mem[1].line, 9);
		assert_int_equal(tl->mem[1].category, CG_CAT_UNKNOWN);
		assert_int_equal(tl->mem[2].category, CG_CAT_UNKNOWN);
		assert_int_equal(replay(tl).end, 28);
		cg_timeline_free(tl);
	}

	/* With strict the first bad record is fatal, named by its number. */
	cg_ingest_options o = CG_INGEST_OPTIONS_INIT;
	o.strict = true;
	cg_timeline *tl = (cg_timeline *)1;
	cg_error err;
	assert_int_equal(raw_rc(text, false, &o, &tl, &err), CG_EINPUT);
	assert_null(tl);
	assert_non_null(strstr(err.msg, "t.raw.json: record 2: not an array of 4 numbers"));

	/* A record longer than the limit. */
	o.strict = false;
	o.max_line_bytes = 20;
	assert_int_equal(raw_rc("[[1, 2, 8, 0], [2, 2, 8,                    0]]", false, &o, &tl, &err), 0);
	assert_true(has_diag(tl, CG_DIAG_BAD_LINE, 2, "record longer than the limit (--max-line-bytes)"));
	assert_int_equal(tl->nmem, 1);
	cg_timeline_free(tl);
}

static void a_file_without_records_is_an_input_error(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{"[[]]", ": no memory records in this memory timeline"},
		{"[[5, 2, 0, 0], [6, 2, 0, 1]]", ": no memory records in this memory timeline"}, /* all 0 bytes */
		{"[[\"a\", 1, 2, 3]]", ": no memory records in this memory timeline"},
		{"[[-1, 1, 5", ": no memory records in this memory timeline (the file is cut short)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		for (int gz = 0; gz < 2; gz++) {
			cg_timeline *tl = (cg_timeline *)1;
			cg_error err = CG_ERROR_INIT;
			assert_int_equal(raw_rc(cases[i].text, gz, NULL, &tl, &err), CG_EINPUT);
			assert_null(tl);
			const char *at = strstr(err.msg, ": no memory");
			if (!at || strcmp(at, cases[i].msg) != 0)
				fail_msg("case %zu: \"%s\"", i, err.msg);
		}
	}
}

static void a_file_cut_short_is_read_up_to_the_cut(void **state)
{
	for (int gz = 0; gz < 2; gz++) {
		cg_timeline *tl = raw("[[-1, 1, 10, 0], [5, 2, 7, 3], [6, 2", gz);
		assert_true(tl->source.truncated);
		assert_int_equal(tl->source.truncated_line, 3);
		assert_non_null(tl->source.truncation_note);
		assert_int_equal(tl->nmem, 2);
		assert_int_equal(replay(tl).end, 17);
		cg_timeline_free(tl);
	}
}

static void holistic_trace_analysis_sample_gives_its_oracles_figures(void **state)
{
	/* hta_memory_timeline.oracle.json, computed by its own script. */
	cg_timeline *tl;
	cg_error err;
	assert_int_equal(cg_ingest(&tl, tu_sample("external/hta_memory_timeline.raw.gz"), NULL, &err), 0);
	const cg_source *src = &tl->source;
	assert_string_equal(src->format, "PyTorch memory timeline (export_memory_timeline raw)");
	assert_int_equal(src->file_bytes, 64683);
	assert_int_equal(src->data_bytes, 611286); /* json_bytes */
	assert_int_equal(src->lines, 16845);	   /* records */
	assert_int_equal(src->bad_lines, 0);
	assert_int_equal(src->time_origin_unix_ns, INT64_C(1696966047096061874)); /* first_ts */
	/* Zero-byte records are not kept; every other record is. */
	uint64_t zero = 0;
	for (size_t i = 0; i < src->ndiags; i++)
		if (sscanf(src->diags[i].msg, "%llu records of 0 bytes", (unsigned long long *)&zero) == 1)
			break;
	assert_int_equal(tl->nmem + zero, 16845);
	/* preexisting_bytes_by_category, all at time 0. */
	uint64_t pre[CG_CAT_COUNT] = {0};
	const cg_device *d = &tl->devices[0];
	for (uint32_t k = 0; k < d->mem_count; k++) {
		const cg_mem *m = &tl->mem[d->mem_first + k];
		if (m->t_ns == 0 && m->action == CG_ALLOC && m->line <= 645)
			pre[m->category] += m->bytes;
	}
	assert_int_equal(pre[CG_CAT_PARAMETER], 102440608);
	assert_int_equal(pre[CG_CAT_OPTIMIZER_STATE], 102228128);
	assert_int_equal(pre[CG_CAT_INPUT], 19395584);
	assert_int_equal(pre[CG_CAT_UNKNOWN], 107996584);
	/* event_granular: the peak, its record (index 1639 from 0: event 1640),
	 * the bytes by category there, and the final total. */
	live l = replay(tl);
	assert_int_equal(l.peak, 3082832104u);
	assert_int_equal(l.peak_line, 1640);
	assert_int_equal(l.peak_by_cat[CG_CAT_PARAMETER], 102440608);
	assert_int_equal(l.peak_by_cat[CG_CAT_OPTIMIZER_STATE], 102228128);
	assert_int_equal(l.peak_by_cat[CG_CAT_INPUT], 19395584);
	assert_int_equal(l.peak_by_cat[CG_CAT_TEMPORARY], 0);
	assert_int_equal(l.peak_by_cat[CG_CAT_ACTIVATION], 2592465920u);
	assert_int_equal(l.peak_by_cat[CG_CAT_GRADIENT], 67858432);
	assert_int_equal(l.peak_by_cat[CG_CAT_AUTOGRAD_DETAIL], 64225280);
	assert_int_equal(l.peak_by_cat[CG_CAT_UNKNOWN], 134218152);
	assert_int_equal(l.end, 332060904);
	assert_int_equal(l.end_by_cat[CG_CAT_GRADIENT], 107868160);
	assert_int_equal(l.end_by_cat[CG_CAT_ACTIVATION], 128000);
	assert_int_equal(l.end_by_cat[CG_CAT_UNKNOWN], 424);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_four_actions_become_allocations_and_frees),
		cmocka_unit_test(timestamps_before_2001_are_not_taken_for_epoch_time),
		cmocka_unit_test(malformed_records_are_skipped_with_their_number),
		cmocka_unit_test(a_file_without_records_is_an_input_error),
		cmocka_unit_test(a_file_cut_short_is_read_up_to_the_cut),
		cmocka_unit_test(holistic_trace_analysis_sample_gives_its_oracles_figures),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
