#include "tlbuild.h"

#include <stdio.h>
#include <string.h>

#include "finalize.h"
#include "xalloc.h"

static uint32_t next_line;

static cg_str intern(cg_timeline *tl, const char *s)
{
	cg_str id = CG_STR_EMPTY;
	if (s)
		assert_int_equal(cg_timeline_intern(tl, s, strlen(s), &id), 0);
	return id;
}

/* As ingest spells it: packed when it can be (tensorid.h). */
static cg_tensor_id tensor_id(cg_timeline *tl, const char *s)
{
	cg_tensor_id t;
	if (s && cg_tensor_id_pack(s, strlen(s), &t))
		return t;
	return cg_tensor_id_str(intern(tl, s));
}

cg_timeline *tu_tl_new(void)
{
	cg_timeline *tl = cg_timeline_new(NULL);
	tl->source.display_name = cg_strdup("test.jsonl");
	tl->source.path = cg_strdup("test.jsonl");
	tl->source.format = cg_strdup("hand-built");
	next_line = 2;
	return tl;
}

uint16_t tu_device(cg_timeline *tl, const char *name)
{
	uint16_t d;
	assert_int_equal(cg_timeline_device(tl, name, strlen(name), &d), 0);
	return d;
}

void tu_span(cg_timeline *tl, const char *id, const char *parent, const char *name, uint64_t start, uint64_t end,
	     cg_phase step)
{
	cg_span s = {0};
	s.start_ns = start;
	s.end_ns = start;
	s.id = intern(tl, id);
	s.parent = intern(tl, parent);
	s.name = intern(tl, name);
	s.line = next_line++;
	s.kind = CG_SPAN_FUNCTION;
	s.step = (uint8_t)step;
	s.phase = (uint8_t)step;
	assert_int_equal(cg_timeline_add_span(tl, &s), 0);
	if (end != UINT64_MAX)
		assert_int_equal(cg_timeline_add_span_end(tl, s.id, end - start, next_line++), 0);
}

void tu_span_end(cg_timeline *tl, const char *id, uint64_t duration)
{
	assert_int_equal(cg_timeline_add_span_end(tl, intern(tl, id), duration, next_line++), 0);
}

void tu_meta(cg_timeline *tl, const char *key, const char *value)
{
	cg_source *src = &tl->source;
	if (!src->meta_seen) {
		src->meta_seen = true;
		src->meta_line = next_line;
		src->schema = intern(tl, "candle-graph/trace/6");
	}
	src->meta_count++;
	assert_int_equal(cg_timeline_add_meta(tl, intern(tl, key), intern(tl, value), true), 0);
	next_line++;
}

static void add_mem(cg_timeline *tl, uint64_t t, const char *tensor, const char *span, const char *device,
		    uint64_t bytes, cg_action action, cg_category category, const char *op, uint32_t shape);

void tu_mem_shaped(cg_timeline *tl, uint64_t t, const char *tensor, const char *span, const char *device,
		   uint64_t bytes, cg_action action, cg_category category, const char *op, const uint64_t *dims,
		   size_t ndims)
{
	uint32_t shape;
	assert_int_equal(cg_timeline_intern_shape(tl, dims, ndims, &shape), 0);
	add_mem(tl, t, tensor, span, device, bytes, action, category, op, shape);
}

void tu_mem(cg_timeline *tl, uint64_t t, const char *tensor, const char *span, const char *device, uint64_t bytes,
	    cg_action action, cg_category category, const char *op)
{
	add_mem(tl, t, tensor, span, device, bytes, action, category, op, 0);
}

static void add_mem(cg_timeline *tl, uint64_t t, const char *tensor, const char *span, const char *device,
		    uint64_t bytes, cg_action action, cg_category category, const char *op, uint32_t shape)
{
	cg_mem_in m = {0};
	m.shape = shape;
	m.t_ns = t;
	m.bytes = bytes;
	m.tensor = tensor_id(tl, tensor);
	m.span = intern(tl, span);
	m.op = intern(tl, op);
	m.line = next_line++;
	m.device = tu_device(tl, device);
	m.action = (uint8_t)action;
	m.category = (uint8_t)category;
	uint8_t dt;
	assert_int_equal(cg_timeline_dtype(tl, "f32", 3, &dt), 0);
	m.dtype = dt;
	assert_int_equal(cg_timeline_add_mem(tl, &m), 0);
}

void tu_devmem(cg_timeline *tl, uint64_t t, const char *device, uint64_t used, uint64_t free_bytes,
	       uint64_t reserved)
{
	cg_devmem d = {0};
	d.t_ns = t;
	d.has_used = used != UINT64_MAX;
	d.used_bytes = d.has_used ? used : 0;
	d.free_bytes = d.has_used ? free_bytes : 0;
	d.has_reserved = reserved != UINT64_MAX;
	d.reserved_bytes = d.has_reserved ? reserved : 0;
	d.line = next_line++;
	d.device = tu_device(tl, device);
	assert_int_equal(cg_timeline_add_devmem(tl, &d), 0);
}

void tu_oom(cg_timeline *tl, uint64_t t, const char *device, uint64_t bytes)
{
	cg_oom o = {0};
	o.t_ns = t;
	o.bytes = bytes;
	o.line = next_line++;
	o.device = tu_device(tl, device);
	assert_int_equal(cg_timeline_add_oom(tl, &o), 0);
}

void tu_gradient(cg_timeline *tl, const char *root, const char *key, cg_grad_state state, bool has_norm,
		 double norm)
{
	cg_gradient g = {0};
	char event[256];
	snprintf(event, sizeof event, "grad:%s.%s:%u", root, key, next_line);
	g.event_id = intern(tl, event);
	g.root = intern(tl, root);
	g.key = intern(tl, key);
	g.line = next_line++;
	g.state = (uint8_t)state;
	g.has_norm = has_norm;
	g.norm = norm;
	assert_int_equal(cg_timeline_add_gradient(tl, &g), 0);
}

void tu_tl_finalize(cg_timeline *tl)
{
	cg_error err = CG_ERROR_INIT;
	if (cg_timeline_finalize(tl, &err) != 0)
		fail_msg("finalize failed: %s", err.msg);
}

uint32_t tu_mem_at_line(const cg_timeline *tl, uint32_t line)
{
	for (size_t i = 0; i < tl->nmem; i++)
		if (tl->mem[i].line == line)
			return (uint32_t)i;
	fail_msg("no memory record at line %u", line);
	return CG_NONE;
}
