#!/usr/bin/env python3
"""Checks cgmem's reading of the real PyTorch traces in samples/external
against an independent reading of each trace (json and gzip only; no code
shared with cgmem or tests/tools/kineto_oracle.py).

    check_pytorch_traces.py CGMEM SAMPLES_DIR steps|capacity

Per trace with ProfilerStep#N ranges (the CPU-side copies: PyTorch writes a
gpu_user_annotation twin of each on the GPU's timeline):
- summary.json has one step per range, in time order, named as the range;
- each step's peak on each device is the largest live value in the range:
  the value entering it and PyTorch's "Total Allocated" after every
  [memory] event of that device with ts in [ts, ts + dur]. Traces without
  "Total Allocated" (PyTorch ~1.9) use the running sum of "Bytes", lifted
  by the deepest point it goes below zero (memory from before the trace).
Per GPU trace with deviceProperties: each device's capacity is the
totalGlobalMem of the entry whose id is the device's index.
"""
import gzip
import json
import os
import subprocess
import sys
from decimal import Decimal

DEVICE_TYPES = {0: "cpu", 1: "cuda", 6: "hip"}


def load(path):
    with (gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")) as f:
        doc = json.loads(f.read(), parse_float=Decimal, parse_int=Decimal)
    return (doc, doc["traceEvents"]) if isinstance(doc, dict) else ({}, doc)


def device_name(args):
    t, i = int(args["Device Type"]), int(args.get("Device Id", -1))
    name = DEVICE_TYPES.get(t, "device_type_%d" % t)
    return name if i < 0 else "%s:%d" % (name, i)


def live_series(events):
    """Per device: (live before the first event, [(ts, live after each event)]),
    in time order (stable)."""
    mem = [(Decimal(e["ts"]), k, e) for k, e in enumerate(events)
           if e.get("name") == "[memory]" and int(e.get("args", {}).get("Bytes", 0)) != 0]
    mem.sort(key=lambda x: (x[0], x[1]))
    per = {}
    for ts, _, e in mem:
        per.setdefault(device_name(e["args"]), []).append((ts, e["args"]))
    out = {}
    for dev, evs in per.items():
        if all("Total Allocated" in a for _, a in evs):
            first = evs[0][1]
            out[dev] = (int(first["Total Allocated"]) - int(first["Bytes"]),
                        [(ts, int(a["Total Allocated"])) for ts, a in evs])
            continue
        run, low, sums = 0, 0, []
        for ts, a in evs:
            run += int(a["Bytes"])
            low = min(low, run)
            sums.append((ts, run))
        out[dev] = (-low, [(ts, s - low) for ts, s in sums])
    return out


def step_ranges(events):
    r = [e for e in events if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")
         and not str(e.get("cat", "")).startswith("gpu_")]
    r.sort(key=lambda e: Decimal(e["ts"]))
    return r


def window_peak(series, t0, t1, initial):
    """Largest of the value entering [t0, t1] and every value inside it."""
    entering, peak, seen = initial, None, False
    for ts, live in series:
        if ts < t0:
            entering = live
            continue
        if ts > t1:
            break
        peak = live if peak is None else max(peak, live)
        seen = True
    return max(entering, peak) if seen else entering


def main():
    cgmem, samples, what = sys.argv[1:4]
    ext = os.path.join(samples, "external")
    failures, checked_steps, checked_caps = [], 0, 0
    for name in sorted(os.listdir(ext)):
        if not name.endswith(".json.gz"):
            continue
        doc, events = load(os.path.join(ext, name))
        run = subprocess.run([cgmem, "summary", "--json", "--quiet", os.path.join(ext, name)],
                             check=True, stdout=subprocess.PIPE)
        summary = json.loads(run.stdout)
        devices = {d["name"]: d for d in summary["devices"]}
        ranges = step_ranges(events)
        steps = summary["steps"]
        if ranges and what == "steps":
            if steps["count"] != len(ranges):
                failures.append("%s: %d steps, the trace has %d ProfilerStep# ranges" % (name, steps["count"], len(ranges)))
            else:
                for k, e in enumerate(ranges):
                    if steps["list"][k]["name"] != e["name"]:
                        failures.append("%s: step %d is %r, not %r" % (name, k, steps["list"][k]["name"], e["name"]))
            series = live_series(events)
            for dev, (initial, s) in series.items():
                got = devices[dev]["over_time"]["steps"]
                for k, e in enumerate(ranges[:len(got)]):
                    t0 = Decimal(e["ts"])
                    want = window_peak(s, t0, t0 + Decimal(e.get("dur", 0)), initial)
                    checked_steps += 1
                    if got[k]["peak_bytes"] != want:
                        failures.append("%s: %s step %d peak %d, the trace says %d" % (name, dev, k, got[k]["peak_bytes"], want))
        for p in doc.get("deviceProperties", []) if what == "capacity" and isinstance(doc, dict) else []:
            if "totalGlobalMem" not in p:
                continue
            for dev, d in devices.items():
                if dev.split(":")[0] in ("cuda", "hip") and dev.endswith(":%d" % int(p["id"])):
                    checked_caps += 1
                    if d.get("capacity_bytes") != int(p["totalGlobalMem"]):
                        failures.append("%s: %s capacity %r, deviceProperties says %d" % (name, dev, d.get("capacity_bytes"), int(p["totalGlobalMem"])))
    print("checked %d step peaks, %d capacities" % (checked_steps, checked_caps))
    for f in failures:
        print("FAIL", f)
    return 1 if failures or not (checked_steps if what == "steps" else checked_caps) else 0


if __name__ == "__main__":
    sys.exit(main())
