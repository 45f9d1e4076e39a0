//! A gauntlet: one challenger (a new version of a bot) against a list of opponents (its earlier
//! versions, say), so many duels against each, with the challenger's score against each and,
//! when the tournament file asks for it, a sequential probability ratio test that stops an
//! opponent's games as soon as the result is clear — as chess-engine testers (fishtest,
//! fastchess, cutechess) test a change.
//!
//! The challenger is bot 0 and the opponents bots 1 to n. Games come in pairs: the same seed
//! twice with the seats swapped, so neither side's map, start or first move favours one bot, and
//! a pair's mean score (0, ¼, ½, ¾ or 1) is one observation of the test (the pentanomial model:
//! the two games of a pair share their luck, so they are not counted as two independent games).
//!
//! The test is decided on the pairs in schedule order, up to the first pair not yet finished:
//! however many games run at once and whatever order they end in, a seed gives the same verdict
//! after the same pair. Games already under way when it is reached still count on the board.

use std::collections::{BTreeMap, HashMap};

use rand::RngExt;
use serde::{Deserialize, Serialize};

use koth_game::Breakdown;
use koth_game::seed;
use koth_game::stats;

use super::schedule::ScheduledGame;

/// The tournament file's `[sprt]` table: stop an opponent's games once the challenger is known,
/// with error rates `alpha` and `beta`, to be at least `elo1` stronger (H1) or at most `elo0`
/// (H0), in logistic Elo.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SprtConfig {
    #[serde(default)]
    pub elo0: f64,
    #[serde(default = "default_elo1")]
    pub elo1: f64,
    #[serde(default = "default_error")]
    pub alpha: f64,
    #[serde(default = "default_error")]
    pub beta: f64,
}

fn default_elo1() -> f64 {
    50.0
}

fn default_error() -> f64 {
    0.05
}

impl SprtConfig {
    /// Why the test cannot be run as given, if it cannot.
    pub(crate) fn check(&self) -> Result<(), String> {
        for (key, elo) in [("elo0", self.elo0), ("elo1", self.elo1)] {
            if !(-2000.0..=2000.0).contains(&elo) {
                return Err(format!("`sprt.{key}` = {elo}: give -2000 to 2000 Elo"));
            }
        }
        if self.elo0 >= self.elo1 {
            return Err(format!(
                "`sprt.elo0` = {} must be below `sprt.elo1` = {}",
                self.elo0, self.elo1
            ));
        }
        for (key, rate) in [("alpha", self.alpha), ("beta", self.beta)] {
            // Written so that NaN fails too.
            if !(rate > 0.0 && rate < 0.5) {
                return Err(format!(
                    "`sprt.{key}` = {rate}: an error rate is above 0 and below 0.5"
                ));
            }
        }
        Ok(())
    }

    /// `(lower, upper)`: H0 is accepted at the first, H1 at the second.
    pub(crate) fn bounds(&self) -> (f64, f64) {
        stats::sprt_bounds(self.alpha, self.beta)
    }
}

/// A gauntlet's schedule: `games` games of the challenger (bot 0) against each of `opponents`
/// opponents (bots 1 to `opponents`), in pairs that share a seed with the seats swapped; pair by
/// pair, every opponent in turn, so that stopping early stops every opponent's games evenly.
/// An odd `games` ends with a single game.
pub(crate) fn schedule(opponents: usize, games: u32, master_seed: u64) -> Vec<ScheduledGame> {
    let mut rng = seed::rng(master_seed, 0);
    let mut scheduled = Vec::new();
    for pair in 0..games.div_ceil(2) {
        for opponent in 1..=opponents {
            let seed = rng.random::<u64>();
            let sides = [vec![0, opponent], vec![opponent, 0]];
            let in_pair = if 2 * pair + 1 < games { 2 } else { 1 };
            for seats in sides.into_iter().take(in_pair) {
                scheduled.push(ScheduledGame {
                    index: scheduled.len() as u32,
                    seed,
                    seats,
                });
            }
        }
    }
    scheduled
}

/// What the test says of the challenger against one opponent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Not yet clear: the opponent's games go on.
    Undecided,
    /// H1: at least `elo1` stronger.
    Stronger,
    /// H0: at most `elo0` stronger.
    NotStronger,
}

/// The test's state against one opponent, over its finished pairs in schedule order.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Decision {
    pub verdict: Verdict,
    /// The log-likelihood ratio when decided, or now.
    pub llr: f64,
    /// The pairs it was decided on (or has seen so far).
    pub pairs: u32,
}

/// A gauntlet as it stands: its pairs and the challenger's score in each finished game.
#[derive(Debug, Clone)]
pub(crate) struct Gauntlet {
    pub(crate) sprt: Option<SprtConfig>,
    /// Per opponent, its games in pairs, in schedule order (a lone last game is a pair of one).
    pairs: BTreeMap<usize, Vec<Vec<u32>>>,
    /// Each game's opponent.
    opponent_of: HashMap<u32, usize>,
    /// The challenger's score in each finished game: 1 a win, ½ a draw, 0 a loss.
    scores: HashMap<u32, f64>,
    /// Per opponent, the test so far, carried forward as its pairs finish in order.
    tests: HashMap<usize, Test>,
}

/// The test against one opponent: the pairs read so far, counted by their mean score, and where
/// they leave it.
#[derive(Debug, Clone, Default)]
struct Test {
    counts: [u64; 5],
    decision: Decision,
}

impl Default for Decision {
    fn default() -> Decision {
        Decision {
            verdict: Verdict::Undecided,
            llr: 0.0,
            pairs: 0,
        }
    }
}

impl Gauntlet {
    /// A gauntlet over `games` (the whole schedule, as [`schedule`] made it) with no result yet.
    pub(crate) fn new(games: &[ScheduledGame], sprt: Option<SprtConfig>) -> Gauntlet {
        let mut pairs: BTreeMap<usize, Vec<Vec<u32>>> = BTreeMap::new();
        let mut opponent_of = HashMap::new();
        // A pair is the opponent's games with one seed; games are in index order.
        let mut pair_of: HashMap<(usize, u64), usize> = HashMap::new();
        for game in games {
            let opponent = game.seats.iter().copied().find(|&b| b != 0).unwrap_or(0);
            opponent_of.insert(game.index, opponent);
            let list = pairs.entry(opponent).or_default();
            match pair_of.get(&(opponent, game.seed)) {
                Some(&at) => list[at].push(game.index),
                None => {
                    pair_of.insert((opponent, game.seed), list.len());
                    list.push(vec![game.index]);
                }
            }
        }
        Gauntlet {
            sprt,
            pairs,
            opponent_of,
            scores: HashMap::new(),
            tests: HashMap::new(),
        }
    }

    /// Takes a finished game's result: the bots in seat order and their scores. Returns the
    /// game's opponent.
    pub(crate) fn add(&mut self, game: u32, seats: &[usize], scores: &[f64]) -> Option<usize> {
        if seats.len() != 2 || scores.len() != 2 {
            return None;
        }
        let mine = seats.iter().position(|&b| b == 0)?;
        let (a, b) = (scores[mine], scores[1 - mine]);
        let score = match a.total_cmp(&b) {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Less => 0.0,
        };
        self.scores.insert(game, score);
        let opponent = self.opponent_of(game)?;
        self.advance(opponent);
        Some(opponent)
    }

    /// Reads the pairs against `opponent` that finished since its test last stopped, up to the
    /// first one not finished, stopping at a decision. Each pair is read once, so a long
    /// gauntlet costs one ratio per pair.
    fn advance(&mut self, opponent: usize) {
        let Some(sprt) = self.sprt else {
            return;
        };
        const VALUES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];
        let (lower, upper) = sprt.bounds();
        let test = self.tests.entry(opponent).or_default();
        let pairs = self.pairs.get(&opponent).map_or(&[][..], Vec::as_slice);
        while test.decision.verdict == Verdict::Undecided {
            let Some(pair) = pairs.get(test.decision.pairs as usize) else {
                break;
            };
            let scores: Option<Vec<f64>> =
                pair.iter().map(|g| self.scores.get(g).copied()).collect();
            // The first pair not finished (or a lone last game) ends what the test may see.
            let Some(scores) = scores.filter(|s| s.len() == 2) else {
                break;
            };
            test.counts[((scores[0] + scores[1]) * 2.0).round() as usize] += 1;
            let decision = &mut test.decision;
            decision.pairs += 1;
            decision.llr = stats::sprt_llr(&VALUES, &test.counts, sprt.elo0, sprt.elo1);
            if decision.llr >= upper {
                decision.verdict = Verdict::Stronger;
            } else if decision.llr <= lower {
                decision.verdict = Verdict::NotStronger;
            }
        }
    }

    /// The opponents, by bot id.
    pub(crate) fn opponents(&self) -> impl Iterator<Item = usize> + '_ {
        self.pairs.keys().copied()
    }

    /// The opponent in `game`.
    pub(crate) fn opponent_of(&self, game: u32) -> Option<usize> {
        self.opponent_of.get(&game).copied()
    }

    /// Every game against `opponent`.
    pub(crate) fn games_against(&self, opponent: usize) -> impl Iterator<Item = u32> + '_ {
        self.pairs
            .get(&opponent)
            .into_iter()
            .flatten()
            .flatten()
            .copied()
    }

    /// The test against `opponent`, or `None` when the tournament runs none.
    pub(crate) fn decision(&self, opponent: usize) -> Option<Decision> {
        self.sprt?;
        Some(
            self.tests
                .get(&opponent)
                .map(|t| t.decision)
                .unwrap_or_default(),
        )
    }

    /// Whether the games against `opponent` may stop: its test is decided.
    pub(crate) fn decided(&self, opponent: usize) -> bool {
        self.decision(opponent)
            .is_some_and(|d| d.verdict != Verdict::Undecided)
    }

    /// The challenger's record against each opponent, for the leaderboard.
    pub(crate) fn report(&self, names: &[String]) -> GauntletReport {
        let opponents = self
            .opponents()
            .map(|opponent| {
                let scores: Vec<f64> = self
                    .games_against(opponent)
                    .filter_map(|g| self.scores.get(&g).copied())
                    .collect();
                let count = |value: f64| scores.iter().filter(|&&s| s == value).count() as u32;
                let score = stats::mean(&scores);
                let interval = stats::interval95(&scores);
                let elo_of = |s: f64| stats::score_elo(s.clamp(0.0, 1.0));
                Opponent {
                    name: names.get(opponent).cloned().unwrap_or_default(),
                    games: scores.len() as u32,
                    wins: count(1.0),
                    draws: count(0.5),
                    losses: count(0.0),
                    score,
                    interval,
                    elo: elo_of(score),
                    elo_low: interval.map(|h| elo_of(score - h)),
                    elo_high: interval.map(|h| elo_of(score + h)),
                    decision: self.decision(opponent),
                }
            })
            .collect();
        GauntletReport {
            challenger: names.first().cloned().unwrap_or_default(),
            sprt: self.sprt,
            bounds: self.sprt.map(|s| s.bounds()),
            opponents,
        }
    }
}

/// The challenger against each opponent, as the leaderboard shows it.
#[derive(Debug, Clone, Serialize)]
pub struct GauntletReport {
    pub challenger: String,
    pub sprt: Option<SprtConfig>,
    /// The test's `(lower, upper)` bounds on the log-likelihood ratio.
    pub bounds: Option<(f64, f64)>,
    pub opponents: Vec<Opponent>,
}

/// The challenger's record against one opponent.
#[derive(Debug, Clone, Serialize)]
pub struct Opponent {
    pub name: String,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// The challenger's mean score per game (1 a win, ½ a draw) and the half-width of its 95%
    /// interval (Student's t; absent below two games).
    pub score: f64,
    pub interval: Option<f64>,
    /// The logistic Elo difference the score shows, and its 95% interval (infinite at a score
    /// of 0 or 1).
    pub elo: f64,
    pub elo_low: Option<f64>,
    pub elo_high: Option<f64>,
    pub decision: Option<Decision>,
}

impl GauntletReport {
    /// The report as a table for the leaderboard.
    pub(crate) fn table(&self) -> Breakdown {
        Breakdown {
            title: self.title(),
            columns: self.columns(),
            rows: self.rows(),
        }
    }

    fn title(&self) -> String {
        let mut title = format!("Gauntlet: {} against each opponent", self.challenger);
        if let (Some(sprt), Some((lower, upper))) = (self.sprt, self.bounds) {
            title += &format!(
                " (SPRT elo0 {}, elo1 {}, alpha {}, beta {}: H1 at LLR ≥ {upper:.2}, H0 at \
                 LLR ≤ {lower:.2})",
                sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta
            );
        }
        title
    }

    fn columns(&self) -> Vec<String> {
        let mut columns = ["opponent", "games", "W-D-L", "score ± 95%", "Elo (95%)"]
            .map(String::from)
            .to_vec();
        if self.sprt.is_some() {
            columns.extend(["LLR", "SPRT"].map(String::from));
        }
        columns
    }

    fn rows(&self) -> Vec<Vec<String>> {
        self.opponents
            .iter()
            .map(|o| {
                let mut row = vec![
                    o.name.clone(),
                    o.games.to_string(),
                    format!("{}-{}-{}", o.wins, o.draws, o.losses),
                    match o.interval {
                        Some(h) => format!("{:.1}% ± {:.1}", 100.0 * o.score, 100.0 * h),
                        None => format!("{:.1}%", 100.0 * o.score),
                    },
                    match (o.elo_low, o.elo_high) {
                        (Some(low), Some(high)) => {
                            format!("{} ({} to {})", elo(o.elo), elo(low), elo(high))
                        }
                        _ => elo(o.elo),
                    },
                ];
                if let Some(d) = o.decision {
                    row.push(format!("{:.2}", d.llr));
                    row.push(match d.verdict {
                        Verdict::Undecided => format!("undecided after {} pairs", d.pairs),
                        Verdict::Stronger => format!("stronger (H1) after {} pairs", d.pairs),
                        Verdict::NotStronger => {
                            format!("not stronger (H0) after {} pairs", d.pairs)
                        }
                    });
                }
                row
            })
            .collect()
    }
}

/// An Elo difference to a whole number, signed; `+∞`/`-∞` at a score of 1 or 0.
fn elo(value: f64) -> String {
    if value.is_infinite() {
        if value > 0.0 { "+∞" } else { "-∞" }.to_string()
    } else if value.is_nan() {
        "?".to_string()
    } else if value.round() == 0.0 {
        "0".to_string()
    } else {
        format!("{value:+.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPRT: SprtConfig = SprtConfig {
        elo0: 0.0,
        elo1: 50.0,
        alpha: 0.05,
        beta: 0.05,
    };

    #[test]
    fn games_come_in_pairs_with_the_seats_swapped_every_opponent_in_turn() {
        let games = schedule(2, 5, 9);
        // 3 pairs (the last of one game) against each of 2 opponents.
        assert_eq!(games.len(), 10);
        let seats: Vec<&[usize]> = games.iter().map(|g| g.seats.as_slice()).collect();
        assert_eq!(
            seats[..6],
            [&[0, 1][..], &[1, 0], &[0, 2], &[2, 0], &[0, 1], &[1, 0]]
        );
        assert_eq!(seats[8..], [&[0, 1][..], &[0, 2]]);
        assert_eq!(games[0].seed, games[1].seed);
        assert_ne!(games[0].seed, games[2].seed);
        assert!(games.iter().enumerate().all(|(i, g)| g.index == i as u32));
        assert_eq!(schedule(2, 5, 9), games);
        let gauntlet = Gauntlet::new(&games, None);
        assert_eq!(
            gauntlet.games_against(1).collect::<Vec<_>>(),
            [0, 1, 4, 5, 8]
        );
    }

    /// A gauntlet against one opponent in which the challenger scores `outcome(pair, game)`.
    fn played(pairs: u32, outcome: impl Fn(u32, usize) -> f64) -> Gauntlet {
        let games = schedule(1, 2 * pairs, 3);
        let mut gauntlet = Gauntlet::new(&games, Some(SPRT));
        for game in &games {
            let mine = outcome(
                game.index / 2,
                game.seats.iter().position(|&b| b == 0).unwrap(),
            );
            let mut scores = [1.0 - mine, 1.0 - mine];
            scores[game.seats.iter().position(|&b| b == 0).unwrap()] = mine;
            gauntlet.add(game.index, &game.seats, &scores);
        }
        gauntlet
    }

    #[test]
    fn a_clearly_stronger_challenger_is_found_stronger_early() {
        // Wins three games in four.
        let gauntlet = played(
            200,
            |pair, side| if pair % 2 == 0 && side == 1 { 0.0 } else { 1.0 },
        );
        let decision = gauntlet.decision(1).unwrap();
        assert_eq!(decision.verdict, Verdict::Stronger);
        assert!(decision.pairs < 60, "{decision:?}");
        assert!(decision.llr >= SPRT.bounds().1);
        let report = gauntlet.report(&["new".into(), "old".into()]);
        let old = &report.opponents[0];
        assert_eq!((old.games, old.wins, old.losses), (400, 300, 100));
        assert!((old.score - 0.75).abs() < 1e-12 && old.elo > 150.0);
    }

    #[test]
    fn an_equal_challenger_is_found_not_stronger() {
        let gauntlet = played(300, |pair, side| ((pair + side as u32) % 2) as f64);
        let decision = gauntlet.decision(1).unwrap();
        assert_eq!(decision.verdict, Verdict::NotStronger, "{decision:?}");
        assert!(gauntlet.decided(1));
    }

    #[test]
    fn the_test_sees_pairs_only_up_to_the_first_unfinished_one() {
        let games = schedule(1, 60, 3);
        let mut gauntlet = Gauntlet::new(&games, Some(SPRT));
        // Every game won but the second of pair 0, not yet played.
        for game in games.iter().filter(|g| g.index != 1) {
            let mine = game.seats.iter().position(|&b| b == 0).unwrap();
            let mut scores = [0.0, 0.0];
            scores[mine] = 1.0;
            gauntlet.add(game.index, &game.seats, &scores);
        }
        let waiting = gauntlet.decision(1).unwrap();
        assert_eq!((waiting.verdict, waiting.pairs), (Verdict::Undecided, 0));
        assert_eq!(games[1].seats, [1, 0]);
        gauntlet.add(1, &games[1].seats, &[0.0, 1.0]);
        assert_eq!(gauntlet.decision(1).unwrap().verdict, Verdict::Stronger);
    }

    #[test]
    fn impossible_tests_are_refused() {
        let bad = |sprt: SprtConfig| sprt.check().unwrap_err();
        assert!(bad(SprtConfig { elo0: 50.0, ..SPRT }).contains("elo0"));
        assert!(bad(SprtConfig { alpha: 0.0, ..SPRT }).contains("alpha"));
        assert!(
            bad(SprtConfig {
                beta: f64::NAN,
                ..SPRT
            })
            .contains("beta")
        );
        assert!(SPRT.check().is_ok());
    }
}
