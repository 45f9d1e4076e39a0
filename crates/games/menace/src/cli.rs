//! `koth menace`: play against MENACE in the terminal, run noughts & crosses matches, and train
//! MENACE with a learning curve.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::matchbox::{Menace, parse_schedule};
use super::play::{DEFAULT_GAMES, GameRecord, GameSummary, Side, Tally, bots_of, play_match};
use super::rules::{Board, Mark, Outcome, parse_square_for_people, square_name};
use koth_bot::roster::check_unique_names;
use koth_bot::{build, sandbox};
use koth_game::cli::{AnyGameArg, LogDirArg, SandboxArgs, SeedArg, TimeoutArg, report};
use koth_game::{GameCommand, MatchSetup};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Play noughts & crosses against MENACE on stdin/stdout (you are O; MENACE moves first).
    Play(PlayArgs),
    /// Play games between two players: menace, random, perfect or a bot folder.
    Match(MatchArgs),
    /// Train MENACE (as X) against an opponent and show its wins, draws and losses per block.
    Train(TrainArgs),
}

#[derive(Debug, clap::Args)]
struct PlayArgs {
    /// Matchbox file: loaded if it exists, saved after every game.
    #[arg(long, value_name = "FILE")]
    boxes: Option<PathBuf>,
    #[command(flatten)]
    seed: SeedArg,
    /// Beads per free square in new boxes, by MENACE's move number 1–4 (a loaded file keeps its own).
    #[arg(long, value_name = "N,N,N,N", default_value = "4,3,2,1", value_parser = parse_schedule_arg)]
    schedule: [u32; 4],
    /// After each game, print all 304 matchboxes with their beads (the seed's program did).
    #[arg(long)]
    show_boxes: bool,
}

#[derive(Debug, clap::Args)]
struct MatchArgs {
    /// The X player (moves first): menace, random, perfect or a bot folder.
    #[arg(long, value_name = "PLAYER")]
    x: String,
    /// The O player: random, perfect or a bot folder.
    #[arg(long, value_name = "PLAYER")]
    o: String,
    /// Games in the match; one game is a board of noughts & crosses played to a win or a draw.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_GAMES,
          value_parser = clap::value_parser!(u32).range(1..))]
    games: u32,
    /// Swap X and O after every game, as tournaments do (MENACE, which plays X only, cannot).
    #[arg(long)]
    alternate: bool,
    #[command(flatten)]
    seed: SeedArg,
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
struct TrainArgs {
    /// Games to train for; one game is a board of noughts & crosses played to a win or a draw.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    games: u32,
    /// The opponent, playing O: random, perfect or a bot folder.
    #[arg(long, value_name = "PLAYER")]
    opponent: String,
    /// Games per row of the table and point of the plot.
    #[arg(long, value_name = "N", default_value_t = 100)]
    block: u32,
    #[command(flatten)]
    seed: SeedArg,
    /// Writes the learning curve as an SVG plot here.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Matchbox file: loaded if it exists, saved at the end.
    #[arg(long, value_name = "FILE")]
    boxes: Option<PathBuf>,
    /// Beads per free square in new boxes, by MENACE's move number 1–4 (a loaded file keeps its own).
    #[arg(long, value_name = "N,N,N,N", default_value = "4,3,2,1", value_parser = parse_schedule_arg)]
    schedule: [u32; 4],
    #[command(flatten)]
    timeout: TimeoutArg,
    #[command(flatten)]
    log_dir: LogDirArg,
    #[command(flatten)]
    contain: SandboxArgs,
    #[command(flatten)]
    any_game: AnyGameArg,
}

fn parse_schedule_arg(text: &str) -> Result<[u32; 4], String> {
    parse_schedule(text).map_err(|e| format!("{e:#}"))
}
/// `koth menace` (also `koth tictactoe`), for the registry.
pub fn command() -> GameCommand {
    let mut command = GameCommand::new(
        "menace",
        "MENACE, the matchbox learner, and noughts & crosses (the game `tictactoe`; also `koth tictactoe`)",
        run,
    );
    command.command = command.command.visible_alias("tictactoe");
    command
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Command::Play(args) => {
            let stdin = std::io::stdin();
            let stdout = std::io::stdout();
            play(&args, &mut stdin.lock(), &mut stdout.lock())
        }
        Command::Match(args) => run_match(&args),
        Command::Train(args) => train(&args),
    }
}

/// The seed's interactive game. End of input ends the session quietly at any prompt.
fn play(args: &PlayArgs, input: &mut dyn BufRead, out: &mut dyn Write) -> anyhow::Result<()> {
    let seed = koth_game::seed::choose(args.seed.seed);
    let mut rng = koth_game::seed::rng(seed, 0);
    let mut menace = Menace::load_or_new(args.boxes.as_deref(), args.schedule)?;
    writeln!(out, "seed {seed}")?;
    writeln!(
        out,
        "You play O against MENACE (X, moves first). Name a square by row then column, \
         L/M/R = top/middle/bottom row and left/middle/right column (e.g. MM for the centre), \
         or by a digit 1-9 counted row by row from the top left."
    )?;
    let games = loop {
        write!(out, "How many games? ")?;
        out.flush()?;
        let Some(line) = read_line(input, out)? else {
            return Ok(());
        };
        match line.trim().parse::<u32>() {
            Ok(n) => break n,
            Err(_) => writeln!(out, "`{}` is not a number of games.", line.trim())?,
        }
    };
    // MENACE's wins, draws and losses this session.
    let mut record = [0u32; 3];
    for _ in 0..games {
        let beads_before = beads(&menace);
        writeln!(out, "new game")?;
        let mut board = Board::empty();
        let outcome = loop {
            if let Some(outcome) = board.outcome() {
                break outcome;
            }
            if board.to_move() == Mark::X {
                let square = menace.choose_move(&board, &mut rng);
                board = board.with(square, Mark::X);
                writeln!(out, "MENACE plays {}:\n{board}", square_name(square))?;
                continue;
            }
            let Some(square) = ask_move(&board, input, out)? else {
                // The beads drawn in this unfinished game go back: nothing is learned from it.
                menace.abandon_game();
                return Ok(());
            };
            board = board.with(square, Mark::O);
            writeln!(out, "You play {}:\n{board}", square_name(square))?;
        };
        menace.finish_game(outcome);
        let (verdict, column) = match outcome {
            Outcome::Won(Mark::X) => ("MENACE wins.", 0),
            Outcome::Draw => ("Draw.", 1),
            Outcome::Won(Mark::O) => ("You win.", 2),
        };
        record[column] += 1;
        writeln!(
            out,
            "{verdict} MENACE has won {}, drawn {} and lost {} this session; its 304 boxes hold \
             {} beads ({:+} this game){}.",
            record[0],
            record[1],
            record[2],
            beads(&menace),
            i64::from(beads(&menace)) - i64::from(beads_before),
            if args.show_boxes {
                ""
            } else {
                "; --show-boxes prints them all"
            }
        )?;
        if args.show_boxes {
            writeln!(out, "The matchboxes (move, board, beads):")?;
            for matchbox in menace.boxes() {
                writeln!(out, "{}", matchbox.line())?;
            }
        }
        if let Some(path) = &args.boxes {
            menace.save(path)?;
        }
    }
    Ok(())
}

/// The beads in all of MENACE's boxes.
fn beads(menace: &Menace) -> u32 {
    menace.boxes().iter().map(|b| b.total()).sum()
}

/// Prompts until the player names a free square; `None` at end of input.
fn ask_move(
    board: &Board,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> anyhow::Result<Option<usize>> {
    loop {
        write!(out, "Your move (O): ")?;
        out.flush()?;
        let Some(line) = read_line(input, out)? else {
            return Ok(None);
        };
        let text = line.trim();
        match parse_square_for_people(text) {
            None => writeln!(
                out,
                "`{text}` is not a square: type row then column (L/M/R each, e.g. ML) or a digit 1-9."
            )?,
            Some(square) if !board.is_free(square) => writeln!(
                out,
                "{} is taken: choose a free square (shown as .).",
                square_name(square)
            )?,
            Some(square) => return Ok(Some(square)),
        }
    }
}

/// One line of input; `None` at end of input, after ending the prompt's line.
fn read_line(input: &mut dyn BufRead, out: &mut dyn Write) -> anyhow::Result<Option<String>> {
    let mut line = String::new();
    if input.read_line(&mut line).context("cannot read stdin")? == 0 {
        writeln!(out)?;
        return Ok(None);
    }
    Ok(Some(line))
}

/// The side `arg` names for `mark`, its bot (if it is one) not built yet: see [`build_side`].
fn side_from_arg(arg: &str, mark: Mark, any_game: &AnyGameArg) -> anyhow::Result<Side> {
    if arg == "menace" && mark == Mark::O {
        bail!("MENACE plays X only (its matchboxes hold X's positions): use --x menace");
    }
    Side::from_arg(arg, any_game)
}

/// Builds a bot side's program, if its folder says how.
fn build_side(side: &mut Side, contain: &SandboxArgs) -> anyhow::Result<()> {
    if let Side::Bot(spec) = side {
        *spec = build::prepare(
            std::slice::from_ref(spec),
            build::DEFAULT_BUILD_LIMIT,
            contain.sandbox().as_ref(),
        )?
        .remove(0);
    }
    Ok(())
}

fn run_match(args: &MatchArgs) -> anyhow::Result<()> {
    if args.alternate && (args.x == "menace" || args.o == "menace") {
        bail!("--alternate: MENACE plays X only (its matchboxes hold X's positions)");
    }
    let mut sides = vec![
        side_from_arg(&args.x, Mark::X, &args.any_game)?,
        side_from_arg(&args.o, Mark::O, &args.any_game)?,
    ];
    // Two bots of one name could not be told apart in the results, as in every other game.
    check_unique_names(&bots_of(&sides))?;
    for side in &mut sides {
        build_side(side, &args.contain)?;
    }
    let seed = args.seed.choose();
    let log_dir = args.log_dir.create("menace-match", Some(seed))?;
    contain_sides(&mut sides, &args.contain, &log_dir)?;
    let names: Vec<String> = sides.iter().map(Side::name).collect();
    let setup = MatchSetup {
        rounds: Some(args.games),
        ..MatchSetup::new(Vec::new(), seed, log_dir.clone(), args.timeout.limits())
    };
    let mut print_game = |game: &GameSummary, record: &GameRecord| {
        let moves: Vec<String> = game.moves.iter().map(|&s| square_name(s)).collect();
        let result = match record.outcome {
            Outcome::Won(m) => format!("{} wins", m.as_char()),
            Outcome::Draw => "draw".into(),
        };
        // Alternating, the sides swap marks: each line says who was X and who O.
        let sides = if args.alternate {
            format!(
                " (X {}, O {})",
                koth_base::text::shown(&game.x),
                koth_base::text::shown(&game.o)
            )
        } else {
            String::new()
        };
        print!(
            "game {}{sides}: {result:<6} moves {}",
            game.game,
            moves.join(" ")
        );
        if let Some(f) = &record.fault {
            let who = if f.mark == Mark::X { &game.x } else { &game.o };
            let at = f.turn.map(|t| format!(" at move {t}")).unwrap_or_default();
            print!(
                "  [{} {} lost by fault{at}: {}]",
                f.mark.as_char(),
                koth_base::text::shown(who),
                koth_base::text::shown(&f.reason)
            );
        }
        println!();
    };
    let played = koth_game::runtime()?.block_on(play_match(
        &setup,
        sides,
        args.alternate,
        &mut print_game,
    ))?;
    let [first, second] = played.tallies;
    if args.alternate {
        println!(
            "totals: {} wins {}, {} wins {}, draws {}",
            names[0], first.wins, names[1], second.wins, first.draws
        );
    } else {
        println!(
            "totals: X {} wins {}, O {} wins {}, draws {}",
            names[0], first.wins, names[1], second.wins, first.draws
        );
    }
    report::print_result(&played.result, &log_dir);
    Ok(())
}

/// Contains the sides that are bots, if `--sandbox` says so, each in a working folder of its
/// own under `log_dir`, even when both are the same bot.
fn contain_sides(sides: &mut [Side], contain: &SandboxArgs, log_dir: &Path) -> anyhow::Result<()> {
    let Some(sandbox) = contain.sandbox() else {
        return Ok(());
    };
    for (side, seat) in sides.iter_mut().zip(["x", "o"]) {
        if let Side::Bot(spec) = side {
            let contained = sandbox::contain(
                std::slice::from_ref(spec),
                Some(&sandbox),
                &log_dir.join("work").join(seat),
            )?;
            *spec = contained
                .into_iter()
                .next()
                .context("one bot was contained")?;
        }
    }
    Ok(())
}

/// MENACE's results in one block of training games.
struct Block {
    first_game: u32,
    tally: Tally,
}

fn train(args: &TrainArgs) -> anyhow::Result<()> {
    if args.block == 0 {
        bail!("--block must be at least 1");
    }
    let seed = args.seed.choose();
    let menace = Menace::load_or_new(args.boxes.as_deref(), args.schedule)?;
    let mut sides = vec![
        Side::Menace(menace),
        side_from_arg(&args.opponent, Mark::O, &args.any_game)?,
    ];
    build_side(&mut sides[1], &args.contain)?;
    let log_dir = args.log_dir.create("menace-train", Some(seed))?;
    contain_sides(&mut sides, &args.contain, &log_dir)?;
    let opponent = sides[1].name();
    let setup = MatchSetup {
        rounds: Some(args.games),
        ..MatchSetup::new(Vec::new(), seed, log_dir, args.timeout.limits())
    };
    let mut blocks: Vec<Block> = Vec::new();
    let mut faults = 0;
    let mut count = |game: &GameSummary, record: &GameRecord| {
        if (game.game - 1).is_multiple_of(args.block) {
            blocks.push(Block {
                first_game: game.game,
                tally: Tally::default(),
            });
        }
        if record.fault.is_some() {
            faults += 1;
        }
        let block = blocks.last_mut().expect("a block was started");
        block.tally.add(record.outcome, Mark::X);
    };
    let played = koth_game::runtime()?.block_on(play_match(&setup, sides, false, &mut count))?;
    println!(
        "MENACE (X) against {}, {} games, blocks of {}:",
        opponent, args.games, args.block
    );
    println!(
        "{:>13}  {:>6} {:>6} {:>6}",
        "games", "wins", "draws", "losses"
    );
    for block in &blocks {
        let t = block.tally;
        let last = block.first_game + t.wins + t.draws + t.losses - 1;
        let games = format!("{}-{}", block.first_game, last);
        println!("{games:>13}  {:>6} {:>6} {:>6}", t.wins, t.draws, t.losses);
    }
    if faults > 0 {
        println!("games lost by an opponent's fault: {faults}");
    }
    if let Some(path) = &args.plot {
        plot(&blocks, &opponent, path)?;
        println!("plot written to {}", path.display());
    }
    if let (Some(path), Some(menace)) = (&args.boxes, &played.menace) {
        menace.save(path)?;
        println!("matchboxes saved to {}", path.display());
    }
    Ok(())
}

/// The learning curve: the share of wins, draws and losses in each block.
fn plot(blocks: &[Block], opponent: &str, path: &Path) -> anyhow::Result<()> {
    use plotters::prelude::*;
    let draw = || -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::new(path, (800, 480)).into_drawing_area();
        root.fill(&WHITE)?;
        // Each block is drawn at its last game, so the x axis counts games played.
        let block_end = |b: &Block| {
            let t = b.tally;
            f64::from(b.first_game + t.wins + t.draws + t.losses - 1)
        };
        let last = blocks.last().map_or(1.0, block_end);
        let mut chart = ChartBuilder::on(&root)
            .caption(format!("MENACE (X) against {opponent}"), ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0f64..last, 0f64..100f64)?;
        chart
            .configure_mesh()
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .x_desc("games played")
            .y_desc("% of the block's games")
            .draw()?;
        type Pick = fn(&Tally) -> u32;
        let series: [(&str, RGBColor, Pick); 3] = [
            ("wins", GREEN, |t| t.wins),
            ("draws", BLUE, |t| t.draws),
            ("losses", RED, |t| t.losses),
        ];
        for (label, color, pick) in series {
            chart
                .draw_series(LineSeries::new(
                    blocks.iter().map(|b| {
                        let t = b.tally;
                        let n = (t.wins + t.draws + t.losses).max(1);
                        (block_end(b), 100.0 * f64::from(pick(&t)) / f64::from(n))
                    }),
                    color.stroke_width(2),
                ))?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| anyhow::anyhow!("cannot write the plot {}: {e}", path.display()))
}
