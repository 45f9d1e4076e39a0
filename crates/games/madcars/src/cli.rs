//! `koth madcars`: one game of Mad Cars between two bot folders, with the end-of-match report
//! and each match's map, car, length and losers.

use std::path::PathBuf;

use super::play::{self, DEFAULT_MATCHES, Options};
use koth_game::GameCommand;
use koth_game::cli::{MatchArgs, OneMatch, report};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A bot folder holding a bot.toml; give two: the first is player 1 (it starts on the left).
    #[arg(long, value_name = "DIR", num_args = 1, required = true)]
    bot: Vec<PathBuf>,
    /// Matches in the game; one match is a map and a car (a pair drawn with the seed, each
    /// match's distinct), played to its end. Each player has half as many lives,
    /// rounded up.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MATCHES,
          value_parser = clap::value_parser!(u32).range(1..))]
    matches: u32,
    /// Draw only from these maps (repeat for more): PillMap, PillHubbleMap, PillHillMap,
    /// PillCarcassMap, IslandMap, IslandHoleMap.
    #[arg(long, value_name = "NAME")]
    map: Vec<String>,
    /// Draw only from these cars (repeat for more): Buggy, Bus, SquareWheelsBuggy.
    #[arg(long, value_name = "NAME")]
    car: Vec<String>,
    #[command(flatten)]
    common: MatchArgs,
    /// Keep koth and both bots on this CPU: a tick is a round trip between koth and each bot,
    /// and on one CPU none of them wakes another (a quarter less of koth's time per tick on a
    /// busy machine), but the two bots then think one after the other: for quick bots, or one
    /// game per CPU. If another koth holds the CPU, the game runs unpinned and says so.
    #[arg(long, value_name = "N", value_parser = koth_base::cpu::parse_cpu)]
    cpu: Option<usize>,
    /// Print koth's own CPU time per tick at the end (for the benchmarks).
    #[arg(long, hide = true)]
    report_cpu: bool,
}
/// `koth madcars`, for the registry.
pub fn command() -> GameCommand {
    GameCommand::new(
        "madcars",
        "Mad Cars, the Mini AI Cup 2018 physics duel: a game of matches between two bots",
        run,
    )
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if args.bot.len() != 2 {
        anyhow::bail!("--bot: give two bot folders, not {}", args.bot.len());
    }
    super::physics::check_available()?;
    let bots = args.common.any_game.load_bots("madcars", &args.bot)?;
    let seed = args.common.seed.choose();
    let options = Options {
        matches: Some(args.matches),
        maps: args.map.clone(),
        cars: args.car.clone(),
    };
    // A mistake in --map, --car or --matches is reported before any folder is made.
    play::draw_pairs(&options, args.matches, seed)?;
    let prepared = args.common.prepare(OneMatch {
        game: "madcars",
        bots,
        lent: Vec::new(),
        seed,
        rounds: args.matches,
        unit: "match",
        options: Default::default(),
        cpu: args.cpu,
    })?;
    let (result, game) = koth_game::runtime()?.block_on(play::play(&prepared.setup, &options))?;
    prepared.ended();
    for (index, played) in game.matches.iter().enumerate() {
        let losers = if played.losers.is_empty() {
            "no one (the tick cap)".to_string()
        } else {
            played.losers.join(" and ")
        };
        println!(
            "match {}: {:<15} {:<18} {:>5} ticks, lost by {losers}",
            index + 1,
            played.map,
            played.car,
            played.ticks
        );
    }
    if game.tick_cap_reached {
        println!(
            "the game reached {} ticks: it is decided on the lives left",
            super::rules::MAX_TICKS
        );
    }
    match &game.winner {
        Some(winner) => println!("winner: {winner}"),
        None => println!("a draw"),
    }
    prepared.report(&result);
    if args.report_cpu {
        let cpu = report::own_cpu()?;
        println!(
            "koth cpu: {} ms over {} ticks = {:.1} µs/tick",
            cpu.as_millis(),
            game.ticks,
            cpu.as_secs_f64() * 1e6 / f64::from(game.ticks.max(1))
        );
    }
    Ok(())
}
