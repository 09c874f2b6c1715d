#!/bin/sh
# Build vercy in release mode, then time it side by side with the reference checker
# (vercy==0.2.0, REF_VERCY), jq and `wc -l` on generated stores: bench/run.py --help.
# Needs python3, jq and GNU time (`apt-get install -y jq time`).
set -eu
cd "$(dirname "$0")/.."
cargo build --release --quiet
exec python3 bench/run.py "$@"
