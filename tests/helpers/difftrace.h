/* Hand-built runs for the tests of diff and check: a small training loop
 * whose memory is worked out on paper in each test, as JSONL text (for the
 * command line) or as a timeline built directly (for the layers' tests,
 * which do not link ingest): the same records either way.
 *
 * The run (device dev, times in ns):
 *   span "run" from 0 to 100 * (steps + 1); a 100 B parameter "w" (op
 *   "empty", shape [25], f32) allocated in it at t = 1 and never freed.
 *   Step k (t0 = 100 * (k + 1)): span "step#k" [t0, t0 + 90] holding
 *     forward "fwd" [t0 + 5, t0 + 45] holding module "fc1" [t0 + 10, t0 + 30]:
 *       t0 + 11  alloc act_k: act_bytes (act_bytes_step0 in step 0 when set),
 *                activation, op "linear", shape [4, bytes / 16], f32, in fc1
 *       t0 + 12  alloc loss_k: 4 B, activation, op "loss", shape [1], in fwd (when loss)
 *       t0 + 40  free act_k
 *       t0 + 41  free loss_k (unless keep_loss)
 *     optimizer "opt" [t0 + 50, t0 + 70] (when opt):
 *       t0 + 51  alloc m: 200 B optimizer_state, op "zeros", shape [50], in step 0 only
 *   A device_memory checkpoint at t0 + 20 of every step with reserved_bytes
 *   = reserved when reserved is set (used 0, free 0 then omitted). */
#ifndef CG_DIFFTRACE_H
#define CG_DIFFTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timeline.h"

typedef struct run_spec {
	const char *dev;
	int steps;
	uint64_t act_bytes;
	uint64_t act_bytes_step0; /* 0: act_bytes */
	bool loss, keep_loss, opt;
	uint64_t reserved;	  /* 0: no checkpoints */
} run_spec;

#define RUN_SPEC_INIT {"cuda:0", 3, 64, 0, false, false, false, 0}

/* Writes the run's JSONL into buf (asserting it fits); returns buf. */
char *dt_trace(const run_spec *s, char *buf, size_t size);

/* The same run as a finalized timeline (caller frees): what ingesting
 * dt_trace's text gives, line numbers aside. */
cg_timeline *dt_timeline(const run_spec *s);

#endif
