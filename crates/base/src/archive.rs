//! A bot folder out of an archive someone uploaded: a `.tar.gz` or a `.zip`, read entry by entry
//! into a fresh folder, letting in **files and folders and nothing else**.
//!
//! No extract-all is trusted (Rust's `tar` had path escapes through links, RUSTSEC-2021-0080, and
//! this year a `chmod` through a link and ignored PAX size headers, RUSTSEC-2026-0067/-0068;
//! Halite's worker unzipped with no cap). Here:
//! - each entry's path is checked before anything is written: relative, UTF-8, no `..`, no
//!   empty or `.` parts, at most [`Caps::path_bytes`] long and [`Caps::depth`] deep;
//! - only regular files and folders are let in; a link (symbolic or hard), a device, a pipe or
//!   anything else refuses the whole archive, naming the entry — a bot needs none, and a link is
//!   how every extract-all was escaped;
//! - nothing is ever written through an existing path: the folder is new, folders are made one
//!   part at a time and files created new (`O_EXCL`), so no entry can land outside it or twice;
//! - the bytes actually written are counted against [`Caps::unpacked_bytes`], whatever an entry
//!   declares (a zip's sizes, a tar's PAX headers), and the decompressed stream itself is cut at
//!   the cap, so an archive bomb stops there; entries are counted against [`Caps::entries`];
//! - a file keeps its exec bit (`0755`), and nothing else of its mode (no set-user-id, no
//!   world-writable files).
//!
//! Every refusal is a [`Refused`] naming the entry and why; the caller removes the folder.

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};

/// What an archive may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Bytes written into the folder, all files together.
    pub unpacked_bytes: u64,
    /// Entries: files and folders.
    pub entries: u64,
    /// Bytes of an entry's path.
    pub path_bytes: usize,
    /// Parts of an entry's path.
    pub depth: usize,
}

impl Default for Caps {
    /// What a public hill starts with: 100 MiB unpacked, 10,000 entries, paths of 255 bytes and
    /// 16 levels.
    fn default() -> Caps {
        Caps {
            unpacked_bytes: 100 << 20,
            entries: 10_000,
            path_bytes: 255,
            depth: 16,
        }
    }
}

/// The kinds of archive a bot folder may come in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    TarGz,
    Zip,
}

impl Kind {
    /// The kind an archive's first bytes say it is (gzip's `1f 8b`, zip's `PK\x03\x04`, or an
    /// empty zip's `PK\x05\x06`).
    pub fn of(head: &[u8]) -> Option<Kind> {
        if head.starts_with(&[0x1f, 0x8b]) {
            Some(Kind::TarGz)
        } else if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
            Some(Kind::Zip)
        } else {
            None
        }
    }
}

/// Why an archive was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Refused {
    /// An entry that cannot be let in (a link, a device, a path that leaves the folder…).
    #[error("entry {entry:?}: {why}")]
    Entry { entry: String, why: String },
    /// The archive unpacks to more than a cap allows.
    #[error("{0}")]
    OverCap(String),
    /// Not an archive of its kind, or a damaged one.
    #[error("not a readable {kind}: {why}")]
    Damaged { kind: &'static str, why: String },
    /// The folder could not be written (koth's side, not the archive's).
    #[error("cannot write {path}: {why}")]
    Io { path: String, why: String },
}

/// What was let in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Unpacked {
    pub files: u64,
    pub folders: u64,
    pub bytes: u64,
}

/// Unpacks `archive` (of `kind`) into the new folder `into`, which must not exist yet.
pub fn unpack(archive: &Path, kind: Kind, into: &Path, caps: &Caps) -> Result<Unpacked, Refused> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |e: std::io::Error| Refused::Io {
            path: path.clone(),
            why: e.to_string(),
        }
    };
    std::fs::DirBuilder::new()
        .mode(0o755)
        .create(into)
        .map_err(io(into))?;
    let file = File::open(archive).map_err(io(archive))?;
    let mut folder = Folder {
        root: into.to_path_buf(),
        caps: *caps,
        done: Unpacked::default(),
    };
    match kind {
        Kind::TarGz => unpack_tar(file, &mut folder)?,
        Kind::Zip => unpack_zip(file, &mut folder)?,
    }
    Ok(folder.done)
}

/// The folder being filled, and what is in it so far.
struct Folder {
    root: PathBuf,
    caps: Caps,
    done: Unpacked,
}

impl Folder {
    /// The place of the entry named `name` (its bytes as the archive holds them), checked.
    fn place(&mut self, name: &[u8]) -> Result<PathBuf, Refused> {
        let shown = String::from_utf8_lossy(name).into_owned();
        let refuse = |why: &str| Refused::Entry {
            entry: shown.clone(),
            why: why.into(),
        };
        if self.done.files + self.done.folders >= self.caps.entries {
            return Err(Refused::OverCap(format!(
                "more than {} entries",
                self.caps.entries
            )));
        }
        let text = std::str::from_utf8(name).map_err(|_| refuse("its name is not UTF-8"))?;
        let mut text = text.strip_suffix('/').unwrap_or(text);
        // `tar czf bot.tgz -C bot .` names every entry `./…`, and the folder itself `.`.
        while let Some(rest) = text.strip_prefix("./") {
            text = rest;
        }
        if text == "." {
            return Ok(self.root.clone());
        }
        if text.len() > self.caps.path_bytes {
            return Err(refuse(&format!(
                "its path is longer than {} bytes",
                self.caps.path_bytes
            )));
        }
        if text.contains('\0') || text.contains('\\') {
            return Err(refuse("its path holds a NUL or a backslash"));
        }
        let path = Path::new(text);
        let mut parts = 0;
        for part in path.components() {
            match part {
                Component::Normal(_) => parts += 1,
                Component::RootDir | Component::Prefix(_) => {
                    return Err(refuse("its path is absolute"));
                }
                Component::ParentDir => return Err(refuse("its path climbs out with `..`")),
                Component::CurDir => return Err(refuse("its path holds a `.` part")),
            }
        }
        if parts == 0 {
            return Err(refuse("its path is empty"));
        }
        if parts > self.caps.depth {
            return Err(refuse(&format!(
                "its path is deeper than {} folders",
                self.caps.depth
            )));
        }
        Ok(self.root.join(path))
    }

    /// Makes the folder `path` and every folder above it inside the root, never through a link
    /// (there is none: only folders and files are ever made here).
    fn folder(&mut self, path: &Path) -> Result<(), Refused> {
        let relative = path.strip_prefix(&self.root).unwrap_or(path);
        let mut at = self.root.clone();
        for part in relative.components() {
            at.push(part);
            match std::fs::symlink_metadata(&at) {
                Ok(meta) if meta.is_dir() => continue,
                Ok(_) => {
                    return Err(Refused::Entry {
                        entry: relative.display().to_string(),
                        why: format!("{} is a file and a folder", at.display()),
                    });
                }
                Err(_) => {}
            }
            std::fs::DirBuilder::new()
                .mode(0o755)
                .create(&at)
                .map_err(|e| Refused::Io {
                    path: at.display().to_string(),
                    why: e.to_string(),
                })?;
            self.done.folders += 1;
        }
        Ok(())
    }

    /// Writes the file `path` from `content`, counting its bytes against the cap.
    fn file(
        &mut self,
        path: &Path,
        executable: bool,
        content: &mut dyn Read,
    ) -> Result<(), Refused> {
        if let Some(parent) = path.parent() {
            self.folder(parent)?;
        }
        let entry = path
            .strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string();
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(nix::libc::O_NOFOLLOW)
            .mode(if executable { 0o755 } else { 0o644 })
            .open(path)
            .map_err(|e| Refused::Entry {
                entry: entry.clone(),
                why: match e.kind() {
                    std::io::ErrorKind::AlreadyExists => "it is in the archive twice".into(),
                    _ => e.to_string(),
                },
            })?;
        let room = self.caps.unpacked_bytes - self.done.bytes;
        let mut buffer = [0u8; 64 << 10];
        let mut written = 0u64;
        loop {
            let n = content.read(&mut buffer).map_err(|e| Refused::Damaged {
                kind: "archive",
                why: format!("entry {entry:?}: {e}"),
            })?;
            if n == 0 {
                break;
            }
            written += n as u64;
            if written > room {
                return Err(over_bytes(&self.caps));
            }
            out.write_all(&buffer[..n]).map_err(|e| Refused::Io {
                path: path.display().to_string(),
                why: e.to_string(),
            })?;
        }
        self.done.bytes += written;
        self.done.files += 1;
        Ok(())
    }
}

fn over_bytes(caps: &Caps) -> Refused {
    Refused::OverCap(format!(
        "it unpacks to more than {} bytes",
        caps.unpacked_bytes
    ))
}

/// A decompressed stream cut off at `left` bytes: past it, the archive is over its cap, whatever
/// its headers say (a tar's long-name and PAX entries are read whole into memory by the `tar`
/// crate, so the stream itself must end).
struct Capped<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            return Err(std::io::Error::other(OVER_STREAM));
        }
        let most = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..most])?;
        self.left -= n as u64;
        Ok(n)
    }
}

const OVER_STREAM: &str = "the archive unpacks past its cap";

fn unpack_tar(file: File, folder: &mut Folder) -> Result<(), Refused> {
    // Headers, long names and padding on top of the files' own bytes: a block per entry and a
    // path's worth of long name, and some slack.
    let overhead = folder.caps.entries * (1024 + folder.caps.path_bytes as u64) + (1 << 20);
    let stream = Capped {
        inner: flate2::read::GzDecoder::new(std::io::BufReader::new(file)),
        left: folder.caps.unpacked_bytes + overhead,
    };
    let caps = folder.caps;
    let damaged = |e: std::io::Error| {
        if e.to_string().contains(OVER_STREAM) {
            over_bytes(&caps)
        } else {
            Refused::Damaged {
                kind: ".tar.gz",
                why: e.to_string(),
            }
        }
    };
    let mut archive = tar::Archive::new(stream);
    let entries = archive.entries().map_err(damaged)?;
    for entry in entries {
        let mut entry = entry.map_err(damaged)?;
        let name = entry.path_bytes().into_owned();
        let kind = entry.header().entry_type();
        // A global PAX header carries no file; any other entry is one.
        if kind.is_pax_global_extensions() {
            continue;
        }
        let path = folder.place(&name)?;
        let shown = String::from_utf8_lossy(&name).into_owned();
        let refuse = |why: &str| Refused::Entry {
            entry: shown.clone(),
            why: why.into(),
        };
        if path == folder.root && !kind.is_dir() {
            return Err(refuse("it names the folder itself, and is not a folder"));
        }
        if kind.is_dir() {
            folder.folder(&path)?;
        } else if kind.is_file() || kind == tar::EntryType::Continuous {
            let mode = entry.header().mode().map_err(damaged)?;
            folder.file(&path, mode & 0o111 != 0, &mut entry)?;
        } else if kind.is_symlink() {
            return Err(refuse(
                "it is a symbolic link; a bot folder holds files and folders only",
            ));
        } else if kind.is_hard_link() {
            return Err(refuse(
                "it is a hard link; a bot folder holds files and folders only",
            ));
        } else if kind.is_character_special() || kind.is_block_special() {
            return Err(refuse("it is a device"));
        } else if kind.is_fifo() {
            return Err(refuse("it is a pipe"));
        } else {
            return Err(refuse(&format!(
                "it is a {kind:?} entry; a bot folder holds files and folders only"
            )));
        }
    }
    Ok(())
}

fn unpack_zip(file: File, folder: &mut Folder) -> Result<(), Refused> {
    let damaged = |e: zip::result::ZipError| Refused::Damaged {
        kind: ".zip",
        why: e.to_string(),
    };
    let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(damaged)?;
    if archive.len() as u64 > folder.caps.entries {
        return Err(Refused::OverCap(format!(
            "more than {} entries",
            folder.caps.entries
        )));
    }
    for index in 0..archive.len() {
        let mut entry = archive.by_index(index).map_err(damaged)?;
        let name = entry.name_raw().to_vec();
        let shown = String::from_utf8_lossy(&name).into_owned();
        let path = folder.place(&name)?;
        let refuse = |why: &str| Refused::Entry {
            entry: shown.clone(),
            why: why.into(),
        };
        // The unix mode, where the archive was made on a unix: its type bits tell a link or a
        // device from a file.
        let mode = entry.unix_mode();
        let file_type = mode.map(|m| m & 0o170000);
        match file_type {
            Some(0o120000) => {
                return Err(refuse(
                    "it is a symbolic link; a bot folder holds files and folders only",
                ));
            }
            Some(0o020000 | 0o060000) => return Err(refuse("it is a device")),
            Some(0o010000) => return Err(refuse("it is a pipe")),
            Some(0o140000) => return Err(refuse("it is a socket")),
            _ => {}
        }
        if path == folder.root && !entry.is_dir() {
            return Err(refuse("it names the folder itself, and is not a folder"));
        }
        if entry.is_dir() {
            folder.folder(&path)?;
        } else {
            let executable = mode.is_some_and(|m| m & 0o111 != 0);
            folder.file(&path, executable, &mut entry)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::Compression;
    use flate2::write::GzEncoder;

    /// A tar entry's header with the raw `name` and `kind`, as a hostile archive writes it (the
    /// `tar` crate's own `set_path` refuses `..`).
    fn header(name: &[u8], kind: tar::EntryType, size: u64) -> tar::Header {
        let mut header = tar::Header::new_gnu();
        header.as_gnu_mut().unwrap().name[..name.len()].copy_from_slice(name);
        header.set_entry_type(kind);
        header.set_size(size);
        header.set_mode(0o644);
        header.set_cksum();
        header
    }

    fn tar_gz(build: impl FnOnce(&mut tar::Builder<GzEncoder<File>>), path: &Path) {
        let file = File::create(path).unwrap();
        let mut builder = tar::Builder::new(GzEncoder::new(file, Compression::fast()));
        build(&mut builder);
        builder.into_inner().unwrap().finish().unwrap();
    }

    fn unpack_tar_gz(
        build: impl FnOnce(&mut tar::Builder<GzEncoder<File>>),
    ) -> (tempfile::TempDir, Result<Unpacked, Refused>) {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("bot.tar.gz");
        tar_gz(build, &archive);
        let head = std::fs::read(&archive).unwrap();
        assert_eq!(Kind::of(&head), Some(Kind::TarGz));
        let outcome = unpack(
            &archive,
            Kind::TarGz,
            &dir.path().join("out"),
            &Caps::default(),
        );
        (dir, outcome)
    }

    /// Whether anything but `bot.tar.gz`/`bot.zip` and the folder `out` was written beside.
    fn only_out(dir: &Path) {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert!(
            names.iter().all(|n| n == "out" || n.starts_with("bot.")),
            "{names:?}"
        );
    }

    fn refused_entry(outcome: Result<Unpacked, Refused>, entry: &str, why: &str) {
        match outcome {
            Err(Refused::Entry { entry: e, why: w }) => {
                assert_eq!(e, entry);
                assert!(w.contains(why), "{w}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_folder_of_files_is_let_in_with_its_exec_bits() {
        let (dir, outcome) = unpack_tar_gz(|b| {
            let mut h = header(b"bot.toml", tar::EntryType::Regular, 5);
            b.append(&h, &b"name\n"[..]).unwrap();
            h = header(b"src/run.sh", tar::EntryType::Regular, 3);
            h.set_mode(0o4755);
            h.set_cksum();
            b.append(&h, &b"ok\n"[..]).unwrap();
        });
        let done = outcome.unwrap();
        assert_eq!((done.files, done.bytes), (2, 8));
        let out = dir.path().join("out");
        assert_eq!(std::fs::read(out.join("bot.toml")).unwrap(), b"name\n");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(out.join("src/run.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o7777, 0o755);
    }

    #[test]
    fn a_folder_packed_from_inside_it_with_dot_slash_names_is_let_in() {
        let (dir, outcome) = unpack_tar_gz(|b| {
            b.append(&header(b"./", tar::EntryType::Directory, 0), &b""[..])
                .unwrap();
            let h = header(b"./bot.toml", tar::EntryType::Regular, 5);
            b.append(&h, &b"name\n"[..]).unwrap();
        });
        assert_eq!(outcome.unwrap().files, 1);
        assert!(dir.path().join("out/bot.toml").is_file());
        let (_dir, outcome) = unpack_tar_gz(|b| {
            let h = header(b"./", tar::EntryType::Regular, 5);
            b.append(&h, &b"name\n"[..]).unwrap();
        });
        assert!(matches!(outcome, Err(Refused::Entry { .. })), "{outcome:?}");
    }

    #[test]
    fn links_devices_and_paths_that_leave_are_refused_naming_the_entry() {
        let cases: Vec<(&[u8], tar::EntryType, &str)> = vec![
            (b"escape", tar::EntryType::Symlink, "symbolic link"),
            (b"hard", tar::EntryType::Link, "hard link"),
            (b"../up.txt", tar::EntryType::Regular, "`..`"),
            (b"a/../../up.txt", tar::EntryType::Regular, "`..`"),
            (b"/etc/evil", tar::EntryType::Regular, "absolute"),
            (b"null", tar::EntryType::Char, "device"),
            (b"disk", tar::EntryType::Block, "device"),
            (b"fifo", tar::EntryType::Fifo, "pipe"),
            (b"bad\xff\xfe", tar::EntryType::Regular, "UTF-8"),
        ];
        for (name, kind, why) in cases {
            let (dir, outcome) = unpack_tar_gz(|b| {
                let mut h = header(name, kind, 0);
                if kind.is_symlink() || kind.is_hard_link() {
                    h.set_link_name("/etc/passwd").unwrap();
                    h.set_cksum();
                }
                b.append(&h, std::io::empty()).unwrap();
            });
            refused_entry(outcome, &String::from_utf8_lossy(name), why);
            only_out(dir.path());
            assert!(!Path::new("/etc/evil").exists());
        }
    }

    #[test]
    fn a_link_to_a_folder_then_a_file_through_it_writes_nothing_outside() {
        let outside = tempfile::tempdir().unwrap();
        let (dir, outcome) = unpack_tar_gz(|b| {
            let mut h = header(b"lib", tar::EntryType::Symlink, 0);
            h.set_link_name(outside.path()).unwrap();
            h.set_cksum();
            b.append(&h, std::io::empty()).unwrap();
            let h = header(b"lib/planted.txt", tar::EntryType::Regular, 4);
            b.append(&h, &b"evil"[..]).unwrap();
        });
        refused_entry(outcome, "lib", "symbolic link");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
        only_out(dir.path());
    }

    #[test]
    fn a_bomb_stops_at_the_cap() {
        let (dir, outcome) = unpack_tar_gz(|b| {
            let size = 1u64 << 30;
            let h = header(b"zeros", tar::EntryType::Regular, size);
            b.append(&h, std::io::repeat(0).take(size)).unwrap();
        });
        assert!(matches!(outcome, Err(Refused::OverCap(_))), "{outcome:?}");
        let written = std::fs::metadata(dir.path().join("out/zeros")).map_or(0, |m| m.len());
        assert!(written <= Caps::default().unpacked_bytes, "{written}");
    }

    #[test]
    fn too_many_entries_and_too_long_a_path_are_refused() {
        let (_dir, outcome) = unpack_tar_gz(|b| {
            for i in 0..200_000 {
                let h = header(format!("f{i}").as_bytes(), tar::EntryType::Regular, 0);
                b.append(&h, std::io::empty()).unwrap();
            }
        });
        assert!(
            matches!(&outcome, Err(Refused::OverCap(why)) if why.contains("10000 entries")),
            "{outcome:?}"
        );
        let (_dir, outcome) = unpack_tar_gz(|b| {
            let mut h = tar::Header::new_gnu();
            h.set_size(0);
            h.set_entry_type(tar::EntryType::Regular);
            b.append_data(&mut h, "x".repeat(10_000), std::io::empty())
                .unwrap();
        });
        assert!(
            matches!(&outcome, Err(Refused::Entry { why, .. }) if why.contains("longer than 255")),
            "{outcome:?}"
        );
    }

    #[test]
    fn a_zip_lets_in_files_and_refuses_its_links() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("bot.zip");
        let mut zip = zip::ZipWriter::new(File::create(&archive).unwrap());
        let options = zip::write::SimpleFileOptions::default().unix_permissions(0o755);
        zip.start_file("run.sh", options).unwrap();
        zip.write_all(b"#!/bin/sh\n").unwrap();
        zip.add_symlink("escape", "/etc/passwd", options).unwrap();
        zip.finish().unwrap();
        let head = std::fs::read(&archive).unwrap();
        assert_eq!(Kind::of(&head), Some(Kind::Zip));
        let outcome = unpack(
            &archive,
            Kind::Zip,
            &dir.path().join("out"),
            &Caps::default(),
        );
        refused_entry(outcome, "escape", "symbolic link");
        only_out(dir.path());
    }

    #[test]
    fn a_zip_bomb_stops_at_the_cap_whatever_its_sizes_say() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("bot.zip");
        let mut zip = zip::ZipWriter::new(File::create(&archive).unwrap());
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .large_file(true);
        zip.start_file("zeros", options).unwrap();
        std::io::copy(&mut std::io::repeat(0).take(1 << 30), &mut zip).unwrap();
        zip.finish().unwrap();
        let outcome = unpack(
            &archive,
            Kind::Zip,
            &dir.path().join("out"),
            &Caps::default(),
        );
        assert!(matches!(outcome, Err(Refused::OverCap(_))), "{outcome:?}");
    }
}
