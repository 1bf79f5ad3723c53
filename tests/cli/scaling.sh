#!/bin/sh
# No quadratic behaviour on hostile traces: for each pathological case,
# cgmem report (SVG charts, HTML, Chrome trace: everything but PNG
# compression, a fixed cost per chart) on n/10, n and 10 n records. The
# extra instructions from n to 10 n must be at most RATIO times those from
# n/10 to n: 10 when linear, about 11 for n log n, 100 when quadratic; the
# differences cancel the fixed costs. Instructions are counted by callgrind,
# so the figures repeat exactly on a loaded machine.
# usage: scaling.sh CGMEM [N]   (default N 10000: 1,000 / 10,000 / 100,000 records)
set -u
cgmem=$1
n=${2:-10000}
ratio_max=20
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

meta='{"kind":"meta","schema":"candle-graph/trace/6"}'
root='{"kind":"span_start","id":"r","name":"root","start_ns":0,"span_kind":"function"}'
mem='{"kind":"memory","timestamp_ns":%d,"tensor_id":"%s","span_id":"%s","device":"%s","bytes":%d,"action":"%s","dtype":"f32"}\n'

# gen CASE N > FILE
gen() {
	echo "$meta"
	echo "$root"
	seq 1 "$2" | awk -v c="$1" -v m="$mem" -v N="$2" '{
		i = $1
		if (c == "distinct_ids_never_freed") printf m, i, "t" i, "r", "cpu", 8, "alloc"
		else if (c == "one_id_allocated_again_and_again") printf m, i, "t", "r", "cpu", 8, "alloc"
		else if (c == "frees_of_ids_never_allocated") printf m, i, "t" i, "r", "cpu", 8, "free"
		else if (c == "double_frees") { if (i == 1) printf m, 0, "t", "r", "cpu", 8, "alloc"; printf m, i, "t", "r", "cpu", 8, "free" }
		else if (c == "time_running_backwards") printf m, N - i, "t" i, "r", "cpu", 8, (i % 2 ? "alloc" : "free")
		else if (c == "spans_nested_n_deep") {
			printf "{\"kind\":\"span_start\",\"id\":\"s%d\",\"parent_id\":\"%s\",\"name\":\"n%d\",\"start_ns\":%d,\"span_kind\":\"module\"}\n", i, (i == 1 ? "r" : "s" i - 1), i, i
			printf m, i, "t" i, "s" i, "cpu", 8, "alloc"
		} else if (c == "siblings_never_ended") {
			printf "{\"kind\":\"span_start\",\"id\":\"s%d\",\"parent_id\":\"r\",\"name\":\"n%d\",\"start_ns\":%d,\"span_kind\":\"op\",\"step\":\"%s\"}\n", i, i, i, (i % 3 == 0 ? "forward" : "backward")
			printf m, i, "t" i, "s" i, "cpu", 8, "alloc"
		} else if (c == "a_device_per_record") printf m, i, "t", "r", "d" (i % 5000), 8, "alloc"
		else if (c == "bad_and_unknown_lines") { print "{\"kind\":\"counter\",\"x\":" i "}"; print "{\"kind\":\"memory\",\"bytes\":-" i "}" }
	}'
}

instructions() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$cgmem" report "$1" -o "$tmp/out" -q --force \
		--threads 1 --formats svg 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

status=0
for c in distinct_ids_never_freed one_id_allocated_again_and_again frees_of_ids_never_allocated double_frees \
	time_running_backwards spans_nested_n_deep siblings_never_ended a_device_per_record bad_and_unknown_lines; do
	gen "$c" $((n / 10)) >"$tmp/tiny.jsonl"
	gen "$c" "$n" >"$tmp/small.jsonl"
	gen "$c" $((n * 10)) >"$tmp/large.jsonl"
	tiny=$(instructions "$tmp/tiny.jsonl")
	small=$(instructions "$tmp/small.jsonl")
	large=$(instructions "$tmp/large.jsonl")
	if [ -z "$tiny" ] || [ -z "$small" ] || [ -z "$large" ]; then
		echo "FAIL  $c: cgmem did not run under callgrind"
		status=1
		continue
	fi
	ratio=$(awk -v a="$large" -v b="$small" -v c="$tiny" 'BEGIN { printf "%.1f", (a - b) / (b > c ? b - c : 1) }')
	verdict=ok
	awk -v r="$ratio" -v m="$ratio_max" 'BEGIN { exit !(r > m) }' && { verdict=FAIL; status=1; }
	printf '%-5s %-34s %7d %8d %9d records: %13s %13s %14s instructions, growth x%s\n' "$verdict" "$c" \
		$((n / 10)) "$n" $((n * 10)) "$tiny" "$small" "$large" "$ratio"
done
exit $status
