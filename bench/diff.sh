#!/bin/sh
# vercy diff on two versions of a messy store against vercy check on one of them, runs
# alternated (so load on a shared machine falls on both alike): the median wall time, median
# CPU (user+system) and largest peak RSS of each. Needs GNU time.
#   bench/gen_diff.py /work/bench-data/messy-1m.jsonl       # makes the two versions (once)
#   bench/diff.sh target/release/vercy                       # 5 rounds
#   BASE=… HEAD=… N=7 bench/diff.sh target/release/vercy
set -eu
BIN=$1
BASE=${BASE:-/work/bench-data/messy-1m-base.jsonl}
HEAD=${HEAD:-/work/bench-data/messy-1m-edited.jsonl}
N=${N:-5}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
i=0
while [ "$i" -lt "$N" ]; do
  /usr/bin/time -f "%e %U %S %M" -a -o "$OUT/check" "$BIN" check "$HEAD" --format json >/dev/null 2>&1 || true
  /usr/bin/time -f "%e %U %S %M" -a -o "$OUT/diff" "$BIN" diff "$BASE" "$HEAD" --format json >"$OUT/report.json" 2>"$OUT/err" || {
    rc=$?
    [ "$rc" = 1 ] || { cat "$OUT/err" >&2; echo "vercy diff exited $rc" >&2; exit 1; }
  }
  i=$((i + 1))
done
for what in check diff; do
  python3 - "$OUT/$what" "$what" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l[:1].isdigit()]
wall = [float(r[0]) for r in rows]
cpu = [float(r[1]) + float(r[2]) for r in rows]
print(f"{sys.argv[2]}: wall {statistics.median(wall):.2f} s (min {min(wall):.2f}), "
      f"cpu {statistics.median(cpu):.2f} s, peak {max(int(r[3]) for r in rows) // 1024} MiB, "
      f"{len(rows)} runs")
PY
done
python3 - "$OUT/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("diff found:", r["counts"], "added", r["added"], "unchanged", r["unchanged"])
PY
