#!/usr/bin/env python3
"""`cgmem summary --csv` read back by Python's csv module (docs/exports.md).

    python3 export_csv.py CGMEM SAMPLES_DIR

For every sample (samples/, samples/external, samples/snapshots):
- `--csv peak` parses into the header and one row of 9 fields per
  allocation live at the peak, bytes and times plain integers;
- the bytes of each device's rows add up to its peak: for the JSONL samples
  the oracle's peak_total_allocated_bytes, and the row count is the live
  tensors at that moment replayed here from the JSONL itself; for the
  snapshots the oracle's replayed active peak;
- `--csv steps` of the JSONL samples gives the oracle's steps, their spans'
  start and end and the peak in each.
Then a trace of hostile names (formulas, quotes, commas, newlines) comes back
field for field, each formula start behind a "'".
Samples without an oracle figure are compared with summary.json's own
live_bytes / live_allocations: the CSV and the summary must agree.
"""
import csv
import glob
import gzip
import io
import json
import os
import subprocess
import sys
import tempfile

HEADER = ["device", "id", "bytes", "category", "phase", "span_path", "op", "allocated_ns", "line"]
STEPS_HEADER = ["step", "name", "device", "start_ns", "end_ns", "live_at_start_bytes", "peak_bytes", "peak_ns",
                "live_at_end_bytes", "growth_bytes", "allocated_bytes", "freed_bytes", "allocations", "frees"]


def run(cgmem, *args):
    p = subprocess.run([cgmem, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    if p.returncode != 0:
        raise SystemExit(f"cgmem {' '.join(args)}: exit {p.returncode}: {p.stderr.decode(errors='replace')}")
    return p.stdout


def parse(data, header):
    if not data.startswith(",".join(header).encode() + b"\r\n"):
        raise SystemExit(f"header is not {header}: {data[:200]!r}")
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    if rows[0] != header:
        raise SystemExit(f"header {rows[0]}")
    for r in rows[1:]:
        if len(r) != len(header):
            raise SystemExit(f"row of {len(r)} fields: {r}")
    return rows[1:]


def jsonl_live_at_peak(path, peak):
    """Live tensors when the running sum of the memory records, in file
    order, first reaches the peak (the oracle's definition)."""
    opener = gzip.open if path.endswith(".gz") else open
    live, total = {}, 0
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                break  # the cut sample ends mid-line
            if r.get("kind") != "memory":
                continue
            key = (r["device"], r["tensor_id"])
            if r["action"] == "alloc":
                live[key] = r["bytes"]
                total += r["bytes"]
            else:
                total -= live.pop(key)
            if total == peak:
                return len(live)
    raise SystemExit(f"{path}: the running sum never reaches {peak}")


def check_peak_rows(cgmem, trace, summary):
    rows = parse(run(cgmem, "summary", "--csv", "peak", trace), HEADER)
    by_device = {}
    for r in rows:
        int(r[2])
        if r[7]:
            int(r[7])
        by_device.setdefault(r[0], []).append(r)
    for dev in summary["devices"]:
        ap = dev["at_peak"]
        got = by_device.get(dev["name"], [])
        if not ap["allocations_listed"]:
            if got:
                raise SystemExit(f"{trace}: rows for {dev['name']}, whose allocations are not listed")
            continue
        # the baseline's one row has no id; a block from before the trace
        # (before_profiling too where the trace records no categories) has its own
        baseline_rows = [r for r in got if r[3] == "before_profiling" and not r[1]]
        if sum(int(r[2]) for r in got) != ap["live_bytes"]:
            raise SystemExit(f"{trace}: {dev['name']}: rows hold {sum(int(r[2]) for r in got)} B, "
                             f"summary.json {ap['live_bytes']}")
        if len(got) - len(baseline_rows) != ap["live_allocations"]:
            raise SystemExit(f"{trace}: {dev['name']}: {len(got)} rows, {ap['live_allocations']} live")
    return rows


def main():
    cgmem, samples = sys.argv[1:]
    traces = []
    for pattern in ("*.jsonl", "*.jsonl.gz", "external/*.json.gz", "external/*.raw.gz", "snapshots/*.pickle"):
        traces += sorted(glob.glob(os.path.join(samples, pattern)))
    if len(traces) < 10:
        raise SystemExit(f"only {len(traces)} samples under {samples}")
    oracle_checked = 0
    for trace in traces:
        summary = json.loads(run(cgmem, "summary", "--json", trace))
        rows = check_peak_rows(cgmem, trace, summary)
        base = trace[:-3] if trace.endswith(".gz") else trace
        base = os.path.splitext(base)[0]
        oracle_path = base + ".oracle.json"
        if not os.path.exists(oracle_path):
            continue
        oracle = json.load(open(oracle_path))
        total = sum(int(r[2]) for r in rows)
        if "peak_total_allocated_bytes" in oracle:  # a JSONL sample
            peak = oracle["peak_total_allocated_bytes"]
            n = jsonl_live_at_peak(trace, peak)
            if total != peak or len(rows) != n:
                raise SystemExit(f"{trace}: {len(rows)} rows of {total} B; the oracle: {n} live, {peak} B")
            steps = parse(run(cgmem, "summary", "--csv", "steps", trace), STEPS_HEADER)
            want = oracle.get("steps", [])
            if "steps" not in oracle:  # the cut sample's oracle has none
                steps = []
            got = [(r[1], int(r[3]), int(r[4]), int(r[6])) for r in steps]
            exp = [(s["scope"], s["start_ns"], s["end_ns"], s["peak_total_allocated_in_scope"]) for s in want]
            if got != exp:
                raise SystemExit(f"{trace}: steps {got}, the oracle {exp}")
            oracle_checked += 1
        elif "devices" in oracle and "trace" in oracle["devices"].get("0", {}):  # a snapshot
            peak = oracle["devices"]["0"]["trace"]["replay"]["active"]["peak"]["bytes"]
            if total != peak:
                raise SystemExit(f"{trace}: rows hold {total} B; the oracle's peak is {peak} B")
            oracle_checked += 1
    if oracle_checked < 8:
        raise SystemExit(f"only {oracle_checked} samples checked against an oracle")

    # Hostile names come back as they were, formulas behind a "'".
    names = ['=HYPERLINK("http://e","x")', "a,b", 'q"uote', "new\nline", "cr\rhere", "-1", "+1", "@SUM(A1)",
             "\tTAB", "plain", "caf\u00e9"]
    lines = ['{"kind":"meta","schema":"candle-graph/trace/6"}']
    for i, name in enumerate(names):
        lines.append(json.dumps({"kind": "span_start", "id": f"s{i}", "name": name, "start_ns": 0,
                                 "span_kind": "function"}))
        lines.append(json.dumps({"kind": "memory", "timestamp_ns": 10 + i, "tensor_id": name, "span_id": f"s{i}",
                                 "op_name": name, "device": name, "bytes": 100 + i, "action": "alloc",
                                 "dtype": "f32", "category": "activation"}))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "hostile.jsonl")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        rows = parse(run(cgmem, "summary", "--csv", "peak", path), HEADER)
    guard = lambda s: "'" + s if s[:1] in ("=", "+", "-", "@", "\t", "\r") else s
    want = sorted([guard(n), guard(n), str(100 + i), "activation", "none", guard(n), guard(n), str(10 + i),
                   str(3 + 2 * i)] for i, n in enumerate(names))
    if sorted(rows) != want:
        raise SystemExit(f"hostile names: {sorted(rows)}\nwant {want}")
    for r in rows:
        for cell in r:
            if cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
                raise SystemExit(f"a cell starts a formula: {cell!r}")
    print(f"{len(traces)} samples parsed ({oracle_checked} against their oracle), {len(names)} hostile names")


if __name__ == "__main__":
    main()
