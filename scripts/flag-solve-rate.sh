#!/usr/bin/env bash
# In how many of RUNS seeded GA runs (seeds 1..RUNS, 10,000 generations at most, the seed's
# parameters) does `koth flag solve` solve each shipped level, and after how many generations?
# Prints a Markdown table for docs/benchmarks.md. Usage: scripts/flag-solve-rate.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
cargo build --release --quiet
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
echo "| level | optimum (moves) | solved | median generation | mean GA length |"
echo "|---|---|---|---|---|"
for level in levels/flag/[0-9]*.txt; do
    name=$(basename "$level" .txt)
    optimum=$(./target/release/koth flag exact "$level" | grep -o 'in [0-9]* moves' | grep -o '[0-9]*')
    gens=()
    lengths=()
    for seed in $(seq 1 "$runs"); do
        out=$(./target/release/koth flag solve "$level" --seed "$seed" --no-animate \
            --report-every 1000000 --log-dir "$logs")
        if g=$(grep -o 'solved at generation [0-9]*' <<<"$out" | grep -o '[0-9]*$'); then
            gens+=("$g")
            lengths+=("$(grep -o 'fitness [-0-9]*, [0-9]* steps' <<<"$out" | grep -o '[0-9]* steps' | grep -o '[0-9]*')")
        fi
    done
    solved=${#gens[@]}
    if ((solved > 0)); then
        median=$(printf '%s\n' "${gens[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
        mean=$(printf '%s\n' "${lengths[@]}" | awk '{s+=$1} END {printf "%.1f", s/NR}')
    else
        median=-
        mean=-
    fi
    echo "| $name | $optimum | $solved/$runs | $median | $mean |"
done
