#!/bin/sh
# Outputs unchanged on the generated traces (issue 17): runs two cgmem
# binaries (before and after a change) on the 1 M-line trace of each
# gentrace mix and compares summary.json, report.md and report.html byte by
# byte. Not part of ctest (the traces are 170-190 MB each); see
# docs/performance.md.
#
#     sh tests/bench/same_outputs.sh BASE_CGMEM NEW_CGMEM GENTRACE [DIR] [LINES]
#
# DIR (default /tmp/cgmem-same) holds the traces and outputs; LINES defaults
# to 1000000. Exit status 0 when every file is identical, 1 otherwise.
set -eu
if [ $# -lt 3 ]; then
	echo "usage: same_outputs.sh BASE_CGMEM NEW_CGMEM GENTRACE [DIR] [LINES]" >&2
	exit 2
fi
base=$1 new=$2 gen=$3
dir=${4:-/tmp/cgmem-same}
lines=${5:-1000000}
mkdir -p "$dir"
status=0
for mix in memory real; do
	trace="$dir/$mix-$lines.jsonl"
	[ -s "$trace" ] || "$gen" --mix "$mix" --lines "$lines" >"$trace"
	for opts in "--no-trace" ""; do
		tag=$mix${opts:+-no-trace}
		# shellcheck disable=SC2086 # opts is one option or none
		"$base" report "$trace" -o "$dir/base-$tag" -f -q $opts
		# shellcheck disable=SC2086
		"$new" report "$trace" -o "$dir/new-$tag" -f -q $opts
		for f in summary.json report.md report.html; do
			if cmp -s "$dir/base-$tag/$f" "$dir/new-$tag/$f"; then
				echo "same: $tag $f"
			else
				echo "DIFFERENT: $tag $f" >&2
				status=1
			fi
		done
	done
done
exit $status
