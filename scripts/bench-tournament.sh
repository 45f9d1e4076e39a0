#!/usr/bin/env bash
# Times a 100-game paths tournament of 4 bots at 10 rounds a game, all games at once as the
# machine's cores allow. The figures go in docs/benchmarks.md.
#   bash scripts/bench-tournament.sh                 4 instant bots: koth's own overhead
#   bash scripts/bench-tournament.sh bots/paths-*    the given bot folders (the sample bots)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ $# -gt 0 ]; then
  bots=("$@")
else
  gcc -O2 -o "$work/instant" scripts/instant-bot.c
  bots=()
  for i in 1 2 3 4; do
    mkdir -p "$work/instant$i"
    cp "$work/instant" "$work/instant$i/"
    printf 'name = "Instant %d"\nrun = "./instant"\ngames = ["paths"]\n' "$i" > "$work/instant$i/bot.toml"
    bots+=("$work/instant$i")
  done
fi
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
