#!/usr/bin/env python3
"""The PyTorch Chrome-trace case of the benchmark (issue 17): `cgmem summary
--json` on the 355 MB trace kineto_big.py makes from the H100 OWLv2 sample
(10 time-shifted copies), against the Python json.load + replay script
(kineto_peak.py), which must find the peaks cgmem finds.

    python3 tests/bench/run_bench.py --kineto-only [--runs 3]
    python3 tests/bench/kineto_bench.py [--cgmem build/cgmem] [--runs 3]

Runs alternate between the commands, round after round; the table gives
medians of wall and CPU seconds and the ratios from the same run, with the
load average before and after (the machine may be shared).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TIME = "/usr/bin/time"
SAMPLE = os.path.join(ROOT, "samples", "external", "tracelens_h100_owlv2_large.json.gz")
COPIES = 10


def run(argv, timefile, stdout=subprocess.DEVNULL):
    start = time.monotonic()
    p = subprocess.run([TIME, "-f", "%U %S %M", "-o", timefile] + argv, stdout=stdout, stderr=subprocess.PIPE)
    wall = time.monotonic() - start
    if p.returncode != 0:
        sys.exit(f"kineto_bench: {' '.join(argv)} exited {p.returncode}: {p.stderr.decode(errors='replace')[-500:]}")
    user, sys_, rss_kb = open(timefile).read().split()[-3:]
    return wall, float(user) + float(sys_), int(rss_kb) * 1024, p.stdout


def trace(args):
    path = os.path.join(args.dir, f"kineto-owlv2-x{COPIES}.json")
    if not os.path.exists(path):
        print(f"generating {path}", file=sys.stderr)
        subprocess.run([sys.executable, os.path.join(HERE, "kineto_big.py"), SAMPLE, str(COPIES), path + ".tmp"],
                       check=True)
        os.rename(path + ".tmp", path)
    return path


def same_peaks(args, path):
    """cgmem's peak per device against the Python script's: exits when they differ."""
    timefile = os.path.join(args.dir, "time.txt")
    summary = json.loads(run([args.cgmem, "summary", "--json", path], timefile, subprocess.PIPE)[3])
    ours = {d["name"]: d["peak"]["bytes"] for d in summary["devices"]}
    text = run([sys.executable, os.path.join(HERE, "kineto_peak.py"), path], timefile, subprocess.PIPE)[3].decode()
    theirs = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\S+) peak (\d+) bytes", text, re.M)}
    if ours != theirs:
        sys.exit(f"kineto_bench: the peaks differ: cgmem {ours}, Python {theirs}")
    return ours


def commands(args, path):
    cg = [args.cgmem, "summary", "--json", path]
    return [("cgmem summary --json", cg, "cgmem"),
            ("cgmem summary --json, 1 thread", cg + ["--threads", "1"], "cgmem"),
            ("cgmem summary --json --parser cjson, 1 thread", cg + ["--threads", "1", "--parser", "cjson"], "cgmem"),
            ("python json.load + replay", [sys.executable, os.path.join(HERE, "kineto_peak.py"), path], "python")]


def run_section(args):
    os.makedirs(args.dir, exist_ok=True)
    path = trace(args)
    peaks = same_peaks(args, path)
    cmds = commands(args, path)
    samples = {label: [] for label, _, _ in cmds}
    load_before = os.getloadavg()
    for r in range(args.runs):
        for label, argv, kind in cmds:
            if kind == "python" and r >= args.python_runs:
                continue
            wall, cpu, rss, _ = run(argv, os.path.join(args.dir, "time.txt"))
            samples[label].append((wall, cpu, rss))
            print(f"  round {r + 1}: {label}: {wall:.2f} s wall, {cpu:.2f} CPU s", file=sys.stderr)
    load_after = os.getloadavg()
    mb = os.path.getsize(path) / 1e6
    py = samples[cmds[-1][0]]
    py_wall = statistics.median(x[0] for x in py)
    py_cpu = statistics.median(x[1] for x in py)
    print(f"\n{os.path.basename(path)}: {mb:,.0f} MB, peaks {peaks} (the Python script's too); "
          f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after; {os.cpu_count()} cores")
    print("| command | runs | wall s | CPU s | MB/s | peak RSS MiB | Python wall / this | Python CPU / this |")
    print("|---|---|---|---|---|---|---|---|")
    for label, _, _ in cmds:
        s = samples[label]
        wall = statistics.median(x[0] for x in s)
        cpu = statistics.median(x[1] for x in s)
        rss = max(x[2] for x in s)
        print(f"| {label} | {len(s)} | {wall:.2f} | {cpu:.2f} | {mb / wall:,.0f} | {rss / 2**20:,.0f} | "
              f"{py_wall / wall:.1f} | {py_cpu / cpu:.1f} |", flush=True)


def add_arguments(ap, standalone):
    if standalone:
        ap.add_argument("--dir", default=os.environ.get("CGMEM_BENCH_DIR", "/tmp/cgmem-bench"))
        ap.add_argument("--cgmem", default=os.path.join(ROOT, "build", "cgmem"), help="the cgmem binary")
        ap.add_argument("--runs", type=int, default=3)
        ap.add_argument("--python-runs", type=int, default=None, help="rounds that include Python (default: all)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(ap, True)
    args = ap.parse_args()
    args.python_runs = args.runs if args.python_runs is None else args.python_runs
    run_section(args)


if __name__ == "__main__":
    main()
