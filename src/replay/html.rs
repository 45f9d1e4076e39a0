//! `koth replay --html OUT.html`: one self-contained page (inline script and style, the game
//! embedded as JSON, no network) that animates a paths game turn by turn, a recorded rat-race
//! board, a noughts & crosses match move by move, a flag game step by step, or a Mad Cars game
//! tick by tick.
//!
//! The paths page rebuilds each turn's grid from the recorded choices, as
//! [`super::turns::Replay`] does, rather than embedding every grid: a game of 100 rounds with 9
//! bots would otherwise weigh gigabytes. `?round=R&turn=T` in the address opens that state; the
//! board page takes `?turn=T`.

use std::path::Path;

use anyhow::{Context, bail};
use serde_json::json;

use super::Game;
use super::explain::{Explanation, explain};
use super::flag::FlagExplained;
use super::ratrace::BoardExplained;
use super::tictactoe::MatchExplained;
use crate::games::ratrace::recording::BoardRecording;

const PAGE: &str = include_str!("viewer.html");
const BOARD_PAGE: &str = include_str!("board_viewer.html");
const MADCARS_PAGE: &str = include_str!("madcars_viewer.html");
const TICTACTOE_PAGE: &str = include_str!("tictactoe_viewer.html");
const FLAG_PAGE: &str = include_str!("flag_viewer.html");
/// What the paths, board, noughts & crosses and flag pages share, written once: the style
/// (`/*SHARED-STYLE*/` in a page), the script's helpers (`/*SHARED-SCRIPT*/`), and the speed
/// menu (`<!--SPEEDS-->`).
const SHARED: [(&str, &str); 3] = [
    ("/*SHARED-STYLE*/", include_str!("viewer_shared.css")),
    ("/*SHARED-SCRIPT*/", include_str!("viewer_shared.js")),
    ("<!--SPEEDS-->", include_str!("viewer_speeds.html")),
];

/// The viewer page for a paths `game`, with what its folder tells of each turn, if known.
pub fn page(game: &Game, explanation: Option<&Explanation>) -> String {
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
            let paid: Vec<_> = game
                .turns
                .iter()
                .flat_map(|replay| replay.paid.iter().filter(|p| p.round == round.index))
                .flat_map(|p| &p.paid)
                .collect();
            json!({ "rows": round.rows, "points": round.points, "turns": turns, "paid": paid })
        })
        .collect();
    let data = json!({
        "bots": game.log.bots,
        "side": game.log.side(),
        "rounds": rounds,
        "explanation": explanation,
    });
    fill(PAGE, "/*GAME*/null", &data)
}

/// The viewer page for a recorded rat-race board, with what its run's folder tells of the
/// bot's answers, fault and stderr, if known ([`super::ratrace::explain`]), and the run's
/// recorded boards ([`super::ratrace::recorded`]), which a served page links to.
pub fn board_page(
    recording: &BoardRecording,
    explanation: Option<&BoardExplained>,
    recorded: &[serde_json::Value],
) -> String {
    let mut data = json!(recording);
    // A seed needs all 64 bits; JavaScript's numbers keep 53.
    data["seed"] = json!(recording.seed.to_string());
    data["explanation"] = json!(explanation);
    data["recorded"] = json!(recorded);
    fill(BOARD_PAGE, "/*BOARD*/null", &data)
}

/// The viewer page for a noughts & crosses match ([`super::tictactoe::explain`]'s data).
pub(crate) fn tictactoe_page(data: &MatchExplained) -> String {
    fill(TICTACTOE_PAGE, "/*MATCH*/null", &json!(data))
}

/// The viewer page for a flag game ([`super::flag::explain`]'s data).
pub(crate) fn flag_page(data: &FlagExplained) -> String {
    fill(FLAG_PAGE, "/*GAME*/null", &json!(data))
}

/// The viewer page for a Mad Cars game, from its replay's `lines`.
pub fn madcars_page(lines: &[serde_json::Value]) -> String {
    fill(MADCARS_PAGE, "/*GAME*/null", &json!(lines))
}

/// The web page of the game recorded at `path` (its log folder, or a file of it), whichever
/// game it is: the game's own viewer, found through the registry by the game its folder's
/// `results.json` names ([`super::game_of`]). Only a game that records boards (the rat race)
/// has boards to choose from.
pub fn page_of(path: &Path, board: Option<usize>) -> anyhow::Result<String> {
    let (game, path) = super::game_of(path)?;
    if let Some(board) = board.filter(|_| !game.records_boards()) {
        bail!(
            "{}: board {board} asked for, but only a rat-race run has boards to choose from",
            path.display()
        );
    }
    match game.page(&path, board) {
        Some(page) => page,
        None => bail!(
            "{}: a game of {}, which has no web viewer",
            path.display(),
            game.name()
        ),
    }
}

/// The web page of the paths game recorded at `path`: its log folder or its graphical log.
pub(crate) fn page_of_paths(path: &Path) -> anyhow::Result<String> {
    let game = Game::open(path)?;
    let turns: Vec<usize> = (0..game.rounds()).map(|r| game.turns_in(r)).collect();
    let explanation = explain(&super::log_folder(path), &game.log.bots, &turns);
    Ok(page(&game, Some(&explanation)))
}

/// Writes `page` to `path`.
pub fn write(page: &str, path: &Path) -> anyhow::Result<()> {
    std::fs::write(path, page).with_context(|| format!("cannot write {}", path.display()))
}

/// `page` with `data` in place of `placeholder`.
fn fill(page: &str, placeholder: &str, data: &serde_json::Value) -> String {
    let page = SHARED
        .iter()
        .fold(page.to_string(), |page, (mark, shared)| {
            page.replace(mark, shared)
        });
    page.replace(placeholder, &script_json(data))
}

/// `data` as JSON to put inside a page's `<script>`: `<`, `>` and `&` written `\u003c`,
/// `\u003e`, `\u0026`, so that nothing a bot wrote (`</script>`, `<!--<script>` in a name or
/// in stderr) can end the script element or change how the browser reads it, and U+2028 and
/// U+2029 escaped as older JavaScript ends a line at them. The same JSON to a parser.
pub(crate) fn script_json(data: &serde_json::Value) -> String {
    let json = data.to_string();
    let mut embedded = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                embedded += &format!("\\u{:04x}", u32::from(c));
            }
            c => embedded.push(c),
        }
    }
    embedded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_json_cannot_end_its_script_and_parses_the_same() {
        let data = json!({
            "bots": ["<!--<script>", "</script><script>alert(1)</script>", "a & b > c"],
            "stderr": "line\u{2028}separator\u{2029}",
        });
        let embedded = script_json(&data);
        for raw in ['<', '>', '&', '\u{2028}', '\u{2029}'] {
            assert!(!embedded.contains(raw), "{raw:?} in {embedded}");
        }
        assert!(
            embedded.contains("\\u003c!--\\u003cscript\\u003e"),
            "{embedded}"
        );
        let parsed: serde_json::Value = serde_json::from_str(&embedded).unwrap();
        assert_eq!(parsed, data);
    }
}
