//! `koth replay --html OUT.html`: one self-contained page (inline script and style, the game
//! embedded as JSON, no network) that animates a paths game turn by turn.
//!
//! The page rebuilds each turn's grid from the recorded choices, as [`super::turns::Replay`]
//! does, rather than embedding every grid: a game of 100 rounds with 9 bots would otherwise
//! weigh gigabytes. `?round=R&turn=T` in the address opens that state.

use std::path::Path;

use anyhow::Context;
use serde_json::json;

use super::Game;

const PAGE: &str = include_str!("viewer.html");

/// Writes the viewer page for `game` to `path`.
pub fn write(game: &Game, path: &Path) -> anyhow::Result<()> {
    let rounds: Vec<_> = game
        .log
        .rounds
        .iter()
        .map(|round| {
            let turns: Vec<_> = game
                .turns
                .iter()
                .flat_map(|replay| replay.turns.iter().filter(|t| t.round == round.index))
                .map(|t| json!([t.destroy, t.activate]))
                .collect();
            json!({ "rows": round.rows, "points": round.points, "turns": turns })
        })
        .collect();
    let data = json!({ "bots": game.log.bots, "side": game.log.side(), "rounds": rounds });
    // "</" would end the script element early if a bot's name contained "</script>".
    let data = data.to_string().replace("</", "<\\/");
    let page = PAGE.replace("/*GAME*/null", &data);
    std::fs::write(path, page).with_context(|| format!("cannot write {}", path.display()))
}
