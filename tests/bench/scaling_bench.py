#!/usr/bin/env python3
"""How cgmem's time and memory grow with the trace (issue 17): for JSONL,
the 1 M- and 10 M-line traces run_bench.py times; for PyTorch Chrome
traces, 1 and 10 time-shifted copies of the H100 OWLv2 sample
(kineto_big.py). Each pair is timed in one session, runs alternating, and
the table gives the growth of wall time, CPU time and peak RSS against
linear growth and n log n, with the verdict.

    python3 tests/bench/run_bench.py --scaling-only [--runs 3]   # both
    python3 tests/bench/scaling_bench.py [--cgmem build/cgmem] [--runs 3] [--kineto-only]
"""
import argparse
import math
import os
import statistics
import subprocess
import sys

import kineto_bench

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def nlogn_bound(lo, hi):
    """The growth n log n allows from lo to hi items."""
    return hi / lo * math.log(hi) / math.log(lo)


def verdict(growth, lo, hi):
    return "linear or better" if growth <= hi / lo * 1.05 else \
        ("within n log n" if growth <= nlogn_bound(lo, hi) else "WORSE than n log n")


def kineto_trace(args, copies):
    path = os.path.join(args.dir, f"kineto-owlv2-x{copies}.json")
    if not os.path.exists(path):
        print(f"generating {path}", file=sys.stderr)
        subprocess.run([sys.executable, os.path.join(HERE, "kineto_big.py"), kineto_bench.SAMPLE, str(copies),
                        path + ".tmp"], check=True)
        os.rename(path + ".tmp", path)
    return path


def events_of(path):
    """Events of a Chrome trace kineto_big.py wrote: one a line after the header line."""
    with open(path, "rb") as f:
        return sum(1 for line in f if line.startswith(b"{")) - 1


def growth_rows(args, label, pairs, sizes):
    """pairs: (name, argv_lo, argv_hi); runs them alternating, returns table rows."""
    timefile = os.path.join(args.dir, "time.txt")
    samples = {(name, side): [] for name, _, _ in pairs for side in (0, 1)}
    for r in range(args.runs):
        for name, lo, hi in pairs:
            for side, argv in ((0, lo), (1, hi)):
                wall, cpu, rss, _ = kineto_bench.run(argv, timefile)
                samples[(name, side)].append((wall, cpu, rss))
                print(f"  {label} round {r + 1}: {name} {'small' if side == 0 else 'large'}: {wall:.2f} s",
                      file=sys.stderr)
    rows = []
    lo_n, hi_n = sizes
    for name, _, _ in pairs:
        med = [[statistics.median(x[k] for x in samples[(name, side)]) for k in range(3)] for side in (0, 1)]
        g = [med[1][k] / med[0][k] for k in range(3)]
        rows.append(f"| {label} | {name} | {med[0][0]:.2f} → {med[1][0]:.2f} | {g[0]:.1f} | "
                    f"{med[0][1]:.2f} → {med[1][1]:.2f} | {g[1]:.1f} | "
                    f"{med[0][2] / 2**20:,.0f} → {med[1][2] / 2**20:,.0f} | {g[2]:.1f} | "
                    f"{hi_n / lo_n:.1f} / {nlogn_bound(lo_n, hi_n):.1f} | "
                    f"time {verdict(g[1], lo_n, hi_n)}, RSS {verdict(g[2], lo_n, hi_n)} |")
    return rows


HEADER = ("| trace | command | wall s | wall growth | CPU s | CPU growth | peak RSS MiB | RSS growth | "
          "linear / n log n | verdict (CPU, RSS) |\n|---|---|---|---|---|---|---|---|---|---|")


def jsonl_rows(args, mix, small, large):
    """small, large: (path, lines) of two JSONL traces of one mix."""
    cg = [args.cgmem, "report", "-o", os.path.join(args.dir, "out"), "-f", "-q"]
    pairs = [("report --no-trace", cg + ["--no-trace", small[0]], cg + ["--no-trace", large[0]]),
             ("report", cg + [small[0]], cg + [large[0]])]
    return growth_rows(args, f"{mix} JSONL {small[1] / 1e6:g} M → {large[1] / 1e6:g} M lines", pairs,
                       (small[1], large[1]))


def kineto_rows(args):
    small, large = kineto_trace(args, 1), kineto_trace(args, 10)
    n_small, n_large = events_of(small), events_of(large)
    cg = [args.cgmem, "summary", "--json"]
    pairs = [("summary --json", cg + [small], cg + [large]),
             ("report --no-trace", [args.cgmem, "report", "--no-trace", "-o", os.path.join(args.dir, "out"), "-f",
                                    "-q", small],
              [args.cgmem, "report", "--no-trace", "-o", os.path.join(args.dir, "out"), "-f", "-q", large])]
    return growth_rows(args, f"Kineto x1 → x10 ({n_small:,} → {n_large:,} events)", pairs, (n_small, n_large))


def print_table(rows, runs):
    print(f"\ngrowth from the small to the large trace (medians of {runs} alternating runs; the verdict is "
          "on CPU seconds, the steadier figure on a shared machine)")
    print(HEADER)
    for r in rows:
        print(r, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    kineto_bench.add_arguments(ap, True)
    ap.add_argument("--kineto-only", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    print_table(kineto_rows(args), args.runs)


if __name__ == "__main__":
    main()
