//! `koth ratrace`: runs boards for one player, prints and records every board's seed and points,
//! and the run's geometric mean.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use rand::RngExt;
use serde::Serialize;

use super::board::{self, Sample};
use super::player::{self, Player};
use super::subprocess::SubprocessPlayer;
use super::track::Track;
use super::{plot, stats};
use crate::bot::{BotSpec, roster};
use crate::seed;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A built-in player: colorscore, random-forward.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["bot", "bot_cmd"])]
    player: Option<String>,
    /// A bot folder holding a bot.toml.
    #[arg(long, value_name = "DIR", conflicts_with = "bot_cmd")]
    bot: Option<PathBuf>,
    /// A bot's command line (split on whitespace, no shell), run in the current folder.
    #[arg(long, value_name = "CMD")]
    bot_cmd: Option<String>,
    /// How many boards to play.
    #[arg(long, default_value_t = 50)]
    boards: usize,
    /// The run's seed (random if not given; printed either way).
    #[arg(long)]
    seed: Option<u64>,
    /// Boards played at once (threads; one bot process per job).
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Where results.json (and plots, bot stderr) go; default logs/ratrace-<time>-seed<S>/.
    #[arg(long, value_name = "DIR")]
    log_dir: Option<PathBuf>,
    /// Print this board's track and exit.
    #[arg(long, value_name = "BOARD")]
    dump_track: Option<usize>,
    /// A subprocess player's time limit per turn, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    timeout_ms: u64,
    /// Write an SVG of population and points over turns per board (board-<b>.svg).
    #[arg(long)]
    plot: bool,
}

/// The seed of board `board` of the run with seed `run_seed`.
pub fn board_seed(run_seed: u64, board: usize) -> u64 {
    seed::rng(run_seed, board as u64).random::<u64>()
}

/// Stream 0 of a board's seed generates its track and then drives its population.
fn board_rng(board_seed: u64) -> seed::Rng {
    seed::rng(board_seed, 0)
}

#[derive(Debug, Serialize)]
pub struct BoardRecord {
    pub board: usize,
    pub seed: u64,
    pub points: u64,
    pub turns: u32,
    pub start_cells: usize,
    pub seconds: f64,
    /// The player's fault that ended the board early, if any.
    pub error: Option<String>,
    pub fault_kind: Option<crate::bot::FaultKind>,
    pub history: Vec<Sample>,
}

/// Plays board `board` for `player`.
pub fn play_board(
    run_seed: u64,
    board: usize,
    player_name: &str,
    player: &mut dyn Player,
) -> BoardRecord {
    let started = Instant::now();
    let seed = board_seed(run_seed, board);
    let mut rng = board_rng(seed);
    let track = Track::generate(&mut rng);
    let outcome = match player.begin_board(board, seed) {
        Ok(()) => board::play(&track, rng, player),
        Err(fault) => board::Outcome {
            points: 1,
            turns: 0,
            history: Vec::new(),
            fault: Some((0, fault)),
        },
    };
    player.end_board(board, outcome.points);
    let (error, fault_kind) = match outcome.fault {
        Some((turn, fault)) => (
            Some(format!(
                "player \"{player_name}\", board {board}, turn {turn}: {}",
                fault.reason
            )),
            Some(fault.kind),
        ),
        None => (None, None),
    };
    BoardRecord {
        board,
        seed,
        points: outcome.points,
        turns: outcome.turns,
        start_cells: track.starts.len(),
        seconds: started.elapsed().as_secs_f64(),
        error,
        fault_kind,
        history: outcome.history,
    }
}

/// Who plays: a built-in player or a bot process.
enum Contestant {
    BuiltIn(String),
    Bot(BotSpec),
}

impl Contestant {
    fn name(&self) -> &str {
        match self {
            Contestant::BuiltIn(name) => name,
            Contestant::Bot(spec) => &spec.name,
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let run_seed = seed::choose(args.seed);
    println!("seed {run_seed}");
    if let Some(board) = args.dump_track {
        let seed = board_seed(run_seed, board);
        let track = Track::generate(&mut board_rng(seed));
        println!("board {board} seed {seed}");
        print!("{}", track.render());
        return Ok(());
    }
    let contestant = contestant(&args)?;
    if args.jobs == 0 || args.boards == 0 {
        bail!("--jobs and --boards must be at least 1");
    }
    let log_dir = args.log_dir.clone().unwrap_or_else(|| {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        PathBuf::from(format!("logs/ratrace-{secs}-seed{run_seed}"))
    });
    std::fs::create_dir_all(&log_dir)
        .with_context(|| format!("cannot create log folder {}", log_dir.display()))?;
    println!(
        "player {} on {} boards, {} job(s); logs in {}",
        contestant.name(),
        args.boards,
        args.jobs,
        log_dir.display()
    );
    let started = Instant::now();
    let records = play_all(&args, &contestant, run_seed, &log_dir)?;
    let elapsed = started.elapsed().as_secs_f64();
    let points: Vec<u64> = records.iter().map(|r| r.points).collect();
    let summary = stats::Summary::of(&points);
    let faults = records.iter().filter(|r| r.error.is_some()).count();
    println!(
        "geometric mean {:.2} (95% interval {:.2}–{:.2}) over {} boards; {:.0}% of boards scored 1; median {}",
        summary.geometric_mean,
        summary.interval.0,
        summary.interval.1,
        points.len(),
        100.0 * summary.share_of_ones,
        summary.median
    );
    if faults > 0 {
        println!("{faults} board(s) ended by a player fault (see results.json)");
    }
    println!(
        "{:.3} s per board (mean), {:.2} boards/s overall",
        records.iter().map(|r| r.seconds).sum::<f64>() / records.len() as f64,
        records.len() as f64 / elapsed
    );
    if args.plot {
        for record in &records {
            let path = log_dir.join(format!("board-{}.svg", record.board));
            plot::board(&path, record)?;
        }
    }
    let results = serde_json::json!({
        "game": "ratrace",
        "player": contestant.name(),
        "seed": run_seed,
        "boards": records,
        "summary": summary,
        "faults": faults,
        "seconds": elapsed,
    });
    let path = log_dir.join("results.json");
    std::fs::write(&path, serde_json::to_string_pretty(&results)?)
        .with_context(|| format!("cannot write {}", path.display()))?;
    println!("results in {}", path.display());
    Ok(())
}

fn contestant(args: &Args) -> anyhow::Result<Contestant> {
    if let Some(name) = &args.player {
        if player::built_in(name).is_none() {
            bail!(
                "no built-in player \"{name}\" (there are: {})",
                player::BUILT_IN.join(", ")
            );
        }
        return Ok(Contestant::BuiltIn(name.clone()));
    }
    let spec = if let Some(dir) = &args.bot {
        // Absolute, because the bot runs inside its folder and its program path is joined to it.
        let dir = dir
            .canonicalize()
            .with_context(|| format!("no bot folder {}", dir.display()))?;
        roster::load_bot(&dir)?
    } else if let Some(command) = &args.bot_cmd {
        let words: Vec<String> = command.split_whitespace().map(str::to_string).collect();
        if words.is_empty() {
            bail!("--bot-cmd is empty");
        }
        BotSpec {
            name: words.join(" "),
            dir: std::env::current_dir()?,
            command: words,
            build: None,
            origin: "--bot-cmd".into(),
        }
    } else {
        bail!("say who plays: --player NAME, --bot DIR or --bot-cmd \"CMD\"");
    };
    roster::prepare(std::slice::from_ref(&spec))?;
    Ok(Contestant::Bot(spec))
}

/// Plays every board on `args.jobs` threads, printing each as it finishes; returns them in
/// board order.
fn play_all(
    args: &Args,
    contestant: &Contestant,
    run_seed: u64,
    log_dir: &Path,
) -> anyhow::Result<Vec<BoardRecord>> {
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel();
    let progress = ProgressBar::new(args.boards as u64);
    progress.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} boards, {elapsed} (eta {eta})")
            .expect("the template is valid"),
    );
    let mut records = Vec::with_capacity(args.boards);
    std::thread::scope(|scope| {
        for job in 0..args.jobs {
            let sender = sender.clone();
            let next = &next;
            scope.spawn(move || {
                let name = contestant.name().to_string();
                let play = |player: &mut dyn Player| loop {
                    let board = next.fetch_add(1, Ordering::Relaxed);
                    if board >= args.boards {
                        break;
                    }
                    if sender
                        .send(play_board(run_seed, board, &name, player))
                        .is_err()
                    {
                        break;
                    }
                };
                match contestant {
                    Contestant::BuiltIn(name) => {
                        let mut player = player::built_in(name).expect("checked before");
                        play(player.as_mut());
                    }
                    Contestant::Bot(spec) => {
                        match SubprocessPlayer::new(
                            spec.clone(),
                            Duration::from_millis(args.timeout_ms),
                            log_dir.join(format!("stderr-job{job}")),
                        ) {
                            Ok(mut player) => {
                                play(&mut player);
                                player.finish();
                            }
                            // Without a runtime this job plays nothing; the others go on,
                            // and a run that lost every job says so below.
                            Err(e) => eprintln!("koth: job {job} cannot start a runtime: {e}"),
                        }
                    }
                }
            });
        }
        drop(sender);
        for record in receiver {
            let mut line = format!(
                "board {:>3} seed {:>20} points {:>6} turns {:>5}",
                record.board, record.seed, record.points, record.turns
            );
            if let Some(error) = &record.error {
                line.push_str(&format!("  ERROR: {error}"));
            }
            // A hidden bar (output is not a terminal) drops println; the lines matter more.
            if progress.is_hidden() {
                println!("{line}");
            } else {
                progress.println(line);
            }
            progress.inc(1);
            records.push(record);
        }
    });
    progress.finish_and_clear();
    if records.len() < args.boards {
        bail!(
            "only {} of {} boards were played (see the messages above)",
            records.len(),
            args.boards
        );
    }
    records.sort_by_key(|r| r.board);
    Ok(records)
}
