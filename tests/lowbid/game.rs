//! Lowest unique bid: 3 to 8 bots bid at once each round, a whole number from 1 to 100; the
//! lowest bid that no other bot made scores 1 point. Played on koth's loop of bots answering
//! together (`koth::game::together`), shown by its viewer kit (`koth::replay::kit`).
//!
//! The protocol: koth writes `BID <round>`, the bot answers its bid; before the next prompt koth
//! writes `WON <bid>` (the winning bid, 0 if every bid was shared).

use std::path::{Path, PathBuf};

use koth::bot::{At, FaultKind, Restart, SeatOptions};
use koth::cli::MatchArgs;
use koth::game::together::{RoundGame, Table, TogetherRules, play_together};
use koth::game::{
    BoxFuture, Game, GameCommand, MatchResult, MatchSetup, Ranking, Replay, ReplayAt,
    ReplayOptions, play_placed,
};
use koth::replay::kit;
use koth::replay::record::{Line, Record};
use koth::replay::tui::story::{self, Story};

/// The game, for the registry.
pub struct LowBid;

const NAME: &str = "lowbid";
const HIGHEST: u32 = 100;
const RULES: TogetherRules = TogetherRules {
    default_rounds: 10,
    first_round: 1,
};
const PAGE: &str = include_str!("page.html");

/// The rules: the seat whose bid no other seat made and is the lowest such, if any.
fn winner(bids: &[Option<u32>]) -> Option<usize> {
    let unique = |bid: u32| bids.iter().filter(|b| **b == Some(bid)).count() == 1;
    bids.iter()
        .enumerate()
        .filter_map(|(seat, bid)| bid.filter(|&b| unique(b)).map(|b| (seat, b)))
        .min_by_key(|&(_, bid)| bid)
        .map(|(seat, _)| seat)
}

/// A bid, or why the answer is not one.
fn parse_bid(line: &str) -> Result<u32, String> {
    match line.trim().parse::<u32>() {
        Ok(bid) if (1..=HIGHEST).contains(&bid) => Ok(bid),
        _ => Err(format!("expected a bid from 1 to {HIGHEST}, got {line:?}")),
    }
}

/// The bids of every round so far, for `results.json`.
struct Bids {
    rounds: Vec<Vec<Option<u32>>>,
}

impl RoundGame for Bids {
    fn play_round<'a>(
        &'a mut self,
        table: &'a mut Table,
        round: u32,
    ) -> BoxFuture<'a, anyhow::Result<Vec<f64>>> {
        Box::pin(async move {
            let prompt = format!("BID {round}");
            let answers = table.ask_all(&prompt, At::default()).await;
            let bids: Vec<Option<u32>> = answers
                .into_iter()
                .zip(table.seats().iter_mut())
                .map(|(answer, seat)| match parse_bid(&answer.ok()?.line) {
                    Ok(bid) => Some(bid),
                    Err(reason) => {
                        seat.fault(FaultKind::BadOutput, None, format!("{prompt}: {reason}"));
                        None
                    }
                })
                .collect();
            let winner = winner(&bids);
            let won = winner.and_then(|seat| bids[seat]).unwrap_or(0);
            for seat in table.seats().iter_mut().filter(|seat| seat.is_running()) {
                // Queued: it goes out with the next prompt.
                let _ = seat.send(&format!("WON {won}"));
            }
            let mut points = vec![0.0; bids.len()];
            if let Some(seat) = winner {
                points[seat] = 1.0;
            }
            self.rounds.push(bids);
            Ok(points)
        })
    }
}

/// One match: the rounds on koth's loop, then `results.json` (`result` and each round's bids).
async fn play(setup: &MatchSetup) -> anyhow::Result<MatchResult> {
    let n = setup.bots.len();
    anyhow::ensure!((3..=8).contains(&n), "{NAME} takes 3 to 8 bots, got {n}");
    let options = SeatOptions::new(setup.limits, Restart::AfterFault, setup.seed);
    let mut bids = Bids { rounds: Vec::new() };
    let played = play_together(setup, &options, &RULES, &mut bids).await?;
    let result = played.result(NAME, setup.seed);
    let results = serde_json::json!({ "result": &result, "bids": bids.rounds });
    setup.write_results(&results)?;
    Ok(result)
}

impl Game for LowBid {
    fn name(&self) -> &'static str {
        NAME
    }

    fn players(&self) -> (usize, usize) {
        (3, 8)
    }

    fn ranking(&self) -> Ranking {
        Ranking::Points
    }

    /// On a thread of its own kept with its bots to the match's CPUs: they bid at once.
    fn play<'a>(&'a self, setup: &'a MatchSetup) -> BoxFuture<'a, anyhow::Result<MatchResult>> {
        let setup = setup.clone();
        Box::pin(play_placed(setup.cpus.clone(), move || async move {
            play(&setup).await
        }))
    }
}

/// No board to draw: the kit's text of its `results.json` and the story of one round
/// (`--round`) told from the transcripts, each round one `BID` prompt; a page of its bids.
impl Replay for LowBid {
    fn show(&self, path: &Path, at: ReplayAt) -> Option<anyhow::Result<()>> {
        Some((|| {
            let story = Story {
                title: "Lowest unique bid".to_string(),
                summary: kit::results_text(path)?
                    .lines()
                    .map(str::to_string)
                    .collect(),
                part_name: "round",
                turn_name: "turn",
                opener: "BID",
                part: at.round,
                turn: None,
                most_turns: 20,
            };
            print!("{}", story::text(path, &story)?);
            Ok(())
        })())
    }

    fn options(&self) -> ReplayOptions {
        ReplayOptions {
            round: true,
            ..ReplayOptions::default()
        }
    }

    /// The bids of every round; while the game is played (no `results.json` yet), of every
    /// round its record holds so far.
    fn page(&self, path: &Path, _board: Option<usize>) -> Option<anyhow::Result<String>> {
        Some((|| {
            let results = match (
                path.join(koth::game::RESULTS_FILE).exists(),
                Record::read(path),
            ) {
                (false, Some(record)) => bids_so_far(&record),
                _ => {
                    let text = std::fs::read_to_string(path.join(koth::game::RESULTS_FILE))?;
                    serde_json::from_str(&text)?
                }
            };
            Ok(kit::page(PAGE, "/*GAME*/null", &results))
        })())
    }
}

/// What `results.json` will hold of the rounds its `record` holds so far: each seat's bid
/// (`null` for an answer that is none, or none yet), and the seed.
fn bids_so_far(record: &Record) -> serde_json::Value {
    let mut rounds: Vec<Vec<Option<u32>>> = Vec::new();
    for line in &record.lines {
        let Line::Answer {
            seat, round, line, ..
        } = line
        else {
            continue;
        };
        let index = (*round as usize).saturating_sub(1);
        if rounds.len() <= index {
            rounds.resize(index + 1, vec![None; record.seats.len()]);
        }
        if let Some(bid) = rounds[index].get_mut(*seat) {
            *bid = parse_bid(line).ok();
        }
    }
    serde_json::json!({ "result": { "seed": record.seed }, "bids": rounds })
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A bot folder holding a bot.toml; repeat for each bot (3 to 8).
    #[arg(long, value_name = "DIR", required = true)]
    bot: Vec<PathBuf>,
    /// Rounds in the game.
    #[arg(long, value_name = "N", default_value_t = RULES.default_rounds)]
    rounds: u32,
    #[command(flatten)]
    shared: MatchArgs,
}

/// `lowbid`, for the registry.
pub fn command() -> GameCommand {
    GameCommand::new(
        NAME,
        "Play lowest unique bid among bots (a test's game)",
        run,
    )
}

fn run(args: Args) -> anyhow::Result<()> {
    let options = Default::default();
    args.shared
        .play(&LowBid, &args.bot, args.rounds, "round", options)?;
    Ok(())
}
