//! How the server reads the tournament or the hill it shows: one store opened per read (or a
//! shared database's connection), answers memoised until the store changes, and a read's
//! failure as the HTTP answer it becomes.

use std::any::Any;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use anyhow::Context;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use koth_tournament::Watched;
use koth_tournament::store::{self, Store};

use super::live;

/// How the server reads the tournament or the hill it shows.
pub(crate) struct Reader {
    source: Source,
    memo: Mutex<Memo>,
    /// A hill whose bots' stderr is their authors' alone (`submissions.public_logs` unset): its
    /// replay pages are made without it.
    pub(crate) stderr_private: bool,
    /// Whether it is a hill's database (a tournament's, with the hill's tables beside).
    pub(crate) hill: bool,
    /// The games followed live now.
    pub(crate) live: Arc<live::Live>,
    /// What the check of a folder's file found, run behind the server's start
    /// ([`Reader::open`]): `None` while it runs (and for a shared tournament), then the
    /// refusal every read answers with if it failed.
    pages: PagesChecked,
}

/// What the check of a folder's pages found: nothing yet, its pass, or its refusal.
type PagesChecked = Arc<Mutex<Option<Result<(), String>>>>;

/// Where the tournament is read from.
enum Source {
    /// A tournament folder, its database opened read-only for each request.
    Folder(PathBuf),
    /// A tournament in PostgreSQL.
    Shared {
        url: String,
        name: String,
        /// The read-only connection; `None` after a failed read, which may have lost it.
        connection: Mutex<Option<Store>>,
        /// The copies of games' files, `games/<index>/` as in a tournament folder.
        copies: tempfile::TempDir,
    },
}

/// What the server read of the tournament as it stood at `stamp`: until it changes no result
/// changes, so every request till then is answered from here.
#[derive(Default)]
struct Memo {
    stamp: Option<Stamp>,
    values: HashMap<&'static str, Arc<dyn Any + Send + Sync>>,
}

/// What changes whenever what the server shows may have: a tournament's games' states, or what
/// a hill's run writes ([`koth_hill::records::Stamp`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Stamp {
    Games(store::Progress),
    Hill(koth_hill::records::Stamp),
}

/// The [`Stamp`] of the tournament in `store` (a hill's if `hill`).
pub(crate) fn stamp(store: &Store, hill: bool) -> anyhow::Result<Stamp> {
    Ok(match hill {
        true => Stamp::Hill(koth_hill::records::stamp(store)?),
        false => Stamp::Games(store.progress()?),
    })
}

impl Reader {
    /// Checks that `watched` can be read, as the server will read it.
    pub(crate) fn open(watched: Watched) -> anyhow::Result<Reader> {
        let live = Arc::new(live::Live::new());
        let pages = Arc::default();
        let source = match watched {
            Watched::Folder(dir) => {
                let file = dir.join(store::FILE);
                Store::open_read_only_unpaged(&file)?;
                check_pages_behind(file, Arc::clone(&pages));
                Source::Folder(dir)
            }
            Watched::Shared { url, name } => {
                let store = Store::open_postgres_read_only(&url, &name)?;
                if let Some(channel) = store.live_channel() {
                    live.hear(url.clone(), channel)?;
                }
                Source::Shared {
                    url,
                    name,
                    connection: Mutex::new(Some(store)),
                    copies: tempfile::tempdir()
                        .context("cannot make a folder for copies of the games' files")?,
                }
            }
        };
        let mut reader = Reader {
            source,
            memo: Mutex::default(),
            live,
            stderr_private: false,
            hill: false,
            pages,
        };
        reader.hill = reader.read(|store, _| koth_hill::is_hill(store))?;
        reader.stderr_private = reader.read(koth_hill::logs_are_private)?;
        Ok(reader)
    }

    /// Whether the tournament is in PostgreSQL: its games are played by workers, whose games
    /// in progress are followed through its rows.
    pub(crate) fn is_shared(&self) -> bool {
        matches!(self.source, Source::Shared { .. })
    }

    /// The tournament, for the start-up line.
    pub(crate) fn describe(&self) -> String {
        match &self.source {
            Source::Folder(dir) => dir.display().to_string(),
            Source::Shared { url, name, .. } => {
                format!("tournament {name} in {}", store::shown(url))
            }
        }
    }

    /// Runs `read` (blocking) on the tournament's store and the folder its games' folders are
    /// in.
    pub(crate) fn read<T>(
        &self,
        read: impl FnOnce(&Store, &Path) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        let checked = self.pages.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(Err(refused)) = &*checked {
            anyhow::bail!("{refused}");
        }
        drop(checked);
        match &self.source {
            Source::Folder(dir) => read(&Store::reopen_read_only(&dir.join(store::FILE))?, dir),
            Source::Shared {
                url,
                name,
                connection,
                copies,
            } => {
                // One request at a time on the connection, and on the copies.
                let mut connection = connection.lock().unwrap_or_else(PoisonError::into_inner);
                let store = match connection.take() {
                    Some(store) => store,
                    None => Store::open_postgres_read_only(url, name)?,
                };
                let read = read(&store, copies.path());
                if read.is_ok() {
                    *connection = Some(store);
                }
                read
            }
        }
    }

    /// [`Reader::read`], its value named `what` kept in the [`Memo`] and reused until the
    /// tournament moves: a large tournament's leaderboard costs tens of milliseconds to read,
    /// and every open page asks for it.
    pub(crate) fn memoized<T: Send + Sync + 'static>(
        &self,
        what: &'static str,
        read: impl FnOnce(&Store, &Path) -> anyhow::Result<T>,
    ) -> anyhow::Result<Arc<T>> {
        let memo = || self.memo.lock().unwrap_or_else(PoisonError::into_inner);
        self.read(|store, dir| {
            let stamp = stamp(store, self.hill)?;
            {
                let mut memo = memo();
                if memo.stamp.as_ref() != Some(&stamp) {
                    *memo = Memo {
                        stamp: Some(stamp.clone()),
                        values: HashMap::new(),
                    };
                } else if let Some(Ok(kept)) = memo
                    .values
                    .get(what)
                    .map(|kept| Arc::clone(kept).downcast::<T>())
                {
                    return Ok(kept);
                }
            }
            // Read with the memo free, so other requests are answered meanwhile. The value may
            // be newer than `stamp`, never older: the next request reads the news.
            let value = Arc::new(read(store, dir)?);
            let mut memo = memo();
            if memo.stamp.as_ref() == Some(&stamp) {
                memo.values.insert(what, value.clone());
            }
            Ok(value)
        })
    }
}

/// Checks every page of the database `file` on a thread of its own, the server already
/// listening, and puts what it found in `pages`: a file of ten million games took 108 s to
/// check (docs/benchmarks.md), its schema milliseconds. A damaged file is refused once found:
/// every read from then on answers with the refusal, which names the file, and it is said on
/// stderr.
fn check_pages_behind(file: PathBuf, pages: PagesChecked) {
    std::thread::spawn(move || {
        let checked = Store::reopen_read_only(&file)
            .and_then(|store| store.check_pages())
            .map_err(|refused| format!("{refused:#}"));
        if let Err(refused) = &checked {
            eprintln!("koth serve: {refused}: every page refuses it");
        }
        *pages.lock().unwrap_or_else(PoisonError::into_inner) = Some(checked);
    });
}

pub(crate) type Watching = State<Arc<Reader>>;

/// A failed request: the error's message, as plain text, with a status.
pub(crate) struct Failure(pub(crate) StatusCode, pub(crate) String);

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

/// Runs `read` on the tournament ([`Reader::read`]), off the server's thread.
pub(crate) async fn with_store<T: Send + 'static>(
    reader: &Arc<Reader>,
    read: impl FnOnce(&Store, &Path) -> anyhow::Result<T> + Send + 'static,
) -> Result<T, Failure> {
    let reader = Arc::clone(reader);
    blocking(move || reader.read(read))
        .await?
        .map_err(Failure::from)
}

/// Runs `work` off the server's thread, as reading files and databases blocks; the outer
/// error is a task that panicked or was cancelled, the inner one the work's own.
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> anyhow::Result<T> + Send + 'static,
) -> Result<anyhow::Result<T>, Failure> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| Failure(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}

/// [`Reader::memoized`], off the server's thread.
pub(crate) async fn memoized<T: Send + Sync + 'static>(
    reader: &Arc<Reader>,
    what: &'static str,
    read: impl FnOnce(&Store, &Path) -> anyhow::Result<T> + Send + 'static,
) -> Result<Arc<T>, Failure> {
    let reader = Arc::clone(reader);
    blocking(move || reader.memoized(what, read))
        .await?
        .map_err(Failure::from)
}
