//! A control group per contained bot, where the machine lets koth make one: it caps the bot's
//! memory and processes as a whole (all its processes together, unlike rlimits), it says
//! afterwards whether a cap was hit, so a fault can name it ("memory limit 2048 MiB"), it counts
//! the CPU time of all the bot's processes (the CPU clock and the starvation rule charge a bot's
//! children to it), and it can freeze the bot while it is not asked anything.
//!
//! koth makes its groups under its own group of each controller (cgroup v1's `memory`, `pids`
//! and `cpuacct` hierarchies, or cgroup v2's unified one where koth's group delegates the
//! controller; the freezer only from v2, which also serves a v1 machine that mounts it beside),
//! in a folder `koth/`. Where it may not — no cgroup file system, no rights — containment keeps
//! to rlimits alone.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// One controller's place for koth's groups, and the names of its files there.
#[derive(Debug)]
struct Hierarchy {
    /// `<koth's own group>/koth`.
    root: PathBuf,
    /// The file that sets the cap: `memory.limit_in_bytes` (v1), `memory.max`, `pids.max`.
    max: &'static str,
    /// The file that counts what the cap stopped, and the key of that count in it.
    events: (&'static str, &'static str),
}

/// A controller koth reads or switches but does not cap with: the CPU time a bot's processes
/// used, the freezer.
#[derive(Debug)]
struct Watch {
    /// `<koth's own group>/koth`.
    root: PathBuf,
    /// `cpuacct.usage` (v1, ns), `cpu.stat` (v2, `usage_usec`), `cgroup.freeze` (v2).
    file: &'static str,
}

#[derive(Debug, Default)]
struct Hierarchies {
    memory: Option<Hierarchy>,
    pids: Option<Hierarchy>,
    cpu: Option<Watch>,
    /// The CPU share of a group against its siblings: v1's `cpu.shares`, v2's `cpu.weight`.
    weight: Option<Watch>,
    /// Only cgroup v2's freezer: v1's takes half a millisecond to freeze, and a process frozen
    /// by it cannot die of `SIGKILL`, which must end a bot at any moment.
    freezer: Option<Watch>,
}

/// Found once per koth process.
fn hierarchies() -> &'static Hierarchies {
    static FOUND: OnceLock<Hierarchies> = OnceLock::new();
    FOUND.get_or_init(|| {
        let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
        let memory = [
            (
                "memory",
                "memory.limit_in_bytes",
                ("memory.oom_control", "oom_kill"),
            ),
            ("", "memory.max", ("memory.events", "oom_kill")),
        ];
        let pids = [
            ("pids", "pids.max", ("pids.events", "max")),
            ("", "pids.max", ("pids.events", "max")),
        ];
        // The place for koth's groups of `controller` where a child group has `file`.
        let usable_root = |controller: &str, file: &str| {
            let root = own_group(&own, &mounts, controller)?.join("koth");
            std::fs::create_dir_all(&root).ok()?;
            // v2 shows a controller's files in a child only where the parent delegates it.
            let probe = root.join(format!("probe-{}", std::process::id()));
            std::fs::create_dir(&probe).ok()?;
            let usable = probe.join(file).is_file();
            let _ = std::fs::remove_dir(&probe);
            end_stale_in(&root);
            usable.then_some(root)
        };
        let find = |choices: &[(&str, &'static str, (&'static str, &'static str))]| {
            choices.iter().find_map(|&(controller, max, events)| {
                let root = usable_root(controller, max)?;
                Some(Hierarchy { root, max, events })
            })
        };
        let watch = |choices: &[(&str, &'static str)]| {
            choices.iter().find_map(|&(controller, file)| {
                let root = usable_root(controller, file)?;
                Some(Watch { root, file })
            })
        };
        Hierarchies {
            memory: find(&memory),
            pids: find(&pids),
            cpu: watch(&[("cpuacct", "cpuacct.usage"), ("", "cpu.stat")]),
            weight: watch(&[("cpu", "cpu.shares"), ("", "cpu.weight")]),
            freezer: watch(&[("", "cgroup.freeze")]),
        }
    })
}

/// Ends the groups of koths that are gone (killed with `kill -9`, which runs no clean-up),
/// `bot-<pid>-<n>` where no process `pid` is alive: the processes still in one (a bot whose
/// sandbox did not die with koth) are killed, then the group is removed.
fn end_stale_in(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix("bot-"))
            .and_then(|n| n.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok());
        if pid.is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
            end_group(&entry.path());
        }
    }
}

/// Kills every process in the group `dir` (cgroup v2's `cgroup.kill`, else each process it
/// lists, again until it lists none) and removes it; gives up after a few seconds, leaving the
/// group to the next koth.
fn end_group(dir: &Path) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let killed_whole = std::fs::write(dir.join("cgroup.kill"), "1").is_ok();
    while std::fs::remove_dir(dir).is_err() && dir.exists() {
        if std::time::Instant::now() > deadline {
            tracing::warn!(group = %dir.display(), "a killed koth's control group would not end");
            return;
        }
        if !killed_whole {
            let procs = std::fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
            for pid in procs.lines().filter_map(|p| p.trim().parse().ok()) {
                let pid = nix::unistd::Pid::from_raw(pid);
                let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// Ends the groups that koths killed with `kill -9` left in the hierarchies this koth uses
/// (done once per koth process, when it first looks for its own).
pub(crate) fn end_stale() {
    hierarchies();
}

/// koth's own group in the hierarchy of `controller` (`""`: cgroup v2's unified one), as a
/// folder of the mounted cgroup file system.
fn own_group(own: &str, mounts: &str, controller: &str) -> Option<PathBuf> {
    let path = own.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let matches = if controller.is_empty() {
            controllers.is_empty()
        } else {
            controllers.split(',').any(|c| c == controller)
        };
        matches.then_some(path)
    })?;
    let mount = mounts.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        let mut right = right.split(' ');
        let (fstype, _, options) = (right.next()?, right.next()?, right.next()?);
        let point = left.split(' ').nth(4)?;
        let matches = if controller.is_empty() {
            fstype == "cgroup2"
        } else {
            fstype == "cgroup" && options.split(',').any(|o| o == controller)
        };
        matches.then_some(point)
    })?;
    Some(Path::new(mount).join(path.trim_start_matches('/')))
}

/// The groups of one contained bot process, removed when dropped.
pub struct BotGroups {
    groups: Vec<(PathBuf, &'static Hierarchy)>,
    /// The groups of the controllers koth only watches (CPU time, freezer) that are not also
    /// one of `groups`.
    watched: Vec<PathBuf>,
    /// `cgroup.procs` of each group, open for writing the bot's processes into.
    procs: Vec<std::fs::File>,
    /// The CPU time all the bot's processes used, open for reading, and whether it is v2's
    /// `cpu.stat` (µs) rather than v1's `cpuacct.usage` (ns).
    cpu: Option<(std::fs::File, bool)>,
    /// `cgroup.freeze`, open for writing.
    freezer: Option<std::fs::File>,
    memory_mb: u64,
    processes: u64,
    /// The groups' name, `bot-<koth's pid>-<n>`.
    name: String,
}

/// A build's share of the CPU against a bot's, where both want it: a tenth (v1's default
/// `cpu.shares` is 1024, v2's `cpu.weight` 100), so the games keep their pace while strangers'
/// builds and compiles run, which still take every CPU left idle.
const BUILD_CPU_SHARE: (&str, &str) = ("102", "10");

impl BotGroups {
    /// Groups capping memory at `memory_mb` and processes at `processes`, in the hierarchies
    /// koth may use; `None` if it may use none.
    pub fn create(memory_mb: u64, processes: u64) -> Option<BotGroups> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let found = hierarchies();
        let name = format!(
            "bot-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut groups = BotGroups {
            groups: Vec::new(),
            watched: Vec::new(),
            procs: Vec::new(),
            cpu: None,
            freezer: None,
            memory_mb,
            processes,
            name: name.clone(),
        };
        for (hierarchy, cap) in [
            (&found.memory, (memory_mb << 20).to_string()),
            (&found.pids, processes.to_string()),
        ] {
            let Some(hierarchy) = hierarchy else { continue };
            let dir = hierarchy.root.join(&name);
            if std::fs::create_dir(&dir).is_err() {
                continue;
            }
            groups.groups.push((dir.clone(), hierarchy));
            let procs = std::fs::OpenOptions::new()
                .write(true)
                .open(dir.join("cgroup.procs"));
            let capped = std::fs::write(dir.join(hierarchy.max), &cap).and_then(|()| {
                // Where the machine swaps, memory past the cap would go to swap rather than end
                // the bot: its swap is capped too (v1: memory and swap together at the same
                // cap; v2: no swap). Absent files: no swap accounting, nothing to cap.
                match hierarchy.max {
                    "memory.limit_in_bytes" => {
                        write_if_present(&dir, "memory.memsw.limit_in_bytes", &cap)
                    }
                    "memory.max" => write_if_present(&dir, "memory.swap.max", "0"),
                    _ => Ok(()),
                }
            });
            match (capped, procs) {
                (Ok(()), Ok(procs)) => groups.procs.push(procs),
                // A group without its cap is no use: give it up.
                _ => drop(groups.groups.pop().map(|(dir, _)| std::fs::remove_dir(dir))),
            }
        }
        if groups.groups.is_empty() {
            return None;
        }
        for (watch, write) in [(&found.cpu, false), (&found.freezer, true)] {
            let Some(watch) = watch else { continue };
            let Some(dir) = groups.dir_in(&watch.root, &name) else {
                continue;
            };
            let file = std::fs::OpenOptions::new()
                .read(!write)
                .write(write)
                .open(dir.join(watch.file));
            match (file, write) {
                (Ok(file), false) => groups.cpu = Some((file, watch.file == "cpu.stat")),
                (Ok(file), true) => groups.freezer = Some(file),
                (Err(_), _) => {}
            }
        }
        Some(groups)
    }

    /// Gives the groups' processes a small share of the CPU ([`BUILD_CPU_SHARE`]) where the
    /// machine lets koth weigh its groups: for builds, not bots, whose time limits are theirs.
    pub(crate) fn yield_cpu(&mut self) {
        let Some(weight) = &hierarchies().weight else {
            return;
        };
        let name = self.name.clone();
        let Some(dir) = self.dir_in(&weight.root, &name) else {
            return;
        };
        let (share, shared) = match weight.file {
            // v1: bots stay in koth's own group of the `cpu` hierarchy and only builds join
            // groups under `koth/`, which as a whole weighs as one task beside them: `koth/`
            // itself is weighed down, so all builds together get a tenth of a bot's share.
            "cpu.shares" => (BUILD_CPU_SHARE.0, Some(weight.root.join(weight.file))),
            // v2: each bot has a group of its own under `koth/`, beside the builds'.
            _ => (BUILD_CPU_SHARE.1, None),
        };
        let written = std::fs::write(dir.join(weight.file), share)
            .and_then(|()| shared.map_or(Ok(()), |file| std::fs::write(file, share)));
        if let Err(err) = written {
            tracing::warn!("cannot lower a build's CPU share: {err}");
        }
    }

    /// The bot's group `name` under `root`: one of its groups already (v2's one hierarchy), or
    /// made now, with the bot to join it.
    fn dir_in(&mut self, root: &Path, name: &str) -> Option<PathBuf> {
        let dir = root.join(name);
        let known = self.groups.iter().map(|(d, _)| d).chain(&self.watched);
        if known.into_iter().any(|d| *d == dir) {
            return Some(dir);
        }
        std::fs::create_dir(&dir).ok()?;
        let procs = std::fs::OpenOptions::new()
            .write(true)
            .open(dir.join("cgroup.procs"));
        self.watched.push(dir.clone());
        self.procs.push(procs.ok()?);
        Some(dir)
    }

    /// The CPU time all the bot's processes have used (its children too, and theirs), where
    /// the machine keeps it per group.
    pub(crate) fn cpu_usage(&self) -> Option<std::time::Duration> {
        use std::os::unix::fs::FileExt;
        let (file, stat) = self.cpu.as_ref()?;
        let mut text = [0u8; 512];
        let n = file.read_at(&mut text, 0).ok()?;
        let text = std::str::from_utf8(&text[..n]).ok()?;
        if *stat {
            let usec = text.lines().find_map(|l| l.strip_prefix("usage_usec "))?;
            Some(std::time::Duration::from_micros(usec.trim().parse().ok()?))
        } else {
            Some(std::time::Duration::from_nanos(text.trim().parse().ok()?))
        }
    }

    /// Whether the bot's processes can be frozen.
    pub fn can_freeze(&self) -> bool {
        self.freezer.is_some()
    }

    /// Freezes (`true`) or thaws the bot's processes, where the machine can; a bot that cannot
    /// be frozen keeps running.
    pub(crate) fn freeze(&self, frozen: bool) {
        if let Some(file) = &self.freezer {
            let _ = (&*file).write_all(if frozen { b"1" } else { b"0" });
        }
    }

    /// Whether the groups cap memory (else an rlimit must).
    pub fn caps_memory(&self) -> bool {
        self.has(|h| h.max.starts_with("memory"))
    }

    /// Whether the groups cap processes (else an rlimit must).
    pub(crate) fn caps_processes(&self) -> bool {
        self.has(|h| h.max.starts_with("pids"))
    }

    fn has(&self, kind: impl Fn(&Hierarchy) -> bool) -> bool {
        self.groups.iter().any(|(_, h)| kind(h))
    }

    /// Moves the process `pid` into every group.
    pub(crate) fn join(&self, pid: i32) -> std::io::Result<()> {
        for procs in &self.procs {
            (&*procs).write_all(pid.to_string().as_bytes())?;
        }
        Ok(())
    }

    /// The caps the bot hit, named as a person reads them.
    pub(crate) fn caps_hit(&self) -> Option<String> {
        let hit: Vec<String> = self
            .groups
            .iter()
            .filter(|(dir, h)| event_count(&dir.join(h.events.0), h.events.1) > 0)
            .map(|(_, h)| {
                if h.max.starts_with("memory") {
                    format!("memory limit {} MiB", self.memory_mb)
                } else {
                    format!("process limit {}", self.processes)
                }
            })
            .collect();
        (!hit.is_empty()).then(|| hit.join(", "))
    }
}

/// Writes `value` to the control file `name` of the group `dir`, if the kernel has that file.
fn write_if_present(dir: &Path, name: &str, value: &str) -> std::io::Result<()> {
    let file = dir.join(name);
    if file.exists() {
        std::fs::write(file, value)
    } else {
        Ok(())
    }
}

/// The count `key` in a cgroup events file (`oom_kill 1`).
fn event_count(file: &Path, key: &str) -> u64 {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .find_map(|line| {
            let (name, count) = line.split_once(' ')?;
            (name == key).then(|| count.trim().parse().ok())?
        })
        .unwrap_or(0)
}

impl Drop for BotGroups {
    fn drop(&mut self) {
        self.procs.clear();
        self.freezer = None;
        let mut dirs: Vec<PathBuf> = self.groups.drain(..).map(|(dir, _)| dir).collect();
        dirs.append(&mut self.watched);
        remover().send(dirs).ok();
    }
}

/// Removes groups off the caller's thread: a group can be removed only once its last process
/// is gone, which the kernel may take some milliseconds to finish after the bot's exit, and a
/// game's thread must not wait for that.
fn remover() -> std::sync::mpsc::Sender<Vec<PathBuf>> {
    static REMOVER: OnceLock<std::sync::Mutex<std::sync::mpsc::Sender<Vec<PathBuf>>>> =
        OnceLock::new();
    let sender = REMOVER.get_or_init(|| {
        let (sender, receiver) = std::sync::mpsc::channel::<Vec<PathBuf>>();
        std::thread::spawn(move || {
            for dirs in receiver {
                for dir in dirs {
                    for _ in 0..500 {
                        if std::fs::remove_dir(&dir).is_ok() || !dir.exists() {
                            break;
                        }
                        std::thread::sleep(std::time::Duration::from_millis(2));
                    }
                }
            }
        });
        std::sync::Mutex::new(sender)
    });
    sender.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn koths_group_is_found_in_the_mounted_hierarchy() {
        let own = "9:name=systemd:/\n8:pids:/\n4:memory:/jobs/42\n0::/user.slice\n";
        let mounts = "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n\
                      39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n\
                      30 25 0:26 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n";
        assert_eq!(
            own_group(own, mounts, "memory"),
            Some(PathBuf::from("/sys/fs/cgroup/memory/jobs/42"))
        );
        assert_eq!(
            own_group(own, mounts, "pids"),
            Some(PathBuf::from("/sys/fs/cgroup/pids"))
        );
        assert_eq!(
            own_group(own, mounts, ""),
            Some(PathBuf::from("/sys/fs/cgroup/unified/user.slice"))
        );
        assert_eq!(own_group(own, mounts, "cpu"), None);
    }

    #[test]
    fn the_group_of_a_koth_that_is_gone_is_ended_with_its_processes() {
        let found = hierarchies();
        let Some(root) = [&found.pids, &found.memory]
            .into_iter()
            .find_map(|h| h.as_ref().map(|h| &h.root))
        else {
            return; // No control groups here.
        };
        // No process has an id above the kernel's largest.
        let stale = root.join(format!("bot-{}-0", u32::MAX));
        std::fs::create_dir(&stale).unwrap();
        let mut left = std::process::Command::new("sleep")
            .arg("60")
            .spawn()
            .unwrap();
        std::fs::write(stale.join("cgroup.procs"), left.id().to_string()).unwrap();
        end_stale_in(root);
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(left.wait().unwrap().signal(), Some(nix::libc::SIGKILL));
        assert!(!stale.exists());
    }

    #[test]
    fn an_events_count_is_read_by_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("memory.events");
        let mut text = std::fs::File::create(&file).unwrap();
        write!(text, "low 0\nhigh 0\nmax 3\noom 1\noom_kill 2\n").unwrap();
        assert_eq!(event_count(&file, "oom_kill"), 2);
        assert_eq!(event_count(&file, "max"), 3);
        assert_eq!(event_count(&file, "absent"), 0);
    }
}
