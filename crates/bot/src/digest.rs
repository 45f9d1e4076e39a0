//! A bot's content hash: the same bot everywhere, byte for byte.
//!
//! Workers on many machines each play a tournament's games with their own copy of its bot
//! folders; the hash taken when the tournament is submitted tells a worker whether its copy is
//! the one submitted. It covers what decides how the bot plays — every file of its folder
//! (names, bytes, whether executable; links by their target), its command and its build step —
//! and leaves out the bot's own notes (`data.txt`, emptied by every game). The folder is hashed
//! as it is, before any build: a worker builds its bots in a copy of its own, never in place.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use anyhow::Context;
use sha2::{Digest, Sha256};

use super::BotSpec;

/// The bot's content hash, as lowercase hex (SHA-256).
pub fn digest(bot: &BotSpec) -> anyhow::Result<String> {
    let mut hasher = Sha256::new();
    // Each part is written with its length, so no two different bots hash alike by shifting
    // bytes from one part to the next.
    let mut part = |bytes: &[u8]| {
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    part(serde_json::to_string(&bot.command)?.as_bytes());
    part(bot.build.as_deref().unwrap_or_default().as_bytes());
    let mut files = Vec::new();
    list(&bot.dir, Path::new(""), &mut files)
        .with_context(|| format!("{bot}: cannot read its folder {}", bot.dir.display()))?;
    files.sort();
    for relative in files {
        let path = bot.dir.join(&relative);
        let meta = std::fs::symlink_metadata(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        part(relative.as_os_str().as_encoded_bytes());
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&path)?;
            part(b"link");
            part(target.as_os_str().as_encoded_bytes());
            continue;
        }
        part(if meta.permissions().mode() & 0o111 != 0 {
            b"exec"
        } else {
            b"file"
        });
        let bytes =
            std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        part(&bytes);
    }
    Ok(hex(&hasher.finalize()))
}

/// The SHA-256 of `bytes`, as lowercase hex: how koth names any file's content it publishes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// `bytes` as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Every file and link under `dir`/`relative`, relative to `dir`, but `data.txt` at the top.
fn list(dir: &Path, relative: &Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir.join(relative))? {
        let entry = entry?;
        let name = relative.join(entry.file_name());
        if name == Path::new("data.txt") {
            continue;
        }
        if entry.file_type()?.is_dir() {
            list(dir, &name, out)?;
        } else {
            out.push(name);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bot(dir: &Path) -> BotSpec {
        BotSpec {
            name: "b".into(),
            dir: dir.to_path_buf(),
            command: vec!["python3".into(), "bot.py".into()],
            build: None,
            origin: "test".into(),
            sandbox: None,
            benched: None,
            data: None,
            protocols: Default::default(),
        }
    }

    #[test]
    fn a_changed_byte_file_name_or_build_step_changes_the_hash_and_notes_do_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("lib")).unwrap();
        std::fs::write(dir.path().join("bot.py"), "print(1)\n").unwrap();
        std::fs::write(dir.path().join("lib/x.py"), "x = 1\n").unwrap();
        let first = digest(&bot(dir.path())).unwrap();
        assert_eq!(first.len(), 64);
        std::fs::write(dir.path().join("data.txt"), "notes").unwrap();
        assert_eq!(digest(&bot(dir.path())).unwrap(), first);
        std::fs::write(dir.path().join("lib/x.py"), "x = 2\n").unwrap();
        let changed = digest(&bot(dir.path())).unwrap();
        assert_ne!(changed, first);
        std::fs::rename(dir.path().join("lib/x.py"), dir.path().join("lib/y.py")).unwrap();
        assert_ne!(digest(&bot(dir.path())).unwrap(), changed);
        let mut built = bot(dir.path());
        built.build = Some("make".into());
        assert_ne!(digest(&built).unwrap(), digest(&bot(dir.path())).unwrap());
    }
}
