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
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export SOURCE_DATE_EPOCH=1764633600 NO_COLOR=1 VERCY_PROGRESS=0

# shellcheck source=diff_inputs.sh
source "$HERE/bench/diff_inputs.sh"
diff_inputs 100 -- "$@"
printf 'concept_000001\nretention\nnot_held_anywhere\n' >"$WORK/expected.txt"

runs=0; diffs=0
# run LABEL STDIN ARGS...: both binaries in their own fresh folder, stdin from STDIN
# (/dev/null for none), compared
run() {
  local label=$1 stdin=$2; shift 2
  runs=$((runs + 1))
  for side in a b; do
    local bin=$OLD; [ $side = b ] && bin=$NEW
    rm -rf "$WORK/$side"; mkdir -p "$WORK/$side"
    (cd "$WORK/$side" && GITHUB_STEP_SUMMARY=$WORK/$side/summary.md "$bin" "$@" <"$stdin" \
      >out 2>err; echo $? >rc)
  done
  for f in out err rc summary.md; do
    if [ -e "$WORK/a/$f" ] || [ -e "$WORK/b/$f" ]; then
      if ! cmp -s "$WORK/a/$f" "$WORK/b/$f"; then
        diffs=$((diffs + 1)); echo "DIFF $label: $f"; return
      fi
    fi
  done
}

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
