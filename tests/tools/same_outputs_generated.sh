#!/bin/sh
# Two cgmem binaries write the same bytes on generated traces: every file
# of `report` (the Chrome trace's JSON too, with 1 and 2 threads) and
# `summary --json`, on gentrace traces of each mix. For changes that must not change
# any output (a smaller record, a faster writer):
#
#   sh tests/tools/same_outputs_generated.sh old/cgmem new/cgmem build/tests/bench/gentrace /tmp/x
#
# usage: same_outputs_generated.sh OLD NEW GENTRACE WORKDIR [LINES] (default 1000000)
set -u
[ $# -ge 4 ] || { echo "usage: same_outputs_generated.sh OLD NEW GENTRACE WORKDIR [LINES]" >&2; exit 2; }
old=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
new=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
gen=$3 lines=${5:-1000000}
mkdir -p "$4" || exit 2
work=$(cd "$4" && pwd)
status=0
for mix in memory real; do
	trace=$work/$mix-$lines.jsonl
	[ -s "$trace" ] || "$gen" --mix $mix --lines "$lines" >"$trace" || exit 2
	for side in old new; do
		eval bin=\$$side
		for threads in 1 2; do
			d=$work/$side-$mix-t$threads
			rm -rf "$d"
			mkdir -p "$d"
			# relative output folders: the same text in both binaries' messages
			(cd "$d" && "$bin" report --threads $threads "$trace" -o out >stdout 2>stderr; echo $? >status)
		done
		"$bin" summary --json "$trace" >"$work/$side-$mix-t1/summary.json" 2>&1
	done
	# The Chrome trace by its content: the compressed bytes are the encoder's.
	find "$work"/old-$mix-t* "$work"/new-$mix-t* -name '*.gz' -type f | while read -r f; do
		gzip -dc "$f" >"$f.content" && rm "$f"
	done
	for threads in 1 2; do
		if diff -r "$work/old-$mix-t$threads" "$work/new-$mix-t$threads" >/dev/null; then
			echo "$mix, --threads $threads: identical"
		else
			echo "$mix, --threads $threads: DIFFERENT" >&2
			diff -rq "$work/old-$mix-t$threads" "$work/new-$mix-t$threads" >&2
			status=1
		fi
	done
done
exit $status
