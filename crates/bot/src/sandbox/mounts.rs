//! The mounts a contained process needs before `bwrap` starts, made in a mount namespace of
//! the child's own: the folders that let `nobody` reach a bound folder behind one it may not
//! enter ([`Launch::reach`] plans them, [`mount_in_child`] makes them), and a learning bot's
//! data volume put on its `data/`.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use anyhow::Context;

use super::Launch;

/// One step of making a folder reachable for `nobody` (see [`Launch::reach`]).
#[derive(Clone)]
pub(super) enum ReachStep {
    /// An empty, enterable folder over one `nobody` may not enter (`/root`).
    Cover(CString),
    /// A folder on such a cover, on the way to a bound folder.
    Mkdir(CString),
    /// The bound folder itself, at its own path on the cover.
    Bind(CString),
}

impl Launch {
    /// Plans the mounts that let `nobody` reach `folder` when one of the folders above it may
    /// not be entered by others (a bot's interpreter under `/root`, mode 0700): the topmost
    /// such folder is covered, in the child's own mount namespace only, by an empty one that
    /// holds nothing but the path down to `folder`, with `folder` bound there. `bwrap`, which
    /// resolves a bind's path as the user it runs as, then finds it; the rest of `/root` stays
    /// out of reach.
    pub(super) fn reach(&mut self, folder: &Path) -> anyhow::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        let ancestors: Vec<&Path> = folder.ancestors().skip(1).collect();
        let closed = ancestors
            .iter()
            .rev()
            .find(|dir| std::fs::metadata(dir).is_ok_and(|m| m.permissions().mode() & 0o001 == 0));
        let Some(closed) = closed else {
            return Ok(());
        };
        let path = |p: &Path| {
            CString::new(p.as_os_str().as_encoded_bytes())
                .with_context(|| format!("{} has a NUL byte", p.display()))
        };
        let reached = |bound: &CString| {
            folder.starts_with(Path::new(std::ffi::OsStr::from_bytes(bound.as_bytes())))
        };
        if self
            .reach
            .iter()
            .any(|step| matches!(step, ReachStep::Bind(bound) if reached(bound)))
        {
            return Ok(());
        }
        let cover = path(closed)?;
        if !self
            .reach
            .iter()
            .any(|step| matches!(step, ReachStep::Cover(c) if *c == cover))
        {
            self.reach.push(ReachStep::Cover(cover));
        }
        let below = folder.strip_prefix(closed).unwrap_or(folder);
        let mut dir = closed.to_path_buf();
        for part in below.components() {
            dir.push(part);
            self.reach.push(ReachStep::Mkdir(path(&dir)?));
        }
        self.reach.push(ReachStep::Bind(path(folder)?));
        Ok(())
    }
}

/// Makes the mounts of `reach`, in order, then the copy of the data volume (`data`: its
/// detached mount's descriptor, and the bot's `data/`), in a new mount namespace of the child.
/// Called in the child after fork, where nothing may allocate: `trees` is room made
/// beforehand, one slot per step, for the bound folders' detached copies. Its steps below
/// allocate nothing either: each makes system calls alone, and an error is the `errno` they
/// left ([`std::io::Error::last_os_error`] holds the number, no text).
pub(super) fn mount_in_child(
    reach: &[ReachStep],
    trees: &mut [i32],
    data: Option<&(i32, CString)>,
) -> std::io::Result<()> {
    own_mount_namespace()?;
    // Each bound folder is first detached as a copy of its mount, in this
    // namespace, so that covering the folder above it does not hide it.
    for (step, tree) in reach.iter().zip(trees.iter_mut()) {
        if let ReachStep::Bind(folder) = step {
            *tree = detached_copy(folder)?;
        }
    }
    for (step, &tree) in reach.iter().zip(trees.iter()) {
        make_step(step, tree)?;
    }
    // The data volume last, on the bot's `data/` wherever a reach step put
    // its working folder: a copy of the mount, so the volume itself stays
    // detached and koth's, for the next process of the bot and for the end.
    if let Some((volume, target)) = data {
        mount_copy(*volume, target)?;
    }
    Ok(())
}

/// Moves the child into a mount namespace of its own, every mount private to it, so that
/// nothing it mounts reaches koth's.
fn own_mount_namespace() -> std::io::Result<()> {
    use nix::libc;
    // SAFETY: the paths are NUL-terminated C string literals; unshare and mount are
    // async-signal-safe.
    unsafe {
        let none = std::ptr::null();
        let private = libc::MS_REC | libc::MS_PRIVATE;
        if libc::unshare(libc::CLONE_NEWNS) != 0
            || libc::mount(none, c"/".as_ptr(), none, private, none.cast()) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// A detached copy of the mount at `folder` (with those below it), as its descriptor.
fn detached_copy(folder: &CString) -> std::io::Result<i32> {
    use nix::libc;
    let flags = OPEN_TREE_CLONE | libc::O_CLOEXEC as u32 | AT_RECURSIVE;
    // SAFETY: `folder` is a NUL-terminated C string that outlives the call; open_tree is
    // async-signal-safe.
    let fd = unsafe { libc::syscall(libc::SYS_open_tree, libc::AT_FDCWD, folder.as_ptr(), flags) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(fd as i32)
}

/// Makes one step of reaching a bound folder: covers a closed folder with an empty `tmpfs`,
/// makes a folder on the way (one already there will do), or moves the bound folder's
/// detached copy `tree` to its place.
fn make_step(step: &ReachStep, tree: i32) -> std::io::Result<()> {
    use nix::libc;
    // SAFETY: every path passed is a NUL-terminated C string that outlives the call, `tree` a
    // descriptor this child holds; mount, mkdir and move_mount are async-signal-safe.
    let failed = unsafe {
        match step {
            ReachStep::Cover(dir) => {
                libc::mount(
                    c"tmpfs".as_ptr(),
                    dir.as_ptr(),
                    c"tmpfs".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV,
                    c"mode=0755".as_ptr().cast(),
                ) != 0
            }
            ReachStep::Mkdir(dir) => {
                libc::mkdir(dir.as_ptr(), 0o755) != 0
                    && std::io::Error::last_os_error().raw_os_error() != Some(libc::EEXIST)
            }
            ReachStep::Bind(folder) => {
                libc::syscall(
                    libc::SYS_move_mount,
                    tree,
                    c"".as_ptr(),
                    libc::AT_FDCWD,
                    folder.as_ptr(),
                    MOVE_MOUNT_F_EMPTY_PATH,
                ) != 0
            }
        }
    };
    if failed {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Mounts a copy of the detached mount `volume` on `target`, the volume itself left detached.
fn mount_copy(volume: i32, target: &CString) -> std::io::Result<()> {
    use nix::libc;
    let flags = OPEN_TREE_CLONE | libc::O_CLOEXEC as u32 | AT_EMPTY_PATH;
    // SAFETY: `target` is a NUL-terminated C string that outlives the call, `volume` a
    // descriptor this child holds; open_tree and move_mount are async-signal-safe.
    unsafe {
        let copy = libc::syscall(libc::SYS_open_tree, volume, c"".as_ptr(), flags);
        if copy < 0
            || libc::syscall(
                libc::SYS_move_mount,
                copy,
                c"".as_ptr(),
                libc::AT_FDCWD,
                target.as_ptr(),
                MOVE_MOUNT_F_EMPTY_PATH,
            ) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

// The new mount API's flags (linux/mount.h), which the libc crate does not export.
const OPEN_TREE_CLONE: u32 = 1;
const AT_RECURSIVE: u32 = 0x8000;
const AT_EMPTY_PATH: u32 = 0x1000;
const MOVE_MOUNT_F_EMPTY_PATH: u32 = 0x4;
