#!/usr/bin/env bash
# The original Grid-Routing Battle bots (github.com/iatorm/grid-routing-battle, unchanged) as
# koth bot folders: each gets a bot.toml with the command of the challenge's bots.txt (Java
# compiled by a build step; Funnelweb is Python 2, run by `python2`: the hill or tournament that
# plays them names which one in its `languages`, by full path where it is on no PATH, as
# scripts/hill-originals.sh does). FaucetBot (R) is left out. Prints the folder they are in.
#   bash scripts/grid-routing-originals.sh CHECKOUT [OUT]
set -euo pipefail
src=${1:?a checkout of iatorm/grid-routing-battle}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
bot() { # folder name command [build]
    mkdir -p "$out/$1"
    cp -r "$src/bots/$1/." "$out/$1/"
    {
        printf 'name = "%s"\nrun = "%s"\ngames = ["paths"]\n' "$2" "$3"
        if [ -n "${4:-}" ]; then printf 'build = "%s"\n' "$4"; fi
    } > "$out/$1/bot.toml"
}
bot randombuilder "Random Builder" "python3 random_builder.py"
bot checkpoint Checkpoint "java Checkpoint" "javac Checkpoint.java"
bot connector Connector "java Connector" "javac Connector.java"
bot funnelweb Funnelweb "python2 funnelweb.py"
bot annoyance Annoyance "bash annoyance.sh"
bot explorer Explorer "python3 explorer.py"
bot watermelon Watermelon "java Watermelon" "javac Watermelon.java"
bot peacemaker Peacemaker "java Peacemaker" "javac Peacemaker.java"
echo "$out"
