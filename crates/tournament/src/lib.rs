//! The overnight tournament runner: many games of one game among many bots, in parallel, with
//! every result kept in SQLite so that a stopped tournament resumes where it was.
//!
//! - [`config`]: the tournament file.
//! - [`settings`]: the match settings a tournament file and a hill file both take.
//! - [`schedule`]: which bots play which game with which seed, fixed up front by the master seed.
//! - [`gauntlet`]: one challenger against each opponent, its score against each and the
//!   sequential test that stops an opponent's games once the result is clear.
//! - [`store`]: the results database (schedule, results, harness faults, the bench).
//! - [`lock`]: one koth at a time plays a tournament folder.
//! - [`leaderboard`]: points, intervals, ratings and statuses, in four formats.
//! - [`cli`]: `koth tournament run|resume|status` and `koth leaderboard`.
//!
//! A tournament folder holds `tournament.toml` (the file it was started from), `results.sqlite`,
//! `tournament.log`, `koth.lock`, and `games/<index>/` with each game's own logs and a working
//! copy of its bots.

pub mod cli;
pub mod config;
pub(crate) mod gauntlet;
pub mod leaderboard;
pub mod lock;
pub mod play;
mod policy;
pub mod runner;
pub mod schedule;
pub mod settings;
pub mod shared;
pub mod store;
pub mod worker;

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};

use koth_base::cpu::Claim;
use koth_base::text;
use koth_bot::BotStatus;
use koth_bot::{BotSpec, Sandbox, build, sandbox};
use koth_game::{Average, BotResult, Game, MatchResult, Ranking};

use config::Config;
use gauntlet::{Gauntlet, SprtConfig, Verdict};
use leaderboard::Leaderboard;
use lock::FolderLock;
use play::GameParts;
use policy::{Points, TournamentPolicy};
use schedule::ScheduledGame;
use settings::MatchSettings;
use shared::{prepare_copy, relative_to};
use store::{Claimant, Store, StoredResult};

/// The copy of the tournament file kept in the tournament folder.
pub(crate) const CONFIG_COPY: &str = "tournament.toml";
/// The meta key saying whether the tournament's bots are contained (`on`) or not (`off`).
const SANDBOX_META: &str = "sandbox";
/// The meta key of the tournament file's text, which workers on other machines play by.
const FILE_META: &str = "tournament_file";
/// The meta key of a gauntlet (bot 0 the challenger): its test as JSON, `null` for none.
const GAUNTLET_META: &str = "gauntlet";
/// Tries per game: a harness fault (koth's own failure) is retried, up to this many times in all.
pub const ATTEMPTS: u32 = 3;
/// A bot that fails at start-up (does not start, or crashes before its first answer) in this many
/// games in a row is benched: it is not started in the games after.
pub(crate) const BENCH_AFTER: u32 = 3;

/// Where a tournament lives, as a dashboard watches it.
#[derive(Debug, Clone)]
pub enum Watched {
    /// A tournament folder: its SQLite database and its games' folders.
    Folder(PathBuf),
    /// Tournament `name` of the PostgreSQL database at `url`, its games' files in it.
    Shared { url: String, name: String },
}

/// A tournament ready to play its unfinished games: on one machine from its folder, or as one of
/// the workers sharing it through PostgreSQL.
pub(crate) struct Tournament {
    /// Where its games are played: `games/<index>/` in it.
    pub dir: PathBuf,
    pub name: String,
    pub seed: u64,
    game: &'static dyn Game,
    bots: Vec<BotSpec>,
    /// What every game is played with: the file's match settings.
    settings: MatchSettings,
    jobs: usize,
    /// How bots are contained; `None` when the file says `sandbox = false`.
    sandbox: Option<Sandbox>,
    store: Store,
    /// Bots this koth does not play (a worker whose copy is not the one submitted, or whose
    /// build failed): their games are left to other workers.
    refused: Vec<usize>,
    /// Who this koth is in the games it claims.
    pub(crate) claimant: Claimant,
    /// Per bot, how many of its games in a row, in the order their results came in, failed at
    /// start-up: read from the database, and written there with each result that changes one.
    start_failures: Vec<u32>,
    /// A gauntlet's pairs and results so far; `None` for any other tournament.
    gauntlet: Option<Gauntlet>,
    /// Held while this koth plays the folder's games (SQLite only).
    _lock: Option<FolderLock>,
}

/// A tournament as a tournament file and a master seed make it, before it is stored.
struct TournamentPlan {
    config: Config,
    bots: Vec<BotSpec>,
    name: String,
    games: Vec<ScheduledGame>,
    meta: Vec<(&'static str, String)>,
}

impl TournamentPlan {
    /// Reads and checks the tournament file `file` and decides every game.
    fn new(file: &Path, seed: Option<u64>) -> anyhow::Result<TournamentPlan> {
        let config = Config::load(file)?;
        let base = file.parent().unwrap_or(Path::new("."));
        let bots = config.load_bots(base, file)?;
        if config.settings.sandbox().is_some() {
            sandbox::check_available()?;
        }
        let name = config.settings.name(file)?;
        let seed = koth_game::seed::choose(seed.or(config.settings.seed));
        let per_game = config.settings.players_per_game.unwrap_or(bots.len());
        let games = match config.lineup.challenger {
            Some(_) => gauntlet::schedule(bots.len() - 1, config.lineup.games, seed),
            None => schedule::schedule(bots.len(), per_game, config.lineup.games, seed),
        };
        let mut meta = vec![
            ("name", name.clone()),
            ("game", config.settings.game.clone()),
            ("seed", seed.to_string()),
            (
                SANDBOX_META,
                if config.settings.sandbox().is_some() {
                    "on"
                } else {
                    "off"
                }
                .into(),
            ),
        ];
        if config.lineup.challenger.is_some() {
            meta.push((GAUNTLET_META, serde_json::to_string(&config.lineup.sprt)?));
        }
        if let Some(delay) = config.settings.live_delay_s {
            meta.push((store::LIVE_DELAY_META, delay.to_string()));
        }
        Ok(TournamentPlan {
            config,
            bots,
            name,
            games,
            meta,
        })
    }
}

impl Tournament {
    /// Starts a tournament from a tournament file: checks and builds the bots, creates the folder
    /// and writes the whole schedule.
    pub(crate) fn create(
        file: &Path,
        dir: Option<PathBuf>,
        seed: Option<u64>,
    ) -> anyhow::Result<Self> {
        let plan = TournamentPlan::new(file, seed)?;
        let dir = dir.unwrap_or_else(|| {
            koth_base::logs::default_folder(|secs| format!("tournament-{}-{secs}", plan.name))
        });
        // The outermost folder this creates (`logs/` too, the first time), removed again if the
        // tournament cannot start.
        let created: Option<PathBuf> = dir
            .ancestors()
            .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
            .last()
            .map(Path::to_path_buf);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create the tournament folder {}", dir.display()))?;
        // Before anything else in the folder is made: a second run into the same folder must
        // find the first one's tournament whole, or be turned away here.
        let lock = FolderLock::take(&dir)?;
        if dir.join(store::FILE).exists() {
            bail!(
                "{} already holds a tournament: `koth tournament resume {}` finishes it",
                dir.display(),
                dir.display()
            );
        }
        let sandbox = plan.config.sandbox_for(&plan.bots);
        let store = (|| {
            let built = build::prepare(
                &plan.bots,
                plan.config.settings.build_limit(),
                sandbox.as_ref(),
            )?;
            std::fs::create_dir_all(dir.join("games")).with_context(|| {
                format!("cannot create the tournament folder {}", dir.display())
            })?;
            std::fs::copy(file, dir.join(CONFIG_COPY)).with_context(|| {
                format!("cannot copy {} into {}", file.display(), dir.display())
            })?;
            let store = Store::create(&dir.join(store::FILE), &plan.meta, &plan.bots, &plan.games)?;
            Ok::<_, anyhow::Error>((store, built))
        })();
        // A tournament that could not start (a bot's build failed) leaves no folder behind.
        let (store, built) = store.inspect_err(|_| {
            if let Some(created) = &created {
                let _ = std::fs::remove_dir_all(created);
            }
        })?;
        let jobs = plan.config.settings.jobs();
        Tournament::assemble(&plan.config, store, built, vec![], dir, jobs, Some(lock))
    }

    /// Reopens a tournament folder to play the games it has not finished, first giving the bots
    /// named in `unbench` their seats back.
    pub(crate) fn resume(dir: &Path, unbench: &[String]) -> anyhow::Result<Self> {
        let path = dir.join(store::FILE);
        store::check_exists(&path)?;
        // Locked before the database is opened: opening brings an older database up to date.
        let lock = FolderLock::take(dir)?;
        let store = Store::open(&path)?;
        let config = Config::load(&dir.join(CONFIG_COPY))?;
        let mut bots = store.bots()?;
        let unbenched = unbench
            .iter()
            .map(|name| {
                bots.iter().position(|b| &b.name == name).with_context(|| {
                    let names: Vec<String> = bots.iter().map(|b| format!("{:?}", b.name)).collect();
                    format!(
                        "--unbench {name:?}: no such bot in {}; its bots are {}",
                        dir.display(),
                        names.join(", ")
                    )
                })
            })
            .collect::<anyhow::Result<Vec<usize>>>()?;
        for id in unbenched {
            store.unbench(id)?;
        }
        let benched: Vec<usize> = store.benched()?.into_iter().map(|(b, _)| b).collect();
        // A benched bot is not started, so a build of it that fails now stops nothing.
        let playing: Vec<BotSpec> = (0..bots.len())
            .filter(|b| !benched.contains(b))
            .map(|b| bots[b].clone())
            .collect();
        let sandbox = config.sandbox_for(&bots);
        if sandbox.is_some() {
            sandbox::check_available()?;
        }
        let built = build::prepare(&playing, config.settings.build_limit(), sandbox.as_ref())?;
        // The games are played by the bots as built: a contained bot from its build copy.
        for bot in built {
            if let Some(entry) = bots.iter_mut().find(|b| b.name == bot.name) {
                *entry = bot;
            }
        }
        // This koth alone plays the folder now: what a stopped run left running, and what it
        // gave up on, is played again.
        store.requeue_unfinished()?;
        Tournament::assemble(
            &config,
            store,
            bots,
            vec![],
            dir.to_path_buf(),
            config.settings.jobs(),
            Some(lock),
        )
    }

    /// Records the tournament of tournament file `file` in the PostgreSQL database at `url`,
    /// with every game decided and each bot's content hash, for workers to play; plays nothing.
    /// Bot folders are stored relative to the file's folder, where a worker's `--root` is.
    pub(crate) fn submit(file: &Path, url: &str, seed: Option<u64>) -> anyhow::Result<Store> {
        let plan = TournamentPlan::new(file, seed)?;
        let base = std::path::absolute(file.parent().unwrap_or(Path::new(".")))?;
        let hashes = plan
            .bots
            .iter()
            .map(koth_bot::digest::digest)
            .collect::<anyhow::Result<Vec<_>>>()?;
        let bots: Vec<BotSpec> = plan
            .bots
            .iter()
            .map(|bot| BotSpec {
                dir: relative_to(&bot.dir, &base),
                ..bot.clone()
            })
            .collect();
        let mut meta = plan.meta;
        meta.push((FILE_META, koth_base::text::read(file)?));
        Store::submit(url, &plan.name, &meta, &bots, &hashes, &plan.games)
    }

    /// Takes part, as a worker, in a tournament others may be playing too: its bots are found
    /// under `root` (the folder its tournament file was in when submitted), checked against the
    /// hashes submitted, and copied and built in `work/bots/` (a bot whose copy differs, or whose
    /// build fails, is refused, its games left to others); its games are played in `work/`.
    pub(crate) fn join(
        store: Store,
        root: &Path,
        work: &Path,
        jobs: Option<usize>,
    ) -> anyhow::Result<Self> {
        let text = store
            .meta(FILE_META)?
            .with_context(|| format!("{} has no tournament file", store.location()))?;
        let config = Config::parse(&text, Path::new(&format!("{}'s file", store.location())))?;
        if config.settings.sandbox().is_some() {
            sandbox::check_available()?;
        }
        let hashes = store.bot_hashes()?;
        let mut refused = Vec::new();
        let mut bots = store.bots()?;
        for (id, bot) in bots.iter_mut().enumerate() {
            let copy = work.join("bots").join(id.to_string());
            match prepare_copy(bot, root, &copy, hashes[id].as_deref(), &config) {
                Ok(dir) => bot.dir = dir,
                Err(err) => {
                    let message = text::shown(&format!(
                        "koth: refusing the games of {:?}: {err:#}",
                        bot.name
                    ))
                    .into_owned();
                    eprintln!("{message}");
                    tracing::warn!("{message}");
                    refused.push(id);
                }
            }
        }
        let jobs = jobs.unwrap_or_else(|| config.settings.jobs());
        Tournament::assemble(
            &config,
            store,
            bots,
            refused,
            work.to_path_buf(),
            jobs,
            None,
        )
    }

    fn assemble(
        config: &Config,
        store: Store,
        mut bots: Vec<BotSpec>,
        refused: Vec<usize>,
        dir: PathBuf,
        jobs: usize,
        lock: Option<FolderLock>,
    ) -> anyhow::Result<Self> {
        for (id, reason) in store.benched()? {
            if let Some(bot) = bots.get_mut(id) {
                bot.benched = Some(reason);
            }
        }
        for bot in &mut bots {
            bot.data = config.settings.data_for(bot.data);
        }
        let seed = store
            .meta("seed")?
            .and_then(|s| s.parse().ok())
            .context("the results database has no master seed")?;
        let sandbox = config.sandbox_for(&bots);
        Ok(Tournament {
            dir,
            name: store.meta("name")?.unwrap_or_default(),
            seed,
            game: config.settings.game()?,
            start_failures: store.start_failures()?,
            gauntlet: gauntlet_of(&store, &store.results()?)?,
            bots,
            settings: config.settings.clone(),
            jobs,
            sandbox,
            store,
            refused,
            claimant: Claimant::new(shared::DEFAULT_LEASE_S),
            _lock: lock,
        })
    }

    /// Plays every unfinished game, `jobs` at a time, and returns the leaderboard. With a shared
    /// database it also waits for games other workers are playing, which come back to the queue
    /// if their worker dies.
    pub(crate) fn run(mut self) -> anyhow::Result<Leaderboard> {
        let runtime = koth_game::runtime()?;
        runtime.block_on(self.play_all(true))?;
        let progress = self.store.progress()?;
        if progress.harness_failed > 0 {
            eprintln!(
                "koth: {} games failed {ATTEMPTS} times through koth's own faults (see {}); \
                 `koth tournament resume {}` tries them again",
                progress.harness_failed,
                self.dir.join("tournament.log").display(),
                self.dir.display()
            );
        }
        leaderboard_of(&self.store, &self.dir)
    }

    /// Plays the games this koth can claim until there are none; returns how many games are
    /// still being played by other workers (0 on one machine).
    pub(crate) fn play_claimable(&mut self) -> anyhow::Result<u32> {
        let runtime = koth_game::runtime()?;
        runtime.block_on(self.play_all(false))?;
        self.store.unplayed(&self.refused)
    }

    /// Claims and plays games, `jobs` at a time, until none is left to claim; with
    /// `wait_for_others`, until every game this koth could play is done, including those other
    /// workers hold (which come back to the queue if their worker dies).
    async fn play_all(&mut self, wait_for_others: bool) -> anyhow::Result<()> {
        if self.sandbox.is_none() {
            tracing::warn!(
                "the bots run uncontained (sandbox = false): any of them can read the others' \
                 files and change the results"
            );
        }
        tracing::info!(
            jobs = self.jobs,
            seed = self.seed,
            worker = self.claimant.worker,
            "playing the unfinished games"
        );
        // A gauntlet resumed after its test decided (or killed just before it skipped the
        // games it no longer needed) skips them now.
        let opponents: Vec<usize> = self.gauntlet.iter().flat_map(|g| g.opponents()).collect();
        for opponent in opponents {
            self.skip_decided(opponent)?;
        }
        let progress = self.store.progress()?;
        let bar = ProgressBar::new((progress.total - progress.skipped) as u64)
            .with_position(progress.done as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:30} {pos}/{len} games  {elapsed} (ETA {eta})  {msg}",
            )
            .expect("a valid template"),
        );
        let points = Points::new(self.bots.len(), &self.store)?;
        bar.set_message(points.leader(&self.bots));
        let (jobs, game) = (self.jobs, self.game);
        let mut policy = TournamentPolicy {
            tournament: self,
            bar: bar.clone(),
            points,
            total: progress.total,
            wait_for_others,
        };
        runner::run(&mut policy, jobs, game).await?;
        bar.finish();
        Ok(())
    }

    /// Gives a gauntlet a finished game's result (and, in a shared database, those other
    /// workers recorded against the same opponent); when that decides the test against the
    /// game's opponent, skips the opponent's games not yet started and says so.
    fn take_gauntlet_result(
        &mut self,
        game: &ScheduledGame,
        result: &MatchResult,
    ) -> anyhow::Result<Option<String>> {
        let Some(gauntlet) = &mut self.gauntlet else {
            return Ok(None);
        };
        let Some(opponent) = gauntlet.opponent_of(game.index) else {
            return Ok(None);
        };
        if self.store.is_shared() {
            let against: Vec<u32> = gauntlet.games_against(opponent).collect();
            let results = self.store.results_of(&against)?;
            for game in results.chunk_by(|a, b| a.game == b.game) {
                let seats: Vec<usize> = game.iter().map(|r| r.bot).collect();
                let scores: Vec<f64> = game.iter().map(|r| r.score).collect();
                gauntlet.add(game[0].game, &seats, &scores);
            }
        } else {
            let scores: Vec<f64> = result.bots.iter().map(|b| b.score).collect();
            gauntlet.add(game.index, &game.seats, &scores);
        }
        let decision = gauntlet.decision(opponent);
        let skipped = self.skip_decided(opponent)?;
        let Some(decision) = decision.filter(|_| skipped > 0) else {
            return Ok(None);
        };
        let (challenger, opponent) = (&self.bots[0].name, &self.bots[opponent].name);
        let verdict = match decision.verdict {
            Verdict::Stronger => "is stronger than",
            _ => "is not stronger than",
        };
        let message = format!(
            "the SPRT decided after {} pairs (LLR {:.2}): {challenger} {verdict} {opponent}; \
             the {skipped} games left against {opponent} are skipped",
            decision.pairs, decision.llr
        );
        tracing::info!("{}", text::shown(&message));
        Ok(Some(message))
    }

    /// If the gauntlet's test against `opponent` has decided, skips that opponent's games not
    /// yet claimed (those running finish and count); returns how many.
    fn skip_decided(&mut self, opponent: usize) -> anyhow::Result<usize> {
        let Some(gauntlet) = self.gauntlet.as_ref().filter(|g| g.decided(opponent)) else {
            return Ok(0);
        };
        let against: Vec<u32> = gauntlet.games_against(opponent).collect();
        self.store.skip(&against)
    }

    /// The start-up failure streaks `result` changes: each of its bots' failures in a row after
    /// it, where that differs from before.
    fn streaks_after(&self, game: &ScheduledGame, result: &MatchResult) -> Vec<(usize, u32)> {
        game.seats
            .iter()
            .zip(&result.bots)
            .filter_map(|(&bot, outcome)| {
                let before = self.start_failures[bot];
                let after = if failed_at_start(outcome)? {
                    before + 1
                } else {
                    0
                };
                (after != before).then_some((bot, after))
            })
            .collect()
    }

    /// Benches every bot whose start-up failures in a row (`streaks`: the bots whose streak
    /// this game changed) reach [`BENCH_AFTER`]; returns the bots it benched.
    fn bench_failing(&mut self, streaks: &[(usize, u32)]) -> anyhow::Result<Vec<usize>> {
        let mut benched = Vec::new();
        for &(bot, failures) in streaks {
            if failures >= BENCH_AFTER && self.bots[bot].benched.is_none() {
                let unbench = koth_base::interrupt::shell_command(&[
                    "koth".as_ref(),
                    "tournament".as_ref(),
                    "resume".as_ref(),
                    self.dir.as_os_str(),
                    "--unbench".as_ref(),
                    self.bots[bot].name.as_ref(),
                ]);
                let reason = format!(
                    "benched after failing at start-up (not starting, or crashing before its \
                     first answer) in {BENCH_AFTER} games in a row; `{unbench}` gives it its \
                     seats back"
                );
                self.store.bench(bot, &reason)?;
                tracing::warn!(bot = self.bots[bot].name, "{reason}");
                self.bots[bot].benched = Some(reason);
                benched.push(bot);
            }
        }
        Ok(benched)
    }

    fn setup_parts(&self, game: &ScheduledGame, claim: Claim) -> anyhow::Result<GameParts> {
        let bots: Vec<BotSpec> = game.seats.iter().map(|&b| self.bots[b].clone()).collect();
        Ok(GameParts::new(
            &self.settings,
            self.game,
            self.sandbox.clone(),
            claim,
            store::game_dir(&self.dir, game.index),
            self.store.data_of(&bots, &game.seats)?,
            bots,
        ))
    }
}

/// Whether a bot failed at start-up in a game (did not start, or crashed before its first
/// answer), for its streak towards the bench; `None` for a benched seat, which says nothing new
/// about the bot.
fn failed_at_start(outcome: &BotResult) -> Option<bool> {
    match outcome.status {
        BotStatus::FailedToStart => Some(true),
        BotStatus::Crashed => Some(outcome.timing.answers == 0),
        BotStatus::Benched => None,
        _ => Some(false),
    }
}

/// The tournament's gauntlet with `results` (the store's, by game then seat), if it is one.
fn gauntlet_of(store: &Store, results: &[StoredResult]) -> anyhow::Result<Option<Gauntlet>> {
    let Some(meta) = store.meta(GAUNTLET_META)? else {
        return Ok(None);
    };
    let sprt: Option<SprtConfig> = serde_json::from_str(&meta)
        .with_context(|| format!("the results database's gauntlet test is unreadable: {meta}"))?;
    let schedule = store.schedule()?;
    let mut gauntlet = Gauntlet::new(&schedule, sprt);
    for game in results.chunk_by(|a, b| a.game == b.game) {
        let seats: Vec<usize> = game.iter().map(|r| r.bot).collect();
        let scores: Vec<f64> = game.iter().map(|r| r.score).collect();
        gauntlet.add(game[0].game, &seats, &scores);
    }
    Ok(Some(gauntlet))
}

/// The leaderboard of a tournament's database, with its game folders in the tournament folder
/// `dir` (a shared database's game files are read from a temporary copy).
pub fn leaderboard_of(store: &Store, dir: &Path) -> anyhow::Result<Leaderboard> {
    let copies = store.is_shared().then(tempfile::tempdir).transpose()?;
    leaderboard_from(store, copies.as_ref().map_or(dir, |copies| copies.path()))
}

/// The leaderboard of a tournament's database, with its game folders under `dir`: the
/// tournament folder, or for a shared database where copies of its games' files are made and
/// kept ([`Store::game_folder`]), as a dashboard keeps them between requests.
pub fn leaderboard_from(store: &Store, dir: &Path) -> anyhow::Result<Leaderboard> {
    let names: Vec<String> = store.bots()?.into_iter().map(|b| b.name).collect();
    let on_bench: Vec<usize> = store.benched()?.into_iter().map(|(bot, _)| bot).collect();
    let results = store.results()?;
    // A server reads a large file before the check of its pages has ended (`koth serve`), so a
    // result naming no bot is refused here rather than read as an index.
    if let Some(stray) = results.iter().find(|r| r.bot >= names.len()) {
        anyhow::bail!(
            "a result of game {} names bot {}, and there are {} bots",
            stray.game,
            stray.bot,
            names.len()
        );
    }
    let game = store
        .meta("game")?
        .and_then(|game| koth_game::registry::by_name(&game));
    let mut board = Leaderboard::new(
        store.meta("name")?.unwrap_or_default(),
        store.progress()?,
        &names,
        &on_bench,
        &results,
        game.map_or((Average::Arithmetic, Ranking::Placement), |game| {
            (game.average(), game.ranking())
        }),
    );
    board.uncontained = store.meta(SANDBOX_META)?.as_deref() == Some("off");
    board.gauntlet = gauntlet_of(store, &results)?.map(|g| g.report(&names));
    if let Some((game, file)) = game.and_then(|game| Some((game, game.breakdown_file()?))) {
        let mut played: Vec<u32> = results.iter().map(|r| r.game).collect();
        played.sort_unstable();
        played.dedup();
        let dirs = played
            .iter()
            .map(|&game| store.game_folder(dir, game, Some(file)))
            .collect::<anyhow::Result<Vec<PathBuf>>>()?;
        board.breakdown = game.breakdown(&dirs);
    }
    Ok(board)
}
