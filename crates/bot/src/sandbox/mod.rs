//! Containment: a bot process that can harm nothing but its own working folder.
//!
//! A contained bot runs under Debian's `bubblewrap` (`bwrap`), which builds it a world of its
//! own from Linux namespaces, plus resource limits set in the child before `bwrap` starts:
//! - **Files.** An empty root with the system's folders (`/usr`, `/etc`, `/opt`, and the `/bin`,
//!   `/lib` links) bound read-only; the installs on koth's `PATH` that hold a program the bot's
//!   command or its script's `#!` line names (a pyenv in a home folder: only that install, never
//!   the home folder), chosen by name so that nothing of the bot's can name a folder; its working
//!   folder, a `tmpfs` capped in size holding its working copy's files read-write and, lent
//!   read-only under their names, the larger files and subfolders of the folder the copy was
//!   made from (never that folder itself); a learning bot's `data/`, its own game's copy of
//!   its data, bound read-write ([`super::data`]); a private `/tmp`; a fresh `/proc`, and a read-only
//!   `/dev` with a capped `/dev/shm`. Nothing else exists for it: not the other bots' folders,
//!   not its original folder, not the tournament's database or logs. koth never follows a link
//!   of the bot's out of its folders.
//! - **Network.** A network namespace of its own with nothing in it, loopback included.
//! - **Processes.** A PID namespace of its own, in which the bot is process 1: it sees and can
//!   signal only what it started, and when it ends the kernel kills everything left in the
//!   namespace, a double-forked `setsid` daemon included. `--die-with-parent` and a parent-death
//!   signal on `bwrap` itself end the bot if koth is killed with `kill -9`.
//! - **Privileges.** No capabilities; when koth runs as root, `bwrap` is started as a user of
//!   the bot's own ([`BotUid`]), so the bot is an unprivileged user no other bot is, outside its
//!   namespace too, and the machine's root-only files (`/etc/shadow`) stay closed to it even
//!   where they are visible. A system-call filter ([`super::seccomp`]) denies what no bot needs,
//!   and no descriptor koth inherited reaches it ([`super::child`]).
//! - **Limits.** Memory and processes are capped by control groups of the bot's own where the
//!   machine lets koth make them ([`super::cgroup`]: all the bot's processes together, and the
//!   fault can name the cap hit); elsewhere by rlimits, per process: `RLIMIT_DATA` (it counts
//!   what a process allocates but not the address space a JVM merely reserves, which
//!   `RLIMIT_AS` would) and `RLIMIT_NPROC`. File size (`RLIMIT_FSIZE`, also the size of the
//!   private `/tmp`) and open files (`RLIMIT_NOFILE`) are always rlimits, set in the child
//!   before `exec`.
//!
//! `bwrap` is a well-trusted tool (Flatpak's sandbox); koth only chooses its arguments.

use std::ffi::{CString, OsString};
use std::io::Write;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use nix::sys::signal::Signal;
use nix::unistd::Pid;

use anyhow::{Context, bail};

use super::cgroup::BotGroups;
use super::data::{DATA_FOLDER, Volume};
use super::roster;
use super::seccomp;
use super::spec::{BotSpec, Sandbox};
use super::uid::BotUid;

mod mounts;
mod owner;
mod probe;
mod programs;

use mounts::ReachStep;
pub use probe::check_available;
use programs::interpreter_folders;
pub(crate) use programs::{shebang_names, shell_line_programs, started_programs};

/// The user a contained bot is inside its namespace: Debian's `nobody`. Outside it, the bot is
/// a user of its own when koth is root ([`BotUid`]), else koth's own user.
pub(crate) const SANDBOX_UID: u32 = 65534;

/// The folders of the system bound read-only into every contained bot's world. Links among
/// them (`/bin` → `usr/bin` on a merged-`/usr` system) are recreated as links.
const SYSTEM_FOLDERS: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
];

/// The bots of one game, contained by `sandbox` if given: each in a working copy of its folder
/// under `game_dir/bots/<seat>/<folder>/` ([`roster::working_copies`]), which is all it may write, with
/// its own folder readable for what the copy links to. Fails if this machine cannot contain.
pub fn contain(
    bots: &[BotSpec],
    sandbox: Option<&Sandbox>,
    game_dir: &Path,
) -> anyhow::Result<Vec<BotSpec>> {
    let Some(sandbox) = sandbox else {
        return Ok(bots.to_vec());
    };
    check_available()?;
    let copies = roster::working_copies(bots, game_dir).with_context(|| {
        format!(
            "cannot prepare the bots' working folders in {}",
            game_dir.display()
        )
    })?;
    bots.iter()
        .zip(copies)
        .map(|(bot, copy)| {
            let original = std::path::absolute(&bot.dir)
                .with_context(|| format!("{bot}: no folder {}", bot.dir.display()))?;
            Ok(BotSpec {
                sandbox: Some(Sandbox {
                    lent_from: Some(original),
                    ..sandbox.clone()
                }),
                ..copy
            })
        })
        .collect()
}

/// The rlimit of its sandbox that ended a contained bot's process, if one did: the file size
/// cap, when a process of the bot was killed by `SIGXFSZ` (the bot itself, process 1 of its
/// namespace, is not: it gets `EFBIG`), left a file of the cap's size in its working folder
/// `dir`, or said "File too large" last (`EFBIG`'s text) before it exited.
pub(crate) fn limit_hit(
    sandbox: &Sandbox,
    dir: &Path,
    status: &std::process::ExitStatus,
    said_file_too_large: bool,
) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    // bwrap reports a command killed by signal S as exit code 128 + S.
    let signal = status
        .signal()
        .or_else(|| status.code().filter(|&c| c > 128).map(|c| c - 128));
    let cap = sandbox.file_mb << 20;
    let full_file = || {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.metadata().is_ok_and(|m| m.is_file() && m.len() >= cap))
        })
    };
    let said = || !status.success() && said_file_too_large;
    (signal == Some(nix::libc::SIGXFSZ) || full_file() || said())
        .then(|| format!("file size limit {} MiB", sandbox.file_mb))
}

/// How one contained process is started: the `bwrap` command line, and what the child does
/// before it becomes `bwrap`.
pub(crate) struct Launch {
    args: Vec<OsString>,
    /// `bwrap`'s ends of its pipes: the info pipe's write end and, when the bot has control
    /// groups, the read end of the pipe it waits on before it starts the bot. Close-on-exec,
    /// made inheritable in the child only, so that no other process koth starts meanwhile
    /// inherits them.
    inherited: Vec<OwnedFd>,
    /// The read end of the info pipe, on which `bwrap` reports the bot's process id.
    info: OwnedFd,
    /// The write end of the pipe `bwrap` waits on (`--block-fd`), when the bot has control
    /// groups: written once `bwrap` and the bot are in them.
    release: Option<OwnedFd>,
    limits: Vec<(nix::sys::resource::Resource, u64)>,
    /// The bot's control groups, where the machine has them: they cap memory and processes
    /// in place of the rlimits, and tell afterwards which cap was hit.
    groups: Option<BotGroups>,
    /// The user of its own the bot runs as when koth is root ([`BotUid`]), held until the bot
    /// has ended; `None` when koth is not root and the bot is koth's own user outside its
    /// namespace.
    uid: Option<BotUid>,
    /// Mounts made in the child, as root in a mount namespace of its own, before it becomes
    /// the bot's user: they let that user reach a bound folder behind a folder it may not
    /// enter.
    reach: Vec<ReachStep>,
    /// A learning bot's data volume ([`super::data::Volume`]) and the path of its `data/`:
    /// a copy of the volume's mount is put there in the child's own mount namespace, where
    /// `bwrap` binds it into the bot's world.
    data: Option<(Arc<Volume>, CString)>,
}

/// What a contained program may write besides its `/tmp`.
#[derive(Clone, Copy)]
enum Writable<'a> {
    /// A bot: its working folder, capped in memory, with its working copy's files in it.
    WorkingFolder,
    /// A build: its build copy, whole, on disk.
    BuildFolder,
    /// koth's compiler of a WASI module (this file, lent read-only): its folder, whole.
    Compile(&'a Path),
}

impl Launch {
    /// The launch of `spec`'s command contained by `sandbox`, with control groups of its own
    /// where the machine allows.
    pub(crate) fn new(spec: &BotSpec, sandbox: &Sandbox) -> anyhow::Result<Launch> {
        let groups = BotGroups::create(sandbox.memory_mb, sandbox.processes);
        Launch::with_groups(spec, sandbox, groups, Writable::WorkingFolder)
    }

    /// The launch of a build step, `spec`'s command run in its build copy `spec.dir`, contained
    /// like a bot by `sandbox` but for its folder: the build's whole folder is writable, since
    /// what it makes there is what the bot then runs.
    pub(crate) fn build(spec: &BotSpec, sandbox: &Sandbox) -> anyhow::Result<Launch> {
        let mut groups = BotGroups::create(sandbox.memory_mb, sandbox.processes);
        if let Some(groups) = groups.as_mut() {
            groups.yield_cpu();
        }
        Launch::with_groups(spec, sandbox, groups, Writable::BuildFolder)
    }

    /// The launch of koth's own compiler of a stranger's WASI module (`koth compile-wasm`, the
    /// file `compiler`, lent read-only), contained like a build in its folder `spec.dir`.
    pub(crate) fn compile(
        spec: &BotSpec,
        sandbox: &Sandbox,
        compiler: &Path,
    ) -> anyhow::Result<Launch> {
        let mut groups = BotGroups::create(sandbox.memory_mb, sandbox.processes);
        if let Some(groups) = groups.as_mut() {
            groups.yield_cpu();
        }
        Launch::with_groups(spec, sandbox, groups, Writable::Compile(compiler))
    }

    fn with_groups(
        spec: &BotSpec,
        sandbox: &Sandbox,
        groups: Option<BotGroups>,
        writable: Writable,
    ) -> anyhow::Result<Launch> {
        // Checked here because bwrap, once started, could only report the failed exec as an
        // exit: a program that cannot run is a failure to start, contained or not.
        let program = spec.program();
        match roster::find_program(&program) {
            Some(path) if is_executable(&path) => {}
            Some(path) => bail!("{} is not an executable file", path.display()),
            None => bail!("{} was not found", program.display()),
        }
        let (info, info_writer) = bwrap_pipe()?;
        let uid = if nix::unistd::geteuid().is_root() {
            Some(BotUid::lease().map_err(anyhow::Error::msg)?)
        } else {
            None
        };
        let mut launch = Launch {
            args: Vec::new(),
            inherited: Vec::new(),
            info,
            release: None,
            limits: Vec::new(),
            groups,
            uid,
            reach: Vec::new(),
            data: None,
        };
        let dir = std::path::absolute(&spec.dir)
            .with_context(|| format!("{spec}: no folder {}", spec.dir.display()))?;
        launch.set_limits(sandbox);
        launch.isolate(info_writer)?;
        let folder_bytes = launch.system(spec, &dir, sandbox)?;
        launch.writable(spec, &dir, sandbox, writable, folder_bytes)?;
        // The root itself (the folders made on the way to the binds) is read-only: nothing of
        // the bot's can be written outside its folder and /tmp, each of them capped.
        launch.args(["--remount-ro", "/"]);
        launch.arg("--chdir");
        launch.arg(&dir);
        // A bot's environment is the fixed list every bot gets (`super::env`): koth's may hold
        // secrets (tokens, database addresses).
        launch.arg("--clearenv");
        for (key, value) in super::env::bot_environment() {
            launch.arg("--setenv");
            launch.arg(key);
            launch.arg(value);
        }
        launch.arg("--");
        launch.arg(program);
        launch.args(&spec.command[1..]);
        Ok(launch)
    }

    /// The rlimits set in the child: file size, open files and CPU time always; memory and
    /// processes only where no control group caps them.
    fn set_limits(&mut self, sandbox: &Sandbox) {
        use nix::sys::resource::Resource;
        self.limits = vec![
            (Resource::RLIMIT_FSIZE, sandbox.file_mb << 20),
            (Resource::RLIMIT_NOFILE, sandbox.open_files),
        ];
        if let Some(seconds) = sandbox.cpu_seconds {
            self.limits.push((Resource::RLIMIT_CPU, seconds));
        }
        let groups = self.groups.as_ref();
        if !groups.is_some_and(BotGroups::caps_memory) {
            self.limits
                .push((Resource::RLIMIT_DATA, sandbox.memory_mb << 20));
        }
        if !groups.is_some_and(BotGroups::caps_processes) {
            self.limits
                .push((Resource::RLIMIT_NPROC, sandbox.processes));
        }
    }

    /// `bwrap`'s namespaces, dropped capabilities and descriptors: the info pipe whose write
    /// end is `info_writer`, the system-call filter, and the pipe it waits on when the bot
    /// has control groups.
    fn isolate(&mut self, info_writer: OwnedFd) -> anyhow::Result<()> {
        self.args(["--unshare-all", "--unshare-user", "--disable-userns"]);
        self.arg("--die-with-parent");
        self.arg("--new-session");
        self.arg("--as-pid-1");
        self.args(["--cap-drop", "ALL"]);
        self.arg("--info-fd");
        self.arg(info_writer.as_raw_fd().to_string());
        self.inherited.push(info_writer);
        // The system-call filter, read by bwrap from a pipe that holds the whole program.
        let filter = seccomp::program().map_err(anyhow::Error::msg)?;
        let (filter_reader, filter_writer) = bwrap_pipe()?;
        std::fs::File::from(filter_writer)
            .write_all(filter)
            .context("cannot hand bwrap its system-call filter")?;
        self.arg("--seccomp");
        self.arg(filter_reader.as_raw_fd().to_string());
        self.inherited.push(filter_reader);
        // Joining control groups takes a cgroup v1 process most of a millisecond (the kernel
        // waits for an RCU grace period): not done in the child, where koth's spawn would wait
        // for it bot after bot, but by a thread of koth's while bwrap builds the sandbox, which
        // then waits before it starts the bot (see `started`).
        if self.groups.is_some() {
            let (blocked, release) = bwrap_pipe()?;
            self.arg("--block-fd");
            self.arg(blocked.as_raw_fd().to_string());
            self.inherited.push(blocked);
            self.release = Some(release);
        }
        Ok(())
    }

    /// The world around the bot's folder: its user and host name, the system's folders
    /// read-only, `/proc`, `/dev`, a capped `/dev/shm` and `/tmp`, and the installs of the
    /// programs its command names. Returns the bytes left for its working folder.
    fn system(&mut self, spec: &BotSpec, dir: &Path, sandbox: &Sandbox) -> anyhow::Result<u64> {
        let id = SANDBOX_UID.to_string();
        self.args(["--uid", &id, "--gid", &id, "--hostname", "koth-bot"]);
        for folder in SYSTEM_FOLDERS {
            let path = Path::new(folder);
            match std::fs::read_link(path) {
                Ok(target) => {
                    self.arg("--symlink");
                    self.arg(target);
                    self.arg(path);
                }
                Err(_) if path.is_dir() => self.bind("--ro-bind", path, path)?,
                Err(_) => {}
            }
        }
        // The bot's own memory-backed folders, each sized so that together they hold no more
        // than its memory cap: where no control group counts what a bot keeps in them, a cap
        // per file alone would let it hold gigabytes there.
        let [tmp_bytes, folder_bytes, shm_bytes] = sandbox.tmpfs_bytes();
        self.args(["--proc", "/proc", "--dev", "/dev"]);
        self.args(["--size", &shm_bytes.to_string(), "--tmpfs", "/dev/shm"]);
        self.args(["--remount-ro", "/dev"]);
        self.args(["--size", &tmp_bytes.to_string(), "--tmpfs", "/tmp"]);
        for install in interpreter_folders(spec, dir) {
            self.bind("--ro-bind", &install, &install)?;
        }
        Ok(folder_bytes)
    }

    /// What the program may write besides `/tmp` (`writable`): a bot's working folder of
    /// `folder_bytes` (with its data volume), or a build's or compiler's whole folder `dir`.
    fn writable(
        &mut self,
        spec: &BotSpec,
        dir: &Path,
        sandbox: &Sandbox,
        writable: Writable,
        folder_bytes: u64,
    ) -> anyhow::Result<()> {
        match writable {
            Writable::WorkingFolder => {
                let data = spec.data.is_some();
                if data {
                    let folder = dir.join(DATA_FOLDER);
                    if let Some(volume) = super::data::volume_of(&folder) {
                        let target = CString::new(folder.as_os_str().as_bytes())
                            .with_context(|| format!("{} has a NUL byte", folder.display()))?;
                        self.data = Some((volume, target));
                    }
                }
                self.working_folder(dir, folder_bytes, sandbox.lent_from.as_deref(), data)?
            }
            Writable::BuildFolder => self.bind("--bind", dir, dir)?,
            Writable::Compile(compiler) => {
                self.bind("--bind", dir, dir)?;
                self.bind("--ro-bind", compiler, compiler)?;
            }
        }
        Ok(())
    }

    /// The bot's folder `dir` as it sees it: a memory-backed folder of `bytes` (so what it
    /// writes there is capped in bytes and files, and gone when it ends), holding its working
    /// copy's files bound read-write (they keep what it writes across its restarts, each capped
    /// by the file size limit) and, where the working copy links into the folder it was copied
    /// from (`lent_from`: folders and large files), those entries bound read-only under their
    /// names, or made anew as links where they are links. Only the entries are lent, never the
    /// folder, and no link is followed out of it: a link of the bot's is only ever read inside
    /// its own world, where it leads nowhere else. A learning bot's (`data`) folder `data/` is
    /// bound read-write too, so that what it leaves there outlives its processes: it is its
    /// own copy for this game, which only this bot's sandbox binds, and the seat holds it to
    /// its cap between answers ([`super::data`]).
    fn working_folder(
        &mut self,
        dir: &Path,
        bytes: u64,
        lent_from: Option<&Path>,
        data: bool,
    ) -> anyhow::Result<()> {
        self.args(["--size", &bytes.to_string(), "--tmpfs"]);
        self.arg(dir);
        if let (Some(from), true) = (lent_from, self.uid.is_some()) {
            self.reach(from)?;
        }
        let entries =
            std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))?;
        for entry in entries {
            let entry = entry?;
            let (path, kind) = (entry.path(), entry.file_type()?);
            if kind.is_file() || (data && kind.is_dir() && entry.file_name() == DATA_FOLDER) {
                self.bind("--bind", &path, &path)?;
                continue;
            }
            let Some(from) = lent_from else { continue };
            let Ok(source) = std::fs::read_link(&path) else {
                continue;
            };
            if source.parent() != Some(from) {
                continue;
            }
            let kind = std::fs::symlink_metadata(&source)
                .with_context(|| format!("cannot read {}", source.display()))?
                .file_type();
            if kind.is_symlink() {
                self.arg("--symlink");
                self.arg(std::fs::read_link(&source)?);
                self.arg(&path);
            } else if kind.is_dir() || kind.is_file() {
                self.bind("--ro-bind", &source, &path)?;
            }
        }
        Ok(())
    }

    fn arg(&mut self, arg: impl Into<OsString>) {
        self.args.push(arg.into());
    }

    fn args<S: AsRef<std::ffi::OsStr>>(&mut self, args: impl IntoIterator<Item = S>) {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
    }

    /// Binds `source` at `target` inside, read-only or not (`option`).
    fn bind(&mut self, option: &str, source: &Path, target: &Path) -> anyhow::Result<()> {
        if self.uid.is_some() {
            // A file is reached through its folder: only a folder can be a cover's step.
            match source.parent() {
                Some(folder) if !source.is_dir() => self.reach(folder)?,
                _ => self.reach(source)?,
            }
        }
        self.arg(option);
        self.arg(source);
        self.arg(target);
        Ok(())
    }

    /// Finishes the start of the `bwrap` whose process (and group) is `leader`, on a blocking
    /// thread, without holding up the caller: reads the bot's process id from `bwrap`'s info
    /// pipe, and, when the bot has control groups, puts the bot (waiting before its `exec`)
    /// into them and lets it start; whatever it starts inherits them. `bwrap` itself, which
    /// only waits for the bot, stays out. A bot that cannot be put in its groups is killed
    /// before it runs any code of its own.
    pub(crate) fn started(self, leader: i32) -> Started {
        let (started, finish) = self.start_parts(leader);
        tokio::task::spawn_blocking(finish);
        started
    }

    /// [`started`](Self::started) for a caller outside koth's async runtime (a build), which
    /// waits for the handover on its own thread.
    pub(crate) fn started_here(self, leader: i32) -> Started {
        let (started, finish) = self.start_parts(leader);
        finish();
        started
    }

    fn start_parts(mut self, leader: i32) -> (Started, impl FnOnce() + Send + 'static) {
        let info = std::fs::File::from(self.info);
        let release = self.release.take().map(std::fs::File::from);
        let groups = self.groups.take().map(Arc::new);
        // Closes koth's copies of bwrap's ends: a bwrap that dies early then ends the reads.
        self.inherited.clear();
        let bot = Arc::new(OnceLock::new());
        let started = Started {
            bot: bot.clone(),
            groups: groups.clone(),
            _uid: self.uid.take(),
        };
        let finish = move || {
            let pid = bot_pid(info);
            if let Some(pid) = pid {
                let _ = bot.set(pid);
            }
            let (Some(groups), Some(mut release)) = (groups, release) else {
                return;
            };
            let joined = pid.is_some_and(|pid| groups.join(pid).is_ok());
            if joined && release.write_all(b"1").is_ok() {
                return;
            }
            tracing::warn!(leader, "a contained bot could not join its control groups");
            if let Some(pid) = pid {
                let _ = nix::sys::signal::kill(Pid::from_raw(pid), Signal::SIGKILL);
            }
            let _ = nix::sys::signal::killpg(Pid::from_raw(leader), Signal::SIGKILL);
        };
        (started, finish)
    }

    /// The `bwrap` command, with the limits, the descriptors and the change of user done in the
    /// child just before `bwrap` starts.
    pub(crate) fn command(&self) -> tokio::process::Command {
        let mut command = tokio::process::Command::new("bwrap");
        command.args(&self.args);
        self.prepare_child(command.as_std_mut());
        command
    }

    pub(crate) fn std_command(&self) -> std::process::Command {
        let mut command = std::process::Command::new("bwrap");
        command.args(&self.args);
        self.prepare_child(&mut command);
        command
    }

    fn prepare_child(&self, command: &mut std::process::Command) {
        use std::os::unix::process::CommandExt;
        let inherited: Vec<i32> = self.inherited.iter().map(AsRawFd::as_raw_fd).collect();
        let limits = self.limits.clone();
        let uid = self.uid.as_ref().map(BotUid::uid);
        // The closure owns copies of the C strings, and room for the mounts it detaches: it
        // runs in the child, after fork, where nothing may allocate.
        let reach: Vec<ReachStep> = self.reach.clone();
        let mut trees = vec![-1; reach.len()];
        let data = self
            .data
            .as_ref()
            .map(|(volume, target)| (volume.mount().as_raw_fd(), target.clone()));
        let parent = std::process::id() as i32;
        // SAFETY: between fork and exec only async-signal-safe system calls are made (prctl,
        // getppid, fcntl, setrlimit, sched_setscheduler, unshare, mount, open_tree, mkdir,
        // move_mount, setgroups, setgid, setuid); nothing allocates. The data volume's
        // descriptor stays open until the spawn returns: `self` holds the volume.
        unsafe {
            command.pre_exec(move || {
                use nix::libc;
                let fail = || Err(std::io::Error::last_os_error());
                super::child::keep_only_now(&inherited)?;
                for &(resource, value) in &limits {
                    nix::sys::resource::setrlimit(resource, value, value)?;
                }
                // The bot is bwrap's child, started before koth could set its policy after the
                // spawn (see process/mod.rs, run_as_batch): set here, bwrap and the bot inherit it.
                let batch = libc::sched_param { sched_priority: 0 };
                libc::sched_setscheduler(0, libc::SCHED_BATCH, &batch);
                if !reach.is_empty() || data.is_some() {
                    mounts::mount_in_child(&reach, &mut trees, data.as_ref())?;
                }
                if let Some(id) = uid
                    && (libc::setgroups(0, std::ptr::null()) != 0
                        || libc::setgid(id) != 0
                        || libc::setuid(id) != 0)
                {
                    return fail();
                }
                // bwrap, and with --die-with-parent the bot, die with koth even on kill -9.
                // Set last: a change of user clears it.
                super::child::die_with(parent)
            });
        }
    }
}

/// A pipe for `bwrap`, close-on-exec (its ends are made inheritable in the child only).
fn bwrap_pipe() -> anyhow::Result<(OwnedFd, OwnedFd)> {
    nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).context("cannot create a pipe for bwrap")
}

/// A contained bot once `bwrap` runs: which process is the bot (known once `bwrap` has said),
/// and its control groups, kept until the bot has ended.
pub(crate) struct Started {
    bot: Arc<OnceLock<i32>>,
    pub groups: Option<Arc<BotGroups>>,
    /// The bot's user, leased until the bot has ended.
    _uid: Option<BotUid>,
}

impl Started {
    /// The bot's own process id (with `--as-pid-1`, `bwrap`'s child is the bot), once known:
    /// it is, before the bot's first answer can be read.
    pub(crate) fn bot_pid(&self) -> Option<i32> {
        self.bot.get().copied()
    }
}

/// The process id of the contained bot (`bwrap`'s `child-pid`: with `--as-pid-1` the bot
/// itself); `None` if `bwrap` failed before starting it.
fn bot_pid(mut info: std::fs::File) -> Option<i32> {
    use std::io::Read;
    let mut text = Vec::new();
    let mut chunk = [0u8; 512];
    // bwrap writes one JSON object and closes the pipe; stop at its end in any case.
    while !text.contains(&b'}') {
        match info.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => text.extend_from_slice(&chunk[..n]),
        }
    }
    let end = text.iter().position(|&b| b == b'}')?;
    let value: serde_json::Value = serde_json::from_slice(&text[..=end]).ok()?;
    value.get("child-pid")?.as_i64()?.try_into().ok()
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
