#!/usr/bin/env bash
# Do two koth binaries play the same games? Each plays, with fixed seeds, a small tournament of
# each of the five games (paths, ratrace, tictactoe, flag, madcars) and a small hill of each game
# a hill can hold (paths, tictactoe, madcars: a hill ranks bots by games against each other, so
# the rat race and flag, played alone, have none), from the sample bots; then every game's files,
# the leaderboard's JSON and the database's games, seats and results are compared byte for byte,
# after stripping only what differs from run to run of one binary (the list below). Prints a
# table (game, tournament, hill, the first differing file) and a diff excerpt of each difference;
# exits 1 on any difference. A refactor that should change nothing for users (issue 54) passes
# it against the binary it started from. About 2 minutes on 2 cores; ARCHITECTURE.md, "Invariants".
#   [KEEP=DIR] [SANDBOX=false] bash scripts/same-games.sh OLD NEW
# OLD and NEW are koth binaries (say a copy of target/release/koth from before the change, and
# target/release/koth after it). KEEP=DIR keeps both runs' folders in DIR, absent or empty (by
# default they are kept only when a difference is found); SANDBOX=false plays the bots
# uncontained, for a machine without bubblewrap.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
repo=$PWD
sandbox=${SANDBOX:-true}
if [ -n "${KEEP:-}" ]; then
  work=$(realpath -m "$KEEP")
  if [ -n "$(ls -A "$work" 2>/dev/null)" ]; then
    echo "KEEP=$KEEP is not empty" >&2
    exit 2
  fi
  mkdir -p "$work"
else
  work=$(mktemp -d /tmp/koth-same-games-XXXXXX)
fi
start=$SECONDS

tournament_games=(paths ratrace tictactoe flag madcars)
hill_games=(paths tictactoe madcars)


# The inputs, written once for both binaries: small versions of config/'s files. Every game
# plays one at a time (jobs = 1), so the games a hill chooses and a learning bot's data
# (MENACE's matchboxes) follow the same order in both runs. The time limits are generous so
# that a busy machine does not make a bot time out in one run and not the other (a timeout
# changes the game).
write_inputs() {
  local dir=$1 bots=$1/bots
  mkdir -p "$dir"
  # Limits and settings every file shares.
  local common="answer_ms = 5000
clock = \"cpu\"
backstop_ms = 30000
jobs = 1
seed = 7
sandbox = $sandbox"
  cat >"$dir/tournament-paths.toml" <<EOF
game = "paths"
bots = ["$bots/paths-checkpoint", "$bots/paths-column", "$bots/paths-destroyer", "$bots/paths-random-builder"]
games = 6
rounds = 5
players_per_game = 3
$common
EOF
  # Both protocols (text and lean), in C and in Python.
  cat >"$dir/tournament-ratrace.toml" <<EOF
game = "ratrace"
bots = ["$bots/ratrace-colorscore-c", "$bots/ratrace-colorscore-py", "$bots/ratrace-lean-c", "$bots/ratrace-lean-py"]
games = 4
rounds = 2
players_per_game = 1
record_boards = "all"
$common
EOF
  cat >"$dir/tournament-tictactoe.toml" <<EOF
game = "tictactoe"
bots = ["$bots/ttt-python", "$bots/ttt-js", "$bots/ttt-java", "$bots/ttt-menace-py"]
games = 6
rounds = 4
players_per_game = 2
$common
EOF
  cat >"$dir/tournament-flag.toml" <<EOF
game = "flag"
bots = ["$bots/flag-solver-py"]
games = 1
players_per_game = 1
$common
EOF
  cat >"$dir/tournament-madcars.toml" <<EOF
game = "madcars"
bots = ["$bots/madcars-keepaway-c", "$bots/madcars-keepaway-js", "$bots/madcars-keepaway-py", "$bots/madcars-random-py"]
games = 4
rounds = 2
players_per_game = 2
$common
EOF
  # Hills: few placement games, so that the choice of opponents (near and far) plays too.
  cat >"$dir/hill-paths.toml" <<EOF
game = "paths"
players_per_game = 3
min_players = 2
rounds = 5
placement_games = 2
$common
EOF
  cat >"$dir/hill-tictactoe.toml" <<EOF
game = "tictactoe"
rounds = 4
players_per_game = 2
placement_games = 2
$common
EOF
  cat >"$dir/hill-madcars.toml" <<EOF
game = "madcars"
rounds = 1
players_per_game = 2
placement_games = 2
$common
EOF
}
declare -A hill_bots=(
  [paths]="paths-checkpoint paths-column paths-destroyer paths-random-builder"
  [tictactoe]="ttt-python ttt-js ttt-menace-py"
  [madcars]="madcars-keepaway-c madcars-random-py madcars-keepaway-py"
)
# A hill of tictactoe or madcars plays its games in one `koth hill run --games N`. A paths
# hill plays one game per run: its matchmaking pairs versions by the points fit (a placement
# game's, by the online ratings), and the hill refits on a thread of its own every 500 ms, so
# within one run which games the fit has seen when the next game is chosen follows the clock.
# A run of one game fits every game before it as it starts, so its choice is the same every time.
hill_games_played=6

# KOTH SIDE: plays everything with KOTH in $work/play, then moves it to $work/SIDE. Both
# binaries play in the same folder, from fresh copies of bots/ (a build writes into its bot's
# folder, a learning bot's data too), so no absolute path differs between them.
play() {
  local koth=$1 side=$2 play=$work/play
  rm -rf "$play"
  write_inputs "$play"
  cp -a "$repo/bots" "$play/bots"
  mkdir -p "$play/failed"
  local game
  for game in "${tournament_games[@]}"; do
    "$koth" tournament run "$play/tournament-$game.toml" --dir "$play/tournament-$game" \
      >"$play/tournament-$game.out" 2>&1 || touch "$play/failed/tournament-$game"
  done
  for game in "${hill_games[@]}"; do
    local bots=() name hill=$play/hill-$game
    for name in ${hill_bots[$game]}; do bots+=("$play/bots/$name"); done
    (
      "$koth" hill create "$play/hill-$game.toml" --dir "$hill" &&
        "$koth" hill add "${bots[@]}" --hill "$hill" &&
        if [ "$game" = paths ]; then
          for _ in $(seq "$hill_games_played"); do "$koth" hill run "$hill" --games 1 || exit 1; done
        else
          "$koth" hill run "$hill" --games "$hill_games_played"
        fi &&
        "$koth" leaderboard "$hill" --format json >"$hill/leaderboard.json"
    ) >"$play/hill-$game.out" 2>&1 || touch "$play/failed/hill-$game"
  done
  for game in "${tournament_games[@]}"; do
    [ -d "$play/tournament-$game" ] && "$koth" leaderboard "$play/tournament-$game" --format json \
      >"$play/tournament-$game/leaderboard.json" 2>&1 || true
  done
  mv "$play" "$work/$side"
}

# What differs from run to run of one binary, stripped before the comparison (found by running
# one binary twice and diffing). Everything else is compared byte for byte.
# - JSON keys whose values are stripped wherever they occur (results.json, a tournament's
#   leaderboard.json; the value becomes "~"):
#   max_wall_ms, total_wall_ms   a bot's answer times by the wall clock;
#   max_cpu_ms, total_cpu_ms     and by its CPU time: both vary with the machine's load;
#   near_misses                  answers over 80% of the limit: a count of slow answers, so timing too;
#   seconds, cpu_seconds,        a rat-race game's and each board's wall and CPU time (koth's and
#   player_cpu_seconds           the bot's);
#   cpus                         the cores a rat-race game was pinned to: those no other koth
#                                process held as it started.
strip_keys='max_wall_ms|total_wall_ms|max_cpu_ms|total_cpu_ms|near_misses|seconds|cpu_seconds|player_cpu_seconds|cpus'
# - A hill's leaderboard.json is compared without what follows its fit: the fitted figures and
#   intervals (`rating`, `low`, `high`), the table's order (`rank`, and the standings are sorted
#   by name), the `lead`, the `king` and the `kings` (each crowned at a Unix time, `since`).
#   Each refit starts from the figures of the one before, and how many refits a run makes
#   follows the clock (above), so the figures agree to about 8 digits only, and two versions
#   with the same record (common in a small hill) are put in order, and crowned, by that noise.
#   What the fit is made from is compared: every game's result and the online `mu` and `sigma`
#   (here and in the database). A tournament's leaderboard fits its games afresh each time, so
#   it is compared whole.
hill_board='{name, game, ranking, statistic, games_done, placement_games, waiting, suspended,
  history, standings: (.standings | map(del(.rank, .rating, .low, .high)) | sort_by(.name, .version))}'
# - Transcripts: each `>`, `?`, `<` and `!` line's milliseconds since the game began (the line
#   itself is kept). A transcript is compared unzipped: it is gzipped when over 1 MiB, a size
#   its times are part of. A transcript stops at 8 MiB (every rat-race transcript does), a size
#   its times are part of too: where two full ones stop, the longer is cut to the shorter.
# - From results.sqlite only these columns are compared: games (idx, seed, state), seats, results
#   without their wall and CPU times and near misses, and a hill's hill_games without
#   `chosen_at` (a Unix time) and hill_ratings. A game's `attempts` is left out: a game whose bot
#   timed out because other programs held its CPU is a harness fault, played again, and counts an
#   attempt more with the same result. koth's own log (tournament.log), its lock, the copies of
#   the input files and a hill's copies of its bots (versions/) are not compared.
# Every other file under games/ and validation/ (results.json, replays, stderr, a hill game's
# data.json, ...) is compared as it is, and both sides must have the same files.

# SIDE: writes $work/SIDE.cmp, the stripped copy of what is compared.
normalize() {
  local side=$1 from=$work/$1 to=$work/$1.cmp dir file rel
  rm -rf "$to"
  mkdir -p "$to"
  for dir in "$from"/tournament-* "$from"/hill-*; do
    [ -d "$dir" ] || continue
    local name=${dir##*/}
    mkdir -p "$to/$name"
    (cd "$dir" && for rel in games validation leaderboard.json; do
      [ ! -e "$rel" ] || find "$rel" -type f; done | sort) |
      while IFS= read -r rel; do
        file=$dir/$rel
        mkdir -p "$(dirname "$to/$name/$rel")"
        case $rel in
          */transcripts/*)
            if [[ $rel == *.gz ]]; then zcat "$file"; else cat "$file"; fi |
              sed -E 's/^([<>?!]) [0-9]+ /\1 /' >"$to/$name/${rel%.gz}"
            ;;
          leaderboard.json)
            if [[ $name == hill-* ]]; then
              jq "$hill_board" "$file" >"$to/$name/$rel" 2>&1 || cp "$file" "$to/$name/$rel"
            else
              perl -0pe 's/"('"$strip_keys"')":(\s*)(\[[^\]]*\]|-?[0-9][0-9.eE+-]*)/"$1":$2"~"/g' \
                "$file" >"$to/$name/$rel"
            fi
            ;;
          *.json)
            perl -0pe 's/"('"$strip_keys"')":(\s*)(\[[^\]]*\]|-?[0-9][0-9.eE+-]*)/"$1":$2"~"/g' \
              "$file" >"$to/$name/$rel"
            ;;
          *) cp "$file" "$to/$name/$rel" ;;
        esac
      done
    if [ -f "$dir/results.sqlite" ]; then
      {
        sqlite3 -readonly "$dir/results.sqlite" 2>&1 <<'SQL' || true
.headers on
SELECT idx, seed, state FROM games ORDER BY idx;
SELECT game, seat, bot FROM seats ORDER BY game, seat;
SELECT game, seat, bot, score, status, faults, answers, timed_out_faults, crashed_faults,
       bad_output_faults, failed_to_start_faults, benched_faults, fuel
  FROM results ORDER BY game, seat;
SQL
        if [[ $name == hill-* ]]; then
          sqlite3 -readonly "$dir/results.sqlite" 2>&1 <<'SQL' || true
.headers on
SELECT game, reason, rated FROM hill_games ORDER BY game;
SELECT game, version, mu, sigma FROM hill_ratings ORDER BY game, version;
SQL
        fi
      } >"$to/$name/results.sqlite.txt"
    fi
  done
}

# Transcripts that stopped at 8 MiB on both sides: the longer cut to the shorter's lines.
trim_full_transcripts() {
  local full='^# koth: transcript full at' a b lines
  while IFS= read -r a; do
    b=$work/new.cmp/${a#"$work/old.cmp/"}
    [ -f "$b" ] && tail -n 1 "$a" | grep -q "$full" && tail -n 1 "$b" | grep -q "$full" || continue
    lines=$(($(wc -l <"$a") < $(wc -l <"$b") ? $(wc -l <"$a") : $(wc -l <"$b")))
    for file in "$a" "$b"; do
      { head -n $((lines - 1)) "$file" | grep -v "$full"; tail -n 1 "$file"; } >"$file.cut"
      mv "$file.cut" "$file"
    done
  done < <(find "$work/old.cmp" -path '*/transcripts/*' -type f)
}

echo "old: $old"
echo "new: $new"
play "$old" old
echo "old played in $((SECONDS - start)) s"
mark=$SECONDS
play "$new" new
echo "new played in $((SECONDS - mark)) s"
normalize old
normalize new
trim_full_transcripts

# NAME: sets $status to "same"; "failed" (a koth command of either side failed; $first names
# its output); or "different", with the first differing file in $first.
compare() {
  local name=$1 list side
  first=""
  for side in old new; do
    if [ -e "$work/$side/failed/$name" ]; then
      first="$side/$name.out"
      status=failed
      return
    fi
  done
  list=$(diff -rq "$work/old.cmp/$name" "$work/new.cmp/$name" 2>&1 || true)
  if [ -z "$list" ]; then
    status=same
  else
    first=$(head -n 1 <<<"$list")
    case $first in
      "Files "*) first=${first#"Files $work/old.cmp/$name/"} && first=${first%% and *} ;;
      *) first=${first//"$work/"/} ;;
    esac
    status=different
  fi
}

# NAME STATUS: what differs, for the reader: a failed command's last lines, or the start of the
# diff of the stripped copies (a gzipped replay is unzipped for it).
excerpt() {
  local name=$1 status=$2
  echo "== $name: $status, $first"
  if [ "$status" = failed ]; then
    tail -n 15 "$work/$first"
    return
  fi
  (cd "$work" && diff -ru "old.cmp/$name" "new.cmp/$name" 2>&1 | head -n 25) || true
  if [[ $first == *.gz ]] && [ -f "$work/old.cmp/$name/$first" ]; then
    echo "-- unzipped:"
    diff <(zcat "$work/old.cmp/$name/$first") <(zcat "$work/new.cmp/$name/$first") | head -n 10 || true
  fi
}

excerpts=""
different=0
printf '\n%-10s %-11s %-11s %s\n' game tournament hill "first difference"
for game in "${tournament_games[@]}"; do
  row_first=""
  compare "tournament-$game"
  tournament=$status
  if [ "$tournament" != same ]; then
    different=1
    row_first="tournament: $first"
    excerpts+=$(excerpt "tournament-$game" "$tournament")$'\n\n'
  fi
  hill="n/a"
  if [ -n "${hill_bots[$game]:-}" ]; then
    compare "hill-$game"
    hill=$status
    if [ "$hill" != same ]; then
      different=1
      [ -n "$row_first" ] || row_first="hill: $first"
      excerpts+=$(excerpt "hill-$game" "$hill")$'\n\n'
    fi
  fi
  printf '%-10s %-11s %-11s %s\n' "$game" "$tournament" "$hill" "${row_first//$work\//}"
done
echo "(n/a: a game played alone has no hill)"
echo "took $((SECONDS - start)) s"
if [ "$different" = 1 ]; then
  echo
  printf '%s' "${excerpts//$work\//}"
  echo "DIFFERENT: both runs are kept in $work (old/ and new/; old.cmp/ and new.cmp/ as compared)"
  exit 1
fi
echo "SAME: every game, result, replay and leaderboard"
[ -n "${KEEP:-}" ] || rm -rf "$work"
