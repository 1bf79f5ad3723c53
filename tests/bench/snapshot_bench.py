#!/usr/bin/env python3
"""The snapshot part of cgmem's benchmark (issue 14): `cgmem report` of a
1 GB PyTorch CUDA allocator snapshot against Python's own pickle.load.

    cmake --build build --target cgmem
    python3 tests/bench/snapshot_bench.py [--dir DIR] [--cgmem build/cgmem] [--bytes 1G] [--runs 3]
    python3 tests/bench/run_bench.py --snapshot ...      # the same, after the trace benchmark

The snapshot is written by gen_snapshot.py into DIR (default
$CGMEM_BENCH_DIR, else /tmp/cgmem-bench), never the repository, and kept
there for the next run (made again when the generator or the options
changed). Then, in the same session and alternating round after round as
run_bench.py does:

  python pickle.load   python3 -c "import pickle; pickle.load(open(F,'rb'))"
                       (the reference of the issue: load, then exit)
  ... without exit     the same, timed inside and left with os._exit (no
                       freeing of the objects): --python-detail
  cgmem report         cgmem report F -o DIR/snapshot-out -f -q
  cgmem report --no-trace  (when cgmem accepts it)

Wall time and peak RSS of each (GNU time's %M, else getrusage of a child
started by a small wrapper). The targets: cgmem report at most 0.10 of the
Python time, peak RSS at most 2.0 times the file size. A cgmem that fails
on the file is reported as failing, with its message; the Python figures
are printed anyway. The file sits in the page cache (it is read again
before each command): the figures are CPU, not disk. Timings belong in
docs/performance.md, never in tests.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TIME = "/usr/bin/time"
TARGET_TIME_RATIO = 0.10
TARGET_RSS_RATIO = 2.0

sys.path.insert(0, HERE)
import gen_snapshot  # noqa: E402  (its GENERATOR_VERSION names the cached file's generator)

WRAPPER = ("import resource, subprocess, sys\n"
           "p = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL)\n"
           "r = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
           "open(sys.argv[1], 'w').write('%f %f %d\\n' % (r.ru_utime, r.ru_stime, r.ru_maxrss))\n"
           "sys.exit(p.returncode)\n")


def run(argv, timefile):
    """Runs argv; returns (wall s, CPU s, peak RSS bytes, exit status, stderr text)."""
    if os.access(TIME, os.X_OK):
        cmd = [TIME, "-f", "%U %S %M", "-o", timefile] + argv
    else:   # a fresh small parent, so that no large RSS is carried into the child's figure
        cmd = [sys.executable, "-c", WRAPPER, timefile] + argv
    if os.path.exists(timefile):
        os.remove(timefile)     # a command that cannot start leaves none
    start = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.monotonic() - start
    err = p.stderr.decode(errors="replace")
    try:
        user, sys_, rss_kb = open(timefile).read().split()[-3:]
        cpu, rss = float(user) + float(sys_), int(rss_kb) * 1024
    except (OSError, ValueError):
        cpu, rss = float("nan"), 0
    return wall, cpu, rss, p.returncode, err


def snapshot_file(args):
    """The cached snapshot: made again when its .meta does not match."""
    name = "snapshot-%s-seed%d%s.pickle" % (args.bytes_text, args.seed,
                                            "" if args.devices == 1 else "-%ddev" % args.devices)
    path = os.path.join(args.dir, name)
    meta_path = path + ".meta"
    want = "gen_snapshot %d bytes=%d seed=%d devices=%d\n" % (
        gen_snapshot.GENERATOR_VERSION, args.bytes, args.seed, args.devices)
    meta = open(meta_path).read() if os.path.exists(meta_path) else ""
    if os.path.exists(path) and meta.startswith(want):
        return path, meta
    free = shutil.disk_usage(args.dir).free
    if free < args.bytes * 1.1 + (1 << 30):
        sys.exit("snapshot_bench: %s has %.1f GB free; the snapshot needs %.1f GB"
                 % (args.dir, free / 1e9, args.bytes * 1.1 / 1e9))
    argv = [sys.executable, os.path.join(HERE, "gen_snapshot.py"), "--bytes", str(args.bytes),
            "--seed", str(args.seed), "--devices", str(args.devices), "-o", path]
    print("generating %s: %s" % (path, " ".join(argv[1:])), file=sys.stderr, flush=True)
    wall, cpu, rss, rc, err = run(argv, os.path.join(args.dir, "time.txt"))
    if rc != 0:
        sys.exit("snapshot_bench: gen_snapshot.py exited %d: %s" % (rc, err[-2000:]))
    meta = want + "generated in %.1f s wall, %.1f s CPU, peak RSS %.0f MB\n%s" % (wall, cpu, rss / 1e6, err)
    with open(meta_path, "w") as f:
        f.write(meta)
    return path, meta


def commands(args, path, outdir):
    py = [sys.executable, "-c", "import pickle; pickle.load(open(%r,'rb'))" % path]
    cg = [args.cgmem, "report", path, "-o", outdir, "-f", "-q"]
    cmds = [("python pickle.load", py, "python")]
    if args.python_detail:
        inside = ("import os, pickle, sys, time\n"
                  "t = time.monotonic(); pickle.load(open(%r, 'rb'))\n"
                  "sys.stderr.write('load %%.3f s\\n' %% (time.monotonic() - t)); sys.stderr.flush(); os._exit(0)"
                  % path)
        cmds.append(("python pickle.load, no exit", [sys.executable, "-c", inside], "python-detail"))
    cmds.append(("cgmem report", cg, "cgmem"))
    if args.no_trace:
        cmds.append(("cgmem report --no-trace", cg + ["--no-trace"], "cgmem"))
    return cmds


def warm(path):
    """Reads the file into the page cache: before each command, as a
    machine that reclaims cold pages (DAMON) evicts much of it during a
    one-minute Python run."""
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def measure(args, path):
    outdir = os.path.join(args.dir, "snapshot-out")
    cmds = commands(args, path, outdir)
    samples = {label: [] for label, _, _ in cmds}
    failures = {}
    inner = []
    for r in range(args.runs):
        for label, argv, kind in cmds:
            if kind.startswith("python") and r >= args.python_runs:
                continue
            if label in failures:
                continue
            warm(path)
            wall, cpu, rss, rc, err = run(argv, os.path.join(args.dir, "time.txt"))
            if rc != 0:
                failures[label] = (rc, err.strip())
                print("  round %d: %s: FAILED (exit %d)" % (r + 1, label, rc), file=sys.stderr, flush=True)
                continue
            if kind == "python-detail":
                inner += [float(line.split()[1]) for line in err.splitlines() if line.startswith("load ")]
            samples[label].append((wall, cpu, rss))
            print("  round %d: %s: %.2f s, %.0f MB" % (r + 1, label, wall, rss / 1e6), file=sys.stderr, flush=True)
    rows = {}
    for label, _, kind in cmds:
        s = samples[label]
        if s:
            rows[label] = {"kind": kind, "wall": statistics.median(x[0] for x in s),
                           "cpu": statistics.median(x[1] for x in s), "rss": max(x[2] for x in s),
                           "runs": len(s), "samples": s}
    return {"path": path, "bytes": os.path.getsize(path), "rows": rows, "failures": failures,
            "load_inside": statistics.median(inner) if inner else None}


def report(result, meta):
    size = result["bytes"]
    rows = result["rows"]
    py = rows.get("python pickle.load")
    lines = ["", "%s: %s bytes (%.2f GB)" % (os.path.basename(result["path"]), format(size, ","), size / 1e9)]
    facts = [line for line in meta.splitlines() if line.startswith(("device ", "generated"))]
    lines += ["  " + line for line in facts]
    lines += ["", "| command | runs | wall s (median) | wall s (min-max) | CPU s | peak RSS MB | RSS / file size "
              "| wall / python pickle.load |", "|---|---|---|---|---|---|---|---|"]
    for label, r in rows.items():
        walls = [x[0] for x in r["samples"]]
        lines.append("| %s | %d | %.2f | %.2f-%.2f | %.2f | %s | %.2f | %s |" % (
            label, r["runs"], r["wall"], min(walls), max(walls), r["cpu"], format(round(r["rss"] / 1e6), ","),
            r["rss"] / size, "%.3f" % (r["wall"] / py["wall"]) if py else "-"))
    if result["load_inside"] is not None:
        lines.append("\npickle.load alone, timed inside Python: %.2f s (the rest of the first row is "
                     "starting Python and freeing the objects at exit)" % result["load_inside"])
    for label, (rc, err) in result["failures"].items():
        tail = "\n    ".join(err.splitlines()[-6:]) or "(no message)"
        lines.append("\n%s FAILED on this file (exit %d):\n    %s" % (label, rc, tail))
    cg = rows.get("cgmem report")
    lines.append("")
    if cg and py:
        tr, rr = cg["wall"] / py["wall"], cg["rss"] / size
        lines.append("cgmem report / python pickle.load, wall time: %.3f (target <= %.2f): %s"
                     % (tr, TARGET_TIME_RATIO, "met" if tr <= TARGET_TIME_RATIO else "MISSED"))
        lines.append("cgmem report peak RSS / file size: %.2f (target <= %.1f): %s"
                     % (rr, TARGET_RSS_RATIO, "met" if rr <= TARGET_RSS_RATIO else "MISSED"))
    else:
        lines.append("targets (cgmem report <= %.2f x python time, peak RSS <= %.1f x file size): "
                     "not measured, %s" % (TARGET_TIME_RATIO, TARGET_RSS_RATIO,
                                           "cgmem report failed" if py else "no Python figure"))
    return "\n".join(lines)


def add_arguments(ap, standalone):
    if standalone:
        ap.add_argument("--dir", default=os.environ.get("CGMEM_BENCH_DIR", "/tmp/cgmem-bench"))
        ap.add_argument("--cgmem", default=os.path.join(ROOT, "build", "cgmem"), help="the cgmem binary")
        ap.add_argument("--runs", type=int, default=3)
        ap.add_argument("--python-runs", type=int, default=1, help="rounds that include Python (default 1)")
    ap.add_argument("--snapshot-bytes", dest="bytes_text", default="1G", metavar="SIZE",
                    help="snapshot size (default 1G)")
    ap.add_argument("--snapshot-seed", dest="seed", type=int, default=1, metavar="N")
    ap.add_argument("--snapshot-devices", dest="devices", type=int, default=1, metavar="N")
    ap.add_argument("--python-detail", action="store_true",
                    help="also time pickle.load alone, leaving Python without freeing the objects")


def run_section(args):
    """Runs the snapshot benchmark; args has dir, cgmem, runs, python_runs and
    the options of add_arguments()."""
    args.bytes = gen_snapshot.parse_bytes(args.bytes_text)
    os.makedirs(args.dir, exist_ok=True)
    if not os.access(args.cgmem, os.X_OK):
        print("snapshot_bench: %s is missing (cmake --build build --target cgmem): Python figures only"
              % args.cgmem, file=sys.stderr)
        args.no_trace = False
    else:
        help_text = subprocess.run([args.cgmem, "help", "report"], capture_output=True, text=True).stdout
        args.no_trace = "--no-trace" in help_text
    path, meta = snapshot_file(args)
    result = measure(args, path)
    text = report(result, meta)
    print(text, flush=True)
    with open(os.path.join(args.dir, "snapshot-results.json"), "w") as f:
        json.dump(result, f, indent=1)
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(ap, True)
    args = ap.parse_args()
    with open("/proc/cpuinfo") as f:
        cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "?")
    print("machine: %d cores (%s); cgmem %s" % (os.cpu_count(), cpu, args.cgmem))
    run_section(args)


if __name__ == "__main__":
    main()
