//! A learning bot's data: the folder `data/` it keeps from game to game (`bot.toml`'s `data` or
//! `data_mb`).
//!
//! A game starts the bot with a *snapshot* of its data unpacked into `data/` of its working
//! copy (read-write; `/data` for a WASI bot). What the bot leaves there is taken back as a new
//! snapshot only if it is a folder of plain files and folders within its cap: a symbolic link,
//! a pipe, a socket or a device, a file with another name elsewhere (a hard link), a name that is
//! not UTF-8, or more files or bytes than the cap is refused, naming the entry. A snapshot is a
//! canonical tar (entries sorted by name, every time and owner zero, modes 0644/0755), stored
//! gzip-compressed; its digest is the SHA-256 of that tar, so the same folder always has the
//! same digest. Who keeps snapshots, and when one becomes the bot's data, is the runner's
//! business (`tournament::store`): the bot layer only makes and unpacks them.

use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::Context;
use sha2::{Digest, Sha256};

/// The folder of a learning bot's working copy that holds its data.
pub const DATA_FOLDER: &str = "data";

/// Where a WASI bot finds its data.
pub(crate) const WASI_DATA: &str = "/data";

/// The default cap on a learning bot's data, in MiB, where a tournament or hill names none.
pub const DEFAULT_CAP_MB: u64 = 4;

/// The deepest a data folder may nest.
const MAX_DEPTH: usize = 16;

/// What a bot's data may hold: bytes of its files together, and files and folders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataCap {
    pub bytes: u64,
    pub entries: u64,
}

impl DataCap {
    /// The cap of `mb` MiB: that many bytes, and an entry (file or folder) per 4 KiB of them,
    /// at least 64, so that a cap is a cap on the work of reading the folder too.
    pub fn of_mb(mb: u64) -> DataCap {
        let bytes = mb << 20;
        DataCap {
            bytes,
            entries: (bytes / 4096).max(64),
        }
    }

    /// The cap as a person reads it.
    pub fn describe(&self) -> String {
        format!(
            "{} MiB in at most {} files and folders",
            self.bytes >> 20,
            self.entries
        )
    }
}

/// A bot's data at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// SHA-256 of its canonical tar, as lowercase hex.
    pub digest: String,
    /// The canonical tar, gzip-compressed.
    pub tar_gz: Vec<u8>,
    /// Bytes of its files together, and its files and folders.
    pub bytes: u64,
    pub entries: u64,
}

impl Snapshot {
    /// The data of a bot that has none yet: an empty folder.
    pub fn empty() -> Snapshot {
        Snapshot::of_entries(Vec::new()).expect("an empty tar is written to memory")
    }

    fn of_entries(entries: Vec<Entry>) -> std::io::Result<Snapshot> {
        let mut tar = tar::Builder::new(Vec::new());
        let (mut bytes, count) = (0, entries.len() as u64);
        for entry in entries {
            let mut header = tar::Header::new_ustar();
            header.set_mtime(0);
            header.set_uid(0);
            header.set_gid(0);
            match entry.contents {
                None => {
                    header.set_entry_type(tar::EntryType::Directory);
                    header.set_mode(0o755);
                    header.set_size(0);
                    tar.append_data(&mut header, &entry.path, std::io::empty())?;
                }
                Some(contents) => {
                    header.set_entry_type(tar::EntryType::Regular);
                    header.set_mode(if entry.executable { 0o755 } else { 0o644 });
                    header.set_size(contents.len() as u64);
                    bytes += contents.len() as u64;
                    tar.append_data(&mut header, &entry.path, contents.as_slice())?;
                }
            }
        }
        let tar = tar.into_inner()?;
        let digest = hex(&Sha256::digest(&tar));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&tar)?;
        Ok(Snapshot {
            digest,
            tar_gz: gz.finish()?,
            bytes,
            entries: count,
        })
    }
}

/// The digest of an empty data folder: what a learning bot starts its first game from.
pub fn empty_digest() -> String {
    Snapshot::empty().digest
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// One entry of a data folder, relative to it.
struct Entry {
    path: PathBuf,
    executable: bool,
    /// A file's bytes; `None` for a folder.
    contents: Option<Vec<u8>>,
}

/// Why a data folder is refused: one sentence naming the entry or the cap.
pub type Refusal = String;

/// Walks the data folder `dir` within `cap`, telling `visit` of each entry in name order; a
/// refusal names the first entry that is not a plain file or folder with a UTF-8 name, or the
/// cap passed. A missing folder is an empty one (the bot removed it).
fn walk(
    dir: &Path,
    cap: DataCap,
    visit: &mut dyn FnMut(&Path, &Path, &std::fs::Metadata) -> Result<(), Refusal>,
) -> Result<(), Refusal> {
    let shown = |relative: &Path| {
        format!(
            "data/{}",
            String::from_utf8_lossy(relative.as_os_str().as_bytes())
        )
    };
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("cannot be read: {e}")),
        Ok(meta) if !meta.is_dir() => {
            return Err("is no longer a folder (a link or a file took its place)".into());
        }
        Ok(_) => {}
    }
    let (mut bytes, mut entries) = (0u64, 0u64);
    let mut folders = vec![(PathBuf::new(), 0usize)];
    while let Some((folder, depth)) = folders.pop() {
        let listing = std::fs::read_dir(dir.join(&folder))
            .map_err(|e| format!("{} cannot be read: {e}", shown(&folder)))?;
        let mut names = Vec::new();
        for entry in listing {
            let entry = entry.map_err(|e| format!("{} cannot be read: {e}", shown(&folder)))?;
            entries += 1;
            if entries > cap.entries {
                return Err(format!(
                    "holds more than {} files and folders, its cap",
                    cap.entries
                ));
            }
            names.push(entry.file_name());
        }
        names.sort();
        let mut subfolders = Vec::new();
        for name in names {
            let relative = folder.join(&name);
            if name.to_str().is_none() {
                return Err(format!("{} has a name that is not UTF-8", shown(&relative)));
            }
            let path = dir.join(&relative);
            let meta = std::fs::symlink_metadata(&path)
                .map_err(|e| format!("{} cannot be read: {e}", shown(&relative)))?;
            let kind = meta.file_type();
            use std::os::unix::fs::FileTypeExt;
            let refused = if kind.is_symlink() {
                Some("is a symbolic link")
            } else if kind.is_fifo() {
                Some("is a pipe")
            } else if kind.is_socket() {
                Some("is a socket")
            } else if kind.is_block_device() || kind.is_char_device() {
                Some("is a device")
            } else if kind.is_file() && meta.nlink() > 1 {
                Some("is a hard link (the file has another name elsewhere)")
            } else if !kind.is_file() && !kind.is_dir() {
                Some("is neither a file nor a folder")
            } else {
                None
            };
            if let Some(why) = refused {
                return Err(format!(
                    "{} {why}: data holds files and folders only",
                    shown(&relative)
                ));
            }
            if kind.is_dir() {
                if depth + 1 >= MAX_DEPTH {
                    return Err(format!(
                        "{} is nested more than {MAX_DEPTH} folders deep",
                        shown(&relative)
                    ));
                }
                subfolders.push((relative.clone(), depth + 1));
            } else {
                bytes = bytes.saturating_add(meta.len());
                if bytes > cap.bytes {
                    return Err(format!(
                        "holds more than its cap of {} MiB ({} bytes counted at {})",
                        cap.bytes >> 20,
                        bytes,
                        shown(&relative)
                    ));
                }
            }
            visit(&path, &relative, &meta)?;
        }
        // Depth first, in name order: the pops take the first name first.
        folders.extend(subfolders.into_iter().rev());
    }
    Ok(())
}

/// Checks the data folder `dir` against `cap` without reading its files: what a seat does
/// between answers, so that a bot filling its folder is stopped while it plays.
pub fn check(dir: &Path, cap: DataCap) -> Result<(), Refusal> {
    walk(dir, cap, &mut |_, _, _| Ok(()))
}

/// Takes what the bot left in its data folder `dir` as a snapshot, or refuses it (see the
/// module). Files are opened without following links and read up to the cap, so a file
/// changed meanwhile cannot make the snapshot pass it.
pub fn take(dir: &Path, cap: DataCap) -> Result<Snapshot, Refusal> {
    let mut entries = Vec::new();
    let mut read_bytes = 0u64;
    walk(dir, cap, &mut |path, relative, meta| {
        if meta.is_dir() {
            entries.push(Entry {
                path: relative.to_path_buf(),
                executable: false,
                contents: None,
            });
            return Ok(());
        }
        let shown = format!("data/{}", relative.display());
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
            .open(path)
            .map_err(|e| format!("{shown} cannot be read: {e}"))?;
        let opened = file
            .metadata()
            .map_err(|e| format!("{shown} cannot be read: {e}"))?;
        if !opened.is_file() || opened.nlink() > 1 {
            return Err(format!("{shown} changed while it was read"));
        }
        let mut contents = Vec::new();
        file.take(cap.bytes - read_bytes + 1)
            .read_to_end(&mut contents)
            .map_err(|e| format!("{shown} cannot be read: {e}"))?;
        read_bytes += contents.len() as u64;
        if read_bytes > cap.bytes {
            return Err(format!(
                "holds more than its cap of {} MiB (at {shown})",
                cap.bytes >> 20
            ));
        }
        entries.push(Entry {
            path: relative.to_path_buf(),
            executable: opened.permissions().mode() & 0o111 != 0,
            contents: Some(contents),
        });
        Ok(())
    })?;
    Snapshot::of_entries(entries).map_err(|e| format!("cannot be packed: {e}"))
}

/// Unpacks the snapshot `tar_gz` as the data folder `dir`, replacing what is there (a working
/// copy's empty folder). It is unpacked beside it first and renamed into place, and unpacked
/// with the archive reader every upload goes through (`crate::archive`), within `cap`.
pub fn put(tar_gz: &[u8], dir: &Path, cap: DataCap) -> anyhow::Result<()> {
    let parent = dir.parent().context("a data folder has a parent")?;
    let mut archive = tempfile::NamedTempFile::new_in(parent)
        .with_context(|| format!("cannot write in {}", parent.display()))?;
    archive.write_all(tar_gz)?;
    let unpacked = parent.join(".data.unpacking");
    if unpacked.exists() {
        std::fs::remove_dir_all(&unpacked)?;
    }
    let caps = crate::archive::Caps {
        unpacked_bytes: cap.bytes,
        entries: cap.entries,
        path_bytes: 4096,
        depth: MAX_DEPTH,
    };
    crate::archive::unpack(
        archive.path(),
        crate::archive::Kind::TarGz,
        &unpacked,
        &caps,
    )
    .map_err(|e| anyhow::anyhow!("cannot unpack the bot's data into {}: {e}", dir.display()))?;
    if dir.exists() {
        std::fs::remove_dir_all(dir)
            .with_context(|| format!("cannot replace {}", dir.display()))?;
    }
    std::fs::rename(&unpacked, dir)
        .with_context(|| format!("cannot move the bot's data into {}", dir.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("data");
        std::fs::create_dir_all(dir.join("boxes")).unwrap();
        std::fs::write(dir.join("boxes/a.txt"), "3 3 3\n").unwrap();
        std::fs::write(dir.join("notes"), "played 4\n").unwrap();
        (tmp, dir)
    }

    #[test]
    fn the_same_folder_has_the_same_digest_and_comes_back_whole() {
        let (tmp, dir) = folder();
        let cap = DataCap::of_mb(1);
        let taken = take(&dir, cap).unwrap();
        assert_eq!((taken.bytes, taken.entries), (15, 3));
        let again = tmp.path().join("again");
        std::fs::create_dir(&again).unwrap();
        put(&taken.tar_gz, &again, cap).unwrap();
        assert_eq!(
            std::fs::read_to_string(again.join("boxes/a.txt")).unwrap(),
            "3 3 3\n"
        );
        assert_eq!(take(&again, cap).unwrap().digest, taken.digest);
        std::fs::write(again.join("notes"), "played 5\n").unwrap();
        assert_ne!(take(&again, cap).unwrap().digest, taken.digest);
        assert_eq!(
            take(&tmp.path().join("gone"), cap).unwrap(),
            Snapshot::empty()
        );
    }

    #[test]
    fn links_pipes_odd_names_and_too_much_are_refused_by_name() {
        let cap = DataCap::of_mb(1);
        let refused = |make: &dyn Fn(&Path)| {
            let (_tmp, dir) = folder();
            make(&dir);
            let why = take(&dir, cap).unwrap_err();
            assert_eq!(check(&dir, cap).unwrap_err(), why);
            why
        };
        let why = refused(&|d| std::os::unix::fs::symlink("/etc/passwd", d.join("p")).unwrap());
        assert_eq!(
            why,
            "data/p is a symbolic link: data holds files and folders only"
        );
        let why =
            refused(&|d| nix::unistd::mkfifo(&d.join("f"), nix::sys::stat::Mode::S_IRWXU).unwrap());
        assert!(why.starts_with("data/f is a pipe"), "{why}");
        let why = refused(&|d| std::fs::hard_link(d.join("notes"), d.join("boxes/n")).unwrap());
        assert!(why.contains("is a hard link"), "{why}");
        let why = refused(&|d| {
            std::fs::write(d.join(std::ffi::OsStr::from_bytes(b"bad\xff")), "x").unwrap()
        });
        assert_eq!(why, "data/bad\u{fffd} has a name that is not UTF-8");
        let why = refused(&|d| std::fs::write(d.join("big"), vec![0u8; (1 << 20) + 1]).unwrap());
        assert!(why.starts_with("holds more than its cap of 1 MiB"), "{why}");
        let why = refused(&|d| {
            for i in 0..300 {
                std::fs::write(d.join(format!("f{i}")), "").unwrap();
            }
        });
        assert_eq!(why, "holds more than 256 files and folders, its cap");
        let why = refused(&|d| {
            std::fs::remove_dir_all(d).unwrap();
            std::os::unix::fs::symlink("/etc", d).unwrap();
        });
        assert!(why.starts_with("is no longer a folder"), "{why}");
    }
}
