//! `koth ratrace`: runs boards for one player, prints and records every board's seed and points,
//! and the run's geometric mean.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};

use super::boards::{Contestant, Match, Options, play};
use super::direct;
use super::play::{BoardRecord, Summary, board_rng, board_seed, protocol_of};
use super::player;
use super::plot;
use super::protocol::Protocol;
use super::recording::{BoardRecording, shown_board, stored_board};
use super::track::Track;
use koth_base::cpu::Claim;
use koth_bot::sandbox;
use koth_bot::{BotSpec, build};
use koth_game::GameCommand;
use koth_game::cli::{AnyGameArg, LogDirArg, SandboxArgs, SeedArg, TimeoutArg, report};
use koth_game::stats;
use koth_game::{MatchSetup, RecordBoards};

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
    /// The protocol the bot speaks: text, lean, or direct for a WASI bot (docs/games/ratrace.md).
    /// For --bot, the default is what its bot.toml asks for under [protocols]; for --bot-cmd,
    /// text.
    #[arg(long, value_name = "NAME", conflicts_with = "player")]
    protocol: Option<String>,
    /// Boards to play; one board is a fresh track from the seed, raced for up to 10,000 turns.
    #[arg(long, value_name = "N", default_value_t = 50)]
    boards: usize,
    #[command(flatten)]
    seed: SeedArg,
    /// Boards played at once (threads; one bot process per job).
    #[arg(long, value_name = "N", default_value_t = 1)]
    jobs: usize,
    #[command(flatten)]
    log_dir: LogDirArg,
    /// Print board N's track (from 1, the first board) and exit.
    #[arg(long, value_name = "N")]
    dump_track: Option<usize>,
    #[command(flatten)]
    timeout: TimeoutArg,
    /// Write an SVG of population and points over turns per board (board-<N>.svg, N from 1).
    #[arg(long)]
    plot: bool,
    /// Which boards to record turn by turn in board-<N>.replay.json (N from 1), for `koth
    /// replay`: first-and-faulted (board 1, and the first board that ended with a fault of the
    /// bot), none or all.
    #[arg(long, value_name = "NAME", default_value_t = RecordBoards::FirstAndFaulted)]
    record_boards: RecordBoards,
    /// Record board N (from 1) too, whatever --record-boards chose; repeat for more boards.
    #[arg(long, alias = "record-board", value_name = "N")]
    also_record: Vec<usize>,
    /// Leave CPU placement to the OS. By default, with a bot player, each job and its bot
    /// process share one CPU of their own, when there is a free one for every job (one no other
    /// koth holds): a turn is a round trip between them, and waking another CPU for each one
    /// doubled a board's time.
    #[arg(long)]
    no_pin: bool,
    #[command(flatten)]
    contain: SandboxArgs,
    #[command(flatten)]
    any_game: AnyGameArg,
}

/// The most boards of a run: a record of every board is kept for results.json.
const MAX_BOARDS: usize = 1_000_000;
/// The most jobs of a run: each is a thread (and, for a bot, a process) of its own.
const MAX_JOBS: usize = 1024;
/// `koth ratrace`, for the registry.
pub fn command() -> GameCommand {
    GameCommand::new("ratrace", "Run the Genetic Rat Race for one player", run)
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let run_seed = args.seed.choose();
    if let Some(shown) = args.dump_track {
        return dump_track(shown, run_seed);
    }
    let contestant = contestant(&args)?;
    check_counts(&args)?;
    let log_dir = args.log_dir.create("ratrace", Some(run_seed))?;
    let (bots, built_in) = match contestant {
        Contestant::Bot(spec) => (
            sandbox::contain(&[*spec], args.contain.sandbox().as_ref(), &log_dir)?,
            None,
        ),
        Contestant::BuiltIn(name) => (Vec::new(), Some(name)),
    };
    let player = built_in
        .clone()
        .or_else(|| bots.first().map(|b| b.name.clone()))
        .unwrap_or_default();
    // Held until the run ends: the CPUs its jobs keep to, one each (see `koth_base::cpu`).
    let claim = claim_cpus(&args, built_in.is_some());
    println!(
        "player {player} on {} boards, {} job(s) {}; logs in {}",
        args.boards,
        args.jobs,
        claim.describe(),
        log_dir.display()
    );
    let setup = MatchSetup {
        rounds: Some(args.boards as u32),
        cpus: claim.cpus().to_vec(),
        record_boards: args.record_boards,
        ..MatchSetup::new(bots, run_seed, log_dir.clone(), args.timeout.limits())
    };
    let options = Options {
        jobs: args.jobs,
        also_record: args
            .also_record
            .iter()
            .filter_map(|&b| stored_board(b))
            .collect(),
        built_in,
    };
    let started = Instant::now();
    let played = play_all(&setup, &options)?;
    print_boards(&played.records, started.elapsed().as_secs_f64());
    if args.plot {
        for record in &played.records {
            let path = log_dir.join(format!("board-{}.svg", shown_board(record.board)));
            plot::board(&path, record)?;
        }
    }
    for &board in &played.recorded {
        let path = log_dir.join(BoardRecording::file_name(board));
        println!(
            "board {} recorded in {}",
            shown_board(board),
            path.display()
        );
    }
    report::print_result(&played.result, &log_dir);
    Ok(())
}

/// `--dump-track`: prints board `shown`'s track (boards count from 1).
fn dump_track(shown: usize, run_seed: u64) -> anyhow::Result<()> {
    let board = stored_board(shown).context("--dump-track 0: boards count from 1")?;
    let seed = board_seed(run_seed, board);
    let track = Track::generate(&mut board_rng(seed));
    println!("board {shown} seed {seed}");
    print!("{}", track.render());
    Ok(())
}

/// Refuses a count of boards or jobs out of range, and a board to record that the run lacks.
fn check_counts(args: &Args) -> anyhow::Result<()> {
    if !(1..=MAX_BOARDS).contains(&args.boards) {
        bail!("--boards {}: give 1 to {MAX_BOARDS} boards", args.boards);
    }
    if !(1..=MAX_JOBS).contains(&args.jobs) {
        bail!("--jobs {}: give 1 to {MAX_JOBS} jobs", args.jobs);
    }
    if let Some(board) = args
        .also_record
        .iter()
        .find(|&&b| !(1..=args.boards).contains(&b))
    {
        bail!(
            "--also-record {board}: the run has boards 1 to {}",
            args.boards
        );
    }
    Ok(())
}

/// The CPUs the run's jobs keep to, one each, for a bot player that is pinned.
fn claim_cpus(args: &Args, built_in: bool) -> Claim {
    if built_in {
        Claim::unpinned("a built-in player runs in koth's own threads".into())
    } else if args.no_pin {
        Claim::unpinned("--no-pin".into())
    } else {
        koth_base::cpu::claim(&koth_base::cpu::allowed(), args.jobs, args.jobs)
    }
}

/// Prints the run's points and its time per board (`elapsed` seconds in all).
fn print_boards(records: &[BoardRecord], elapsed: f64) {
    let points: Vec<u64> = records.iter().map(|r| r.points).collect();
    let summary = Summary::of(&points);
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
    let wall: Vec<f64> = records.iter().map(|r| r.seconds).collect();
    let cpu: Vec<f64> = records.iter().map(|r| r.cpu_seconds).collect();
    // Boards' costs are wildly uneven (a population that explodes costs ten times the
    // median board), so both the median and the mean are worth reading.
    println!(
        "per board: wall median {:.3} s, mean {:.3} s; CPU median {:.3} s, mean {:.3} s; {:.2} boards/s overall",
        stats::median(&wall),
        stats::mean(&wall),
        stats::median(&cpu),
        stats::mean(&cpu),
        records.len() as f64 / elapsed
    );
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
    let mut spec = if let Some(dir) = &args.bot {
        // Absolute, so the bot's name in logs and errors says exactly which folder ran.
        let dir = dir
            .canonicalize()
            .with_context(|| format!("no bot folder {}", dir.display()))?;
        args.any_game.load_bot("ratrace", &dir)?
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
            sandbox: None,
            benched: None,
            data: None,
            protocols: Default::default(),
        }
    } else {
        bail!("say who plays: --player NAME, --bot DIR or --bot-cmd \"CMD\"");
    };
    if let Some(protocol) = &args.protocol {
        spec.protocols.insert("ratrace".into(), protocol.clone());
    }
    // A protocol koth does not know is one error before anything is built or written.
    protocol_of(&spec)?;
    let spec = build::prepare(
        std::slice::from_ref(&spec),
        build::DEFAULT_BUILD_LIMIT,
        args.contain.sandbox().as_ref(),
    )?
    .remove(0);
    // A module the direct call cannot call is one error before any board.
    if protocol_of(&spec)? == Protocol::Direct {
        direct::check(&spec)?;
    }
    Ok(Contestant::Bot(Box::new(spec)))
}

/// Plays every board, printing each as it finishes under a progress bar.
fn play_all(setup: &MatchSetup, options: &Options) -> anyhow::Result<Match> {
    let progress = ProgressBar::new(u64::from(setup.rounds.unwrap_or_default()));
    progress.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} boards, {elapsed} (eta {eta})")
            .expect("the template is valid"),
    );
    let played = play(setup, options, &mut |record| {
        let mut line = format!(
            "board {:>3} seed {:>20} points {:>6} turns {:>5}",
            shown_board(record.board),
            record.seed,
            record.points,
            record.turns
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
    });
    progress.finish_and_clear();
    played
}
