#!/usr/bin/env python3
"""The candle-graph samples converted to Kineto form (tests/tools/jsonl_to_kineto.py,
samples/converted/) say what the originals say: cgmem's peak, its time, the
counts of allocations and frees and the live bytes at the end of each converted
trace equal the original's oracle (samples/NAME.oracle.json, PyTorch's own
figures), and converting again gives the committed file byte for byte.

Usage: check_converted.py CGMEM SAMPLES_DIR CONVERTER
"""

import decimal
import gzip
import json
import os
import subprocess
import sys
import tempfile

SAMPLES = ["cnn_sgd", "leak_loss_history", "mlp_adam", "mlp_adam_cut"]


def origin_ns(text):
    # source.time_origin as written: "1524.382 us"
    value, unit = text.split()
    assert unit == "us", text
    return int(decimal.Decimal(value) * 1000)


def main():
    cgmem, samples, converter = sys.argv[1:4]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in SAMPLES:
            converted = os.path.join(samples, "converted", name + ".pt.trace.json.gz")
            again = os.path.join(tmp, name + ".json.gz")
            subprocess.run([sys.executable, converter, os.path.join(samples, name + ".jsonl"), again], check=True)
            with gzip.open(converted, "rb") as a, gzip.open(again, "rb") as b:
                if a.read() != b.read():
                    print("%s: the converter no longer writes %s" % (name, converted))
                    failures += 1
            with open(os.path.join(samples, name + ".oracle.json"), encoding="utf-8") as f:
                oracle = json.load(f)
            run = subprocess.run([cgmem, "summary", "--json", "--quiet", converted], check=True,
                                 stdout=subprocess.PIPE)
            summary = json.loads(run.stdout)
            (dev,) = summary["devices"]
            t0 = origin_ns(summary["source"]["time_origin"])
            got = {
                "device": dev["name"],
                "peak": dev["peak"]["bytes"],
                "peak_time_ns": dev["peak"]["time_ns"] + t0,
                "allocations": dev["allocations"],
                "frees": dev["frees"],
                "live_at_end": dev["live_bytes_at_end"],
                "baseline": dev["baseline_bytes"],
                "categories_inferred": summary["source"]["categories_inferred"],
            }
            want = {
                "device": oracle["device"],
                "peak": oracle["peak_total_allocated_bytes"],
                "peak_time_ns": oracle["peak_timestamp_ns"],
                "allocations": oracle["alloc_events"],
                "frees": oracle["free_events"],
                "live_at_end": oracle["live_bytes_at_end"],
                "baseline": 0,
                "categories_inferred": True,
            }
            for key in want:
                if got[key] != want[key]:
                    print("%s: %s is %r, the oracle says %r" % (name, key, got[key], want[key]))
                    failures += 1
            print("%s: peak %d B at %d ns, %d allocations, %d frees, %d B live at the end" %
                  (name, got["peak"], got["peak_time_ns"], got["allocations"], got["frees"], got["live_at_end"]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
