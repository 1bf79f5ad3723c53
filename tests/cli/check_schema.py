#!/usr/bin/env python3
"""`cgmem check --json` on every sample against docs/check.schema.json
(JSON Schema draft 2020-12), validated offline with the jsonschema package.

Every trace under samples/ (every file but oracles, READMEs and licenses) under
strict limits (most fail) and lax ones (most hold), each with every limit
check has; then documents broken on purpose must fail, so that the schema
is not one that takes anything.

usage: check_schema.py CGMEM SAMPLES_DIR SCHEMA
"""
import copy
import json
import os
import subprocess
import sys

import jsonschema

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from sample_inputs import sample_traces, strict_json  # noqa: E402


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    cgmem, samples, schema_path = sys.argv[1:]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)

    traces = sample_traces(samples)
    if len(traces) < 24:
        print(f"only {len(traces)} samples under {samples}", file=sys.stderr)
        return 1
    base = os.path.join(samples, "mlp_adam.jsonl")
    limit_sets = [
        ["--max-peak", "1MiB", "--max-fragmentation", "30%", "--max-leaked", "1MiB", "--baseline", base,
         "--max-growth", "5%"],
        ["--max-peak", "1TiB", "--max-fragmentation", "1", "--max-leaked", "1TiB", "--baseline", base,
         "--max-growth", "1000000000"],
    ]
    failures = 0
    documents = []
    verdicts = {"ok": 0, "FAIL": 0, "n/a": 0}
    for trace in traces:
        for limits in limit_sets:
            run = subprocess.run([cgmem, "check", trace, *limits, "-q", "--format", "json"], capture_output=True,
                                 check=False)
            if run.returncode not in (0, 3):
                print(f"{trace}: exit {run.returncode}: {run.stderr.decode(errors='replace')}", file=sys.stderr)
                failures += 1
                continue
            doc = strict_json(run.stdout, f"{trace}: check --json")
            errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
            for e in errors[:5]:
                print(f"{trace}: {'/'.join(map(str, e.path))}: {e.message}", file=sys.stderr)
            failures += bool(errors)
            if (run.returncode == 0) != doc["ok"]:
                print(f"{trace}: exit {run.returncode} but ok is {doc['ok']}", file=sys.stderr)
                failures += 1
            for v in doc["limits"]:
                verdicts[v["verdict"]] += 1
            documents.append(doc)
    if not all(verdicts.values()):
        print(f"not every verdict was seen: {verdicts}", file=sys.stderr)
        failures += 1

    # Broken on purpose: each must be rejected.
    def first(doc, kind):
        return next(v for v in doc["limits"] if v["limit"] == kind)

    doc = next(d for d in documents if any(v["verdict"] == "n/a" for v in d["limits"]))
    broken = []
    for change in (
        lambda d: first(d, "max-peak").update(verdict="ok", ok=False),
        lambda d: first(d, "max-fragmentation").update(verdict="FAIL", ok=False, source="not_applicable"),
        lambda d: first(d, "max-fragmentation").update(reason=None),
        lambda d: first(d, "max-peak").update(source="checkpoint"),
        lambda d: first(d, "max-leaked").update(measured=-1),
        lambda d: first(d, "max-growth").update(unbounded=True, measured=1.5),
        lambda d: d.update(extra=1),
        lambda d: d.update(ok=not d["ok"]),
        lambda d: d.update(schema="cgmem/check/2"),
        lambda d: d.pop("not_applicable"),
    ):
        b = copy.deepcopy(doc)
        change(b)
        broken.append(b)
    for i, b in enumerate(broken):
        if validator.is_valid(b):
            print(f"broken document {i} was accepted", file=sys.stderr)
            failures += 1
    print(f"{len(documents)} documents of {len(traces)} samples, verdicts {verdicts}; "
          f"{len(broken)} broken ones rejected" + (f"; {failures} failures" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
