#!/usr/bin/env python3
"""The tool people write instead: json.loads per line, peak live bytes per
device. The benchmark's Python reference (tests/bench/run_bench.py).

    python3 peak.py TRACE.jsonl[.gz]
"""
import gzip
import json
import sys


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    live = {}       # device -> live bytes
    peak = {}       # device -> (bytes, timestamp)
    allocs = {}     # (device, tensor_id) -> bytes
    records = []
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("kind") != "memory":
                continue
            records.append((r["timestamp_ns"], r["device"], r["tensor_id"], r["bytes"], r["action"]))
    records.sort(key=lambda x: (x[1], x[0]))  # stable: ties keep file order
    for t, dev, tid, nbytes, action in records:
        key = (dev, tid)
        if action == "alloc":
            allocs[key] = nbytes
            live[dev] = live.get(dev, 0) + nbytes
        else:
            live[dev] = live.get(dev, 0) - allocs.pop(key, nbytes)
        if live[dev] > peak.get(dev, (-1, 0))[0]:
            peak[dev] = (live[dev], t)
    for dev in sorted(peak):
        print(f"{dev}: peak {peak[dev][0]} B at {peak[dev][1]} ns")


if __name__ == "__main__":
    main(sys.argv[1])
