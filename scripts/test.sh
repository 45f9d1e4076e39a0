#!/usr/bin/env bash
# Installs what the tests need, then runs every check and test: formatting, clippy, and the test
# suite in release mode (the integration tests run real games, so one optimised build serves all).
set -euo pipefail
cd "$(dirname "$0")/.."

# Tools the sample bots and tests use. python3, node, gcc come with the Rust machine image;
# anything missing is installed from Debian's packages.
need=()
command -v python3 >/dev/null || need+=(python3)
command -v node >/dev/null || need+=(nodejs)
command -v gcc >/dev/null || need+=(gcc)
# Containment (`--sandbox`, tournaments' default) runs bots under bubblewrap; the sample Java bot
# is built with javac.
command -v bwrap >/dev/null || need+=(bubblewrap)
command -v javac >/dev/null || need+=(default-jdk-headless)
# Mad Cars' physics is Chipmunk 7, Debian's libchipmunk7, which koth opens when the game is
# played.
ldconfig -p | grep 'libchipmunk\.so\.7 ' >/dev/null || need+=(libchipmunk7)
# The web replay viewer's test renders the page in headless Chromium; the dashboard's tests
# drive it through WebDriver (chromedriver).
command -v chromium >/dev/null || need+=(chromium)
command -v chromedriver >/dev/null || need+=(chromium-driver)
# WASI bots (tests/it/wasm.rs, bots/wasi/, benches/wasm.rs) are C compiled to WebAssembly by
# Debian's clang with its wasm32 linker, C library and runtime.
command -v clang >/dev/null || need+=(clang)
command -v wasm-ld >/dev/null || command -v wasm-ld-14 >/dev/null || need+=(lld)
[ -e /usr/lib/wasm32-wasi/libc.a ] || need+=(wasi-libc)
ls /usr/lib/llvm-*/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a >/dev/null 2>&1 \
  || need+=(libclang-rt-dev-wasm32)
# PostgreSQL for the workers' tests, which start a server of their own (tests/it/support/postgres.rs).
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
# The sample Zig bot (bots/wasi/ttt-zig) is built with PyPI's Zig compiler.
python3 -c 'import ziglang' 2>/dev/null || python3 -m pip install --quiet ziglang
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

cargo fmt --all -- --check
cargo clippy --release --all-targets -- -D warnings
cargo test --release

# The signal tests once more, started as a long job often is: in the background of a script
# (SIGINT and SIGQUIT ignored), under nohup (SIGHUP ignored), in a session of its own with no
# terminal and no input. Each test sets the signal dispositions it relies on
# (tests/it/support/signals.rs); this keeps it so.
log=target/detached-signal-tests.log
setsid --wait nohup cargo test --release --test it -- tournament_guard \
  paths_faults::interrupting </dev/null >"$log" 2>&1 &
if ! wait $!; then
  cat "$log"
  echo "the signal tests failed when started detached (above)"
  exit 1
fi
tail -n 3 "$log"
