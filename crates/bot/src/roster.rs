//! Which bots to start: koth's own `bot.toml` manifests, the original controller's `bots.txt`
//! triples, and the build step a bot may need before it can run.
//!
//! Every error here is a person's mistake (a typo in a manifest, a missing folder), so each one
//! names the file and line, or the bot, and says what was expected.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Deserialize;

use super::spec::BotSpec;
use koth_base::text::check_name;

/// The name of koth's manifest file inside a bot's folder.
pub const MANIFEST: &str = "bot.toml";

/// `bot.toml`: koth's manifest, one per bot folder.
///
/// ```toml
/// name = "Random Builder"          # shown in logs and leaderboards; unique per game
/// run = "python3 random_builder.py" # split on whitespace, no shell; run in the bot's folder
/// # or, for a bot compiled to WebAssembly (WASI preview 1), run in koth's process instead:
/// # wasm = "bot.wasm"               # the module, in the bot's folder (see `super::wasm`)
/// build = "gcc -O2 -o column column.c" # optional; a shell command run before the first game
/// games = ["paths"]                 # which games this bot plays
/// data = true                       # optional: a folder data/ kept from game to game (a
///                                   # learning bot), up to the tournament's or hill's cap
/// # data_mb = 2                     # or: that folder, asking for this many MiB at most
/// # fresh_data = true               # a new version starts from an empty data/ (on a hill)
/// [protocols]                       # optional: a game's other protocol, for games offering one
/// ratrace = "lean"
/// ```
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    name: String,
    run: Option<String>,
    wasm: Option<String>,
    build: Option<String>,
    games: Vec<String>,
    #[serde(default)]
    protocols: BTreeMap<String, String>,
    data: Option<bool>,
    data_mb: Option<u64>,
    fresh_data: Option<bool>,
}

/// The data a manifest asks for (`data`, `data_mb`, `fresh_data`); errors name the file `path`
/// and the key.
fn data_ask(manifest: &Manifest, path: &Path) -> anyhow::Result<Option<super::DataAsk>> {
    let ask = match (manifest.data, manifest.data_mb) {
        (_, Some(0)) => bail!(
            "{}: `data_mb` = 0 asks for no data: leave it out, or give the MiB the bot's data \
             folder needs",
            path.display()
        ),
        (Some(false), Some(_)) => bail!(
            "{}: `data` = false but `data_mb` is given: give one of them",
            path.display()
        ),
        (_, Some(mb)) => Some(mb),
        (Some(true), None) => None,
        (Some(false) | None, None) => {
            if manifest.fresh_data.is_some() {
                bail!(
                    "{}: `fresh_data` is for a bot that keeps data: add `data = true`",
                    path.display()
                );
            }
            return Ok(None);
        }
    };
    if ask.is_some_and(|mb| mb > 1 << 20) {
        bail!("{}: `data_mb` is at most 1048576", path.display());
    }
    Ok(Some(super::DataAsk {
        mb: ask,
        fresh: manifest.fresh_data.unwrap_or(false),
    }))
}

/// The largest `bot.toml` koth reads: a manifest is a few lines, and reading one (a stranger's
/// upload's included) must cost little, whatever it holds.
pub const MANIFEST_MAX_BYTES: u64 = 64 << 10;

/// What of a line of a manifest an error may quote (TOML's errors quote the offending line).
const QUOTED_LINE_BYTES: usize = 200;

/// Reads the manifest of the bot in folder `dir`, with the games it plays.
pub fn load_manifest(dir: &Path) -> anyhow::Result<(BotSpec, Vec<String>)> {
    check_folder_path(dir)?;
    let path = dir.join(MANIFEST);
    let size = std::fs::metadata(&path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .len();
    if size > MANIFEST_MAX_BYTES {
        bail!(
            "{}: {size} bytes, more than the {} KiB a bot.toml may be",
            path.display(),
            MANIFEST_MAX_BYTES >> 10
        );
    }
    let text = koth_base::text::read(&path)?;
    parse_manifest(&text, dir)
}

/// Parses the text of the manifest of the bot in folder `dir`; errors name the file.
pub fn parse_manifest(text: &str, dir: &Path) -> anyhow::Result<(BotSpec, Vec<String>)> {
    let path = dir.join(MANIFEST);
    let manifest: Manifest = toml::from_str(text).map_err(|e| {
        // TOML's message quotes the offending line, which may be the whole file.
        let message: Vec<_> = e
            .to_string()
            .trim_end()
            .lines()
            .map(|line| super::fault::cut_line(line, QUOTED_LINE_BYTES).into_owned())
            .collect();
        anyhow::anyhow!("{}: {}", path.display(), message.join("\n"))
    })?;
    let command = match (&manifest.run, &manifest.wasm) {
        (Some(run), None) => split_command(run),
        (None, Some(module))
            if Path::new(module).extension() == Some("wasm".as_ref())
                && !Path::new(module)
                    .components()
                    .all(|part| matches!(part, std::path::Component::Normal(_))) =>
        {
            bail!(
                "{}: `wasm` = {module:?} must name a file inside the bot's folder (a relative \
                 path with no `..`)",
                path.display()
            )
        }
        (None, Some(module)) if Path::new(module).extension() == Some("wasm".as_ref()) => {
            vec![super::spec::WASI_COMMAND.to_string(), module.clone()]
        }
        (None, Some(module)) => bail!(
            "{}: `wasm` = {module:?} is not a .wasm file: give the bot's WebAssembly module, \
             in its folder",
            path.display()
        ),
        (Some(_), Some(_)) => bail!(
            "{}: give `run` (a command) or `wasm` (a WebAssembly module), not both",
            path.display()
        ),
        (None, None) => bail!(
            "{}: give `run`, the command that starts the bot, or `wasm`, its WebAssembly module",
            path.display()
        ),
    };
    if command.is_empty() {
        bail!(
            "{}: `run` is empty; give the command that starts the bot",
            path.display()
        );
    }
    let name = koth_base::text::normalized_name(&manifest.name);
    if let Err(problem) = check_name(&name) {
        bail!(
            "{}: `name` {problem}",
            koth_base::text::shown(&path.display().to_string())
        );
    }
    let games: std::collections::HashSet<&String> = manifest.games.iter().collect();
    if let Some(game) = manifest.protocols.keys().find(|game| !games.contains(game)) {
        bail!(
            "{}: `protocols` names \"{game}\", which is not in `games`",
            path.display()
        );
    }
    let data = data_ask(&manifest, &path)?;
    let spec = BotSpec {
        name,
        data,
        dir: dir.to_path_buf(),
        command,
        build: manifest.build,
        origin: path.display().to_string(),
        sandbox: None,
        benched: None,
        protocols: manifest.protocols,
    };
    Ok((spec, manifest.games))
}

/// Every bot folder under `root` whose manifest says it plays `game`, sorted by folder name.
pub fn discover(root: &Path, game: &str) -> anyhow::Result<Vec<BotSpec>> {
    let entries = std::fs::read_dir(root)
        .with_context(|| format!("cannot list the bot folder {}", root.display()))?;
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join(MANIFEST).is_file())
        .collect();
    dirs.sort();
    let mut bots = Vec::new();
    for dir in dirs {
        let (spec, games) = load_manifest(&dir)?;
        if games.iter().any(|g| g == game) {
            bots.push(spec);
        }
    }
    if bots.is_empty() {
        bail!(
            "no bot under {} plays {game}: a bot folder needs a {MANIFEST} with games = [\"{game}\"]",
            root.display()
        );
    }
    check_unique_names(&bots)?;
    Ok(bots)
}

/// Reads the original controller's `bots.txt`: `#` lines are comments; other lines come in
/// triples — name, subdirectory of `bots/` next to the file, command — and reading stops at the
/// first empty line.
pub fn load_bots_txt(path: &Path) -> anyhow::Result<Vec<BotSpec>> {
    let text = koth_base::text::read(path)?;
    let bots_root = path.parent().unwrap_or(Path::new(".")).join("bots");
    let lines = bots_txt_lines(path, &text)?;
    let bots = lines
        .chunks(3)
        .map(|triple| bots_txt_bot(path, &bots_root, triple))
        .collect::<anyhow::Result<Vec<BotSpec>>>()?;
    check_unique_names(&bots)?;
    Ok(bots)
}

/// A `bots.txt`'s listed lines, numbered from 1 and trimmed, up to the first empty line and
/// without comments; fails unless they come in whole triples.
fn bots_txt_lines<'a>(path: &Path, text: &'a str) -> anyhow::Result<Vec<(usize, &'a str)>> {
    let mut lines = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            break;
        }
        if !line.starts_with('#') {
            lines.push((index + 1, line.trim()));
        }
    }
    if lines.is_empty() {
        bail!(
            "{}: no bots listed (expected lines in threes: name, folder, command)",
            path.display()
        );
    }
    if lines.len() % 3 != 0 {
        let (last_line, last) = lines[lines.len() - lines.len() % 3];
        bail!(
            "{}:{}: the bot \"{}\" is incomplete: each bot takes three lines (name, folder under bots/, command)",
            path.display(),
            last_line,
            last
        );
    }
    Ok(lines)
}

/// The bot of one `bots.txt` triple (name, folder under `bots_root`, command), each checked.
fn bots_txt_bot(
    path: &Path,
    bots_root: &Path,
    triple: &[(usize, &str)],
) -> anyhow::Result<BotSpec> {
    let [(name_line, name), (dir_line, dir), (cmd_line, cmd)] = triple else {
        unreachable!("chunks of a multiple of three")
    };
    if !Path::new(dir)
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)))
    {
        bail!(
            "{}:{}: the folder of bot \"{}\" must lie under bots/: {dir:?} leaves it",
            path.display(),
            dir_line,
            name
        );
    }
    if let Err(problem) = check_name(name) {
        bail!(
            "{}:{}: the bot's name {problem}",
            koth_base::text::shown(&path.display().to_string()),
            name_line
        );
    }
    let folder = bots_root.join(dir);
    check_folder_path(&folder)?;
    if !folder.is_dir() {
        bail!(
            "{}:{}: the folder of bot \"{}\" does not exist: {}",
            path.display(),
            dir_line,
            name,
            folder.display()
        );
    }
    let command = split_command(cmd);
    if command.is_empty() {
        bail!(
            "{}:{}: the command of bot \"{}\" is empty",
            path.display(),
            cmd_line,
            name
        );
    }
    let (build, protocols) = build_and_protocols(&folder)?;
    Ok(BotSpec {
        name: name.to_string(),
        dir: folder,
        command,
        build,
        origin: format!("{}:{}", path.display(), name_line),
        sandbox: None,
        benched: None,
        data: None,
        protocols,
    })
}

/// A bots.txt line has no build step or protocols, so a bot whose folder also holds a bot.toml
/// takes them from there: a compiled bot, or one speaking a game's other protocol, then works
/// from either kind of list, in every command and tournament alike.
fn build_and_protocols(
    folder: &Path,
) -> anyhow::Result<(Option<String>, BTreeMap<String, String>)> {
    Ok(if folder.join(MANIFEST).is_file() {
        let spec = load_manifest(folder)?.0;
        (spec.build, spec.protocols)
    } else {
        (None, BTreeMap::new())
    })
}

/// A bot list from a path: a `bots.txt`, or a folder holding a `bot.toml`.
pub fn load_bot(path: &Path) -> anyhow::Result<BotSpec> {
    if path.is_dir() {
        return Ok(load_manifest(path)?.0);
    }
    bail!(
        "{} is not a bot folder: a bot folder holds a {MANIFEST} (see docs/writing-a-bot.md)",
        path.display()
    )
}

/// Fails for a bot folder whose path is not UTF-8: koth records folders as text (in the
/// results database, in messages), and a resumed tournament must find the same folder.
fn check_folder_path(dir: &Path) -> anyhow::Result<()> {
    if dir.to_str().is_none() {
        bail!(
            "the bot folder {} has a name that is not UTF-8 text: rename it",
            dir.display()
        );
    }
    Ok(())
}

fn split_command(command: &str) -> Vec<String> {
    command.split_whitespace().map(str::to_string).collect()
}

/// Fails if two bots share a name: results and logs are keyed by name.
pub fn check_unique_names(bots: &[BotSpec]) -> anyhow::Result<()> {
    let mut seen = HashMap::new();
    for bot in bots {
        if let Some(first) = seen.insert(bot.name.as_str(), bot.origin.as_str()) {
            bail!(
                "two bots are called \"{}\" ({first} and {}): names must be unique",
                bot.name,
                bot.origin
            );
        }
    }
    Ok(())
}

impl BotSpec {
    /// The program to execute: a relative path with a `/` is taken from the bot's folder (where
    /// `./bot` was meant), a bare name is looked up on `PATH` as a shell would, unless a
    /// contained bot's owner named a program of that name by its full path
    /// ([`super::Sandbox::programs`]), which is run instead. The path is made absolute: the
    /// child changes into its folder before executing it, so a path relative to koth's own
    /// folder would no longer resolve.
    pub fn program(&self) -> PathBuf {
        let program = Path::new(&self.command[0]);
        let bare = !self.command[0].contains('/');
        let mut owners = self.sandbox.iter().flat_map(|s| &s.programs);
        if program.is_relative() && !bare {
            let path = self.dir.join(program);
            std::path::absolute(&path).unwrap_or(path)
        } else if let Some(named) =
            owners.find(|p| bare && p.file_name() == Some(program.as_os_str()))
        {
            named.clone()
        } else {
            program.to_path_buf()
        }
    }

    /// Checks, before any game starts, that the folder exists and the program can be found, so
    /// that a typo is one clear message instead of a failed game.
    pub fn check_runnable(&self) -> anyhow::Result<()> {
        if !self.dir.is_dir() {
            bail!("{self}: its folder {} does not exist", self.dir.display());
        }
        if let Some(module) = self.wasm_module() {
            if !module.is_file() {
                bail!(
                    "{self}: its WebAssembly module {} was not found (does it need a build step?)",
                    module.display()
                );
            }
            // koth reads the module itself, uncontained: a link (left by the folder or its build
            // step) must not lend it a file from outside the bot's folder.
            let inside = match (
                std::fs::canonicalize(&module),
                std::fs::canonicalize(&self.dir),
            ) {
                (Ok(module), Ok(dir)) => module.starts_with(dir),
                _ => false,
            };
            if !inside {
                bail!(
                    "{self}: its WebAssembly module {} leads out of its folder through a link",
                    module.display()
                );
            }
            return Ok(());
        }
        let program = self.program();
        if find_program(&program).is_none() {
            let named = &self.command[0];
            bail!(
                "{self}: its command `{named}` was not found{}",
                if program.components().count() > 1 {
                    format!(" at {} (does it need a build step?)", program.display())
                } else if self.dir.join(named).is_file() {
                    // As a shell, koth looks a bare name up on PATH, never in the bot's folder.
                    format!(
                        " on PATH; its folder has a file `{named}`: write `./{named}` to run that \
                         one (an executable file, or a script with a `#!` line)"
                    )
                } else {
                    " on PATH (is it installed?)".to_string()
                }
            );
        }
        Ok(())
    }
}

/// The programs the commands of `bots` name by their full path: those of a `bots.txt`, which
/// its owner wrote (and so a contained bot may be lent them, [`super::Sandbox::programs`]).
pub fn named_by_path(bots: &[BotSpec]) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = bots
        .iter()
        .map(|bot| PathBuf::from(&bot.command[0]))
        .filter(|program| program.is_absolute())
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

/// Where `program` is: the file itself when the path has a `/`, else the first match on `PATH`,
/// as a shell finds it; `None` if there is no such file.
pub(crate) fn find_program(program: &Path) -> Option<PathBuf> {
    if program.components().count() > 1 {
        return program.is_file().then(|| program.to_path_buf());
    }
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
}

/// The folder of a game's folder that holds its bots' working copies.
pub const WORKING_COPIES: &str = "bots";

/// Bot files up to this size are copied into each game's working folder; larger ones (models,
/// tables) are linked, since bots only read them.
const COPY_LIMIT: u64 = 1 << 20;

/// Each game's bots run in a working copy of their folder, `<game folder>/bots/<seat>/<folder>/`, so games
/// played at once never share a bot's private `data.txt` (a game empties it at its start and the
/// bot keeps notes in it across rounds). Files are copied except large ones and subfolders, which
/// are linked, as are the folder's own links: bots only read those, and copying a
/// `node_modules` per game would cost more than the game. An uncontained bot that writes inside
/// a subfolder would still share it between parallel games; a contained one is lent them
/// read-only ([`super::sandbox`]). A learning bot's copy has an empty `data/` of its own, which
/// the runner fills with its data ([`super::data`]).
pub fn working_copies(bots: &[BotSpec], game_dir: &Path) -> std::io::Result<Vec<BotSpec>> {
    bots.iter()
        .enumerate()
        .map(|(seat, bot)| {
            let source_dir = std::path::absolute(&bot.dir)?;
            // The copy keeps its folder's name, which names the bot's stderr file and
            // transcript (see `seat`): the same files whether a bot runs in place or copied.
            let folder = source_dir.file_name().unwrap_or("bot".as_ref());
            let seat_dir = game_dir.join(WORKING_COPIES).join(seat.to_string());
            // Afresh each time: a log folder given again holds the last run's copy.
            if seat_dir.exists() {
                std::fs::remove_dir_all(&seat_dir)?;
            }
            let dir = seat_dir.join(folder);
            std::fs::create_dir_all(&dir)?;
            for entry in std::fs::read_dir(&source_dir)? {
                let entry = entry?;
                let name = entry.file_name();
                // A learning bot's data is its own, given by the runner, never its folder's.
                if name == "data.txt" || (bot.data.is_some() && name == super::data::DATA_FOLDER) {
                    continue;
                }
                let source = entry.path();
                // The entry itself, never what a link of the bot's leads to: koth, maybe root,
                // must not copy a file a link names (`/etc/shadow`) into a bot's folder.
                let meta = std::fs::symlink_metadata(&source)?;
                if meta.is_file() && meta.len() <= COPY_LIMIT {
                    std::fs::copy(&source, dir.join(&name))?;
                } else if meta.is_file() || meta.is_dir() || meta.is_symlink() {
                    std::os::unix::fs::symlink(&source, dir.join(&name))?;
                }
            }
            if bot.data.is_some() {
                std::fs::create_dir(dir.join(super::data::DATA_FOLDER))?;
            }
            Ok(BotSpec { dir, ..bot.clone() })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wasm_module_must_stay_inside_the_bot_s_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        for module in ["../other/bot.wasm", "/etc/bot.wasm", "a/../../b.wasm"] {
            let text = format!("name = \"w\"\nwasm = {module:?}\ngames = [\"tictactoe\"]\n");
            let err = parse_manifest(&text, dir).unwrap_err().to_string();
            assert!(err.contains("inside the bot's folder"), "{module}: {err}");
        }
        // A link named like a module, to a file outside: refused before any game.
        let outside = tmp.path().join("outside.wasm");
        std::fs::write(&outside, b"\0asm").unwrap();
        let folder = tmp.path().join("bot");
        std::fs::create_dir(&folder).unwrap();
        std::os::unix::fs::symlink(&outside, folder.join("bot.wasm")).unwrap();
        let text = "name = \"w\"\nwasm = \"bot.wasm\"\ngames = [\"tictactoe\"]\n";
        let (spec, _) = parse_manifest(text, &folder).unwrap();
        let err = spec.check_runnable().unwrap_err().to_string();
        assert!(err.contains("out of its folder"), "{err}");
        std::fs::remove_file(folder.join("bot.wasm")).unwrap();
        std::fs::write(folder.join("bot.wasm"), b"\0asm").unwrap();
        spec.check_runnable().unwrap();
    }

    #[test]
    fn a_command_that_names_a_file_of_the_folder_without_dot_slash_is_told_how_to() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("bridge.py"), "#!/usr/bin/env python3\n").unwrap();
        let text = "name = \"b\"\nrun = \"bridge.py\"\ngames = [\"tictactoe\"]\n";
        let (spec, _) = parse_manifest(text, tmp.path()).unwrap();
        let err = spec.check_runnable().unwrap_err().to_string();
        assert!(
            err.contains(
                "`bridge.py` was not found on PATH; its folder has a file `bridge.py`: \
                          write `./bridge.py`"
            ),
            "{err}"
        );
        let text = "name = \"b\"\nrun = \"no-such-program-here\"\ngames = [\"tictactoe\"]\n";
        let (spec, _) = parse_manifest(text, tmp.path()).unwrap();
        let err = spec.check_runnable().unwrap_err().to_string();
        assert!(err.ends_with("on PATH (is it installed?)"), "{err}");
    }

    #[test]
    fn a_manifest_names_its_protocols_for_games_it_plays() {
        let dir = Path::new("/bots/lean");
        let head = "name = \"Lean\"\nrun = \"./lean\"\ngames = [\"ratrace\"]\n";
        let (spec, _) =
            parse_manifest(&format!("{head}[protocols]\nratrace = \"lean\"\n"), dir).unwrap();
        assert_eq!(spec.protocols["ratrace"], "lean");
        assert!(parse_manifest(head, dir).unwrap().0.protocols.is_empty());
        let err = parse_manifest(&format!("{head}[protocols]\npaths = \"lean\"\n"), dir)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "/bots/lean/bot.toml: `protocols` names \"paths\", which is not in `games`"
        );
    }
}
