#!/usr/bin/env bash
# CI, the packaging part (.ci/run calls it after the test suite):
#  1. the tools, idempotently: maturin and pre-commit (PyPI, in target/eco-venv);
#  2. the wheel: built by maturin, installed into a fresh venv, and `vercy check` run from it;
#  3. the pre-commit hooks of .pre-commit-hooks.yaml, run by the real pre-commit in a scratch
#     git repository holding a good and a bad store.
# CI builds the wheel with the dev profile (VERCY_WHEEL_PROFILE): the release profile's thin
# LTO over one codegen unit is a full optimised build on two cores, and what is tested here is
# the packaging, not the optimiser. `pip install .` and `maturin build` without it use release.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
py=/usr/bin/python3
pip_quiet=(--quiet --disable-pip-version-check)
profile=${VERCY_WHEEL_PROFILE:-dev}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)

fail() {
  echo "ecosystem: $*" >&2
  exit 1
}

# -- 1. tools ----------------------------------------------------------------------------
eco=target/eco-venv
tools=('maturin>=1.9,<2' 'pre-commit>=4,<5')
mkdir -p target
[ -x "$eco/bin/python" ] || "$py" -m venv "$eco"
if [ "$(cat "$eco/.requirements" 2>/dev/null)" != "${tools[*]}" ]; then
  "$eco/bin/pip" install "${pip_quiet[@]}" "${tools[@]}"
  echo "${tools[*]}" >"$eco/.requirements"
fi

# -- the hooks' repository and environments ----------------------------------------------
# The hooks are taken from this checkout's committed HEAD, as `rev:` takes them from a tag.
if [ -n "$(git status --porcelain -- .pre-commit-hooks.yaml pyproject.toml Cargo.toml)" ]; then
  echo "ecosystem: note: the hook test uses HEAD; the hook files have uncommitted changes" >&2
fi
rev=$(git rev-parse HEAD)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
(
  cd "$scratch"
  git init -q -b main .
  git config user.email ci@example.invalid
  git config user.name ci
  mkdir stores
  cp "$root/fixtures/reference-store.jsonl" stores/good.jsonl
  cp "$root/fixtures/formats/mem0_memories.jsonl" stores/bad.jsonl
  echo '{"name": "not-a-store"}' >package.json
  cat >.pre-commit-config.yaml <<EOF
repos:
  - repo: $root
    rev: $rev
    hooks:
      - id: vercy-check
        args: [--min-level, "2"]
      - id: vercy-check-system
        args: [--min-level, "2", --map, mem0]
      - id: vercy-diff-system
EOF
  git add -A
)
# pre-commit, its environments kept between runs in target/pre-commit-home. It pip-installs
# this repository for the python hook, and maturin builds it with the dev profile in the
# checkout's own target directory and profile settings: only vercy is compiled, its
# dependencies are the tests'. A path package's build does not depend on its folder, so cargo
# takes the clone's vercy for the checkout's: where the checkout differs from HEAD, its
# fingerprints are dropped afterwards and its next build compiles it again.
target_dir=${CARGO_TARGET_DIR:-$root/target}
pre_commit() {
  PRE_COMMIT_HOME="$root/target/pre-commit-home" MATURIN_PEP517_ARGS="--profile $profile" \
    CARGO_TARGET_DIR="$target_dir" "$root/$eco/bin/pre-commit" "$@"
}
forget_the_hook_build() {
  if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
    rm -rf "$target_dir"/debug/.fingerprint/vercy-*
  fi
}

# -- 2. the wheel ------------------------------------------------------------------------
rm -f target/wheels/vercy-*.whl
"$eco/bin/maturin" build --quiet --profile "$profile" --out target/wheels
wheel=$(ls target/wheels/vercy-"$version"-py3-none-*.whl) || fail "no wheel for $version"
rm -rf target/wheel-venv
"$py" -m venv target/wheel-venv
target/wheel-venv/bin/pip install "${pip_quiet[@]}" --no-index "$wheel"
vercy=target/wheel-venv/bin/vercy
[ "$("$vercy" --version)" = "vercy $version" ] || fail "the wheel's vercy says $("$vercy" --version)"

set +e
out=$("$vercy" check fixtures/reference-store.jsonl --min-level 3 2>&1)
rc=$?
set -e
[ "$rc" = 0 ] || fail "the wheel's vercy check exited $rc on the reference store: $out"
grep -q 'level 3 of 3 · pass (needs level 3) · 31 records' <<<"$out" ||
  fail "the wheel's vercy check printed: $out"
set +e
out=$("$vercy" check fixtures/formats/mem0_memories.jsonl --min-level 2 2>&1)
rc=$?
set -e
[ "$rc" = 1 ] || fail "a store below --min-level made the wheel's vercy exit $rc, not 1: $out"
grep -q 'level 0 of 3 · FAIL (needs level 2)' <<<"$out" || fail "below the level it printed: $out"
echo "ecosystem: $(basename "$wheel") installs and checks (exit 0 at level 3, 1 below; $SECONDS s)"

# -- 3. pre-commit -----------------------------------------------------------------------
trap 'forget_the_hook_build; rm -rf "$scratch"' EXIT
(
  cd "$scratch"
  run() { # expected exit code, hook id, files...
    local want=$1 hook=$2
    shift 2
    set +e
    PATH="$root/target/wheel-venv/bin:$PATH" pre_commit run "$hook" \
      --color never --files "$@" >"$scratch/out" 2>&1
    local rc=$?
    set -e
    [ "$rc" = "$want" ] || { cat "$scratch/out" >&2; fail "pre-commit $hook on $* exited $rc, not $want"; }
  }
  run 0 vercy-check stores/good.jsonl
  grep -q '^vercy check\.*Passed' "$scratch/out" || { cat "$scratch/out"; fail "vercy-check did not pass"; }
  run 1 vercy-check stores/good.jsonl stores/bad.jsonl
  grep -q 'stores/bad.jsonl' "$scratch/out" && grep -q 'FAIL (needs level 2)' "$scratch/out" ||
    { cat "$scratch/out"; fail "vercy-check's failure does not name the bad store"; }
  run 0 vercy-check package.json
  grep -q 'no files to check' "$scratch/out" || { cat "$scratch/out"; fail "package.json was checked"; }
  # the map reaches vercy: through mem0's map the offenders are named by their ids, not #N
  run 1 vercy-check-system stores/bad.jsonl
  grep -q '87986bc4-97d3-4720-9d90-7ab5ca9ad0d7' "$scratch/out" ||
    { cat "$scratch/out"; fail "--map mem0 did not reach vercy check"; }
  run 0 vercy-check-system package.json
  # vercy diff against HEAD: a store only added to passes, one edited in place fails
  git commit -q -m stores
  cp "$root/fixtures/diff/base.jsonl" stores/history.jsonl
  git add stores/history.jsonl
  run 0 vercy-diff-system stores/history.jsonl # new: nothing to compare
  git commit -q -m history
  cp "$root/fixtures/diff/clean.head.jsonl" stores/history.jsonl
  run 0 vercy-diff-system stores/history.jsonl
  cp "$root/fixtures/diff/edited.head.jsonl" stores/history.jsonl
  run 1 vercy-diff-system stores/history.jsonl
  grep -q 'history.edited' "$scratch/out" || { cat "$scratch/out"; fail "vercy-diff did not name the edit"; }
)
echo "ecosystem: pre-commit passes the good store, fails the bad one, skips package.json; vercy-diff fails an edit ($SECONDS s)"
