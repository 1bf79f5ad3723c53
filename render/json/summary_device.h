/* The per-device sections of summary.json (docs/summary-format.md): what
 * was live at the peak, the span-path tree, figures over time, checkpoints,
 * the allocator replay, leaks, lifetimes and the end of the trace. */
#ifndef CG_SUMMARY_DEVICE_H
#define CG_SUMMARY_DEVICE_H

#include <stdint.h>

#include "analysis.h"
#include "jsonw.h"

/* Writes the sections of device d as keys of the device object open in w. */
void cg_summary_json_device_sections(cg_jw *w, const cg_analysis *a, uint32_t d);

/* One allocation as an object (tensor, op, span path, phase, category,
 * shape, dtype, bytes, allocated_ns, freed_ns, ...). alloc is an index into
 * tl->mem, or CG_NONE with end set for an allocation from before the trace. */
void cg_summary_json_alloc(cg_jw *w, const cg_timeline *tl, uint32_t alloc, uint32_t end, uint64_t bytes);

#endif
