//! The builders beside `hill run`: received submissions taken authors in turn, built and
//! validated through the owner's own path, what their author may read kept capped and scrubbed;
//! and what a stop left half-done, recovered.

use super::*;
use crate::store::submissions::{self as rows, Outcome, Received, SubmissionStatus};

/// After a stop: clears uploads never recorded, and puts a submission caught building or
/// validating back in the queue once; one caught a second time is refused, since it may be
/// what stopped koth (a build that took the machine's memory): an upload never brings the
/// hill down more than twice.
pub(crate) fn recover(hill: &Hill) -> anyhow::Result<()> {
    let db: &dyn Connection = &hill.store;
    for bot in rows::recover_unfinished(db, BUILD_TRIES, UNFINISHED)? {
        rows::release_name(db, &bot)?;
    }
    rows::requeue_unfinished(db)?;
    let folder = hill.dir.join(FOLDER);
    let incoming = folder.join(INCOMING);
    if incoming.exists() {
        std::fs::remove_dir_all(&incoming)
            .with_context(|| format!("cannot clear {}", incoming.display()))?;
    }
    let waiting = rows::received(db)?;
    for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !waiting.contains(&name) {
            std::fs::remove_dir_all(entry.path())
                .with_context(|| format!("cannot clear {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// Builds and validates received submissions on `submissions.builders` threads beside
/// `hill run`'s games, each one submission at a time, until stopped.
pub(crate) struct Builder {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Builder {
    /// Starts the builders of `hill`, each with a connection of its own to the hill's
    /// database (a submission is begun by one of them only: see [`build_next`]).
    pub(crate) fn start(hill: Hill) -> anyhow::Result<Builder> {
        recover(&hill)?;
        let stop = Arc::new(AtomicBool::new(false));
        let mut threads = Vec::new();
        for n in 0..hill.config.submissions.builders {
            let hill = hill.reopen()?;
            let stopped = Arc::clone(&stop);
            let thread = std::thread::Builder::new()
                .name(format!("koth-builder-{n}"))
                .spawn(move || {
                    while !stopped.load(Ordering::Relaxed) && !koth_base::interrupt::requested() {
                        match build_next(&hill) {
                            Ok(true) => {}
                            Ok(false) => std::thread::sleep(POLL),
                            Err(err) => {
                                tracing::error!("a builder of submissions: {err:#}");
                                std::thread::sleep(POLL * 10);
                            }
                        }
                    }
                })?;
            threads.push(thread);
        }
        Ok(Builder { stop, threads })
    }
}

impl Drop for Builder {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// Builds and validates the next received submission, if there is one: authors take turns
/// (the author whose last build began longest ago goes first, then that author's oldest
/// upload), so one author's many uploads delay another's by one build at most.
pub(crate) fn build_next(hill: &Hill) -> anyhow::Result<bool> {
    let db: &dyn Connection = &hill.store;
    let Some(Received { id, bot, author }) = rows::next_received(db)? else {
        return Ok(false);
    };
    if !rows::begin_build(db, &id)? {
        // Another builder took it first.
        return Ok(true);
    }
    let folder = hill.dir.join(FOLDER).join(&id);
    let set = |status: SubmissionStatus| rows::set_status(db, &id, status);
    // `hill run`'s terminal tells its owner of each upload, and (in its games' loop) of the
    // version it becomes.
    eprintln!(
        "koth: an upload of {} by {} arrived (submission {id}): building and validating it",
        koth_base::text::shown(&bot),
        koth_base::text::shown(&author)
    );
    tracing::info!(id, bot, "submission building");
    let added = versions::add_followed(hill, &folder, &mut |step| {
        set(match step {
            Step::Building => SubmissionStatus::Building,
            Step::Validating => SubmissionStatus::Validating,
        })
    });
    if koth_base::interrupt::requested() {
        // Cut short by a stop, no fault of the upload's: it is built again, from its first
        // try, when the hill runs again.
        rows::put_back(db, &id)?;
        return Ok(false);
    }
    let added = added.unwrap_or_else(|err| versions::Added {
        bot: bot.clone(),
        refused: Some(format!("{err:#}")),
        summary: Some("it could not be read".into()),
        ..versions::Added::default()
    });
    // What the author reads names their bot's own folders `.`, wherever the server put them.
    let private = logs::Paths::new(&hill.dir).folder(&folder, ".");
    rows::record_outcome(db, &id, &bot, outcome(&added, &private)?)?;
    if added.version.is_none() {
        say_refused(&bot, &id, &added);
    }
    tracing::info!(
        id,
        bot,
        version = added.version,
        refused = added.refused,
        "submission done"
    );
    std::fs::remove_dir_all(&folder)
        .with_context(|| format!("cannot clear {}", folder.display()))?;
    match added.version {
        Some(_) => prune(hill, &bot)?,
        None => rows::release_name(db, &bot)?,
    }
    Ok(true)
}

/// What became of a built submission, as its author reads it: the reason, build log, faults,
/// stderr and detail, each with the server's folders named as `private` says, capped.
fn outcome(added: &versions::Added, private: &logs::Paths) -> anyhow::Result<Outcome> {
    Ok(Outcome {
        version: added.version,
        reason: added.summary.as_deref().map(short_reason),
        build_log: added
            .build_log
            .as_deref()
            .map(|log| capped(&private.scrub(&String::from_utf8_lossy(log)))),
        faults: added.faults.iter().map(|f| private.scrub(f)).collect(),
        stderr: added
            .validation
            .as_deref()
            .and_then(|game| stderr_of(game, private)),
        detail: added
            .refused
            .as_deref()
            .map(|why| capped(&private.scrub(why))),
    })
}

/// Tells `hill run`'s terminal that submission `id` of `bot` is refused, and why in a line.
fn say_refused(bot: &str, id: &str, added: &versions::Added) {
    eprintln!(
        "koth: the upload of {} (submission {id}) is refused: {}",
        koth_base::text::shown(bot),
        koth_base::text::shown(
            &added
                .summary
                .as_deref()
                .map(short_reason)
                .unwrap_or_default()
                .replace('\n', " | ")
        )
    );
}

/// Removes the files of `bot`'s versions older than the newest `kept_versions` (and not
/// active); their games and ratings stay.
fn prune(hill: &Hill, bot: &str) -> anyhow::Result<()> {
    let db: &dyn Connection = &hill.store;
    let keep = hill.config.submissions.kept_versions as usize;
    let mut kept = Vec::new();
    for (i, version) in rows::versions_newest_first(db, bot)?
        .into_iter()
        .enumerate()
    {
        let digest = version.digest;
        if i < keep || version.active || kept.contains(&digest) {
            kept.push(digest);
            continue;
        }
        // Only the hill's own copy is ever removed, whatever an edited row names.
        let stored = match versions::folder_of(
            &hill.dir,
            version.id,
            &version.name,
            Path::new(&version.dir),
            &digest,
        ) {
            Ok(stored) => stored,
            Err(refused) => {
                tracing::warn!("not pruned: {refused}");
                continue;
            }
        };
        if stored.exists() {
            std::fs::remove_dir_all(&stored)
                .with_context(|| format!("cannot prune {}", stored.display()))?;
            tracing::info!(bot, digest, "an old version's files pruned");
        }
        rows::files_dropped(db, &digest)?;
    }
    Ok(())
}

/// The stderr of a validation game's bots, scrubbed by `paths`, each distinct text once with
/// the seats that wrote it, capped: copies of one bot write alike, one of them maybe more
/// often (restarted round after round), so a text is taken as the one it repeats.
fn stderr_of(game: &Path, paths: &logs::Paths) -> Option<String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(game.join(koth_bot::seat::STDERR_DIR))
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    // Each distinct text, with the seats that wrote it and how often each did.
    let mut distinct: Vec<(Vec<(usize, usize)>, String)> = Vec::new();
    for (seat, file) in files.iter().enumerate() {
        let bytes = std::fs::read(file).unwrap_or_default();
        if bytes.is_empty() {
            continue;
        }
        let text = paths.scrub(&String::from_utf8_lossy(&bytes));
        let (unit, times) = repeated(&text);
        match distinct.iter_mut().find(|(_, said)| said == unit) {
            Some((seats, _)) => seats.push((seat + 1, times)),
            None => distinct.push((vec![(seat + 1, times)], unit.to_string())),
        }
    }
    let text: String = distinct
        .iter()
        .map(|(seats, text)| {
            let listed: Vec<String> = seats
                .iter()
                .map(|&(seat, times)| match times {
                    1 => seat.to_string(),
                    _ => format!("{seat} ×{times}"),
                })
                .collect();
            let named = match seats.len() {
                1 => format!("seat {}", listed[0]),
                _ => format!("seats {} (the same)", listed.join(", ")),
            };
            format!("== {named}\n{}\n", text.trim_end())
        })
        .collect();
    (!text.is_empty()).then(|| capped(&text))
}

/// The shortest text `text` is made of, repeated, and how many times (up to 100: a bot
/// restarted in each round of its game).
fn repeated(text: &str) -> (&str, usize) {
    for times in (2..=text.len().min(100)).rev() {
        if !text.len().is_multiple_of(times) || !text.is_char_boundary(text.len() / times) {
            continue;
        }
        let unit = &text[..text.len() / times];
        if text
            .as_bytes()
            .chunks(unit.len())
            .all(|c| c == unit.as_bytes())
        {
            return (unit, times);
        }
    }
    (text, 1)
}
