/* PyTorch's export_memory_timeline raw file into a timeline.
 *
 * The file (from `prof.export_memory_timeline("x.raw.json.gz")`) is one JSON
 * array of [timestamp_ns, action, bytes, category] records, timestamps in
 * nanoseconds since the Unix epoch. Actions: 1 pre-existing (timestamp -1:
 * live from the start), 2 create, 3 increment version (a -n/+n pair), 4
 * destroy (bytes negative). Categories 0-7 are parameter, optimizer state,
 * input, temporary, activation, gradient, autograd detail, unknown: the
 * order of cg_category. Records carry no ids, so frees are not paired
 * (source.pairing_known is false) and each keeps its own category; nor a
 * device: the timeline names it cuda:0, export_memory_timeline's default.
 * Pre-existing records become allocations at time 0, before all others. */
#ifndef CG_MEMTIMELINE_RAW_H
#define CG_MEMTIMELINE_RAW_H

#include "ingest_options.h"
#include "reader.h"
#include "timeline.h"

/* Reads the array from r (at its start) into a new finalized timeline
 * (*out, the caller's). Fails with CG_EINPUT (malformed document, no
 * records, strict and a bad record), CG_EIO or CG_ELIMIT; *out is then NULL. */
int cg_memtimeline_ingest(cg_timeline **out, cg_reader *r, const char *path, const cg_ingest_options *o,
			  cg_error *err);

#endif
