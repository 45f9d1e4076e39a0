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
//!
//! Bounded at every moment: a contained bot run by koth as root keeps its data on a memory
//! filesystem of its own ([`Volume`]) that cannot hold more than its cap's files and its cap's
//! bytes plus a page per file, so a writer it starts before its first answer is stopped by the
//! kernel, not found after the fact. Read, checked, packed and handed over, a data folder is
//! opened folder by folder from the one above (`openat2` with `RESOLVE_BENEATH` and
//! `RESOLVE_NO_SYMLINKS`), so a bot that swaps a folder for a link while koth reads cannot
//! lead koth anywhere, and a refusal names only the bot's own entries.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use nix::fcntl::{AtFlags, OFlag, OpenHow, ResolveFlag};
use nix::sys::stat::{Mode, SFlag};

use anyhow::Context;

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
        let digest = super::digest::sha256_hex(&tar);
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

/// One entry of a data folder, relative to it.
struct Entry {
    path: PathBuf,
    executable: bool,
    /// A file's bytes; `None` for a folder.
    contents: Option<Vec<u8>>,
}

/// Why a data folder is refused: one sentence naming the entry or the cap.
pub type Refusal = String;

/// A learning bot's data folder for one game, when the bot is contained and koth is root: a
/// memory filesystem of its own (`tmpfs`), made by koth and never mounted where koth's own
/// world sees it. Each of the bot's processes gets a copy of the mount at its `data/`
/// ([`crate::sandbox`]), so what it writes lands here; the filesystem itself holds at most
/// the cap's entries and the cap's bytes plus a page per entry (a file's last page is counted
/// whole), so a bot writing from a background thread is stopped by the kernel at every moment,
/// not after its next answer. koth reads it back through the descriptor it keeps.
pub(crate) struct Volume {
    /// The detached mount (`fsmount`'s descriptor).
    mount: OwnedFd,
}

/// The volumes of the games in progress, by the data folder (absolute) they stand for: put
/// there by [`put`], taken back by [`take`].
static VOLUMES: Mutex<BTreeMap<PathBuf, Arc<Volume>>> = Mutex::new(BTreeMap::new());

fn volumes() -> std::sync::MutexGuard<'static, BTreeMap<PathBuf, Arc<Volume>>> {
    VOLUMES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn volume_key(dir: &Path) -> PathBuf {
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())
}

/// Where koth itself reaches the data folder `dir`: its volume's root, through koth's own
/// descriptor, or the folder. A WASI bot's runtime, in koth's process, writes there.
pub(crate) fn reached(dir: &Path) -> PathBuf {
    volume_of(dir).map_or_else(|| dir.to_path_buf(), |volume| volume.path())
}

/// The volume standing for the data folder `dir`, if it has one.
pub(crate) fn volume_of(dir: &Path) -> Option<Arc<Volume>> {
    volumes().get(&volume_key(dir)).cloned()
}

impl Volume {
    /// A new, empty volume for `cap`: `tmpfs` through the mount API (`fsopen`, `fsconfig`,
    /// `fsmount`), which takes the inode cap that `bwrap`'s own `tmpfs` cannot. Needs root.
    fn create(cap: DataCap) -> std::io::Result<Volume> {
        use nix::libc;
        const FSOPEN_CLOEXEC: libc::c_uint = 1;
        const FSCONFIG_SET_STRING: libc::c_uint = 1;
        const FSCONFIG_CMD_CREATE: libc::c_uint = 6;
        const FSMOUNT_CLOEXEC: libc::c_uint = 1;
        const MOUNT_ATTR_NOSUID: libc::c_uint = 0x2;
        const MOUNT_ATTR_NODEV: libc::c_uint = 0x4;
        let fail = || std::io::Error::last_os_error();
        // SAFETY: plain system calls on C strings that outlive them; each descriptor returned
        // is owned at once.
        unsafe {
            let fs = libc::syscall(libc::SYS_fsopen, c"tmpfs".as_ptr(), FSOPEN_CLOEXEC);
            if fs < 0 {
                return Err(fail());
            }
            let fs = OwnedFd::from_raw_fd(fs as i32);
            let bytes = cap.bytes + cap.entries * 4096;
            // The root and a folder `put` unpacks into before moving its entries up.
            let inodes = cap.entries + 2;
            let options = [
                ("size", bytes.to_string()),
                ("nr_inodes", inodes.to_string()),
                ("mode", "0755".to_string()),
            ];
            for (key, value) in options {
                let key = std::ffi::CString::new(key).expect("no NUL");
                let value = std::ffi::CString::new(value).expect("no NUL");
                let set = libc::syscall(
                    libc::SYS_fsconfig,
                    fs.as_raw_fd(),
                    FSCONFIG_SET_STRING,
                    key.as_ptr(),
                    value.as_ptr(),
                    0,
                );
                if set < 0 {
                    return Err(fail());
                }
            }
            let null = std::ptr::null::<libc::c_char>();
            let create = libc::syscall(
                libc::SYS_fsconfig,
                fs.as_raw_fd(),
                FSCONFIG_CMD_CREATE,
                null,
                null,
                0,
            );
            if create < 0 {
                return Err(fail());
            }
            let attributes = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
            let mount = libc::syscall(
                libc::SYS_fsmount,
                fs.as_raw_fd(),
                FSMOUNT_CLOEXEC,
                attributes,
            );
            if mount < 0 {
                return Err(fail());
            }
            Ok(Volume {
                mount: OwnedFd::from_raw_fd(mount as i32),
            })
        }
    }

    /// The detached mount, which a bot's process clones onto its `data/`.
    pub(crate) fn mount(&self) -> BorrowedFd<'_> {
        self.mount.as_fd()
    }

    /// The volume's root, as a path koth itself can use (through its own descriptor).
    pub(crate) fn path(&self) -> PathBuf {
        PathBuf::from(format!("/proc/self/fd/{}", self.mount.as_raw_fd()))
    }
}

/// Opens `name` in the folder `at`, never through a link at any step: the kernel refuses a
/// link anywhere on the way (`RESOLVE_NO_SYMLINKS`) and any path leading above `at`
/// (`RESOLVE_BENEATH`), so a bot that swaps a folder for a link while koth reads finds koth
/// refusing, not following it.
fn open_beneath(at: BorrowedFd<'_>, name: &Path, flags: OFlag) -> nix::Result<OwnedFd> {
    let how = OpenHow::new()
        .flags(flags | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC)
        .resolve(
            ResolveFlag::RESOLVE_BENEATH
                | ResolveFlag::RESOLVE_NO_SYMLINKS
                | ResolveFlag::RESOLVE_NO_MAGICLINKS,
        );
    nix::fcntl::openat2(at, name, how)
}

/// The data folder `dir` opened as a folder: its volume's root, or the folder itself, never a
/// link in its place; `None` if it is missing (the bot removed it).
fn open_root(dir: &Path) -> Result<Option<OwnedFd>, Refusal> {
    let flags = OFlag::O_DIRECTORY | OFlag::O_RDONLY;
    let opened = match volume_of(dir) {
        Some(volume) => open_beneath(volume.mount(), Path::new("."), flags),
        None => nix::fcntl::open(
            dir,
            flags | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
            Mode::empty(),
        ),
    };
    match opened {
        Ok(fd) => Ok(Some(fd)),
        Err(nix::errno::Errno::ENOENT) => Ok(None),
        Err(nix::errno::Errno::ELOOP | nix::errno::Errno::ENOTDIR) => {
            Err("is no longer a folder (a link or a file took its place)".into())
        }
        Err(e) => Err(format!("cannot be read: {}", e.desc())),
    }
}

/// The names in the folder open as `folder`, read through that descriptor alone.
fn names_in(folder: &OwnedFd) -> std::io::Result<std::fs::ReadDir> {
    std::fs::read_dir(format!("/proc/self/fd/{}", folder.as_raw_fd()))
}

/// What the walk tells of one entry: the folder it is in, its name there, its path in the
/// data folder, and its kind and size as found (never through a link).
struct Found<'a> {
    folder: BorrowedFd<'a>,
    name: &'a std::ffi::OsStr,
    relative: &'a Path,
    stat: nix::sys::stat::FileStat,
}

impl Found<'_> {
    fn is_dir(&self) -> bool {
        kind_of(&self.stat) == SFlag::S_IFDIR
    }
}

/// Walks the data folder `dir` within `cap`, telling `visit` of each entry in name order; a
/// refusal names the first entry that is not a plain file or folder with a UTF-8 name, or the
/// cap passed. A missing folder is an empty one (the bot removed it). Every folder is opened
/// from the one above it and every entry looked at where it is, so nothing is reached through
/// a link, and a refusal names only the bot's own entries.
fn walk(
    dir: &Path,
    cap: DataCap,
    visit: &mut dyn FnMut(&Found<'_>) -> Result<(), Refusal>,
) -> Result<(), Refusal> {
    let Some(root) = open_root(dir)? else {
        return Ok(());
    };
    let mut tally = Tally {
        cap,
        bytes: 0,
        entries: 0,
    };
    let mut folders = vec![(root, PathBuf::new(), 0usize)];
    while let Some((fd, folder, depth)) = folders.pop() {
        let mut subfolders = Vec::new();
        for name in tally.sorted_names(&fd, &folder)? {
            let relative = folder.join(&name);
            let stat = plain_entry(&fd, &name, &relative)?;
            if kind_of(&stat) == SFlag::S_IFDIR {
                let opened = open_subfolder(&fd, &name, &relative, depth + 1)?;
                subfolders.push((opened, relative.clone(), depth + 1));
            } else {
                tally.add_file(&stat, &relative)?;
            }
            visit(&Found {
                folder: fd.as_fd(),
                name: &name,
                relative: &relative,
                stat,
            })?;
        }
        // Depth first, in name order: the pops take the first name first.
        folders.extend(subfolders.into_iter().rev());
    }
    Ok(())
}

/// An entry's path in the data folder as a refusal names it.
fn shown(relative: &Path) -> String {
    format!(
        "data/{}",
        String::from_utf8_lossy(relative.as_os_str().as_bytes())
    )
}

/// An entry's kind (file, folder, link, ...) from its status.
fn kind_of(stat: &nix::sys::stat::FileStat) -> SFlag {
    SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT
}

/// What a walk has counted so far against its cap: files' bytes, and files and folders.
struct Tally {
    cap: DataCap,
    bytes: u64,
    entries: u64,
}

impl Tally {
    /// The names in the folder open as `fd` (at `folder` in the data folder), sorted, each
    /// counted against the cap on entries.
    fn sorted_names(
        &mut self,
        fd: &OwnedFd,
        folder: &Path,
    ) -> Result<Vec<std::ffi::OsString>, Refusal> {
        let listing = names_in(fd).map_err(|e| format!("{} cannot be read: {e}", shown(folder)))?;
        let mut names = Vec::new();
        for entry in listing {
            let entry = entry.map_err(|e| format!("{} cannot be read: {e}", shown(folder)))?;
            self.entries += 1;
            if self.entries > self.cap.entries {
                return Err(format!(
                    "holds more than {} files and folders, its cap",
                    self.cap.entries
                ));
            }
            names.push(entry.file_name());
        }
        names.sort();
        Ok(names)
    }

    /// Counts the file at `relative`, of status `stat`, against the cap on bytes.
    fn add_file(
        &mut self,
        stat: &nix::sys::stat::FileStat,
        relative: &Path,
    ) -> Result<(), Refusal> {
        self.bytes = self.bytes.saturating_add(stat.st_size.max(0) as u64);
        if self.bytes > self.cap.bytes {
            return Err(format!(
                "holds more than its cap of {} MiB ({} bytes counted at {})",
                self.cap.bytes >> 20,
                self.bytes,
                shown(relative)
            ));
        }
        Ok(())
    }
}

/// The status of the entry `name` in the folder open as `folder`, looked at where it is (never
/// through a link); refused unless it is a plain file or folder with a UTF-8 name.
fn plain_entry(
    folder: &OwnedFd,
    name: &std::ffi::OsStr,
    relative: &Path,
) -> Result<nix::sys::stat::FileStat, Refusal> {
    if name.to_str().is_none() {
        return Err(format!("{} has a name that is not UTF-8", shown(relative)));
    }
    let stat = nix::sys::stat::fstatat(folder, name, AtFlags::AT_SYMLINK_NOFOLLOW)
        .map_err(|e| format!("{} cannot be read: {}", shown(relative), e.desc()))?;
    let refused = match kind_of(&stat) {
        SFlag::S_IFLNK => Some("is a symbolic link"),
        SFlag::S_IFIFO => Some("is a pipe"),
        SFlag::S_IFSOCK => Some("is a socket"),
        SFlag::S_IFBLK | SFlag::S_IFCHR => Some("is a device"),
        SFlag::S_IFREG if stat.st_nlink > 1 => {
            Some("is a hard link (the file has another name elsewhere)")
        }
        SFlag::S_IFREG | SFlag::S_IFDIR => None,
        _ => Some("is neither a file nor a folder"),
    };
    if let Some(why) = refused {
        return Err(format!(
            "{} {why}: data holds files and folders only",
            shown(relative)
        ));
    }
    Ok(stat)
}

/// The subfolder `name` of the folder open as `folder`, opened beneath it at `depth`; refused
/// past [`MAX_DEPTH`].
fn open_subfolder(
    folder: &OwnedFd,
    name: &std::ffi::OsStr,
    relative: &Path,
    depth: usize,
) -> Result<OwnedFd, Refusal> {
    if depth >= MAX_DEPTH {
        return Err(format!(
            "{} is nested more than {MAX_DEPTH} folders deep",
            shown(relative)
        ));
    }
    open_beneath(
        folder.as_fd(),
        Path::new(name),
        OFlag::O_DIRECTORY | OFlag::O_RDONLY,
    )
    .map_err(|e| format!("{} cannot be read: {}", shown(relative), e.desc()))
}

/// Checks the data folder `dir` against `cap` without reading its files: what a seat does
/// between answers, so that a bot filling its folder is stopped while it plays.
pub fn check(dir: &Path, cap: DataCap) -> Result<(), Refusal> {
    walk(dir, cap, &mut |_| Ok(()))
}

/// Takes what the bot left in its data folder `dir` as a snapshot, or refuses it (see the
/// module), and lets its volume go: the game is over. Files are opened without following
/// links and read up to the cap, so a file changed meanwhile cannot make the snapshot pass it.
pub fn take(dir: &Path, cap: DataCap) -> Result<Snapshot, Refusal> {
    let taken = take_within(dir, cap);
    volumes().remove(&volume_key(dir));
    taken
}

fn take_within(dir: &Path, cap: DataCap) -> Result<Snapshot, Refusal> {
    let mut entries = Vec::new();
    let mut read_bytes = 0u64;
    walk(dir, cap, &mut |found| {
        if found.is_dir() {
            entries.push(Entry {
                path: found.relative.to_path_buf(),
                executable: false,
                contents: None,
            });
            return Ok(());
        }
        let shown = format!("data/{}", found.relative.display());
        let file = open_beneath(
            found.folder,
            Path::new(found.name),
            OFlag::O_RDONLY | OFlag::O_NONBLOCK,
        )
        .map(std::fs::File::from)
        .map_err(|e| format!("{shown} cannot be read: {}", e.desc()))?;
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
            path: found.relative.to_path_buf(),
            executable: opened.permissions().mode() & 0o111 != 0,
            contents: Some(contents),
        });
        Ok(())
    })?;
    Snapshot::of_entries(entries).map_err(|e| format!("cannot be packed: {e}"))
}

/// Where a learning bot's data goes for one game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// In the working copy's `data/` on koth's disk: an uncontained bot, or koth not root. The
    /// seat holds it to its cap between answers.
    Folder,
    /// On a volume of its own, bounded at every moment ([`Volume`]), where koth can make one
    /// (it is root): a contained bot's, whose processes get a copy of it at `data/`, or a WASI
    /// bot's, whose runtime writes to it. Elsewhere as [`Placement::Folder`].
    Volume,
}

/// Unpacks the snapshot `tar_gz` as the data folder `dir`, replacing what is there (a working
/// copy's empty folder), placed as `placement` asks. It is unpacked with the archive reader
/// every upload goes through (`koth_base::archive`), within `cap`: beside the folder and renamed
/// into place, or into the volume, which then stands for the folder until [`take`].
pub fn put(tar_gz: &[u8], dir: &Path, cap: DataCap, placement: Placement) -> anyhow::Result<()> {
    let parent = dir.parent().context("a data folder has a parent")?;
    let mut archive = tempfile::NamedTempFile::new_in(parent)
        .with_context(|| format!("cannot write in {}", parent.display()))?;
    archive.write_all(tar_gz)?;
    let caps = koth_base::archive::Caps {
        unpacked_bytes: cap.bytes,
        entries: cap.entries,
        path_bytes: 4096,
        depth: MAX_DEPTH,
    };
    let unpack = |into: &Path| {
        koth_base::archive::unpack(archive.path(), koth_base::archive::Kind::TarGz, into, &caps)
            .map_err(|e| {
                anyhow::anyhow!("cannot unpack the bot's data into {}: {e}", dir.display())
            })
    };
    let volume = match placement {
        Placement::Volume if nix::unistd::geteuid().is_root() => match Volume::create(cap) {
            Ok(volume) => Some(volume),
            Err(e) => {
                tracing::warn!("a learning bot's data stays on disk: no volume of its own ({e})");
                None
            }
        },
        _ => None,
    };
    if let Some(volume) = volume {
        // Unpacked into a folder of the volume, then its entries moved up to the root.
        let root = volume.path();
        let unpacked = root.join(".unpacking");
        unpack(&unpacked)?;
        for entry in std::fs::read_dir(&unpacked)? {
            let name = entry?.file_name();
            std::fs::rename(unpacked.join(&name), root.join(&name))?;
        }
        std::fs::remove_dir(&unpacked)?;
        if !dir.is_dir() {
            std::fs::create_dir(dir).with_context(|| format!("cannot make {}", dir.display()))?;
        }
        volumes().insert(volume_key(dir), Arc::new(volume));
        return Ok(());
    }
    let unpacked = parent.join(".data.unpacking");
    if unpacked.exists() {
        std::fs::remove_dir_all(&unpacked)?;
    }
    unpack(&unpacked)?;
    if dir.exists() {
        std::fs::remove_dir_all(dir)
            .with_context(|| format!("cannot replace {}", dir.display()))?;
    }
    std::fs::rename(&unpacked, dir)
        .with_context(|| format!("cannot move the bot's data into {}", dir.display()))?;
    Ok(())
}

/// Gives the data folder `dir` (its volume, or the folder), everything in it, to the user `uid`
/// a contained bot runs as, entry by entry from the folder above, never through a link.
pub(crate) fn own(dir: &Path, uid: u32) -> std::io::Result<()> {
    let Some(root) = open_root(dir).map_err(std::io::Error::other)? else {
        return Ok(());
    };
    let id = (
        Some(nix::unistd::Uid::from_raw(uid)),
        Some(nix::unistd::Gid::from_raw(uid)),
    );
    nix::unistd::fchown(&root, id.0, id.1)?;
    let mut folders = vec![root];
    while let Some(folder) = folders.pop() {
        for entry in names_in(&folder)? {
            let entry = entry?;
            let name = entry.file_name();
            nix::unistd::fchownat(
                &folder,
                name.as_os_str(),
                id.0,
                id.1,
                AtFlags::AT_SYMLINK_NOFOLLOW,
            )?;
            if entry.file_type()?.is_dir() {
                let flags = OFlag::O_DIRECTORY | OFlag::O_RDONLY;
                folders.push(open_beneath(folder.as_fd(), Path::new(&name), flags)?);
            }
        }
    }
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
        put(&taken.tar_gz, &again, cap, Placement::Folder).unwrap();
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
    fn a_volume_holds_no_more_than_its_cap_and_goes_with_take() {
        if !nix::unistd::geteuid().is_root() {
            return;
        }
        let (tmp, dir) = folder();
        let cap = DataCap::of_mb(1);
        let snapshot = take(&dir, cap).unwrap();
        let copy = tmp.path().join("copy");
        std::fs::create_dir(&copy).unwrap();
        let data = copy.join(DATA_FOLDER);
        put(&snapshot.tar_gz, &data, cap, Placement::Volume).unwrap();
        let volume = volume_of(&data).expect("a volume stands for the folder");
        // The folder on disk stays empty: the snapshot is on the volume.
        assert_eq!(std::fs::read_dir(&data).unwrap().count(), 0);
        let root = volume.path();
        assert_eq!(
            std::fs::read_to_string(root.join("boxes/a.txt")).unwrap(),
            "3 3 3\n"
        );
        // Bytes: the cap and a page per entry (2 MiB here), no more.
        let mut big = std::fs::File::create(root.join("big")).unwrap();
        let mut written = 0u64;
        while written < 8 << 20 {
            match big.write(&[7u8; 65536]) {
                Ok(n) => written += n as u64,
                Err(e) => {
                    assert_eq!(e.raw_os_error(), Some(nix::libc::ENOSPC));
                    break;
                }
            }
        }
        assert!(written <= 2 << 20, "{written}");
        drop(big);
        std::fs::remove_file(root.join("big")).unwrap();
        // Entries: the cap's 256 and one more, which the walk then refuses.
        let made = (0..400)
            .take_while(|i| std::fs::write(root.join(format!("e{i}")), "").is_ok())
            .count();
        assert!(made + 3 <= 257, "{made}");
        assert_eq!(
            check(&data, cap).unwrap_err(),
            "holds more than 256 files and folders, its cap"
        );
        drop(volume);
        assert!(take(&data, cap).is_err());
        assert!(volume_of(&data).is_none(), "take lets the volume go");
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
