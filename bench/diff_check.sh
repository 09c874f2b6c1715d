#!/bin/bash
# Differential test of check: two vercy binaries, the same inputs, every output compared byte
# for byte (stdout, stderr, exit code, the GitHub step summary).
#   bench/diff_check.sh OLD NEW [INPUT ...]
# Without inputs: every file under fixtures/ and DATA (default ../shared/data/), and RANDOM small
# generated stores (default 100: gen_store.py and gen_messy.py at random sizes; SEED fixes the
# sizes). Each input is checked in every format (human, --quiet, --json, sarif, github with a
# step summary), under --strict and --min-level 3, with --expected, through --map engrama, and
# from stdin.
# Prints the counts and every difference; exits 1 when any.
set -u
OLD=$(realpath "$1"); NEW=$(realpath "$2"); shift 2
HERE=$(cd "$(dirname "$0")/.." && pwd)

# shellcheck source=diff_inputs.sh
source "$HERE/bench/diff_inputs.sh"
diff_inputs 100 -- "$@"
printf 'concept_000001\nretention\nnot_held_anywhere\n' >"$WORK/expected.txt"

# the GitHub step summary, written in each run's folder
export GITHUB_STEP_SUMMARY=summary.md COMPARED=summary.md
run() { diff_run "$@"; }

for in in "${inputs[@]}"; do
  N=/dev/null
  run "check $in" $N check "$in"
  run "check --quiet $in" $N check "$in" --quiet
  run "check --json $in" $N check "$in" --json
  run "check sarif $in" $N check "$in" --format sarif
  run "check github $in" $N check "$in" --format github
  run "check --strict --json $in" $N check "$in" --strict --json
  run "check --min-level 3 $in" $N check "$in" --min-level 3
  run "check --expected $in" $N check "$in" --expected "$WORK/expected.txt" --json
  run "check --map engrama $in" $N check "$in" --map engrama
  run "check - <$in" "$in" check - --json
done
echo "inputs ${#inputs[@]}, runs $runs, differences $diffs"
[ "$diffs" -eq 0 ]
