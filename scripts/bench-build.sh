#!/usr/bin/env bash
# What a contributor waits for: the rebuild of the tests (`cargo test --release --no-run`) and of
# the release binary after one line changed in a game's rules, in the bot layer and in the web
# layer, and, with `--clean`, a clean release build and the tests' first build after it. Figures
# in docs/benchmarks.md ("Building koth"); run it on an otherwise idle machine.
#
# The one-line change is a new item at the end of the file (`const _: u32 = 1;`), so the
# crate's interface changes as it does under a real edit; the file is restored afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds() { local start=$SECONDS; "$@" >/dev/null 2>&1; echo $((SECONDS - start)); }

if [ "${1:-}" = "--clean" ]; then
  cargo fetch >/dev/null 2>&1
  cargo clean >/dev/null 2>&1
  release=$(seconds cargo build --release)
  tests=$(seconds cargo test --release --no-run)
  echo "clean release build: ${release} s; the tests' first build after it: ${tests} s; together: $((release + tests)) s"
fi

cargo build --release >/dev/null 2>&1
cargo test --release --no-run >/dev/null 2>&1
for file in crates/games/paths/src/rules.rs crates/bot/src/seat.rs crates/serve/src/lib.rs; do
  cp "$file" "$file.before"
  echo "const _: u32 = 1;" >>"$file"
  release=$(seconds cargo build --release)
  echo "const _: u32 = 2;" >>"$file"
  tests=$(seconds cargo test --release --no-run)
  mv "$file.before" "$file"
  touch "$file" # newer than the build, which is of the changed file
  cargo test --release --no-run >/dev/null 2>&1 # the next file's change starts from a full build
  echo "one line in $file: the release binary rebuilds in ${release} s, the tests in ${tests} s"
done
