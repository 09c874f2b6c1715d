#!/bin/sh
# Linear time and bounded memory (issue 51): check the clean and the messy 1M store and stores
# K times their size, and print each one's median wall time, CPU, largest peak RSS and its time
# over the 1M's. Needs GNU time and python3.
#   bench/scale.sh target/release/vercy                        # 1M and 10M, 3 runs each
#   SIZES='1 10 30' N=1 ARGS='--format json' bench/scale.sh target/release/vercy
#   KINDS=messy CMD=compact ARGS="--as-of 2024-01-01" bench/scale.sh target/release/vercy
#   N=0 SIZES='1 10' bench/scale.sh target/release/vercy        # only write the stores
# DIR (default /work/bench-data) holds the stores: store-1m.jsonl and messy-1m.jsonl are
# written by gen_store.py and gen_messy.py when missing, a store of K million as K copies of
# the 1M one with its ids and concepts renamed per copy (`"R-` → `"R<k>-`, `concept_<digit>` →
# `concept<k>_<digit>`, so the key `concept_owner` stays: K times the ids, concepts, owners'
# pairs, conflicts and findings), written once and kept (4.5 GB a 10M store; remove the large
# ones when done).
# The runs alternate the sizes, so load on a shared machine falls on all alike.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
VERCY=$(realpath "$1")
DIR=${DIR:-/work/bench-data}; SIZES=${SIZES:-1 10}; N=${N:-3}
KINDS=${KINDS:-store messy}; CMD=${CMD:-check}; ARGS=${ARGS:---quiet}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

one_m() { # the 1M store of a kind
  case $1 in
    store) [ -f "$DIR/store-1m.jsonl" ] || python3 "$HERE/gen_store.py" --out "$DIR" 1m ;;
    messy) [ -f "$DIR/messy-1m.jsonl" ] || python3 "$HERE/gen_messy.py" --out "$DIR" 1m ;;
  esac
  echo "$DIR/$1-1m.jsonl"
}

store_of() { # the store of a kind and a size in millions, written when missing
  base=$(one_m "$1")
  [ "$2" = 1 ] && { echo "$base"; return; }
  path="$DIR/$1-${2}m.jsonl"
  if [ ! -f "$path" ]; then
    k=0
    while [ "$k" -lt "$2" ]; do
      sed -e "s/\"R-/\"R$k-/g" -e "s/concept_\([0-9]\)/concept${k}_\1/g" "$base"
      k=$((k + 1))
    done >"$path.tmp"
    mv "$path.tmp" "$path"
    echo "wrote  $path ($(wc -c <"$path") bytes)" >&2
  fi
  echo "$path"
}

for kind in $KINDS; do for size in $SIZES; do store_of "$kind" "$size" >/dev/null; done; done
[ "$N" = 0 ] && exit 0 # N=0: only write the stores

i=0
while [ "$i" -lt "$N" ]; do
  for kind in $KINDS; do for size in $SIZES; do
    # shellcheck disable=SC2086 # ARGS unquoted: its words are the arguments
    # the exit status is kept: 1 is a report below the level, anything else a failure
    /usr/bin/time -f "%e %U %S %M %x" -a -o "$OUT/$kind-$size" \
      "$VERCY" "$CMD" "$(store_of "$kind" "$size")" $ARGS >/dev/null 2>&1 || true
  done; done
  i=$((i + 1))
done

echo "$CMD $ARGS, $N runs each, load $(cut -d' ' -f1-3 /proc/loadavg)"
for kind in $KINDS; do
  python3 - "$OUT" "$kind" $SIZES <<'PY'
import statistics, sys
out, kind, sizes = sys.argv[1], sys.argv[2], sys.argv[3:]
first = None
for size in sizes:
    rows = [l.split() for l in open(f"{out}/{kind}-{size}") if l[:1].isdigit()]
    failed = [r[4] for r in rows if r[4] not in ("0", "1")]
    if failed:
        print(f"{kind}-{size}m: FAILED, exit status {', '.join(failed)}")
        continue
    wall = statistics.median(float(r[0]) for r in rows)
    cpu = statistics.median(float(r[1]) + float(r[2]) for r in rows)
    peak = max(int(r[3]) for r in rows) // 1024
    first = first or (wall, int(size))
    times = wall / first[0]
    print(f"{kind}-{size}m: wall {wall:.2f} s (min {min(float(r[0]) for r in rows):.2f}), "
          f"cpu {cpu:.2f} s, peak {peak} MiB, {times:.2f}× the {first[1]}M's time "
          f"for {int(size) / first[1]:g}× the records")
PY
done
