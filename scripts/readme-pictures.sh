#!/usr/bin/env bash
# The README's pictures, made from real runs so that they show koth as it is:
#   docs/pictures/hill.png      a paths hill's page, after 30 games of the four sample bots
#   docs/pictures/replay.png    the web replay of one of its games (`koth replay DIR --html`)
#   docs/pictures/terminal.txt  the terminal viewer of the same game, as tmux shows it
# Usage: bash scripts/readme-pictures.sh    (needs chromium and tmux; builds koth first)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
cargo build --release --quiet
export PATH=$repo/target/release:$PATH
out=$repo/docs/pictures
mkdir -p "$out"
work=$(mktemp -d)
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null
    tmux kill-session -t koth-pictures 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
cp -r "$repo/bots" "$repo/config" .

# A hill of the four sample paths bots, 30 games, uncontained so that it needs no bubblewrap.
sed -e 's/^# *sandbox = .*/sandbox = false/' config/hill-paths.toml > hill.toml
grep -q '^sandbox = false' hill.toml || echo 'sandbox = false' >> hill.toml
koth hill create hill.toml --dir hill > /dev/null
koth hill add bots/paths-checkpoint bots/paths-column bots/paths-destroyer \
    bots/paths-random-builder --hill hill > /dev/null
koth hill run hill --games 30 > /dev/null 2>&1

# --timeout stops the page's loading after 4 s, its live updates (which never end) included.
shot() { # URL or file, picture, width, height
    timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --timeout=4000 \
        --window-size="$3,$4" --screenshot="$2" "$1" > /dev/null 2>&1
}
port=$((20000 + RANDOM % 20000))
koth serve hill --serve "127.0.0.1:$port" > /dev/null 2>&1 &
server=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
shot "http://127.0.0.1:$port/" "$out/hill.png" 1400 900

game=$(ls -d hill/games/* | sort -t/ -k3 -n | tail -1)
koth replay "$game" --html replay.html > /dev/null
shot "file://$work/replay.html" "$out/replay.png" 1400 900

tmux new-session -d -s koth-pictures -x 120 -y 34 "koth replay $game; sleep 5"
sleep 2
tmux send-keys -t koth-pictures N N n n n
sleep 1
tmux capture-pane -p -t koth-pictures | sed -e 's/[[:space:]]*$//' > "$out/terminal.txt"
# The capture drawn as a terminal draws it, for the README.
{
    echo '<!doctype html><meta charset="utf-8"><body style="margin:0;background:#1e1e1e">'
    echo '<pre style="margin:0;padding:8px;color:#ddd;font:14px/1.15 DejaVu Sans Mono,monospace">'
    sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' "$out/terminal.txt"
    echo '</pre>'
} > terminal.html
shot "file://$work/terminal.html" "$out/terminal.png" 1020 600
echo "wrote $out/hill.png, $out/replay.png, $out/terminal.txt, $out/terminal.png"
