#!/bin/sh
# Every output of report, summary, diff and check on every sample, written
# under OUT by the given cgmem binary: one folder per command line with the
# files it wrote, its stdout, stderr and exit status. Two binaries' folders
# compare byte for byte with `diff -r` (a refactoring changes none of them;
# gzip files are compared by their content):
#
#   sh tests/tools/record_outputs.sh old/cgmem samples /tmp/before
#   sh tests/tools/record_outputs.sh build/cgmem samples /tmp/after
#   diff -r /tmp/before /tmp/after && echo identical
#
# usage: record_outputs.sh CGMEM SAMPLES_DIR OUT
set -u
[ $# -eq 3 ] || { echo "usage: record_outputs.sh CGMEM SAMPLES_DIR OUT" >&2; exit 2; }
cgmem=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
samples=$(cd "$2" && pwd)
out=$3
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Paths in the outputs are the same for both binaries: the samples by
# their absolute path, the output folders relative to OUT.
cd "$out" || exit 1
n=0

# run NAME ARGS...: cgmem ARGS run in OUT/NAME, its output folders inside it.
run() {
	name=$1
	shift
	mkdir -p "$name"
	(cd "$name" && "$cgmem" "$@" >stdout 2>stderr; echo $? >status)
	n=$((n + 1))
}

traces=""
for t in "$samples"/*.jsonl "$samples"/*.jsonl.gz "$samples"/external/*.json.gz "$samples"/external/*.raw.gz; do
	[ -e "$t" ] && traces="$traces $t"
done
for t in $traces; do
	b=$(basename "$t")
	run "report-$b" report "$t" -o out
	run "report-opts-$b" report "$t" -o out --formats svg --trace trace.json --trace-full --top 5 \
		--width 1000 --height 600 --threads 1
	run "summary-$b" summary "$t"
	run "summary-top3-$b" summary "$t" --top 3
	run "summary-json-$b" summary "$t" --json
	run "check-$b" check "$t" --max-peak 1MiB --max-leaked 1MiB --max-fragmentation 30%
	run "check-json-$b" check "$t" --max-peak 1GiB --max-leaked 0 --max-fragmentation 0.5 --json
done

s=$samples
e=$samples/external
run diff-mlp-leak diff "$s/mlp_adam.jsonl" "$s/leak_loss_history.jsonl" -o out
run diff-mlp-cut-phases diff "$s/mlp_adam.jsonl" "$s/mlp_adam_cut.jsonl" -o out --align phases
run diff-cnn-mlp-gz diff "$s/cnn_sgd.jsonl" "$s/mlp_adam.jsonl.gz" -o out --top 4 --no-html
run diff-jsonl-torch diff "$s/mlp_adam.jsonl.gz" "$e/tracelens_h100_bert_small.json.gz" -o out --align phases
run diff-torch-torch diff "$e/tracelens_h100_bert_small.json.gz" "$e/tracelens_mi300_bert_small.json.gz" -o out
run diff-raw-torch diff "$e/hta_memory_timeline.raw.gz" \
	"$e/kineto_resnet50_num_workers_0.worker0.1623143089861.pt.trace.json.gz" -o out
run check-growth check "$s/leak_loss_history.jsonl" --max-peak 20MiB --max-leaked 1MiB \
	--baseline "$s/mlp_adam.jsonl" --max-growth 5%
run check-growth-json check "$s/mlp_adam.jsonl.gz" --baseline "$e/tracelens_h100_bert_small.json.gz" \
	--max-growth 5 --json
run check-device check "$s/mlp_adam.jsonl" --device cpu --max-peak 12GiB
# Errors and usage are outputs too.
run error-missing report "$s/no-such-file.jsonl" -o out
run error-usage check "$s/mlp_adam.jsonl"
run help-report help report
run help-main --help
# A gzip file is recorded as what it holds: its compressed bytes are the
# encoder's (render/output/deflate.c) and may change while the content may not.
find "$out" -name '*.gz' -type f | while read -r f; do
	gzip -dc "$f" >"$f.content" && rm "$f"
done
echo "$n command lines recorded in $out"
