#!/bin/bash
# Differential test of the write side (import, export, check): two vercy binaries, the same
# inputs, every output compared byte for byte (stdout, stderr, exit code, the store import
# leaves behind).
#   bench/diff_import.sh OLD NEW [INPUT ...]
# Without inputs: every file under fixtures/ and DATA (default ../shared/data/), and RANDOM small generated
# stores (default 200: gen_store.py and gen_messy.py at random sizes; SEED fixes the sizes).
# Each input is
#   - imported into a fresh store, into an existing flat store, into an existing engrama
#     (graph) store, and with --purge over an existing store;
#   - exported --to jsonl, json, engrama and compact;
#   - checked with --json.
# Prints the counts and every difference; exits 1 when any.
set -u
OLD=$(realpath "$1"); NEW=$(realpath "$2"); shift 2
HERE=$(cd "$(dirname "$0")/.." && pwd)

# shellcheck source=diff_inputs.sh
source "$HERE/bench/diff_inputs.sh"
diff_inputs 200 ! -name '*.args' ! -name '*.expected*' -- "$@"

# existing stores to import into
mkdir -p "$WORK/base"
python3 "$HERE/bench/gen_store.py" --out "$WORK/base" 60 >/dev/null 2>&1
FLAT="$WORK/base/store-60.jsonl"; GRAPH="$WORK/base/engrama-60.ndjson"

# run LABEL ARGS...: both builds in the folders `reset` made, compared (with the store)
COMPARED=store.jsonl KEEP_DIRS=1
run() { local label=$1; shift; diff_run "$label" /dev/null "$@"; }
reset() { for side in a b; do rm -rf "$WORK/$side"; mkdir -p "$WORK/$side"; [ -n "${1:-}" ] && cp "$1" "$WORK/$side/store.jsonl"; done; true; }

for in in "${inputs[@]}"; do
  reset;        run "import fresh $in" import "$in" --into store.jsonl
  reset "$FLAT";  run "import flat $in" import "$in" --into store.jsonl
  reset "$GRAPH"; run "import graph $in" import "$in" --into store.jsonl
  reset "$FLAT";  run "import --purge $in" import "$in" --into store.jsonl --purge
  reset
  for to in jsonl json engrama compact; do run "export --to $to $in" export "$in" --to "$to"; done
  run "check --json $in" check "$in" --json
done
echo "inputs ${#inputs[@]}, runs $runs, differences $diffs"
[ "$diffs" -eq 0 ]
