//! `koth serve DIR` and `koth serve --db URL NAME`: a web dashboard of a tournament — a folder,
//! or a tournament workers share through PostgreSQL — on 127.0.0.1, live while it is played,
//! read-only. Every asset is in the binary (no CDN, works offline). On a hill's database it
//! serves the hill's pages instead ([`hill`]), the same way.
//!
//! | address | what |
//! |---|---|
//! | `/` | the dashboard page: progress, leader, leaderboard, the last games, every game |
//! | `/api/progress` | games done / total, running, skipped, the estimated time left, the leader, the last games |
//! | `/api/leaderboard` | the leaderboard, the same JSON as `koth leaderboard --format json` |
//! | `/api/games?bot=NAME&outcome=KIND` | the games, filtered by a bot and by how they ended |
//! | `/api/events` | server-sent events: `progress` whenever the tournament moves |
//! | `/games/{index}?board=B` | the game's replay page, where its game writes one (`board`: a rat-race game's recorded board); while it is played, its board followed live ([`live`]) |
//! | `/games/{index}/view?board=B&now` | the game's own viewer page alone, made from what was played so far (`now`: opened where the game stands) |
//! | `/plots/ratings.svg` | each bot's rating ± σ over its games |
//! | `/games/{index}/points.svg` | a paths game's points per bot, round by round |
//! | `/api/games/{index}/live`, `/api/live`, `/tv` | games followed while they are played ([`live`]) |
//!
//! What a request reads is kept until the games' states change (a finished game's result never
//! changes), so many open pages of a large tournament cost one read per change, not one each;
//! and one task polls the database for every live page's events, however many are open.
//!
//! The server answers only requests that name it in their `Host` (127.0.0.1, localhost, `[::1]`
//! or the address it listens on, and the names given with `--allow-host`), so a page of another
//! site whose name was rebound to 127.0.0.1 (DNS rebinding) reads nothing: it gets 421. It
//! serves at most `--max-connections` connections at once (503 beyond them), at most
//! `--max-per-client` of one client at once ([`clients`]: a direct client's connections, or a
//! trusted proxy's requests by the client it forwards, each until its response ends), and drops
//! a connection that has not sent a request's headers within [`HEADER_TIMEOUT`].
//!
//! The server checks the database once when it starts (a folder's file: its header and schema
//! before it listens, its pages on a thread behind, [`reader`]), then reads it without ever
//! changing it:
//! a folder's SQLite file is opened read-only for every request (in WAL mode it can be read
//! while the run writes), and never locked; a PostgreSQL tournament is read on one connection
//! whose transactions are read-only, opened again after a failure. A shared tournament's game
//! files live in its database: the server copies a game's into a temporary folder the first
//! time a page needs them and keeps them, since a finished game's files never change.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::Router;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{StatusCode, header};
use axum::middleware;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use serde::{Deserialize, Serialize};
use tokio::io::AsyncWriteExt;
use tokio::sync::{Semaphore, watch};

mod clients;
mod contest_page;
pub mod follow;
pub(crate) mod hill;
mod hill_page;
mod hosts;
mod live;
mod live_pages;
mod plot;
mod reader;
mod stalled;
mod submissions;

pub use koth_game::cli::{Guard, MAX_CONNECTIONS};

use clients::{Clients, Peer, cap_forwarded};
use hosts::{Hosts, check_host};
use koth_tournament::cli::Target;
use koth_tournament::leaderboard::rating_history;
use koth_tournament::store::{GameRow, GameState, Store};
use koth_tournament::{Watched, leaderboard_from};
pub(crate) use reader::{Failure, Reader, Stamp, Watching, blocking, memoized, stamp, with_store};

const PAGE: &str = include_str!("dashboard.html");
/// The pages' icon ([`favicon`]).
const FAVICON: &str = include_str!("favicon.svg");
/// How often the event stream looks at the database for news.
const POLL: Duration = Duration::from_millis(500);
/// Games in the progress report's "last games".
const LAST_GAMES: u32 = 10;
/// How long a connection may take to send a request's headers (and an idle connection may wait
/// for its next request) before it is dropped: a client that sends half a request holds
/// nothing for long.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);
/// `koth serve [--db URL] DIR|NAME [--serve ADDR] [--allow-host HOST]… [--max-connections N]`
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: Target,
    /// Where to listen: 127.0.0.1 and a port (0: any free port), as `tournament run --serve`
    /// and `hill run --serve` take it.
    #[arg(
        long = "serve",
        visible_alias = "addr",
        value_name = "ADDR",
        default_value = "127.0.0.1:8080"
    )]
    pub addr: SocketAddr,
    #[command(flatten)]
    pub guard: Guard,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let watched = match &args.target.db {
        Some(url) => Watched::Shared {
            url: url.clone(),
            name: args.target.target.to_string_lossy().into_owned(),
        },
        None => Watched::Folder(args.target.target.clone()),
    };
    // A tournament that cannot be read is one error now, not a page of errors later.
    let reader = Reader::open(watched)?;
    hill::warm(&reader);
    let runtime = koth_game::runtime()?;
    runtime.block_on(async {
        let listener = bind(args.addr).await?;
        println!(
            "koth serve: http://{}/ shows {}",
            listener.local_addr()?,
            reader.describe()
        );
        serve(reader, listener, args.guard, door_route(false)).await
    })
}

/// Starts the dashboard of `watched` on a thread of its own, beside a tournament run; returns
/// the address it listens on, answering its clients as `guard` says. It ends with the process.
pub fn spawn(watched: Watched, addr: SocketAddr, guard: Guard) -> anyhow::Result<SocketAddr> {
    spawn_with(watched, addr, guard, door_route(false))
}

/// `/api/door`: whether this server takes bots from their authors (`{"open": true}` beside
/// `hill run`), which a hill's pages ask before linking the door, rather than asking for the
/// door's page itself and logging a failed request where there is none.
fn door_route(open: bool) -> Router {
    Router::new().route(
        "/api/door",
        get(move || async move { axum::Json(serde_json::json!({ "open": open })) }),
    )
}

/// Starts the server of a hill beside `hill run`: its pages and the door for its authors'
/// submissions ([`submissions`]), received into `dir`, this machine's folder for the hill.
pub fn spawn_hill(
    watched: Watched,
    dir: PathBuf,
    addr: SocketAddr,
    guard: Guard,
) -> anyhow::Result<SocketAddr> {
    let hill = match &watched {
        Watched::Folder(folder) => koth_hill::Hill::open(folder)?,
        Watched::Shared { url, name } => koth_hill::Hill::open_shared(url, name, Some(dir))?,
    };
    let door = submissions::router(hill).merge(door_route(true));
    spawn_with(watched, addr, guard, door)
}

/// Starts the dashboard of `watched`, with the routes of `more`, on a thread of its own.
fn spawn_with(
    watched: Watched,
    addr: SocketAddr,
    guard: Guard,
    more: Router,
) -> anyhow::Result<SocketAddr> {
    let reader = Reader::open(watched)?;
    hill::warm(&reader);
    let listener = std::net::TcpListener::bind(addr)
        .with_context(|| format!("cannot listen on {addr} for the dashboard"))?;
    listener.set_nonblocking(true)?;
    let local = listener.local_addr()?;
    std::thread::spawn(move || {
        let served = koth_game::runtime().and_then(|runtime| {
            runtime.block_on(async {
                let listener = tokio::net::TcpListener::from_std(listener)?;
                serve(reader, listener, guard, more).await
            })
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

/// Serves what `reader` reads, a hill's pages ([`hill::site`]) or a tournament's dashboard,
/// with the routes of `more` beside them.
async fn serve(
    reader: Reader,
    listener: tokio::net::TcpListener,
    guard: Guard,
    more: Router,
) -> anyhow::Result<()> {
    let reader = Arc::new(reader);
    let mut site = match reader.hill {
        true => hill::site(reader),
        false => dashboard(reader),
    };
    site.routes = site.routes.merge(more);
    serve_site(site, listener, guard).await
}

/// What a server serves: its routes, and the one task that polls the database for the news of
/// its live pages (the server stops if that task fails). Routes merged into `routes` are served
/// the same way (the same host check, connection cap and timeouts).
pub(crate) struct Site {
    pub routes: Router,
    pub poller: tokio::task::JoinHandle<()>,
}

/// A tournament's dashboard; its poll of the database starts on the current runtime.
fn dashboard(reader: Arc<Reader>) -> Site {
    let (news, _) = watch::channel(None);
    let poller = tokio::spawn(poll_news(
        Arc::clone(&reader),
        news.clone(),
        "progress",
        read_progress,
        serde_json::to_string,
    ));
    let routes = Router::new()
        .route("/", get(|| async { Html(PAGE) }))
        .route("/api/progress", get(progress))
        .route("/api/leaderboard", get(leaderboard))
        .route("/api/games", get(games))
        .route(
            "/api/events",
            get(move || events(news.subscribe(), "progress")),
        )
        .route("/games/{index}", get(replay))
        .route("/games/{index}/view", get(view))
        .route("/api/games/{index}/live", get(live::stream))
        .route("/api/live", get(live_pages::in_progress))
        .route("/tv", get(live_pages::tv))
        .route("/live.js", get(live_pages::script))
        .route("/live.css", get(live_pages::style))
        .route("/plots/ratings.svg", get(ratings_plot))
        .route("/games/{index}/points.svg", get(points_plot))
        .with_state(reader);
    Site { routes, poller }
}

/// Serves `site` on `listener`: only requests naming this server in their `Host` (else 421), at
/// most `guard.max_connections` connections at once (503 beyond), each sending its headers
/// within [`HEADER_TIMEOUT`]; until the site's poller fails.
async fn serve_site(
    site: Site,
    listener: tokio::net::TcpListener,
    guard: Guard,
) -> anyhow::Result<()> {
    let local = listener.local_addr()?;
    let hosts = Arc::new(Hosts::new(local, &guard.allow_hosts));
    let Site { routes, poller } = site;
    let clients = Arc::new(Clients::new(&guard));
    let app = routes
        .route("/favicon.svg", get(favicon))
        .route("/favicon.ico", get(favicon))
        .layer(middleware::from_fn_with_state(
            Arc::clone(&clients),
            cap_forwarded,
        ))
        .layer(middleware::from_fn_with_state(hosts, check_host));
    let connections = Arc::new(Semaphore::new(guard.max_connections as usize));
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(err) => {
                // Out of descriptors, or a connection reset before it was accepted: try again
                // in a moment rather than spin or stop serving.
                tracing::warn!("the dashboard cannot accept a connection: {err}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Some(client) = clients.enter(peer.ip()) else {
            tokio::spawn(refuse(stream));
            continue;
        };
        let Ok(permit) = Arc::clone(&connections).try_acquire_owned() else {
            tokio::spawn(refuse(stream));
            continue;
        };
        let app = app.clone();
        let service = TowerToHyperService::new(tower::service_fn(
            move |request: hyper::Request<hyper::body::Incoming>| {
                let mut request = request.map(axum::body::Body::new);
                request.extensions_mut().insert(Peer(peer.ip()));
                tower::ServiceExt::oneshot(app.clone(), request)
            },
        ));
        tokio::spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(TokioIo::new(stalled::Stalled::new(stream)), service);
            // A client that went away, or was too slow, is no error of the server's.
            let _ = connection.await;
            drop((permit, client));
        });
        if poller.is_finished() {
            break;
        }
    }
    poller
        .await
        .context("the dashboard's event poller failed")?;
    anyhow::bail!("the dashboard's event poller stopped")
}

/// The pages' icon: a crown. Every page of every site links it (`/favicon.svg`); it is
/// served at `/favicon.ico` too, which a browser asks for on a page that links none (a game's
/// replay page), so that no page logs a failed request for it.
async fn favicon() -> Response {
    (
        [
            (header::CONTENT_TYPE, "image/svg+xml"),
            (header::CACHE_CONTROL, "max-age=86400"),
        ],
        FAVICON,
    )
        .into_response()
}

/// Answers a connection past the cap 503 and closes it.
async fn refuse(mut stream: tokio::net::TcpStream) {
    const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\n\
                          content-length: 26\r\nconnection: close\r\n\r\ntoo many open connections\n";
    let refused = async {
        stream.write_all(BUSY).await?;
        stream.shutdown().await
    };
    let _ = tokio::time::timeout(HEADER_TIMEOUT, refused).await;
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
    let board = leaderboard_from(store, dir)?;
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

async fn progress(State(reader): Watching) -> Result<Response, Failure> {
    let progress = memoized(&reader, "progress", read_progress).await?;
    Ok(axum::Json(&*progress).into_response())
}

async fn leaderboard(State(reader): Watching) -> Result<Response, Failure> {
    let board = memoized(&reader, "leaderboard", leaderboard_from).await?;
    Ok(axum::Json(&*board).into_response())
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
struct Games<'a> {
    bots: &'a [String],
    count: usize,
    games: Vec<&'a GameRow>,
}

async fn games(State(reader): Watching, Query(filter): Query<Filter>) -> Result<Response, Failure> {
    let all = memoized(&reader, "games", |store, _| {
        let bots: Vec<String> = store.bots()?.into_iter().map(|b| b.name).collect();
        Ok((bots, store.games()?))
    })
    .await?;
    let (bots, games) = &*all;
    // An unknown bot is the request's mistake (400), not the server's.
    let bot = match &filter.bot {
        Some(name) => match bots.iter().position(|b| b == name) {
            Some(index) => Some(index),
            None => {
                return Err(Failure(
                    StatusCode::BAD_REQUEST,
                    format!("no bot is called {name:?}"),
                ));
            }
        },
        None => None,
    };
    let passing = games
        .iter()
        .filter(|g| bot.is_none_or(|b| g.seats.iter().any(|s| s.bot == b)))
        .filter(|g| match &filter.outcome {
            None => true,
            Some(outcome) => {
                g.state.as_str() == outcome
                    || g.seats.iter().any(|s| {
                        bot.is_none_or(|b| s.bot == b)
                            && s.status.as_deref() == Some(outcome.as_str())
                    })
            }
        });
    let count = passing.clone().count();
    let listed = Games {
        bots,
        count,
        games: passing.take(filter.limit.unwrap_or(LIST_LIMIT)).collect(),
    };
    Ok(axum::Json(listed).into_response())
}

/// What the live pages are told: the news as JSON (serialised once for every page), or why
/// the database could not be read.
#[derive(Clone)]
enum News {
    Fresh(Arc<String>),
    Failed(String),
}

/// The one poll of the database for every live page: while any page listens, reads the
/// [`Stamp`] every [`POLL`] (a few indexed counts), reads `what` with `read` when it changed,
/// and tells every page at once what `tell` makes of it. With no page listening it reads
/// nothing.
async fn poll_news<T: Send + Sync + 'static>(
    reader: Arc<Reader>,
    news: watch::Sender<Option<News>>,
    what: &'static str,
    read: fn(&Store, &Path) -> anyhow::Result<T>,
    tell: fn(&T) -> serde_json::Result<String>,
) {
    let mut shown = None::<Stamp>;
    let hill = reader.hill;
    loop {
        if news.is_closed() {
            // The next page to listen is told where things stand.
            shown = None;
        } else {
            let latest = match with_store(&reader, move |store, _| stamp(store, hill)).await {
                Ok(now) if shown.as_ref() == Some(&now) => None,
                Ok(now) => match memoized(&reader, what, read).await {
                    Ok(value) => match tell(&value) {
                        Ok(json) => {
                            shown = Some(now);
                            Some(News::Fresh(Arc::new(json)))
                        }
                        Err(err) => Some(News::Failed(err.to_string())),
                    },
                    Err(Failure(_, message)) => Some(News::Failed(message)),
                },
                Err(Failure(_, message)) => Some(News::Failed(message)),
            };
            if let Some(latest) = latest {
                news.send_replace(Some(latest));
            }
        }
        tokio::time::sleep(POLL).await;
    }
}

/// A `name` event now (once the poll has read one), and another whenever the tournament has
/// moved, from the one poll every page shares ([`poll_news`]).
async fn events(news: watch::Receiver<Option<News>>, name: &'static str) -> impl IntoResponse {
    let stream = futures::stream::unfold((news, true), move |(mut news, first)| async move {
        if !first {
            news.changed().await.ok()?;
        }
        loop {
            let latest = news.borrow_and_update().clone();
            if let Some(latest) = latest {
                let event = match latest {
                    News::Fresh(json) => Event::default().event(name).data(json.as_str()),
                    News::Failed(message) => Event::default().event("error").data(message),
                };
                return Some((Ok::<_, std::convert::Infallible>(event), (news, false)));
            }
            news.changed().await.ok()?;
        }
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

async fn ratings_plot(State(reader): Watching) -> Result<Response, Failure> {
    let svg = memoized(&reader, "ratings", |store, _| {
        let names: Vec<String> = store.bots()?.into_iter().map(|b| b.name).collect();
        plot::ratings(&names, &rating_history(names.len(), &store.results()?))
    })
    .await?;
    Ok((
        [(header::CONTENT_TYPE, "image/svg+xml")],
        String::clone(&svg),
    )
        .into_response())
}

/// The folder holding game `index`'s files (empty, or missing, until the game is done).
async fn game_folder(reader: &Arc<Reader>, index: u32) -> Result<PathBuf, Failure> {
    with_store(reader, move |store, dir| {
        store.game_folder(dir, index, None)
    })
    .await
}

async fn points_plot(
    State(reader): Watching,
    UrlPath(index): UrlPath<u32>,
) -> Result<Response, Failure> {
    let folder = game_folder(&reader, index).await?;
    let svg = blocking(move || {
        let (game, folder) = koth_replay::game_of(&folder)?;
        let points = game
            .round_points(&folder)
            .ok_or_else(|| anyhow::anyhow!("a game of {} scores no rounds", game.name()))??;
        Ok::<_, anyhow::Error>(plot::points_by_round(&points))
    })
    .await?
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
    State(reader): Watching,
    UrlPath(index): UrlPath<u32>,
    Query(query): Query<ReplayQuery>,
) -> Result<Response, Failure> {
    let (state, game) = with_store(&reader, move |store, _| {
        Ok((store.game_state(index)?, store.meta("game")?))
    })
    .await?;
    let home = if reader.hill {
        "the hill"
    } else {
        "the tournament"
    };
    if state == Some(GameState::Running) {
        // Its board, made again as the game goes, under the panel that follows it.
        let page = live_pages::page(index, home, game.as_deref().unwrap_or_default());
        return Ok(([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response());
    }
    let page = match (viewer_page(&reader, index, query.board).await?, state) {
        (Ok(page), _) => page,
        // Not begun: its files come when it is played.
        (Err(_), Some(GameState::Pending)) => {
            return Err(Failure(
                StatusCode::NOT_FOUND,
                format!(
                    "game {index} has not started yet: its replay shows here once it is played"
                ),
            ));
        }
        (Err(e), _) => {
            return Err(Failure(
                StatusCode::NOT_FOUND,
                format!("game {index} has no replay to show: {e:#}"),
            ));
        }
    };
    // Where a hill keeps its bots' logs for their authors, an author reads theirs here.
    let page = match reader.stderr_private {
        true => {
            let seated = with_store(&reader, move |store, _| {
                koth_hill::logs::seated(store, index)
            })
            .await?;
            hill::with_author_logs(&page, index, &seated)
        }
        false => page,
    };
    let page = with_way_back(&page, index, home);
    Ok(([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response())
}

/// Game `index`'s own viewer page made from its folder as it stands (what everyone may read
/// of it, where a hill's logs are its authors'), or why it cannot be.
async fn viewer_page(
    reader: &Arc<Reader>,
    index: u32,
    board: Option<usize>,
) -> Result<anyhow::Result<String>, Failure> {
    let (folder, name) = with_store(reader, move |store, dir| {
        Ok((
            store.game_folder(dir, index, None)?,
            store.meta("game")?.unwrap_or_default(),
        ))
    })
    .await?;
    let private = reader.stderr_private;
    blocking(move || {
        let public;
        let folder = match private {
            true => {
                public = koth_hill::logs::public_copy(&folder)?;
                public.path()
            }
            false => folder.as_path(),
        };
        match folder.join(koth_game::RESULTS_FILE).exists() {
            true => koth_replay::page_of(folder, board),
            // Played so far: no results.json names its game yet.
            false => koth_replay::page_of(folder, board)
                .or_else(|_| koth_replay::page_in_progress(&name, folder, board)),
        }
    })
    .await
}

/// `/games/{index}/view`: the game's own viewer page alone, made from what was played so far
/// (`?now`: opened where the game stands), which the page of a game in progress shows and
/// makes again as its records arrive ([`live_pages::page`]); a word in its place while its viewer
/// cannot be made yet.
pub(crate) async fn view(
    State(reader): Watching,
    UrlPath(index): UrlPath<u32>,
    Query(query): Query<ReplayQuery>,
) -> Result<Response, Failure> {
    let page = viewer_page(&reader, index, query.board)
        .await?
        .unwrap_or_else(|e| live_pages::no_view_yet(&format!("{e:#}")));
    Ok(([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response())
}

/// A served replay `page` (a viewer's own page, which `koth replay --html` writes alone) with
/// a line at its top: the way back to the site's front page, `home`, and the game's number.
fn with_way_back(page: &str, index: u32, home: &str) -> String {
    let nav = format!(
        "<nav id=\"way-back\" style=\"font: 14px sans-serif; margin: 0 0 8px\">\
         <a href=\"/\">← {home}</a> · game <b id=\"game-number\">{index}</b></nav>"
    );
    match page.find("<body>") {
        Some(at) => {
            let at = at + "<body>".len();
            format!("{}\n{nav}{}", &page[..at], &page[at..])
        }
        None => format!("{nav}{page}"),
    }
}
