#!/usr/bin/env python3
"""The tool people write instead for a PyTorch profiler trace: json.load of
the whole document, then a replay of its [memory] events, peak live bytes
per device. The Kineto reference of the benchmark (tests/bench/run_bench.py),
against `cgmem summary --json`; it prints the peaks cgmem prints.

    python3 kineto_peak.py TRACE.json[.gz]

Live bytes start at what "Total Allocated" says was allocated before the
first event that carries it (and the frees of blocks from before the trace),
as cgmem takes them (docs/pytorch-traces.md).
"""
import gzip
import json
import sys

DEVICE_TYPES = {0: "cpu", 1: "cuda", 6: "hip"}


def device_name(args):
    t, i = args.get("Device Type"), args.get("Device Id", -1)
    name = DEVICE_TYPES.get(t, "device_type_%s" % t)
    return name if i is None or i < 0 else "%s:%d" % (name, i)


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    per_device = {}
    for n, e in enumerate(events):
        if e.get("name") != "[memory]" or not isinstance(e.get("args"), dict):
            continue
        a = e["args"]
        b = a.get("Bytes")
        if not isinstance(b, int) or b == 0:
            continue
        per_device.setdefault(device_name(a), []).append((float(e["ts"]), n, b, a.get("Addr"), a.get("Total Allocated")))
    for dev in sorted(per_device):
        evs = sorted(per_device[dev])  # by time, ties in document order
        # a free of a block the trace never allocated: live from the start
        blocks, seen = {}, set()
        live = 0
        for ts, n, b, addr, total in evs:
            if b > 0:
                seen.add(addr)
            elif addr is not None and addr not in seen:
                live += -b
        start = live
        curve = []
        first_total = None
        for ts, n, b, addr, total in evs:
            if addr is None:  # PyTorch before ~1.10: the running sum
                live += b
            elif b > 0:
                blocks[addr] = b
                live += b
            else:
                live -= blocks.pop(addr, -b)
            curve.append(live)
            if first_total is None and isinstance(total, int):
                first_total = (total, live)
        baseline = 0
        if first_total is not None and first_total[0] >= first_total[1]:
            baseline = first_total[0] - first_total[1]
        peak = max([start] + curve) + baseline
        print("%s peak %d bytes (baseline %d)" % (dev, peak, baseline))


if __name__ == "__main__":
    main(sys.argv[1])
