//! A hill's pages: what `koth serve DIR` and `koth hill run DIR --serve` show of a hill, read
//! through the hill's own read functions ([`koth_hill::board`], [`koth_hill::records`]),
//! served as the dashboard is (the same host check, connection cap, timeouts and memo, the
//! same one poll for every live page), read-only.
//!
//! | address | what |
//! |---|---|
//! | `/` | the hill: its king and since when, the leaderboard, the last games with why each was chosen, the kings' history; live |
//! | `/bots/{name}` | a bot's page: its versions, its rating over time, its results against each opponent, its faults |
//! | `/api/hill` | the leaderboard (`koth leaderboard --format json`'s), the last games, and the languages offered (`languages`: each `name`, its `aliases`, `path`, `version`) |
//! | `/api/hill/bots/{name}` | a bot's record, as its page shows it; 404 for a name the hill has not |
//! | `/contest` | a contest's page: its phase and close, the frozen field, the published final (docs/contest.md) |
//! | `/api/contest`, `/api/contest/manifest` | the contest as its page shows it; the manifest's exact bytes, 404 before the close |
//! | `/api/events` | server-sent events: `hill` (the games rated, the king) whenever the hill moves |
//! | `/bots/{name}/ratings.svg` | the bot's figure of the table (points per game, or an Elo-scale rating) with its 95% interval over the hill's games, a line per version |
//! | `/games/{index}` | the game's replay page, as the dashboard's; where the hill's logs are its authors', with a form for an author's own |
//! | `/games/{index}/view` | the game's own viewer page alone, as the dashboard's |
//! | `/api/hill/bots/{name}/games/{index}/logs` | the bot's stderr, transcript and faults in full in that game, for its author (`Authorization: Bearer TOKEN`): `401` without a token the hill knows, `403` for another's bot |
//! | `/api/hill/bots/{name}/logs` | the same of its latest game, with its last games listed |
//! | `/api/hill/bots/{name}/data` | a learning bot's data now, a `.tar.gz` (its digest in `x-koth-data-digest`), for its author alone: `401` / `403` as its logs |
//!
//! [`site`] gives the routes with their poller; more routes (a hill's submission door) are
//! merged into its `routes` before it is served, and the page links `/submit` in its
//! `#actions` when the server has it.
//!
//! `/` and `/bots/{name}` come drawn by the server ([`hill_page`]: the king, the tables, the
//! last games), so they read without script; their script keeps them live. Every name and text
//! from a bot is escaped where the server writes it, and sent as JSON and written into the page
//! as text (the pages' `text()`) by the script, never as HTML.

use std::path::Path;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use serde::Serialize;
use tokio::sync::watch;

use super::hill_page::HillView;
use super::{
    Failure, Reader, Site, Watching, contest_page, events, hill_page, memoized, plot, poll_news,
    with_store,
};
use koth_hill::board;
pub use koth_hill::logs;
use koth_hill::records;
use koth_tournament::store::Store;

const PAGE: &str = include_str!("hill.html");
const CONTEST_PAGE: &str = include_str!("contest.html");
const BOT_PAGE: &str = include_str!("hill_bot.html");
/// What both pages share: the look, the escaping, the tables.
const SHARED: &str = include_str!("hill.js");
const STYLE: &str = include_str!("hill.css");
/// An author's logs of a game, fetched and written into a page: the bot's page and a replay's.
const LOGS_SCRIPT: &str = include_str!("hill_logs.js");
/// What a hill's replay page adds for an author to read their bot's logs of that game.
const REPLAY_LOGS: &str = include_str!("hill_replay_logs.html");
/// Games listed as the last games.
const LAST_GAMES: u32 = 20;

/// A hill's pages and their APIs over `reader`, a hill's database; the poll of its live pages
/// starts on the current runtime.
pub(crate) fn site(reader: Arc<Reader>) -> Site {
    let (news, _) = watch::channel(None);
    let poller = tokio::spawn(poll_news(
        Arc::clone(&reader),
        news.clone(),
        "hill",
        read_hill,
        |view| serde_json::to_string(&HillNews::of(view)),
    ));
    let routes = Router::new()
        .route("/", get(front_page))
        .route("/bots/{name}", get(bot_page))
        .route(
            "/hill.js",
            get(|| async { asset("text/javascript", SHARED) }),
        )
        .route("/hill.css", get(|| async { asset("text/css", STYLE) }))
        .route(
            "/hill-logs.js",
            get(|| async { asset("text/javascript", LOGS_SCRIPT) }),
        )
        .route("/api/hill/bots/{name}/logs", get(latest_logs))
        .route("/api/hill/bots/{name}/games/{index}/logs", get(game_logs))
        .route("/api/hill/bots/{name}/data", get(author_data))
        .route("/api/hill", get(hill))
        .route("/contest", get(contest_page))
        .route("/api/contest", get(contest))
        .route("/api/contest/manifest", get(manifest))
        .route("/api/hill/bots/{name}", get(bot))
        .route("/api/events", get(move || events(news.subscribe(), "hill")))
        .route("/bots/{name}/ratings.svg", get(ratings_plot))
        .route("/games/{index}", get(super::replay))
        .route("/games/{index}/view", get(super::view))
        .route("/api/games/{index}/live", get(super::live::stream))
        .route("/api/live", get(super::live_pages::in_progress))
        .route("/tv", get(super::live_pages::tv))
        .route("/live.js", get(super::live_pages::script))
        .route("/live.css", get(super::live_pages::style))
        .with_state(reader);
    Site { routes, poller }
}

fn asset(kind: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

/// Reads a hill into `reader`'s memo before the server listens. A hill's first read asks each
/// offered language's program for its version (a JVM takes a second or more to say it, asked
/// once per process), which the first page or `/api/hill` after a start waited for: 1.7–2.4 s
/// with 10,000 versions (docs/benchmarks.md). A hill that cannot be read is left for the first
/// request to say so.
pub(crate) fn warm(reader: &Reader) {
    if reader.hill {
        let _ = reader.memoized("hill", read_hill);
    }
}

fn read_hill(store: &Store, dir: &Path) -> anyhow::Result<HillView> {
    let mut board = board::read(store)?;
    if koth_hill::logs_are_private(store, dir)? {
        board.in_public();
    }
    Ok(HillView {
        board,
        last: records::recent_games(store, LAST_GAMES)?,
        languages: koth_hill::languages_of(store, dir)?,
        // The phase and the close; the result, with every final game, is `/api/contest`'s.
        contest: koth_hill::contest::view(store, dir)?.map(|contest| koth_hill::contest::View {
            result: None,
            ..contest
        }),
    })
}

/// What a live page is told when the hill moves: enough to see that it did; the page reads
/// the rest from `/api/hill`.
#[derive(Debug, Serialize)]
struct HillNews<'a> {
    games_done: u32,
    king: Option<&'a str>,
}

impl HillNews<'_> {
    fn of(view: &HillView) -> HillNews<'_> {
        HillNews {
            games_done: view.board.games_done,
            king: view.board.king.as_deref(),
        }
    }
}

/// The front page, the hill drawn in it; where the hill cannot be read, the page says why.
async fn front_page(State(reader): Watching) -> Html<String> {
    Html(match memoized(&reader, "hill", read_hill).await {
        Ok(view) => hill_page::front(PAGE, Ok(&view)),
        Err(Failure(_, why)) => hill_page::front(PAGE, Err(&why)),
    })
}

/// A bot's page, its record drawn in it; 404 for a name the hill has not.
async fn bot_page(State(reader): Watching, UrlPath(name): UrlPath<String>) -> Response {
    match record(&reader, &name).await {
        Ok(Some(record)) => Html(hill_page::bot(BOT_PAGE, &name, Ok(&record))).into_response(),
        Ok(None) => {
            let Failure(status, why) = no_bot(&name);
            (status, Html(hill_page::bot(BOT_PAGE, &name, Err(&why)))).into_response()
        }
        Err(Failure(status, why)) => {
            (status, Html(hill_page::bot(BOT_PAGE, &name, Err(&why)))).into_response()
        }
    }
}

async fn hill(State(reader): Watching) -> Result<Response, Failure> {
    let view = memoized(&reader, "hill", read_hill).await?;
    Ok(axum::Json(&*view).into_response())
}

/// The contest of the hill and its manifest, or 404 for a hill without one.
async fn read_contest(
    reader: &Arc<Reader>,
) -> Result<(koth_hill::contest::View, Option<String>), Failure> {
    with_store(reader, |store, dir| {
        let view = koth_hill::contest::view(store, dir)?;
        let manifest = koth_hill::contest::manifest_text(store)?;
        Ok(view.map(|view| (view, manifest)))
    })
    .await?
    .ok_or_else(|| {
        Failure(
            StatusCode::NOT_FOUND,
            "this hill has no contest (its hill file has no [contest] table)".into(),
        )
    })
}

/// The contest's page: its phase, the frozen field, and the published final.
async fn contest_page(State(reader): Watching) -> Response {
    match read_contest(&reader).await {
        Ok((view, manifest)) => {
            let manifest = manifest.and_then(|text| serde_json::from_str(&text).ok());
            Html(contest_page::contest(
                CONTEST_PAGE,
                Ok((&view, manifest.as_ref())),
            ))
            .into_response()
        }
        Err(Failure(status, why)) => {
            (status, Html(contest_page::contest(CONTEST_PAGE, Err(&why)))).into_response()
        }
    }
}

/// `GET /api/contest`: the contest as its page shows it, with the published result.
async fn contest(State(reader): Watching) -> Result<Response, Failure> {
    let (view, _) = read_contest(&reader).await?;
    Ok(axum::Json(view).into_response())
}

/// `GET /api/contest/manifest`: the manifest's exact bytes (their SHA-256 is the one
/// published); 404 before the close.
async fn manifest(State(reader): Watching) -> Result<Response, Failure> {
    match read_contest(&reader).await? {
        (_, Some(text)) => Ok(([(header::CONTENT_TYPE, "application/json")], text).into_response()),
        (_, None) => Err(Failure(
            StatusCode::NOT_FOUND,
            "the contest has not closed: its manifest is written at the close".into(),
        )),
    }
}

/// A name the hill has no bot of: the request's mistake.
fn no_bot(name: &str) -> Failure {
    Failure(
        StatusCode::NOT_FOUND,
        format!(
            "the hill has no bot called {:?}",
            koth_base::text::shown(name)
        ),
    )
}

/// The record of the bot called `name`, as everyone may read it.
async fn record(reader: &Arc<Reader>, name: &str) -> Result<Option<records::BotRecord>, Failure> {
    let (asked, private) = (name.to_string(), reader.stderr_private);
    with_store(reader, move |store, _| {
        let mut record = records::bot(store, &asked)?;
        if let Some(record) = record.as_mut().filter(|_| private) {
            record.in_public();
        }
        Ok(record)
    })
    .await
}

async fn bot(State(reader): Watching, UrlPath(name): UrlPath<String>) -> Result<Response, Failure> {
    match record(&reader, &name).await? {
        Some(record) => Ok(axum::Json(record).into_response()),
        None => Err(no_bot(&name)),
    }
}

async fn ratings_plot(
    State(reader): Watching,
    UrlPath(name): UrlPath<String>,
) -> Result<Response, Failure> {
    let asked = name.clone();
    let svg = with_store(&reader, move |store, _| {
        let figure = koth_ranking::column(board::ranking_of(store)?);
        records::rating_history(store, &asked)?
            .map(|lines| plot::hill_ratings(&lines, figure))
            .transpose()
    })
    .await?
    .ok_or_else(|| no_bot(&name))?;
    Ok(([(header::CONTENT_TYPE, "image/svg+xml")], svg).into_response())
}

/// `/api/hill/bots/{name}/logs`: the bot's latest game's logs, for its author.
async fn latest_logs(
    State(reader): Watching,
    UrlPath(name): UrlPath<String>,
    headers: HeaderMap,
) -> Result<Response, Failure> {
    author_logs(&reader, name, None, &headers).await
}

/// `/api/hill/bots/{name}/games/{index}/logs`: the bot's logs of a game, for its author.
async fn game_logs(
    State(reader): Watching,
    UrlPath((name, index)): UrlPath<(String, u32)>,
    headers: HeaderMap,
) -> Result<Response, Failure> {
    author_logs(&reader, name, Some(index), &headers).await
}

async fn author_logs(
    reader: &Arc<Reader>,
    name: String,
    game: Option<u32>,
    headers: &HeaderMap,
) -> Result<Response, Failure> {
    let token = super::submissions::bearer(headers);
    let read = with_store(reader, move |store, dir| {
        logs::read(store, dir, &name, game, token.as_deref())
    })
    .await?;
    match read {
        // An author's own: no cache keeps it.
        Ok(logs) => Ok(([(header::CACHE_CONTROL, "no-store")], axum::Json(logs)).into_response()),
        Err(denied) => Ok(super::submissions::refusal(denied)),
    }
}

/// `/api/hill/bots/{name}/data`: a learning bot's data now, a `.tar.gz`, for its author (`401`
/// without a token the hill knows, `403` for another's bot), its digest in a header.
async fn author_data(
    State(reader): Watching,
    UrlPath(name): UrlPath<String>,
    headers: HeaderMap,
) -> Result<Response, Failure> {
    let token = super::submissions::bearer(&headers);
    let read = with_store(&reader, move |store, _| {
        koth_hill::data::read(store, &name, token.as_deref())
    })
    .await?;
    match read {
        Ok((digest, tgz)) => Ok((
            [
                (header::CACHE_CONTROL, "no-store".to_string()),
                (header::CONTENT_TYPE, "application/gzip".to_string()),
                (
                    header::HeaderName::from_static(koth_hill::data::DIGEST_HEADER),
                    digest,
                ),
            ],
            tgz,
        )
            .into_response()),
        Err(denied) => Ok(super::submissions::refusal(denied)),
    }
}

/// A hill's replay page of game `index` with a form for an author to read their bot's logs of
/// it (`seated` names the game's bots), before its end.
pub(super) fn with_author_logs(page: &str, index: u32, seated: &[String]) -> String {
    let part = REPLAY_LOGS.replace("{{game}}", &index.to_string()).replace(
        "{{seated}}",
        &koth_replay::kit::script_json(&serde_json::json!(seated)),
    );
    match page.rfind("</body>") {
        Some(end) => format!("{}{part}{}", &page[..end], &page[end..]),
        None => format!("{page}{part}"),
    }
}
