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
cc -O2 -std=c11 -Wall -Wextra -D_POSIX_C_SOURCE=200809L -Isrc -Ianalysis -Irender $(pkg-config --cflags cairo) \
	tests/bench/bench_charts.c "$build/libcgmem_lib.a" \
	$(pkg-config --libs libcjson zlib cairo fontconfig) -lm -lpthread -o "$build/bench_charts"
ls -l "$trace" | awk '{ printf "%s: %.0f MB\n", $NF, $5 / 1e6 }'
"$build/bench_charts" "$trace" "${TMPDIR:-/tmp}/cgmem-bench-charts"
