#!/bin/sh
# Measures ingest and analysis time on a synthetic trace of N memory records
# (default 3,000,000), with the library of an existing build.
#   sh tests/bench/analysis_cost.sh [N] [BUILD_DIR]
set -eu
cd "$(dirname "$0")/../.."
n=${1:-3000000}
build=${2:-build}
trace=${TMPDIR:-/tmp}/cgmem-bench-$n.jsonl
[ -f "$trace" ] || python3 tests/bench/gen_trace.py "$n" >"$trace"
cmake --build "$build" --target bench_analysis >/dev/null
ls -l "$trace" | awk '{ printf "%s: %.0f MB\n", $NF, $5 / 1e6 }'
"$build/tests/bench/bench_analysis" "$trace"
