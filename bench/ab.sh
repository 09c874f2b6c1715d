#!/bin/sh
# A/B two or more vercy binaries on one store: alternate their runs (so load on a shared
# machine falls on all alike) and print each one's median wall time, median CPU (user+system)
# and largest peak RSS. Needs GNU time.
#   bench/ab.sh old/vercy target/release/vercy               # check the 1M store, 5 rounds
#   CMD=compact STORE=bench/out/store-100k.jsonl N=9 bench/ab.sh a/vercy b/vercy
#   ARGS='--format json' STORE=bench/out/messy-1m.jsonl N=7 bench/ab.sh a/vercy b/vercy
set -eu
STORE=${STORE:-bench/out/store-1m.jsonl}; N=${N:-5}; CMD=${CMD:-check}; ARGS=${ARGS:-}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
i=0
while [ "$i" -lt "$N" ]; do
  j=0
  for bin in "$@"; do
    # shellcheck disable=SC2086 # ARGS unquoted: its words are the arguments
    /usr/bin/time -f "%e %U %S %M" -a -o "$OUT/$j" "$bin" "$CMD" "$STORE" $ARGS >/dev/null 2>&1 || true
    j=$((j + 1))
  done
  i=$((i + 1))
done
j=0
for bin in "$@"; do
  python3 - "$OUT/$j" "$bin" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l[:1].isdigit()]
wall = [float(r[0]) for r in rows]
cpu = [float(r[1]) + float(r[2]) for r in rows]
print(f"{sys.argv[2]}: wall {statistics.median(wall):.3f} s, cpu {statistics.median(cpu):.3f} s "
      f"(min {min(cpu):.3f}), peak {max(int(r[3]) for r in rows) // 1024} MiB, {len(rows)} runs")
PY
  j=$((j + 1))
done
