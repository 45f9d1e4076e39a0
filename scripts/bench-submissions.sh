#!/usr/bin/env bash
# The hill's door for strangers, measured: see scripts/bench-submissions.py (figures in
# docs/submissions.md).
#   bash scripts/bench-submissions.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
python3 scripts/bench-submissions.py target/release/koth
