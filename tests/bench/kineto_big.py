#!/usr/bin/env python3
"""Builds a large Kineto trace from a real one, for timing cgmem's Chrome reader.

    python3 tests/bench/kineto_big.py samples/external/tracelens_vllm_decode_full_graph_capture.pt.trace.json.gz \
        30 /tmp/big.json
    /usr/bin/time -v build/cgmem report /tmp/big.json -o /tmp/big-out -f -q

The trace's events are written COPIES times, one copy after another in time
(each shifted past the previous one's end) and with their addresses moved
so that no copy frees another's blocks. Every copy returns its allocations,
so "Total Allocated" stays consistent and the peak equals the original's.
"""
import gzip
import json
import sys


def main():
    src, copies, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    raw = open(src, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw)
    events = doc["traceEvents"]
    ends = [e["ts"] + (e.get("dur") or 0) for e in events if isinstance(e.get("ts"), (int, float))]
    starts = [e["ts"] for e in events if isinstance(e.get("ts"), (int, float))]
    span = max(ends) - min(starts) + 1000
    with open(out, "w") as f:
        f.write('{"schemaVersion": 1, "traceEvents": [\n')
        first = True
        for c in range(copies):
            for e in events:
                e = dict(e)
                if isinstance(e.get("ts"), (int, float)):
                    e["ts"] = round(e["ts"] + c * span, 3)
                args = e.get("args")
                if e.get("name") == "[memory]" and isinstance(args, dict) and "Addr" in args:
                    args = dict(args)
                    args["Addr"] = args["Addr"] + c * (1 << 48)
                    e["args"] = args
                f.write(("" if first else ",\n") + json.dumps(e))
                first = False
        f.write('\n], "baseTimeNanoseconds": %d}\n' % doc.get("baseTimeNanoseconds", 0))


if __name__ == "__main__":
    main()
