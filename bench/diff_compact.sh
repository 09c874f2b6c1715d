#!/bin/bash
# Differential test of compact: two vercy binaries, the same inputs, every output compared
# byte for byte (stdout, stderr, exit code, the file -o writes).
#   bench/diff_compact.sh OLD NEW [INPUT ...]
# Without inputs: every file under fixtures/ and DATA (default ../shared/data/), and RANDOM small generated
# stores (default 100: gen_store.py and gen_messy.py at random sizes; SEED fixes the sizes).
# Each input is compacted
#   - as it is, with --stats, with -o, and from stdin (read once: the first pass buffers);
#   - with each selection (--as-of, --concept, --reader, --known-at) and some together;
#   - with --policy-line (alone and with --reader);
#   - through a map given (--map engrama, --map graphiti, an inverse supersedes map);
# and exported --to compact (the same library), and checked (human and --map engrama: the
# store's own map is resolved where check and compact both read it).
# Prints the counts and every difference; exits 1 when any.
set -u
OLD=$(realpath "$1"); NEW=$(realpath "$2"); shift 2
HERE=$(cd "$(dirname "$0")/.." && pwd)

# shellcheck source=diff_inputs.sh
source "$HERE/bench/diff_inputs.sh"
diff_inputs 100 -- "$@"

COMPARED=written.txt
run() { diff_run "$@"; }

for in in "${inputs[@]}"; do
  # a concept and a party the input itself names, so the selections are rarely empty
  concept=$(grep -o '"concept": *"[^"\\]*"' "$in" 2>/dev/null | head -1 | sed 's/.*: *"\(.*\)"/\1/')
  party=$(grep -o '"release_to": *\[* *"[^"\\]*"' "$in" 2>/dev/null | head -1 | sed 's/.*"\([^"]*\)"$/\1/')
  concept=${concept:-retention}; party=${party:-finance}
  N=/dev/null
  run "compact $in" $N compact "$in"
  run "compact --stats $in" $N compact "$in" --stats
  run "compact -o $in" $N compact "$in" -o written.txt --stats
  run "compact - <$in" "$in" compact -
  run "compact - --as-of --reader <$in" "$in" compact - --as-of 2025-01-01 --reader "$party"
  run "compact --as-of 2024-01-01 $in" $N compact "$in" --as-of 2024-01-01
  run "compact --as-of 2026-06-01T12:00:00Z --stats $in" $N compact "$in" --as-of 2026-06-01T12:00:00Z --stats
  run "compact --as-of bad $in" $N compact "$in" --as-of 2026-02-30
  run "compact --concept $in" $N compact "$in" --concept "$concept"
  run "compact --reader $in" $N compact "$in" --reader "$party"
  run "compact --reader '' $in" $N compact "$in" --reader ""
  run "compact --known-at $in" $N compact "$in" --known-at 2025-06-01T00:00:00Z
  run "compact all selections $in" $N compact "$in" --as-of 2025-01-01 --concept "$concept" --reader "$party" --known-at 2026-01-01 --stats
  run "compact --policy-line $in" $N compact "$in" --policy-line
  run "compact --policy-line --reader $in" $N compact "$in" --policy-line --reader "$party"
  run "compact --map engrama $in" $N compact "$in" --map engrama --stats
  run "compact --map graphiti $in" $N compact "$in" --map graphiti --as-of 2025-01-01
  run "compact --map inverse $in" $N compact "$in" --map 'supersedes=~supersedes' --reader "$party"
  run "compact -q $in" $N -q compact "$in" --reader "$party"
  run "export --to compact $in" $N export "$in" --to compact
  run "export --to compact --map engrama $in" $N export "$in" --to compact --map engrama
  run "check $in" $N check "$in"
  run "check --map engrama $in" $N check "$in" --map engrama --json
done
echo "inputs ${#inputs[@]}, runs $runs, differences $diffs"
[ "$diffs" -eq 0 ]
