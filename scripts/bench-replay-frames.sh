#!/usr/bin/env bash
# Whether the web replay of a 100-round paths game plays smoothly: plays a game of ROUNDS rounds
# (default 100) of the sample bots in bots/ (or of the BOT_DIRs given), seed SEED (default 1),
# writes its page with `koth replay --html`, opens it in headless Chromium, presses play at the
# fastest speed and records a performance trace for SECONDS seconds (default 20), then prints
# the page's load time and the renderer main thread's work per frame, in wall and in CPU time:
# median, 95th percentile, maximum, and the frames over 16 ms (scripts/replay-frames-trace.py).
# The game, the page and the trace (open it in DevTools' Performance panel) stay in
# target/bench-replay-frames/. The figures go in docs/benchmarks.md.
#   bash scripts/bench-replay-frames.sh [SECONDS] [SEED] [ROUNDS] [BOT_DIR...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
seed=${2:-1}
rounds=${3:-100}
shift $(( $# < 3 ? $# : 3 ))
bots=()
for dir in "$@"; do
  bots+=(--bot "$dir")
done
cargo build --release --quiet
koth=$PWD/target/release/koth
out=$PWD/target/bench-replay-frames
rm -rf "$out"
mkdir -p "$out"
echo "seed $seed"
start=$(date +%s)
"$koth" paths --rounds "$rounds" --seed "$seed" "${bots[@]}" --log-dir "$out/game" > "$out/game.txt" 2>&1 || { cat "$out/game.txt"; exit 1; }
players=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["bots"]))' "$out/game/results.json")
echo "a $rounds-round game of $players bots played in $(( $(date +%s) - start )) s"
"$koth" replay "$out/game" --html "$out/game.html" > /dev/null
echo "page: $out/game.html ($(( $(stat -c %s "$out/game.html") / 1024 )) KiB); load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
python3 scripts/replay-frames-trace.py "$out/game.html" "$seconds" "$out/trace.json"
echo "trace: $out/trace.json"
