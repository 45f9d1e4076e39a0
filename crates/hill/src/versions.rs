//! A bot joins the hill: its folder is copied into the hill's own store under its content
//! digest (`versions/<digest>/`, never used in place, so the author may go on editing it), built
//! there, and must pass a **validation game** — one game against copies of itself, with no
//! fault — before it is recorded, in one transaction, as its bot's next version. Until then the
//! hill's database knows nothing of it: a `hill add` killed at any step leaves the version
//! absent (and at most a partial folder, cleared by the next add of the same bot).

use std::path::{Path, PathBuf};

use anyhow::Context;

use koth_base::cpu::Claim;
use koth_bot::{BotSpec, build, roster};
use koth_tournament::play::{GameParts, GameReport, play_one};
use koth_tournament::schedule::ScheduledGame;
use koth_tournament::store::sql::Connection;

use super::store;
use super::{Hill, files};

/// The folder of the hill's versions.
pub(crate) const VERSIONS: &str = "versions";

/// What the hill's pages say of a version suspended because its row names a folder that is not
/// the hill's copy of it ([`NotItsCopy`]): no path, since the pages are public.
pub(crate) const NOT_ITS_COPY: &str = "suspended: its folder in the hill's database is not the \
                                       hill's own copy of it (versions/<digest>/), so it is \
                                       never run";

/// A version's row in the hill's database that names a folder other than the copy `hill add`
/// made of it, `versions/<digest>/` for its own digest; the message names the row, its folder
/// and why. A hill's database is data: a restored backup, a PostgreSQL dump or an edited file
/// must not make koth run a folder the hill did not make.
#[derive(Debug)]
pub(crate) struct NotItsCopy(String);

impl std::fmt::Display for NotItsCopy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotItsCopy {}

/// Where the version of `bots` row `row`, named `label`, whose folder the row gives as `dir`
/// and whose digest as `digest`, is played from in the hill folder `hill`:
/// `hill/versions/<digest>/`, the only folder a version is ever run from. Refused unless
/// `digest` is a content digest (64 lowercase hexadecimal digits, one name under `versions/`),
/// `dir` is exactly `versions/<digest>` (no other path, no `..`, nothing outside the hill), and
/// neither `versions` nor the version's folder, where they are there, is a link (which could
/// lead out of the hill).
pub(crate) fn folder_of(
    hill: &Path,
    row: usize,
    label: &str,
    dir: &Path,
    digest: &str,
) -> Result<PathBuf, NotItsCopy> {
    let refused = |why: String| {
        NotItsCopy(format!(
            "version {label:?} (row {row} of the hill's `bots` table): its folder {:?} {why}",
            dir.to_string_lossy()
        ))
    };
    let is_digest = digest.len() == 64
        && digest
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if !is_digest {
        return Err(refused(format!(
            "is refused: its digest {digest:?} is not a content digest (64 hexadecimal digits)"
        )));
    }
    let own = Path::new(VERSIONS).join(digest);
    if dir != own {
        return Err(refused(format!(
            "is not {}/, the hill's own copy of it: a version is only ever played from there",
            own.display()
        )));
    }
    for path in [hill.join(VERSIONS), hill.join(&own)] {
        if std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.file_type().is_symlink()) {
            return Err(refused(format!(
                "is refused: {} is a link, which could lead out of the hill",
                path.display()
            )));
        }
    }
    Ok(hill.join(own))
}

/// Makes version `version` of bot `name` its active one again ([`store::roll_back`]): its
/// ratings, games and data kept, the version active until now replaced. Refused, with why,
/// for a version whose files the hill no longer keeps (older than `kept_versions`). Returns
/// the version it replaced, if any.
pub fn roll_back(hill: &Hill, name: &str, version: u32) -> anyhow::Result<Option<u32>> {
    super::contest::refuse_if_frozen(
        hill.config.contest.as_ref(),
        &hill.store,
        name,
        "rolling it back",
    )?;
    let db: &dyn Connection = &hill.store;
    let row = store::version_folder(db, name, version)?;
    if let Some((id, digest, dir)) = row.filter(|_| !hill.store.is_shared()) {
        let label = format!("{name} v{version}");
        let stored = folder_of(&hill.dir, id, &label, Path::new(&dir), &digest)
            .map_err(|refused| anyhow::anyhow!("{refused}"))?;
        anyhow::ensure!(
            stored.is_dir(),
            "{label}'s files are no longer kept (the hill keeps its bots' newest \
             `kept_versions`): send that version again instead"
        );
    }
    store::roll_back(db, name, version)
}

/// What became of a bot folder given to `hill add`.
#[derive(Debug, Clone, Default)]
pub struct Added {
    pub bot: String,
    /// Its version number, if it was accepted.
    pub version: Option<u32>,
    /// Why it was refused, if it was, in full: for the hill's owner and the bot's author.
    pub refused: Option<String>,
    /// Why it was refused in koth's own short words, with no command, log or path: what may be
    /// shown to anyone.
    pub summary: Option<String>,
    /// Its build step's output (the kept tail), if it has a build step that ran contained.
    pub build_log: Option<Vec<u8>>,
    /// The folder of its validation game, if it was played.
    pub validation: Option<PathBuf>,
    /// The faults of its validation game, each distinct one once after its kind's count over
    /// every copy (`kind ×count: reason`), without the stderr they quote: the game's stderr is
    /// kept beside.
    pub faults: Vec<String>,
}

impl Added {
    fn refused(bot: &str, why: String, summary: impl Into<String>) -> Added {
        Added {
            bot: bot.into(),
            refused: Some(why),
            summary: Some(summary.into()),
            ..Added::default()
        }
    }
}

/// The steps of an add, for a caller following one (a submission's status).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    Building,
    Validating,
}

/// Adds the bot of folder `source` to `hill`. `Err` is a person's mistake (no such folder, no
/// `bot.toml`); a bot that cannot join (it does not play the hill's game, its build or its
/// validation game fails) is `Ok` with the reason.
pub(crate) fn add(hill: &Hill, source: &Path) -> anyhow::Result<Added> {
    add_followed(hill, source, &mut |_| Ok(()))
}

/// [`add`], telling `step` as each step begins.
pub(crate) fn add_followed(
    hill: &Hill,
    source: &Path,
    step: &mut dyn FnMut(Step) -> anyhow::Result<()>,
) -> anyhow::Result<Added> {
    let (spec, games) = roster::load_manifest(source)?;
    if let Some(refused) = refused_at_door(hill, &spec, &games, source)? {
        return Ok(refused);
    }
    let digest = koth_bot::digest::digest(&spec)?;
    let versions = store::versions(&hill.store)?;
    if let Some(refused) = already_current(&versions, &spec.name, &digest) {
        return Ok(refused);
    }
    let folder = Path::new(VERSIONS).join(&digest);
    let stored = hill.dir.join(&folder);
    // A folder of a digest no version has may be an add killed before it was recorded.
    let kept = versions.iter().any(|v| v.digest == digest) && stored.is_dir();
    let mut build_log = None;
    if !kept {
        step(Step::Building)?;
        match store_copy(hill, &spec, source, &stored) {
            Ok(log) => build_log = log,
            Err(why) => return Ok(build_refused(&spec.name, &why)),
        }
    }
    let built = BotSpec {
        dir: std::path::absolute(&stored)?,
        ..spec.clone()
    };
    step(Step::Validating)?;
    let validation = Some(hill.dir.join("validation").join(&digest));
    let (refused, faults) = validate(hill, &built, &digest)?;
    if let Some((why, summary)) = refused {
        return Ok(Added {
            build_log,
            validation,
            faults,
            ..Added::refused(&spec.name, why, summary)
        });
    }
    // A shared hill's workers get the version from the database, not from this folder.
    let packed = match hill
        .store
        .is_shared()
        .then(|| files::pack(&built))
        .transpose()
    {
        Ok(packed) => packed,
        Err(why) => {
            return Ok(Added::refused(
                &spec.name,
                format!("{why:#}"),
                "its files could not be stored (koth's own fault, not the bot's; try again)",
            ));
        }
    };
    let kept = BotSpec {
        dir: folder,
        ..spec.clone()
    };
    let (id, version) = store::add_version(&hill.store, &kept, &digest, packed.as_ref())?;
    tracing::info!(bot = spec.name, version, id, digest, "version added");
    Ok(Added {
        bot: spec.name,
        version: Some(version),
        build_log,
        validation,
        ..Added::default()
    })
}

/// Why the hill refuses the bot `spec` of folder `source` (whose bot.toml lists `games`) at
/// its door, before anything is copied: the contest has closed, or the bot does not play the
/// hill's game, is not WASI where the hill takes only WASI, has data over the hill's cap or is
/// in a language the hill does not take. None if it may come in.
fn refused_at_door(
    hill: &Hill,
    spec: &BotSpec,
    games: &[String],
    source: &Path,
) -> anyhow::Result<Option<Added>> {
    if let Err(closed) = super::contest::refuse_after_close(
        hill.config.contest.as_ref(),
        &hill.store,
        "a new bot or version",
    ) {
        return Ok(Some(Added::refused(
            &spec.name,
            format!("{closed:#}"),
            format!("{closed:#}"),
        )));
    }
    let game = &hill.config.game.game;
    if !games.iter().any(|g| g == game) {
        return Ok(Some(Added::refused(
            &spec.name,
            format!(
                "{}: its bot.toml lists games {games:?}, not the hill's \"{game}\"",
                source.join(roster::MANIFEST).display()
            ),
            format!("its bot.toml does not list the hill's game \"{game}\""),
        )));
    }
    if let Err(refused) = hill.config.game.check_wasm_only(spec) {
        return Ok(Some(Added::refused(
            &spec.name,
            format!("{refused:#}"),
            "this hill takes only WASI bots (`wasm_only`)",
        )));
    }
    if let Err(refused) = hill.config.game.check_data(spec) {
        return Ok(Some(Added::refused(
            &spec.name,
            format!("{refused:#}"),
            format!(
                "its data is over this hill's cap of {} MiB (`data_mb`)",
                hill.config.game.data_cap_mb()
            ),
        )));
    }
    Ok(koth_bot::languages::refusal(spec, &hill.languages()?)
        .map(|why| Added::refused(&spec.name, format!("{}: {why}", roster::MANIFEST), why)))
}

/// The bot `name` refused because the folder of digest `digest` is already its current
/// version among `versions`.
fn already_current(versions: &[store::Version], name: &str, digest: &str) -> Option<Added> {
    let current = versions
        .iter()
        .find(|v| v.name == name && v.current() && v.digest == digest)?;
    Some(Added::refused(
        name,
        format!(
            "this folder is already its current version, v{}",
            current.version
        ),
        format!("it is already its current version, v{}", current.version),
    ))
}

/// The bot `bot` refused because its copy could not be stored or built (`why`), with its
/// build's log if its build ran.
fn build_refused(bot: &str, why: &anyhow::Error) -> Added {
    let failed = why.downcast_ref::<build::BuildFailed>();
    let summary = failed.map_or_else(
        || "it could not be built".to_string(),
        |failed| failed.summary.clone(),
    );
    Added {
        build_log: failed.map(|failed| failed.log.clone()),
        ..Added::refused(bot, format!("{why:#}"), summary)
    }
}

/// Copies `source` to `stored` and builds it there: into a partial folder first, renamed when
/// built, so `versions/<digest>/` is always a whole, built copy. Returns its build's log, if
/// it had a contained build.
fn store_copy(
    hill: &Hill,
    spec: &BotSpec,
    source: &Path,
    stored: &Path,
) -> anyhow::Result<Option<Vec<u8>>> {
    files::clear_partials(stored)?;
    let partial: PathBuf = stored.with_extension(format!("partial-{}", std::process::id()));
    build::copy_folder(source, &partial)
        .with_context(|| format!("cannot copy {} to {}", source.display(), partial.display()))?;
    let copy = BotSpec {
        dir: partial.clone(),
        ..spec.clone()
    };
    let config = &hill.config.game;
    let built = build::prepare(
        std::slice::from_ref(&copy),
        config.build_limit(),
        config.sandbox().as_ref(),
    );
    let built = match built {
        Ok(mut built) => built.remove(0),
        Err(err) => {
            let _ = std::fs::remove_dir_all(&partial);
            return Err(err.context("its build failed"));
        }
    };
    let log = build::log_of(&built).filter(|_| built.dir != partial);
    // A contained build ran in a build copy of its own: the version stored is what it built.
    if built.dir != partial {
        std::fs::remove_dir_all(&partial)?;
        build::copy_folder(&built.dir, &partial).with_context(|| {
            format!(
                "cannot copy {} to {}",
                built.dir.display(),
                partial.display()
            )
        })?;
    }
    if stored.exists() {
        // Left by an add killed after its rename and before it was recorded.
        std::fs::remove_dir_all(stored)?;
    }
    std::fs::rename(&partial, stored).with_context(|| {
        format!(
            "cannot rename {} to {}",
            partial.display(),
            stored.display()
        )
    })?;
    Ok(log)
}

/// Why a validation game refused its bot: in full, and in koth's short words.
type Refused = (String, String);

/// The rounds of a validation game, at most: a few, to see that the bot plays, not a ranked
/// game's worth (the original Grid-Routing Battle bots took 27 to 335 s to validate at 20).
const VALIDATION_ROUNDS: u32 = 3;

/// Plays the validation games of `bot`: at each table size a game of the hill can have (the
/// fewest and the most seats, [`super::config::HillConfig::validated_sizes`]), a short game against copies
/// of itself. Returns why it failed, if it did (naming the size where there are two), and
/// its faults.
fn validate(
    hill: &Hill,
    bot: &BotSpec,
    digest: &str,
) -> anyhow::Result<(Option<Refused>, Vec<String>)> {
    let sizes = hill.config.validated_sizes();
    // One size after the other, never both at once: a hostile newcomer's copies, each at the
    // memory cap, are never more than the largest table's (both at once saved Watermelon's
    // `hill add` 15.0 s -> 12.7 s, not worth a third more memory at the door).
    let played = sizes.iter().map(|&players| {
        let at = (sizes.len() > 1).then_some(players);
        validate_at(hill, bot, digest, players, at)
    });
    // The faults up to the first size it broke at; no size after it is played.
    let mut faults = Vec::new();
    for outcome in played {
        let (refused, found) = outcome?;
        faults.extend(found);
        if refused.is_some() {
            return Ok((refused, faults));
        }
    }
    Ok((None, faults))
}

/// One validation game of `bot` at `players` seats (`at`: the size, to name where the hill
/// validates at more than one), in the hill's `validation/<digest>/`.
fn validate_at(
    hill: &Hill,
    bot: &BotSpec,
    digest: &str,
    players: usize,
    at: Option<usize>,
) -> anyhow::Result<(Option<Refused>, Vec<String>)> {
    let parts = validation_parts(hill, bot, digest, players, at)?;
    let game = ScheduledGame {
        index: 0,
        seed: u64::from_str_radix(&digest[..16], 16).unwrap_or_default()
            ^ hill.seed
            ^ players as u64,
        seats: (0..players).collect(),
    };
    // "its validation game", or "its validation game of 2 seats" where it has two.
    let game_named = match at {
        Some(players) => format!("its validation game of {players} seats"),
        None => "its validation game".to_string(),
    };
    let GameReport { outcome, .. } = koth_game::runtime()?.block_on(play_one(parts, game, 1));
    let (result, data) = match outcome {
        Ok(played) => played,
        Err(harness) => {
            let summary = format!(
                "{game_named} could not be played (koth's own fault, not the bot's; try again)"
            );
            let why = format!("{summary}: {harness}");
            return Ok((Some((why, summary)), Vec::new()));
        }
    };
    let faults = distinct_faults(&result.bots);
    let refused = faults_refusal(&result.bots, &game_named, digest);
    // A learning bot's data is kept after a ranked game as after this one: one it may not keep
    // (over its cap, a link) would never be kept there either, so it is refused now, by why.
    let refused = refused.or_else(|| {
        let why = data
            .iter()
            .find_map(|seat| seat.left.as_ref().err())
            .filter(|why| why.starts_with(koth_tournament::play::DATA_REFUSED))?;
        let said = format!("{game_named} (against copies of itself): {why}");
        Some((said.clone(), said))
    });
    Ok((refused, faults))
}

/// What a validation game of `bot` at `players` seats (`at`, as [`validate_at`] says) needs:
/// the bot and its copies, each a learning bot's empty data, in the hill's
/// `validation/<digest>/` (`<players>-seats/` under it where it validates at two sizes), for
/// at most [`VALIDATION_ROUNDS`] rounds.
fn validation_parts(
    hill: &Hill,
    bot: &BotSpec,
    digest: &str,
    players: usize,
    at: Option<usize>,
) -> anyhow::Result<GameParts> {
    let config = &hill.config.game;
    let seats: Vec<BotSpec> = (0..players)
        .map(|seat| BotSpec {
            name: match seat {
                0 => bot.name.clone(),
                n => format!("{} (copy {n})", bot.name),
            },
            data: config.data_for(bot.data),
            ..bot.clone()
        })
        .collect();
    let dir = match at {
        Some(players) => hill
            .dir
            .join("validation")
            .join(digest)
            .join(format!("{players}-seats")),
        None => hill.dir.join("validation").join(digest),
    };
    // A learning bot's copies validate from empty folders; what they leave is not kept.
    let data = seats
        .iter()
        .map(|seat| seat.data.map(|_| koth_bot::data::Snapshot::empty()))
        .collect();
    let claim = Claim::unpinned("a validation game".into());
    Ok(GameParts {
        rounds: Some(
            config
                .rounds
                .map_or(VALIDATION_ROUNDS, |r| r.min(VALIDATION_ROUNDS)),
        ),
        ..GameParts::new(
            config,
            config.game()?,
            config.sandbox(),
            claim,
            dir,
            data,
            seats,
        )
    })
}

/// Why a validation game refuses its bot, if a copy could not play (in full, naming its first
/// fault, and in short, each kind's count over every copy of `bots`); a rare fault (the
/// original Connector's crash in a round in a hundred) is recorded, no more.
fn faults_refusal(
    bots: &[koth_game::BotResult],
    game_named: &str,
    digest: &str,
) -> Option<Refused> {
    let faulted = bots
        .iter()
        .find(|b| super::could_not_play(&b.fault_counts, b.timing.answers))?;
    let first = faulted
        .faults
        .first()
        .map(|f| format!("{}: {}", f.kind, f.reason))
        .unwrap_or_else(|| faulted.status.to_string());
    // Every copy's faults, as the list of distinct faults counts them.
    let mut f = koth_bot::FaultCounts::default();
    for bot in bots {
        f.merge(&bot.fault_counts);
    }
    let counts: Vec<String> = [
        ("failed_to_start", f.failed_to_start),
        ("timed_out", f.timed_out),
        ("crashed", f.crashed),
        ("bad_output", f.bad_output),
    ]
    .iter()
    .filter(|(_, n)| *n > 0)
    .map(|(kind, n)| format!("{kind} ×{n}"))
    .collect();
    Some((
        format!(
            "{game_named} (against copies of itself, in the hill's validation/{digest}) \
             had faults: {first}"
        ),
        format!(
            "{game_named} (against copies of itself) had faults: {}",
            counts.join(", ")
        ),
    ))
}

/// Each distinct fault of `bots` once, in koth's words without the stderr it quotes, after its
/// kind's true count over every copy (`crashed ×140: exited …`); one number for how many there
/// were, everywhere. A match keeps only the first [`koth_bot::FAULTS_KEPT_PER_KIND`] of each
/// kind per bot with their reasons, so where fewer were kept than counted, or the kept ones
/// differ, a clause apart says how many of those kept say this: `(the first 70 kept)`,
/// `(12 of the 70 kept)`.
fn distinct_faults(bots: &[koth_game::BotResult]) -> Vec<String> {
    let mut counted = koth_bot::FaultCounts::default();
    for bot in bots {
        counted.merge(&bot.fault_counts);
    }
    // Per kind, in the order first kept: each distinct reason and how many kept faults say it.
    let mut kinds: Vec<(koth_bot::FaultKind, Vec<(&str, u64)>)> = Vec::new();
    for fault in bots.iter().flat_map(|b| &b.faults) {
        let reason = koth_bot::error::without_stderr(&fault.reason).unwrap_or(&fault.reason);
        let reasons = match kinds.iter().position(|(kind, _)| *kind == fault.kind) {
            Some(at) => &mut kinds[at].1,
            None => {
                kinds.push((fault.kind, Vec::new()));
                &mut kinds.last_mut().expect("just pushed").1
            }
        };
        match reasons.iter_mut().find(|(said, _)| *said == reason) {
            Some((_, count)) => *count += 1,
            None => reasons.push((reason, 1)),
        }
    }
    let mut faults = Vec::new();
    for (kind, reasons) in kinds {
        let kept: u64 = reasons.iter().map(|(_, count)| count).sum();
        let total = counted.of(kind).max(kept);
        let named = match total {
            1 => kind.to_string(),
            _ => format!("{kind} ×{total}"),
        };
        let several = reasons.len() > 1;
        for (reason, count) in reasons {
            faults.push(if several {
                format!("{named}: {reason} ({count} of the {kept} kept)")
            } else if kept < total {
                format!("{named}: {reason} (the first {kept} kept)")
            } else {
                format!("{named}: {reason}")
            });
        }
    }
    faults
}

#[cfg(test)]
mod tests {
    use super::*;
    use koth_bot::{AnswerStats, BotStatus, Fault, FaultCounts, FaultKind};

    /// A copy of a bot that crashed `crashed` times, of which the match kept `kept`, each with
    /// `reason`.
    fn copy(name: &str, crashed: u64, kept: u64, reason: &str) -> koth_game::BotResult {
        koth_game::BotResult {
            name: name.into(),
            score: 0.0,
            status: BotStatus::Crashed,
            faults: (0..kept)
                .map(|round| Fault {
                    bot: name.into(),
                    kind: FaultKind::Crashed,
                    round: Some(round as u32 + 1),
                    turn: None,
                    reason: reason.into(),
                })
                .collect(),
            fault_counts: FaultCounts {
                crashed,
                ..FaultCounts::default()
            },
            timing: AnswerStats::default(),
        }
    }

    #[test]
    fn a_fault_is_counted_once_over_every_copy_and_what_was_kept_is_a_clause_apart() {
        // Seven copies, each crashing 20 times, each keeping its first 10: 140 in all.
        let copies: Vec<_> = (0..7)
            .map(|n| copy(&format!("c{n}"), 20, 10, "exited (exit status: 1)"))
            .collect();
        assert_eq!(
            distinct_faults(&copies),
            ["crashed ×140: exited (exit status: 1) (the first 70 kept)"]
        );
        let mixed = [copy("a", 2, 2, "one"), copy("b", 1, 1, "two")];
        assert_eq!(
            distinct_faults(&mixed),
            [
                "crashed ×3: one (2 of the 3 kept)",
                "crashed ×3: two (1 of the 3 kept)"
            ]
        );
        assert_eq!(distinct_faults(&[copy("a", 1, 1, "one")]), ["crashed: one"]);
    }
}
