/* PyTorch profiler (Kineto) Chrome traces into a timeline.
 *
 * What is read, from each event of traceEvents (or of a bare array):
 * - "[memory]" instant events: allocations (Bytes > 0) and frees (Bytes < 0)
 *   on the device named by "Device Type" (c10::DeviceType: 0 cpu, 1 cuda:N,
 *   6 hip:N, ...) and "Device Id"; "Addr" pairs frees with allocations (the
 *   address text is the tensor id); "Total Reserved" becomes a device
 *   checkpoint; "Total Allocated" gives each device's baseline, the memory
 *   allocated before profiling began. Without "Addr" (PyTorch ~1.9) frees
 *   cannot be paired: source.pairing_known is false.
 * - "[OutOfMemory]" events: out-of-memory moments.
 * - complete events ("ph": "X") of CPU operators, user annotations and
 *   Python functions: spans, nested per thread by time; GPU kernels, copies
 *   and runtime calls are left out. Phases come from range names
 *   ("forward", "## backward ##", "Optimizer.step#...",
 *   "autograd::engine::evaluate_function: ...").
 * Times become nanoseconds since the earliest timestamp in the trace,
 * exactly (timestamps are read as decimal text, never as doubles). Records'
 * `line` is the event's position in the array (source.lines_are_events).
 * Kineto traces have no memory categories: source.categories_known is false.
 * Events of the shape PyTorch writes are read by a scan of their bytes
 * (kineto_fields.h), the rest through cJSON; o->cjson_only sends every
 * event through cJSON (to measure the scan, and to compare the two).
 */
#ifndef CG_KINETO_H
#define CG_KINETO_H

#include "ingest_options.h"
#include "reader.h"
#include "timeline.h"

/* Reads the document from r (at its start) into a new finalized timeline
 * (*out, the caller's). path is what the user named ("-" for stdin).
 * Fails with CG_EINPUT (malformed document, no memory events, strict and a
 * bad event), CG_EIO or CG_ELIMIT; on failure *out is NULL. */
int cg_kineto_ingest(cg_timeline **out, cg_reader *r, const char *path, const cg_ingest_options *o,
		     cg_error *err);

#endif
