//! `koth replay --html OUT.html`: one self-contained page (inline script and style, the game
//! embedded as JSON, no network) that animates a paths game turn by turn, a recorded rat-race
//! board, or a Mad Cars game tick by tick.
//!
//! The paths page rebuilds each turn's grid from the recorded choices, as
//! [`super::turns::Replay`] does, rather than embedding every grid: a game of 100 rounds with 9
//! bots would otherwise weigh gigabytes. `?round=R&turn=T` in the address opens that state; the
//! board page takes `?turn=T`.

use std::path::Path;

use anyhow::Context;
use serde_json::json;

use super::Game;
use crate::games::ratrace::recording::BoardRecording;

const PAGE: &str = include_str!("viewer.html");
const BOARD_PAGE: &str = include_str!("board_viewer.html");
const MADCARS_PAGE: &str = include_str!("madcars_viewer.html");

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
    write_page(PAGE, "/*GAME*/null", &data, path)
}

/// Writes the viewer page for a recorded rat-race board to `path`.
pub fn write_board(recording: &BoardRecording, path: &Path) -> anyhow::Result<()> {
    let mut data = json!(recording);
    // A seed needs all 64 bits; JavaScript's numbers keep 53.
    data["seed"] = json!(recording.seed.to_string());
    write_page(BOARD_PAGE, "/*BOARD*/null", &data, path)
}

/// Writes the viewer page for a Mad Cars game, from its replay's `lines`, to `path`.
pub fn write_madcars(lines: &[serde_json::Value], path: &Path) -> anyhow::Result<()> {
    write_page(MADCARS_PAGE, "/*GAME*/null", &json!(lines), path)
}

/// `page` with `data` in place of `placeholder`, written to `path`.
fn write_page(
    page: &str,
    placeholder: &str,
    data: &serde_json::Value,
    path: &Path,
) -> anyhow::Result<()> {
    // "</" would end the script element early if a bot's name contained "</script>".
    let data = data.to_string().replace("</", "<\\/");
    let page = page.replace(placeholder, &data);
    std::fs::write(path, page).with_context(|| format!("cannot write {}", path.display()))
}
