//! The languages a tournament or hill offers its bots: the interpreters and compilers its owner
//! names (`languages` in the tournament or hill file: names looked up on koth's `PATH`, or full
//! paths), else those of a list of common ones that koth's `PATH` has. Each is listed with the
//! version it answers to `--version` (asked once per program and process, time-capped), so an
//! author knows before uploading what is there; a hill refuses at upload a bot whose command
//! names a program it does not offer ([`refusal`]).

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use anyhow::bail;
use serde::Serialize;

use super::roster;
use super::spec::{BotSpec, WASI_COMMAND};

/// What is offered when the owner names nothing: whichever of these koth's `PATH` has.
pub const COMMON: &[&str] = &[
    "python3", "python2", "python", "pypy3", "java", "javac", "kotlin", "kotlinc", "node", "deno",
    "bash", "sh", "ruby", "perl", "php", "lua", "Rscript", "gcc", "g++", "cc", "c++", "clang",
    "clang++", "make", "cmake", "rustc", "cargo", "go", "ghc", "dotnet", "mono", "swift", "julia",
    "ocaml", "scala", "sbcl", "gfortran", "dart", "elixir", "erl",
];

/// How long a program may take to say its version.
const VERSION_WAIT: Duration = Duration::from_secs(3);
/// The longest version line kept.
const VERSION_CHARS: usize = 120;

/// A language offered: the name a bot's command uses, where it is, and its version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Language {
    /// The program's name, as a bot's command names it (`python2`).
    pub name: String,
    /// The other names a bot's command may give it: for a program its owner named by full
    /// path, the entries of its folder that are the same program (`python`, `python2.7` beside
    /// `python2`, links of one install); none for a name on `PATH`.
    pub aliases: Vec<String>,
    /// Where it is: on koth's `PATH`, or the full path its owner named.
    pub path: PathBuf,
    /// The first line it answers to `--version`, if it answered in time.
    pub version: Option<String>,
}

/// Checks the owner's list (`languages`): each entry a bare name on koth's `PATH`, or a full
/// path to an executable file. Errors name the entry.
pub fn check(configured: &[String]) -> anyhow::Result<()> {
    for entry in configured {
        resolve(entry)?;
    }
    Ok(())
}

fn resolve(entry: &str) -> anyhow::Result<(String, PathBuf)> {
    let path = Path::new(entry);
    if path.is_absolute() {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            bail!("`languages` names {entry:?}, which is no program's path");
        };
        if !is_executable(path) {
            bail!("`languages` names {entry:?}, which is not an executable file");
        }
        return Ok((name.to_string(), path.to_path_buf()));
    }
    if entry.is_empty() || entry.contains('/') {
        bail!(
            "`languages` names {entry:?}: give a program's name (looked up on koth's PATH) or \
             its full path"
        );
    }
    match roster::find_program(path) {
        Some(found) if is_executable(&found) => Ok((entry.to_string(), found)),
        _ => bail!(
            "`languages` names {entry:?}, which is not on koth's PATH: install it, or give its \
             full path"
        ),
    }
}

/// The languages offered: the owner's list (`configured`), else [`COMMON`]'s programs on
/// koth's `PATH`; their versions not asked yet ([`with_versions`]).
pub fn offered(configured: Option<&[String]>) -> anyhow::Result<Vec<Language>> {
    let found: Vec<(String, PathBuf)> = match configured {
        Some(list) => list
            .iter()
            .map(|entry| resolve(entry))
            .collect::<anyhow::Result<_>>()?,
        None => COMMON
            .iter()
            .filter_map(|name| {
                let path = roster::find_program(Path::new(name))?;
                is_executable(&path).then(|| (name.to_string(), path))
            })
            .collect(),
    };
    Ok(found
        .into_iter()
        .map(|(name, path)| Language {
            // Only the owner's full paths: a name on `PATH` is that name alone.
            aliases: if configured.is_some_and(|list| list.iter().any(|e| Path::new(e) == path)) {
                names_of_the_same(&path)
                    .into_iter()
                    .filter_map(|other| other.file_name()?.to_str().map(String::from))
                    .filter(|other| *other != name)
                    .collect()
            } else {
                Vec::new()
            },
            name,
            path,
            version: None,
        })
        .collect())
}

/// The entries of `program`'s folder that are the same file as `program` (itself among them):
/// the names one install gives a program (`python`, `python2` and `python2.7`, by links), in
/// their folder's order by name.
fn names_of_the_same(program: &Path) -> Vec<PathBuf> {
    let (Some(folder), Ok(real)) = (program.parent(), std::fs::canonicalize(program)) else {
        return vec![program.to_path_buf()];
    };
    let mut same: Vec<PathBuf> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| std::fs::canonicalize(path).is_ok_and(|p| p == real))
        .collect();
    same.sort();
    if !same.iter().any(|p| p == program) {
        same.push(program.to_path_buf());
    }
    same
}

/// `languages` with their versions, each asked once per program in this process, all at once
/// (a JVM takes a while to say its version).
pub fn with_versions(languages: Vec<Language>) -> Vec<Language> {
    let versions: Vec<Option<String>> = std::thread::scope(|scope| {
        let asked: Vec<_> = languages
            .iter()
            .map(|l| scope.spawn(|| version(&l.path)))
            .collect();
        asked.into_iter().map(|a| a.join().ok().flatten()).collect()
    });
    languages
        .into_iter()
        .zip(versions)
        .map(|(l, version)| Language { version, ..l })
        .collect()
}

/// `languages` as lines for a terminal: `  python3  Python 3.11.2  (/usr/bin/python3)`.
pub fn listed(languages: &[Language]) -> String {
    let width = languages.iter().map(|l| l.name.len()).max().unwrap_or(0);
    languages
        .iter()
        .map(|l| {
            let also = match l.aliases.is_empty() {
                true => String::new(),
                false => format!(", also named {}", l.aliases.join(", ")),
            };
            format!(
                "  {:width$}  {}  ({}{also})\n",
                l.name,
                l.version.as_deref().unwrap_or("(no version said)"),
                l.path.display()
            )
        })
        .collect()
}

/// The full paths among the owner's list, each with the other names of the same program in
/// its folder ([`Language::aliases`]): the programs a contained bot is lent by them, by
/// whichever of those names its command gives.
pub fn full_paths(configured: Option<&[String]>) -> Vec<PathBuf> {
    configured
        .unwrap_or_default()
        .iter()
        .map(PathBuf::from)
        .filter(|path| path.is_absolute())
        .flat_map(|path| names_of_the_same(&path))
        .collect()
}

/// The version `program` answers to `--version` (`-version` for a JVM of old), asked once per
/// program in this process, its first line cut at [`VERSION_CHARS`].
fn version(program: &Path) -> Option<String> {
    static KNOWN: OnceLock<Mutex<HashMap<PathBuf, Option<String>>>> = OnceLock::new();
    let known = KNOWN.get_or_init(Default::default);
    if let Some(v) = known.lock().ok()?.get(program) {
        return v.clone();
    }
    let answer = ask(program, "--version").or_else(|| ask(program, "-version"));
    known
        .lock()
        .ok()?
        .insert(program.to_path_buf(), answer.clone());
    answer
}

/// The first line `program flag` writes (to stdout, else stderr) within [`VERSION_WAIT`], if it
/// ends well; it is killed after.
fn ask(program: &Path, flag: &str) -> Option<String> {
    let mut child = Command::new(program)
        .arg(flag)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() < VERSION_WAIT => {
                std::thread::sleep(Duration::from_millis(10))
            }
            _ => break None,
        }
    };
    if !status.is_some_and(|s| s.success()) {
        let _ = child.kill();
        let _ = child.wait();
        return None;
    }
    let mut text = String::new();
    for stream in [
        child.stdout.take().map(|s| Box::new(s) as Box<dyn Read>),
        child.stderr.take().map(|s| Box::new(s) as Box<dyn Read>),
    ]
    .into_iter()
    .flatten()
    {
        let mut bytes = Vec::new();
        let _ = stream.take(64 << 10).read_to_end(&mut bytes);
        text = String::from_utf8_lossy(&bytes).into_owned();
        if !text.trim().is_empty() {
            break;
        }
    }
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(koth_base::text::shown(&line.chars().take(VERSION_CHARS).collect::<String>()).into_owned())
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The programs a bot's commands name, each with whether its `run` names it: its `run`'s
/// first word (or, for a script of its own, what its `#!` line names) and the first word of
/// each command of its build step.
fn named_programs(bot: &BotSpec) -> Vec<(String, bool)> {
    let mut names = Vec::new();
    if bot.command[0] != WASI_COMMAND {
        // A relative path is a script of the bot's own, which its `#!` line runs.
        let script = |program: &Path| {
            let relative = program.components().count() > 1 && !program.is_absolute();
            relative.then(|| bot.dir.join(program))
        };
        let started = super::sandbox::started_programs(&bot.command, script);
        names.extend(started.into_iter().map(|n| (n, true)));
    }
    if let Some(build) = &bot.build {
        let started = super::sandbox::shell_line_programs(build);
        names.extend(started.into_iter().map(|n| (n, false)));
    }
    names
}

/// Why `bot` cannot join a hill offering `offered`, if it cannot: its command or build step
/// names a program by a full path (a bot's own files name a language by its name; where it
/// is, is the owner's to say), or a language koth knows ([`COMMON`]) that is not offered, or
/// its `run` names a program that is neither offered nor on koth's `PATH`.
pub fn refusal(bot: &BotSpec, offered: &[Language]) -> Option<String> {
    let list = || {
        let names: Vec<&str> = offered
            .iter()
            .flat_map(|l| std::iter::once(&l.name).chain(&l.aliases))
            .map(String::as_str)
            .collect();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    };
    for (name, run) in named_programs(bot) {
        if Path::new(&name).is_absolute() {
            return Some(format!(
                "its command names the program {} by a full path: name the language instead \
                 (this hill offers {})",
                koth_base::text::shown(&name),
                list()
            ));
        }
        if offered
            .iter()
            .any(|l| l.name == name || l.aliases.contains(&name))
            || name.contains('/')
        {
            continue;
        }
        let language = COMMON.contains(&name.as_str());
        let missing = run && roster::find_program(Path::new(&name)).is_none();
        if language || missing {
            return Some(format!(
                "its command uses `{}`, which this hill does not offer (it offers {})",
                koth_base::text::shown(&name),
                list()
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bot(run: &str, build: Option<&str>) -> BotSpec {
        BotSpec {
            name: "b".into(),
            dir: PathBuf::from("/nonexistent"),
            command: run.split_whitespace().map(String::from).collect(),
            build: build.map(String::from),
            origin: "t".into(),
            sandbox: None,
            benched: None,
            data: None,
            protocols: Default::default(),
        }
    }

    fn language(name: &str) -> Language {
        Language {
            name: name.into(),
            aliases: Vec::new(),
            path: PathBuf::from("/usr/bin").join(name),
            version: None,
        }
    }

    #[test]
    fn a_bot_naming_a_program_not_offered_or_a_full_path_is_refused_with_the_list() {
        let offered = [language("python3"), language("javac"), language("java")];
        assert_eq!(refusal(&bot("python3 -u bot.py", None), &offered), None);
        assert_eq!(
            refusal(
                &bot(
                    "java -cp out Bot",
                    Some("mkdir -p out && javac -d out *.java")
                ),
                &offered
            ),
            None
        );
        assert_eq!(refusal(&bot("koth-wasi bot.wasm", None), &offered), None);
        let why = refusal(&bot("python2 bot.py", None), &offered).unwrap();
        assert_eq!(
            why,
            "its command uses `python2`, which this hill does not offer (it offers python3, \
             javac, java)"
        );
        let why = refusal(&bot("./bot", Some("CC=x gcc -O2 -o bot bot.c")), &offered).unwrap();
        assert!(why.contains("`gcc`"), "{why}");
        // A shell's own words and tools are no languages; a program on no PATH is refused.
        let tools = bot(
            "true",
            Some("while :; do sleep 1; done; python3 -c 'import x; x.y()'"),
        );
        assert_eq!(refusal(&tools, &offered), None);
        let why = refusal(&bot("no-such-language-here bot.x", None), &offered).unwrap();
        assert!(why.contains("`no-such-language-here`"), "{why}");
        let why = refusal(&bot("/opt/py27/bin/python bot.py", None), &offered).unwrap();
        assert!(
            why.contains("/opt/py27/bin/python by a full path") && why.contains("python3"),
            "{why}"
        );
    }

    #[test]
    fn a_program_named_by_full_path_is_offered_by_every_name_its_folder_gives_it() {
        use std::os::unix::fs::{PermissionsExt, symlink};
        let tmp = tempfile::tempdir().unwrap();
        let bin = tmp.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let real = bin.join("python2.7");
        std::fs::write(&real, "#!/bin/sh\necho Python 2.7.18\n").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o755)).unwrap();
        symlink("python2.7", bin.join("python2")).unwrap();
        symlink("python2", bin.join("python")).unwrap();
        std::fs::write(bin.join("pydoc"), "another program\n").unwrap();
        let python = bin.join("python").display().to_string();
        let offered = offered(Some(std::slice::from_ref(&python))).unwrap();
        assert_eq!(offered[0].name, "python");
        assert_eq!(offered[0].aliases, ["python2", "python2.7"]);
        assert_eq!(refusal(&bot("python2 bot.py", None), &offered), None);
        assert_eq!(refusal(&bot("python bot.py", None), &offered), None);
        let why = refusal(&bot("python3 bot.py", None), &offered).unwrap();
        assert!(
            why.ends_with("(it offers python, python2, python2.7)"),
            "{why}"
        );
        assert!(listed(&offered).contains(", also named python2, python2.7)"));
        // Lent by any of those names, never another program of the folder.
        let lent = full_paths(Some(&[python]));
        assert_eq!(
            lent,
            [
                bin.join("python"),
                bin.join("python2"),
                bin.join("python2.7")
            ]
        );
    }

    #[test]
    fn the_owner_s_list_is_checked_and_a_version_is_asked_once() {
        assert!(check(&["sh".to_string()]).is_ok());
        let err = check(&["no-such-language-here".to_string()]).unwrap_err();
        assert!(err.to_string().contains("not on koth's PATH"), "{err}");
        let err = check(&["/nonexistent/python".to_string()]).unwrap_err();
        assert!(err.to_string().contains("not an executable file"), "{err}");
        let offered = with_versions(offered(Some(&["python3".to_string()])).unwrap());
        assert_eq!(offered.len(), 1);
        let shown = offered[0].version.as_deref().unwrap_or_default();
        assert!(shown.starts_with("Python 3"), "{shown}");
    }
}
