#!/bin/sh
# cgmem report on every sample under valgrind, then cgmem diff and cgmem check:
# 0 errors, 0 bytes definitely lost.
# usage: valgrind_samples.sh CGMEM SAMPLES_DIR
set -u
cgmem=$1
samples=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
count=0
for trace in "$samples"/*.jsonl "$samples"/*.jsonl.gz "$samples"/external/*.json.gz "$samples"/external/*.raw.gz \
	"$samples"/snapshots/*.pickle; do
	[ -e "$trace" ] || continue
	# valgrind runs ~50x slower: the larger PyTorch traces (same code paths as
	# the small ones) are left to the sanitizer build.
	[ "$(wc -c <"$trace")" -le 600000 ] || { echo "skip  $(basename "$trace") (large)"; continue; }
	count=$((count + 1))
	name=$(basename "$trace")
	if valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 \
		"$cgmem" report "$trace" -o "$tmp/out-$count" -q >"$tmp/log" 2>&1; then
		echo "ok    $name"
	else
		echo "FAIL  $name"
		cat "$tmp/log"
		status=1
	fi
done
[ "$count" -gt 0 ] || { echo "no samples found in $samples"; exit 1; }

# cgmem diff and cgmem check on small runs: a gzip run against a PyTorch
# trace (devices in one run only, phases aligned), and every limit.
vg() {
	what=$1
	expect=$2
	shift 2
	valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 "$cgmem" "$@" \
		>"$tmp/log" 2>&1
	rc=$?
	if [ "$rc" -eq "$expect" ]; then
		echo "ok    $what"
	else
		echo "FAIL  $what (exit $rc, expected $expect)"
		cat "$tmp/log"
		status=1
	fi
}
torch="$samples/external/tracelens_h100_bert_small.json.gz"
vg "diff" 0 diff "$samples/mlp_adam.jsonl.gz" "$torch" -o "$tmp/diff" -q --align phases
# the growth from the baseline's 16 B on cpu fails: exit 3
vg "check" 3 check "$samples/mlp_adam.jsonl.gz" --max-peak 1GiB --max-fragmentation 0.5 --max-leaked 0 \
	--baseline "$torch" --max-growth 5 --json -q
exit $status
