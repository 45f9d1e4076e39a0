//! The docs against the code: the list of games against the registry, every relative link of
//! README.md, ARCHITECTURE.md and docs/ against the files and headings it leads to, and every
//! command block of README.md and docs/ run against the built `koth` (docs/README.md, "Command
//! blocks").

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::support::tournament::repo;

/// The row of `docs/games/README.md` that a registered game has, up to its page.
fn row(entry: &koth::game::registry::Registered) -> String {
    let game = entry.game;
    let command = match entry.command {
        Some(command) => format!("`koth {}`", command().command.get_name()),
        None => "none: tournaments only".to_string(),
    };
    let players = match game.players() {
        (min, max) if min == max => min.to_string(),
        (min, max) => format!("{min} to {max}"),
    };
    let ranked = match game.ranking() {
        koth::game::Ranking::Points => "points",
        koth::game::Ranking::Placement => "placement",
    };
    format!("| `{}` | {command} | {players} | {ranked} |", game.name())
}

#[test]
fn the_list_of_games_is_the_registry_s() {
    crate::support::installed_games();
    let page = std::fs::read_to_string(repo().join("docs/games/README.md")).unwrap();
    let listed: Vec<&str> = page
        .lines()
        .filter(|line| line.starts_with("| `"))
        .collect();
    let registered: Vec<String> = koth::game::registry::registered().iter().map(row).collect();
    assert_eq!(
        listed.len(),
        registered.len(),
        "docs/games/README.md lists {listed:#?}, the registry has {registered:#?}"
    );
    for (line, expected) in listed.iter().zip(&registered) {
        assert!(
            line.starts_with(expected.as_str()),
            "docs/games/README.md: {line}\nthe registry's: {expected} …"
        );
    }
}

/// The Markdown files whose links are checked: README.md, ARCHITECTURE.md and docs/**/*.md.
fn markdown_files() -> Vec<PathBuf> {
    let mut files = vec![repo().join("README.md"), repo().join("ARCHITECTURE.md")];
    let mut folders = vec![repo().join("docs")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files
}

/// A heading's anchor as GitHub makes it: lower case, punctuation but `-` and `_` dropped,
/// spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of the headings of the Markdown file at `path` (outside code blocks).
fn anchors(path: &Path) -> HashSet<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut fenced = false;
    let mut found = HashSet::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            found.insert(anchor(line.trim_start_matches('#')));
        }
    }
    found
}

/// The targets of the inline links `[text](target)` of `text`, outside code blocks and spans.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans hold text, not links.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            found.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    found
}

#[test]
fn every_relative_link_of_the_docs_leads_to_a_file_and_heading() {
    let mut broken = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        for target in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, fragment) = target.split_once('#').unwrap_or((&target, ""));
            let linked = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(path)
            };
            let shown = file
                .strip_prefix(repo())
                .unwrap_or(&file)
                .display()
                .to_string();
            if !linked.exists() {
                broken.push(format!("{shown}: {target}: no such file"));
            } else if !fragment.is_empty()
                && linked.extension().is_some_and(|e| e == "md")
                && !anchors(&linked).contains(fragment)
            {
                broken.push(format!("{shown}: {target}: no such heading"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The languages of a fenced block that holds commands.
const COMMAND_LANGUAGES: [&str; 4] = ["sh", "console", "bash", "shell"];

/// A command of a command block: where it is, its text, and the exit status it is written to
/// end with (`# exit status N` at its end; else 0).
struct DocCommand {
    place: String,
    text: String,
    status: i32,
}

/// The commands of the Markdown `text` (of the file shown as `shown`) that a test runs: those of
/// every fenced block whose language is a shell's, unless its info string says `ignore`. In a
/// `console` block a command is a line after `$ ` (the lines between are its output, shown,
/// not compared); in the others every line but comments. A line ending in `\` goes on.
fn doc_commands(shown: &str, text: &str) -> Vec<DocCommand> {
    let mut commands = Vec::new();
    let mut block: Option<(bool, bool)> = None; // (a console block, ignored)
    let mut pending: Option<(usize, String)> = None;
    for (index, line) in text.lines().enumerate() {
        // A fence may be indented, in a list.
        if let Some(info) = line.trim_start().strip_prefix("```") {
            block = match block {
                Some(_) => None,
                None => {
                    let words: Vec<&str> = info.split_whitespace().collect();
                    let language = words.first().copied().unwrap_or("");
                    if COMMAND_LANGUAGES.contains(&language) {
                        Some((language == "console", words.contains(&"ignore")))
                    } else {
                        Some((false, true))
                    }
                }
            };
            continue;
        }
        let Some((console, ignored)) = block else {
            continue;
        };
        if ignored {
            continue;
        }
        let command = match (&mut pending, console) {
            (Some((_, text)), _) => {
                text.push('\n');
                text.push_str(line);
                None
            }
            (None, true) => line.strip_prefix("$ ").map(|c| (index + 1, c.to_string())),
            (None, false) if line.trim().is_empty() || line.trim_start().starts_with('#') => None,
            (None, false) => Some((index + 1, line.to_string())),
        };
        if let Some(command) = command {
            pending = Some(command);
        }
        if pending
            .as_ref()
            .is_some_and(|(_, text)| !text.ends_with('\\'))
        {
            let (number, text) = pending.take().unwrap();
            let status = text
                .rsplit_once("# exit status ")
                .and_then(|(_, n)| n.trim().parse().ok())
                .unwrap_or(0);
            commands.push(DocCommand {
                place: format!("{shown}:{number}"),
                text,
                status,
            });
        }
    }
    commands
}

#[test]
fn console_blocks_are_read_as_commands_and_output() {
    let text = "```console\n$ koth a \\\n  --b\nout\n$ koth c  # exit status 1\n```\n\
                ```sh ignore\nkoth d\n```\n```sh\n# a comment\nkoth e\n```\n```toml\nx = 1\n```\n";
    let commands = doc_commands("x.md", text);
    let shown: Vec<(&str, &str, i32)> = commands
        .iter()
        .map(|c| (c.place.as_str(), c.text.as_str(), c.status))
        .collect();
    assert_eq!(
        shown,
        [
            ("x.md:2", "koth a \\\n  --b", 0),
            ("x.md:5", "koth c  # exit status 1", 1),
            ("x.md:12", "koth e", 0),
        ]
    );
}

/// Every command of README.md and docs/ that is not marked `ignore` runs as written: each file's
/// commands in turn, in a fresh folder holding a copy of the repository's bots, tournament and
/// hill files, `bots.txt`, levels and test bots, with the built `koth` first on `PATH`. Its output is not
/// compared (seeds and times differ from run to run); its exit status is.
#[test]
fn every_command_block_of_the_docs_runs() {
    let koth = PathBuf::from(env!("CARGO_BIN_EXE_koth"));
    let path = format!(
        "{}:{}",
        koth.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let files: Vec<(String, Vec<DocCommand>)> = markdown_files()
        .into_iter()
        .map(|file| {
            let shown = file.strip_prefix(repo()).unwrap().display().to_string();
            let text = std::fs::read_to_string(&file).unwrap();
            let commands = doc_commands(&shown, &text);
            (shown, commands)
        })
        .filter(|(_, commands)| !commands.is_empty())
        .collect();
    assert!(
        files.iter().any(|(shown, _)| shown == "docs/first-bot.md"),
        "docs/first-bot.md has commands to run"
    );
    let failures: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = files
            .iter()
            .map(|(_, commands)| scope.spawn(|| run_doc_commands(commands, &path)))
            .collect();
        runs.into_iter()
            .flat_map(|run| run.join().unwrap())
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Runs `commands` in turn in a fresh folder; returns what went wrong, one entry a command.
fn run_doc_commands(commands: &[DocCommand], path: &str) -> Vec<String> {
    let folder = tempfile::tempdir().unwrap();
    std::fs::create_dir(folder.path().join("tests")).unwrap();
    for (from, to) in [
        ("bots", "."),
        ("bots.txt", "."),
        ("config", "."),
        ("levels", "."),
        ("tests/bots", "tests"),
    ] {
        let copied = std::process::Command::new("cp")
            .arg("-r")
            .arg(repo().join(from))
            .arg(folder.path().join(to))
            .status()
            .unwrap();
        assert!(copied.success(), "cp -r {from}");
    }
    let mut failures = Vec::new();
    for command in commands {
        let output = std::process::Command::new("bash")
            .arg("-c")
            .arg(&command.text)
            .current_dir(folder.path())
            .env("PATH", path)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let status = output.status.code().unwrap_or(-1);
        if status != command.status {
            failures.push(format!(
                "{}: `{}` ended with status {status}, the docs say {}\nstdout:\n{}\nstderr:\n{}",
                command.place,
                command.text,
                command.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    failures
}
