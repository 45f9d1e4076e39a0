//! `koth serve DIR`: a web dashboard of a tournament folder on 127.0.0.1, live while a run
//! plays it, read-only. Every asset is in the binary (no CDN, works offline).
//!
//! | address | what |
//! |---|---|
//! | `/` | the dashboard page: progress, leader, leaderboard, the last games, every game |
//! | `/api/progress` | games done / total, running, skipped, the estimated time left, the leader, the last games |
//! | `/api/leaderboard` | the leaderboard, the same JSON as `koth leaderboard --format json` |
//! | `/api/games?bot=NAME&outcome=KIND` | the games, filtered by a bot and by how they ended |
//! | `/api/events` | server-sent events: `progress` whenever the tournament moves |
//! | `/games/{index}` | the game's replay page, where its game writes one |
//! | `/plots/ratings.svg` | each bot's rating ± σ over its games |
//! | `/games/{index}/points.svg` | a paths game's points per bot, round by round |
//!
//! The server checks the database once when it starts, then opens it read-only for every request
//! (SQLite in WAL mode lets it read while the run writes), so it never changes the tournament and
//! never holds its lock.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::Router;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use serde::{Deserialize, Serialize};

mod plot;

use crate::tournament::leaderboard::rating_history;
use crate::tournament::leaderboard_of;
use crate::tournament::store::{self, GameRow, Store};

const PAGE: &str = include_str!("dashboard.html");
/// How often the event stream looks at the database for news.
const POLL: Duration = Duration::from_millis(500);
/// Games in the progress report's "last games".
const LAST_GAMES: u32 = 10;

/// `koth serve DIR [--addr ADDR]`
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The tournament folder.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Where to listen: 127.0.0.1 and a port (0: any free port).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    // A folder that holds no tournament is one error now, not a page of errors later.
    Store::open_read_only(&args.dir.join(store::FILE))?;
    let runtime = crate::game::runtime()?;
    runtime.block_on(async {
        let listener = bind(args.addr).await?;
        println!(
            "koth serve: http://{}/ shows {}",
            listener.local_addr()?,
            args.dir.display()
        );
        serve(args.dir, listener).await
    })
}

/// Starts the dashboard of `dir` on a thread of its own, beside a tournament run; returns the
/// address it listens on. It ends with the process.
pub(crate) fn spawn(dir: PathBuf, addr: SocketAddr) -> anyhow::Result<SocketAddr> {
    Store::open_read_only(&dir.join(store::FILE))?;
    let listener = std::net::TcpListener::bind(addr)
        .with_context(|| format!("cannot listen on {addr} for the dashboard"))?;
    listener.set_nonblocking(true)?;
    let local = listener.local_addr()?;
    std::thread::spawn(move || {
        let served = crate::game::runtime().and_then(|runtime| {
            runtime
                .block_on(async { serve(dir, tokio::net::TcpListener::from_std(listener)?).await })
        });
        if let Err(err) = served {
            eprintln!("koth: the dashboard stopped: {err:#}");
        }
    });
    Ok(local)
}

async fn bind(addr: SocketAddr) -> anyhow::Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))
}

async fn serve(dir: PathBuf, listener: tokio::net::TcpListener) -> anyhow::Result<()> {
    let app = Router::new()
        .route("/", get(|| async { Html(PAGE) }))
        .route("/api/progress", get(progress))
        .route("/api/leaderboard", get(leaderboard))
        .route("/api/games", get(games))
        .route("/api/events", get(events))
        .route("/games/{index}", get(replay))
        .route("/plots/ratings.svg", get(ratings_plot))
        .route("/games/{index}/points.svg", get(points_plot))
        .with_state(Arc::new(dir));
    axum::serve(listener, app)
        .await
        .context("the dashboard's server failed")
}

type Dir = State<Arc<PathBuf>>;

/// A failed request: the error's message, as plain text, with a status.
struct Failure(StatusCode, String);

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        (self.0, self.1).into_response()
    }
}

impl From<anyhow::Error> for Failure {
    fn from(err: anyhow::Error) -> Failure {
        Failure(StatusCode::INTERNAL_SERVER_ERROR, format!("{err:#}"))
    }
}

/// Runs `read` on the tournament's database, opened read-only, off the server's thread.
async fn with_store<T: Send + 'static>(
    dir: &Path,
    read: impl FnOnce(&Store, &Path) -> anyhow::Result<T> + Send + 'static,
) -> Result<T, Failure> {
    let dir = dir.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let store = Store::reopen_read_only(&dir.join(store::FILE))?;
        read(&store, &dir)
    })
    .await
    .map_err(|e| Failure(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
    .map_err(Failure::from)
}

/// Where a tournament stands, for the page's header and its live updates.
#[derive(Debug, Clone, Serialize)]
struct Progress {
    name: String,
    game: String,
    done: u32,
    total: u32,
    running: u32,
    skipped: u32,
    harness_failed: u32,
    /// Seconds left at the pace of the games played so far, as many at once as are running.
    eta_seconds: Option<f64>,
    /// The best mean so far, with its mean.
    leader: Option<(String, f64)>,
    /// The games finished last, newest first.
    last: Vec<GameRow>,
}

fn read_progress(store: &Store, dir: &Path) -> anyhow::Result<Progress> {
    let p = store.progress()?;
    let left = p.total - p.done - p.skipped - p.harness_failed;
    let eta_seconds = store
        .mean_wall_ms()?
        .filter(|_| left > 0)
        .map(|wall| wall / 1000.0 * f64::from(left) / f64::from(p.running.max(1)));
    let board = leaderboard_of(store, dir)?;
    let leader = board
        .standings
        .iter()
        .find(|s| s.games > 0)
        .map(|s| (s.name.clone(), s.mean));
    // The database keeps no finishing time; the highest indices are the games finished last,
    // near enough, since games start in index order.
    let last = store.last_done(LAST_GAMES)?;
    Ok(Progress {
        name: store.meta("name")?.unwrap_or_default(),
        game: store.meta("game")?.unwrap_or_default(),
        done: p.done,
        total: p.total,
        running: p.running,
        skipped: p.skipped,
        harness_failed: p.harness_failed,
        eta_seconds,
        leader,
        last,
    })
}

async fn progress(State(dir): Dir) -> Result<impl IntoResponse, Failure> {
    let progress = with_store(&dir, read_progress).await?;
    Ok(axum::Json(progress))
}

async fn leaderboard(State(dir): Dir) -> Result<impl IntoResponse, Failure> {
    let board = with_store(&dir, leaderboard_of).await?;
    Ok(axum::Json(board))
}

/// The games list's filters.
#[derive(Debug, Deserialize)]
struct Filter {
    /// Only games this bot plays in.
    bot: Option<String>,
    /// Only games that ended so: a state (`pending`, `running`, `done`, `skipped`,
    /// `harness_failed`) or a bot's status (`finished`, `timed_out`, `crashed`, `bad_output`,
    /// `failed_to_start`, `benched`) — the named bot's, or any bot's.
    outcome: Option<String>,
    /// At most this many games, the first by index (default 500): a page of ten thousand rows
    /// helps no one, and weighs megabytes.
    limit: Option<usize>,
}

/// Games listed at most, unless the request says otherwise.
const LIST_LIMIT: usize = 500;

/// The games list: the bots' names, how many games pass the filter, and the first of them.
#[derive(Debug, Serialize)]
struct Games {
    bots: Vec<String>,
    count: usize,
    games: Vec<GameRow>,
}

async fn games(
    State(dir): Dir,
    Query(filter): Query<Filter>,
) -> Result<impl IntoResponse, Failure> {
    // An unknown bot is the request's mistake (400), not the server's: the inner result.
    let listed = with_store(&dir, move |store, _| {
        let bots: Vec<String> = store.bots()?.into_iter().map(|b| b.name).collect();
        let bot = match &filter.bot {
            Some(name) => match bots.iter().position(|b| b == name) {
                Some(index) => Some(index),
                None => return Ok(Err(format!("no bot is called {name:?}"))),
            },
            None => None,
        };
        let mut games: Vec<GameRow> = store
            .games()?
            .into_iter()
            .filter(|g| bot.is_none_or(|b| g.seats.iter().any(|s| s.bot == b)))
            .filter(|g| match &filter.outcome {
                None => true,
                Some(outcome) => {
                    g.state == *outcome
                        || g.seats.iter().any(|s| {
                            bot.is_none_or(|b| s.bot == b)
                                && s.status.as_deref() == Some(outcome.as_str())
                        })
                }
            })
            .collect();
        let count = games.len();
        games.truncate(filter.limit.unwrap_or(LIST_LIMIT));
        Ok(Ok(Games { bots, count, games }))
    })
    .await?
    .map_err(|message| Failure(StatusCode::BAD_REQUEST, message))?;
    Ok(axum::Json(listed))
}

/// A `progress` event now, and another whenever the tournament has moved. Each poll counts the
/// games' states only (a few indexed counts); the whole report is read when they changed.
async fn events(State(dir): Dir) -> impl IntoResponse {
    let stream = futures::stream::unfold(
        (dir, None::<store::Progress>),
        |(dir, mut shown)| async move {
            loop {
                let report = with_store(&dir, move |store, dir| {
                    let counts = store.progress()?;
                    if shown == Some(counts) {
                        return Ok(None);
                    }
                    Ok(Some((counts, read_progress(store, dir)?)))
                })
                .await;
                let event = match report {
                    Ok(None) => None,
                    Ok(Some((counts, p))) => {
                        shown = Some(counts);
                        Some(Event::default().event("progress").json_data(&p))
                    }
                    Err(Failure(_, message)) => {
                        Some(Ok(Event::default().event("error").data(message)))
                    }
                };
                if let Some(event) = event {
                    return Some((event, (dir, shown)));
                }
                tokio::time::sleep(POLL).await;
            }
        },
    );
    Sse::new(stream).keep_alive(KeepAlive::default())
}

async fn ratings_plot(State(dir): Dir) -> Result<Response, Failure> {
    let svg = with_store(&dir, |store, _| {
        let names: Vec<String> = store.bots()?.into_iter().map(|b| b.name).collect();
        plot::ratings(&names, &rating_history(names.len(), &store.results()?))
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, "image/svg+xml")], svg).into_response())
}

async fn points_plot(State(dir): Dir, UrlPath(index): UrlPath<u32>) -> Result<Response, Failure> {
    let log = dir
        .join("games")
        .join(index.to_string())
        .join("graphical_log.txt");
    let svg = tokio::task::spawn_blocking(move || {
        crate::replay::graphical::read(&log).map(|game| plot::points_by_round(&game))
    })
    .await
    .map_err(|e| Failure(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
    .map_err(|e| {
        Failure(
            StatusCode::NOT_FOUND,
            format!("game {index} has no rounds to plot (a paths game has): {e:#}"),
        )
    })??;
    Ok(([(header::CONTENT_TYPE, "image/svg+xml")], svg).into_response())
}

/// `/games/{index}?board=B`: which of a rat-race game's recorded boards to show (default its
/// first); another game has no boards to choose.
#[derive(Debug, Deserialize)]
struct ReplayQuery {
    board: Option<usize>,
}

async fn replay(
    State(dir): Dir,
    UrlPath(index): UrlPath<u32>,
    Query(query): Query<ReplayQuery>,
) -> Result<Response, Failure> {
    let (folder, board) = (dir.join("games").join(index.to_string()), query.board);
    let page = tokio::task::spawn_blocking(move || crate::replay::html::page_of(&folder, board))
        .await
        .map_err(|e| Failure(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
        .map_err(|e| {
            Failure(
                StatusCode::NOT_FOUND,
                format!("game {index} has no replay to show: {e:#}"),
            )
        })?;
    Ok(([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response())
}
