//! Where koth's threads, and so the bots they start, run. A game that is one long exchange
//! between koth and a single bot (a rat-race board is 10,000 round trips) goes about twice as
//! fast with both on one CPU: on separate CPUs every turn wakes a sleeping CPU, which on a
//! virtual machine costs as much again as the turn's work, while on one CPU the two simply take
//! turns. A paths game on one CPU costs koth a quarter less per turn for the same reason. The
//! helpers are best effort: a refusal leaves things as they were.
//!
//! Several koth processes on one machine share its CPUs through [`claim`]: each CPU koth pins
//! work to is claimed first with an advisory `flock` on `cpu-<N>.lock` in a folder of the
//! user's own ([`lock_folder`]), so a second koth takes the CPUs the first left free instead of
//! counting from the first allowed CPU and doubling up on it. A claim ends when it is dropped,
//! and with the process however it ends (the kernel drops a dead process's locks; the files are
//! opened close-on-exec, so no bot koth started holds one). Work that finds no CPU free runs
//! unpinned, and koth says so: the scheduler then shares the machine fairly, where two pinned
//! runs on one CPU would each get half of it while another CPU idles.

use std::fs::File;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg, OFlag, open, openat};
use nix::sched::{CpuSet, sched_getaffinity, sched_setaffinity};
use nix::sys::stat::{Mode, fstat};
use nix::unistd::{Pid, geteuid};

/// The CPUs this thread may run on, in increasing order.
pub fn allowed() -> Vec<usize> {
    let Ok(set) = sched_getaffinity(Pid::from_raw(0)) else {
        return Vec::new();
    };
    (0..CpuSet::count())
        .filter(|&cpu| set.is_set(cpu).unwrap_or(false))
        .collect()
}

/// Reads a CPU number given on the command line, which must be one koth may run on.
pub fn parse_cpu(text: &str) -> Result<usize, String> {
    let cpu: usize = text
        .parse()
        .map_err(|_| format!("`{text}` is not a CPU number"))?;
    let allowed = allowed();
    if allowed.contains(&cpu) {
        Ok(cpu)
    } else {
        Err(format!(
            "CPU {cpu} is not one koth may use here (these are: {})",
            list(&allowed)
        ))
    }
}

/// CPUs this process claimed for its pinned work (see the module's documentation): no other
/// koth pins to them while the claim lives, and dropping it frees them.
#[derive(Debug, Default)]
pub struct Claim {
    /// In increasing order; empty for work that runs unpinned.
    cpus: Vec<usize>,
    /// A lock per CPU of `cpus`, held as long as the claim.
    _locks: Vec<Flock<File>>,
    /// Why the work runs unpinned, when it does.
    unpinned: Option<String>,
}

impl Claim {
    /// Work that runs unpinned, and why.
    pub fn unpinned(why: String) -> Claim {
        Claim {
            unpinned: Some(why),
            ..Claim::default()
        }
    }

    /// The CPUs claimed; empty when the work runs unpinned.
    pub fn cpus(&self) -> &[usize] {
        &self.cpus
    }

    /// Where the work runs, for banners and logs: `on CPU 1`, `on CPUs 0, 1`, or
    /// `unpinned (why)`.
    pub fn describe(&self) -> String {
        match (self.cpus.as_slice(), &self.unpinned) {
            ([cpu], _) => format!("on CPU {cpu}"),
            ([], why) => format!(
                "unpinned ({})",
                why.as_deref().unwrap_or("no CPU asked for")
            ),
            (cpus, _) => format!("on CPUs {}", list(cpus)),
        }
    }
}

/// Claims up to `most` of the `candidates` that no other koth holds, trying them in order; if
/// fewer than `fewest` (at least one) are free, claims none: work that wants a CPU for each of
/// its jobs runs unpinned rather than with two jobs on one CPU. Never fails: a claim koth
/// cannot make is work that runs unpinned, and [`Claim::describe`] says why.
pub fn claim(candidates: &[usize], fewest: usize, most: usize) -> Claim {
    let fewest = fewest.max(1);
    if fewest > candidates.len() {
        return Claim::unpinned(format!(
            "it needs {fewest} CPUs of its own and may use {}",
            candidates.len()
        ));
    }
    let folder = match open_lock_folder(&lock_folder()) {
        Ok(folder) => folder,
        Err(why) => return Claim::unpinned(why),
    };
    let mut claim = Claim::default();
    for &cpu in candidates {
        if claim.cpus.len() >= most {
            break;
        }
        if let Some(lock) = lock_cpu(&folder, cpu) {
            claim.cpus.push(cpu);
            claim._locks.push(lock);
        }
    }
    if claim.cpus.len() < fewest {
        let free = match claim.cpus.as_slice() {
            [] => "none is free".to_string(),
            [cpu] => format!("only {cpu} is free"),
            cpus => format!("only {} are free", list(cpus)),
        };
        return Claim::unpinned(format!(
            "other koth processes hold CPUs it may use ({}): {free}{}",
            list(candidates),
            if fewest > 1 {
                format!(", and it needs {fewest}")
            } else {
                String::new()
            }
        ));
    }
    claim.cpus.sort_unstable();
    claim
}

/// The CPU a command was told to keep to (`--cpu`), claimed; when another koth holds it the
/// command runs unpinned and says so.
pub fn claim_given(cpu: Option<usize>) -> Claim {
    let Some(cpu) = cpu else {
        return Claim::default();
    };
    let claim = claim(&[cpu], 1, 1);
    if claim.cpus().is_empty() {
        eprintln!("koth: --cpu {cpu}: the game runs {}", claim.describe());
    }
    claim
}

/// `0, 1, 3`: CPU numbers as koth's messages list them.
pub fn list(cpus: &[usize]) -> String {
    let cpus: Vec<String> = cpus.iter().map(usize::to_string).collect();
    cpus.join(", ")
}

/// The folder of the CPU locks: `$XDG_RUNTIME_DIR/koth` (the login session's folder of the
/// user's own), else `koth-<uid>` in the system's temp folder.
pub fn lock_folder() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir.join("koth"),
        _ => std::env::temp_dir().join(format!("koth-{}", geteuid())),
    }
}

/// Opens the folder of the CPU locks at `path`, made with mode 0700 when missing. It is refused
/// unless it is a folder (not a symbolic link someone planted in a shared `/tmp`, which is not
/// followed) that belongs to this user and is closed to everyone else: whoever can write it
/// could hold every CPU, or swap a lock file for a link to another file of the user's.
pub fn open_lock_folder(path: &Path) -> Result<OwnedFd, String> {
    let uid = geteuid();
    let refuse = |why: String| format!("cannot use koth's lock folder {}: {why}", path.display());
    match nix::unistd::mkdir(path, Mode::S_IRWXU) {
        Ok(()) | Err(Errno::EEXIST) => {}
        Err(e) => return Err(refuse(e.desc().into())),
    }
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let folder = open(path, flags, Mode::empty()).map_err(|e| {
        refuse(match e {
            Errno::ELOOP | Errno::ENOTDIR => "it is not a folder but a link or a file".into(),
            e => e.desc().into(),
        })
    })?;
    let stat = fstat(&folder).map_err(|e| refuse(e.desc().into()))?;
    if stat.st_uid != uid.as_raw() {
        return Err(refuse(format!("it belongs to user {}", stat.st_uid)));
    }
    if stat.st_mode & 0o077 != 0 {
        return Err(refuse(format!(
            "others may use it (mode {:o})",
            stat.st_mode & 0o777
        )));
    }
    Ok(folder)
}

/// CPU `cpu`'s lock in `folder`, if no other koth holds it. Opened close-on-exec: a bot started
/// by koth must not inherit the lock and keep the CPU claimed after koth has ended.
fn lock_cpu(folder: &OwnedFd, cpu: usize) -> Option<Flock<File>> {
    let flags = OFlag::O_RDWR | OFlag::O_CREAT | OFlag::O_CLOEXEC | OFlag::O_NOFOLLOW;
    let name = format!("cpu-{cpu}.lock");
    let file = openat(folder, name.as_str(), flags, Mode::S_IRUSR | Mode::S_IWUSR).ok()?;
    Flock::lock(File::from(file), FlockArg::LockExclusiveNonblock).ok()
}

/// Keeps the calling thread on `cpus` (nothing changes for an empty list). Processes it starts
/// from now on inherit the placement.
pub fn pin_current_thread(cpus: &[usize]) {
    let mut set = CpuSet::new();
    for &cpu in cpus {
        if set.set(cpu).is_err() {
            return;
        }
    }
    if !cpus.is_empty() {
        let _ = sched_setaffinity(Pid::from_raw(0), &set);
    }
}

/// Runs `match_body` on a thread of its own, kept to `cpus` (anywhere, if empty), and awaits
/// its result. For a match that blocks its thread for its whole length (a rat-race engine) or
/// drives its bots from a runtime of its own (a paths game): the placement must not fall on a
/// thread of the caller's runtime, which other matches share.
pub async fn run_placed<T: Send + 'static>(
    cpus: Vec<usize>,
    match_body: impl FnOnce() -> anyhow::Result<T> + Send + 'static,
) -> anyhow::Result<T> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        pin_current_thread(&cpus);
        let _ = sender.send(match_body());
    });
    match receiver.await {
        Ok(result) => result,
        // The sender is dropped without a send only when the body panicked.
        Err(_) => anyhow::bail!("the match thread panicked"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_lock_folder_is_made_private_and_a_planted_one_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let made = tmp.path().join("koth");
        open_lock_folder(&made).unwrap();
        let mode = std::fs::metadata(&made).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);

        let open = tmp.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let refused = open_lock_folder(&open).unwrap_err();
        assert!(
            refused.contains("others may use it (mode 777)"),
            "{refused}"
        );

        // A link to a folder of the user's own is still not followed.
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&made, &link).unwrap();
        let refused = open_lock_folder(&link).unwrap_err();
        assert!(refused.contains("not a folder but a link"), "{refused}");
    }
}
