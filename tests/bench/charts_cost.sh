#!/bin/sh
# Measures the drawing of every chart on a synthetic trace of N memory
# records (default 1,000,000) spread over D devices (default 2), with the
# library of an existing build.
#   sh tests/bench/charts_cost.sh [N] [D] [BUILD_DIR]
set -eu
cd "$(dirname "$0")/../.."
n=${1:-1000000}
devices=${2:-2}
build=${3:-build}
trace=${TMPDIR:-/tmp}/cgmem-bench-$n-$devices.jsonl
[ -f "$trace" ] || python3 tests/bench/gen_trace.py "$n" "$devices" >"$trace"
cmake --build "$build" --target bench_charts >/dev/null
ls -l "$trace" | awk '{ printf "%s: %.0f MB\n", $NF, $5 / 1e6 }'
"$build/tests/bench/bench_charts" "$trace" "${TMPDIR:-/tmp}/cgmem-bench-charts"
