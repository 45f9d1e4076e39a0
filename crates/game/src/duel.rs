//! The loop of a match of short games between two bots, written once for every two-player game
//! made of games (Nim is its example): a seat per bot, who moves first in each game (swapped
//! after every game when the game wants it), progress after each game, the seats finished, each
//! bot's [`BotResult`] and the [`MatchResult`], and `results.json`. The game brings only one
//! game's play ([`OneGame`]).

use serde::Serialize;

use super::{BotResult, BoxFuture, MatchResult, MatchSetup, RoundProgress};
use koth_bot::{Restart, Seat, SeatOptions};

/// One game of a duel, as a two-player game plays it.
pub trait OneGame: Sync {
    /// What `results.json` keeps of a game, beside its number and its first player.
    type Record: Serialize + Send;
    /// Plays game `round` (from 1) between `first`, who moves first, and `second`; returns the
    /// game's record and the points of `[first, second]`. A bot's fault goes to its seat and
    /// decides the game; it never fails the match.
    fn play_game<'a>(
        &'a self,
        first: &'a mut Seat,
        second: &'a mut Seat,
        round: u32,
    ) -> BoxFuture<'a, (Self::Record, [f64; 2])>;
}

/// How a duel is played.
pub struct DuelRules {
    /// The game's name, in `results.json` and the match result.
    pub game: &'static str,
    /// Games per match when the setup does not say.
    pub default_games: u32,
    /// Whether the bots take turns to move first, game by game (the second bot first in every
    /// even game): what a game with an advantage to the first player wants, so a match is fair.
    pub alternate: bool,
    /// When a bot's process is started again.
    pub restart: Restart,
}

/// One game of a duel as `results.json` keeps it.
#[derive(Serialize)]
struct GameEntry<'a, R> {
    game: u32,
    /// The name of the bot that moved first.
    first: &'a str,
    #[serde(flatten)]
    record: R,
}

/// Plays `setup.rounds` games (default `rules.default_games`) between the two bots of `setup`
/// and writes `results.json`: `{"result": MatchResult, "games": [{game, first, …record}]}`. A
/// bot's score is the sum of its points.
pub async fn play_duel<G: OneGame>(
    setup: &MatchSetup,
    rules: &DuelRules,
    game: &G,
) -> anyhow::Result<MatchResult> {
    anyhow::ensure!(
        setup.bots.len() == 2,
        "{} takes exactly 2 bots, got {}",
        rules.game,
        setup.bots.len()
    );
    let options = SeatOptions::new(setup.limits, rules.restart, setup.seed);
    let mut seats = Seat::open_all(&setup.bots, &setup.log_dir, &options)?;
    let games = setup.rounds.unwrap_or(rules.default_games);
    let mut totals = [0.0; 2];
    let mut records = Vec::new();
    for round in 1..=games {
        let swapped = rules.alternate && round % 2 == 0;
        let [a, b] = &mut seats[..] else {
            unreachable!("two bots make two seats");
        };
        let (first, second) = if swapped { (b, a) } else { (a, b) };
        let first_name = first.name().to_string();
        let (record, points) = game.play_game(first, second, round).await;
        let by_seat = if swapped {
            [points[1], points[0]]
        } else {
            points
        };
        for (total, points) in totals.iter_mut().zip(by_seat) {
            *total += points;
        }
        records.push((first_name, record));
        if let Some(progress) = &setup.progress {
            progress(&RoundProgress {
                rounds_done: round,
                rounds_total: games,
                totals: totals.to_vec(),
            });
        }
    }
    let mut bots = Vec::new();
    for (seat, total) in seats.iter_mut().zip(totals) {
        seat.finish("").await;
        bots.push(BotResult::new(
            seat.name(),
            total,
            seat.faults(),
            seat.timing(),
        ));
    }
    let result = MatchResult {
        game: rules.game.into(),
        seed: setup.seed,
        bots,
    };
    let games: Vec<_> = records
        .iter()
        .zip(1..)
        .map(|((first, record), game)| GameEntry {
            game,
            first,
            record,
        })
        .collect();
    setup.write_results(&serde_json::json!({ "result": &result, "games": games }))?;
    Ok(result)
}
