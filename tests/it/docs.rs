//! The docs against the code: the list of games against the registry, and every relative link
//! of README.md, ARCHITECTURE.md and docs/ against the files and headings it leads to.

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
