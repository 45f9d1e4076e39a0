#!/usr/bin/env bash
# Checkpoint: a sample bot for koth's Grid-Routing Battle ("paths"), in bash.
#
# Strategy: meet the others halfway. A path needs S vertices but a round has only N² < S turns,
# so no bot completes one alone. Checkpoint builds a chain DOWN from a sink, steering towards the
# highest vertex of anyone else's path, so that a path growing upwards meets it and both finish in
# half the time. Once its chain touches an active vertex below, it extends the newest active
# vertex it can (anyone's), being paid whenever that path reaches a sink. Never destroys.
# bash starts in a millisecond, which matters: bots are restarted every round.
#
# Protocol: prompts `DESTROY t` / `ACTIVATE t` take one line, `VERTEX x,y` or `NONE`; reports
# `BEGIN B T S`, `BROKEN t C1..CB`, `OWNED t C1..CB` (C1 ours; Ci is `x,y` or `N`) take none;
# `SCORE S1..SB` means exit.

declare -A state   # "x,y" -> broken | mine | theirs, for every vertex not inactive
active=()          # active vertices, oldest first
side=0
bottom=""          # the lowest vertex of our chain, "x,y"
joined=0           # 1 once our chain touches an active vertex below it

# Circular distance between columns $1 and $2 (the grid wraps east-west).
distance() { local d=$(( ($1 - $2 + side) % side )); echo $(( d < side - d ? d : side - d )); }

# The x of the highest vertex of another bot, or the middle column if there is none.
target_x() {
  local best_x=$((side / 2)) best_y=-1 v x y
  for v in "${active[@]}"; do
    [[ ${state[$v]} == theirs ]] || continue
    x=${v%,*}; y=${v#*,}
    ((y > best_y)) && { best_x=$x; best_y=$y; }
  done
  echo "$best_x"
}

# One step of the chain down from $bottom towards the target column; sets joined if it touches.
chain_down() {
  local x=${bottom%,*} y=${bottom#*,} tx dx nx best="" best_d=$side d
  ((y > 0)) || { joined=1; return 1; }
  tx=$(target_x)
  for dx in -1 0 1; do
    nx=$(( (x + dx + side) % side ))
    case ${state[$nx,$((y - 1))]} in
      mine|theirs) joined=1; return 1 ;;
      broken) ;;
      *) d=$(distance "$nx" "$tx"); ((d < best_d)) && { best="$nx,$((y - 1))"; best_d=$d; } ;;
    esac
  done
  [[ -n $best ]] || { joined=1; return 1; }
  echo "VERTEX $best"
}

# A free vertex just above the newest active vertex that has one, else a free source.
extend_up() {
  local i x y dx nx
  for ((i = ${#active[@]} - 1; i >= 0; i--)); do
    x=${active[i]%,*}; y=${active[i]#*,}
    ((y + 1 < side)) || continue
    for dx in 0 1 -1; do
      nx=$(( (x + dx + side) % side ))
      [[ -z ${state[$nx,$((y + 1))]} ]] && { echo "VERTEX $nx,$((y + 1))"; return; }
    done
  done
  for ((x = 0; x < side; x++)); do
    [[ -z ${state[$x,0]} ]] && { echo "VERTEX $x,0"; return; }
  done
  echo NONE
}

activate() {
  local x
  if [[ -z $bottom ]]; then
    x=$(target_x)
    [[ -z ${state[$x,$((side - 1))]} ]] && { echo "VERTEX $x,$((side - 1))"; return; }
  elif ((!joined)); then
    local step
    step=$(chain_down) && [[ -n $step ]] && { echo "$step"; return; }
    joined=1
  fi
  extend_up
}

while read -r -a words; do
  case ${words[0]} in
    BEGIN) side=${words[3]} ;;
    DESTROY) echo NONE ;;
    ACTIVATE) activate ;;
    BROKEN|OWNED)
      i=0
      for choice in "${words[@]:2}"; do
        if [[ $choice != N ]]; then
          if [[ ${words[0]} == BROKEN ]]; then
            state[$choice]=broken
          else
            active+=("$choice")
            if ((i == 0)); then
              state[$choice]=mine
              # A new lowest vertex of the chain (our claims go down until joined).
              ((!joined)) && { [[ -z $bottom ]] || ((${choice#*,} < ${bottom#*,})); } && bottom=$choice
            elif [[ -z ${state[$choice]} ]]; then
              state[$choice]=theirs
            fi
          fi
        fi
        i=$((i + 1))
      done ;;
    SCORE) exit 0 ;;
  esac
done
