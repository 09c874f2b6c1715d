#!/bin/sh
# The chroma: source against the same records as JSON lines, one vercy: bench/ab.sh runs the
# two stores alternated, as it runs two builds, and prints each one's median wall time, CPU
# and peak memory. Needs the store bench/gen_chroma.py writes (with --vercy, for the JSON
# lines beside it).
#   bench/chroma.sh target/release/vercy                        # check --map chroma, 5 rounds
#   CMD=compact ARGS='--map chroma --reader finance' N=7 bench/chroma.sh target/release/vercy
#   DIR=/work/bench-data SIZE=1m bench/chroma.sh target/release/vercy
set -eu
VERCY=$(realpath "$1")
DIR=$(realpath "${DIR:-bench/out}"); SIZE=${SIZE:-1m}
export ARGS="${ARGS:---map chroma}"
RUN=$(mktemp -d)
trap 'rm -rf "$RUN"' EXIT
# ab.sh calls each "binary" as BIN CMD STORE ARGS: each of these reads its own store instead
for pair in "chroma-$SIZE chroma:$DIR/chroma-$SIZE#bench" "jsonl-$SIZE $DIR/chroma-$SIZE.jsonl"; do
  name=${pair%% *}
  printf '#!/bin/sh\ncmd=$1; shift 2\nexec %s "$cmd" %s "$@"\n' "$VERCY" "'${pair#* }'" > "$RUN/$name"
  chmod +x "$RUN/$name"
done
cd "$(dirname "$0")/.."
STORE=- bench/ab.sh "$RUN/chroma-$SIZE" "$RUN/jsonl-$SIZE"
