#!/bin/bash
# Differential test of recency and decay: two vercy binaries, the same inputs, every output
# compared byte for byte (stdout, stderr, exit code).
#   bench/diff_recency.sh OLD NEW [INPUT ...]
# Without inputs: every file under fixtures/ and DATA (default ../shared/data/), and RANDOM small
# generated stores (default 40: gen_store.py and gen_messy.py at random sizes; SEED fixes the
# sizes). Each input is ranked by recency (human and JSON, as of a fixed time, with each
# setting changed, through a map, from stdin) and given to the deprecated decay (no flags, the
# old job's flags, a store it cannot read).
# Prints the counts and every difference; exits 1 when any.
set -u
OLD=$(realpath "$1"); NEW=$(realpath "$2"); shift 2
HERE=$(cd "$(dirname "$0")/.." && pwd)

# shellcheck source=diff_inputs.sh
source "$HERE/bench/diff_inputs.sh"
diff_inputs 40 -- "$@"
run() { diff_run "$@"; }

AT=2026-06-01T12:00:00Z
for in in "${inputs[@]}"; do
  N=/dev/null
  run "recency $in" $N recency "$in" --as-of "$AT"
  run "recency --format json $in" $N recency "$in" --as-of "$AT" --format json
  run "recency --top 3 --half-life 30 $in" $N recency "$in" --as-of "$AT" --top 3 --half-life 30
  run "recency --no-degree --insight-half-life 7 $in" $N recency "$in" --as-of 2024-01-01 --no-degree --insight-half-life 7
  run "recency --map engrama $in" $N recency "$in" --as-of "$AT" --map engrama --format json
  run "recency - <$in" "$in" recency - --as-of "$AT"
  run "decay $in" $N decay "$in"
  run "decay flags $in" $N decay -r 0.05 --min-confidence 0.2 --max-age 90 --label Concept --dry-run "$in"
  run "decay - <$in" "$in" decay -
done
run "decay no store" /dev/null decay
run "decay missing" /dev/null decay "$WORK/no such store.jsonl"

echo "inputs ${#inputs[@]}, runs $runs, differences $diffs"
[ "$diffs" -eq 0 ]
