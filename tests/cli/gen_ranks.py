#!/usr/bin/env python3
"""Writes the ranks of a pipeline-parallel training job, for the tests of
`cgmem report FILE...` and `cgmem merge` (issue 16). There is no public
multi-rank set with memory events, so this one is built to be worked out by
hand (check_ranks.py holds the answers).

The job: 8 ranks, 4 pipeline stages x 2 data-parallel replicas, rank r on
stage r % 4, 3 training steps of 1 s each, every rank started at
2026-11-30T10:00:00Z (START_US). Per stage s, in MiB:

    parameters P = 400 (stage 0 holds the embedding) else 200
    activations A = (4 - s) x 100 (1F1B: stage s keeps 4 - s micro-batches)
    gradients G = P, an optimizer temporary of 50

A step k starts at k s; at +100 ms forward allocates A; at +400 ms backward
allocates G, at +600 ms frees A; at +700 ms the optimizer allocates the
temporary, frees it at +750 ms and frees G at +800 ms. Parameters are
allocated at 10 ms. The peak is 2P + A, first at 0.4 s (step 0, backward):
stage 0 1200 MiB, stage 1 700, stage 2 600, stage 3 500.

The files, every format cgmem reads for a rank:
    rank0_trace.jsonl ... rank-3 (JSONL; rank from the name), each device
        "cuda:0" of 2 GiB (device_memory checkpoints: 2048 MiB capacity).
        rank 2 is cut off mid-record at 1.1 s (step 1, forward): the OOM
        killer took it, the first rank to stop.
    node1.1102.pt.trace.json, node1.1103.pt.trace.json.gz (Kineto;
        distributedInfo.rank 4 and 5, world_size 8; device cuda:0, cuda:1).
    snapshot_oom_rank-6.pickle, rank7_memory_snapshot.pickle (allocator
        snapshots; rank from the name); rank 6 runs out of memory at 2.4 s
        (step 2, backward: the gradients' allocation fails).

usage: gen_ranks.py OUTDIR [--only-jsonl]
"""
import gzip
import json
import os
import pickle
import sys

MIB = 1 << 20
START_US = 1796032800 * 1000000  # 2026-11-30T10:00:00Z
WORLD = 8


def stage_of(rank):
    return rank % 4


def plan(rank):
    """The memory events of a rank: (t_ms, name, action, bytes, category,
    phase, step) in time order, and where it stops (t_ms, how)."""
    s = stage_of(rank)
    p = (400 if s == 0 else 200) * MIB
    a = (4 - s) * 100 * MIB
    ev = [(10, "params", "alloc", p, "parameter", None, None)]
    stop = None
    for k in range(3):
        b = k * 1000
        ev += [(b + 100, f"act{k}", "alloc", a, "activation", "forward", k)]
        if rank == 2 and k == 1:
            return ev, (b + 100, "cut")
        if rank == 6 and k == 2:
            return ev, (b + 400, "oom")
        ev += [(b + 400, f"grad{k}", "alloc", p, "gradient", "backward", k),
               (b + 600, f"act{k}", "free", a, "activation", "backward", k),
               (b + 700, f"tmp{k}", "alloc", 50 * MIB, "temporary", "optimizer", k),
               (b + 750, f"tmp{k}", "free", 50 * MIB, "temporary", "optimizer", k),
               (b + 800, f"grad{k}", "free", p, "gradient", "optimizer", k)]
        stop = (b + 800, "end")
    return ev, stop


PHASES = {"forward": (50, 300), "backward": (300, 650), "optimizer": (650, 900)}


def jsonl(rank):
    """Spans: train_step#k over [k s, k s + 950 ms), its phases forward
    [50, 300), backward [300, 650), optimizer [650, 900) ms into it."""
    ev, stop = plan(rank)
    ms = 1000000
    out = []  # (time in ms, order, record)
    out.append((0, 0, {"kind": "span_start", "id": "run", "name": "run", "start_ns": 0, "span_kind": "function"}))
    out.append((1, 1, {"kind": "device_memory", "timestamp_ns": 1 * ms, "device": "cuda:0", "used_bytes": 0,
                       "free_bytes": 2048 * MIB}))
    for k in range(3):
        b = k * 1000
        if rank == 2 and k == 2:
            break
        out.append((b, 2, {"kind": "span_start", "id": f"step{k}", "parent_id": "run", "name": f"train_step#{k}",
                           "start_ns": b * ms, "span_kind": "function"}))
        out.append((b + 950, 0, {"kind": "span_end", "id": f"step{k}", "duration_ns": 950 * ms}))
        for phase, (t0, t1) in PHASES.items():
            sid = f"step{k}.{phase}"
            out.append((b + t0, 3, {"kind": "span_start", "id": sid, "parent_id": f"step{k}", "name": phase,
                                    "start_ns": (b + t0) * ms, "span_kind": "function", "step": phase}))
            out.append((b + t1, 1, {"kind": "span_end", "id": sid, "duration_ns": (t1 - t0) * ms}))
    for (t, name, action, nbytes, cat, phase, step) in ev:
        span = "run" if step is None else f"step{step}.{phase}"
        out.append((t, 4, {"kind": "memory", "timestamp_ns": t * ms, "tensor_id": name, "span_id": span,
                           "device": "cuda:0", "bytes": nbytes, "action": action, "dtype": "bf16",
                           "category": cat}))
    out.sort(key=lambda x: (x[0], x[1]))
    end = stop[0]
    if stop[1] == "cut":  # nothing after the cut: the process died there
        out = [x for x in out if x[0] <= end]
    else:
        end = max(x[0] for x in out)
    meta = {"kind": "meta", "schema": "candle-graph/trace/6", "run_id": f"pp-job-rank{rank}",
            "started_at": "2026-11-30T10:00:00Z", "devices": ["cuda:0"]}
    text = "".join(json.dumps(x, separators=(",", ":")) + "\n" for x in [meta] + [r for (_, _, r) in out])
    if stop[1] == "cut":
        text += '{"kind":"memory","timestamp_ns":1200000000,"tens'
    return text


def kineto(rank):
    ev, stop = plan(rank)
    events = []
    for k in range(3):
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{k}", "pid": 1, "tid": 1,
                       "ts": START_US + k * 1000000, "dur": 999000})
    total = 0
    addr = {}
    for (t, name, action, nbytes, cat, phase, step) in ev:
        if action == "alloc":
            addr[name] = 0x7f0000000000 + len(addr) * 0x100000000
            total += nbytes
            b = nbytes
        else:
            total -= nbytes
            b = -nbytes
        events.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1,
                       "ts": START_US + t * 1000,
                       "args": {"Device Type": 1, "Device Id": rank - 4, "Addr": addr[name], "Bytes": b,
                                "Total Allocated": total, "Total Reserved": 4096 * MIB}})
    doc = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": WORLD},
           "traceEvents": events}
    return json.dumps(doc)


def snapshot(rank):
    ev, stop = plan(rank)
    entries, live, addr = [], {}, {}
    for (t, name, action, nbytes, cat, phase, step) in ev:
        if action == "alloc":
            addr[name] = 0x7f0000000000 + len(addr) * 0x100000000
            live[name] = nbytes
            entries.append({"action": "alloc", "addr": addr[name], "size": nbytes, "stream": 0,
                            "time_us": START_US + t * 1000, "frames": []})
        else:
            del live[name]
            for act in ("free_requested", "free_completed"):
                entries.append({"action": act, "addr": addr[name], "size": nbytes, "stream": 0,
                                "time_us": START_US + t * 1000, "frames": []})
    if stop[1] == "oom":
        p = 200 * MIB
        entries.append({"action": "oom", "addr": 0, "size": p, "stream": 0, "device_free": 0,
                        "time_us": START_US + stop[0] * 1000, "frames": []})
    segments = [{"device": 0, "address": addr[n], "total_size": b, "allocated_size": b, "active_size": b,
                 "requested_size": b, "stream": 0, "segment_type": "large", "segment_pool_id": (0, 0),
                 "is_expandable": False, "frames": [],
                 "blocks": [{"address": addr[n], "size": b, "requested_size": b, "state": "active_allocated",
                             "frames": []}]}
                for n, b in sorted(live.items(), key=lambda x: addr[x[0]])]
    return pickle.dumps({"segments": segments, "device_traces": [entries]}, protocol=4)


NAMES = {0: "rank0_trace.jsonl", 1: "rank_1_trace.jsonl", 2: "rank-2.trace.jsonl", 3: "job.rank3.jsonl",
         4: "node1.1102.pt.trace.json", 5: "node1.1103.pt.trace.json.gz",
         6: "snapshot_oom_rank-6.pickle", 7: "rank7_memory_snapshot.pickle"}


def write_job(outdir, only_jsonl=False):
    """Writes the 8 files into outdir; returns their paths, by rank."""
    os.makedirs(outdir, exist_ok=True)
    paths = []
    for r in range(WORLD):
        if only_jsonl and r >= 4:
            break
        path = os.path.join(outdir, NAMES[r])
        if r < 4:
            data = jsonl(r).encode()
        elif r < 6:
            data = kineto(r).encode()
        else:
            data = snapshot(r)
        if path.endswith(".gz"):
            data = gzip.compress(data, mtime=0)
        with open(path, "wb") as f:
            f.write(data)
        paths.append(path)
    return paths


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    for p in write_job(sys.argv[1], "--only-jsonl" in sys.argv):
        print(p)
