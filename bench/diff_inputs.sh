# Sourced by the differential scripts (bench/diff_*.sh): the inputs both builds are run on.
#   diff_inputs DEFAULT_COUNT [FIND_TEST ...] -- [INPUT ...]
# fills the array `inputs`: the INPUTs given (as absolute paths, since each run happens in its
# own folder), or else every file under fixtures/ and DATA (default ../shared/data/) that
# passes the FIND_TESTs, and RANDOM_STORES small generated stores (DEFAULT_COUNT unless set:
# gen_store.py and gen_messy.py at random sizes; SEED fixes the sizes), in "$WORK/gen".
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
for _ in range(int(sys.argv[1]) // 2):
    print(r.choice(["store", "messy"]), r.randint(1, 400))
PY
  local kind size
  while read -r kind size; do
    if [ "$kind" = store ]; then
      python3 "$HERE/bench/gen_store.py" --out "$WORK/gen" "$size" >/dev/null 2>&1
    else
      python3 "$HERE/bench/gen_messy.py" --out "$WORK/gen" "$size" >/dev/null 2>&1
    fi
  done <"$WORK/sizes"
  while IFS= read -r f; do inputs+=("$f"); done < <(find "$WORK/gen" -type f | sort)
}
