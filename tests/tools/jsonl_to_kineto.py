#!/usr/bin/env python3
"""Converts a candle-graph/trace/6 JSONL sample into a Kineto Chrome trace as
torch.profiler writes it, with the memory categories removed.

Standard library only. Usage:
    jsonl_to_kineto.py IN.jsonl[.gz] OUT.json[.gz] [--categories OUT.tsv]

What PyTorch writes, and so what this writes (docs/pytorch-traces.md):
* `train_step#N` becomes the `user_annotation` range `ProfilerStep#N`.
* No `forward`, `backward`, `optimizer`, `data`, `setup:*`, `run:*` or
  `module:*` range: PyTorch records none of them (modules only with
  `with_modules`, left out here so the forward rule works without them). Their
  operators stay, nested by time as before.
* Operators (`span_kind` op) are `cpu_op` X events; autograd's
  `autograd::engine::evaluate_function: X` and its node `XBackward0` are
  `cpu_op` X events too; `Label#detail` ranges (`Optimizer.step#Adam.step`,
  `Optimizer.zero_grad#...`) are `user_annotation` X events.
* Memory records are `[memory]` instants with `Addr` (the tensor's storage
  pointer, the hex before `#` of its id), `Bytes` (negative for a free),
  `Total Allocated` (the device's running sum, which the oracles show equals
  PyTorch's), `Total Reserved` (0: these are CPU runs), `Device Type` and
  `Device Id` (c10::DeviceType: cpu 0 with id -1, cuda:N 1 with id N).
* Times are microseconds with three decimals: the nanoseconds exactly.

--categories writes one line per memory record, in file order: its action,
bytes and recorded category. The agreement test reads it next to cgmem's
inferred categories.
"""

import argparse
import gzip
import io
import json
import sys

DROPPED_PREFIXES = ("run:", "setup:", "module:")
DROPPED_NAMES = {"forward", "backward", "optimizer", "data"}


def open_text(path):
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def read_records(path):
    """The records up to the first line that does not parse (a cut trace)."""
    out = []
    with open_text(path) as f:
        for line in f:
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                break
    return out


def us(ns):
    return "%d.%03d" % (ns // 1000, ns % 1000)


def device_fields(name):
    if name == "cpu":
        return 0, -1
    if name.startswith("cuda:"):
        return 1, int(name[5:])
    raise SystemExit("unsupported device %r" % name)


def kineto_span(r):
    """(category, name) of the X event PyTorch writes for a span, or None."""
    name = r["name"]
    if name.startswith(DROPPED_PREFIXES) or name in DROPPED_NAMES:
        return None
    if name.startswith("train_step#"):
        return "user_annotation", "ProfilerStep#" + name.split("#", 1)[1]
    if r.get("span_kind") == "op":
        return "cpu_op", name
    if "#" in name and "::" not in name:
        return "user_annotation", name
    if name.startswith("autograd::") or name.endswith(tuple("0123456789")) or "::" in name:
        return "cpu_op", name
    return None


def convert(records):
    spans = {}
    order = []
    last_ns = 0
    mem = []
    live_addr = {}  # tensor id -> Addr while live
    used = set()    # Addrs live now
    synthetic = 1 << 48
    totals = {}
    for r in records:
        k = r.get("kind")
        if k == "span_start":
            spans[r["id"]] = [r, None]
            order.append(r["id"])
            last_ns = max(last_ns, r["start_ns"])
        elif k == "span_end" and r.get("id") in spans:
            s = spans[r["id"]]
            s[1] = s[0]["start_ns"] + r["duration_ns"]
            last_ns = max(last_ns, s[1])
        elif k == "memory":
            t = r["timestamp_ns"]
            last_ns = max(last_ns, t)
            tid = r["tensor_id"]
            n = r["bytes"]
            if r["action"] == "alloc":
                addr = int(tid.split("#", 1)[0], 16)
                if addr in used:  # never seen in the samples; kept unique anyway
                    synthetic += 1
                    addr = synthetic
                live_addr[tid] = addr
                used.add(addr)
                signed = n
            else:
                addr = live_addr.pop(tid, None)
                if addr is None:
                    addr = int(tid.split("#", 1)[0], 16)
                used.discard(addr)
                signed = -n
            dev = r["device"]
            totals[dev] = totals.get(dev, 0) + signed
            dtype, did = device_fields(dev)
            mem.append((t, len(mem), {
                "ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",
                "pid": 1, "tid": 1, "ts": us(t),
                "args": {"Addr": addr, "Bytes": signed, "Total Allocated": totals[dev],
                         "Total Reserved": 0, "Device Type": dtype, "Device Id": did}},
                r["action"], n, r.get("category", "unknown")))
    events = []
    for sid in order:
        r, end = spans[sid]
        what = kineto_span(r)
        if what is None:
            continue
        if end is None:
            end = last_ns
        events.append((r["start_ns"], {
            "ph": "X", "cat": what[0], "name": what[1], "pid": 1, "tid": 1,
            "ts": us(r["start_ns"]), "dur": us(end - r["start_ns"]), "args": {}}))
    return events, mem


def open_out(path):
    if path.endswith(".gz"):  # mtime 0: the same input gives the same bytes
        raw = open(path, "wb")
        return io.TextIOWrapper(gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0),
                                encoding="utf-8"), raw
    return open(path, "w", encoding="utf-8"), None


def write_trace(path, events, mem):
    out, raw = open_out(path)
    with out:
        out.write('{\n  "schemaVersion": 1,\n  "traceName": "converted by jsonl_to_kineto.py",\n'
                  '  "traceEvents": [\n')
        first = True
        # Kineto's order: a thread's complete events, then its instants.
        for _, e in events:
            out.write(("" if first else ",\n") + "  " + json_event(e))
            first = False
        for m in mem:
            out.write(("" if first else ",\n") + "  " + json_event(m[2]))
            first = False
        out.write("\n  ]\n}\n")
    if raw:
        raw.close()


def json_event(e):
    # ts and dur are decimal text written as JSON numbers
    text = json.dumps(e, separators=(", ", ": "))
    for key in ("ts", "dur"):
        if key in e:
            text = text.replace('"%s": "%s"' % (key, e[key]), '"%s": %s' % (key, e[key]), 1)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--categories")
    a = ap.parse_args()
    events, mem = convert(read_records(a.input))
    write_trace(a.output, events, mem)
    if a.categories:
        with open(a.categories, "w", encoding="utf-8") as f:
            for m in mem:
                f.write("%s\t%d\t%s\n" % (m[3], m[4], m[5]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
