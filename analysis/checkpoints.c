#include "checkpoints.h"

#include "checked.h"
#include "xalloc.h"

static void fill(cg_checkpoint *c, const cg_devmem *dm, const cg_device *dev, uint32_t index, uint64_t live)
{
	*c = (cg_checkpoint){.devmem = index, .t_ns = dm->t_ns, .live_bytes = live,
			     .has_used = dm->has_used, .has_reserved = dm->has_reserved};
	if (dm->has_used) {
		c->used_bytes = dm->used_bytes;
		c->free_bytes = dm->free_bytes;
		c->has_capacity = cg_add_u64(dm->used_bytes, dm->free_bytes, &c->capacity_bytes);
		c->has_headroom = c->has_capacity;
	} else if (dev->has_capacity) {
		/* PyTorch traces: the device's size, and the allocator's
		 * reserved bytes as what is in use; the headroom is what it
		 * could still reserve (none when it holds it all). */
		c->has_capacity = true;
		c->capacity_bytes = dev->capacity_bytes;
		if (dm->has_reserved) {
			c->has_headroom = true;
			c->free_bytes = dm->reserved_bytes < dev->capacity_bytes ? dev->capacity_bytes - dm->reserved_bytes : 0;
		}
	}
	if (dm->has_reserved) {
		c->reserved_bytes = dm->reserved_bytes;
		if (dm->reserved_bytes > 0) {
			c->has_fragmentation = true;
			c->fragmentation = ((double)dm->reserved_bytes - (double)live) / (double)dm->reserved_bytes;
		}
		if (dm->has_used) {
			uint64_t u = dm->used_bytes, r = dm->reserved_bytes;
			if (u >= r)
				c->outside_allocator = u - r > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(u - r);
			else
				c->outside_allocator = r - u > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)(r - u);
		}
	}
}

static uint64_t distance(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

static void device_checkpoints(const cg_timeline *tl, uint32_t d, size_t first, uint64_t peak_t,
			       cg_checkpoints_device *o)
{
	const cg_device *dev = &tl->devices[d];
	o->count = dev->devmem_count;
	o->list = cg_calloc(o->count ? o->count : 1, sizeof *o->list);
	o->max_fragmentation = CG_NONE;
	o->nearest_peak = CG_NONE;
	uint64_t live = cg_device_initial_live(dev);
	uint32_t j = 0;
	for (uint32_t k = 0; k < o->count; k++) {
		const cg_devmem *dm = &tl->devmem[first + k];
		/* checkpoints and records are both in time order: walk them together */
		while (j < dev->mem_count && tl->mem[dev->mem_first + j].t_ns <= dm->t_ns) {
			live = cg_timeline_live_after(tl, dev->mem_first + j++, live);
		}
		cg_checkpoint *c = &o->list[k];
		fill(c, dm, dev, (uint32_t)(first + k), live);
		if (c->has_fragmentation &&
		    (o->max_fragmentation == CG_NONE || c->fragmentation > o->list[o->max_fragmentation].fragmentation))
			o->max_fragmentation = k;
		if (o->nearest_peak == CG_NONE ||
		    distance(c->t_ns, peak_t) < distance(o->list[o->nearest_peak].t_ns, peak_t))
			o->nearest_peak = k;
	}
}

int cg_checkpoints_run(cg_checkpoints_result **out, const cg_timeline *tl, const uint64_t *peak_t_ns,
		       cg_error *err)
{
	(void)err;
	cg_checkpoints_result *r = cg_calloc(1, sizeof *r);
	r->ndevices = tl->ndevices;
	r->devices = cg_calloc(tl->ndevices ? tl->ndevices : 1, sizeof *r->devices);
	/* tl->devmem is sorted by device, then time. */
	size_t first = 0;
	for (uint32_t d = 0; d < tl->ndevices; d++) {
		device_checkpoints(tl, d, first, peak_t_ns[d], &r->devices[d]);
		first += tl->devices[d].devmem_count;
	}
	*out = r;
	return 0;
}

void cg_checkpoints_free(cg_checkpoints_result *r)
{
	if (!r)
		return;
	for (uint32_t d = 0; d < r->ndevices; d++)
		cg_free(r->devices[d].list);
	cg_free(r->devices);
	cg_free(r);
}
