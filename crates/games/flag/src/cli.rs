//! `koth flag`: run the GA on a level (`solve`), solve it exactly (`exact`), or let a solver bot
//! play levels (`play`).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use clap::Subcommand;
use indicatif::{ProgressBar, ProgressStyle};

use super::exact::{self, Verdict};
use super::ga::{self, Generation, Params};
use super::play::{Flag, SHIPPED, load_levels};
use super::rules::{Level, Move, Walker, moves_to_string, walk};
use koth_game::cli::{self, AnyGameArg, LogDirArg, SandboxArgs, SeedArg, TimeoutArg, report};
use koth_game::{GameCommand, MatchSetup};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the genetic algorithm on a level, animate its best path and compare with the optimum.
    Solve(SolveArgs),
    /// Print a shortest solution of a level, or prove that it has none.
    Exact {
        /// A level file (see levels/flag/).
        #[arg(value_name = "FILE")]
        level: PathBuf,
    },
    /// Give levels to a solver bot over the line protocol and score its answers.
    // A solver may search a whole level for its one answer.
    #[command(mut_arg("timeout_ms", |a| a.default_value("5000")))]
    Play(PlayArgs),
}

#[derive(Debug, clap::Args)]
struct PlayArgs {
    /// Level files, played in order. Default: the levels a tournament plays (the shipped
    /// solvable ones, easiest first).
    #[arg(value_name = "FILE")]
    levels: Vec<PathBuf>,
    /// The solver bot's folder (holding its bot.toml).
    #[arg(long, value_name = "DIR")]
    bot: PathBuf,
    #[command(flatten)]
    timeout: TimeoutArg,
    #[command(flatten)]
    log_dir: LogDirArg,
    #[command(flatten)]
    contain: SandboxArgs,
    #[command(flatten)]
    any_game: AnyGameArg,
}

#[derive(Debug, clap::Args)]
struct SolveArgs {
    /// A level file (see levels/flag/).
    #[arg(value_name = "FILE")]
    level: PathBuf,
    #[command(flatten)]
    seed: SeedArg,
    /// Generations at most.
    #[arg(long, value_name = "N", default_value_t = Params::default().generations)]
    generations: u32,
    /// Walks in the population.
    #[arg(long, value_name = "N", default_value_t = Params::default().population)]
    population: usize,
    /// Chance that a pair of parents is crossed over.
    #[arg(long, value_name = "RATE", default_value_t = Params::default().crossover_rate)]
    crossover_rate: f64,
    /// Each child gets 0..=N mutated genes.
    #[arg(long, value_name = "N", default_value_t = Params::default().max_mutations)]
    max_mutations: usize,
    /// Rivals per tournament pick.
    #[arg(long, value_name = "N", default_value_t = Params::default().tournament)]
    tournament: usize,
    /// Restart from a random population after this many generations without progress.
    #[arg(long, value_name = "N", default_value_t = Params::default().restart_after)]
    restart_after: u32,
    /// Keep running after a solution is found, up to --generations.
    #[arg(long)]
    keep_going: bool,
    /// Print the best fitness and steps every N generations.
    #[arg(long, value_name = "N", default_value_t = 500)]
    report_every: u32,
    /// Print the final path and map instead of animating it.
    #[arg(long)]
    no_animate: bool,
    /// Delay per animated step, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 150)]
    step_ms: u64,
    #[command(flatten)]
    log_dir: LogDirArg,
}
/// `koth flag`, for the registry.
pub fn command() -> GameCommand {
    GameCommand::new(
        "flag",
        "Reach the Flag: a genetic algorithm, an exact solver, and a game for solver bots",
        run,
    )
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Command::Solve(args) => solve(args),
        Command::Exact { level } => {
            let level = Level::load(&level)?;
            print_exact(&level, &exact::solve(&level)?);
            Ok(())
        }
        Command::Play(args) => play(&args),
    }
}

fn print_exact(level: &Level, verdict: &Verdict) {
    match verdict {
        Verdict::Solved(moves) => println!(
            "exact: level {} is solved in {} moves (shortest): {}",
            level.name,
            moves.len(),
            moves_to_string(moves)
        ),
        Verdict::Unsolvable => println!("exact: level {} has no solution", level.name),
    }
}

fn solve(args: SolveArgs) -> anyhow::Result<()> {
    let level = Level::load(&args.level)?;
    let seed = args.seed.choose();
    let params = Params {
        population: args.population,
        tournament: args.tournament,
        crossover_rate: args.crossover_rate.clamp(0.0, 1.0),
        max_mutations: args.max_mutations,
        generations: args.generations,
        restart_after: args.restart_after,
        stop_when_solved: !args.keep_going,
        ..Params::default()
    };
    let log_dir = args.log_dir.create("flag-solve", Some(seed))?;
    let run = run_with_progress(&level, &params, seed, args.report_every.max(1));
    write_history(&log_dir, &run.history)?;
    plot(&log_dir.join("progress.svg"), &level, &run.history)?;

    let animate = !args.no_animate && std::io::stdout().is_terminal();
    if animate {
        animate_path(&level, &run.best, Duration::from_millis(args.step_ms))?;
    } else {
        let (_, walker) = walk(&level, run.best.iter().copied());
        println!("start:");
        print!("{}", render(&level, &Walker::new(&level), false));
        println!("after the best path:");
        print!("{}", render(&level, &walker, false));
    }
    print_run(&level, &run)?;
    println!(
        "plot and history: {}",
        log_dir.join("progress.svg").display()
    );
    Ok(())
}

/// Runs the GA on `level` with `seed`'s stream 0 behind a progress bar, printing a line every
/// `report_every` generations and at each restart.
fn run_with_progress(level: &Level, params: &Params, seed: u64, report_every: u32) -> ga::Run {
    let bar = ProgressBar::new(u64::from(params.generations));
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} generations {per_sec} {msg}")
            .expect("the template is valid"),
    );
    let mut best_so_far = i64::MIN;
    let run = ga::run(
        level,
        params,
        &mut koth_game::seed::rng(seed, 0),
        |g: &Generation| {
            best_so_far = best_so_far.max(g.best_fitness);
            if g.restarted {
                bar.println(format!(
                    "generation {}: restart from a random population",
                    g.number
                ));
            }
            if g.number.is_multiple_of(report_every) {
                bar.println(format!(
                    "generation {:>6}: best fitness {:>5}, steps {:>3}",
                    g.number, g.best_fitness, g.best_steps
                ));
            }
            if g.number.is_multiple_of(50) {
                bar.set_position(u64::from(g.number));
                bar.set_message(format!("best fitness {best_so_far}"));
            }
        },
    );
    bar.finish_and_clear();
    run
}

/// Prints the GA's best path and fitness, and how it compares with the exact solver's answer.
fn print_run(level: &Level, run: &ga::Run) -> anyhow::Result<()> {
    let outcome = &run.best_outcome;
    println!(
        "best path ({} genes, the moves that were steps): {}",
        run.best.len(),
        moves_to_string(&steps_taken(level, &run.best))
    );
    println!(
        "best fitness {}, {} steps, {}",
        outcome.fitness,
        outcome.steps,
        match run.solved_at {
            Some(g) => format!("solved at generation {g}"),
            None => format!("not solved in {} generations", run.history.len()),
        }
    );
    let verdict = exact::solve(level)?;
    print_exact(level, &verdict);
    if let (Verdict::Solved(optimal), true) = (&verdict, outcome.solved) {
        println!(
            "the GA's solution takes {} moves, {} more than the shortest",
            outcome.steps,
            (outcome.steps as usize).saturating_sub(optimal.len())
        );
    }
    Ok(())
}

/// The moves of `genes` that moved the walker, up to where the walk got stuck.
fn steps_taken(level: &Level, genes: &[Move]) -> Vec<Move> {
    let mut walker = Walker::new(level);
    let mut taken = Vec::new();
    for &m in genes {
        if walker.is_solved() || walker.is_blocked() {
            break;
        }
        if walker.step(m) {
            taken.push(m);
        }
    }
    taken
}

fn write_history(dir: &Path, history: &[Generation]) -> anyhow::Result<()> {
    let mut text = String::from("generation,best_fitness,best_steps,restarted\n");
    for g in history {
        text.push_str(&format!(
            "{},{},{},{}\n",
            g.number, g.best_fitness, g.best_steps, g.restarted
        ));
    }
    let path = dir.join("history.csv");
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// The seed's two curves: best fitness and steps of the best, per generation.
fn plot(path: &Path, level: &Level, history: &[Generation]) -> anyhow::Result<()> {
    use plotters::prelude::*;
    let last = history.last().map_or(1, |g| g.number.max(1));
    let lo = history
        .iter()
        .map(|g| g.best_fitness.min(0))
        .min()
        .unwrap_or(0);
    let hi = history
        .iter()
        .map(|g| g.best_fitness.max(i64::from(g.best_steps)))
        .max()
        .unwrap_or(1)
        .max(lo + 1);
    let root = SVGBackend::new(path, (900, 500)).into_drawing_area();
    let draw = || -> Result<(), Box<dyn std::error::Error + '_>> {
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("Reach the Flag: {}", level.name),
                ("sans-serif", 22),
            )
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0u32..last, lo..hi + 1)?;
        chart
            .configure_mesh()
            .x_desc("generation")
            .y_desc("best of generation")
            .draw()?;
        chart
            .draw_series(LineSeries::new(
                history.iter().map(|g| (g.number, g.best_fitness)),
                &BLUE,
            ))?
            .label("fitness")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
        chart
            .draw_series(LineSeries::new(
                history.iter().map(|g| (g.number, i64::from(g.best_steps))),
                &RED,
            ))?
            .label("steps")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
        chart.configure_series_labels().border_style(BLACK).draw()?;
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| anyhow::anyhow!("cannot draw {}: {e}", path.display()))
}

/// The map as the walker sees it: `@` the walker, `F` the flag, `1`/`2` steps left, `#` grey,
/// blank for fallen tiles and holes; in colour on a terminal.
fn render(level: &Level, walker: &Walker, colour: bool) -> String {
    let mut text = String::new();
    for row in 0..level.height {
        for col in 0..level.width {
            let at = row * level.width + col;
            let (c, paint) = if at == walker.pos {
                ('@', "1;31")
            } else if at == level.flag {
                ('F', "1;32")
            } else if !walker.walkable(at) {
                (' ', "0")
            } else {
                match walker.steps_left(at) {
                    None => ('#', "37"),
                    Some(1) => ('1', "93"),
                    Some(_) => ('2', "33"),
                }
            };
            if colour {
                text.push_str(&format!("\x1b[{paint}m{c}\x1b[0m "));
            } else {
                text.push(c);
                text.push(' ');
            }
        }
        text.push('\n');
    }
    text
}

fn animate_path(level: &Level, genes: &[Move], delay: Duration) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let mut walker = Walker::new(level);
    write!(out, "{}", render(level, &walker, true))?;
    for m in steps_taken(level, genes) {
        walker.step(m);
        // Back to the top of the map and draw it again over itself.
        write!(
            out,
            "\x1b[{}A{}",
            level.height,
            render(level, &walker, true)
        )?;
        out.flush()?;
        std::thread::sleep(delay);
    }
    Ok(())
}

fn play(args: &PlayArgs) -> anyhow::Result<()> {
    let levels = if args.levels.is_empty() {
        SHIPPED.levels.clone()
    } else {
        load_levels(&args.levels)?
    };
    let spec = args.any_game.load_bot("flag", &args.bot)?;
    // Nothing in flag is random: the folder is named without a seed, and seed 0 is recorded.
    let (log_dir, bots) = cli::match_folder(
        "flag-play",
        None,
        &args.log_dir,
        &args.contain,
        &[spec],
        Vec::new(),
    )?;
    let setup = MatchSetup::new(bots, 0, log_dir.clone(), args.timeout.limits());
    let game = Flag { levels };
    let runtime = koth_game::runtime()?;
    let (result, per_level) = runtime.block_on(game.play_levels(&setup))?;
    for (level, outcome) in game.levels.iter().zip(&per_level) {
        println!(
            "{:<20} {:<10} fitness {:>5}  {} moves",
            level.name,
            if outcome.solved {
                "solved"
            } else {
                "not solved"
            },
            outcome.fitness,
            // A move is one byte; a long walk is kept cut, with its length.
            koth_bot::cut_line_parts(&outcome.moves).map_or(outcome.moves.len(), |(_, n)| n)
        );
    }
    let bot = &result.bots[0];
    println!(
        "{}: {} of {} levels solved ({})",
        bot.name,
        bot.score,
        per_level.len(),
        bot.status.as_str()
    );
    report::print_result(&result, &log_dir);
    Ok(())
}
