#!/usr/bin/env bash
# Newcomer check: clone this repository into a temporary folder and run the commands of the
# README's "Set up" section exactly as written, the way someone new to the project would.
# `cargo install` goes to a temporary CARGO_INSTALL_ROOT (put first on PATH), so nothing
# outside the temporary folder changes.
#
#   scripts/newcomer-check.sh                 # clone this checkout's HEAD and run the commands
#   scripts/newcomer-check.sh --print         # only print the commands it would run
#   scripts/newcomer-check.sh --keep [REPO]   # keep the temporary folder; clone REPO (a path or URL)
#
# Exit status: 0 when every command succeeded, else the failing command's status.
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
keep=false
print=false
repo=""
for arg in "$@"; do
  case $arg in
    --keep) keep=true ;;
    --print) print=true ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) repo=$arg ;;
  esac
done
repo=${repo:-$here}

# The shell commands in the fenced blocks of the README's "## Set up" section, one a line.
setup_commands() {
  awk '
    /^## / { in_setup = ($0 ~ /^## Set up[[:space:]]*$/); next }
    in_setup && /^```/ { in_code = !in_code; next }
    in_setup && in_code && NF && $1 !~ /^#/ { print }
  ' "$1"
}

if $print; then
  setup_commands "$here/README.md"
  exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vercy-newcomer.XXXXXX")
cleanup() { if $keep; then echo "kept: $tmp"; else rm -rf "$tmp"; fi; }
trap cleanup EXIT

echo "== cloning $repo into $tmp/vercy"
git clone --quiet "$repo" "$tmp/vercy" || exit $?
cd "$tmp/vercy" || exit 1
echo "   at $(git log -1 --format='%h %s')"

mapfile -t commands < <(setup_commands README.md)
if [ ${#commands[@]} -eq 0 ]; then
  echo "no commands found in the README's \"Set up\" section" >&2
  exit 1
fi

# A newcomer's environment: a private install root first on PATH, no shared target folder.
export CARGO_INSTALL_ROOT="$tmp/cargo-root"
export PATH="$CARGO_INSTALL_ROOT/bin:$PATH"
unset CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR

status=0
for cmd in "${commands[@]}"; do
  echo "== \$ $cmd"
  start=$(date +%s)
  bash -c "$cmd"
  status=$?
  echo "   exit $status after $(( $(date +%s) - start )) s"
  [ $status -eq 0 ] || break
done
if [ $status -eq 0 ]; then
  installed=$(command -v vercy)
  case $installed in
    "$CARGO_INSTALL_ROOT"/*) echo "== ok: every set-up command passed; vercy was installed to $installed" ;;
    *) echo "vercy resolved to $installed, not the fresh install" >&2; status=1 ;;
  esac
fi
exit $status
