//! The hill's door for strangers' bots: the submission API and its page, served by
//! `koth hill run DIR --serve`. A thin door onto [`koth_hill::submissions`].
//!
//! | address | what |
//! |---|---|
//! | `POST /api/submissions` | an upload (`Authorization: Bearer TOKEN`, a `.tar.gz` or `.zip` body): `202` and the submission once it is stored whole |
//! | `GET /api/submissions/{id}` | a submission's status; its build log, faults and stderr for its author only |
//! | `GET /api/submissions` | the author's own newest 50 submissions, newest first (token needed) |
//! | `GET /submit` | the page to submit from: token, archive, and the build as it happens |
//!
//! Errors are JSON `{"error": "..."}`: `401` no or bad token, `403` another author's bot (or
//! the author's cap of bots), `408` a body too slow, `413` over a size cap, `422` a bad archive
//! or `bot.toml`, `429` over a rate (with `Retry-After`), `503` the hill takes no uploads.
//!
//! The body is streamed to disk and cut off at `submissions.upload_mb`, never held whole in
//! memory; it must arrive within `submissions.upload_timeout_s`, and at no less than
//! [`MIN_RATE`] bytes a second once [`GRACE`] has passed (a client sending a byte a second is
//! dropped). The token travels in a header, never a cookie, so another site's page cannot
//! submit in an author's name.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use futures::StreamExt;
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use koth_base::archive::Kind;
use koth_hill::config::HillConfig;
pub use koth_hill::submissions::{self, Refusal, Status, Upload};
use koth_hill::{Hill, authors};

const PAGE: &str = include_str!("submit.html");
/// After this long, an upload must arrive at [`MIN_RATE`] or faster.
const GRACE: Duration = Duration::from_secs(5);
/// Bytes a second an upload must average once past [`GRACE`].
const MIN_RATE: u64 = 4 << 10;

/// The hill the door opens onto: one connection, taken in turn for the database's bookkeeping
/// only (a token checked, a name claimed, a submission recorded or read); an upload is
/// received, unpacked and its `bot.toml` read outside it, so no author waits for another's.
struct Door {
    /// This machine's folder for the hill, where uploads are received.
    dir: PathBuf,
    /// The hill's file, as the hill read it.
    config: HillConfig,
    hill: Mutex<Hill>,
    /// Each author's uploads being received now, from the gate until recorded or refused: they
    /// count against the author's `per_hour` at the gate, so uploads sent at once cost the hill
    /// no more disk and unpacking than the rate lets through.
    receiving: Mutex<HashMap<String, u32>>,
}

/// An upload of `author` counted in [`Door::receiving`] until dropped.
struct Receiving {
    door: Arc<Door>,
    author: String,
}

impl Receiving {
    /// Counts an upload of `author`. Counted, read and given back under the hill's lock (given
    /// back as the upload is recorded), so a gate counts it once.
    fn start(door: &Arc<Door>, author: &str) -> Receiving {
        let mut receiving = door
            .receiving
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *receiving.entry(author.to_string()).or_default() += 1;
        Receiving {
            door: Arc::clone(door),
            author: author.to_string(),
        }
    }

    /// How many uploads of `author` the door is receiving.
    fn of(door: &Door, author: &str) -> u32 {
        let receiving = door
            .receiving
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        receiving.get(author).copied().unwrap_or(0)
    }
}

impl Drop for Receiving {
    fn drop(&mut self) {
        let mut receiving = self
            .door
            .receiving
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = receiving.get_mut(&self.author) {
            *count -= 1;
            if *count == 0 {
                receiving.remove(&self.author);
            }
        }
    }
}

/// The submission routes of `hill` (a connection of the door's own), to merge into its server.
pub(crate) fn router(hill: Hill) -> Router {
    let door = Arc::new(Door {
        dir: hill.dir.clone(),
        config: hill.config.clone(),
        hill: Mutex::new(hill),
        receiving: Mutex::default(),
    });
    Router::new()
        .route("/api/submissions", get(mine).post(submit))
        .route("/api/submissions/{id}", get(one))
        .route(
            "/api/hill/bots/{name}/rollback",
            axum::routing::post(rollback),
        )
        .route("/submit", get(|| async { Html(PAGE) }))
        .with_state(door)
}

/// Runs `work` on the hill, off the server's threads.
async fn with_hill<T: Send + 'static>(
    door: &Arc<Door>,
    work: impl FnOnce(&Hill) -> T + Send + 'static,
) -> Result<T, Response> {
    let door = Arc::clone(door);
    tokio::task::spawn_blocking(move || {
        let hill = door.hill.lock().unwrap_or_else(PoisonError::into_inner);
        work(&hill)
    })
    .await
    .map_err(|_| error(StatusCode::INTERNAL_SERVER_ERROR, "the server failed"))
}

/// `POST /api/submissions`. Taken in a task of its own, run to its end whatever the client
/// does: dropped with the connection (a client that sends its whole body and goes away), it
/// left its unpacked folder, up to `unpacked_mb`, on the disk with no record, counted against
/// nothing, until the hill was next started.
async fn submit(State(door): State<Arc<Door>>, headers: HeaderMap, body: Body) -> Response {
    tokio::spawn(take_upload(door, headers, body))
        .await
        .unwrap_or_else(|_| error(StatusCode::INTERNAL_SERVER_ERROR, "the server failed"))
}

async fn take_upload(door: Arc<Door>, headers: HeaderMap, body: Body) -> Response {
    let token = bearer(&headers);
    let counted = Arc::clone(&door);
    let gated = with_hill(&door, move |hill| {
        let receiving = |author: &str| Receiving::of(&counted, author);
        let gate = submissions::gate(hill, token.as_deref(), &receiving);
        let gate = gate.map(|author| (Receiving::start(&counted, &author), author));
        (gate, hill.config.submissions)
    })
    .await;
    // Given back under the hill's lock as the upload is recorded (or refused and recorded), so
    // that a gate counts it once, as received or as sent, never twice nor not at all.
    let (receiving, author, limits) = match gated {
        Ok((Ok((receiving, author)), limits)) => (receiving, author, limits),
        Ok((Err(refusal), _)) => return refused(&refusal),
        Err(response) => return response,
    };
    let declared = declared_kind(&headers);
    let cap = limits.upload_mb << 20;
    let too_large = Refusal::TooLarge(format!(
        "the upload is over the hill's cap of {} MiB (`submissions.upload_mb`)",
        limits.upload_mb
    ));
    let declared_length = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared_length.is_some_and(|n| n > cap) {
        let (author, refusal) = (author.clone(), too_large.clone());
        let _ = with_hill(&door, move |hill| {
            submissions::record_refusal(hill, &author, "", None, &refusal);
            drop(receiving);
        })
        .await;
        return refused(&too_large);
    }
    let deadline = Duration::from_secs(limits.upload_timeout_s);
    let received = match receive(&door.dir, body, cap, deadline).await {
        Ok(upload) => Upload { declared, ..upload },
        Err(Received::TooLarge) => {
            let (author, refusal) = (author.clone(), too_large.clone());
            let _ = with_hill(&door, move |hill| {
                submissions::record_refusal(hill, &author, "", None, &refusal);
                drop(receiving);
            })
            .await;
            return refused(&too_large);
        }
        Err(Received::TooSlow(why)) => return error(StatusCode::REQUEST_TIMEOUT, &why),
        Err(Received::Broken(why)) => return error(StatusCode::BAD_REQUEST, &why),
        Err(Received::Failed(err)) => {
            tracing::error!("cannot store an upload: {err:#}");
            return error(
                StatusCode::SERVICE_UNAVAILABLE,
                "the hill could not store the upload (its own fault, not yours): try again later",
            );
        }
    };
    let (dir, config) = (door.dir.clone(), door.config.clone());
    let unpacked = tokio::task::spawn_blocking(move || {
        let unpacked = submissions::unpack(&dir, &config, &received);
        (received, unpacked)
    })
    .await;
    let Ok((received, unpacked)) = unpacked else {
        return error(StatusCode::INTERNAL_SERVER_ERROR, "the server failed");
    };
    match with_hill(&door, move |hill| {
        let accepted = submissions::accept(hill, &author, &received, unpacked);
        drop(receiving);
        accepted
    })
    .await
    {
        Ok(Ok(status)) => (StatusCode::ACCEPTED, axum::Json(status)).into_response(),
        Ok(Err(refusal)) => refused(&refusal),
        Err(response) => response,
    }
}

/// How receiving a body can end short of an upload.
enum Received {
    TooLarge,
    TooSlow(String),
    Broken(String),
    Failed(anyhow::Error),
}

/// Streams `body` to a new file among the hill's incoming uploads, hashing it, cut off past
/// `cap` bytes, `deadline` after it began, or when it falls below [`MIN_RATE`]. Nothing is left
/// of a body that did not arrive whole.
async fn receive(
    hill_dir: &Path,
    body: Body,
    cap: u64,
    deadline: Duration,
) -> Result<Upload, Received> {
    let incoming = submissions::incoming(hill_dir).map_err(Received::Failed)?;
    let path = incoming.join(format!("{}.upload", submissions::new_id()));
    let outcome = write_body(&path, body, cap, deadline).await;
    if outcome.is_err() {
        let _ = tokio::fs::remove_file(&path).await;
    }
    outcome
}

async fn write_body(
    path: &Path,
    body: Body,
    cap: u64,
    deadline: Duration,
) -> Result<Upload, Received> {
    let mut file = tokio::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .await
        .map_err(|e| Received::Failed(e.into()))?;
    let mut stream = body.into_data_stream();
    let mut hasher = Sha256::new();
    let mut bytes = 0u64;
    let started = Instant::now();
    let give_up = tokio::time::Instant::now() + deadline;
    loop {
        // The next chunk must come before the whole body's deadline, and soon enough that the
        // body has kept up [`MIN_RATE`] since its grace: by `GRACE + bytes / MIN_RATE`.
        let due = GRACE.as_secs_f64() + bytes as f64 / MIN_RATE as f64;
        let by_rate = Duration::from_secs_f64((due - started.elapsed().as_secs_f64()).max(0.0));
        let next = tokio::time::Instant::now() + by_rate.max(Duration::from_millis(1));
        let chunk = match tokio::time::timeout_at(next.min(give_up), stream.next()).await {
            Ok(Some(Ok(chunk))) => chunk,
            Ok(Some(Err(err))) => {
                return Err(Received::Broken(format!("the upload was cut short: {err}")));
            }
            Ok(None) => break,
            Err(_) => {
                return Err(Received::TooSlow(format!(
                    "the upload was too slow ({bytes} bytes in {:.0} s): it must arrive within \
                     {} s at {} KiB/s or more",
                    started.elapsed().as_secs_f64(),
                    deadline.as_secs(),
                    MIN_RATE >> 10
                )));
            }
        };
        bytes += chunk.len() as u64;
        if bytes > cap {
            return Err(Received::TooLarge);
        }
        hasher.update(&chunk);
        file.write_all(&chunk)
            .await
            .map_err(|e| Received::Failed(e.into()))?;
    }
    file.flush().await.map_err(|e| Received::Failed(e.into()))?;
    Ok(Upload {
        path: path.to_path_buf(),
        bytes,
        digest: hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
        declared: None,
    })
}

/// `GET /api/submissions/{id}`: its status, and its private part for its author.
async fn one(
    State(door): State<Arc<Door>>,
    UrlPath(id): UrlPath<String>,
    headers: HeaderMap,
) -> Response {
    let token = bearer(&headers);
    let found = with_hill(&door, move |hill| {
        let reader = match token {
            Some(token) => authors::authenticate(&hill.store, &token)?,
            None => None,
        };
        submissions::status(hill, &id, reader.as_deref())
    })
    .await;
    match found {
        Ok(Ok(Some(status))) => axum::Json(status).into_response(),
        Ok(Ok(None)) => error(StatusCode::NOT_FOUND, "the hill has no such submission"),
        Ok(Err(err)) => internal(&err),
        Err(response) => response,
    }
}

/// What an author sends to roll their bot back: the version to make active again.
#[derive(serde::Deserialize)]
struct RollbackAsk {
    version: u32,
}

/// Bytes a rollback's body may have: `{"version": N}` and room to spare.
const ROLLBACK_BODY: usize = 4 << 10;

/// `POST /api/hill/bots/{name}/rollback` with `{"version": N}`: the bot's author makes an
/// earlier version its active one again (`koth hill rollback`); `401` without a token the hill
/// knows, `403` for another's bot, `404` for a bot it has not, `409` for a version it cannot
/// bring back (none such, active already, its files no longer kept), with why. Its body must
/// come whole within [`crate::HEADER_TIMEOUT`] (`408`): read with no deadline, anyone's body
/// sent a byte at a time held a connection for ever.
async fn rollback(
    State(door): State<Arc<Door>>,
    UrlPath(name): UrlPath<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let read = tokio::time::timeout(
        crate::HEADER_TIMEOUT,
        axum::body::to_bytes(body, ROLLBACK_BODY),
    )
    .await;
    let Ok(read) = read else {
        return error(
            StatusCode::REQUEST_TIMEOUT,
            "the request's body came too slowly",
        );
    };
    let Some(ask) = read
        .ok()
        .and_then(|bytes| serde_json::from_slice::<RollbackAsk>(&bytes).ok())
    else {
        return error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "send the version to bring back as JSON: {\"version\": N}",
        );
    };
    let token = bearer(&headers);
    let done = with_hill(&door, move |hill| {
        let allowed =
            koth_hill::logs::authorized(&hill.store, &name, token.as_deref(), "its versions")?;
        Ok::<_, anyhow::Error>(match allowed {
            Err(denied) => Err(denied),
            Ok(()) => Ok((koth_hill::roll_back(hill, &name, ask.version), name)),
        })
    })
    .await;
    match done {
        Ok(Ok(Ok((Ok(replaced), name)))) => {
            tracing::info!(
                bot = name,
                version = ask.version,
                "rolled back by its author"
            );
            axum::Json(serde_json::json!({
                "bot": name, "version": ask.version, "replaced": replaced
            }))
            .into_response()
        }
        Ok(Ok(Ok((Err(why), _)))) => error(StatusCode::CONFLICT, &format!("{why:#}")),
        Ok(Ok(Err(denied))) => refusal(denied),
        Ok(Err(err)) => internal(&err),
        Err(response) => response,
    }
}

/// `GET /api/submissions`: the author's own newest submissions ([`submissions::LISTED`]).
async fn mine(State(door): State<Arc<Door>>, headers: HeaderMap) -> Response {
    let Some(token) = bearer(&headers) else {
        return refused(&Refusal::NotAnAuthor(
            "no token: send `Authorization: Bearer TOKEN`".into(),
        ));
    };
    let found = with_hill(&door, move |hill| {
        match authors::authenticate(&hill.store, &token)? {
            Some(author) => submissions::of_author(hill, &author).map(Some),
            None => Ok(None),
        }
    })
    .await;
    match found {
        Ok(Ok(Some(list))) => axum::Json::<Vec<Status>>(list).into_response(),
        Ok(Ok(None)) => refused(&Refusal::NotAnAuthor(
            "this token is unknown or revoked".into(),
        )),
        Ok(Err(err)) => internal(&err),
        Err(response) => response,
    }
}

/// The token of an `Authorization: Bearer TOKEN` header.
pub(super) fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim().to_string())
}

/// The archive kind the request's content type says, if it names one; any other (curl's
/// default form type, `application/octet-stream`) leaves it to the archive's first bytes.
fn declared_kind(headers: &HeaderMap) -> Option<Kind> {
    let value = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
    let essence = value.split(';').next()?.trim().to_ascii_lowercase();
    match essence.as_str() {
        "application/gzip"
        | "application/x-gzip"
        | "application/x-tar+gzip"
        | "application/x-compressed-tar" => Some(Kind::TarGz),
        "application/zip" | "application/x-zip-compressed" => Some(Kind::Zip),
        _ => None,
    }
}

fn refused(refusal: &Refusal) -> Response {
    let code = match refusal {
        Refusal::NotAnAuthor(_) => StatusCode::UNAUTHORIZED,
        Refusal::NotYours(_) => StatusCode::FORBIDDEN,
        Refusal::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
        Refusal::Unreadable(_) => StatusCode::UNPROCESSABLE_ENTITY,
        Refusal::TooSoon { .. } => StatusCode::TOO_MANY_REQUESTS,
        Refusal::Closed(_) => StatusCode::SERVICE_UNAVAILABLE,
        Refusal::AfterClose(_) => StatusCode::FORBIDDEN,
    };
    let mut response = error(code, &refusal.to_string());
    let headers = response.headers_mut();
    match refusal {
        Refusal::TooSoon { retry_after_s, .. } => {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(*retry_after_s));
        }
        Refusal::NotAnAuthor(_) => {
            headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        _ => {}
    }
    response
}

fn internal(err: &anyhow::Error) -> Response {
    tracing::error!("the submission API: {err:#}");
    error(
        StatusCode::INTERNAL_SERVER_ERROR,
        "the hill failed to answer",
    )
}

/// An author's thing refused (their logs, data, versions): `401` to one who is no author, `403`
/// to another author, `404` for what is not there; JSON `{"error"}`, as the door's answers are.
pub(crate) fn refusal(denied: koth_hill::logs::Denied) -> Response {
    use koth_hill::logs::Denied;
    let (code, why) = match denied {
        Denied::NotAnAuthor(why) => (StatusCode::UNAUTHORIZED, why),
        Denied::NotYours(why) => (StatusCode::FORBIDDEN, why),
        Denied::Missing(why) => (StatusCode::NOT_FOUND, why),
    };
    error(code, &why)
}

/// An error as the door answers it: JSON `{"error": why}`.
fn error(code: StatusCode, why: &str) -> Response {
    let mut response = (code, axum::Json(serde_json::json!({ "error": why }))).into_response();
    if code == StatusCode::PAYLOAD_TOO_LARGE || code == StatusCode::REQUEST_TIMEOUT {
        // The rest of the body is not read: the connection cannot carry another request.
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}
