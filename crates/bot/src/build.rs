//! Build steps: what runs before a bot's first game (`build` in its `bot.toml`), the step every
//! runner takes through [`prepare`].
//!
//! - A **contained** bot's build is contained as the bot will be (its own namespaces, network
//!   included, the bot's caps, CPU time and wall time, a user of its own), in a **build copy**
//!   of the bot's folder, never in the folder itself: it can write that copy and its `/tmp`,
//!   read the system, and nothing else. Everything it starts ends with it (it is process 1 of
//!   its own PID namespace). A build that needs what it cannot have there (a package download)
//!   fails, with its log, as on any contest server. Build copies are kept by the bot's content
//!   hash ([`super::digest`]) in koth's build folder, so the same bot is built once, and two
//!   runs of one bot at once wait for one build instead of racing in one folder.
//! - An **uncontained** bot (an author trying their own bot) is built in its own folder, as
//!   the author expects; builds of one folder are serialised by a lock, so two runs never
//!   build it at once.

use std::fs::File;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::Context;
use nix::fcntl::{Flock, FlockArg, OFlag};
use nix::sys::stat::Mode;

use super::sandbox::{self, Launch};
use super::spec::{BotSpec, Sandbox};
use super::wasm::Compile;

/// How long a build step may take unless a tournament file says otherwise (`build_timeout_s`).
pub const DEFAULT_BUILD_LIMIT: Duration = Duration::from_secs(600);

/// The most of a build's output kept for its log.
const BUILD_OUTPUT_KEPT: usize = 64 << 10;

/// The name of a build's log in its build copy's folder, beside the bot's folder.
pub const BUILD_LOG: &str = "build.log";

/// Builds every bot, each within `build_limit`, contained by `sandbox` if given, and checks it
/// can start: the step every runner takes before its first game. Returns the bots as they are
/// played: a contained bot with a build step from its build copy, others as they were.
pub fn prepare(
    bots: &[BotSpec],
    build_limit: Duration,
    sandbox: Option<&Sandbox>,
) -> anyhow::Result<Vec<BotSpec>> {
    let mut built = Vec::with_capacity(bots.len());
    for bot in bots {
        let ready = match (sandbox, &bot.build) {
            (_, None) => bot.clone(),
            (None, Some(_)) => {
                build_in_place(bot, build_limit)?;
                bot.clone()
            }
            (Some(sandbox), Some(_)) => {
                sandbox::check_available()?;
                build_contained(bot, build_limit, sandbox)?
            }
        };
        // Checked as it will run: a name its owner's `languages` gives by full path runs that.
        BotSpec {
            sandbox: sandbox.cloned(),
            ..ready.clone()
        }
        .check_runnable()?;
        if let Some(module) = ready.wasm_module() {
            // Compiled now, once, not while a game waits for the bot; a contained bot's by a
            // contained child, under its build's caps.
            let compile = match sandbox {
                Some(sandbox) => {
                    compile_contained(&ready, &module, build_limit, sandbox)?;
                    Compile::CachedOnly
                }
                None => Compile::Here,
            };
            super::wasm::load(&module, compile).map_err(|e| anyhow::anyhow!("{ready}: {e:#}"))?;
        }
        built.push(ready);
    }
    Ok(built)
}

/// Builds `bot` in its own folder, holding the folder's build lock.
fn build_in_place(bot: &BotSpec, limit: Duration) -> anyhow::Result<()> {
    let folder = std::fs::canonicalize(&bot.dir)
        .with_context(|| format!("{bot}: no folder {}", bot.dir.display()))?;
    let _lock = lock(&format!(
        "in-place-{}",
        short_hash(folder.as_os_str().as_encoded_bytes())
    ))?;
    let build = bot.build.as_deref().unwrap_or_default();
    let mut command = Command::new("sh");
    command.arg("-c").arg(build).current_dir(&bot.dir);
    super::child::prepare(&mut command);
    let output = run(bot, command, None, limit)?;
    output.check(bot, build)
}

/// Builds `bot` contained, in its build copy (made and built once per content hash), and
/// returns it as played from there.
fn build_contained(bot: &BotSpec, limit: Duration, sandbox: &Sandbox) -> anyhow::Result<BotSpec> {
    let hash = super::digest::digest(bot)?;
    let key = &hash[..32];
    let folder_name = std::path::absolute(&bot.dir)?
        .file_name()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("bot"));
    let store = build_folder()?;
    let _lock = lock(&format!("build-{key}"))?;
    let done = store.join(key);
    if !done.join(&folder_name).is_dir() {
        // Built aside and renamed into place whole: a build cut short (koth killed) leaves
        // only a folder the next build clears.
        let aside = store.join(format!(".{key}-building"));
        if aside.exists() {
            std::fs::remove_dir_all(&aside)
                .with_context(|| format!("cannot clear {}", aside.display()))?;
        }
        let copy = aside.join(&folder_name);
        copy_folder(&bot.dir, &copy).with_context(|| {
            format!(
                "{bot}: cannot copy {} to {}",
                bot.dir.display(),
                copy.display()
            )
        })?;
        let command = vec![
            "sh".into(),
            "-c".into(),
            bot.build.clone().unwrap_or_default(),
        ];
        let output = run_contained(bot, &copy, command, None, limit, sandbox)?;
        std::fs::write(aside.join(BUILD_LOG), &output.log)
            .with_context(|| format!("cannot write {}", aside.join(BUILD_LOG).display()))?;
        output.check(bot, bot.build.as_deref().unwrap_or_default())?;
        if done.exists() {
            std::fs::remove_dir_all(&done)
                .with_context(|| format!("cannot clear {}", done.display()))?;
        }
        std::fs::rename(&aside, &done)
            .with_context(|| format!("cannot move {} to {}", aside.display(), done.display()))?;
    }
    Ok(BotSpec {
        dir: done.join(folder_name),
        ..bot.clone()
    })
}

/// Runs `command` for `bot` in `dir`, contained as its build is: `sandbox`'s caps, `limit` of
/// CPU time and of wall time, the folder handed over whole (and `compiler`, koth's own binary,
/// lent read-only when the command is `koth compile-wasm`).
fn run_contained(
    bot: &BotSpec,
    dir: &Path,
    command: Vec<String>,
    compiler: Option<&Path>,
    limit: Duration,
    sandbox: &Sandbox,
) -> anyhow::Result<Output> {
    let step = BotSpec {
        dir: dir.to_path_buf(),
        command,
        sandbox: None,
        ..bot.clone()
    };
    let limits = Sandbox {
        cpu_seconds: Some(limit.as_secs().max(1)),
        lent_from: None,
        ..sandbox.clone()
    };
    let launch = match compiler {
        None => Launch::build(&step, &limits),
        Some(compiler) => Launch::compile(&step, &limits, compiler),
    }
    .with_context(|| format!("{bot}: cannot contain its build"))?;
    launch
        .hand_over(dir, true)
        .with_context(|| format!("cannot hand {} to the build", dir.display()))?;
    let command = launch.std_command();
    run(bot, command, Some(launch), limit)
}

/// The program that compiles a contained bot's WASI module: koth's own binary, as
/// `koth compile-wasm MODULE OUT`, set by `main` ([`use_compiler`]).
static COMPILER: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Names koth's own binary, which compiles contained bots' WASI modules (`main` calls this
/// with its own path).
pub fn use_compiler(koth: PathBuf) {
    let _ = COMPILER.set(koth);
}

/// Compiles `bot`'s WASI module `module` into koth's disk cache of compiled modules in a child
/// of its own, contained and capped as the bot's build is (its memory, CPU time and wall time,
/// a user of its own), unless a module of the same bytes is there already. Compiling a
/// stranger's module in koth's own process could take all its memory and minutes: Cranelift's
/// cost grows much faster than a function's size, so a module of a few hundred KiB can ask for
/// gigabytes. One compile per module at a time, under a lock on its key.
fn compile_contained(
    bot: &BotSpec,
    module: &Path,
    limit: Duration,
    sandbox: &Sandbox,
) -> anyhow::Result<()> {
    let cached = super::wasm::cache_file(module).map_err(|e| anyhow::anyhow!("{bot}: {e:#}"))?;
    if cached.exists() {
        return Ok(());
    }
    let compiler = COMPILER.get().ok_or_else(|| {
        anyhow::anyhow!(
            "{bot}: a contained bot's WASI module is compiled by koth's own binary (`koth \
             compile-wasm`), which this program does not name"
        )
    })?;
    let key = short_hash(cached.as_os_str().as_encoded_bytes());
    let _lock = lock(&format!("compile-{key}"))?;
    if cached.exists() {
        return Ok(());
    }
    let folder = build_folder()?.join(format!(".compile-{key}"));
    if folder.exists() {
        std::fs::remove_dir_all(&folder)
            .with_context(|| format!("cannot clear {}", folder.display()))?;
    }
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("cannot create {}", folder.display()))?;
    let compiled = (|| {
        std::fs::copy(module, folder.join("module.wasm"))
            .with_context(|| format!("cannot copy {}", module.display()))?;
        let command = vec![
            compiler.display().to_string(),
            "compile-wasm".into(),
            "module.wasm".into(),
            "module.cwasm".into(),
        ];
        let output = run_contained(bot, &folder, command, Some(compiler), limit, sandbox)?;
        output.check_compile(bot, sandbox)?;
        // Copied, not moved: the cache holds only files of koth's own user.
        let aside = cached.with_extension(format!("{}.part", std::process::id()));
        std::fs::copy(folder.join("module.cwasm"), &aside)
            .and_then(|_| std::fs::rename(&aside, &cached))
            .with_context(|| format!("cannot keep the compiled module in {}", cached.display()))?;
        anyhow::Ok(())
    })();
    let _ = std::fs::remove_dir_all(&folder);
    compiled
}

/// The folder of build copies: `koth/builds` in the user's cache folder (`$XDG_CACHE_HOME`,
/// else `~/.cache`), else `koth-builds-<uid>` in the system's temp folder; private to koth's
/// user (a contained bot's user reaches its own build's entries through its sandbox alone).
fn build_folder() -> anyhow::Result<PathBuf> {
    koth_base::logs::cache_folder("builds")
}

/// Waits for, then holds, the lock `name` in koth's private lock folder (shared by every koth
/// of this user on the machine).
fn lock(name: &str) -> anyhow::Result<Flock<File>> {
    let folder = koth_base::cpu::open_lock_folder(&koth_base::cpu::lock_folder())
        .map_err(anyhow::Error::msg)?;
    let flags = OFlag::O_RDWR | OFlag::O_CREAT | OFlag::O_CLOEXEC | OFlag::O_NOFOLLOW;
    let file = nix::fcntl::openat(
        &folder,
        format!("{name}.lock").as_str(),
        flags,
        Mode::S_IRUSR | Mode::S_IWUSR,
    )
    .with_context(|| format!("cannot open the build lock {name}"))?;
    Flock::lock(File::from(file), FlockArg::LockExclusive)
        .map_err(|(_, e)| anyhow::anyhow!("cannot take the build lock {name}: {e}"))
}

fn short_hash(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)[..12]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What a build step did: how it ended (`None`: stopped at its time limit) and its output, the
/// last [`BUILD_OUTPUT_KEPT`] bytes of each stream.
struct Output {
    status: Option<std::process::ExitStatus>,
    limit: Duration,
    log: Vec<u8>,
}

impl Output {
    /// The last ten lines of the build's log.
    fn tail(&self) -> String {
        let text = String::from_utf8_lossy(&self.log);
        let tail: Vec<&str> = text.lines().rev().take(10).collect();
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    }

    /// The build's failure, as one error with the tail of its log (a [`BuildFailed`], whose
    /// whole kept log a caller may show).
    fn check(&self, bot: &BotSpec, build: &str) -> anyhow::Result<()> {
        let (message, summary) = match self.status {
            None => (
                format!(
                    "{bot}: its build command `{build}` did not finish within {} s \
                     (`build_timeout_s`); it was stopped:\n{}",
                    self.limit.as_secs(),
                    self.tail()
                ),
                format!("the build did not finish within {} s", self.limit.as_secs()),
            ),
            Some(status) if !status.success() => (
                format!(
                    "{bot}: its build command `{build}` failed ({status}):\n{}",
                    self.tail()
                ),
                format!("the build failed ({})", ended(&status)),
            ),
            Some(_) => return Ok(()),
        };
        Err(self.failed(message, summary))
    }

    /// The failure of koth's compiler of a WASI module, run under the caps `limits`.
    fn check_compile(&self, bot: &BotSpec, limits: &Sandbox) -> anyhow::Result<()> {
        let caps = format!(
            "{} MiB of memory, {} s",
            limits.memory_mb,
            self.limit.as_secs()
        );
        let summary = match self.status {
            None => format!(
                "compiling its WASI module did not finish within the build's {} s",
                self.limit.as_secs()
            ),
            // koth's own error: the module is not WebAssembly, or not one koth can run.
            Some(status) if status.code() == Some(1) => {
                "its WASI module could not be compiled: it is not a valid WebAssembly module"
                    .to_string()
            }
            Some(status) if !status.success() => format!(
                "compiling its WASI module went over the build's caps ({caps}) and was stopped \
                 ({})",
                ended(&status)
            ),
            Some(_) => return Ok(()),
        };
        Err(self.failed(format!("{bot}: {summary}:\n{}", self.tail()), summary))
    }

    fn failed(&self, message: String, summary: String) -> anyhow::Error {
        BuildFailed {
            message,
            summary,
            log: self.log.clone(),
        }
        .into()
    }
}

/// How a process ended, in a few words: `exit 3`, or `signal 9`.
fn ended(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        (None, None) => status.to_string(),
    }
}

/// A build step that failed or overran its limit, with its kept output.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct BuildFailed {
    message: String,
    /// What went wrong in koth's own short words, with no command, log or path: what a
    /// stranger who sent the bot may be told in public.
    pub summary: String,
    /// The last [`BUILD_OUTPUT_KEPT`] bytes of each of its streams.
    pub log: Vec<u8>,
}

/// The log of the contained build that made `built` (as [`prepare`] returned it), if it had one.
pub fn log_of(built: &BotSpec) -> Option<Vec<u8>> {
    std::fs::read(built.dir.parent()?.join(BUILD_LOG)).ok()
}

/// Runs a build `command` in a process group of its own that is killed when the step ends or
/// overruns `limit` (a build that never ends, or leaves a job running, must not hold up the
/// games), and gathers its output. A contained build's `launch` is finished once it runs.
fn run(
    bot: &BotSpec,
    mut command: Command,
    launch: Option<Launch>,
    limit: Duration,
) -> anyhow::Result<Output> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .with_context(|| format!("{bot}: cannot run its build command"))?;
    // With process_group(0) the group id is the child's pid; registered, Ctrl-C kills it.
    let pgid = child.id() as i32;
    super::live::register(pgid);
    let started = launch.map(|launch| launch.started_here(pgid));
    // Each pipe is drained on a thread of its own, so a chatty build cannot stall on a full
    // pipe; the outputs come back on a channel, so a job that escaped the group and keeps a
    // pipe open cannot hold koth.
    let (outputs, collected) = mpsc::channel();
    let pipes: [Option<Box<dyn Read + Send>>; 2] = [
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    ];
    for pipe in pipes.into_iter().flatten() {
        let outputs = outputs.clone();
        std::thread::spawn(move || {
            let _ = outputs.send(read_tail(pipe));
        });
    }
    let deadline = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => break None,
        }
    };
    super::live::kill_group(pgid);
    if status.is_none() {
        let _ = child.wait();
    }
    let mut log = Vec::new();
    for _ in 0..2 {
        if let Ok(output) = collected.recv_timeout(Duration::from_secs(1)) {
            log.extend_from_slice(&output);
        }
    }
    drop(started);
    Ok(Output { status, limit, log })
}

/// Everything `pipe` gives until its end, keeping only the last [`BUILD_OUTPUT_KEPT`] bytes.
fn read_tail(mut pipe: impl Read) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut chunk = [0u8; 8192];
    while let Ok(n @ 1..) = pipe.read(&mut chunk) {
        kept.extend_from_slice(&chunk[..n]);
        if kept.len() > 2 * BUILD_OUTPUT_KEPT {
            kept.drain(..kept.len() - BUILD_OUTPUT_KEPT);
        }
    }
    let excess = kept.len().saturating_sub(BUILD_OUTPUT_KEPT);
    kept.drain(..excess);
    kept
}

/// Copies the folder `from` to `to`: folders, files with their permissions, and links as links
/// (never followed); anything else (a device, a pipe) is left out.
pub fn copy_folder(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_folder(&source, &target)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&source)?, &target)?;
        } else if kind.is_file() {
            std::fs::copy(&source, &target)?;
        }
    }
    Ok(())
}
