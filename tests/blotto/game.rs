//! Colonel Blotto: 2 to 6 bots each share 100 troops among 5 battlefields at once, every round;
//! on each battlefield the most troops win its point, shared equally on a tie (so a round's
//! points may be fractional). Written from `docs/adding-a-game.md` alone: koth's loop of bots
//! answering together, the seat hook, the story of the viewer kit and the shared command run.
//!
//! The protocol: each new process is first told `SEAT <s> OF <n>` (its place, from 0, and the
//! number of seats; a process restarted after a fault is told again); then each round koth
//! writes `ALLOCATE <round>`, the bot answers 5 whole numbers summing to 100; before the next
//! prompt koth writes `ARMIES <a>;<b>;…`, every seat's allocation in seat order (`-` for a seat
//! that gave none).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use koth::bot::seat::{OnStart, SeatStart};
use koth::bot::{At, FaultKind, Restart, SeatOptions};
use koth::cli::MatchArgs;
use koth::game::together::{RoundGame, Table, TogetherRules, play_together};
use koth::game::{
    BoxFuture, Game, GameCommand, MatchResult, MatchSetup, Ranking, Replay, ReplayAt,
    ReplayOptions, RoundPoints, play_placed,
};
use koth::replay::kit;
use koth::replay::tui::story::{self, Story};

/// The game, for the registry.
pub struct Blotto;

const NAME: &str = "blotto";
const FIELDS: usize = 5;
const TROOPS: u32 = 100;
const PROMPT: &str = "ALLOCATE";
const RULES: TogetherRules = TogetherRules {
    default_rounds: 10,
    first_round: 1,
};

/// The rules: each seat's points for one round, from every seat's allocation (`None`: none
/// given, which wins nothing and takes no share).
fn points(armies: &[Option<[u32; FIELDS]>]) -> Vec<f64> {
    let mut points = vec![0.0; armies.len()];
    for field in 0..FIELDS {
        let most = armies.iter().flatten().map(|a| a[field]).max();
        let Some(most) = most.filter(|&m| m > 0) else {
            continue;
        };
        let winners: Vec<usize> = (0..armies.len())
            .filter(|&seat| armies[seat].is_some_and(|a| a[field] == most))
            .collect();
        for &seat in &winners {
            points[seat] += 1.0 / winners.len() as f64;
        }
    }
    points
}

/// An allocation, or why the answer is not one.
fn parse_army(line: &str) -> Result<[u32; FIELDS], String> {
    let numbers: Result<Vec<u32>, _> = line.split_whitespace().map(str::parse).collect();
    let refused = || format!("expected {FIELDS} whole numbers summing to {TROOPS}, got {line:?}");
    let numbers = numbers.map_err(|_| refused())?;
    let army: [u32; FIELDS] = numbers.try_into().map_err(|_| refused())?;
    if army.iter().sum::<u32>() != TROOPS {
        return Err(refused());
    }
    Ok(army)
}

/// Every round's allocations and points so far, for `results.json`.
struct Rounds {
    armies: Vec<Vec<Option<[u32; FIELDS]>>>,
    points: Vec<Vec<f64>>,
}

impl RoundGame for Rounds {
    fn play_round<'a>(
        &'a mut self,
        table: &'a mut Table,
        round: u32,
    ) -> BoxFuture<'a, anyhow::Result<Vec<f64>>> {
        Box::pin(async move {
            let prompt = format!("{PROMPT} {round}");
            let answers = table.ask_all(&prompt, At::default()).await;
            let armies: Vec<Option<[u32; FIELDS]>> = answers
                .into_iter()
                .zip(table.seats().iter_mut())
                .map(|(answer, seat)| match parse_army(&answer.ok()?.line) {
                    Ok(army) => Some(army),
                    Err(reason) => {
                        seat.fault(FaultKind::BadOutput, None, format!("{prompt}: {reason}"));
                        None
                    }
                })
                .collect();
            let told: Vec<String> = armies
                .iter()
                .map(|army| match army {
                    Some(a) => a.map(|n| n.to_string()).join(" "),
                    None => "-".to_string(),
                })
                .collect();
            for seat in table.seats().iter_mut().filter(|seat| seat.is_running()) {
                // Queued: it goes out with the next prompt.
                let _ = seat.send(&format!("ARMIES {}", told.join(";")));
            }
            let points = points(&armies);
            self.armies.push(armies);
            self.points.push(points.clone());
            Ok(points)
        })
    }
}

/// One match: every process told its seat first, the rounds on koth's loop, then
/// `results.json` (`result`, and each round's armies and points).
async fn play(setup: &MatchSetup) -> anyhow::Result<MatchResult> {
    let n = setup.bots.len();
    anyhow::ensure!((2..=6).contains(&n), "{NAME} takes 2 to 6 bots, got {n}");
    let seat_line = |start: &SeatStart| vec![format!("SEAT {} OF {}", start.seat, start.seats)];
    let options = SeatOptions {
        on_start: Some(OnStart(Arc::new(seat_line))),
        ..SeatOptions::new(setup.limits, Restart::AfterFault, setup.seed)
    };
    let mut rounds = Rounds {
        armies: Vec::new(),
        points: Vec::new(),
    };
    let played = play_together(setup, &options, &RULES, &mut rounds).await?;
    let result = played.result(NAME, setup.seed);
    let results = serde_json::json!({
        "result": &result,
        "armies": rounds.armies,
        "points": rounds.points,
    });
    setup.write_results(&results)?;
    Ok(result)
}

impl Game for Blotto {
    fn name(&self) -> &'static str {
        NAME
    }

    fn players(&self) -> (usize, usize) {
        (2, 6)
    }

    fn ranking(&self) -> Ranking {
        Ranking::Points
    }

    /// On a thread of its own kept with its bots to the match's CPUs: they answer at once.
    fn play<'a>(&'a self, setup: &'a MatchSetup) -> BoxFuture<'a, anyhow::Result<MatchResult>> {
        let setup = setup.clone();
        Box::pin(play_placed(setup.cpus.clone(), move || async move {
            play(&setup).await
        }))
    }
}

/// No board: the kit's text of `results.json` and the story of one round (`--round`), each
/// round one `ALLOCATE` prompt; each round's points for the dashboard.
impl Replay for Blotto {
    fn show(&self, path: &Path, at: ReplayAt) -> Option<anyhow::Result<()>> {
        Some((|| {
            let story = Story {
                title: "Colonel Blotto".to_string(),
                summary: kit::results_text(path)?
                    .lines()
                    .map(str::to_string)
                    .collect(),
                part_name: "round",
                turn_name: "turn",
                opener: PROMPT,
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

    fn round_points(&self, folder: &Path) -> Option<anyhow::Result<RoundPoints>> {
        Some((|| {
            let text = std::fs::read_to_string(folder.join(koth::game::RESULTS_FILE))?;
            let results: serde_json::Value = serde_json::from_str(&text)?;
            let bots = results["result"]["bots"]
                .as_array()
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .map(|b| b["name"].as_str().unwrap_or_default().to_string())
                .collect();
            let rounds = serde_json::from_value(results["points"].clone())?;
            Ok(RoundPoints { bots, rounds })
        })())
    }
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A bot folder holding a bot.toml; repeat for each bot (2 to 6).
    #[arg(long, value_name = "DIR", required = true)]
    bot: Vec<PathBuf>,
    /// Rounds in the game.
    #[arg(long, value_name = "N", default_value_t = RULES.default_rounds)]
    rounds: u32,
    #[command(flatten)]
    shared: MatchArgs,
}

/// `blotto`, for the registry.
pub fn command() -> GameCommand {
    GameCommand::new(
        NAME,
        "Play Colonel Blotto among 2 to 6 bots (a test's game)",
        run,
    )
}

fn run(args: Args) -> anyhow::Result<()> {
    let options = Default::default();
    args.shared
        .play(&Blotto, &args.bot, args.rounds, "round", options)?;
    Ok(())
}
