//! Games followed while they are played: a game's records as Server-Sent Events; the games in
//! progress and the pages that follow them are [`super::live_pages`]'s.
//!
//! | address | what |
//! |---|---|
//! | `/api/games/{index}/live` | the game's records, one event each (`id:` its number from 1, `event:` its `kind`, `data:` its line of `replay.jsonl`), then `end` with the result; resumed after `Last-Event-ID` or `?from=ID` |
//! | `/api/live` | the games in progress: number, game, seats (name, rating), watchers, the stream |
//! | `/tv` | follows the game in progress whose seats are rated highest, then the next |
//!
//! A game's records are read from its `replay.jsonl` as it is written ([`koth_bot::record`]
//! writes one for every game that writes none of its own) by one task per game followed,
//! however many watch it: each record is encoded as an event once, kept for the whole game
//! (a watcher resumes from any id, not from a window), and shared by all its watchers, who
//! are told of new ones through a [`watch`] channel. A game never waits for a watcher: the
//! task reads a file the game writes anyway. A watcher reads at its own pace from the shared
//! records, so a slow one costs no memory and nothing is buffered for it; one that takes
//! nothing for [`super::stalled::STALLED_WRITE`] is dropped (it resumes by id). No record
//! leaves before it is
//! `live_delay_s` old (the tournament's or hill's setting): the delay is the server's, for
//! every client.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock, Weak};
use std::time::{Duration, Instant};

use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde::Deserialize;
use tokio::sync::{Notify, watch};

use super::{Failure, Reader, Watching, with_store};
use koth_bot::record::{Follower, RECORD_FILE};
use koth_tournament::store::{self, GameState, Store};

/// How often a followed game's file is looked at for new records.
const TAIL: Duration = Duration::from_millis(100);
/// How often, at most, a followed game's state is read, to know it ended.
const STATE_EVERY: Duration = Duration::from_millis(500);
/// How often a worker's game's rows and state are read without being told of new ones: the
/// safety net for a notice lost with the listening connection.
const UNTOLD: Duration = Duration::from_secs(5);
/// How long the listener for workers' notices waits at a time before it looks whether the
/// server still follows games, and how long after a lost connection it connects again.
const HEAR: Duration = Duration::from_secs(1);
/// A comment sent to an idle stream, so that proxies keep it and a gone client is noticed.
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// How long a followed game's records are kept after its last watcher left.
const KEEP: Duration = Duration::from_secs(60);

/// Every game followed now, by its number.
pub(crate) struct Live {
    feeds: Mutex<HashMap<u32, Arc<Feed>>>,
    /// The kind of game the server's store holds (`paths`…), once a stream has read it.
    game: std::sync::OnceLock<String>,
}

impl Live {
    pub(crate) fn new() -> Live {
        Live {
            feeds: Mutex::default(),
            game: std::sync::OnceLock::new(),
        }
    }

    /// A new watcher of game `index` from after record `after`, its feed begun (its task
    /// started) if nobody follows the game yet.
    fn watch(self: &Arc<Live>, reader: &Arc<Reader>, index: u32, after: usize) -> Watcher {
        let mut feeds = self.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        let feed = match feeds.get(&index) {
            Some(feed) => Arc::clone(feed),
            None => {
                let (published, _) = watch::channel(0);
                let feed = Arc::new(Feed {
                    log: RwLock::default(),
                    published,
                    watchers: AtomicUsize::new(0),
                    told: Notify::new(),
                });
                feeds.insert(index, Arc::clone(&feed));
                tokio::spawn(follow(
                    Arc::clone(self),
                    Arc::clone(reader),
                    index,
                    Arc::clone(&feed),
                ));
                feed
            }
        };
        // Counted under the lock that [`Live::idle`] takes: a feed is never dropped as idle
        // while a watcher joins it.
        feed.watchers.fetch_add(1, Ordering::Relaxed);
        Watcher {
            published: feed.published.subscribe(),
            feed,
            next: after,
            done: false,
        }
    }

    /// Listens, on a thread of its own, for the notices workers send with the rows of their
    /// games in progress on `channel` of the database at `url`, and tells each followed game's
    /// task of its own: a worker's record reaches its watchers as soon as its row is
    /// committed, and a game's rows are read only when some came. Stops when the server
    /// no longer holds `self`.
    pub(crate) fn hear(self: &Arc<Live>, url: String, channel: String) -> anyhow::Result<()> {
        let live = Arc::downgrade(self);
        std::thread::Builder::new()
            .name("live notices".into())
            .spawn(move || hear(&live, &url, &channel))?;
        Ok(())
    }

    /// Tells game `index`'s task, if it is followed, that it has new rows.
    fn told(&self, index: u32) {
        let feeds = self.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(feed) = feeds.get(&index) {
            feed.told.notify_one();
        }
    }

    /// Tells every followed game's task to read its rows: notices may have been lost.
    fn told_all(&self) {
        let feeds = self.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        for feed in feeds.values() {
            feed.told.notify_one();
        }
    }

    /// Whether game `index` is followed now (so it exists).
    fn follows(&self, index: u32) -> bool {
        let feeds = self.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        feeds.contains_key(&index)
    }

    /// How many watch game `index` now.
    pub(crate) fn watchers(&self, index: u32) -> usize {
        let feeds = self.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        feeds
            .get(&index)
            .map_or(0, |feed| feed.watchers.load(Ordering::Relaxed))
    }

    /// Whether nobody watches `feed`, game `index`'s, any more: it is then dropped, and the
    /// next watcher begins a new one.
    fn idle(&self, index: u32, feed: &Arc<Feed>) -> bool {
        let mut feeds = self.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        let idle = feed.watchers.load(Ordering::Relaxed) == 0;
        if idle
            && feeds
                .get(&index)
                .is_some_and(|kept| Arc::ptr_eq(kept, feed))
        {
            feeds.remove(&index);
        }
        idle
    }
}

/// One followed game: its records released so far, each an encoded event.
struct Feed {
    log: RwLock<FeedLog>,
    /// The number of records released, told to every watcher when it grows (and when the
    /// end is released).
    published: watch::Sender<usize>,
    watchers: AtomicUsize,
    /// Told when a worker sent rows of the game ([`Live::hear`]); kept until the task reads
    /// them if it is busy then.
    told: Notify,
}

/// The listener's loop ([`Live::hear`]): until `live` is gone, waits for notices, connecting
/// again after a lost connection (every followed game then reads its rows: some may have come
/// unheard).
fn hear(live: &Weak<Live>, url: &str, channel: &str) {
    let mut notices: Option<store::LiveNotices> = None;
    let mut failed = false;
    loop {
        let told = match notices.as_mut() {
            None => match store::LiveNotices::listen(url, channel) {
                Ok(listening) => {
                    notices = Some(listening);
                    failed = false;
                    None
                }
                Err(err) => {
                    if !failed {
                        tracing::warn!(
                            "cannot hear workers' live records (read every {UNTOLD:?} meanwhile): {err:#}"
                        );
                    }
                    failed = true;
                    std::thread::sleep(HEAR);
                    Some(Vec::new())
                }
            },
            Some(listening) => match listening.wait(HEAR) {
                Ok(games) => Some(games),
                Err(err) => {
                    tracing::warn!("lost the connection that hears workers' live records: {err:#}");
                    notices = None;
                    Some(Vec::new())
                }
            },
        };
        let Some(live) = live.upgrade() else { return };
        match told {
            // Listening anew: what came meanwhile is read now.
            None => live.told_all(),
            Some(games) => games.into_iter().for_each(|game| live.told(game)),
        }
    }
}

#[derive(Default)]
struct FeedLog {
    /// Record `i` (id `i + 1`), as its whole event.
    events: Vec<Bytes>,
    /// The `end` event, once released: no record follows it.
    end: Option<Bytes>,
}

/// Where the task following a game reads its records: the file the game writes on this
/// machine, or the rows a worker sends of it to a shared database.
enum Records {
    File(Follower),
    /// The rows after `after`.
    Rows {
        after: u64,
    },
}

/// What the task following a game reads of it and has not released yet.
struct Tail {
    records: Records,
    /// Records read, with when they were, waiting for the delay.
    held: VecDeque<(Instant, Bytes)>,
    next_id: u64,
    /// Whether the bots' stderr is their authors' alone: quotes of it are left out.
    private: bool,
}

impl Tail {
    fn hold(&mut self, lines: impl IntoIterator<Item = Vec<u8>>) {
        let now = Instant::now();
        for line in lines {
            if let Some(event) = event(self.next_id, &line, self.private) {
                self.held.push_back((now, event));
            }
            // Ids are line numbers, whatever a damaged line: a worker's rows are numbered so.
            self.next_id += 1;
        }
    }
}

/// Follows game `index` for `feed`: reads its new records (every [`TAIL`] from its file, when
/// told from a worker's rows), releases them when they are old enough, and the end once the
/// game is no longer running; then keeps them while anyone watches, and for [`KEEP`] after.
async fn follow(live: Arc<Live>, reader: Arc<Reader>, index: u32, feed: Arc<Feed>) {
    let (mut tail, delay) = match Tail::begin(&reader, index).await {
        Ok(begun) => begun,
        Err(Failure(_, message)) => {
            release_end(&feed, &serde_json::json!({"error": message}));
            return linger(&live, index, &feed).await;
        }
    };
    // A worker's game is read when its worker tells of new rows ([`Live::hear`]), or every
    // [`UNTOLD`]; a game's file here, every [`TAIL`].
    let told_of = matches!(tail.records, Records::Rows { .. });
    let mut looked = Instant::now() - UNTOLD;
    // Whether its records and its state are to be read (a file's: always, at every look).
    let (mut rows_due, mut state_due) = (true, true);
    let mut ended: Option<(Instant, serde_json::Value)> = None;
    loop {
        if ended.is_none() && state_due && looked.elapsed() >= STATE_EVERY {
            looked = Instant::now();
            state_due = !told_of;
            ended = end_if_over(&reader, index, &mut tail).await;
        }
        if ended.is_none() && rows_due {
            rows_due = !told_of;
            read_new(&reader, index, &mut tail).await;
        }
        release(&feed, &mut tail, delay);
        if let Some((when, end)) = &ended
            && tail.held.is_empty()
            && when.elapsed() >= delay
        {
            release_end(&feed, end);
            return linger(&live, index, &feed).await;
        }
        if live.idle(index, &feed) {
            // Nobody follows it any more: the next watcher begins again.
            return;
        }
        if !told_of {
            tokio::time::sleep(TAIL).await;
            continue;
        }
        let wait = untold_wait(&tail, &ended, looked, state_due, delay);
        tokio::select! {
            () = feed.told.notified() => (rows_due, state_due) = (true, true),
            () = tokio::time::sleep(wait) => if looked.elapsed() >= UNTOLD {
                (rows_due, state_due) = (true, true);
            },
        }
    }
}

impl Tail {
    /// The tail of game `index`, nothing read yet, and the store's live delay.
    async fn begin(reader: &Arc<Reader>, index: u32) -> Result<(Tail, Duration), Failure> {
        let shared = reader.is_shared();
        let (delay, path) = with_store(reader, move |store, dir| {
            let delay = store
                .meta(store::LIVE_DELAY_META)?
                .and_then(|value| value.parse::<f64>().ok())
                .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
                .map_or(Duration::ZERO, Duration::from_secs_f64);
            Ok((delay, store::game_dir(dir, index).join(RECORD_FILE)))
        })
        .await?;
        let tail = Tail {
            records: match shared {
                true => Records::Rows { after: 0 },
                false => Records::File(Follower::new(path)),
            },
            held: VecDeque::new(),
            next_id: 1,
            private: reader.stderr_private,
        };
        Ok((tail, delay))
    }
}

/// Game `index`'s end, with when it was seen, if it is no longer running: its records are read
/// to the last first. A private tail's end quotes no stderr.
async fn end_if_over(
    reader: &Arc<Reader>,
    index: u32,
    tail: &mut Tail,
) -> Option<(Instant, serde_json::Value)> {
    let ended_now = with_store(reader, move |store, dir| ending(store, dir, index)).await;
    let Ok(Some(end)) = ended_now else {
        return None;
    };
    let end = match tail.private {
        true => {
            serde_json::from_str(&koth_hill::logs::public_record(&end.to_string())).unwrap_or(end)
        }
        false => end,
    };
    // Whatever the game wrote before it ended is read first.
    read_rest(reader, index, tail).await;
    Some((Instant::now(), end))
}

/// How long a worker's game waits, unless told of new rows: until the next record's release,
/// the end's, a state's look put off (`state_due`), or the safety net's look [`UNTOLD`] after
/// the last (`looked`).
fn untold_wait(
    tail: &Tail,
    ended: &Option<(Instant, serde_json::Value)>,
    looked: Instant,
    state_due: bool,
    delay: Duration,
) -> Duration {
    let mut wait = UNTOLD.saturating_sub(looked.elapsed());
    if state_due && ended.is_none() {
        wait = wait.min(STATE_EVERY.saturating_sub(looked.elapsed()));
    }
    match (tail.held.front(), ended) {
        (Some((when, _)), _) | (None, Some((when, _))) => {
            wait = wait.min(delay.saturating_sub(when.elapsed()));
        }
        (None, None) => {}
    }
    wait
}

/// Reads the records added since the last look: the file's new lines, or the rows a worker
/// sent since.
async fn read_new(reader: &Arc<Reader>, index: u32, tail: &mut Tail) {
    match &mut tail.records {
        Records::File(follower) => {
            let (lines, _) = follower.new_lines();
            tail.hold(lines);
        }
        &mut Records::Rows { after } => {
            let rows = with_store(reader, move |store, _| store.live_records(index, after)).await;
            let Ok(rows) = rows else { return };
            if let Some(&(last, _)) = rows.last() {
                tail.records = Records::Rows { after: last };
            }
            tail.next_id = after + 1;
            tail.hold(rows.into_iter().map(|(_, line)| line.into_bytes()));
        }
    }
}

/// Reads the rest of an ended game's records: the file's last lines, or for a shared
/// database the lines of its stored `replay.jsonl` after the last row read (its rows go once
/// its files are stored).
async fn read_rest(reader: &Arc<Reader>, index: u32, tail: &mut Tail) {
    let Records::Rows { after } = tail.records else {
        // A file's lines are read a chunk at a time: all of them now.
        while let Records::File(follower) = &mut tail.records {
            let (lines, _) = follower.new_lines();
            if lines.is_empty() {
                break;
            }
            tail.hold(lines);
        }
        return;
    };
    let stored = with_store(reader, move |store, dir| {
        let folder = store.game_folder(dir, index, Some(RECORD_FILE))?;
        Ok(std::fs::read(folder.join(RECORD_FILE)).unwrap_or_default())
    })
    .await;
    let Ok(stored) = stored else { return };
    let lines: Vec<Vec<u8>> = stored.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    // The text after the last newline is no line (empty, for a whole file).
    let ended = lines.len().saturating_sub(1);
    tail.next_id = after + 1;
    tail.hold(lines.into_iter().take(ended).skip(after as usize));
}

/// Keeps an ended game's records while anyone watches it, and [`KEEP`] after.
async fn linger(live: &Live, index: u32, feed: &Arc<Feed>) {
    let mut idle_since = Instant::now();
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        if feed.watchers.load(Ordering::Relaxed) > 0 {
            idle_since = Instant::now();
        } else if idle_since.elapsed() >= KEEP && live.idle(index, feed) {
            return;
        }
    }
}

/// The `end` of game `index` once it is no longer being played: its state and, if it was
/// played, its result; `None` while it is pending or running.
fn ending(
    store: &Store,
    dir: &std::path::Path,
    index: u32,
) -> anyhow::Result<Option<serde_json::Value>> {
    let state = store.game_state(index)?;
    let state = match state {
        Some(GameState::Pending | GameState::Running) => return Ok(None),
        Some(state) => state.as_str(),
        None => "unknown",
    };
    let result = store
        .game_folder(dir, index, Some(koth_game::RESULTS_FILE))
        .ok()
        .and_then(|folder| std::fs::read_to_string(folder.join(koth_game::RESULTS_FILE)).ok())
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|mut results| results.get_mut("result").map(serde_json::Value::take));
    Ok(Some(serde_json::json!({"state": state, "result": result})))
}

/// The event of record `id`, whose line is `line` (as everyone may read it if `private`);
/// `None` for a line that is no JSON object on one line (a damaged file): it could not be
/// sent as one event.
fn event(id: u64, line: &[u8], private: bool) -> Option<Bytes> {
    #[derive(Deserialize)]
    struct Kind {
        kind: Option<String>,
    }
    let text = std::str::from_utf8(line).ok()?;
    if text.contains('\r') {
        return None;
    }
    let kind = serde_json::from_str::<Kind>(text).ok()?.kind;
    let public;
    let text = match private {
        true => {
            public = koth_hill::logs::public_record(text);
            public.as_str()
        }
        false => text,
    };
    let kind = kind
        .filter(|kind| {
            (1..=32).contains(&kind.len())
                && kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
        })
        .unwrap_or_else(|| "record".to_string());
    Some(Bytes::from(format!(
        "id: {id}\nevent: {kind}\ndata: {text}\n\n"
    )))
}

/// Releases every held record at least `delay` old.
fn release(feed: &Feed, tail: &mut Tail, delay: Duration) {
    let mut released = Vec::new();
    while let Some((when, _)) = tail.held.front() {
        if when.elapsed() < delay {
            break;
        }
        if let Some((_, event)) = tail.held.pop_front() {
            released.push(event);
        }
    }
    if released.is_empty() {
        return;
    }
    let count = {
        let mut log = feed.log.write().unwrap_or_else(PoisonError::into_inner);
        log.events.extend(released);
        log.events.len()
    };
    feed.published.send_replace(count);
}

fn release_end(feed: &Feed, end: &serde_json::Value) {
    let event = Bytes::from(format!("event: end\ndata: {end}\n\n"));
    let count = {
        let mut log = feed.log.write().unwrap_or_else(PoisonError::into_inner);
        log.end = Some(event);
        log.events.len()
    };
    // Told even when no record came: a watcher waits for a change.
    feed.published.send_modify(|published| *published = count);
}

/// The header of a live stream that names its game's kind (`paths`, `madcars`…).
pub const GAME_HEADER: header::HeaderName = header::HeaderName::from_static("x-koth-game");

#[derive(Deserialize)]
pub(crate) struct FromQuery {
    from: Option<String>,
}

/// `GET /api/games/{index}/live`: the game's records after `Last-Event-ID` (or `?from=ID`; from
/// the first without either), as they are released, then its `end`.
pub(crate) async fn stream(
    State(reader): Watching,
    UrlPath(index): UrlPath<u32>,
    Query(query): Query<FromQuery>,
    headers: HeaderMap,
) -> Result<Response, Failure> {
    let last = headers
        .get("last-event-id")
        .and_then(|id| id.to_str().ok())
        .map(str::to_string)
        .or(query.from);
    let after = match last.as_deref().map(str::trim) {
        None | Some("") => 0,
        Some(id) => id.parse::<usize>().map_err(|_| {
            Failure(
                StatusCode::BAD_REQUEST,
                format!("{id:?} is not a record's id (a whole number, from 1)"),
            )
        })?,
    };
    // A game followed now exists: a watcher joins it without reading the store, which costs a
    // blocking thread and (for a tournament folder) an SQLite connection opened for the one
    // read. A thousand watchers arriving together took as many threads and connections, whose
    // memory the allocator kept after they went: 14–22% of what a watcher cost
    // (docs/benchmarks.md, "Watching games live"). The kind of game is the store's, read once.
    if !reader.live.follows(index) || reader.live.game.get().is_none() {
        let (exists, game) = with_store(&reader, move |store, _| {
            Ok((store.game_state(index)?, store.meta("game")?))
        })
        .await?;
        if exists.is_none() {
            return Err(Failure(
                StatusCode::NOT_FOUND,
                format!("there is no game {index}"),
            ));
        }
        reader.live.game.get_or_init(|| game.unwrap_or_default());
    }
    let watcher = reader.live.watch(&reader, index, after);
    let body = futures::stream::unfold(watcher, |mut watcher| async move {
        let event = watcher.next_event().await?;
        Some((Ok::<_, std::convert::Infallible>(event), watcher))
    });
    Ok((
        [
            (header::CONTENT_TYPE, "text/event-stream".to_string()),
            (header::CACHE_CONTROL, "no-cache".to_string()),
            // The records keep the game's own numbers; a client shows them as a person
            // counts, from 1, by the game's numbering (`koth watch`).
            (
                GAME_HEADER,
                reader.live.game.get().cloned().unwrap_or_default(),
            ),
        ],
        axum::body::Body::from_stream(body),
    )
        .into_response())
}

/// One watcher of a game: the next record it is sent.
struct Watcher {
    feed: Arc<Feed>,
    published: watch::Receiver<usize>,
    /// The index of the next record to send (its id is one more).
    next: usize,
    done: bool,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.feed.watchers.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Watcher {
    /// The next event for this watcher: a record, the end, or a keep-alive; `None` once the
    /// end is sent.
    async fn next_event(&mut self) -> Option<Bytes> {
        if self.done {
            return None;
        }
        loop {
            let (record, end) = {
                let log = self.feed.log.read().unwrap_or_else(PoisonError::into_inner);
                (log.events.get(self.next).cloned(), log.end.clone())
            };
            if let Some(record) = record {
                self.next += 1;
                return Some(record);
            }
            if let Some(end) = end {
                self.done = true;
                return Some(end);
            }
            self.published.borrow_and_update();
            tokio::select! {
                changed = self.published.changed() => changed.ok()?,
                () = tokio::time::sleep(KEEP_ALIVE) => return Some(Bytes::from_static(b":\n\n")),
            }
        }
    }
}
