//! A published final packed for anyone (`koth contest export`), and checked by anyone
//! (`koth contest verify`): a `.tar.gz` of `manifest.json` and `final.json` as the hill wrote
//! them, and each scored final game's folder under `games/<index>/`. Verifying recomputes the
//! final's table from the games bit for bit and checks every digest; it trusts nothing in the
//! archive but what it recomputes.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use anyhow::{Context, bail};
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;

use koth_bot::digest::sha256_hex;
use koth_ranking::Ranking;

use super::{FinalResult, Manifest, result, standing};
use crate::Hill;

const MANIFEST: &str = "manifest.json";
const RESULT: &str = "final.json";
/// What a verified archive may hold: its entries, and its bytes once unpacked.
const MOST_ENTRIES: usize = 1_000_000;
const MOST_BYTES: u64 = 8 << 30;

/// Packs the published final of `hill` into `to`; returns how many games it holds.
pub fn export(hill: &Hill, to: &Path) -> anyhow::Result<usize> {
    let manifest_text = hill
        .store
        .meta(super::MANIFEST_META)?
        .context("the contest has not closed: there is no manifest yet")?;
    let (result, result_text) = result(&hill.store)?
        .context("the final is not published yet: `koth contest status` says where it is")?;
    let partial = to.with_extension("partial");
    let file = std::fs::File::create(&partial)
        .with_context(|| format!("cannot write {}", partial.display()))?;
    let mut tar = tar::Builder::new(GzEncoder::new(file, Compression::default()));
    let mut add = |path: &str, bytes: &[u8]| -> anyhow::Result<()> {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(0);
        header.set_cksum();
        tar.append_data(&mut header, path, bytes)
            .with_context(|| format!("cannot write {}", partial.display()))
    };
    add(MANIFEST, manifest_text.as_bytes())?;
    add(RESULT, result_text.as_bytes())?;
    for game in &result.final_games {
        for (path, bytes) in game_files(hill, game.index)? {
            add(&format!("games/{}/{path}", game.index), &bytes)?;
        }
    }
    tar.into_inner()?.finish()?;
    std::fs::rename(&partial, to).with_context(|| format!("cannot write {}", to.display()))?;
    Ok(result.final_games.len())
}

/// What a verified archive holds.
#[derive(Debug)]
pub struct Verified {
    pub manifest_sha256: String,
    pub games: usize,
    pub files: usize,
    pub result: FinalResult,
}

/// Checks the archive at `path` ([module](self)): every file's digest, every game's seed and
/// scores against its own `results.json`, and the table recomputed from the games.
pub fn verify(path: &Path) -> anyhow::Result<Verified> {
    let named = |e: anyhow::Error| anyhow::anyhow!("{}: {e:#}", path.display());
    let entries = unpack(path).map_err(named)?;
    check(&entries).map_err(|e| anyhow::anyhow!("{}: does not verify: {e:#}", path.display()))
}

/// A file of the archive: its SHA-256, and its bytes if verifying reads them (the manifest, the
/// result, each game's `results.json`); every other file is only hashed as it streams past.
struct Entry {
    sha256: String,
    bytes: Option<Vec<u8>>,
}

/// The most bytes of a file verifying reads whole.
const MOST_READ: u64 = 64 << 20;

/// The archive's files, by path, read entry by entry within [`MOST_ENTRIES`] and
/// [`MOST_BYTES`], in memory only where they are read ([`Entry`]).
fn unpack(path: &Path) -> anyhow::Result<BTreeMap<String, Entry>> {
    use sha2::{Digest, Sha256};
    let file = std::fs::File::open(path).context("cannot read it")?;
    let mut archive = tar::Archive::new(GzDecoder::new(file));
    let mut entries = BTreeMap::new();
    let mut bytes = 0u64;
    for entry in archive.entries().context("not a .tar.gz")? {
        let mut entry = entry.context("a damaged entry")?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let name = entry.path()?.to_string_lossy().into_owned();
        let size = entry.header().size()?;
        bytes += size;
        if entries.len() >= MOST_ENTRIES || bytes > MOST_BYTES {
            bail!("more than {MOST_ENTRIES} files or {MOST_BYTES} bytes: not a contest's export");
        }
        let read = name == MANIFEST
            || name == RESULT
            || name.ends_with(&format!("/{}", koth_game::RESULTS_FILE));
        if read && size > MOST_READ {
            bail!("{name} is {size} bytes, more than a contest's export holds");
        }
        let mut hasher = Sha256::new();
        let mut kept = read.then(Vec::new);
        let mut chunk = vec![0u8; 1 << 16];
        loop {
            let n = entry
                .read(&mut chunk)
                .with_context(|| format!("cannot read {name}"))?;
            if n == 0 {
                break;
            }
            hasher.update(&chunk[..n]);
            if let Some(kept) = kept.as_mut() {
                kept.extend_from_slice(&chunk[..n]);
            }
        }
        let entry = Entry {
            sha256: koth_bot::digest::hex(&hasher.finalize()),
            bytes: kept,
        };
        if entries.insert(name.clone(), entry).is_some() {
            bail!("{name} is in it twice");
        }
    }
    Ok(entries)
}

/// The bytes of `name`, which [`unpack`] read whole.
fn read<'a>(entries: &'a BTreeMap<String, Entry>, name: &str) -> anyhow::Result<&'a [u8]> {
    entries
        .get(name)
        .and_then(|e| e.bytes.as_deref())
        .with_context(|| format!("no {name}"))
}

fn check(entries: &BTreeMap<String, Entry>) -> anyhow::Result<Verified> {
    let manifest_bytes = read(entries, MANIFEST)?;
    let result_bytes = read(entries, RESULT)?;
    let manifest: Manifest =
        serde_json::from_slice(manifest_bytes).context("manifest.json is not a manifest")?;
    let result: FinalResult =
        serde_json::from_slice(result_bytes).context("final.json is not a final's result")?;
    let manifest_sha256 = sha256_hex(manifest_bytes);
    if manifest_sha256 != result.manifest_sha256 {
        bail!(
            "manifest.json has SHA-256 {manifest_sha256}, but the final was played under {}",
            result.manifest_sha256
        );
    }
    let names: Vec<String> = manifest
        .finalists
        .iter()
        .map(|f| format!("{} v{}", f.name, f.version))
        .collect();
    if names != result.finalists {
        bail!("final.json's finalists are not the manifest's");
    }
    let mut files = 0;
    let mut listed = std::collections::HashSet::new();
    for game in &result.final_games {
        for (path, digest) in &game.files {
            let name = format!("games/{}/{path}", game.index);
            let entry = entries
                .get(&name)
                .with_context(|| format!("{name} is missing"))?;
            if &entry.sha256 != digest {
                bail!("{name} is not the file the final played: its SHA-256 differs");
            }
            listed.insert(name);
            files += 1;
        }
        check_scores(game, entries)?;
        if game.outcomes.iter().any(|o| o.finalist >= names.len()) {
            bail!("game {} seats no finalist", game.index);
        }
    }
    if let Some(extra) = entries
        .keys()
        .find(|k| k.starts_with("games/") && !listed.contains(*k))
    {
        bail!("{extra} is in no final game's list of files");
    }
    let ranking = match manifest.ranking.as_str() {
        "points" => Ranking::Points,
        "placement" => Ranking::Placement,
        other => bail!("manifest.json: the ranking {other:?} is none koth knows"),
    };
    let table = standing::table(
        ranking,
        names.len(),
        &super::standing_of(&result.final_games),
    );
    if serde_json::to_string(&table)? != serde_json::to_string(&result.table)? {
        bail!("the table recomputed from the games is not final.json's table");
    }
    Ok(Verified {
        manifest_sha256,
        games: result.final_games.len(),
        files,
        result,
    })
}

/// Checks a game's seed and scores in final.json against its own `results.json`.
fn check_scores(game: &super::FinalGame, entries: &BTreeMap<String, Entry>) -> anyhow::Result<()> {
    let name = format!("games/{}/{}", game.index, koth_game::RESULTS_FILE);
    let bytes = read(entries, &name)?;
    let value: serde_json::Value =
        serde_json::from_slice(bytes).with_context(|| format!("{name} is not JSON"))?;
    let result = value.get("result").unwrap_or(&value);
    let seed = result.get("seed").and_then(serde_json::Value::as_u64);
    if seed != Some(game.seed) {
        bail!("{name}: its seed is not game {}'s", game.index);
    }
    let scores: Vec<Option<f64>> = result
        .get("bots")
        .and_then(serde_json::Value::as_array)
        .map(|bots| bots.iter().map(|b| b.get("score")?.as_f64()).collect())
        .unwrap_or_default();
    let listed: Vec<Option<f64>> = game.outcomes.iter().map(|o| Some(o.score)).collect();
    if scores != listed {
        bail!(
            "{name}: its scores {scores:?} are not final.json's for game {}",
            game.index
        );
    }
    Ok(())
}

/// The files of game `index` as everyone may read them, by path in its folder: from the hill
/// folder, or a shared hill's database; a hill whose logs are its authors' gives its public
/// copy ([`logs::public_copy`]); a bot's kept working copy is its author's, never published.
pub(crate) fn game_files(hill: &Hill, index: u32) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let fetched;
    let mut dir = koth_tournament::store::game_dir(&hill.dir, index);
    if hill.store.is_shared() {
        fetched = tempfile::tempdir().context("cannot make a folder for a game's files")?;
        hill.store.extract(index, fetched.path(), None)?;
        dir = fetched.path().to_path_buf();
    }
    let public;
    if crate::logs_are_private(&hill.store, &hill.dir)? {
        public = crate::logs::public_copy(&dir)?;
        dir = public.path().to_path_buf();
    }
    let mut files = Vec::new();
    read_tree(&dir, Path::new(""), &mut files)?;
    files.retain(|(path, _)| !Path::new(path).starts_with(koth_bot::roster::WORKING_COPIES));
    files.sort();
    Ok(files)
}

fn read_tree(
    root: &Path,
    relative: &Path,
    files: &mut Vec<(String, Vec<u8>)>,
) -> anyhow::Result<()> {
    let dir = root.join(relative);
    for entry in
        std::fs::read_dir(&dir).with_context(|| format!("cannot read {}", dir.display()))?
    {
        let entry = entry?;
        let path = relative.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            read_tree(root, &path, files)?;
        } else if kind.is_file() {
            let bytes = std::fs::read(root.join(&path))
                .with_context(|| format!("cannot read {}", root.join(&path).display()))?;
            files.push((path.to_string_lossy().into_owned(), bytes));
        }
    }
    Ok(())
}
