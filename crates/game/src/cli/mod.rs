//! What every command shares, declared once: `--seed`, `--timeout-ms`, `--log-dir`,
//! `--sandbox` and its caps, the progress bar of a match, and the report printed when it ends.
//! A game's own `cli.rs` flattens the arguments it takes and adds its own.
//!
//! Every command's metavars name the kind of value, in one style (upper case, one word): `DIR`,
//! `FILE`, `PATH` (either), `MS`, `MIB`, `N`, `RATE`, `SEED`, `NAME`, `CMD`, `PLAYER`, `FORMAT`,
//! `FUEL`.

pub mod report;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::bail;

use koth_bot::{BotSpec, Sandbox, build, roster, sandbox};
use koth_bot::{Limits, MAX_LIMIT_MS};

/// `--seed`, for every randomised command.
#[derive(Debug, Clone, clap::Args)]
pub struct SeedArg {
    /// Seed of every random choice of the run (a fresh one if not given; printed either way,
    /// so any run can be repeated).
    #[arg(long, value_name = "SEED")]
    pub seed: Option<u64>,
}

impl SeedArg {
    /// The seed given, or a fresh one; printed, so that the run can be repeated.
    pub fn choose(&self) -> u64 {
        let seed = crate::seed::choose(self.seed);
        println!("seed {seed}");
        seed
    }
}

/// `--timeout-ms`, for every command that starts bots; 1000 ms unless a game's answers take
/// longer by nature: flag's solvers get 5000 (its command says so with
/// `mut_arg("timeout_ms", …)`, since clap keeps one default per declaration).
#[derive(Debug, Clone, clap::Args)]
pub struct TimeoutArg {
    /// Time limit for each answer of a bot, and for its exit after its last message (wall
    /// clock).
    #[arg(long, value_name = "MS", default_value_t = 1000, value_parser = limit_ms_parser())]
    pub timeout_ms: u64,
    /// A WASI bot's budget for each answer, in fuel (about one per WebAssembly instruction):
    /// the same on every machine; --timeout-ms stays its wall-clock backstop. Without a
    /// number, the same as --measure-fuel.
    #[arg(long, value_name = "FUEL", num_args = 0..=1,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub answer_fuel: Option<Option<u64>>,
    /// A WASI bot's budget from the end of its input to its exit, in fuel (default: the
    /// answer's).
    #[arg(long, value_name = "FUEL", value_parser = clap::value_parser!(u64).range(1..),
          requires = "answer_fuel")]
    pub exit_fuel: Option<u64>,
    /// Play WASI bots without a fuel budget and print, at the end, the fuel each burnt per
    /// answer and the --answer-fuel that would leave it room (as the report does whenever a
    /// WASI bot played without one).
    #[arg(long, conflicts_with = "answer_fuel")]
    pub measure_fuel: bool,
}

impl TimeoutArg {
    pub fn limits(&self) -> Limits {
        // `--answer-fuel` without a number measures, as `--measure-fuel` does: no budget.
        let answer_fuel = self.answer_fuel.flatten();
        Limits {
            answer_fuel,
            exit_fuel: self.exit_fuel.or(answer_fuel),
            ..Limits::uniform(Duration::from_millis(self.timeout_ms))
        }
    }
}

/// `--dir` (also `--log-dir`, its older name), for every command that writes outputs: the
/// folder option of every koth command that writes one.
#[derive(Debug, Clone, clap::Args)]
pub struct LogDirArg {
    /// Where the run's outputs go (results.json, the bots' stderr and transcripts, replays).
    /// Default: logs/<command>-<unix seconds>[-seed<SEED>]/.
    #[arg(long = "dir", visible_alias = "log-dir", value_name = "DIR")]
    pub log_dir: Option<PathBuf>,
}

impl LogDirArg {
    /// The folder given, or `logs/<command>-<unix seconds>[-seed<seed>]/`, created.
    pub fn create(&self, command: &str, seed: Option<u64>) -> anyhow::Result<PathBuf> {
        koth_base::logs::create_folder(self.log_dir.clone(), |secs| match seed {
            Some(seed) => format!("{command}-{secs}-seed{seed}"),
            None => format!("{command}-{secs}"),
        })
    }
}

/// `--sandbox` and its caps, for every command that starts bots.
#[derive(Debug, Clone, clap::Args)]
pub struct SandboxArgs {
    /// Contain every bot: it sees only the system's folders (read-only), its interpreter and
    /// a working copy of its own folder, with no network, no other processes, no privileges,
    /// and capped memory, file size, open files and processes (see docs/containment.md).
    #[arg(long)]
    pub sandbox: bool,
    /// Memory a contained bot may use.
    #[arg(long, value_name = "MIB", default_value_t = Sandbox::default().memory_mb,
          value_parser = clap::value_parser!(u64).range(1..=1 << 30), requires = "sandbox")]
    pub memory_mb: u64,
    /// Largest file a contained bot may write (also the size of its private /tmp).
    #[arg(long, value_name = "MIB", default_value_t = Sandbox::default().file_mb,
          value_parser = clap::value_parser!(u64).range(1..=1 << 30), requires = "sandbox")]
    pub file_mb: u64,
}

impl SandboxArgs {
    /// The containment asked for, if any.
    pub fn sandbox(&self) -> Option<Sandbox> {
        self.sandbox.then(|| Sandbox {
            memory_mb: self.memory_mb,
            file_mb: self.file_mb,
            ..Sandbox::default()
        })
    }
}

/// `--any-game`, for every game's command that takes bot folders.
#[derive(Debug, Clone, clap::Args)]
pub struct AnyGameArg {
    /// Play a bot folder even if its bot.toml's `games` does not list this game (a bot written
    /// for another game, tried here on purpose). Without it such a bot is refused by name
    /// before the first game.
    #[arg(long)]
    pub any_game: bool,
}

impl AnyGameArg {
    /// The bot of folder `dir`, refused if its manifest does not list `game` (unless
    /// `--any-game`). A learning bot is told where its data goes outside a tournament.
    pub fn load_bot(&self, game: &str, dir: &Path) -> anyhow::Result<BotSpec> {
        let spec = roster::load_bot(dir)?;
        if let Some(ask) = spec.data {
            eprintln!("{}", data_note(&spec, ask));
        }
        let (_, games) = roster::load_manifest(dir)?;
        if !self.any_game && !games.iter().any(|g| g == game) {
            bail!(
                "bot {:?} ({}) does not play {game}: its `games` lists {}; add \"{game}\" to it, \
                 or give --any-game to play it anyway",
                spec.name,
                spec.origin,
                if games.is_empty() {
                    "none".to_string()
                } else {
                    games.join(", ")
                }
            );
        }
        Ok(spec)
    }

    /// The bots of folders `dirs`, each checked to play `game`, their names unique.
    pub fn load_bots(&self, game: &str, dirs: &[PathBuf]) -> anyhow::Result<Vec<BotSpec>> {
        let bots = dirs
            .iter()
            .map(|dir| self.load_bot(game, dir))
            .collect::<anyhow::Result<Vec<_>>>()?;
        roster::check_unique_names(&bots)?;
        Ok(bots)
    }
}

/// Where a learning bot's data goes in a game's own command, and its cap: its own folder's
/// `data/`, kept from one command to the next, checked after each answer against the cap a
/// tournament or hill that allows its ask would give it ([`DataAsk::cap`] of the default);
/// a tournament or hill gives each game a copy instead, and never reads this folder.
fn data_note(spec: &BotSpec, ask: koth_bot::DataAsk) -> String {
    let cap = ask.cap(ask.mb.unwrap_or(koth_bot::data::DEFAULT_CAP_MB));
    format!(
        "{}: `data` in its bot.toml: its data is {} (without --sandbox), kept from one game to the next and \
         checked after each answer against its cap of {} (a tournament or hill gives each game \
         a copy of its data of its own, and never reads this folder)",
        koth_base::text::shown(&spec.name),
        spec.dir.join(koth_bot::data::DATA_FOLDER).display(),
        cap.describe()
    )
}

/// The prologue of a game's command, written once, after every mistake in its arguments has
/// been reported: `bots`' build steps run, the log folder (`--dir`, or one named after
/// `command` and `seed`, if the command is random) created, and the bots contained in it if
/// `--sandbox` asks, lent the programs `lent` (those a `bots.txt` names by full path, its
/// owner's words).
pub fn match_folder(
    command: &str,
    seed: Option<u64>,
    log_dir: &LogDirArg,
    contain: &SandboxArgs,
    bots: &[BotSpec],
    lent: Vec<PathBuf>,
) -> anyhow::Result<(PathBuf, Vec<BotSpec>)> {
    let sandbox = contain.sandbox().map(|s| Sandbox {
        programs: lent,
        ..s
    });
    let bots = build::prepare(bots, build::DEFAULT_BUILD_LIMIT, sandbox.as_ref())?;
    let log_dir = log_dir.create(command, seed)?;
    let bots = sandbox::contain(&bots, sandbox.as_ref(), &log_dir)?;
    Ok((log_dir, bots))
}

/// The arguments every game's own command shares, flattened into its `Args` as one: `--seed`,
/// `--timeout-ms`, `--dir`, `--sandbox` and its caps, `--any-game`.
#[derive(Debug, Clone, clap::Args)]
pub struct MatchArgs {
    #[command(flatten)]
    pub seed: SeedArg,
    #[command(flatten)]
    pub timeout: TimeoutArg,
    #[command(flatten)]
    pub log_dir: LogDirArg,
    #[command(flatten)]
    pub contain: SandboxArgs,
    #[command(flatten)]
    pub any_game: AnyGameArg,
}

/// What a game's own command plays: one match of `bots` (loaded and checked for `game`),
/// chosen `seed` and `rounds` (each a `unit`: `round`, `match`…, on the progress bar), with the
/// game's `options` (its tournament file's `[options]`), on CPU `cpu` if asked, lending its bots
/// the programs `lent` (a `bots.txt` names by full path).
pub struct OneMatch<'a> {
    pub game: &'a str,
    pub bots: Vec<BotSpec>,
    pub lent: Vec<PathBuf>,
    pub seed: u64,
    pub rounds: u32,
    pub unit: &'a str,
    pub options: toml::Table,
    pub cpu: Option<usize>,
}

/// A match made ready by [`MatchArgs::prepare`]: its setup, and what lasts until it ends (the
/// progress bar, the CPU claim).
pub struct Prepared {
    pub setup: crate::MatchSetup,
    pub log_dir: PathBuf,
    bar: indicatif::ProgressBar,
    /// Held until the match ends, so that no other koth pins to its CPU meanwhile.
    _claim: koth_base::cpu::Claim,
}

impl Prepared {
    /// The match has ended: its progress bar is cleared, for a game's own lines.
    pub fn ended(&self) {
        self.bar.finish_and_clear();
    }

    /// The match has ended: the bar cleared, then the report every command prints.
    pub fn report(&self, result: &crate::MatchResult) {
        self.ended();
        report::print_result(result, &self.log_dir);
    }
}

impl MatchArgs {
    /// A game's own command, its match made ready once its arguments are checked: the bots'
    /// folder built and contained ([`match_folder`]), the progress bar, the CPU claimed and
    /// this thread pinned to it (the bots, started from here, keep to it too).
    pub fn prepare(&self, one: OneMatch) -> anyhow::Result<Prepared> {
        let (log_dir, bots) = match_folder(
            one.game,
            Some(one.seed),
            &self.log_dir,
            &self.contain,
            &one.bots,
            one.lent,
        )?;
        let names = bots.iter().map(|b| b.name.clone()).collect();
        let (bar, progress) = report::match_progress(one.rounds, one.unit, names);
        let claim = koth_base::cpu::claim_given(one.cpu);
        let setup = crate::MatchSetup {
            rounds: Some(one.rounds),
            progress: Some(progress),
            options: one.options,
            cpus: claim.cpus().to_vec(),
            ..crate::MatchSetup::new(bots, one.seed, log_dir.clone(), self.timeout.limits())
        };
        koth_base::cpu::pin_current_thread(&setup.cpus);
        Ok(Prepared {
            setup,
            log_dir,
            bar,
            _claim: claim,
        })
    }

    /// A game's own command played, the `run` every plain game would otherwise copy: the bot
    /// folders `bots` loaded for `game` (refused by name where their `bot.toml` does not list
    /// it, unless `--any-game`), its match made ready ([`Self::prepare`]) and played by the
    /// same `Game::play` a tournament calls, then the report every command prints. Returns the
    /// result and the log folder, for a game's own lines.
    pub fn play(
        &self,
        game: &dyn crate::Game,
        bots: &[PathBuf],
        rounds: u32,
        unit: &str,
        options: toml::Table,
    ) -> anyhow::Result<(crate::MatchResult, PathBuf)> {
        let name = game.name();
        game.check_options(Some(rounds), &options)?;
        let bots = self.any_game.load_bots(name, bots)?;
        let prepared = self.prepare(OneMatch {
            game: name,
            bots,
            lent: Vec::new(),
            seed: self.seed.choose(),
            rounds,
            unit,
            options,
            cpu: None,
        })?;
        let result = crate::runtime()?.block_on(game.play(&prepared.setup))?;
        prepared.report(&result);
        Ok((result, prepared.log_dir))
    }
}

/// The parser of every time limit in milliseconds: 1 to [`MAX_LIMIT_MS`] (a zero limit would
/// fault every bot at its first answer).
pub fn limit_ms_parser() -> clap::builder::RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(1..=MAX_LIMIT_MS)
}

/// Connections served at once unless `--max-connections` says otherwise.
pub const MAX_CONNECTIONS: u32 = 256;
/// Connections one client address may hold at once unless `--max-per-client` says otherwise.
pub const MAX_PER_CLIENT: u32 = 32;

/// What the server accepts of its clients.
#[derive(Debug, Clone, clap::Args)]
pub struct Guard {
    /// Also answer requests for this host name (any port), as a reverse proxy in front of the
    /// dashboard sends them; repeat for several. Without it, only 127.0.0.1, localhost, [::1]
    /// and the listening address are answered, any other `Host` gets 421 (DNS rebinding).
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<String>,
    /// Connections served at once; one more is answered 503 and closed. Each open dashboard
    /// page holds one or two.
    #[arg(long, value_name = "N", default_value_t = MAX_CONNECTIONS,
          value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub max_connections: u32,
    /// Connections one client may hold at once (below `--max-connections`, so that one client
    /// cannot take them all); one more from it is answered 503 and closed. A client is an IPv4
    /// address (or its `::ffff:` form) or an IPv6 /64. Requests that come through a
    /// `--trusted-proxy` are counted by the client the proxy forwards instead, each until its
    /// response ends (429 beyond); those naming none share one client's cap.
    #[arg(long, value_name = "N", default_value_t = MAX_PER_CLIENT,
          value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub max_per_client: u32,
    /// The address of a reverse proxy in front of the server, whose connections carry many
    /// clients: its `X-Forwarded-For` (the address it appends, the last) names the client.
    /// Trusted from these addresses only; anyone else's `X-Forwarded-For` is ignored. Repeat
    /// for several.
    #[arg(long = "trusted-proxy", value_name = "ADDR")]
    pub trusted_proxies: Vec<std::net::IpAddr>,
}

impl Default for Guard {
    fn default() -> Guard {
        Guard {
            allow_hosts: Vec::new(),
            max_connections: MAX_CONNECTIONS,
            max_per_client: MAX_PER_CLIENT,
            trusted_proxies: Vec::new(),
        }
    }
}
