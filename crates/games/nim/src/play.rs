//! A match of Nim: the duel loop ([`koth_game::duel`]) plays the games, this file one game.

use serde::Serialize;

use super::protocol;
use super::rules::{self, DEFAULT_HEAP};
use koth_bot::seat::At;
use koth_bot::{FaultKind, Restart, Seat};
pub use koth_game::duel::{DuelRules, OneGame, play_duel};
use koth_game::{BoxFuture, Game, MatchResult, MatchSetup, Ranking, play_placed};

/// Nim for tournaments.
pub struct Nim;

const RULES: DuelRules = DuelRules {
    game: "nim",
    default_games: 10,
    // The first player wins every heap that is not a multiple of 4 with perfect play.
    alternate: true,
    restart: Restart::AfterFault,
};

/// The game's options from the tournament file's `[options]`: `heap`, the stones a game starts
/// with (1 or more, default [`DEFAULT_HEAP`]).
fn heap(options: &toml::Table) -> anyhow::Result<u32> {
    if let Some(key) = options.keys().find(|key| *key != "heap") {
        anyhow::bail!("nim has no option `{key}` (its option: heap)");
    }
    match options.get("heap") {
        None => Ok(DEFAULT_HEAP),
        Some(toml::Value::Integer(heap)) if *heap >= 1 => u32::try_from(*heap)
            .map_err(|_| anyhow::anyhow!("`heap` = {heap}: give 1 to {}", u32::MAX)),
        Some(other) => anyhow::bail!("`heap` = {other}: give a whole number of stones, 1 or more"),
    }
}

/// One game's record in `results.json`.
#[derive(Serialize)]
struct Record {
    /// The stones taken, turn by turn, the first player first.
    taken: Vec<u32>,
    /// `first` or `second`.
    winner: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    fault: Option<String>,
}

struct OneNim {
    heap: u32,
}

impl OneGame for OneNim {
    type Record = Record;

    fn play_game<'a>(
        &'a self,
        first: &'a mut Seat,
        second: &'a mut Seat,
        round: u32,
    ) -> BoxFuture<'a, (Record, [f64; 2])> {
        Box::pin(async move {
            let mut seats = [first, second];
            let mut fault = None;
            for (side, seat) in seats.iter_mut().enumerate() {
                seat.begin(round).await;
                if let Err(e) = seat.send(&protocol::start(self.heap)) {
                    fault.get_or_insert((side, e.root().to_string()));
                }
            }
            let mut heap = self.heap;
            let mut taken = Vec::new();
            let winner = loop {
                if let Some((side, _)) = &fault {
                    break 1 - side;
                }
                let side = taken.len() % 2;
                let turn = taken.len() as u32 + 1;
                let seat = &mut seats[side];
                let answer = match seat.ask(&protocol::take_prompt(heap), At::turn(turn)).await {
                    Ok(answer) => answer,
                    Err(e) => {
                        fault = Some((side, e.root().to_string()));
                        continue;
                    }
                };
                match protocol::parse_take(&answer.line, heap) {
                    Ok(stones) => {
                        taken.push(stones);
                        heap = rules::take(heap, stones).expect("a parsed take fits the heap");
                        if heap == 0 {
                            break side;
                        }
                    }
                    Err(reason) => {
                        seat.fault(FaultKind::BadOutput, Some(turn), reason.clone());
                        fault = Some((side, reason));
                    }
                }
            };
            for (side, seat) in seats.iter_mut().enumerate() {
                // Queued, like the next START: the game itself is decided.
                let _ = seat.send(protocol::end(side == winner));
            }
            let mut points = [0.0; 2];
            points[winner] = 1.0;
            let record = Record {
                taken,
                winner: ["first", "second"][winner],
                fault: fault.map(|(_, reason)| reason),
            };
            (record, points)
        })
    }
}

impl Game for Nim {
    fn name(&self) -> &'static str {
        RULES.game
    }

    fn players(&self) -> (usize, usize) {
        (2, 2)
    }

    /// Whoever took the last stone more often won the match.
    fn ranking(&self) -> Ranking {
        Ranking::Placement
    }

    fn most_cpus(&self) -> usize {
        1
    }

    fn check_options(&self, _rounds: Option<u32>, options: &toml::Table) -> anyhow::Result<()> {
        heap(options).map(|_| ())
    }

    /// On a thread of its own kept to one CPU of the match's share, as every game plays (one
    /// match, one runtime thread): koth and the two bots take turns, so one CPU is enough.
    fn play<'a>(&'a self, setup: &'a MatchSetup) -> BoxFuture<'a, anyhow::Result<MatchResult>> {
        let setup = setup.clone();
        let cpu = setup.cpus.first().copied().into_iter().collect();
        Box::pin(play_placed(cpu, move || async move {
            let game = OneNim {
                heap: heap(&setup.options)?,
            };
            play_duel(&setup, &RULES, &game).await
        }))
    }
}

/// A match's games as `koth replay --text` summarises them, a line each, from the `games` of
/// its `results.json`: who moved first, the stones taken, who won (and the fault that decided
/// it). A record a damaged file lacks reads `?`.
pub(crate) fn summary(results: &serde_json::Value) -> Vec<String> {
    let games = results["games"].as_array().map_or(&[][..], Vec::as_slice);
    games
        .iter()
        .map(|g| {
            let taken: Vec<String> = g["taken"]
                .as_array()
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .map(ToString::to_string)
                .collect();
            let mut line = format!(
                "game {}: {} moves first; taken {}; the {} player wins",
                g["game"],
                g["first"].as_str().unwrap_or("?"),
                if taken.is_empty() {
                    "none".to_string()
                } else {
                    taken.join(" ")
                },
                g["winner"].as_str().unwrap_or("?"),
            );
            if let Some(fault) = g["fault"].as_str() {
                line += &format!(" (the other faulted: {fault})");
            }
            line
        })
        .collect()
}
