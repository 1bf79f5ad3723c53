/* Frames of a PyTorch stack: which traces have them, which frames are
 * call plumbing, the nearest module. Shared by the charts (the span an
 * allocation is shown under) and the report's stacks (stackview.h). */
#ifndef CG_FRAMES_H
#define CG_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "timeline.h"

/* Whether tl's span paths are stacks of frames: PyTorch profiler traces
 * (Chrome trace formats) and allocator snapshots. Every other format keeps
 * its '/' paths. */
bool cg_stack_is_frames(const cg_timeline *tl);

/* Whether a frame is call plumbing that a reader skips: Python's
 * multiprocessing start-up ("multiprocessing/spawn.py(122): spawn_main"),
 * "<string>(1): <module>", torch's nn/modules/module.py call wrappers
 * (_wrapped_call_impl, _call_impl) and "<built-in method … at 0x…>". */
bool cg_stack_boring(const char *name);

/* The nearest "nn.Module: " span at or above span (256 levels at most),
 * CG_NONE if none. */
uint32_t cg_stack_module(const cg_timeline *tl, uint32_t span);

#endif
