#!/usr/bin/env bash
# Run the fuzz targets one after another, each for SECONDS (default 300), seeding the store
# and check targets with the fixtures. Needs the nightly toolchain and cargo-fuzz:
#   cargo install cargo-fuzz
#   fuzz/run.sh 300                  # every target, 5 minutes each
#   fuzz/run.sh 60 date_parse        # one target, one minute
# A crash leaves its input in fuzz/artifacts/<target>/; copy it to tests/fuzz-corpus/<target>/
# so `cargo test --test cli fuzz_regressions::` replays it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(store_read compact_line date_parse field_map check_bytes)
fi

seed() { # seed TARGET DIR...: copy small fixtures and past crashes into the target's corpus
  local target=$1; shift
  mkdir -p "fuzz/corpus/$target"
  for dir in "$@" "fuzz/seeds/$target" "tests/fuzz-corpus/$target"; do
    [ -d "$dir" ] || continue
    find "$dir" -maxdepth 1 -type f -size -64k ! -name '*.md' ! -name '*.args' \
      -exec cp -n {} "fuzz/corpus/$target/" \;
  done
}
seed store_read fixtures fixtures/edge fixtures/bad fixtures/quirks fixtures/expected
seed check_bytes fixtures fixtures/edge fixtures/bad fixtures/quirks
seed compact_line
seed date_parse
seed field_map

# -detect_leaks=0: the reader decodes on rayon's pool, whose threads live for the whole run;
# LeakSanitizer reports their thread-local destructor registrations (32 bytes) as leaks.
failed=()
for target in "${targets[@]}"; do
  echo "== $target ($seconds s)"
  cargo +nightly fuzz run "$target" "fuzz/corpus/$target" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -detect_leaks=0 \
    || failed+=("$target")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "crashes in: ${failed[*]} (inputs in fuzz/artifacts/)"
  exit 1
fi
