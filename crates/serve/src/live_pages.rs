//! The pages of live games: `/api/live` (the games in progress, best rated first), `/tv`, the
//! page of a game in progress and its script ([`super::live`] streams the records).

use std::collections::HashMap;
use std::time::SystemTime;

use axum::extract::State;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use serde::Serialize;

use super::{Failure, Watching, with_store};
use koth_bot::record::RECORD_FILE;
use koth_game::Numbering;
use koth_tournament::store::{self, Store};

/// A game in progress as the store has it, and when it began.
struct Running {
    row: store::GameRow,
    started: Option<u64>,
}

/// A game in progress, as `/api/live` lists it.
#[derive(Debug, Serialize)]
struct LiveGame {
    index: u32,
    game: String,
    seats: Vec<LiveSeat>,
    /// When it began (Unix seconds), where its folder is on this machine.
    started: Option<u64>,
    watchers: usize,
    stream: String,
    page: String,
    /// How its records number rounds and turns, for a page to show them from 1.
    numbering: Numbering,
}

#[derive(Debug, Serialize)]
struct LiveSeat {
    name: String,
    /// The bot's rating on the table now, where it has one.
    rating: Option<f64>,
}

/// `GET /api/live`: the games in progress, those whose seats are rated highest first.
pub(crate) async fn in_progress(State(reader): Watching) -> Result<Response, Failure> {
    let hill = reader.hill;
    let games = with_store(&reader, move |store, dir| {
        let game = store.meta("game")?.unwrap_or_default();
        let names: Vec<String> = store.bots()?.into_iter().map(|b| b.name).collect();
        let ratings = ratings(store, dir, hill, &names)?;
        let running: Vec<Running> = store
            .running_games()?
            .into_iter()
            .map(|row| {
                let path = store::game_dir(dir, row.index).join(RECORD_FILE);
                let started = std::fs::metadata(path)
                    .and_then(|m| m.created())
                    .ok()
                    .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
                    .map(|d| d.as_secs());
                Running { row, started }
            })
            .collect();
        Ok((game, names, ratings, running))
    })
    .await?;
    let (game, names, ratings, running) = games;
    let mut listed: Vec<LiveGame> = running
        .into_iter()
        .map(|Running { row, started }| LiveGame {
            index: row.index,
            game: game.clone(),
            seats: row
                .seats
                .iter()
                .map(|seat| LiveSeat {
                    name: names.get(seat.bot).cloned().unwrap_or_default(),
                    rating: ratings.get(&seat.bot).copied(),
                })
                .collect(),
            started,
            watchers: reader.live.watchers(row.index),
            numbering: Numbering::of(&game),
            stream: format!("/api/games/{}/live", row.index),
            page: format!("/games/{}", row.index),
        })
        .collect();
    listed.sort_by(|a, b| {
        best(b)
            .total_cmp(&best(a))
            .then_with(|| a.index.cmp(&b.index))
    });
    Ok(axum::Json(listed).into_response())
}

/// The rating a game is chosen by for `/tv`: the mean of its seats' (unrated seats count as
/// the lowest).
fn best(game: &LiveGame) -> f64 {
    let rated: Vec<f64> = game.seats.iter().filter_map(|s| s.rating).collect();
    match rated.is_empty() {
        true => f64::NEG_INFINITY,
        false => rated.iter().sum::<f64>() / game.seats.len() as f64,
    }
}

/// Each bot's rating on the table now, by its id: a hill's versions' conservative ratings, or
/// a tournament's leaderboard's.
fn ratings(
    store: &Store,
    dir: &std::path::Path,
    hill: bool,
    names: &[String],
) -> anyhow::Result<HashMap<usize, f64>> {
    let table: Vec<(String, f64)> = match hill {
        true => koth_hill::board::read(store)?
            .standings
            .into_iter()
            .filter_map(|s| Some((format!("{} v{}", s.name, s.version), s.rating?)))
            .collect(),
        false => koth_tournament::leaderboard_from(store, dir)?
            .standings
            .into_iter()
            .filter(|s| s.games > 0)
            .map(|s| (s.name, s.mean))
            .collect(),
    };
    Ok(table
        .into_iter()
        .filter_map(|(name, rating)| names.iter().position(|n| *n == name).map(|id| (id, rating)))
        .collect())
}

const TV: &str = include_str!("tv.html");
const SCRIPT: &str = include_str!("live.js");
const STYLE: &str = include_str!("live.css");

/// `GET /tv`: the page that follows the best game in progress.
pub(crate) async fn tv() -> Html<&'static str> {
    Html(TV)
}

/// `GET /live.js`: the panel that follows a game, and its board ([`page`]).
pub(crate) async fn script() -> Response {
    ([(header::CONTENT_TYPE, "text/javascript")], SCRIPT).into_response()
}

/// `GET /live.css`: its style.
pub(crate) async fn style() -> Response {
    ([(header::CONTENT_TYPE, "text/css")], STYLE).into_response()
}

/// The page of game `index` while it is played, under the way back to `home`: the panel
/// following its records ("live", a slider, "now") above its own viewer's page
/// (`/games/N/view`, in a frame), made again from what was played as records arrive and shown
/// where the game stands while the watcher follows it; when the game ends, the page is
/// reloaded and is then its ordinary replay.
pub(crate) fn page(index: u32, home: &str, game: &str) -> String {
    let numbering = koth_replay::kit::script_json(&serde_json::json!(Numbering::of(game)));
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>game {index} (live)</title><link rel=\"stylesheet\" href=\"/live.css\">\
         </head><body style=\"margin: 12px\">\
         <nav id=\"way-back\" style=\"font: 14px sans-serif; margin: 0 0 8px\">\
         <a href=\"/\">← {home}</a> · game <b id=\"game-number\">{index}</b> · \
         <b id=\"in-progress\">in progress</b>: followed live; its replay shows here when it \
         ends</nav><div id=\"live\"></div><div id=\"live-view\"></div>\
         <script src=\"/live.js\"></script><script>kothLive(document.getElementById(\"live\"), \
         {index}, {{view: document.getElementById(\"live-view\"), numbering: {numbering}, \
         onEnd: () => setTimeout(() => location.reload(), 1000)}});</script></body></html>"
    )
}

/// What `/games/N/view` shows while game N's viewer cannot be made from what was played so
/// far (its files come later, or it has no web viewer): why, as text.
pub(crate) fn no_view_yet(why: &str) -> String {
    let why = super::hill_page::escape(why);
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>no board yet\
         </title></head><body style=\"font: 14px sans-serif; color: #555\">\
         <p id=\"no-view\">No board to show yet: the records above are the game so far.</p>\
         <p style=\"font-size: 12px\">{why}</p></body></html>"
    )
}
