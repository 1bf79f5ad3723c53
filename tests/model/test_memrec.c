/* The 40-byte memory record (timeline.h): the op, shape, dtype and device
 * as one interned site, the site, action, category and flags as bit-fields,
 * the tensor id packed where it can be (tensorid.h). Every value a
 * trace can give must come back exactly, the hostile ones included. */
#include "testutil.h"

#include <string.h>

#include "finalize.h"
#include "timeline.h"

static cg_str intern(cg_timeline *tl, const char *s)
{
	cg_str id;
	assert_int_equal(cg_timeline_intern(tl, s, strlen(s), &id), 0);
	return id;
}

static cg_tensor_id packed(const char *s)
{
	cg_tensor_id t;
	assert_true(cg_tensor_id_pack(s, strlen(s), &t));
	return t;
}

static void a_memory_record_is_40_bytes(void **state)
{
	(void)state;
	/* 6.8 M of them fill 273 MB on the 10 M-line bench trace (docs/performance.md) */
	assert_int_equal(sizeof(cg_mem), 40);
}

static void every_field_keeps_its_largest_value(void **state)
{
	(void)state;
	cg_timeline *tl = cg_timeline_new(NULL);
	cg_mem_in in = {0};
	in.t_ns = UINT64_MAX;
	in.bytes = UINT64_MAX;
	in.tensor = packed("7ffffffff000#67108863"); /* the largest packed id */
	in.span = intern(tl, "s");
	in.op = intern(tl, "aten::empty");
	uint64_t dims[2] = {UINT64_MAX, 3};
	assert_int_equal(cg_timeline_intern_shape(tl, dims, 2, &in.shape), 0);
	in.pair = CG_NONE;
	in.line = UINT32_MAX;
	in.device = UINT16_MAX - 1;
	in.action = CG_FREE;
	in.category = CG_CAT_BASELINE;
	in.dtype = UINT8_MAX;
	in.flags = CG_MEM_PREEXISTING | CG_MEM_DOUBLE_FREE | CG_MEM_BYTES_MISMATCH | CG_MEM_REPLACED | CG_MEM_REPLACES;
	assert_int_equal(cg_timeline_add_mem(tl, &in), 0);
	in.action = CG_ALLOC;
	in.category = CG_CAT_PARAMETER;
	in.flags = 0;
	in.line = 0;
	in.t_ns = 0;
	in.bytes = 0;
	assert_int_equal(cg_timeline_add_mem(tl, &in), 0);

	assert_int_equal(tl->nmem, 2);
	const cg_mem *m = &tl->mem[0];
	assert_true(m->t_ns == UINT64_MAX);
	assert_true(m->bytes == UINT64_MAX);
	char buf[CG_TENSOR_ID_BUF];
	size_t len;
	assert_string_equal(cg_timeline_tensor_text(tl, m->tensor, buf, &len), "7ffffffff000#67108863");
	assert_int_equal(len, 21);
	assert_true(m->tensor.v == UINT64_MAX);
	assert_int_equal(m->span, in.span);
	assert_string_equal(cg_timeline_str(tl, cg_timeline_mem_op(tl, m)), "aten::empty");
	assert_int_equal(cg_timeline_mem_shape(tl, m), in.shape);
	assert_true(cg_timeline_shape_dim(tl, cg_timeline_mem_shape(tl, m), 0) == UINT64_MAX);
	assert_int_equal(cg_timeline_mem_dtype(tl, m), UINT8_MAX);
	assert_int_equal(m->pair, CG_NONE);
	assert_int_equal(m->line, UINT32_MAX);
	assert_int_equal(cg_timeline_mem_device(tl, m), UINT16_MAX - 1);
	assert_int_equal(m->action, CG_FREE);
	assert_int_equal(m->category, CG_CAT_BASELINE);
	assert_int_equal(m->flags, 31);
	m = &tl->mem[1];
	assert_true(m->t_ns == 0 && m->bytes == 0 && m->line == 0);
	assert_int_equal(m->action, CG_ALLOC);
	assert_int_equal(m->category, CG_CAT_PARAMETER);
	assert_int_equal(m->flags, 0);
	assert_int_equal(m->site, tl->mem[0].site); /* same op, shape and dtype */
	cg_timeline_free(tl);
}

static void records_share_a_site_when_op_shape_dtype_and_device_agree(void **state)
{
	(void)state;
	cg_timeline *tl = cg_timeline_new(NULL);
	cg_str mm = intern(tl, "aten::mm"), add = intern(tl, "aten::add");
	uint64_t d4 = 4;
	uint32_t s4;
	assert_int_equal(cg_timeline_intern_shape(tl, &d4, 1, &s4), 0);
	uint16_t gpu, cpu;
	assert_int_equal(cg_timeline_device(tl, "cuda:0", 6, &gpu), 0);
	assert_int_equal(cg_timeline_device(tl, "cpu", 3, &cpu), 0);
	/* (op, shape, dtype, device) of each record; sites are numbered in order of first use */
	struct {
		cg_str op;
		uint32_t shape;
		uint8_t dtype;
		uint16_t device;
		uint32_t site;
	} recs[] = {
		{mm, 0, 0, gpu, 0}, {mm, s4, 0, gpu, 1},	  {mm, 0, 0, gpu, 0},  {add, 0, 0, gpu, 2},
		{mm, 0, 1, gpu, 3}, {CG_STR_EMPTY, 0, 0, gpu, 4}, {add, 0, 0, gpu, 2}, {mm, s4, 0, gpu, 1},
		{mm, 0, 0, cpu, 5}, {add, 0, 0, cpu, 6},	  {mm, 0, 0, cpu, 5},  {mm, 0, 0, gpu, 0},
	};
	size_t n = sizeof recs / sizeof recs[0];
	for (size_t i = 0; i < n; i++) {
		cg_mem_in in = {.t_ns = i, .bytes = 8, .pair = CG_NONE, .line = (uint32_t)i + 1};
		in.op = recs[i].op;
		in.shape = recs[i].shape;
		in.dtype = recs[i].dtype;
		in.device = recs[i].device;
		in.action = CG_ALLOC;
		in.tensor = cg_tensor_id_str(intern(tl, i % 2 ? "a" : "b"));
		assert_int_equal(cg_timeline_add_mem(tl, &in), 0);
	}
	assert_int_equal(tl->nmem_sites, 7);
	for (size_t i = 0; i < n; i++) {
		const cg_mem *m = &tl->mem[i];
		assert_int_equal(m->site, recs[i].site);
		assert_int_equal(cg_timeline_mem_op(tl, m), recs[i].op);
		assert_int_equal(cg_timeline_mem_shape(tl, m), recs[i].shape);
		assert_int_equal(cg_timeline_mem_dtype(tl, m), recs[i].dtype);
		assert_int_equal(cg_timeline_mem_device(tl, m), recs[i].device);
	}
	cg_timeline_free(tl);
}

/* More distinct sites than the index's first size, so it grows: every
 * record still finds its own. */
static void many_distinct_sites_each_come_back(void **state)
{
	(void)state;
	cg_timeline *tl = cg_timeline_new(NULL);
	enum { N = 5000 };
	for (uint32_t i = 0; i < N; i++) {
		cg_mem_in in = {.t_ns = i, .bytes = i, .pair = CG_NONE, .line = i + 1, .action = CG_ALLOC};
		in.op = (cg_str)(i % 97);
		in.shape = i / 97;
		in.dtype = (uint8_t)(i % 3);
		assert_int_equal(cg_timeline_add_mem(tl, &in), 0);
	}
	assert_int_equal(tl->nmem_sites, N);
	for (uint32_t i = 0; i < N; i++) {
		const cg_mem *m = &tl->mem[i];
		assert_int_equal(m->site, i);
		assert_int_equal(cg_timeline_mem_op(tl, m), i % 97);
		assert_int_equal(cg_timeline_mem_shape(tl, m), i / 97);
		assert_int_equal(cg_timeline_mem_dtype(tl, m), i % 3);
	}
	cg_timeline_free(tl);
}

/* The site field holds CG_MEM_SITE_BITS bits: the last index that fits
 * comes back beside the largest action, category and flags, and one site
 * more is CG_ELIMIT (limit_hit SITES), not a record of another site. */
static void the_last_site_index_comes_back_and_one_more_site_is_a_limit(void **state)
{
	(void)state;
	cg_timeline *tl = cg_timeline_new(NULL);
	uint32_t site;
	for (uint32_t i = 0; i + 1 < CG_MAX_MEM_SITES; i++)
		assert_int_equal(cg_timeline_mem_site(tl, (cg_str)(i & 1023), i >> 10, 0, 0, &site), 0);
	cg_mem_in in = {.t_ns = UINT64_MAX, .bytes = UINT64_MAX, .pair = CG_NONE, .line = UINT32_MAX};
	in.op = (cg_str)7;
	in.shape = UINT32_MAX;
	in.dtype = UINT8_MAX;
	in.device = UINT16_MAX - 1;
	in.action = CG_FREE;
	in.category = CG_CAT_COUNT - 1;
	in.flags = 31;
	assert_int_equal(cg_timeline_add_mem(tl, &in), 0);
	const cg_mem *m = &tl->mem[0];
	assert_int_equal(m->site, CG_MAX_MEM_SITES - 1);
	assert_int_equal(cg_timeline_mem_op(tl, m), 7);
	assert_int_equal(cg_timeline_mem_shape(tl, m), UINT32_MAX);
	assert_int_equal(cg_timeline_mem_dtype(tl, m), UINT8_MAX);
	assert_int_equal(cg_timeline_mem_device(tl, m), UINT16_MAX - 1);
	assert_int_equal(m->action, CG_FREE);
	assert_int_equal(m->category, CG_CAT_COUNT - 1);
	assert_int_equal(m->flags, 31);
	assert_true(m->t_ns == UINT64_MAX && m->bytes == UINT64_MAX && m->line == UINT32_MAX);

	in.device = 0; /* a new site */
	assert_int_equal(cg_timeline_add_mem(tl, &in), CG_ELIMIT);
	assert_int_equal(tl->limit_hit, CG_LIMIT_SITES);
	assert_int_equal(tl->nmem, 1);
	assert_int_equal(tl->nmem_sites, CG_MAX_MEM_SITES);
	char buf[128];
	assert_string_equal(cg_timeline_limit_text(tl, buf, sizeof buf),
			    "more than 4194304 distinct (op, shape, dtype, device) of memory records");
	in.device = UINT16_MAX - 1; /* an existing site still fits */
	assert_int_equal(cg_timeline_add_mem(tl, &in), 0);
	assert_int_equal(tl->mem[1].site, CG_MAX_MEM_SITES - 1);
	cg_timeline_free(tl);
}

/* A record refused at the record limit adds no site. */
static void a_refused_record_adds_no_site(void **state)
{
	(void)state;
	cg_timeline *tl = cg_timeline_new(NULL);
	cg_timeline_set_max_records(tl, 1);
	cg_mem_in in = {.pair = CG_NONE, .action = CG_ALLOC};
	assert_int_equal(cg_timeline_add_mem(tl, &in), 0);
	in.op = intern(tl, "aten::mm");
	assert_int_equal(cg_timeline_add_mem(tl, &in), CG_ELIMIT);
	assert_int_equal(tl->limit_hit, CG_LIMIT_RECORDS);
	assert_int_equal(tl->nmem, 1);
	assert_int_equal(tl->nmem_sites, 1);
	cg_timeline_free(tl);
}

/* Pairing copies categories and sets flags in the bit-fields: a free takes
 * its allocation's category, a double free is flagged. */
static void finalize_writes_categories_and_flags_into_the_bit_fields(void **state)
{
	(void)state;
	cg_timeline *tl = cg_timeline_new(NULL);
	uint16_t dev;
	assert_int_equal(cg_timeline_device(tl, "cuda:0", 6, &dev), 0);
	cg_tensor_id t = cg_tensor_id_str(intern(tl, "t"));
	struct {
		uint64_t t;
		cg_action a;
		cg_category c;
	} recs[] = {{1, CG_ALLOC, CG_CAT_BASELINE}, {2, CG_FREE, CG_CAT_UNKNOWN}, {3, CG_FREE, CG_CAT_UNKNOWN}};
	for (uint32_t i = 0; i < 3; i++) {
		cg_mem_in in = {.t_ns = recs[i].t, .bytes = UINT64_MAX, .tensor = t, .pair = CG_NONE, .line = i + 1};
		in.device = dev;
		in.action = (uint8_t)recs[i].a;
		in.category = (uint8_t)recs[i].c;
		assert_int_equal(cg_timeline_add_mem(tl, &in), 0);
	}
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_timeline_finalize(tl, &err), 0);
	assert_int_equal(tl->mem[0].pair, 1);
	assert_int_equal(tl->mem[1].pair, 0);
	assert_int_equal(tl->mem[1].category, CG_CAT_BASELINE);
	assert_true(tl->mem[1].bytes == UINT64_MAX);
	assert_int_equal(tl->mem[2].flags, CG_MEM_DOUBLE_FREE);
	assert_true(tl->mem[2].bytes == 0);
	cg_timeline_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_memory_record_is_40_bytes),
		cmocka_unit_test(every_field_keeps_its_largest_value),
		cmocka_unit_test(records_share_a_site_when_op_shape_dtype_and_device_agree),
		cmocka_unit_test(the_last_site_index_comes_back_and_one_more_site_is_a_limit),
		cmocka_unit_test(many_distinct_sites_each_come_back),
		cmocka_unit_test(a_refused_record_adds_no_site),
		cmocka_unit_test(finalize_writes_categories_and_flags_into_the_bit_fields),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
