# Sourced by the differential scripts (bench/diff_*.sh), after they set OLD, NEW and HERE: a
# scratch folder WORK (removed on exit), a fixed environment, the inputs both builds are run
# on (diff_inputs) and one run of both compared (diff_run).
# two builds that do not run would agree on every input: refuse them
for bin in "${OLD:-}" "${NEW:-}"; do
  if [ ! -x "$bin" ] || [ -d "$bin" ]; then
    echo "$0: OLD and NEW must be two vercy binaries, not '$bin' (usage: the top of $0)" >&2
    exit 2
  fi
done
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export SOURCE_DATE_EPOCH=1764633600 NO_COLOR=1 VERCY_PROGRESS=0
runs=0; diffs=0

# diff_run LABEL STDIN ARGS...: both builds, each in its folder ($WORK/a, $WORK/b; made afresh
# unless KEEP_DIRS=1, the same relative names in both), stdin from STDIN (/dev/null for none);
# stdout, stderr, the exit code and the files COMPARED names compared byte for byte.
diff_run() {
  local label=$1 stdin=$2; shift 2
  runs=$((runs + 1))
  for side in a b; do
    local bin=$OLD; [ $side = b ] && bin=$NEW
    if [ "${KEEP_DIRS:-0}" != 1 ]; then rm -rf "${WORK:?}/$side"; mkdir -p "$WORK/$side"; fi
    (cd "$WORK/$side" && "$bin" "$@" <"$stdin" >out 2>err; echo $? >rc)
  done
  local f
  for f in out err rc ${COMPARED:-}; do
    if [ -e "$WORK/a/$f" ] || [ -e "$WORK/b/$f" ]; then
      if ! cmp -s "$WORK/a/$f" "$WORK/b/$f"; then
        diffs=$((diffs + 1)); echo "DIFF $label: $f"; return
      fi
    fi
  done
}

# The inputs:
#   diff_inputs DEFAULT_COUNT [FIND_TEST ...] -- [INPUT ...]
# fills the array `inputs`: the INPUTs given (as absolute paths, since each run happens in its
# own folder), or else every file under fixtures/ and DATA (default ../shared/data/) that
# passes the FIND_TESTs, and RANDOM_STORES small generated stores (DEFAULT_COUNT unless set:
# gen_store.py, gen_messy.py in its four kinds and gen_adversarial.py in its eight, at random
# sizes; SEED fixes the kinds and sizes), in "$WORK/gen".
# Needs HERE (the checkout) and WORK (a scratch folder).
diff_inputs() {
  local count=$1; shift
  local tests=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do tests+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  inputs=()
  for f in "$@"; do inputs+=("$(realpath "$f")"); done
  [ ${#inputs[@]} -gt 0 ] && return
  while IFS= read -r f; do inputs+=("$f"); done < <(
    find "$HERE/fixtures" "${DATA:-$HERE/../shared/data}/" -type f "${tests[@]}" | sort)
  mkdir -p "$WORK/gen"
  python3 - "${RANDOM_STORES:-$count}" "${SEED:-19}" >"$WORK/sizes" <<'PY'
import random, sys
r = random.Random(int(sys.argv[2]))
kinds = ["store", "messy"] * 4 + ["messy --long-ids", "messy --path-ids", "messy --person-owners"]
kinds += ["adv " + k for k in ("pairs", "pointers", "dups", "owners", "concepts", "ids", "targets", "skew")]
for _ in range(int(sys.argv[1]) // 2):
    print(r.randint(1, 400), r.choice(kinds))
PY
  local kind size flags
  while read -r size kind flags; do
    case $kind in
      store) python3 "$HERE/bench/gen_store.py" --out "$WORK/gen" "$size" ;;
      # shellcheck disable=SC2086 # the flags' words are the arguments
      messy) python3 "$HERE/bench/gen_messy.py" --out "$WORK/gen" $flags "$size" ;;
      adv) python3 "$HERE/bench/gen_adversarial.py" --out "$WORK/gen" --records "$size" "$flags" ;;
    esac >/dev/null 2>&1
  done <"$WORK/sizes"
  while IFS= read -r f; do inputs+=("$f"); done < <(find "$WORK/gen" -type f | sort)
}
