#!/usr/bin/env python3
"""diff.json of sample pairs against docs/diff.schema.json (JSON Schema
draft 2020-12, which refers to docs/summary.schema.json for an allocation
object and the format names), validated offline with the jsonschema package.

Every trace under samples/ is diffed with the next one in name order (the
last with the first), every other pair with --align phases, so that each
sample is once the base and once the new run; then documents broken on
purpose must be rejected.

usage: diff_schema.py CGMEM SAMPLES_DIR DIFF_SCHEMA SUMMARY_SCHEMA
"""
import copy
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile

import jsonschema
import referencing
import referencing.jsonschema

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from sample_inputs import sample_traces, strict_json  # noqa: E402


def validator_for(diff_schema, summary_schema):
    spec = referencing.jsonschema.DRAFT202012
    registry = referencing.Registry().with_resources(
        [(s["$id"], referencing.Resource.from_contents(s, default_specification=spec)) for s in (diff_schema, summary_schema)])
    return jsonschema.Draft202012Validator(diff_schema, registry=registry)


def diff_pair(job):
    cgmem, base, new, align, out = job
    r = subprocess.run([cgmem, "diff", base, new, "-o", out, "-q", "--no-html", "--align", align], capture_output=True,
                       check=False)
    if r.returncode != 0:
        return None, f"{base} {new}: exit {r.returncode}: {r.stderr.decode(errors='replace')}"
    try:
        with open(os.path.join(out, "diff.json"), encoding="utf-8") as f:
            return strict_json(f.read(), f"{out}/diff.json"), None
    except ValueError as e:
        return None, str(e)


def facts(doc):
    seen = {f"align {doc['alignment']['mode']}"}
    for side in ("base", "new"):
        seen.add(f"truncated {doc['runs'][side]['truncated']}")
    for dev in doc["devices"]:
        ap = dev["at_peak"]
        seen |= {f"in_base {dev['in_base']}", f"in_new {dev['in_new']}", f"listed {ap['listed']}",
                 f"percent {dev['peak_bytes']['change_percent'] is not None}"}
        if ap["listed"]:
            if ap["span_paths"]:
                seen.add("span paths")
            for g in ap["allocations_at_one_peak"]["groups"]:
                seen.add(f"group at {g['peak']}")
        if dev["peak_bytes"]["change"] is not None and dev["peak_bytes"]["change"] < 0:
            seen.add("shrank")
    return seen


EXPECTED = {"align start", "align phases", "truncated True", "truncated False", "in_base True", "in_base False",
            "in_new True", "in_new False", "listed True", "listed False", "percent True", "percent False",
            "span paths", "group at base", "group at new", "shrank"}


def broken_documents(doc):
    def listed(d):
        return next(x for x in d["devices"] if x["at_peak"]["listed"] and x["at_peak"]["allocations_at_one_peak"]["groups"])

    def one_sided(d):
        return next(x for x in d["devices"] if not x["in_new"])

    changes = [
        ("a byte count as a string", lambda d: listed(d)["peak_bytes"].update(base=str(listed(d)["peak_bytes"]["base"]))),
        ("a change that is not new - base's type", lambda d: listed(d)["peak_bytes"].update(change=1.5)),
        ("a missing required key", lambda d: listed(d)["at_peak"].pop("span_paths")),
        ("an unknown key", lambda d: listed(d).update(extra=1)),
        ("an unknown top-level key", lambda d: d.update(extra=1)),
        ("a side of a device not in that run", lambda d: one_sided(d)["peak_bytes"].update(new=0)),
        ("a change without both sides", lambda d: one_sided(d)["peak_bytes"].update(change=0)),
        ("a group at neither peak", lambda d: listed(d)["at_peak"]["allocations_at_one_peak"]["groups"][0].update(peak="both")),
        ("an example with a fractional byte count",
         lambda d: listed(d)["at_peak"]["allocations_at_one_peak"]["groups"][0]["example"].update(bytes=0.5)),
        ("an unknown category", lambda d: listed(d)["at_peak"]["by_category"].update(weights=listed(d)["peak_bytes"])),
        ("another schema", lambda d: d.update(schema="cgmem/diff/2")),
        ("an unknown align mode", lambda d: d["alignment"].update(mode="end")),
        ("an unknown format", lambda d: d["runs"]["base"].update(format="CSV")),
    ]
    out = []
    for name, change in changes:
        b = copy.deepcopy(doc)
        change(b)
        out.append((name, b))
    return out


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    cgmem, samples, diff_path, summary_path = sys.argv[1:]
    schemas = []
    for p in (diff_path, summary_path):
        with open(p, encoding="utf-8") as f:
            schemas.append(json.load(f))
        jsonschema.Draft202012Validator.check_schema(schemas[-1])
    validator = validator_for(*schemas)

    traces = sample_traces(samples)
    if len(traces) < 24:
        print(f"only {len(traces)} samples under {samples}", file=sys.stderr)
        return 1
    failures = 0
    seen = set()
    mixed = None
    with tempfile.TemporaryDirectory(prefix="diff_schema.") as tmp:
        jobs = [(cgmem, t, traces[(i + 1) % len(traces)], "phases" if i % 2 else "start", os.path.join(tmp, f"diff{i}"))
                for i, t in enumerate(traces)]
        # Two at a time: the machine has two cores.
        with multiprocessing.Pool(2) as pool:
            results = pool.map(diff_pair, jobs, chunksize=1)
    for (_, base, new, align, _), (doc, problem) in zip(jobs, results):
        if problem:
            print(problem, file=sys.stderr)
            failures += 1
            continue
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errors[:5]:
            print(f"{base} {new}: /{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}", file=sys.stderr)
        failures += bool(errors)
        seen |= facts(doc)
        # the base of the broken documents: a device in one run, one with groups
        devs = doc["devices"]
        if mixed is None and any(not d["in_new"] for d in devs) and any(
                d["at_peak"]["listed"] and d["at_peak"]["allocations_at_one_peak"]["groups"] for d in devs):
            mixed = doc
    missing = EXPECTED - seen
    if missing:
        print(f"no document took these branches: {sorted(missing)}", file=sys.stderr)
        failures += 1
    broken = broken_documents(mixed) if mixed else []
    if not mixed:
        print("no pair has both a device in one run only and allocation groups", file=sys.stderr)
        failures += 1
    for name, b in broken:
        if validator.is_valid(b):
            print(f"{name}: accepted", file=sys.stderr)
            failures += 1
    print(f"{len(jobs)} pairs of {len(traces)} samples, {len(seen)} branches seen; {len(broken)} broken documents "
          "rejected" + (f"; {failures} failures" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
