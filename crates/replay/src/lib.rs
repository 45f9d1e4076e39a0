//! Replays, for every game alike: a recorded folder's game found through the registry
//! ([`game_of`]), whose own viewers (its [`koth_game::Replay`], in its folder) show it in the
//! terminal, as text or as a web page ([`page_of`]) for `koth replay` (`crate::command::replay`)
//! and the dashboard; the viewer kit those viewers build on (`kit`: pages, embedded JSON, the
//! default text view; `tui`: the terminal's loop, panels and keys; `explain`: answers placed in
//! their game from the transcripts; `record`: a game's public record read back, what a viewer
//! draws a game in progress from); and driving a new build of a bot with the lines it
//! received in a recorded game (`drive`).

pub mod drive;
pub mod explain;
pub mod kit;
pub mod record;
pub mod tui;

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// The log folder `path` names: the folder itself, or the folder of a file in it.
pub fn log_folder(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent().unwrap_or(Path::new(".")).to_path_buf()
    }
}

/// The game whose result the folder's `results.json` holds (`"game"`, or `"result"`'s for the
/// games that keep only their match result there), to choose a viewer; `None` if it cannot be
/// read.
pub(crate) fn results_game(folder: &Path) -> Option<String> {
    let text = std::fs::read_to_string(folder.join(koth_game::RESULTS_FILE)).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json["game"]
        .as_str()
        .or(json["result"]["game"].as_str())
        .map(str::to_string)
}

/// The game recorded at `path` (a game's log folder, or a file of it), found through the registry,
/// and what its viewer opens: a file the game recognises as its own given alone
/// ([`koth_game::Replay::recognises`]) is opened as it is; otherwise it is the game its
/// folder's `results.json` names (or one that recognises the folder), opened at its folder. A
/// folder of a game this koth does not have, or of no game, is one clear error naming it.
pub fn game_of(path: &Path) -> anyhow::Result<(&'static dyn koth_game::Game, PathBuf)> {
    let folder = log_folder(path);
    if !path.exists() {
        bail!("cannot read {}: no such file or folder", path.display());
    }
    let recognised = || {
        koth_game::registry::all()
            .into_iter()
            .find(|g| g.recognises(path))
    };
    if path.is_file()
        && let Some(game) = recognised()
    {
        return Ok((game, path.to_path_buf()));
    }
    let game = match results_game(&folder) {
        Some(name) => koth_game::registry::by_name(&name).with_context(|| {
            format!(
                "{}: a game of {name:?}, which this koth does not have (it has {})",
                folder.join(koth_game::RESULTS_FILE).display(),
                koth_game::registry::names().join(", ")
            )
        }),
        None => recognised().with_context(|| {
            format!(
                "{}: not a recorded game: no results.json naming its game",
                path.display()
            )
        }),
    }?;
    Ok((game, folder))
}

/// The web page of the game recorded at `path` (its log folder, or a file of it), whichever
/// game it is: the game's own viewer, found through the registry by the game its folder's
/// `results.json` names ([`game_of`]). Only a game that records boards (the rat race) has
/// boards to choose from.
pub fn page_of(path: &Path, board: Option<usize>) -> anyhow::Result<String> {
    let (game, path) = game_of(path)?;
    page_by(game, &path, board)
}

/// The web page of a game of `name` being played in `folder`, which has no `results.json` yet
/// to name its game: its own viewer, drawing what was played so far.
pub fn page_in_progress(name: &str, folder: &Path, board: Option<usize>) -> anyhow::Result<String> {
    let game = koth_game::registry::by_name(name)
        .with_context(|| format!("a game of {name:?}, which this koth does not have"))?;
    page_by(game, folder, board)
}

fn page_by(
    game: &'static dyn koth_game::Game,
    path: &Path,
    board: Option<usize>,
) -> anyhow::Result<String> {
    if let Some(board) = board.filter(|_| !game.records_boards()) {
        bail!(
            "{}: board {board} asked for, but a game of {} has no boards to choose from",
            path.display(),
            game.name()
        );
    }
    match game.page(path, board) {
        Some(page) => page,
        None => bail!(
            "{}: a game of {}, which has no web viewer",
            path.display(),
            game.name()
        ),
    }
}

/// Writes `page` to `path`.
pub fn write(page: &str, path: &Path) -> anyhow::Result<()> {
    std::fs::write(path, page).with_context(|| format!("cannot write {}", path.display()))
}
