//! Which programs a contained bot starts, and so which installs it is lent: its command's
//! program or its script's `#!` interpreter, a build step's commands, each looked up by name
//! on koth's `PATH` only, so that a bot's files choose among `PATH`'s installs but never name a
//! folder of their own.

use std::path::{Path, PathBuf};

use super::super::roster;
use super::super::spec::{BotSpec, Sandbox};
use super::SYSTEM_FOLDERS;

/// The folders outside the system's that a contained program needs: the install on koth's
/// `PATH` (a pyenv or nvm version in a home folder: only that version, never a home folder's
/// entry such as `~/.local`) of each program it starts ([`started_programs`]), and the install
/// of a program its owner named by full path ([`Sandbox::programs`]) that its command runs.
/// Only what it starts: a word of its arguments (`python3 bot.py helper cargo`) lends nothing.
/// What may be exposed comes from koth's configuration alone: a name, from the bot's command or
/// its script, is only ever looked up on `PATH`, so a bot's files can choose among `PATH`'s
/// installs but never name a folder of their own, and a link is never followed out of the
/// bot's folders to read a `#!` line.
pub(super) fn interpreter_folders(spec: &BotSpec, dir: &Path) -> Vec<PathBuf> {
    let names = started_programs(&spec.command, |program| {
        inside(program, dir, spec.sandbox.as_ref())
    });
    // A program its owner named by full path (a bots.txt line, `languages`), which the bot's
    // command names: lent too, though it is on no PATH.
    let owners: &[PathBuf] = spec.sandbox.as_ref().map_or(&[], |s| &s.programs);
    let program = spec.program();
    let owned = owners.contains(&program).then_some(program);
    let mut folders: Vec<PathBuf> = Vec::new();
    for path in names.iter().filter_map(|name| on_path(name)).chain(owned) {
        let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        for path in [path, real] {
            if is_system(&path) {
                continue;
            }
            if let Some(install) = install_folder(&path)
                && !folders.iter().any(|f| install.starts_with(f))
            {
                folders.push(install);
            }
        }
    }
    folders
}

/// The programs `command` starts, as bare names: its program, or, where that is a script
/// (`own` finds it among the bot's files), the interpreter its `#!` line starts; for a shell's
/// command line (`sh -c LINE`, a build step), the first word of each command in it, its
/// variables' assignments skipped. Arguments are never programs.
pub(crate) fn started_programs(
    command: &[String],
    own: impl Fn(&Path) -> Option<PathBuf>,
) -> Vec<String> {
    let Some(program) = command.first() else {
        return Vec::new();
    };
    let mut names = Vec::new();
    if let [_, flag, line] = command
        && flag == "-c"
        && matches!(program.as_str(), "sh" | "bash")
    {
        names.extend(shell_line_programs(line));
    }
    match own(Path::new(program)) {
        Some(script) => names.extend(shebang_names(&script)),
        None => names.push(program.clone()),
    }
    names
}

/// `program` if it is a file of the bot's own: in its working folder `dir`, or lent to it from
/// the folder its working copy was made from, reached without leaving either.
fn inside(program: &Path, dir: &Path, sandbox: Option<&Sandbox>) -> Option<PathBuf> {
    let real = std::fs::canonicalize(program).ok()?;
    let dir = std::fs::canonicalize(dir).ok()?;
    let lent = sandbox
        .and_then(|s| s.lent_from.as_deref())
        .and_then(|f| std::fs::canonicalize(f).ok());
    let own = real.starts_with(&dir) || lent.is_some_and(|f| real.starts_with(f));
    (own && std::fs::symlink_metadata(&real).is_ok_and(|m| m.is_file())).then_some(real)
}

/// The program `name` (a bare file name) on koth's `PATH`, as a shell finds it.
fn on_path(name: &str) -> Option<PathBuf> {
    let bare = Path::new(name).components().count() == 1
        && !matches!(name, "" | "." | "..")
        && !name.contains('/');
    if bare {
        roster::find_program(Path::new(name))
    } else {
        None
    }
}

/// The programs a shell's command line (a build step) starts: the first word of each command
/// in it, its variables' assignments skipped.
pub(crate) fn shell_line_programs(line: &str) -> Vec<String> {
    line.split(['\n', ';', '&', '|', '(', ')', '`'])
        .filter_map(|part| {
            part.split_whitespace()
                .find(|w| !w.contains('=') || w.starts_with('='))
        })
        .map(str::to_string)
        .collect()
}

/// The programs a script's `#!` line starts, as bare names: its interpreter, and where that is
/// `env`, the program `env` starts (`#!/usr/bin/env -S python3 -u` starts `env` and
/// `python3`). The interpreter's arguments are not programs, and the folders of paths are
/// dropped: only a name looked up on koth's `PATH` may choose what the bot sees.
pub(crate) fn shebang_names(path: &Path) -> Vec<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut head = [0u8; 256];
    // Not blocking: a bot's "script" may be a pipe no one writes.
    let Ok(mut file) = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
        .open(path)
    else {
        return Vec::new();
    };
    let Ok(n) = file.read(&mut head) else {
        return Vec::new();
    };
    let Some(line) = head[..n].strip_prefix(b"#!") else {
        return Vec::new();
    };
    let line = line.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut words = line
        .split(|c: char| c.is_whitespace() || c == '\'' || c == '"')
        .filter(|word| !word.is_empty())
        .filter_map(|word| Some(Path::new(word).file_name()?.to_str()?.to_string()));
    let Some(interpreter) = words.next() else {
        return Vec::new();
    };
    let started = (interpreter == "env")
        .then(|| {
            // env's options and variables' assignments come before the program it starts.
            words.find(|word| !word.starts_with('-') && !word.contains('='))
        })
        .flatten();
    std::iter::once(interpreter).chain(started).collect()
}

fn is_system(path: &Path) -> bool {
    SYSTEM_FOLDERS.iter().any(|f| path.starts_with(f))
}

/// The install a program outside the system's folders belongs to: the folder above its `bin`
/// (`/srv/python/bin/python3` → `/srv/python`, `~/.pyenv/versions/3.12/bin/python3` → that
/// version), else its own folder; but never a home folder, a home's own entry (`~/.local`,
/// `~/.cargo`, which hold far more than one program: a user's packages, a registry's token) or
/// the folder of homes: there, only the program itself. The one home entry lent whole is a
/// version manager's (pyenv, rbenv, nodenv) whose shim is the program: the shim runs the
/// manager, which picks one of its versions, and the manager's folder holds nothing else.
fn install_folder(program: &Path) -> Option<PathBuf> {
    let folder = program.parent()?;
    let kind = folder.file_name().and_then(|n| n.to_str());
    let install = match kind {
        Some("bin" | "shims") => folder.parent()?,
        _ => folder,
    };
    if kind == Some("shims") && install.join("libexec").is_dir() {
        return Some(install.to_path_buf());
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let homes = home
        .iter()
        .map(PathBuf::as_path)
        .chain([Path::new("/root")]);
    let in_home = |path: &Path| {
        homes
            .clone()
            .any(|home| path == home || path.parent() == Some(home))
            || (path.starts_with("/home") && path.components().count() <= 4)
    };
    if install == Path::new("/") || in_home(install) {
        Some(program.to_path_buf())
    } else {
        Some(install.to_path_buf())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_install_is_the_folder_above_bin_but_never_a_homes_entry() {
        let cases = [
            (
                "/root/.pyenv/versions/3.12.1/bin/python3",
                "/root/.pyenv/versions/3.12.1",
            ),
            ("/root/.local/bin/helper", "/root/.local/bin/helper"),
            ("/root/.cargo/bin/cargo", "/root/.cargo/bin/cargo"),
            ("/root/tool", "/root/tool"),
            (
                "/home/ann/.nvm/versions/node/v20/bin/node",
                "/home/ann/.nvm/versions/node/v20",
            ),
            ("/home/ann/.local/bin/x", "/home/ann/.local/bin/x"),
            ("/srv/python/bin/python3", "/srv/python"),
            ("/srv/tools/run", "/srv/tools"),
        ];
        for (program, install) in cases {
            assert_eq!(
                install_folder(Path::new(program)).as_deref(),
                Some(Path::new(install)),
                "{program}"
            );
        }
    }

    #[test]
    fn a_version_managers_shim_lends_the_manager() {
        let tmp = tempfile::tempdir().unwrap();
        let manager = tmp.path().join("pyenv");
        std::fs::create_dir_all(manager.join("libexec")).unwrap();
        let shim = manager.join("shims/python3");
        assert_eq!(install_folder(&shim), Some(manager));
        // Shims without a manager beside them are a folder of programs like any other.
        let plain = tmp.path().join("tools/shims/run");
        assert_eq!(install_folder(&plain), Some(tmp.path().join("tools")));
    }

    #[test]
    fn only_the_started_program_is_a_program() {
        let words = |line: &str| line.split(' ').map(str::to_string).collect::<Vec<_>>();
        let none = |_: &Path| None;
        assert_eq!(
            started_programs(&words("python3 -u bot.py helper cargo"), none),
            ["python3"]
        );
        let build = [
            "sh".to_string(),
            "-c".into(),
            "CC=x gcc -O2 a.c && strip a.out".into(),
        ];
        assert_eq!(started_programs(&build, none), ["gcc", "strip", "sh"]);
        let tmp = tempfile::tempdir().unwrap();
        let script = tmp.path().join("bot.py");
        let starts = |line: &str| {
            std::fs::write(&script, format!("#!{line}\nprint(1)\n")).unwrap();
            started_programs(&["./bot.py".to_string(), "helper".into()], |_| {
                Some(script.clone())
            })
        };
        assert_eq!(starts("/usr/bin/python3 helper cargo"), ["python3"]);
        assert_eq!(starts("/usr/bin/env -S python3 -u"), ["env", "python3"]);
        assert_eq!(starts("/usr/bin/env A=1 node"), ["env", "node"]);
    }
}
