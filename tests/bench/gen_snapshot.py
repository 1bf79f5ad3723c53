#!/usr/bin/env python3
"""Writes a large synthetic PyTorch CUDA caching-allocator snapshot, for the
benchmark only (issue 14): what `torch.cuda.memory._dump_snapshot()` writes
for a training run, in the current layout of PyTorch 2.x.

    python3 tests/bench/gen_snapshot.py --bytes 1G -o /tmp/snap-1G.pickle
    python3 tests/bench/gen_snapshot.py --bytes 10M --devices 2 --gzip -o /tmp/s.pickle.gz
    python3 tests/bench/gen_snapshot.py --bytes 4M --verify

What is in it. {"segments", "device_traces", "allocator_settings",
"external_annotations"}, each trace a list of entries {action, addr, size,
stream, time_us, compile_context, user_metadata, frames}. The events come
from a simulated training loop (a 24-layer transformer of 8 block kinds,
AdamW, an evaluation every 200 steps followed by empty_cache) run through a
model of the caching allocator (512-byte rounding, small pool of 2 MiB
segments up to 1 MiB, large pool, best fit, splitting and merging, a side
stream whose blocks are freed with record_stream so that free_completed
comes late, cached segments released when the device is full). The trace is
the tail of the run, as a ring buffer keeps it: it starts in the middle of a
backward pass, so parameters, optimizer state and half the activations were
allocated before it. By default it ends with an `oom` entry after the
allocator released its free segments; the segments and blocks are the
allocator's state at that moment, so the trace is consistent with them
(docs/snapshot-format.md section 9, checked with snapshot_oracle.py).

Sharing, as in real files (magma27_cs336_memory_snapshot.pickle): 219
distinct stacks of 5-20 frames (median 14) built from 144 frame dicts; every
frame dict is one object, so every later use is a memo get (about 5 gets per
put in the file). Each allocation
context is one list: `free_requested` and its `free_completed` share one,
`segment_alloc` / `segment_free` share the list of the allocation that
caused them, and a block live at the end shares its allocation's list.
Key strings, action and state strings and the empty string are shared; the
"N/A" of compile_context, segment_pool_id tuples and the strings inside frame
dicts are new objects each time. Allocations on the autograd thread
(backward) carry no frames.

How it is written. A pickle.dump of a 1 GB snapshot would need many GB of
Python objects, so the pickle is written as a stream, opcode by opcode,
exactly as CPython's C pickler writes protocol 4: FRAME when a frame reaches
64 KiB at the start of a save, MEMOIZE after every new str / list / dict /
tuple, BINGET / LONG_BINGET for objects seen before, MARK ... APPENDS and
SETITEMS in batches of 1000 (with the C pickler's quirks: a list whose length
leaves one item for the last batch still gets MARK ... APPENDS, a dict whose
length is a multiple of 1000 gets a last empty MARK SETITEMS), the smallest
integer opcode that fits, LONG1 of minimal width. `--verify` builds the same
snapshot as Python objects and checks that pickle.dumps(obj, protocol=4)
gives the same bytes, that pickletools accepts it, and that loading it with a
restricted unpickler gives the same object; use it with a few MB.

--bytes is a target (K, M, G are powers of 1024); the trace stops when its
estimated size is reached and the file comes within about 1 % of it. The same
--seed gives the same file.
"""
import argparse
import array
import bisect
import gzip
import io
import pickle
import pickletools
import random
import resource
import sys
import time

from snapshot_pickler import (ACTIONS, ALLOC, ALLOCATED, FREE, FREE_DONE, FREE_REQ, K_DEVICE_TRACES, OOM, PENDING,
                              SEG_ALLOC, SEG_FREE, STATES, Framer, Writer, materialize)

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
GENERATOR_VERSION = 1   # snapshot_bench.py makes its cached snapshot again when this changes

# ----------------------------------------------------------------- allocator (c10/cuda/CUDACachingAllocator.cpp)
MIN_BLOCK = 512             # kMinBlockSize: every size is rounded up to it
SMALL_SIZE = 1 * MiB        # kSmallSize: largest request of the small pool
SMALL_BUFFER = 2 * MiB      # kSmallBuffer: segment size of the small pool
LARGE_BUFFER = 20 * MiB     # kLargeBuffer: segment for 1-10 MiB requests
MIN_LARGE_ALLOC = 10 * MiB  # kMinLargeAlloc
ROUND_LARGE = 2 * MiB       # kRoundLarge: larger segments are rounded to it


DEVICE_BYTES = 24 * GiB           # a 24 GiB card
CUDA_CONTEXT_BYTES = 512 * MiB    # what the CUDA context and cuBLAS take before the allocator
T0_US = 1779000000000000          # 2026-05-17, epoch microseconds


class Block:
    __slots__ = ("addr", "size", "seg", "prev", "next", "state", "req", "ctx", "fctx")

    def __init__(self, addr, size, seg, prev, nxt):
        self.addr, self.size, self.seg, self.prev, self.next = addr, size, seg, prev, nxt
        self.state, self.req, self.ctx, self.fctx = FREE, 0, -1, -1


class Segment:
    __slots__ = ("addr", "size", "small", "stream", "head")

    def __init__(self, addr, size, small, stream):
        self.addr, self.size, self.small, self.stream, self.head = addr, size, small, stream, None


class Contexts:
    """Allocation contexts: one frame list each. stack[c] is its stack id,
    refs[c] how many recorded trace entries use it (an empty_cache() can
    release hundreds of segments under one context)."""

    def __init__(self):
        self.stack = array.array("i")
        self.refs = array.array("I")

    def new(self, stack):
        self.stack.append(stack)
        self.refs.append(0)
        return len(self.refs) - 1


def entry_bytes(addr, size, stream_w, list_b):
    """Bytes of a trace entry written by the fast path: 68 fixed (keys met after the segments take
    LONG_BINGET, a time_us of 7 bytes, an address of 6) and its ints and frame list (list_b)."""
    return 68 + (int_width(addr) - 8) + int_width(size) + stream_w + list_b


def list_bytes(widths):
    """Bytes of a new frame list whose frame dicts are memo gets of these widths."""
    n = len(widths)
    return 2 if n == 0 else 3 + widths[0] if n == 1 else 4 + sum(widths)


class Trace:
    """One device's recorded entries, in compact arrays, from index first on."""

    def __init__(self, ctxs, stacks, rnd, t0):
        self.ctxs, self.stacks, self.rnd = ctxs, stacks, rnd
        self.first = 0
        self.new_lists = [0] * len(stacks)      # new frame lists written, per stack
        self.est_list = [list_bytes([5] * len(st)) for st in stacks]
        self.act = bytearray()
        self.addr = array.array("Q")
        self.size = array.array("Q")
        self.stream = bytearray()
        self.dt = array.array("I")
        self.ctx = array.array("i")
        self.t = t0
        self.last = t0
        self.recording = False
        self.est = 0            # estimated bytes of the pickled entries
        self.annotations = []   # (time_us, name, stage)
        self.tscale = 40

    def start(self):
        self.recording = True
        self.last = self.t_first = self.t

    def wait(self, us):
        self.t += us

    def add(self, a, addr, size, stream, c):
        t = self.t = self.t + 1 + int(self.rnd.random() * self.tscale)
        if not self.recording:
            return
        self.act.append(a)
        self.addr.append(addr)
        self.size.append(size)
        self.stream.append(stream)
        self.dt.append(t - self.last)
        self.last = t
        self.ctx.append(c)
        refs = self.ctxs.refs
        r = refs[c]
        refs[c] = r + 1
        # entry_bytes(), inline: this runs for every entry
        if r:
            e = 75
        else:
            st = self.ctxs.stack[c]
            self.new_lists[st] += 1
            e = 70 + self.est_list[st]
        e += 2 if size < 256 else 3 if size < 65536 else 5 if size < 2147483648 else 3 + size.bit_length() // 8
        if stream:
            e += 6
        if not 549755813888 <= addr < 140737488355328:
            e += int_width(addr) - 8
        self.est += e

    def annotate(self, name, stage):
        if self.recording:
            self.annotations.append((self.t, name, stage))


def int_width(v):
    if v < 256:
        return 2
    if v < 65536:
        return 3
    if v < 1 << 31:
        return 5
    return 2 + v.bit_length() // 8 + 1


class Device:
    """The caching allocator of one device: pools of free blocks per
    (small, stream), sorted by (size, address) as PyTorch's BlockComparatorSize."""

    def __init__(self, index, trace, va_base):
        self.index = index
        self.trace = trace
        self.usable = DEVICE_BYTES - CUDA_CONTEXT_BYTES
        self.free = {}
        self.blocks = {}
        self.segments = {}
        self.reserved = 0
        self.va_next = va_base
        self.va_free = {}

    def free_list(self, small, stream):
        fl = self.free.get((small, stream))
        if fl is None:
            fl = self.free[(small, stream)] = []
        return fl

    def malloc(self, req, stream, ctx):
        size = MIN_BLOCK if req <= MIN_BLOCK else -(-req // MIN_BLOCK) * MIN_BLOCK
        small = size <= SMALL_SIZE
        fl = self.free_list(small, stream)
        i = bisect.bisect_left(fl, (size, 0))
        if i < len(fl):
            b = self.blocks[fl.pop(i)[1]]
        else:
            b = self.new_segment(size, small, stream, ctx)
            if b is None:
                return None
        rest = b.size - size
        if (rest >= MIN_BLOCK) if small else (rest > SMALL_SIZE):
            nb = Block(b.addr + size, rest, b.seg, b, b.next)
            if b.next is not None:
                b.next.prev = nb
            b.next = nb
            b.size = size
            self.blocks[nb.addr] = nb
            bisect.insort(fl, (rest, nb.addr))
        b.state, b.req, b.ctx = ALLOCATED, req, ctx
        self.trace.add(ALLOC, b.addr, req, stream, ctx)
        return b

    def new_segment(self, size, small, stream, ctx):
        if small:
            seg_size = SMALL_BUFFER
        elif size < MIN_LARGE_ALLOC:
            seg_size = LARGE_BUFFER
        else:
            seg_size = -(-size // ROUND_LARGE) * ROUND_LARGE
        if self.reserved + seg_size > self.usable:
            self.release_cached(ctx)
            if self.reserved + seg_size > self.usable:
                return None
        reuse = self.va_free.get(seg_size)
        if reuse:
            addr = reuse.pop()
        else:
            addr = self.va_next
            self.va_next += seg_size
        seg = Segment(addr, seg_size, small, stream)
        b = seg.head = Block(addr, seg_size, seg, None, None)
        self.segments[addr] = seg
        self.blocks[addr] = b
        self.reserved += seg_size
        self.trace.add(SEG_ALLOC, addr, seg_size, stream, ctx)
        return b

    def release_cached(self, ctx):
        """empty_cache(), or the allocator's retry before an OOM: every
        segment that is one free block goes back (large pool first)."""
        for small in (False, True):
            for key in sorted(k for k in self.free if k[0] == small):
                fl = self.free[key]
                keep = []
                for size, addr in fl:
                    b = self.blocks[addr]
                    if b.prev is None and b.next is None:
                        del self.blocks[addr]
                        del self.segments[addr]
                        self.reserved -= size
                        self.va_free.setdefault(size, []).append(addr)
                        self.trace.add(SEG_FREE, addr, size, key[1], ctx)
                    else:
                        keep.append((size, addr))
                fl[:] = keep

    def free_requested(self, b, ctx):
        b.state, b.fctx = PENDING, ctx
        self.trace.add(FREE_REQ, b.addr, b.req, b.seg.stream, ctx)

    def free_completed(self, b):
        self.trace.add(FREE_DONE, b.addr, b.req, b.seg.stream, b.fctx)
        b.state = FREE
        fl = self.free_list(b.seg.small, b.seg.stream)
        p = b.prev
        if p is not None and p.state == FREE:
            fl.pop(bisect.bisect_left(fl, (p.size, p.addr)))
            del self.blocks[b.addr]
            p.size += b.size
            p.next = b.next
            if b.next is not None:
                b.next.prev = p
            p.req = b.req
            b = p
        n = b.next
        if n is not None and n.state == FREE:
            fl.pop(bisect.bisect_left(fl, (n.size, n.addr)))
            del self.blocks[n.addr]
            b.size += n.size
            b.next = n.next
            if n.next is not None:
                n.next.prev = b
        bisect.insort(fl, (b.size, b.addr))

    def inactive_bytes(self):
        return sum(s for fl in self.free.values() for s, _ in fl)

    def largest_free(self):
        return max((fl[-1][0] for fl in self.free.values() if fl), default=0)


# ----------------------------------------------------------------- code: frames and stacks
TORCH = "/usr/local/lib/python3.11/site-packages/torch/"
USER = "/workspace/llm/"
BLOCK_KINDS = ("dense", "parallel", "sliding_window", "moe", "gated", "local_global", "cross", "low_rank")


class Code:
    """Frames (name, filename, line) and stacks (tuples of frame ids,
    innermost first; stack 0 has no frames)."""

    def __init__(self):
        self.frames = []
        self.frame_ids = {}
        self.stacks = [()]
        self.stack_ids = {(): 0}

    def f(self, name, filename, line):
        key = (name, filename, line)
        i = self.frame_ids.get(key)
        if i is None:
            i = self.frame_ids[key] = len(self.frames)
            self.frames.append(key)
        return i

    def stack(self, outer_first):
        key = tuple(reversed(outer_first))
        i = self.stack_ids.get(key)
        if i is None:
            i = self.stack_ids[key] = len(self.stacks)
            self.stacks.append(key)
        return i


class Program:
    """The training script's stacks, built once (the same for every seed)."""

    def __init__(self, code):
        f = code.f
        S = code.stack
        mod = TORCH + "nn/modules/module.py"
        call = [f("_wrapped_call_impl", mod, 1751), f("_call_impl", mod, 1762)]
        train = USER + "train.py"
        main = [f("<module>", train, 702), f("main", train, 655)]

        def outer(line, fn="train_step"):
            return main + [f("train", train, 540), f(fn, train, line)]

        linear = call + [f("forward", TORCH + "nn/modules/linear.py", 125)]
        layer_norm = call + [f("forward", TORCH + "nn/modules/normalization.py", 217),
                             f("layer_norm", TORCH + "nn/functional.py", 2910)]
        gpt = USER + "model/gpt.py"
        self.fwd = {}   # (phase, kind, op) -> stack
        evaluate = main + [f("train", train, 580), f("decorate_context", TORCH + "utils/_contextlib.py", 116)]
        for phase, head in (("train", outer(440)), ("eval", evaluate + [f("evaluate", train, 612)])):
            model = head + call + [f("forward", gpt, 212)]
            for k, kind in enumerate(BLOCK_KINDS):
                lines = random.Random(1000 + k)
                bfile = USER + "model/blocks/%s.py" % kind
                afile = USER + "model/attention/%s.py" % kind
                mfile = USER + "model/mlp/%s.py" % kind
                bl = 30 + lines.randrange(60)
                block_attn = model + call + [f("forward", bfile, bl)]
                block_mlp = model + call + [f("forward", bfile, bl + 1 + lines.randrange(4))]
                al = 40 + lines.randrange(80)
                attn = [f("forward", afile, al + d) for d in (0, 3, 4, 9, 12)]
                ml = 20 + lines.randrange(40)
                rope = f("apply_rotary_emb", USER + "model/rope.py", 41)
                ops = {
                    "ln1": block_attn + layer_norm,
                    "qkv": block_attn + call + [attn[0]] + linear,
                    "q_rot": block_attn + call + [attn[1], rope],
                    "k_rot": block_attn + call + [attn[2], rope],
                    "sdpa": block_attn + call + [attn[3]],
                    "o": block_attn + call + [attn[4]] + linear,
                    "resid1": block_attn,
                    "ln2": block_mlp + layer_norm,
                    "up": block_mlp + call + [f("forward", mfile, ml)] + linear,
                    "act": block_mlp + call + [f("forward", mfile, ml + 1),
                                               f("gelu", TORCH + "nn/functional.py", 1720)],
                    "down": block_mlp + call + [f("forward", mfile, ml + 2)] + linear,
                    "resid2": block_mlp,
                }
                if kind == "moe":
                    router = block_mlp + call + [f("forward", mfile, ml + 7)]
                    ops["router"] = router + call + [f("forward", USER + "model/router.py", 52)] + linear
                    expert = router + [f("run_experts", mfile, ml + 11)]
                    ops["up"] = expert + [f("forward", mfile, ml + 40)] + linear
                    ops["act"] = expert + [f("forward", mfile, ml + 41),
                                           f("gelu", TORCH + "nn/functional.py", 1720)]
                    ops["down"] = expert + [f("forward", mfile, ml + 42)] + linear
                    ops["combine"] = router + [f("combine", mfile, ml + 14)]
                for op, st in ops.items():
                    self.fwd[(phase, kind, op)] = S(st)
            sparse = call + [f("forward", TORCH + "nn/modules/sparse.py", 190),
                             f("embedding", TORCH + "nn/functional.py", 2551)]
            self.fwd[(phase, "", "emb")] = S(model[:-1] + [f("forward", gpt, 205)] + sparse)
            self.fwd[(phase, "", "lnf")] = S(model[:-1] + [f("forward", gpt, 216)] + layer_norm)
            self.fwd[(phase, "", "logits")] = S(model[:-1] + [f("forward", gpt, 217)] + linear)
            loss_line = 442 if phase == "train" else 615
            ce = (outer(loss_line) if phase == "train" else evaluate + [f("evaluate", train, loss_line)]) + \
                [f("cross_entropy", TORCH + "nn/functional.py", 3494)]
            self.fwd[(phase, "", "logsm")] = S(ce)
            self.fwd[(phase, "", "loss")] = S(ce[:-1] + [f("compute_loss", USER + "model/loss.py", 19)])
        loader = USER + "data/loader.py"
        self.data = S(outer(433) + [f("__next__", loader, 74), f("to_device", loader, 88)])
        self.labels = S(outer(433) + [f("__next__", loader, 74), f("to_device", loader, 89)])
        self.eval_data = S(evaluate + [f("evaluate", train, 606), f("to_device", loader, 88)])
        self.del_batch = S(outer(459) + [f("release", loader, 120)])
        self.seed = S(outer(447) + [f("backward", TORCH + "_tensor.py", 626),
                                    f("backward", TORCH + "autograd/__init__.py", 347),
                                    f("_engine_run_backward", TORCH + "autograd/graph.py", 823)])
        opt = TORCH + "optim/optimizer.py"
        adamw = TORCH + "optim/adamw.py"
        step = outer(452) + [f("wrapper", opt, 493), f("_use_grad", opt, 91), f("step", adamw, 232)]
        self.opt_ops = [S(step + [f("adamw", adamw, 869), f("_multi_tensor_adamw", adamw, line)])
                        for line in (700, 733, 742)]
        self.opt_init = S(step[:-1] + [f("step", adamw, 220), f("_init_group", adamw, 160)])
        self.zero_grad = S(outer(455) + [f("zero_grad", opt, 990)])
        apply_ = f("_apply", mod, 915)
        self.params = S(main[:1] + [f("main", train, 630), f("build_model", train, 120), f("to", mod, 1355),
                                    apply_, apply_, apply_, f("convert", mod, 1341)])
        self.empty_cache = S(main + [f("train", train, 583), f("after_eval", train, 597),
                                     f("empty_cache", TORCH + "cuda/memory.py", 222)])
        self.grad_norm = S(outer(450) + [f("clip_grad_norm_", TORCH + "nn/utils/clip_grad.py", 105)])


# ----------------------------------------------------------------- the training loop
class Budget(Exception):
    pass


class Trainer:
    L, H, HEADS, VOCAB, BATCH, EXPERTS = 24, 1024, 16, 50304, 4, 8
    SEQS = (1024, 1536, 2048, 2048)
    EVAL_EVERY = 200

    def __init__(self, dev, trace, ctxs, prog, rnd, budget):
        self.dev, self.trace, self.ctxs, self.prog, self.rnd = dev, trace, ctxs, prog, rnd
        self.budget = budget
        self.pending = []       # blocks freed with record_stream, completed after the next forward
        self.last_stack = 0
        H = self.H
        # (param bytes, no weight decay) per parameter, and for each layer the index of its first one
        self.param_sizes = []
        self.layer_params = []
        for l in range(self.L):
            kind = BLOCK_KINDS[l % len(BLOCK_KINDS)]
            self.layer_params.append(len(self.param_sizes))
            names = [("ln1", H * 2), ("qkv", 3 * H * H * 2), ("o", H * H * 2), ("ln2", H * 2)]
            if kind == "moe":
                names.append(("router", self.EXPERTS * H * 2))
                names += [("e%d" % e, 2 * H * H * 2 * 2) for e in range(self.EXPERTS)]
            else:
                names += [("up", 4 * H * H * 2), ("down", 4 * H * H * 2)]
            self.param_sizes += [n for _, n in names]
        self.emb_param = len(self.param_sizes)
        self.param_sizes += [self.VOCAB * H * 2, H * 2, self.VOCAB * H * 2]   # embedding, ln_f, head
        self.grads = [None] * len(self.param_sizes)

    # allocations --------------------------------------------------------
    def alloc(self, size, stack, stream=0):
        c = self.ctxs.new(stack)
        b = self.dev.malloc(size, stream, c)
        if b is None:
            raise RuntimeError("device %d ran out of memory before the end: reserved %d"
                               % (self.dev.index, self.dev.reserved))
        self.last_stack = stack
        if self.trace.est >= self.budget:
            raise Budget()
        return b

    def free(self, b, stack=0, later=False):
        self.dev.free_requested(b, self.ctxs.new(stack))
        if later:
            self.pending.append(b)
        else:
            self.dev.free_completed(b)

    # the model ----------------------------------------------------------
    def forward(self, phase, s, keep):
        """Returns the saved tensors (block, param index or None) in order;
        with keep False (evaluation) every output is freed after the next op."""
        P = self.prog.fwd
        H, B, rnd = self.H, self.BATCH if phase == "train" else 2 * self.BATCH, self.rnd
        bsh = B * s * H * 2
        saved = []
        prev = []

        def out(size, key, param=None):
            b = self.alloc(size, P[key])
            if keep:
                saved.append((b, param))
            else:
                prev.append(b)
                if len(prev) > 2:
                    self.free(prev.pop(0), P[key])
            return b

        out(bsh, (phase, "", "emb"), self.emb_param)
        for l in range(self.L):
            kind = BLOCK_KINDS[l % len(BLOCK_KINDS)]
            p0 = self.layer_params[l]
            self.trace.tscale = 30
            out(bsh, (phase, kind, "ln1"), p0)
            out(B * s * 4, (phase, kind, "ln1"))
            out(3 * bsh, (phase, kind, "qkv"), p0 + 1)
            out(bsh, (phase, kind, "q_rot"))
            out(bsh, (phase, kind, "k_rot"))
            ws = self.alloc(bsh // 2, P[(phase, kind, "sdpa")])
            out(bsh, (phase, kind, "sdpa"))
            out(B * self.HEADS * s * 4, (phase, kind, "sdpa"))
            self.free(ws, P[(phase, kind, "sdpa")])
            out(bsh, (phase, kind, "o"), p0 + 2)
            out(bsh, (phase, kind, "resid1"))
            out(bsh, (phase, kind, "ln2"), p0 + 3)
            out(B * s * 4, (phase, kind, "ln2"))
            if kind == "moe":
                out(B * s * self.EXPERTS * 4, (phase, kind, "router"), p0 + 4)
                for e in range(self.EXPERTS):
                    tokens = max(1, int(B * s * 2 / self.EXPERTS * (0.5 + rnd.random())))
                    out(tokens * 4 * H * 2, (phase, kind, "up"), p0 + 5 + e)
                    out(tokens * 4 * H * 2, (phase, kind, "act"))
                    out(tokens * H * 2, (phase, kind, "down"))
                out(bsh, (phase, kind, "combine"))
            else:
                wide = 4 * bsh if kind != "gated" else 3 * bsh
                out(wide, (phase, kind, "up"), p0 + 4)
                if kind == "gated":
                    out(wide, (phase, kind, "up"))
                out(wide, (phase, kind, "act"))
                out(bsh, (phase, kind, "down"), p0 + 5)
            out(bsh, (phase, kind, "resid2"))
        out(bsh, (phase, "", "lnf"), self.emb_param + 1)
        out(B * s * self.VOCAB * 2, (phase, "", "logits"), self.emb_param + 2)
        out(B * s * self.VOCAB * 4, (phase, "", "logsm"))
        out(4, (phase, "", "loss"))
        for b in prev:
            self.free(b, 0)
        return saved

    def backward(self, saved, start_recording=False):
        """Autograd's device thread: no Python frames. start_recording: the
        ring buffer's oldest entry is in the middle of this backward pass."""
        self.trace.tscale = 20
        g = self.alloc(4, self.prog.seed)
        for i in range(len(saved) - 1, -1, -1):
            if start_recording and i == len(saved) // 2:
                self.trace.start()
            b, param = saved[i]
            ng = self.alloc(b.req, 0)
            if param is not None and self.grads[param] is None:
                self.grads[param] = self.alloc(self.param_sizes[param], 0)
            self.free(g)
            self.free(b)
            g = ng
        self.free(g)

    def optimizer_step(self, first):
        tr = self.trace
        tr.tscale = 5
        if first:   # AdamW's exp_avg and exp_avg_sq, fp32, for ever
            self.state = [self.alloc(2 * n, self.prog.opt_init) for n in self.param_sizes for _ in (0, 1)]
        n = self.alloc(4, self.prog.grad_norm)
        self.free(n, self.prog.grad_norm)
        tr.annotate("Optimizer.step#AdamW.step", "START")
        decay = [i for i, n in enumerate(self.param_sizes) if n > self.H * 2]
        no_decay = [i for i, n in enumerate(self.param_sizes) if n <= self.H * 2]
        for st in self.prog.opt_ops:
            for group in (decay, no_decay):
                temps = [self.alloc(2 * self.param_sizes[i], st) for i in group]
                for t in temps:
                    self.free(t, st)
        tr.annotate("Optimizer.step#AdamW.step", "END")

    def zero_grad(self):
        tr = self.trace
        tr.annotate("Optimizer.zero_grad#AdamW.zero_grad", "START")
        for i, g in enumerate(self.grads):
            if g is not None:
                self.free(g, self.prog.zero_grad)
                self.grads[i] = None
        tr.annotate("Optimizer.zero_grad#AdamW.zero_grad", "END")

    def step(self, k, start_recording=False):
        tr = self.trace
        s = self.rnd.choice(self.SEQS)
        tr.wait(2000 + int(self.rnd.random() * 15000))   # the data loader
        tr.annotate("ProfilerStep#%d" % k, "START")
        side = 1 + self.dev.index      # the loader's copy stream
        ids = self.alloc(self.BATCH * s * 8, self.prog.data, side)
        labels = self.alloc(self.BATCH * s * 8, self.prog.labels, side)
        saved = self.forward("train", s, True)
        for b in self.pending:
            self.dev.free_completed(b)
        self.pending = []
        self.backward(saved, start_recording)
        self.optimizer_step(k == 0)
        self.zero_grad()
        self.free(ids, self.prog.del_batch, later=True)
        self.free(labels, self.prog.del_batch, later=True)
        tr.annotate("ProfilerStep#%d" % k, "END")
        if k and k % self.EVAL_EVERY == 0:
            self.evaluate()

    def evaluate(self):
        for _ in range(2):
            ids = self.alloc(2 * self.BATCH * 2048 * 8, self.prog.eval_data, 1 + self.dev.index)
            self.forward("eval", 2048, False)
            self.free(ids, self.prog.eval_data)
        self.dev.release_cached(self.ctxs.new(self.prog.empty_cache))

    def setup(self):
        self.params = [self.alloc(n, self.prog.params) for n in self.param_sizes]

    def oom(self):
        """The next allocation fails: the allocator frees its cached
        segments, cudaMalloc fails again, the OOM is recorded (before the
        observers run, so the snapshot taken in one contains it)."""
        c = self.ctxs.new(self.last_stack)
        dev = self.dev
        dev.release_cached(c)
        device_free = dev.usable - dev.reserved
        frag = dev.inactive_bytes()
        want = device_free + (frag // 2 if frag > 64 * MiB else GiB)
        want = max(want, dev.largest_free() + ROUND_LARGE)
        want = -(-want // ROUND_LARGE) * ROUND_LARGE
        self.trace.add(OOM, device_free, want, 0, c)


def simulate(args):
    code = Code()
    prog = Program(code)
    ctxs = Contexts()
    ndev = args.devices
    budget = int(args.bytes * 1.12) // ndev     # fit() then drops the oldest entries
    devices = []
    for d in range(ndev):
        rnd = random.Random(args.seed * 1000003 + d)
        trace = Trace(ctxs, code.stacks, rnd, T0_US + args.seed * 1000 + d * 7)
        dev = Device(d, trace, 0x7E0000000000 + d * (1 << 37))
        tr = Trainer(dev, trace, ctxs, prog, rnd, budget)
        tr.setup()
        k = 0
        try:
            while True:
                tr.step(k, start_recording=k == 1)
                k += 1
        except Budget:
            pass
        if not any(b.state == PENDING for b in dev.blocks.values()):
            live = [b for b in dev.blocks.values() if b.state == ALLOCATED and b.seg.stream == 0
                    and ctxs.refs[b.ctx]]
            if live:     # leave one free waiting for its stream, as a snapshot often shows
                dev.free_requested(max(live, key=lambda b: b.addr), ctxs.new(0))
        if args.oom:
            tr.oom()
        devices.append((dev, trace, k))
    snap = {"code": code, "ctxs": ctxs, "devices": devices,
            "streams": [0] + [0x55D1C3A4E0F0 + d * 0x2B40 for d in range(ndev)]}   # cudaStream_t values
    fit(snap, args.bytes)
    return snap


class NullSink:
    def __init__(self):
        self.n = 0

    def write(self, b):
        self.n += len(b)


def fit(snap, target):
    """Drops the oldest trace entries, as a ring buffer does, so that the file
    comes close to target bytes. The sizes of frame lists depend on which frame
    dicts the segments memoized first (BINGET or LONG_BINGET): they are known
    once the segments are written, so they are written to nowhere first."""
    w = Writer(NullSink(), snap)
    w.write_head()
    head = w.f.out.n + len(w.f.buf)

    def width(fid):
        o = w.frame_objs.get(fid)
        i = w.memo.get(id(o)) if o is not None else None
        return 2 if i is not None and i < 256 else 5
    code, ctxs = snap["code"], snap["ctxs"]
    exact = [list_bytes([width(fid) for fid in st]) for st in code.stacks]
    streams = snap["streams"]
    traces = [tr for _, tr, _ in snap["devices"]]
    sizes = []
    for tr in traces:
        n = len(tr.act)
        delta = sum(k * (exact[s] - tr.est_list[s]) for s, k in enumerate(tr.new_lists))
        sizes.append(tr.est + delta + 2 * n // 1000 + 2)
    nann = sum(len(tr.annotations) for tr in traces)
    total = head + sum(sizes) + 700 + 75 * nann
    total += total // Framer.FRAME_TARGET * 9
    excess = total - target
    if excess <= 0:
        return
    for tr in traces:
        drop = excess * (len(tr.act) / sum(len(t.act) for t in traces))
        seen = set()
        i = 0
        n = len(tr.act) - 1     # the last entry (the oom) stays
        t = tr.t_first
        while drop > 0 and i < n:
            c = tr.ctx[i]
            fr = 5 if c in seen else exact[ctxs.stack[c]]
            seen.add(c)
            drop -= entry_bytes(tr.addr[i], tr.size[i], int_width(streams[tr.stream[i]]), fr)
            t += tr.dt[i]
            i += 1
        for c in tr.ctx[:i]:
            ctxs.refs[c] -= 1
        tr.first = i
        tr.t_first = t
        tr.annotations = [a for a in tr.annotations if a[0] >= t]


class NoCodeUnpickler(pickle.Unpickler):
    """Loads plain containers only (snapshot_oracle.py's _NoCodeUnpickler)."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError("refused: global %s.%s" % (module, name))

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("refused: persistent id")


def verify(snap):
    fails = []
    mine = {}
    for label, generic in (("fast path", False), ("generic path only", True)):
        buf = io.BytesIO()
        w = Writer(buf, snap, generic_only=generic)
        w.write()
        mine[label] = buf.getvalue()
    obj = materialize(snap)
    ref = pickle.dumps(obj, protocol=4)
    for label, data in mine.items():
        if data != ref:
            at = next((i for i in range(min(len(data), len(ref))) if data[i] != ref[i]), min(len(data), len(ref)))
            fails.append("%s: bytes differ from pickle.dumps(obj, protocol=4) at byte %d (%d vs %d bytes)"
                         % (label, at, len(data), len(ref)))
    data = mine["fast path"]
    ops = {}
    for op, arg, pos in pickletools.genops(data):
        ops[op.name] = ops.get(op.name, 0) + 1
    pickletools.dis(data, out=io.StringIO())
    loaded = NoCodeUnpickler(io.BytesIO(data)).load()
    if loaded != obj:
        fails.append("the restricted unpickler gives another object")
    gets = ops.get("BINGET", 0) + ops.get("LONG_BINGET", 0)
    print("verify: %d bytes, %d entries; opcodes %s; memo gets %d, puts %d (%.1f gets per put)"
          % (len(data), sum(len(t) for t in obj[K_DEVICE_TRACES]), dict(sorted(ops.items())), gets,
             ops.get("MEMOIZE", 0), gets / max(1, ops.get("MEMOIZE", 0))), file=sys.stderr)
    for f in fails:
        print("verify: FAIL " + f, file=sys.stderr)
    if not fails:
        print("verify: ok (byte-identical to pickle.dumps, pickletools reads it, loads to the same object)",
              file=sys.stderr)
    return 1 if fails else 0


def parse_bytes(s):
    mult = {"K": KiB, "M": MiB, "G": GiB}
    s = s.strip().upper().rstrip("B")
    if s and s[-1] in mult:
        return int(float(s[:-1]) * mult[s[-1]])
    return int(s)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bytes", default="1G", help="target file size (uncompressed), e.g. 10M, 1G")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--devices", type=int, default=1)
    ap.add_argument("-o", "--output", default="-", help="output file (default: standard output)")
    ap.add_argument("--gzip", action="store_true", help="gzip the output (level 6)")
    ap.add_argument("--no-oom", dest="oom", action="store_false", help="no oom entry at the end")
    ap.add_argument("--verify", action="store_true",
                    help="check the bytes against pickle.dumps of the same objects (a few MB at most)")
    args = ap.parse_args()
    args.bytes = parse_bytes(args.bytes)
    if not 1 <= args.devices <= 16:
        ap.error("--devices: 1 to 16")
    if args.bytes < 64 * KiB:
        ap.error("--bytes: at least 64K")
    start = time.monotonic()
    snap = simulate(args)
    sim_s = time.monotonic() - start
    if args.verify:
        return verify(snap)
    if args.output == "-":
        if sys.stdout.isatty():
            ap.error("refusing to write a pickle to a terminal: give -o FILE")
        raw = sys.stdout.buffer
    else:
        raw = open(args.output, "wb")
    out = gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) if args.gzip else raw

    class Count:
        def __init__(self, f):
            self.f, self.n = f, 0

        def write(self, b):
            self.n += len(b)
            self.f.write(b)
    counted = Count(out)
    w = Writer(counted, snap)
    w.write()
    if args.gzip:
        out.close()
    if raw is not sys.stdout.buffer:
        raw.close()
    else:
        raw.flush()
    total_s = time.monotonic() - start
    for dev, tr, steps in snap["devices"]:
        acts = {ACTIONS[a]: tr.act.count(a, tr.first) for a in range(len(ACTIONS)) if tr.act.count(a, tr.first)}
        states = {}
        for b in dev.blocks.values():
            states[STATES[b.state]] = states.get(STATES[b.state], 0) + 1
        print("device %d: %d trace entries (%s), %d steps simulated, %d segments (%.2f GiB reserved), blocks %s"
              % (dev.index, len(tr.act) - tr.first, ", ".join("%s %d" % kv for kv in sorted(acts.items())), steps,
                 len(dev.segments), dev.reserved / GiB, states), file=sys.stderr)
    used = {s for _, tr, _ in snap["devices"] for s, n in enumerate(tr.new_lists) if n}
    print("%d bytes; %d stacks used (%d defined), %d frames; %d entries written by the generic path; "
          "simulation %.1f s, total %.1f s, peak RSS %.0f MB"
          % (counted.n, len(used), len(snap["code"].stacks), len(snap["code"].frames), w.generic_entries,
             sim_s, total_s, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
