#!/usr/bin/env bash
# Times a 100-game paths tournament of 4 sample bots at 10 rounds a game, all games at once as
# the machine's cores allow. The figure goes in the README ("## Tournaments").
#   bash scripts/bench-tournament.sh [BOT_FOLDER...]   (default: the first 4 bots/paths-*)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
if [ $# -gt 0 ]; then bots=("$@"); else mapfile -t bots < <(ls -d bots/paths-*/ | head -4); fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
list=""
for b in "${bots[@]}"; do list+="\"$(realpath "$b")\", "; done
cat > "$work/bench.toml" <<TOML
game = "paths"
bots = [${list%, }]
games = 100
rounds = 10
answer_ms = 1000
clock = "cpu"
seed = 1
TOML
echo "bots: ${bots[*]}; cores: $(nproc)"
start=$(date +%s.%N)
./target/release/koth tournament run "$work/bench.toml" --dir "$work/t" > "$work/out.txt"
end=$(date +%s.%N)
cat "$work/out.txt"
awk -v s="$start" -v e="$end" 'BEGIN { printf "100 games x 10 rounds: %.1f s (%.2f s a game)\n", e - s, (e - s) / 100 }'
