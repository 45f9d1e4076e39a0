//! An author's door onto a hill served elsewhere, over HTTP with their token.
//!
//! `koth hill submit BOT_DIR --to URL [--token TOKEN] [--wait [--wait-games N]]` packs the
//! folder as a `.tar.gz` (files and folders, sorted, with no owner or time, so the same folder
//! always packs to the same bytes and the hill recognises it), uploads it, and prints the
//! submission; `--wait` follows it to `active` or `refused`, and `--wait-games N` on into its
//! first N ranked games: its standing then, or its suspension with how to read its logs.
//!
//! `koth hill logs NAME [--game N] --to URL [--token TOKEN]` prints the author's bot's faults
//! and stderr (and with `--transcript` its transcript) of game N, or of its latest game, and
//! lists its last games.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use koth_bot::roster;

use super::submissions::SubmissionStatus;

/// How long `--wait` follows a submission before it gives up (a build's limit is at most an
/// hour, and a validation game is one game).
const WAIT_AT_MOST: Duration = Duration::from_secs(2 * 3600);
/// How often `--wait` asks.
const ASK_EVERY: Duration = Duration::from_millis(500);

/// A submission as the hill answers for it.
#[derive(Debug, Deserialize)]
struct Submission {
    id: String,
    bot: String,
    version: Option<u32>,
    status: SubmissionStatus,
    reason: Option<String>,
    private: Option<Private>,
}

#[derive(Debug, Deserialize)]
struct Private {
    build_log: Option<String>,
    #[serde(default)]
    faults: Vec<String>,
    stderr: Option<String>,
}

/// How `koth hill submit` follows its submission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wait {
    /// Not at all: the submission is printed as received.
    No,
    /// To `active` or `refused`.
    Settled,
    /// On into the version's first N ranked games.
    Games(u32),
}

/// An HTTP client for the hill at `to`, and its base address.
fn client(to: &str) -> anyhow::Result<(reqwest::blocking::Client, &str)> {
    let client = http_client(Some(Duration::from_secs(300)))?;
    Ok((client, to.trim_end_matches('/')))
}

/// An HTTP client of koth's servers whose requests end within `timeout` (`None`: a stream
/// followed as long as it lasts), connecting within 10 s.
pub fn http_client(timeout: Option<Duration>) -> anyhow::Result<reqwest::blocking::Client> {
    // rustls's own provider (ring), chosen once; reqwest's TLS takes whichever is installed.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::blocking::Client::builder()
        .timeout(timeout)
        .connect_timeout(Duration::from_secs(10))
        .build()
        .context("cannot start an HTTP client")
}

/// Sends the bot of `folder` to the hill at `to`; with `fresh_data`, a learning bot's new
/// version starts from an empty data folder: its bot.toml is sent with `fresh_data = true`.
pub(crate) fn submit(
    folder: &Path,
    to: &str,
    token: &str,
    wait: Wait,
    fresh_data: bool,
) -> anyhow::Result<()> {
    // The folder's own mistakes are told here, before anything is sent.
    let (spec, _) = roster::load_manifest(folder)?;
    let manifest = match (fresh_data, spec.data) {
        (false, _) => None,
        (true, None) => bail!(
            "{}: --fresh-data is for a bot that keeps data, and its bot.toml asks for none \
             (`data = true`)",
            folder.join(roster::MANIFEST).display()
        ),
        (true, Some(ask)) if ask.fresh => None,
        (true, Some(_)) => {
            let path = folder.join(roster::MANIFEST);
            let text = koth_base::text::read(&path)?;
            if toml::from_str::<toml::Table>(&text)?.contains_key("fresh_data") {
                bail!(
                    "{}: says `fresh_data = false`, and --fresh-data asks the opposite: remove \
                     one of them",
                    path.display()
                );
            }
            // At the top: a key after a table header would belong to that table.
            Some(format!("fresh_data = true\n{text}").into_bytes())
        }
    };
    let packed = pack(folder, manifest.as_deref())?;
    let (client, base) = client(to)?;
    let response = client
        .post(format!("{base}/api/submissions"))
        .bearer_auth(token)
        .header(reqwest::header::CONTENT_TYPE, "application/gzip")
        .body(packed.clone())
        .send()
        .with_context(|| format!("cannot reach the hill at {base}"))?;
    let submission: Submission = answer(response)?;
    println!(
        "{} v{}: submission {} ({} bytes packed), {}",
        koth_base::text::shown(&submission.bot),
        submission.version.unwrap_or_default(),
        submission.id,
        packed.len(),
        submission.status
    );
    if submission.bot != spec.name {
        tracing::warn!(
            "the hill names the bot {:?}, its bot.toml {:?}",
            submission.bot,
            spec.name
        );
    }
    if wait == Wait::No {
        return Ok(());
    }
    let submission = follow(&client, base, token, submission)?;
    match wait {
        Wait::Games(games) => watch_games(&client, base, token, submission, games),
        _ => Ok(()),
    }
}

/// Asks after `submission` until it is active or refused, or already suspended, replaced or
/// retired; the active one is returned.
fn follow(
    client: &reqwest::blocking::Client,
    base: &str,
    token: &str,
    mut submission: Submission,
) -> anyhow::Result<Submission> {
    let started = Instant::now();
    let mut said = submission.status;
    while !submission.status.is_final() {
        if started.elapsed() > WAIT_AT_MOST {
            bail!(
                "submission {} is still {} after {} s; `koth hill submit` stops waiting",
                submission.id,
                submission.status,
                WAIT_AT_MOST.as_secs()
            );
        }
        std::thread::sleep(ASK_EVERY);
        submission = ask(client, base, token, &submission.id)?;
        if submission.status != said {
            println!("{}", submission.status);
            said = submission.status;
        }
    }
    if let Some(private) = &submission.private {
        // Each once: the build log, each distinct fault (with its count), the stderr.
        if let Some(log) = private.build_log.as_deref().filter(|l| !l.is_empty()) {
            println!("--- build log\n{}", koth_base::text::shown_lines(log));
        }
        for fault in &private.faults {
            println!("fault: {}", koth_base::text::shown(fault));
        }
        if let Some(stderr) = &private.stderr {
            println!(
                "--- validation game's stderr\n{}",
                koth_base::text::shown_lines(stderr)
            );
        }
    }
    let (bot, version) = (
        koth_base::text::shown(&submission.bot),
        submission.version.unwrap_or_default(),
    );
    match submission.status {
        SubmissionStatus::Active => {
            println!("{bot} v{version} is active on the hill");
            Ok(submission)
        }
        SubmissionStatus::Replaced | SubmissionStatus::Retired => {
            println!(
                "{bot} v{version} was accepted, and is {} since",
                koth_base::text::shown(
                    submission
                        .reason
                        .as_deref()
                        .unwrap_or(submission.status.as_str())
                )
            );
            Ok(submission)
        }
        SubmissionStatus::Suspended => bail!(
            "{bot} v{version} was accepted, then {}",
            koth_base::text::shown_lines(submission.reason.as_deref().unwrap_or("suspended"))
        ),
        _ => bail!(
            "{bot} was refused: {}",
            koth_base::text::shown_lines(submission.reason.as_deref().unwrap_or("no reason given"))
        ),
    }
}

/// Submission `id` as the hill answers its author.
fn ask(
    client: &reqwest::blocking::Client,
    base: &str,
    token: &str,
    id: &str,
) -> anyhow::Result<Submission> {
    let response = client
        .get(format!("{base}/api/submissions/{id}"))
        .bearer_auth(token)
        .send()
        .with_context(|| format!("cannot reach the hill at {base}"))?;
    answer(response)
}

/// A version as the bot's record on the hill gives it.
#[derive(Debug, Deserialize)]
struct VersionRecord {
    version: u32,
    games: u32,
}

#[derive(Debug, Deserialize)]
struct BotRecord {
    versions: Vec<VersionRecord>,
    /// Absent from an older hill.
    #[serde(default)]
    faults: FaultsRecord,
}

/// A bot's latest faulted games, as its record gives them (reasons in koth's words).
#[derive(Debug, Default, Deserialize)]
struct FaultsRecord {
    latest: Vec<FaultedGameRecord>,
}

#[derive(Debug, Deserialize)]
struct FaultedGameRecord {
    game: u32,
    version: u32,
    kinds: Vec<String>,
    reason: Option<String>,
}

/// The leaderboard as `/api/hill` gives it: what the table ranks by, and its rows in order.
#[derive(Debug, Deserialize)]
struct Board {
    statistic: String,
    /// Absent from a hill older than the field: every version ranked.
    #[serde(default)]
    placement_games: u32,
    standings: Vec<Standing>,
}

#[derive(Debug, Deserialize)]
struct Standing {
    /// None while it plays its placement games.
    rank: Option<usize>,
    name: String,
    version: u32,
    rating: Option<f64>,
    low: Option<f64>,
    high: Option<f64>,
    games: u32,
}

/// Follows the active `submission`'s version into its first `games` ranked games: ends with its
/// standing then, or fails with its suspension's reason and the command that reads its logs.
fn watch_games(
    client: &reqwest::blocking::Client,
    base: &str,
    token: &str,
    mut submission: Submission,
    games: u32,
) -> anyhow::Result<()> {
    let started = Instant::now();
    let version = submission.version.unwrap_or_default();
    let bot = koth_base::text::shown(&submission.bot).into_owned();
    let record_path = format!(
        "{base}/api/hill/bots/{}",
        percent_encoding::utf8_percent_encode(&submission.bot, percent_encoding::NON_ALPHANUMERIC)
    );
    let mut said = 0;
    let mut faults_told = std::collections::HashSet::new();
    loop {
        let record = get::<BotRecord>(client, &record_path, None)?;
        let played = record
            .versions
            .iter()
            .find(|v| v.version == version)
            .map_or(0, |v| v.games);
        tell_faults(&record, &bot, version, &mut faults_told);
        if played != said {
            println!("{bot} v{version}: {played} ranked games");
            said = played;
        }
        if left_the_hill(&submission, &bot, version, played, base)? {
            return Ok(());
        }
        if played >= games {
            break;
        }
        if started.elapsed() > WAIT_AT_MOST {
            bail!(
                "{bot} v{version} played {played} of {games} ranked games in {} s; \
                 `koth hill submit` stops waiting",
                WAIT_AT_MOST.as_secs()
            );
        }
        std::thread::sleep(ASK_EVERY);
        submission = ask(client, base, token, &submission.id)?;
    }
    let board = get::<Board>(client, &format!("{base}/api/hill"), None)?;
    tell_standing(&board, &submission.bot, &bot, version, said);
    Ok(())
}

/// Prints each faulted game of version `version` of `bot` (as shown) in its `record` not told
/// yet (`told`, by game), once: a fault a game (a learning bot's data over its cap) is told,
/// not only a suspension.
fn tell_faults(
    record: &BotRecord,
    bot: &str,
    version: u32,
    told: &mut std::collections::HashSet<u32>,
) {
    for faulted in record.faults.latest.iter().rev() {
        if faulted.version == version && told.insert(faulted.game) {
            println!(
                "{bot} v{version}: game {}: {}{}",
                faulted.game,
                faulted.kinds.join(", "),
                faulted
                    .reason
                    .as_deref()
                    .map_or(String::new(), |reason| format!(
                        ": {}",
                        koth_base::text::shown(reason)
                    ))
            );
        }
    }
}

/// Whether `submission`'s version `version` of `bot` (as shown), after `played` ranked games,
/// was replaced or retired (said, `true`); fails with its reason and the command that reads
/// its logs from the hill at `base` if it was suspended.
fn left_the_hill(
    submission: &Submission,
    bot: &str,
    version: u32,
    played: u32,
    base: &str,
) -> anyhow::Result<bool> {
    match submission.status {
        SubmissionStatus::Suspended => bail!(
            "{bot} v{version} was suspended after {played} ranked games: {}\n\
             its logs: koth hill logs {:?} --to {base} --token \"$KOTH_TOKEN\"",
            koth_base::text::shown_lines(submission.reason.as_deref().unwrap_or("suspended")),
            submission.bot,
        ),
        SubmissionStatus::Replaced | SubmissionStatus::Retired => {
            println!(
                "{bot} v{version} is {} after {played} ranked games",
                koth_base::text::shown(
                    submission
                        .reason
                        .as_deref()
                        .unwrap_or(submission.status.as_str())
                )
            );
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// Prints the standing of version `version` of bot `name` (`bot` as shown) on `board`: its
/// rank and figure, its placement games while it places, or that the next fit ranks it
/// (after `said` ranked games).
fn tell_standing(board: &Board, name: &str, bot: &str, version: u32, said: u32) {
    let ranked = board
        .standings
        .iter()
        .find(|s| s.name == name && s.version == version);
    match ranked {
        Some(standing) if standing.rank.is_none() => println!(
            "{bot} v{version} has played {} of its {} placement games; it is ranked once it has \
             played them all",
            standing.games, board.placement_games
        ),
        Some(standing) => {
            let figure = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.1}"));
            println!(
                "{bot} v{version} after {} games: rank {} of {}, {} (95% interval {} to {})\n  \
                 the table's figure: {}",
                standing.games,
                standing.rank.unwrap_or_default(),
                board.standings.iter().filter(|s| s.rank.is_some()).count(),
                figure(standing.rating),
                figure(standing.low),
                figure(standing.high),
                board.statistic,
            );
        }
        None => println!(
            "{bot} v{version} played {said} ranked games and is not ranked yet (the next fit \
             ranks it)"
        ),
    }
}

/// Prints the author's logs of bot `name` in game `game` (its latest game if `None`), fetched
/// from the hill at `to` with `token`; with its transcript if `transcript`.
pub(crate) fn logs(
    name: &str,
    game: Option<u32>,
    to: &str,
    token: &str,
    transcript: bool,
) -> anyhow::Result<()> {
    #[derive(Deserialize)]
    struct Logs {
        game: u32,
        seats: Vec<Seat>,
        games: Vec<GameOfBot>,
    }
    #[derive(Deserialize)]
    struct Seat {
        version: u32,
        score: f64,
        status: String,
        faults: Vec<String>,
        stderr: String,
        transcript: String,
    }
    #[derive(Deserialize)]
    struct GameOfBot {
        game: u32,
        version: u32,
        status: String,
    }
    let (client, base) = client(to)?;
    let encoded = percent_encoding::utf8_percent_encode(name, percent_encoding::NON_ALPHANUMERIC);
    let path = match game {
        Some(game) => format!("{base}/api/hill/bots/{encoded}/games/{game}/logs"),
        None => format!("{base}/api/hill/bots/{encoded}/logs"),
    };
    let logs: Logs = get(&client, &path, Some(token))?;
    let bot = koth_base::text::shown(name);
    for seat in &logs.seats {
        println!(
            "{bot} v{} in game {}: {}, score {}",
            seat.version, logs.game, seat.status, seat.score
        );
        for fault in &seat.faults {
            println!("fault: {}", koth_base::text::shown(fault));
        }
        match seat.stderr.is_empty() {
            true => println!("--- stderr: nothing"),
            false => println!("--- stderr\n{}", koth_base::text::shown_lines(&seat.stderr)),
        }
        if transcript {
            println!(
                "--- transcript\n{}",
                koth_base::text::shown_lines(&seat.transcript)
            );
        }
    }
    let listed: Vec<String> = logs
        .games
        .iter()
        .map(|g| format!("{} (v{} {})", g.game, g.version, g.status))
        .collect();
    println!(
        "its last games, newest first: {}; `--game N` reads another",
        listed.join(", ")
    );
    Ok(())
}

/// The answer to a GET of `url` (with `token`, if any) as a `T`, or the hill's error.
/// Downloads bot `name`'s data from the hill at `to`, as its author: a `.tar.gz` written to
/// `out` (default `<name>-data.tar.gz`).
pub(crate) fn data(name: &str, to: &str, token: &str, out: Option<&Path>) -> anyhow::Result<()> {
    let (client, base) = client(to)?;
    let encoded = percent_encoding::utf8_percent_encode(name, percent_encoding::NON_ALPHANUMERIC);
    let response = client
        .get(format!("{base}/api/hill/bots/{encoded}/data"))
        .bearer_auth(token)
        .send()
        .with_context(|| format!("cannot reach the hill at {base}"))?;
    if !response.status().is_success() {
        answer::<serde_json::Value>(response)?;
        unreachable!("an answer that is not a success is an error");
    }
    let digest = response
        .headers()
        .get(super::data::DIGEST_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let bytes = response
        .bytes()
        .context("the hill's answer was cut short")?;
    let default = PathBuf::from(format!(
        "{}-data.tar.gz",
        name.replace(|c: char| !c.is_alphanumeric() && c != '-', "_")
    ));
    let out = out.unwrap_or(&default);
    std::fs::write(out, &bytes).with_context(|| format!("cannot write {}", out.display()))?;
    println!(
        "{}'s data ({} bytes packed, digest {digest}) written to {}",
        koth_base::text::shown(name),
        bytes.len(),
        out.display()
    );
    Ok(())
}

fn get<T: DeserializeOwned>(
    client: &reqwest::blocking::Client,
    url: &str,
    token: Option<&str>,
) -> anyhow::Result<T> {
    let mut request = client.get(url);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let base = url.split("/api/").next().unwrap_or(url);
    answer(
        request
            .send()
            .with_context(|| format!("cannot reach the hill at {base}"))?,
    )
}

/// The body of a successful answer, or the hill's error as one message.
fn answer<T: DeserializeOwned>(response: reqwest::blocking::Response) -> anyhow::Result<T> {
    let status = response.status();
    let retry = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let text = response.text().context("the hill's answer was cut short")?;
    if status.is_success() {
        return serde_json::from_str(&text)
            .with_context(|| format!("the hill's answer is not what was asked: {text:.200}"));
    }
    #[derive(Deserialize)]
    struct Error {
        error: String,
    }
    let why = serde_json::from_str::<Error>(&text)
        .map(|e| e.error)
        .unwrap_or_else(|_| text.chars().take(300).collect());
    let retry = retry.map_or(String::new(), |s| format!(" (try again in {s} s)"));
    bail!(
        "the hill refused it ({status}): {}{retry}",
        koth_base::text::shown_lines(&why)
    )
}

/// The folder as a `.tar.gz`: folders and regular files, sorted, exec bits kept, no owners
/// or times. A link is refused here, naming it, since the hill refuses it.
/// `manifest`, if given, is sent as its bot.toml in place of the folder's.
fn pack(folder: &Path, manifest: Option<&[u8]>) -> anyhow::Result<Vec<u8>> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    add_folder(&mut tar, folder, Path::new(""), manifest)?;
    let gz = tar.into_inner().context("cannot pack the bot")?;
    let mut bytes = gz.finish().context("cannot pack the bot")?;
    bytes.flush()?;
    Ok(bytes)
}

fn add_folder<W: Write>(
    tar: &mut tar::Builder<W>,
    root: &Path,
    relative: &Path,
    manifest: Option<&[u8]>,
) -> anyhow::Result<()> {
    let here = root.join(relative);
    let mut entries: Vec<_> = std::fs::read_dir(&here)
        .with_context(|| format!("cannot read {}", here.display()))?
        .collect::<Result<_, _>>()
        .with_context(|| format!("cannot read {}", here.display()))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = relative.join(entry.file_name());
        let meta = std::fs::symlink_metadata(entry.path())
            .with_context(|| format!("cannot read {}", entry.path().display()))?;
        let mut header = tar::Header::new_ustar();
        header.set_mtime(0);
        header.set_uid(0);
        header.set_gid(0);
        if meta.is_dir() {
            if entry.file_name() == ".git" {
                continue;
            }
            header.set_entry_type(tar::EntryType::Directory);
            header.set_mode(0o755);
            header.set_size(0);
            tar.append_data(&mut header, &path, std::io::empty())
                .with_context(|| format!("cannot pack {}", path.display()))?;
            add_folder(tar, root, &path, None)?;
        } else if let (Some(manifest), true) = (manifest, path == Path::new(roster::MANIFEST)) {
            header.set_entry_type(tar::EntryType::Regular);
            header.set_mode(0o644);
            header.set_size(manifest.len() as u64);
            tar.append_data(&mut header, &path, manifest)
                .with_context(|| format!("cannot pack {}", path.display()))?;
        } else if meta.is_file() {
            header.set_entry_type(tar::EntryType::Regular);
            let exec = meta.permissions().mode() & 0o111 != 0;
            header.set_mode(if exec { 0o755 } else { 0o644 });
            header.set_size(meta.len());
            let file = std::fs::File::open(entry.path())
                .with_context(|| format!("cannot read {}", entry.path().display()))?;
            tar.append_data(&mut header, &path, file)
                .with_context(|| format!("cannot pack {}", path.display()))?;
        } else {
            bail!(
                "{}: a hill takes files and folders only, and this is a link or a device; \
                 copy what it points to into the folder instead",
                entry.path().display()
            );
        }
    }
    Ok(())
}
