//! What a bot is, to every part of koth: how to start it ([`BotSpec`]) and how it is contained
//! when it is ([`Sandbox`]). Lists of bots are read into these by [`super::roster`]; a contained
//! bot is launched by [`super::sandbox`].

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

/// A bot that can be started: its name, its folder (its working directory) and its command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotSpec {
    pub name: String,
    /// The working directory; the bot's private files (`data.txt`) live here.
    pub dir: PathBuf,
    /// Program and arguments, run without a shell.
    pub command: Vec<String>,
    /// A shell command run in `dir` before the bot's first game, if it needs building.
    pub build: Option<String>,
    /// Where the bot was declared, for error messages (`bots/x/bot.toml`, `bots.txt:4`).
    pub origin: String,
    /// Whether, and how, the bot's processes are contained ([`super::sandbox`] launches it so).
    pub sandbox: Option<Sandbox>,
    /// Why the bot must not be started, if it is benched: every start is then refused at once
    /// as a [`super::FaultKind::Benched`] fault, so no game waits for it.
    pub benched: Option<String>,
    /// The protocol the bot asks for in each game that offers more than one, by game name
    /// (`bot.toml`'s `[protocols]`). The bot layer only carries it: each game reads its own
    /// entry and says what it accepts. A game without an entry speaks its first protocol.
    pub protocols: BTreeMap<String, String>,
    /// Whether the bot learns: a folder `data/` it keeps from game to game ([`super::data`]),
    /// as `bot.toml` asks for it (`data`, `data_mb`, `fresh_data`). A runner gives a game's
    /// copy the size it allows (`mb`), which the seat holds the folder to.
    pub data: Option<DataAsk>,
}

/// A learning bot's ask: its data's size and whether a new version starts afresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DataAsk {
    /// The MiB it asks for (`data_mb`); `None` (`data = true`) takes what the tournament or
    /// hill allows (its `data_mb`).
    pub mb: Option<u64>,
    /// Whether a new version of it starts from an empty folder rather than its previous
    /// version's data (`fresh_data = true`; a hill's `submit --fresh-data`).
    pub fresh: bool,
}

impl DataAsk {
    /// The cap of a game's copy of the bot: what it asks for, or `allowed_mb` if it asks for
    /// no size. The runner has refused a bot asking for more than it allows.
    pub fn cap(&self, allowed_mb: u64) -> super::data::DataCap {
        super::data::DataCap::of_mb(self.mb.unwrap_or(allowed_mb).min(allowed_mb))
    }
}

/// The first word of a WASI bot's command: `bot.toml`'s `wasm = "bot.wasm"` is the command
/// `koth-wasi bot.wasm`, which [`super::wasm`] runs in koth's own process. Kept in the command,
/// so that every store, worker and digest that carries a command carries it unchanged.
pub const WASI_COMMAND: &str = "koth-wasi";

impl BotSpec {
    /// The WebAssembly module a WASI bot runs (its command's second word, in its folder), or
    /// `None` for a process.
    pub fn wasm_module(&self) -> Option<PathBuf> {
        match self.command.as_slice() {
            [program, module, ..] if program == WASI_COMMAND => Some(self.dir.join(module)),
            _ => None,
        }
    }
}

impl fmt::Display for BotSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bot \"{}\" ({})", self.name, self.origin)
    }
}

/// How a contained bot is limited. The defaults suit any bot of koth's games: far more than a
/// bot needs, far less than the machine has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// The memory a bot may use, in MiB: all its processes together where it has a control
    /// group ([`super::cgroup`]), else each process (`RLIMIT_DATA`).
    pub memory_mb: u64,
    /// The largest file a bot may write, in MiB (`RLIMIT_FSIZE`); also the most its `/tmp` may
    /// hold ([`Sandbox::tmpfs_bytes`]).
    pub file_mb: u64,
    /// Open files per process (`RLIMIT_NOFILE`).
    pub open_files: u64,
    /// Processes and threads of the bot: in its control group, else `RLIMIT_NPROC` (counted
    /// per user, in the bot's own user namespace on Linux 5.14 and later).
    pub processes: u64,
    /// The folder the bot's working copy was made from (its build copy), whose large files
    /// and subfolders the copy links to: each such entry is lent to the bot read-only under its
    /// name in the working folder, never the folder itself.
    pub lent_from: Option<PathBuf>,
    /// CPU seconds each process may use (`RLIMIT_CPU`): set for builds, whose every process
    /// must end; a bot's time is its answers' limits.
    pub cpu_seconds: Option<u64>,
    /// Programs the owner named by their full path in their own configuration (a `bots.txt`
    /// line's command, the tournament's or hill's `languages`): a contained bot whose command
    /// names one (by that path, or by its file name) runs it from there and is lent its install,
    /// read-only. Never from a bot's own files.
    pub programs: Vec<PathBuf>,
}

impl Sandbox {
    /// The sizes of the contained program's memory-backed folders, in bytes: `/tmp` (at most
    /// the file size cap), its working folder and `/dev/shm`. Together they are at most the
    /// memory cap (half, a quarter and a quarter of it), so that where no control group counts
    /// what a program keeps in them, it still cannot keep more than its memory; each file in
    /// them is capped by the file size limit.
    pub(crate) fn tmpfs_bytes(&self) -> [u64; 3] {
        let file = self.file_mb << 20;
        let memory = self.memory_mb << 20;
        [(memory / 2).min(file), memory / 4, memory / 4].map(|share| share.max(1 << 20))
    }
}

impl Default for Sandbox {
    fn default() -> Self {
        Sandbox {
            memory_mb: 2048,
            file_mb: 1024,
            open_files: 1024,
            processes: 512,
            lent_from: None,
            cpu_seconds: None,
            programs: Vec::new(),
        }
    }
}
