"""The pickle side of gen_snapshot.py: a simulated snapshot written as a
stream of protocol-4 opcodes exactly as CPython's C pickler writes them
(Writer, Framer), and the same snapshot as Python objects with the same
sharing (materialize, for --verify). gen_snapshot.py's docstring says what
is shared and how it is framed."""
import pickle
import struct

# The trace's actions and the blocks' states as the simulation codes them,
# and as the file spells them.
ALLOC, FREE_REQ, FREE_DONE, SEG_ALLOC, SEG_FREE, OOM = range(6)
ACTIONS = ("alloc", "free_requested", "free_completed", "segment_alloc", "segment_free", "oom")
FREE, ALLOCATED, PENDING = 0, 1, 2
STATES = ("inactive", "active_allocated", "active_pending_free")


K_SEGMENTS, K_DEVICE_TRACES = "segments", "device_traces"
K_ALLOCATOR_SETTINGS, K_EXTERNAL_ANNOTATIONS = "allocator_settings", "external_annotations"
K_DEVICE, K_ADDRESS, K_TOTAL_SIZE, K_ALLOCATED_SIZE = "device", "address", "total_size", "allocated_size"
K_ACTIVE_SIZE, K_REQUESTED_SIZE, K_STREAM, K_SEGMENT_TYPE = "active_size", "requested_size", "stream", "segment_type"
K_SEGMENT_POOL_ID, K_IS_EXPANDABLE, K_FRAMES, K_BLOCKS = "segment_pool_id", "is_expandable", "frames", "blocks"
K_SIZE, K_STATE, K_NAME, K_FILENAME, K_LINE = "size", "state", "name", "filename", "line"
K_ACTION, K_ADDR, K_DEVICE_FREE, K_TIME_US = "action", "addr", "device_free", "time_us"
K_COMPILE_CONTEXT, K_USER_METADATA, K_STAGE = "compile_context", "user_metadata", "stage"
LARGE, SMALL = "large", "small"
SHARED_EMPTY = []      # the one empty list every segment and frameless block refers to


def fresh(s):
    """A new str object equal to s (strings of 0 or 1 character are shared by CPython anyway)."""
    return s.encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass")


def allocator_settings():
    return {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1, "garbage_collection_threshold": 0.0,
            "expandable_segments": False, "pinned_num_register_threads": 1, "release_lock_on_cudamalloc": False,
            "pinned_use_cuda_host_register": False, "graph_capture_record_stream_reuse": False,
            "roundup_power2_divisions": {str(1 << i): 0 for i in range(16)}}


def enc_int(v):
    """CPython's save_long, protocol >= 2."""
    if 0 <= v < 256:
        return b"K" + bytes((v,))
    if 0 <= v < 65536:
        return b"M" + v.to_bytes(2, "little")
    if -(1 << 31) <= v < (1 << 31):
        return b"J" + v.to_bytes(4, "little", signed=True)
    enc = pickle.encode_long(v)
    if len(enc) < 256:
        return b"\x8a" + bytes((len(enc),)) + enc
    return b"\x8b" + len(enc).to_bytes(4, "little") + enc


def get_op(i):
    return b"h" + bytes((i,)) if i < 256 else b"j" + i.to_bytes(4, "little")


class CtxRef:
    """Stands for the frame list of a context inside objects given to save()."""
    __slots__ = ("c", "block")

    def __init__(self, c, block):
        self.c, self.block = c, block


class Framer:
    FRAME_TARGET = 64 * 1024

    def __init__(self, out):
        self.out = out
        self.buf = bytearray()

    def commit(self):
        buf = self.buf
        if buf:
            if len(buf) >= 4:
                self.out.write(b"\x95" + len(buf).to_bytes(8, "little"))
            self.out.write(buf)
            self.buf = bytearray()


class Writer:
    """Streams a snapshot as CPython's C pickler (protocol 4) would write it."""

    def __init__(self, out, snap, generic_only=False):
        self.f = Framer(out)
        self.snap = snap
        self.code = snap["code"]
        self.ctxs = snap["ctxs"]
        self.memo = {}      # id -> memo index, for the objects that can be met again
        self.keep = []      # ... kept alive so that their ids stay theirs
        self.n = 0          # memo size
        self.ctx_memo = {}  # context -> [memo index of its list, uses left]
        self.frame_objs = {}
        self.stack_b = {}
        self.prefix = {}
        self.generic_only = generic_only
        self.generic_entries = 0

    # generic: CPython's save() on plain containers ------------------------
    def put(self, obj):
        self.memo[id(obj)] = self.n
        self.keep.append(obj)
        self.n += 1
        self.f.buf += b"\x94"

    def put_anon(self):     # an object nothing refers to again
        self.n += 1
        self.f.buf += b"\x94"

    def boundary(self):
        if len(self.f.buf) >= Framer.FRAME_TARGET:
            self.f.commit()

    def save(self, obj):
        self.boundary()
        t = type(obj)
        if t is int:
            self.f.buf += enc_int(obj)
            return
        if obj is None:
            self.f.buf += b"N"
            return
        if t is bool:
            self.f.buf += b"\x88" if obj else b"\x89"
            return
        if t is float:
            self.f.buf += b"G" + struct.pack(">d", obj)
            return
        if t is CtxRef:
            self.save_ctx(obj)
            return
        i = self.memo.get(id(obj))
        if i is not None:
            self.f.buf += get_op(i)
            return
        if t is str:
            enc = obj.encode("utf-8", "surrogatepass")
            if len(enc) < 256:
                self.f.buf += b"\x8c" + bytes((len(enc),)) + enc
            elif len(enc) < Framer.FRAME_TARGET:
                self.f.buf += b"X" + len(enc).to_bytes(4, "little") + enc
            else:
                raise ValueError("strings of 64 KiB and more are framed apart: not needed here")
            self.put(obj)
        elif t is dict:
            self.f.buf += b"}"
            self.put(obj)
            self.save_items(list(obj.items()))
        elif t is list:
            self.save_list(obj)
        elif t is tuple:
            if not obj:
                self.f.buf += b")"
                return
            if len(obj) > 3:
                self.f.buf += b"("
            for x in obj:
                self.save(x)
            self.f.buf += b"\x85\x86\x87"[len(obj) - 1:len(obj)] if len(obj) <= 3 else b"t"
            self.put(obj)
        else:
            raise TypeError(t)

    def save_items(self, items):
        n = len(items)
        if n == 1:
            self.save(items[0][0])
            self.save(items[0][1])
            self.f.buf += b"s"
            return
        if n == 0:
            return
        i = 0
        while True:     # batch_dict_exact: ends after a batch shorter than 1000, even an empty one
            batch = items[i:i + 1000]
            i += len(batch)
            self.f.buf += b"("
            for k, v in batch:
                self.save(k)
                self.save(v)
            self.f.buf += b"u"
            if len(batch) < 1000:
                return

    def save_list(self, obj):
        self.f.buf += b"]"
        self.put(obj)
        n = len(obj)
        if n == 1:
            self.save(obj[0])
            self.f.buf += b"a"
            return
        for i in range(0, n, 1000):     # batch_list_exact
            self.f.buf += b"("
            for x in obj[i:i + 1000]:
                self.save(x)
            self.f.buf += b"e"

    def frame_obj(self, fid):
        d = self.frame_objs.get(fid)
        if d is None:
            name, filename, line = self.code.frames[fid]
            d = self.frame_objs[fid] = {K_NAME: fresh(name), K_FILENAME: fresh(filename), K_LINE: line}
        return d

    def save_ctx(self, r):
        cm = self.ctx_memo.get(r.c)
        if cm is not None:
            self.f.buf += get_op(cm[0])
            cm[1] -= 1
            if cm[1] <= 0:
                del self.ctx_memo[r.c]
            return
        lst = [self.frame_obj(fid) for fid in self.code.stacks[self.ctxs.stack[r.c]]]
        self.save_list(lst)
        left = self.ctxs.refs[r.c] - (0 if r.block else 1)
        if left > 0:
            self.ctx_memo[r.c] = [self.memo[id(lst)], left]

    # the fast path for trace entries --------------------------------------
    def templates(self):
        m = self.memo
        need = (K_ACTION, K_SIZE, K_STREAM, K_TIME_US, K_COMPILE_CONTEXT, K_USER_METADATA, K_FRAMES, "")
        if any(id(k) not in m for k in need):
            return

        def g(o):
            return get_op(m[id(o)])
        for a, name in enumerate(ACTIONS):
            key = K_DEVICE_FREE if a == OOM else K_ADDR
            if a not in self.prefix and id(name) in m and id(key) in m:
                self.prefix[a] = b"}\x94(" + g(K_ACTION) + g(name) + g(key)
        self.k_size, self.k_stream, self.k_time = g(K_SIZE), g(K_STREAM), g(K_TIME_US)
        self.mid = g(K_COMPILE_CONTEXT) + b"\x8c\x03N/A\x94" + g(K_USER_METADATA) + g("") + g(K_FRAMES)

    def stack_bytes(self, s):
        sb = self.stack_b.get(s)
        if sb is None:
            objs = [self.frame_objs.get(fid) for fid in self.code.stacks[s]]
            if any(o is None or id(o) not in self.memo for o in objs):
                return None
            gets = [get_op(self.memo[id(o)]) for o in objs]
            body = b"" if not gets else gets[0] + b"a" if len(gets) == 1 else b"(" + b"".join(gets) + b"e"
            sb = self.stack_b[s] = b"]\x94" + body
        return sb

    def entry_obj(self, a, addr, size, stream, t, c):
        d = {K_ACTION: ACTIONS[a]}
        d[K_DEVICE_FREE if a == OOM else K_ADDR] = addr
        d[K_SIZE] = size
        d[K_STREAM] = stream
        d[K_TIME_US] = t
        d[K_COMPILE_CONTEXT] = fresh("N/A")
        d[K_USER_METADATA] = ""
        d[K_FRAMES] = c
        return d

    def save_trace(self, trace):
        self.t = trace.t_first
        self.boundary()
        self.f.buf += b"]"
        self.put_anon()
        first, n = trace.first, len(trace.act)
        if n - first == 1:
            self.save_entries(trace, first, n)
            self.f.buf += b"a"
            return
        for i in range(first, n, 1000):
            self.f.buf += b"("
            self.save_entries(trace, i, min(n, i + 1000))
            self.f.buf += b"e"

    def save_entries(self, trace, start, end):
        f = self.f
        acts, addrs, sizes, streams, dts, ctxs = trace.act, trace.addr, trace.size, trace.stream, trace.dt, trace.ctx
        stream_b = [enc_int(s) for s in self.snap["streams"]]
        stream_v = self.snap["streams"]
        ctx_stack, ctx_refs, ctx_memo, prefix, stack_b = \
            self.ctxs.stack, self.ctxs.refs, self.ctx_memo, self.prefix, self.stack_b
        TARGET = Framer.FRAME_TARGET
        t = self.t
        for i in range(start, end):
            t += dts[i]
            if len(f.buf) >= TARGET:
                f.commit()
            a = acts[i]
            c = ctxs[i]
            pre = prefix.get(a)
            if pre is not None and not self.generic_only:
                cm = ctx_memo.get(c)
                fr = get_op(cm[0]) if cm is not None else (stack_b.get(ctx_stack[c]) or
                                                           self.stack_bytes(ctx_stack[c]))
                if fr is not None:
                    ad = addrs[i]
                    ad = b"\x8a\x06" + ad.to_bytes(6, "little") if (1 << 39) <= ad < (1 << 47) else enc_int(ad)
                    tb = b"\x8a\x07" + t.to_bytes(7, "little") if (1 << 47) <= t < (1 << 55) else enc_int(t)
                    data = b"".join((pre, ad, self.k_size, enc_int(sizes[i]), self.k_stream,
                                     stream_b[streams[i]], self.k_time, tb, self.mid, fr, b"u"))
                    if len(f.buf) + len(data) < TARGET:
                        f.buf += data
                        if cm is None:
                            self.n += 3
                            if ctx_refs[c] > 1:
                                ctx_memo[c] = [self.n - 1, ctx_refs[c] - 1]
                        else:
                            self.n += 2
                            cm[1] -= 1
                            if cm[1] <= 0:
                                del ctx_memo[c]
                        continue
            # the first use of a key, an action or a stack, or a frame boundary inside the entry
            self.generic_entries += 1
            self.save_nokeep(self.entry_obj(a, addrs[i], sizes[i], stream_v[streams[i]], t, CtxRef(c, False)))
            self.templates()
        self.t = t

    def save_nokeep(self, d):
        """save() of an entry dict: its dict and "N/A" are never met again."""
        self.boundary()
        self.f.buf += b"}"
        self.put_anon()
        self.f.buf += b"("
        for k, v in d.items():
            self.save(k)
            if k is K_COMPILE_CONTEXT:
                self.boundary()
                self.f.buf += b"\x8c\x03N/A"
                self.put_anon()
            else:
                self.save(v)
        self.f.buf += b"u"

    def write(self):
        self.write_head()
        self.write_rest()

    def write_head(self):
        """Everything before the first trace entry."""
        f = self.f
        f.out.write(b"\x80\x04")
        self.boundary()
        f.buf += b"}"
        self.put_anon()
        f.buf += b"("
        self.save(K_SEGMENTS)
        self.save(segments_obj(self.snap, lambda c: CtxRef(c, True)))
        self.save(K_DEVICE_TRACES)
        self.boundary()
        f.buf += b"]"
        self.put_anon()

    def write_rest(self):
        snap = self.snap
        f = self.f
        traces = [tr for _, tr, _ in snap["devices"]]
        if len(traces) == 1:
            self.save_trace(traces[0])
            f.buf += b"a"
        else:
            f.buf += b"("
            for tr in traces:
                self.save_trace(tr)
            f.buf += b"e"
        self.save(K_ALLOCATOR_SETTINGS)
        self.save(allocator_settings())
        self.save(K_EXTERNAL_ANNOTATIONS)
        self.save(annotations_obj(snap))
        f.buf += b"u."
        f.commit()


def segments_obj(snap, frames_of):
    """The segment list; frames_of(context) gives a live block's frames."""
    ctxs = snap["ctxs"]
    streams = snap["streams"]
    out = []
    for dev, _, _ in snap["devices"]:
        for addr in sorted(dev.segments):
            seg = dev.segments[addr]
            blocks = []
            alloc = active = req = 0
            b = seg.head
            while b is not None:
                live = b.state != FREE
                fr = SHARED_EMPTY
                if live and ctxs.stack[b.ctx] != 0:
                    fr = frames_of(b.ctx)
                blocks.append({K_ADDRESS: b.addr, K_SIZE: b.size, K_REQUESTED_SIZE: b.req if live or b.req else b.size,
                               K_STATE: STATES[b.state], K_FRAMES: fr})
                if live:
                    active += b.size
                    req += b.req
                    if b.state == ALLOCATED:
                        alloc += b.size
                b = b.next
            out.append({K_DEVICE: dev.index, K_ADDRESS: seg.addr, K_TOTAL_SIZE: seg.size, K_ALLOCATED_SIZE: alloc,
                        K_ACTIVE_SIZE: active, K_REQUESTED_SIZE: req, K_STREAM: streams[seg.stream],
                        K_SEGMENT_TYPE: SMALL if seg.small else LARGE, K_SEGMENT_POOL_ID: tuple([0, 0]),
                        K_IS_EXPANDABLE: False, K_FRAMES: SHARED_EMPTY, K_BLOCKS: blocks})
    return out


def annotations_obj(snap):
    ann = []
    for dev, tr, _ in snap["devices"]:
        ann += [(t, dev.index, name, stage) for t, name, stage in tr.annotations]
    ann.sort(key=lambda x: (x[0], x[1]))
    return [{K_NAME: fresh(name), K_STAGE: fresh(stage), K_DEVICE: d, K_TIME_US: t} for t, d, name, stage in ann]


def materialize(snap):
    """The same snapshot as Python objects, with the same sharing (--verify)."""
    code, ctxs, streams = snap["code"], snap["ctxs"], snap["streams"]
    frames = {}
    lists = {}

    def frame(fid):
        d = frames.get(fid)
        if d is None:
            name, filename, line = code.frames[fid]
            d = frames[fid] = {K_NAME: fresh(name), K_FILENAME: fresh(filename), K_LINE: line}
        return d

    def ctx_list(c):
        lst = lists.get(c)
        if lst is None:
            lst = lists[c] = [frame(fid) for fid in code.stacks[ctxs.stack[c]]]
        return lst

    segs = segments_obj(snap, ctx_list)
    traces = []
    for _, tr, _ in snap["devices"]:
        entries = []
        t = tr.t_first
        for i in range(tr.first, len(tr.act)):
            t += tr.dt[i]
            a = tr.act[i]
            d = {K_ACTION: ACTIONS[a]}
            d[K_DEVICE_FREE if a == OOM else K_ADDR] = tr.addr[i]
            d[K_SIZE] = tr.size[i]
            d[K_STREAM] = streams[tr.stream[i]]
            d[K_TIME_US] = t
            d[K_COMPILE_CONTEXT] = fresh("N/A")
            d[K_USER_METADATA] = ""
            d[K_FRAMES] = ctx_list(tr.ctx[i])
            entries.append(d)
        traces.append(entries)
    return {K_SEGMENTS: segs, K_DEVICE_TRACES: traces, K_ALLOCATOR_SETTINGS: allocator_settings(),
            K_EXTERNAL_ANNOTATIONS: annotations_obj(snap)}
