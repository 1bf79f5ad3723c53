#!/usr/bin/env python3
"""One report across the ranks of a job (issue 16): `cgmem report FILE...`,
`cgmem merge PART... -o DIR | --json`, on the job gen_ranks.py writes, whose
figures are worked out by hand below; the merge laws; rank conflicts and
gaps; the real single-rank samples named as ranks.

usage: check_ranks.py CGMEM SAMPLES_DIR [--memory]
(--memory: the bounded-memory test, 200 ranks against 20)
"""
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import gen_ranks  # noqa: E402

MIB = 1 << 20
START_NS = gen_ranks.START_US * 1000
FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(cgmem, *args, status=0):
    p = subprocess.run([cgmem, *args], capture_output=True, text=True, timeout=300)
    check(p.returncode == status, f"cgmem {' '.join(args)}: exit {p.returncode}, expected {status}: {p.stderr}")
    return p


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def top_files(d):
    """The files of a top report (the manifest and ranks/ are report's)."""
    return {n: read(os.path.join(d, n), "rb") for n in sorted(os.listdir(d))
            if n not in ("ranks", ".cgmem-manifest")}


def job_figures(cgmem, tmp, files):
    out = os.path.join(tmp, "out")
    p = run(cgmem, "report", "-q", "--no-trace", *files, "-o", out)
    check(p.stdout == "" and p.stderr == "", f"report -q prints nothing: {p.stdout!r} {p.stderr!r}")
    doc = json.loads(read(os.path.join(out, "summary.json")))
    rk = doc["ranks"]
    check(doc["schema"] == "cgmem/summary/1", "schema")
    check(rk["count"] == 8 and rk["device_rows"] == 8, "8 ranks of one device")
    check(rk["world_size"] == 8 and rk["missing"] == [] and not rk["world_sizes_disagree"],
          "world_size 8 (distributedInfo of the Kineto ranks), none missing")
    rows = {r["rank"]: r for r in rk["rows"]}
    check(sorted(rows) == list(range(8)), "ranks 0..7")
    # peaks 2P + A: stage 0 2*400+400, stage 1 2*200+300, stage 2 600, stage 3 500 (MiB)
    want_peak = {0: 1200, 1: 700, 2: 600, 3: 500, 4: 1200, 5: 700, 6: 600, 7: 500}
    for r, mib in want_peak.items():
        dev = rows[r]["devices"][0]
        check(dev["peak_bytes"] == mib * MIB, f"rank {r} peak {dev['peak_bytes']} != {mib} MiB")
    # first reached at 0.4 s in the JSONL and Kineto traces (both from the
    # job's start), at 0.39 s in the snapshots (their time 0 is the first
    # entry, the parameters' allocation at 10 ms)
    for r in range(8):
        want = 390000000 if r >= 6 else 400000000
        check(rows[r]["devices"][0]["peak_time_ns"] == want, f"rank {r} peak time")
    for r in range(4):
        d = rows[r]["devices"][0]
        check(d["step"] == "train_step#0" and d["phase"] == "backward", f"rank {r}: step 0, backward")
        # capacity from device_memory: used 0 + free 2048 MiB
        check(d["capacity_bytes"] == 2048 * MIB and d["headroom_bytes"] == (2048 - want_peak[r]) * MIB,
              f"rank {r} headroom")
    for r in (4, 5):
        check(rows[r]["devices"][0]["step"] == "ProfilerStep#0", f"rank {r}: ProfilerStep#0")
        check(rows[r]["rank_from"] == "distributed_info", f"rank {r} from distributedInfo")
    check(rows[5]["devices"][0]["name"] == "cuda:1", "rank 5 on cuda:1 (Device Id 1)")
    for r in (0, 1, 2, 3, 6, 7):
        check(rows[r]["rank_from"] == "file_name", f"rank {r} from its file name")
    # how each ends: rank 2 cut at 1.1 s, rank 6 out of memory at 2.4 s
    # (2.39 s after its first entry), the others at 2.8 s
    check(rows[2]["stop"] == "cut" and rows[2]["stop_ns"] == 1100000000, "rank 2 cut at 1.1 s")
    check(rows[6]["stop"] == "oom" and rows[6]["stop_ns"] == 2390000000, "rank 6 OOM")
    check(rows[6]["devices"][0]["oom"], "rank 6's device ran out")
    for r in (0, 1, 3, 4, 5, 7):
        check(rows[r]["stop"] == "end", f"rank {r} ends")
    want_wall = {r: START_NS + 2800000000 for r in range(8)}
    want_wall[2] = START_NS + 1100000000
    want_wall[6] = START_NS + 2400000000
    for r in range(8):
        check(rows[r]["stop_unix_ns"] == want_wall[r], f"rank {r} stops at {rows[r]['stop_unix_ns']} by the wall clock")
    check(rk["first_to_stop"] == {"rank": 2, "stop": "cut", "stop_unix_ns": START_NS + 1100000000,
                                  "ranks_with_wall_clock": 8}, f"first to stop: {rk['first_to_stop']}")
    # sorted peaks 500 500 600 600 700 700 1200 1200: lower median 600
    pk = rk["peak"]
    check(pk == {"rows": 8, "max_bytes": 1200 * MIB, "max_at": {"rank": 0, "device": "cuda:0"},
                 "min_bytes": 500 * MIB, "min_at": {"rank": 3, "device": "cuda:0"}, "median_bytes": 600 * MIB,
                 "max_minus_min_bytes": 700 * MIB, "max_over_median": 2}, f"peak spread {pk}")
    # |peak - 600|: 600 100 0 100 600 100 0 100 -> MAD 100; beyond 300: ranks 0 and 4
    check(rk["outliers"] == {"median_absolute_deviation_bytes": 100 * MIB,
                             "list": [{"rank": 0, "device": "cuda:0", "peak_bytes": 1200 * MIB},
                                      {"rank": 4, "device": "cuda:0", "peak_bytes": 1200 * MIB}]},
          f"outliers {rk['outliers']}")
    # phases, JSONL ranks 0-3 only: forward P + A = 800 500 400 300,
    # backward 2P + A = 1200 700 600 500, optimizer 2P + 50 = 850 450 450 450
    ph = rk["peak_by_phase"]
    check(ph["none"] is None, "no phase none")
    for name, mx, med, mn in (("forward", 800, 400, 300), ("backward", 1200, 600, 500),
                              ("optimizer", 850, 450, 450)):
        p = ph[name]
        check(p is not None and p["rows"] == 4 and p["max_bytes"] == mx * MIB and p["median_bytes"] == med * MIB
              and p["min_bytes"] == mn * MIB and p["max_at"] == {"rank": 0, "device": "cuda:0"}
              and p["max_minus_min_bytes"] == (mx - mn) * MIB and abs(p["max_over_median"] - mx / med) < 1e-12,
              f"phase {name}: {p}")
    md = read(os.path.join(out, "report.md"))
    for line in ("> **Rank 2 (rank-2.trace.jsonl): cut off at 1.100 s, 2026-11-30 10:00:01.100 UTC.**",
                 "> **Rank 6 (snapshot\\_oom\\_rank-6.pickle): out of memory at 2.390 s, "
                 "2026-11-30 10:00:02.400 UTC.**",
                 "Highest peak: rank 0 on cuda:0, 1.17 GiB at 0.400 s in train\\_step#0, backward.",
                 "Imbalance of the peaks over 8 rank and device rows: max / median 2.00 (1.17 GiB / 600.0 MiB), "
                 "max − min 700.0 MiB.",
                 "First to stop by the wall clock: rank 2, 2026-11-30 10:00:01.100 UTC (cut off at 1.100 s; "
                 "8 of 8 ranks give the wall clock).",
                 "| 0 | cuda:0 | 1.17 GiB | 0.400 s | train\\_step#0 | backward | 848.0 MiB | ends at 2.800 s | "
                 "2026-11-30 10:00:02.800 UTC | ranks/0/ |",
                 "| optimizer | 4 | 850.0 MiB | 0 | 450.0 MiB | 1.89 | 400.0 MiB |"):
        check(line in md, f"report.md has: {line}")
    check(os.path.exists(os.path.join(out, "report.html")), "report.html")
    check(sorted(os.listdir(out)) == [".cgmem-manifest", "ranks", "ranks_heatmap.png", "ranks_heatmap.svg",
                                      "ranks_peak.png", "ranks_peak.svg", "ranks_timelines.png",
                                      "ranks_timelines.svg", "report.html", "report.md", "summary.json"],
          f"the top folder: {sorted(os.listdir(out))}")
    check("![Peak per rank, by category at the peak](ranks_peak.png)" in md, "report.md shows the chart")
    # the heat map and the timelines beside it, at the default size as ranks_peak
    for name, alt in (("ranks_heatmap", "Live memory per rank over time (trace time)"),
                      ("ranks_timelines", "Highest and median rank over time")):
        check(f"![{alt}]({name}.png)" in md, f"report.md shows {name}")
        check(f'<figcaption>{alt}</figcaption>\n<div class="files"><a href="{name}.png">PNG</a>'
              in read(os.path.join(out, "report.html")), f"report.html shows {name}")
        png = read(os.path.join(out, name + ".png"), "rb")
        check(png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR" and
              int.from_bytes(png[16:20], "big") == 1600 and int.from_bytes(png[20:24], "big") == 900,
              f"{name}.png is a 1600 x 900 PNG")
        svg = read(os.path.join(out, name + ".svg"))
        check(svg.startswith("<?xml") and 'width="1600px" height="900px"' in svg, f"{name}.svg is 1600 x 900")
    check("Each rank's own report: [rank 0](ranks/0/report.html) · [rank 1](ranks/1/report.html) · " in md,
          "report.md links each rank's report")
    check('<a href="ranks/7/report.html">rank 7</a></p>' in read(os.path.join(out, "report.html")),
          "report.html links each rank's report")
    svg = read(os.path.join(out, "ranks_peak.svg"))
    check(svg.count("rank") >= 1 and "gradient" in svg or "<svg" in svg, "ranks_peak.svg is an SVG")
    # each rank's full report, its summary.json the partial summary --json prints
    for r, f in enumerate(files):
        rd = os.path.join(out, "ranks", str(r))
        check(os.path.exists(os.path.join(rd, "report.html")), f"ranks/{r}/report.html")
        check(os.path.exists(os.path.join(rd, f"timeline.{rows[r]['devices'][0]['name'].replace(':', '-')}.svg")),
              f"ranks/{r} has its charts")
        part = run(cgmem, "summary", "--json", "-q", f).stdout
        check(read(os.path.join(rd, "summary.json")) + "\n" == part, f"ranks/{r}/summary.json is the partial")
    return out


def merge_laws(cgmem, tmp, files, out):
    parts = []
    for f in files:
        p = os.path.join(tmp, "part." + os.path.basename(f) + ".json")
        with open(p, "w") as fh:
            fh.write(run(cgmem, "summary", "--json", "-q", f).stdout)
        parts.append(p)
    merged = os.path.join(tmp, "merged")
    run(cgmem, "merge", "-q", *parts, "-o", merged)
    check(top_files(merged) == top_files(out), "merge -o writes the top files of report, byte for byte")
    whole = run(cgmem, "merge", "--json", *parts).stdout
    check(whole == read(os.path.join(out, "summary.json")), "merge --json is the top summary.json")

    def merge_json(paths, name):
        text = run(cgmem, "merge", "--json", *paths).stdout
        path = os.path.join(tmp, name)
        with open(path, "w") as fh:
            fh.write(text)
        return path

    # associative: ((0 1 2) (3 4)) (5 6 7) and 7 ((5 6) ((4 3) (2 1 0)))
    a = merge_json(parts[0:3], "a.json")
    b = merge_json(parts[3:5], "b.json")
    ab = merge_json([a, b], "ab.json")
    left = run(cgmem, "merge", "--json", ab, *parts[5:]).stdout
    c = merge_json(list(reversed(parts[0:3])), "c.json")
    d = merge_json([parts[4], parts[3]], "d.json")
    dc = merge_json([d, c], "dc.json")
    e = merge_json([parts[6], parts[5]], "e.json")
    ed = merge_json([e, dc], "edc.json")
    right = run(cgmem, "merge", "--json", parts[7], ed).stdout
    check(left == whole and right == whole, "any grouping gives the same bytes")
    # commutative: every order of four groups
    groups = [a, b, merge_json(parts[5:7], "f.json"), parts[7]]
    for perm in itertools.permutations(groups):
        if run(cgmem, "merge", "--json", *perm).stdout != whole:
            check(False, f"order {perm} gives other bytes")
            break
    tree = os.path.join(tmp, "tree")
    run(cgmem, "merge", "-q", "-o", tree, ed, parts[7])
    check(top_files(tree) == top_files(out), "the report from a tree of merges is report's")
    return parts


def expected_series(rank, end_ns, n=256):
    """A JSONL rank's live_series worked out from gen_ranks.plan: bucket k
    holds the times t with t n // end_ns == k (the last also later ones),
    its value the largest live bytes entering it or after a record in it."""
    ev, _ = gen_ranks.plan(rank)  # rank 2's: up to its last whole record, at the cut
    vals, live, cur = [0], 0, 0
    for (t_ms, _, action, nbytes, _, _, _) in ev:
        b = min(n - 1, t_ms * 1000000 * n // end_ns)
        while cur < b:
            vals.append(live)
            cur += 1
        live += nbytes if action == "alloc" else -nbytes
        vals[cur] = max(vals[cur], live)
    while cur < n - 1:
        vals.append(live)
        cur += 1
    return vals


def live_series(cgmem, tmp, out, parts):
    """Point 1 of the rank charts: each device's downsampled live bytes in a
    rank's summary.json (over_time.live_series) and in the ranks rows."""
    rows = {r["rank"]: r for r in json.loads(read(os.path.join(out, "summary.json")))["ranks"]["rows"]}
    for r, row in rows.items():
        dev = row["devices"][0]
        ls = dev["live_series"]
        vals = ls["max_bytes"]
        check(len(vals) == 256, f"rank {r}: 256 buckets, not {len(vals)}")
        check(max(vals) == dev["peak_bytes"], f"rank {r}: the series' max {max(vals)} is the peak {dev['peak_bytes']}")
        k = min(255, dev["peak_time_ns"] * 256 // ls["end_ns"])
        check(vals[k] == dev["peak_bytes"], f"rank {r}: bucket {k} (of the peak's time) holds the peak exactly")
    # JSONL ranks: the axis ends at the last step's span end, 2.95 s (2 s +
    # 950 ms); rank 2 at its cut, 1.1 s; the values as the plan gives them
    for r, end_ns in ((0, 2950000000), (1, 2950000000), (2, 1100000000), (3, 2950000000)):
        ls = rows[r]["devices"][0]["live_series"]
        check(ls["end_ns"] == end_ns, f"rank {r}: end_ns {ls['end_ns']} != {end_ns}")
        want = expected_series(r, end_ns)
        check(ls["max_bytes"] == want, f"rank {r}: the series is not the plan's: {ls['max_bytes'][:16]} vs {want[:16]}")
    # by hand, rank 0 (stage 0, P = A = G = 400 MiB) over 2.95 s in 256
    # buckets of 11.52 ms: bucket 0 holds the parameters (10 ms), bucket 8
    # (92.2..103.7 ms) the forward's +400 at 100 ms, bucket 34 (391.7..403.3
    # ms) the peak 1200 at 400 ms, bucket 52 (599.2..610.7 ms) keeps 1200
    # entering it and 800 after the free at 600 ms
    v0 = rows[0]["devices"][0]["live_series"]["max_bytes"]
    check([v0[0] // MIB, v0[7] // MIB, v0[8] // MIB, v0[33] // MIB, v0[34] // MIB, v0[52] // MIB, v0[53] // MIB]
          == [400, 400, 800, 800, 1200, 1200, 800], f"rank 0 by hand: {[x // MIB for x in v0[:60]]}")
    # each part's series goes through merge unchanged, byte for byte
    by_file = {row["file"]: row for row in rows.values()}
    check(len(parts) == 8, "8 parts")
    for p in parts:
        d = json.loads(read(p))
        row = by_file[os.path.basename(d["source"]["path"])]
        r = row["rank"]
        check(row["devices"][0]["live_series"] == d["devices"][0]["over_time"]["live_series"],
              f"rank {r}: the ranks row's live_series is its part's")
    # a partial without one (an older cgmem's) merges, its row's series null,
    # and the charts are still drawn
    d = json.loads(read(parts[0]))
    del d["devices"][0]["over_time"]["live_series"]
    old = os.path.join(tmp, "old_part.json")
    with open(old, "w") as fh:
        json.dump(d, fh)
    merged = json.loads(run(cgmem, "merge", "--json", old, parts[1]).stdout)["ranks"]["rows"]
    check(merged[0]["devices"][0]["live_series"] is None and merged[1]["devices"][0]["live_series"] is not None,
          "a part without live_series gives null")
    run(cgmem, "merge", "-q", old, parts[1], "-o", os.path.join(tmp, "old_merged"))
    check(os.path.exists(os.path.join(tmp, "old_merged", "ranks_heatmap.png")), "charts drawn without a series")


def tree_bytes(d):
    """Every file under d by its path relative to d."""
    got = {}
    for root, _, names in os.walk(d):
        for n in names:
            p = os.path.join(root, n)
            got[os.path.relpath(p, d)] = read(p, "rb")
    return got


def merge_of_report_folders(cgmem, tmp, files, out):
    """The map step may keep each rank's full report (cgmem report FILE -o
    DIR): merging those folders gives the folder cgmem report FILE... writes,
    ranks/N/ and manifest included, and so does a merge of top reports."""
    dirs = []
    for i, f in enumerate(files):
        d = os.path.join(tmp, f"map{i}")
        run(cgmem, "report", "-q", "--no-trace", f, "-o", d)
        dirs.append(d)
    whole = tree_bytes(out)
    check(any(k.startswith("ranks/") for k in whole), "report FILE... writes ranks/")
    merged = os.path.join(tmp, "merged-folders")
    run(cgmem, "merge", "-q", *reversed(dirs), "-o", merged)
    got = tree_bytes(merged)
    check(sorted(got) == sorted(whole), f"merge of report folders: other files {sorted(set(got) ^ set(whole))}")
    check(got == whole, "merge of report folders is report FILE..., byte for byte")
    half = [os.path.join(tmp, "half0"), os.path.join(tmp, "half1")]
    run(cgmem, "merge", "-q", *dirs[:3], "-o", half[0])
    run(cgmem, "merge", "-q", *dirs[3:], "-o", half[1])
    tree = os.path.join(tmp, "merged-halves")
    run(cgmem, "merge", "-q", half[1], half[0], "-o", tree)
    check(tree_bytes(tree) == whole, "a merge of merged report folders is report FILE..., byte for byte")
    p = run(cgmem, "merge", "-q", dirs[0], half[0], "-o", os.path.join(tmp, "dup"), status=1)
    check("is claimed by two files" in p.stderr, f"a rank in two folders: {p.stderr!r}")


def conflicts_and_gaps(cgmem, tmp, files, parts):
    # two files, one rank
    dup = os.path.join(tmp, "dup")
    os.makedirs(dup)
    other = os.path.join(dup, "trace_0.jsonl")
    shutil.copy(files[0], other)
    p = run(cgmem, "report", "-q", files[0], other, "-o", os.path.join(tmp, "x"), status=1)
    check(p.stderr == "cgmem report: rank 0 is claimed by two files: rank0_trace.jsonl (from its file name) and "
          "trace_0.jsonl (from its file name)\n", f"duplicate rank: {p.stderr!r}")
    check(not os.path.exists(os.path.join(tmp, "x")), "no report is left by the error")
    p = run(cgmem, "merge", "--json", parts[4], parts[0], parts[4], status=1)
    check(p.stderr == "cgmem merge: rank 4 is claimed by two files: node1.1102.pt.trace.json (from "
          "distributedInfo.rank) and node1.1102.pt.trace.json (from distributedInfo.rank)\n", f"merge dup {p.stderr!r}")
    # gaps: ranks 0, 2, 4 of 8 (world_size from rank 4's distributedInfo)
    gap = os.path.join(tmp, "gap")
    run(cgmem, "merge", "-q", parts[0], parts[2], parts[4], "-o", gap)
    rk = json.loads(read(os.path.join(gap, "summary.json")))["ranks"]
    check(rk["missing"] == [1, 3, 5, 6, 7] and rk["world_size"] == 8, f"missing {rk['missing']}")
    check("> **Missing: 5 of 8 ranks have no file: 1, 3, 5, 6, 7.**" in read(os.path.join(gap, "report.md")),
          "report.md says which ranks are missing")
    # no rank: said, with the way out; --rank-from gives it
    norank = os.path.join(tmp, "norank")
    os.makedirs(norank)
    n1 = os.path.join(norank, "host-a.jsonl")
    n2 = os.path.join(norank, "host-b.jsonl")
    shutil.copy(files[0], n1)
    shutil.copy(files[1], n2)
    p = run(cgmem, "report", "-q", n1, n2, "-o", os.path.join(tmp, "y"), status=1)
    check(p.stderr == f"cgmem report: {n1}: no rank for host-a.jsonl: the trace has no distributedInfo.rank, and its "
          "name has neither rank[-_]N nor a trailing _N (give --rank-from REGEX)\n", f"no rank: {p.stderr!r}")
    p = run(cgmem, "report", "-q", "--no-trace", "--formats", "csv", n1, n2, "--rank-from", "host-([a-z])",
            "-o", os.path.join(tmp, "y"), status=1)
    check("no rank for host-a.jsonl" in p.stderr and "nor matches --rank-from" in p.stderr, "letters are no rank")
    shutil.move(n1, os.path.join(norank, "host-10.jsonl"))
    shutil.move(n2, os.path.join(norank, "host-11.jsonl"))
    y = os.path.join(tmp, "y")
    run(cgmem, "report", "-q", "--no-trace", "--formats", "csv", os.path.join(norank, "host-10.jsonl"),
        os.path.join(norank, "host-11.jsonl"), "--rank-from", "host-([0-9]+)", "-o", y)
    rows = json.loads(read(os.path.join(y, "summary.json")))["ranks"]["rows"]
    check([(r["rank"], r["rank_from"]) for r in rows] == [(10, "regex"), (11, "regex")], f"--rank-from {rows}")
    check(sorted(os.listdir(os.path.join(y, "ranks"))) == ["10", "11"], "ranks/10 and ranks/11")
    # usage
    p = run(cgmem, "merge", parts[0], status=2)
    check(p.stderr.startswith("cgmem merge: give -o DIR (the top report) or --json (the merged partial)\n"), p.stderr)
    p = run(cgmem, "merge", parts[0], "--json", "--rank-from", "(", status=2)
    check(p.stderr.startswith("cgmem merge: --rank-from: '(' is not a regular expression: "), p.stderr)
    p = run(cgmem, "report", files[0], "--rank-from", "x([0-9])", "-o", y, status=2)
    check(p.stderr.startswith("cgmem report: --rank-from numbers the ranks of several files; one was given\n"),
          p.stderr)
    p = run(cgmem, "merge", "--json", files[0], status=1)
    check(p.stderr.startswith("cgmem merge: ") and "not valid JSON at byte offset" in p.stderr, p.stderr)


def real_samples(cgmem, tmp, samples):
    """The real single-rank samples named as the ranks of one job: each row
    holds its sample's own peak."""
    d = os.path.join(tmp, "real")
    os.makedirs(d)
    src = ["mlp_adam.jsonl", "cnn_sgd.jsonl.gz" if os.path.exists(os.path.join(samples, "cnn_sgd.jsonl.gz"))
           else "cnn_sgd.jsonl", "external/kineto_resnet50_num_workers_0.worker0.1623143089861.pt.trace.json.gz",
           "snapshots/yiyi_1.3b_snapshot_41810bae.pickle"]
    names = ["rank0_mlp_adam.jsonl", "rank-1.cnn_sgd.jsonl", "resnet50_worker0_2.pt.trace.json.gz",
             "snapshot_oom_rank-3.pickle"]
    files = []
    for s, n in zip(src, names):
        files.append(os.path.join(d, n))
        shutil.copy(os.path.join(samples, s), files[-1])
    out = os.path.join(tmp, "real-out")
    run(cgmem, "report", "-q", "--no-trace", "--formats", "csv", *files, "-o", out)
    rows = json.loads(read(os.path.join(out, "summary.json")))["ranks"]["rows"]
    check([r["rank"] for r in rows] == [0, 1, 2, 3], "the samples are ranks 0-3")
    for r, f in zip(rows, files):
        one = json.loads(run(cgmem, "summary", "--json", "-q", f).stdout)
        # in report order: accelerators first (summary.json's device_order)
        check([(d["name"], d["peak_bytes"]) for d in r["devices"]]
              == [(one["devices"][i]["name"], one["devices"][i]["peak"]["bytes"]) for i in one["device_order"]],
              f"rank {r['rank']}: the peaks of {os.path.basename(f)}, accelerators first")


def schema(out, samples):
    """The top summary.json against docs/summary.schema.json (its ranks
    section), and broken copies against it, when jsonschema is there."""
    try:
        import jsonschema
    except ImportError:
        print("python3-jsonschema not installed: the schema is not checked", file=sys.stderr)
        return
    sch = json.loads(read(os.path.join(os.path.dirname(os.path.abspath(samples)), "docs", "summary.schema.json")))
    v = jsonschema.Draft202012Validator(sch)
    doc = json.loads(read(os.path.join(out, "summary.json")))
    errors = [e.message for e in v.iter_errors(doc)]
    check(not errors, f"the top summary.json fits the schema: {errors[:3]}")
    rank0 = json.loads(read(os.path.join(out, "ranks", "0", "summary.json")))
    check(v.is_valid(rank0), "a rank's summary.json fits the schema")
    broken = [dict(doc, source={}), dict(doc, ranks=dict(doc["ranks"], count=-1)),
              dict(doc, ranks=dict(doc["ranks"], rows=[dict(doc["ranks"]["rows"][0], stop="crashed")])),
              {k: x for k, x in rank0.items() if k != "devices"}]
    for i, b in enumerate(broken):
        check(not v.is_valid(b), f"broken document {i} is refused by the schema")


def big_rank(path, records):
    """A rank of `records` memory records: tensors allocated in waves of
    1,000 and freed, so the timeline holds them all."""
    ms = 1000000
    with open(path, "w") as f:
        f.write('{"kind":"meta","schema":"candle-graph/trace/6","started_at":"2026-11-30T10:00:00Z"}\n')
        f.write('{"kind":"span_start","id":"s","name":"run","start_ns":0,"span_kind":"function"}\n')
        t = 0
        for wave in range(records // 2000):
            for i in range(1000):
                t += 1
                f.write(f'{{"kind":"memory","timestamp_ns":{t * ms},"tensor_id":"w{wave}t{i}","span_id":"s",'
                        f'"device":"cuda:0","bytes":{4096 + i},"action":"alloc","dtype":"f32","category":"activation"}}\n')
            for i in range(1000):
                t += 1
                f.write(f'{{"kind":"memory","timestamp_ns":{t * ms},"tensor_id":"w{wave}t{i}","span_id":"s",'
                        f'"device":"cuda:0","bytes":{4096 + i},"action":"free","dtype":"f32","category":"activation"}}\n')


def peak_rss(cgmem, files, out):
    """Peak resident memory of cgmem report over files, in bytes."""
    p = subprocess.Popen([cgmem, "report", "-q", "--threads", "1", "--no-trace", "--formats", "csv", *files,
                          "-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, _, usage = os.wait4(p.pid, 0)
    p.returncode = 0
    err = p.stderr.read().decode()
    p.stdout.close()
    p.stderr.close()
    check(err == "", f"report of {len(files)} ranks: {err}")
    return usage.ru_maxrss * 1024


def bounded_memory(cgmem, tmp, records):
    """A job of 200 ranks needs about the memory of one: its peak RSS against
    that of 20 ranks of the same size, in the same run."""
    one = os.path.join(tmp, "one.jsonl")
    big_rank(one, records)
    d = os.path.join(tmp, "many")
    os.makedirs(d)
    files = []
    for r in range(200):
        files.append(os.path.join(d, f"rank{r}_trace.jsonl"))
        os.link(one, files[-1])  # the same trace, a rank by its name
    alone = peak_rss(cgmem, files[:1], os.path.join(tmp, "o1"))
    twenty = peak_rss(cgmem, files[:20], os.path.join(tmp, "o20"))
    many = peak_rss(cgmem, files, os.path.join(tmp, "o200"))
    rows = json.loads(read(os.path.join(tmp, "o200", "summary.json")))["ranks"]["rows"]
    check(len(rows) == 200 and rows[199]["rank"] == 199, "200 ranks")
    print(f"peak RSS: 1 rank {alone / MIB:.1f} MiB, 20 ranks {twenty / MIB:.1f} MiB, "
          f"200 ranks {many / MIB:.1f} MiB ({records} records a rank)")
    # kept in memory, 180 more ranks would be 180 times a rank's timeline
    # (several MiB each); in turn they add their rows only
    check(many < twenty + 16 * MIB, f"200 ranks need {many - twenty} more bytes than 20")
    check(twenty < alone + 16 * MIB, f"20 ranks need {twenty - alone} more bytes than 1")


def main():
    if len(sys.argv) == 4 and sys.argv[3] == "--memory":
        tmp = tempfile.mkdtemp(prefix="cgmem-ranks-")
        try:
            bounded_memory(sys.argv[1], tmp, 50000)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return 1 if FAILURES else 0
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    cgmem, samples = sys.argv[1:]
    tmp = tempfile.mkdtemp(prefix="cgmem-ranks-")
    try:
        files = gen_ranks.write_job(os.path.join(tmp, "job"))
        out = job_figures(cgmem, tmp, files)
        schema(out, samples)
        parts = merge_laws(cgmem, tmp, files, out)
        live_series(cgmem, tmp, out, parts)
        merge_of_report_folders(cgmem, tmp, files, out)
        conflicts_and_gaps(cgmem, tmp, files, parts)
        real_samples(cgmem, tmp, samples)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILURES:
        print(f"{len(FAILURES)} failures", file=sys.stderr)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
