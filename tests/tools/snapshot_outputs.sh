#!/bin/sh
# What a cgmem binary makes of every pickle in the tree, written under OUT:
# `summary --json` of each pickle of the fuzz corpora, tests/ingest/pickles
# and samples/snapshots (its stdout, stderr and exit status), and the whole
# `report` folder of each sample snapshot and of any pickle named after
# OUT (generated ones, say). Two binaries' folders compare byte for byte
# with `diff -r`, as record_outputs.sh does for the JSONL samples:
#
#   sh tests/tools/snapshot_outputs.sh old/cgmem /tmp/before [BIG.pickle ...]
#   sh tests/tools/snapshot_outputs.sh build/cgmem /tmp/after [BIG.pickle ...]
#   diff -r /tmp/before /tmp/after && echo identical
#
# usage: snapshot_outputs.sh CGMEM OUT [PICKLE ...]
set -u
[ $# -ge 2 ] || { echo "usage: snapshot_outputs.sh CGMEM OUT [PICKLE ...]" >&2; exit 2; }
cgmem=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
n=0
# Paths in the outputs are the same for both binaries: run from the tree's
# root with relative names.
cd "$root" || exit 1
for f in tests/fuzz/corpus_pickle/* tests/fuzz/corpus_snapshot/* tests/fuzz/corpus_snapshot_paths/* \
	tests/ingest/pickles/*.pickle* samples/snapshots/*.pickle; do
	case $f in *.expect) continue ;; esac
	[ -f "$f" ] || continue
	d="$out/summary/$(echo "$f" | tr / _)"
	mkdir -p "$d"
	"$cgmem" summary --json "$f" >"$d/stdout" 2>"$d/stderr"
	echo $? >"$d/status"
	n=$((n + 1))
done
for f in samples/snapshots/*.pickle "$@"; do
	d="$out/report/$(basename "$f")"
	mkdir -p "$d"
	"$cgmem" report "$f" -o "$d/out" -f -q >"$d/stdout" 2>"$d/stderr"
	echo $? >"$d/status"
	n=$((n + 1))
done
echo "$n command lines recorded in $out"
