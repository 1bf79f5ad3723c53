#!/usr/bin/env python3
"""summary.json on every sample against docs/summary.schema.json (JSON
Schema draft 2020-12), validated offline with the jsonschema package.

For every trace under samples/ (every file but oracles, READMEs and
licenses), tests/cli/snapshots' hand-worked snapshots and a few traces
written here to reach what no sample has (an OOM, a device without memory
records, one nearly full, an allocation from before the trace, a reused
id, gradient problems, bad lines, a cut last line, standard input):
`cgmem summary --json` and the summary.json of `cgmem report` must be the
same document and valid. Then documents broken on purpose (a byte count as
a string, a missing required key, an unknown key, ...) must be rejected,
so that the schema is not one that takes anything.

usage: summary_schema.py CGMEM SAMPLES_DIR SCHEMA HAND_WORKED_DIR
"""
import copy
import glob
import gzip
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile

import jsonschema

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from sample_inputs import sample_traces, strict_json  # noqa: E402

# What the traces written here contain, line for line (candle-graph/trace/6).
EDGE_JSONL = [
    {"kind": "meta", "schema": "candle-graph/trace/6", "run_id": "edge", "layers": 3, "tags": {"a": [1, None]}},
    {"kind": "span_start", "id": "s0", "name": "train_step#0", "start_ns": 100, "span_kind": "function"},
    {"kind": "span_start", "id": "f0", "parent_id": "s0", "name": "forward", "start_ns": 110,
     "span_kind": "function", "step": "forward"},
    {"kind": "memory", "timestamp_ns": 120, "tensor_id": "t1", "span_id": "f0", "device": "cuda:0", "bytes": 1000,
     "action": "alloc", "dtype": "f32", "shape": [10, 25], "category": "activation"},
    # a free of an id never allocated: allocated before the trace, live
    # from the start, so at the peak (at 120 ns)
    {"kind": "memory", "timestamp_ns": 130, "tensor_id": "old", "span_id": "f0", "device": "cuda:0", "bytes": 500000,
     "action": "free", "dtype": "f32"},
    # t1 again while live: the first t1 ends by id reuse
    {"kind": "memory", "timestamp_ns": 140, "tensor_id": "t1", "span_id": "f0", "device": "cuda:0", "bytes": 2000,
     "action": "alloc", "dtype": "f32", "category": "temporary"},
    {"kind": "span_end", "id": "f0", "duration_ns": 50},
    {"kind": "span_end", "id": "s0", "duration_ns": 100},
    {"kind": "span_start", "id": "s1", "name": "train_step#1", "start_ns": 300, "span_kind": "function"},
    {"kind": "memory", "timestamp_ns": 310, "tensor_id": "t2", "span_id": "s1", "device": "cuda:0", "bytes": 4000,
     "action": "alloc", "dtype": "f32", "category": "gradient"},
    # 990 of 1000 bytes used: nearly full
    {"kind": "device_memory", "timestamp_ns": 320, "device": "cuda:0", "used_bytes": 990, "free_bytes": 10,
     "reserved_bytes": 8000},
    {"kind": "span_end", "id": "s1", "duration_ns": 100},
    {"kind": "gradient", "event_id": "g1", "root": "model", "key": "w", "state": "missing"},
    {"kind": "gradient", "event_id": "g2", "root": "model", "key": "b", "state": "non_finite"},
    {"kind": "gradient", "event_id": "g3", "root": "model", "key": "c", "state": "present", "norm": 1.5},
    # a device with a checkpoint and no memory record
    {"kind": "device_memory", "timestamp_ns": 330, "device": "cuda:1", "used_bytes": 1, "free_bytes": 1000},
    {"kind": "no_such_kind"},
]
EDGE_TAIL = 'this is not JSON\n{"kind":"memory","timestamp_ns":400,"tensor_id":"t3","sp'

# A PyTorch profiler trace as a bare JSON array: an allocation, the
# out-of-memory event that ended the run and its totals.
KINETO_OOM = [
    {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 1, "dur": 5},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 2,
     "args": {"Device Type": 1, "Device Id": 0, "Addr": 7, "Bytes": 512, "Total Allocated": 512,
              "Total Reserved": 2048}},
    {"ph": "i", "s": "t", "name": "[OutOfMemory]", "pid": 1, "tid": 1, "ts": 3,
     "args": {"Device Type": 1, "Device Id": 0, "Bytes": 2147483648, "Total Allocated": 512,
              "Total Reserved": 2048}},
]


def write_inputs(tmp):
    paths = []
    edge = os.path.join(tmp, "edge.jsonl")
    with open(edge, "w", encoding="utf-8") as f:
        f.write("".join(json.dumps(r) + "\n" for r in EDGE_JSONL) + EDGE_TAIL)
    paths.append(edge)
    oom = os.path.join(tmp, "oom_array.json.gz")
    with open(oom, "wb") as f:
        f.write(gzip.compress(json.dumps(KINETO_OOM).encode(), mtime=0))
    paths.append(oom)
    return paths


def run(cmd, stdin=None):
    r = subprocess.run(cmd, capture_output=True, stdin=stdin, check=False)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.decode(errors='replace')}")
    return r.stdout


def inline_refs(node, defs):
    """The schema with every local $ref replaced by what it names (none is
    recursive): the same schema, validated about twice as fast, which the
    largest samples' 12,000 checkpoints need."""
    if isinstance(node, list):
        return [inline_refs(x, defs) for x in node]
    if not isinstance(node, dict):
        return node
    node = {k: inline_refs(v, defs) for k, v in node.items() if k != "$defs"}
    ref = node.pop("$ref", None)
    if ref is None:
        return node
    assert ref.startswith("#/$defs/"), ref
    target = inline_refs(defs[ref[len("#/$defs/"):]], defs)
    if not node:
        return target
    if not set(node) & set(target):
        return {**target, **node}
    return {"allOf": [target, node]}


VALIDATOR = None


def start_worker(schema):
    global VALIDATOR
    VALIDATOR = jsonschema.Draft202012Validator(inline_refs(schema, schema["$defs"]))


def check_trace(job):
    """summary --json and the report's summary.json of one trace: the
    problems found, the branches the document took, and the document when
    it is one the broken documents are made from."""
    cgmem, trace, out, keep = job
    try:
        doc = strict_json(run([cgmem, "summary", "--json", "-q", trace]), f"{trace}: summary --json")
        run([cgmem, "report", trace, "-o", out, "-q", "--no-trace", "--no-html", "--formats", "svg"])
        with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
            saved = strict_json(f.read(), f"{out}/summary.json")
    except (RuntimeError, ValueError) as e:
        return [str(e)], set(), None
    problems = []
    if saved != doc:
        problems.append(f"{trace}: the report's summary.json is not what summary --json prints")
    errors = sorted(VALIDATOR.iter_errors(doc), key=lambda e: list(e.absolute_path))
    problems += [f"{trace}: /{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in errors[:5]]
    return problems, facts(doc), doc if keep else None


def facts(doc):
    """The branches of the schema a document takes, to check every one is seen."""
    seen = {f"format {doc['source']['format'].split(' (pickle')[0]}", f"positions {doc['source']['positions']}",
            f"truncated {doc['source']['truncated']}", f"pairing {doc['source']['pairing_known']}",
            f"steps {doc['steps']['detected']}", f"snapshot {'snapshot' in doc}"}
    if doc["gradients"]["problems"]:
        seen.add("gradient problems")
    if doc["source"]["diagnostics"]:
        seen.add("diagnostics")
    if "snapshot" in doc:
        seen.add(f"snapshot form {doc['snapshot']['form']}")
    for dev in doc["devices"]:
        end = dev["end"]
        seen |= {f"end {end['moment']}", f"nearly_full {end['nearly_full']}", f"timed {dev['over_time']['timed']}",
                 f"replay available {dev['allocator_replay']['available']}",
                 f"listed {dev['at_peak']['allocations_listed']}", f"verdict {end['verdict'] is not None}"}
        if dev["checkpoints"]["count"]:
            seen.add("checkpoints")
        for a in (dev["at_peak"]["top"] or []) + (end["largest_live"] or []) + end["last_allocations"]:
            seen |= {f"ended_by {a['ended_by']}", f"before_trace {a['before_trace']}"}
        state = dev.get("allocator_state")
        if state:
            seen |= {f"allocator trace {state['trace'] is not None}", f"allocator oom {state['oom'] is not None}"}
    return seen


EXPECTED = {
    "format candle-graph/trace/6 JSONL", "format Chrome trace (PyTorch profiler)",
    "format Chrome trace, JSON array (PyTorch profiler)", "format PyTorch memory timeline (export_memory_timeline raw)",
    "format PyTorch CUDA allocator snapshot", "positions lines", "positions events", "truncated True",
    "truncated False", "pairing True", "pairing False", "steps True", "steps False", "snapshot True", "snapshot False",
    "gradient problems", "diagnostics", "snapshot form dict", "snapshot form segment list", "end out_of_memory",
    "end last_record", "end no_records", "nearly_full True", "nearly_full False", "timed True", "timed False",
    "replay available True", "replay available False", "listed True", "listed False", "verdict True",
    "verdict False", "checkpoints", "ended_by free", "ended_by id_reuse", "ended_by unknown", "ended_by None",
    "before_trace True", "before_trace False", "allocator trace True", "allocator trace False", "allocator oom True",
    "allocator oom False",
}


def broken_documents(jsonl, snap):
    """Each change makes a document the schema must reject."""
    def dev(d):
        return d["devices"][0]

    changes = [
        ("a byte count as a string", jsonl, lambda d: dev(d)["peak"].update(bytes=str(dev(d)["peak"]["bytes"]))),
        ("a byte count as a fraction", jsonl, lambda d: dev(d)["at_peak"]["top"][0].update(bytes=0.5)),
        ("a negative byte count", jsonl, lambda d: dev(d)["end"].update(live_bytes=-1)),
        ("a byte count beyond 2^64 - 1", jsonl, lambda d: d["source"].update(file_bytes=1 << 64)),
        ("a time as null", jsonl, lambda d: dev(d)["peak"].update(time_ns=None)),
        ("a missing required key", jsonl, lambda d: dev(d)["end"].pop("verdict")),
        ("a missing record kind", jsonl, lambda d: d["source"]["records"].pop("memory")),
        ("a missing category", jsonl, lambda d: dev(d)["at_peak"]["by_category"].pop("gradient")),
        ("an unknown top-level key", jsonl, lambda d: d.update(extra=1)),
        ("an unknown key in a device", jsonl, lambda d: dev(d)["peak"].update(extra=1)),
        ("an unknown category", jsonl, lambda d: dev(d)["at_peak"]["by_category"].update(weights={"bytes": 0, "count": 0})),
        ("an unknown anomaly", jsonl, lambda d: d["anomalies"].update(leak={"count": 0, "examples": []})),
        ("a category not in the enum", jsonl, lambda d: dev(d)["at_peak"]["top"][0].update(category="weights")),
        ("an unknown format", jsonl, lambda d: d["source"].update(format="CSV")),
        ("another schema", jsonl, lambda d: d.update(schema="cgmem/summary/2")),
        ("a --top of 0", jsonl, lambda d: d["options"].update(top=0)),
        ("a zero in a non-zero-only map", jsonl,
         lambda d: dev(d)["at_peak"]["by_phase"]["forward"]["by_category"].update(parameter=0)),
        ("a truncated trace without its line", jsonl, lambda d: d["source"].update(truncated=True)),
        ("a second root node", jsonl, lambda d: dev(d)["span_tree_at_peak"][1].update(kind="root", parent=None, depth=0)),
        ("a freed allocation without its time", jsonl, lambda d: dev(d)["end"]["last_allocations"][0].update(ended_by="free", freed_ns=None)),
        ("steps detected without a label", jsonl, lambda d: d["steps"].update(label=None)),
        ("allocator_state outside a snapshot", jsonl, lambda d: dev(d).update(allocator_state=dev(snap)["allocator_state"])),
        ("a snapshot without its snapshot object", snap, lambda d: d.pop("snapshot")),
        ("an unknown snapshot action", snap, lambda d: dev(d)["allocator_state"]["trace"]["actions"].update(bogus=1)),
        ("a pickle protocol 1", snap, lambda d: d["snapshot"].update(pickle_protocol=1)),
        ("an unknown block state", snap, lambda d: dev(d)["allocator_state"]["largest_blocks"][0].update(state="free")),
    ]
    # Free-form parts take anything: these must stay valid.
    kept = [
        ("a new run.meta key", jsonl, lambda d: d["run"]["meta"].update(anything={"x": [1, "y", None]})),
        ("a new allocator setting", snap, lambda d: d["snapshot"]["allocator_settings"].update(new_knob=[1.5])),
    ]
    out = []
    for stays_valid, name, doc, change in [(False, *c) for c in changes] + [(True, *c) for c in kept]:
        b = copy.deepcopy(doc)
        change(b)
        out.append((name, b, stays_valid))
    return out


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    cgmem, samples, schema_path, hand_worked = sys.argv[1:]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)

    traces = sample_traces(samples)
    nsamples = len(traces)
    if nsamples < 24:
        print(f"only {nsamples} samples under {samples}", file=sys.stderr)
        return 1
    traces += sorted(glob.glob(os.path.join(hand_worked, "*.pickle*")))
    bases = ("mlp_adam.jsonl", "yiyi_1.3b_snapshot_41810bae.pickle")
    failures = 0
    seen = set()
    docs = {}
    with tempfile.TemporaryDirectory(prefix="summary_schema.") as tmp:
        traces += write_inputs(tmp)
        jobs = [(cgmem, t, os.path.join(tmp, f"report{i}"), os.path.basename(t) in bases) for i, t in enumerate(traces)]
        # Two at a time: the machine has two cores.
        with multiprocessing.Pool(2, start_worker, (schema,)) as pool:
            for (_, trace, _, _), (problems, branches, doc) in zip(jobs, pool.map(check_trace, jobs, chunksize=1)):
                for p in problems:
                    print(p, file=sys.stderr)
                failures += bool(problems)
                seen |= branches
                if doc is not None:
                    docs[os.path.basename(trace)] = doc
        # Standard input: the path is "-".
        with open(os.path.join(samples, "mlp_adam.jsonl.gz"), "rb") as f:
            doc = strict_json(run([cgmem, "summary", "--json", "-q", "-"], stdin=f), "summary --json -")
        if doc["source"]["path"] != "-" or not validator.is_valid(doc):
            print("standard input: path is not '-' or the document is not valid", file=sys.stderr)
            failures += 1

    missing = EXPECTED - seen
    if missing:
        print(f"no document took these branches: {sorted(missing)}", file=sys.stderr)
        failures += 1

    if len(docs) != len(bases):
        print(f"missing samples: {sorted(set(bases) - set(docs))}", file=sys.stderr)
        return 1
    broken = broken_documents(*(docs[b] for b in bases))
    for name, b, stays_valid in broken:
        if validator.is_valid(b) != stays_valid:
            print(f"{name}: {'rejected' if stays_valid else 'accepted'}", file=sys.stderr)
            failures += 1
    print(f"{len(traces)} inputs ({nsamples} samples), "
          f"each checked twice, {len(seen)} branches seen; {sum(not k for _, _, k in broken)} broken documents "
          f"rejected, {sum(k for _, _, k in broken)} free-form ones kept" + (f"; {failures} failures" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
