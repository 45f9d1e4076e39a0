# Sourced by the scripts that play the original Grid-Routing Battle bots (hill-originals.sh,
# hill-door-originals.sh, contest-originals.sh): sets $PYTHON2, Python 2 by its full path
# (PYTHON2, else pyenv's 2.7, else PATH's: a bot's environment is koth's fixed list, so a
# version manager's choice does not reach it), and $languages, the `languages` line that lends
# it to Funnelweb; `grid_routing_hill_file SEED OUT` writes config/hill-paths.toml to OUT with
# that seed and that line.
if [ -z "${PYTHON2:-}" ] && command -v pyenv > /dev/null; then
    PYTHON2=$(PYENV_VERSION=2.7.18 pyenv which python2)
fi
PYTHON2=${PYTHON2:-$(command -v python2)}
languages="languages = [\"python3\", \"java\", \"javac\", \"bash\", \"$PYTHON2\"]"
grid_routing_hill_file() { # SEED OUT
    {
        grep -v '^seed' config/hill-paths.toml
        printf 'seed = %s\n%s\n' "$1" "$languages"
    } > "$2"
}
