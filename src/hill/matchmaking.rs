//! Continuous matchmaking: which versions play the next game, and why. Pure: it sees the active
//! versions as numbers and draws from the generator it is given, so it is tested without a
//! process or a database, and the same hill state and seed choose the same game.
//!
//! The next game is chosen to shrink the uncertainty that matters:
//! 1. **Placement first**: a version with placement games left plays before anyone else.
//! 2. Otherwise the **focal** version is the one most in need: whose order against a neighbour
//!    in rating is most uncertain (the ranking is what is shown), with few games, or long
//!    unplayed (the last grows without bound, so no active version is ever starved).
//!    Games already queued for a version lower its need, so one version does not fill the queue.
//! 3. Its **opponents** are those nearest it in rating (the best match quality, TrueSkill's
//!    draw probability given both ratings and their uncertainties), and now and then
//!    ([`Tuning::far_share`] of games) drawn at random, so far apart versions are compared too.

use rand::RngExt;
use rand::seq::SliceRandom;

use crate::seed::Rng;

/// An active version as matchmaking sees it.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub id: usize,
    /// Its label in the reason given (`name v2`).
    pub label: String,
    /// The online rating and its uncertainty (Weng-Lin: mean 25, σ 25/3 at the start).
    pub mu: f64,
    pub sigma: f64,
    /// Games it has played (rated) so far.
    pub games: u32,
    /// The hill's number of games chosen when it last played, if it has.
    pub last_chosen: Option<u32>,
    /// Games of it in the queue, chosen but not finished.
    pub queued: u32,
}

/// How matchmaking weighs its aims (the hill file's keys).
#[derive(Debug, Clone, Copy)]
pub struct Tuning {
    /// Games a new version plays before others are chosen for their own sake.
    pub placement_games: u32,
    /// The share of games against an opponent drawn at random instead of a near one.
    pub far_share: f64,
}

/// The game chosen: its seats (version ids; the first is the focal version) and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub seats: Vec<usize>,
    pub reason: String,
}

/// Weng-Lin's β, the performance spread of one game.
const BETA: f64 = 25.0 / 6.0;

/// Chooses the next game among `active` for `players` seats, as game number `next` of the hill.
/// `None` if there are fewer active versions than seats.
pub fn choose(
    active: &[Candidate],
    players: usize,
    next: u32,
    tuning: Tuning,
    rng: &mut Rng,
) -> Option<Choice> {
    if active.len() < players.max(1) {
        return None;
    }
    let n = active.len() as f64;
    // How unsure the order of two versions is: the chance their ratings' intervals overlap
    // where it matters, 1 for equal means, falling with the gap in units of both uncertainties.
    let ambiguity = |a: &Candidate, b: &Candidate| {
        (-(a.mu - b.mu).powi(2) / (2.0 * (a.sigma.powi(2) + b.sigma.powi(2)))).exp()
    };
    // Each version's neighbours in rating: the order that matters is theirs.
    let mut by_rating: Vec<usize> = (0..active.len()).collect();
    by_rating.sort_by(|&a, &b| active[a].mu.total_cmp(&active[b].mu));
    let mut unsure_place = vec![0.0_f64; active.len()];
    for pair in by_rating.windows(2) {
        let a = ambiguity(&active[pair[0]], &active[pair[1]]);
        unsure_place[pair[0]] = unsure_place[pair[0]].max(a);
        unsure_place[pair[1]] = unsure_place[pair[1]].max(a);
    }
    let need = |k: usize| -> (f64, String) {
        let c = &active[k];
        let queued = f64::from(c.queued);
        if c.games + c.queued < tuning.placement_games {
            return (
                1000.0 - queued,
                format!(
                    "placement game {} of {} for {}",
                    c.games + c.queued + 1,
                    tuning.placement_games,
                    c.label
                ),
            );
        }
        let few = 0.5 / (1.0 + f64::from(c.games) / 10.0);
        // A version plays about every n / players games: idle is measured in those, and grows
        // without bound, so every active version is chosen in its turn.
        let idle = c
            .last_chosen
            .map_or(n, |last| f64::from(next - last.min(next)))
            / (n / players as f64)
            / 4.0;
        let terms = [
            (
                unsure_place[k],
                "its place among its neighbours is uncertain",
            ),
            (few, "it has few games"),
            (idle, "it has not played for long"),
        ];
        let (_, why) = terms
            .iter()
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .expect("three terms");
        (
            unsure_place[k] + few + idle - queued,
            format!("{} ({} games, σ {:.2}): {why}", c.label, c.games, c.sigma),
        )
    };
    let (focal, (_, focal_reason)) = (0..active.len())
        .map(|k| (k, need(k)))
        .max_by(|a, b| a.1.0.total_cmp(&b.1.0).then(b.0.cmp(&a.0)))
        .expect("at least one candidate");
    let me = &active[focal];
    let mut others: Vec<usize> = (0..active.len()).filter(|&k| k != focal).collect();
    let far = rng.random_bool(tuning.far_share.clamp(0.0, 1.0));
    let opponents: Vec<usize> = if far {
        others.shuffle(rng);
        others.truncate(players - 1);
        others
    } else {
        // The most uncertain order first, then the best match quality (TrueSkill's draw
        // probability); ties (equal ratings) in a seeded random order.
        others.shuffle(rng);
        let quality = |k: usize| {
            let o = &active[k];
            let spread = 2.0 * BETA * BETA + me.sigma.powi(2) + o.sigma.powi(2);
            ambiguity(me, o)
                + (2.0 * BETA * BETA / spread).sqrt()
                    * (-(me.mu - o.mu).powi(2) / (2.0 * spread)).exp()
                - 0.01 * f64::from(o.queued)
        };
        others.sort_by(|&a, &b| quality(b).total_cmp(&quality(a)));
        others.truncate(players - 1);
        others
    };
    let names: Vec<&str> = opponents
        .iter()
        .map(|&k| active[k].label.as_str())
        .collect();
    let reason = format!(
        "{focal_reason}; against {} ({})",
        names.join(", "),
        if far {
            "drawn at random, to compare far ratings"
        } else {
            "nearest in rating"
        }
    );
    let mut seats: Vec<usize> = std::iter::once(me.id)
        .chain(opponents.iter().map(|&k| active[k].id))
        .collect();
    // No version always sits first (X in noughts & crosses moves first).
    seats.shuffle(rng);
    Some(Choice { seats, reason })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The starting uncertainty of a Weng-Lin rating.
    const SIGMA0: f64 = 25.0 / 3.0;

    fn settled(n: usize) -> Vec<Candidate> {
        (0..n)
            .map(|k| Candidate {
                id: k,
                label: format!("bot{k} v1"),
                mu: 15.0 + k as f64,
                sigma: 2.0,
                games: 50,
                last_chosen: Some(100),
                queued: 0,
            })
            .collect()
    }

    const TUNING: Tuning = Tuning {
        placement_games: 10,
        far_share: 0.1,
    };

    /// Plays `games` choices, each finished at once, updating what matchmaking sees.
    fn simulate(active: &mut [Candidate], games: u32, first: u32) -> Vec<Choice> {
        let mut rng = crate::seed::rng(5, 0);
        (first..first + games)
            .map(|next| {
                let choice = choose(active, 2, next, TUNING, &mut rng).unwrap();
                for c in active.iter_mut().filter(|c| choice.seats.contains(&c.id)) {
                    c.games += 1;
                    c.last_chosen = Some(next);
                }
                choice
            })
            .collect()
    }

    #[test]
    fn a_new_version_plays_its_placement_games_first_against_near_opponents() {
        let mut active = settled(12);
        active.push(Candidate {
            id: 12,
            label: "new v1".into(),
            mu: 20.0,
            sigma: SIGMA0,
            games: 0,
            last_chosen: None,
            queued: 0,
        });
        let choices = simulate(&mut active, 10, 101);
        for (k, choice) in choices.iter().enumerate() {
            assert!(choice.seats.contains(&12), "{choice:?}");
            assert!(
                choice
                    .reason
                    .starts_with(&format!("placement game {} of 10 for new v1", k + 1)),
                "{choice:?}"
            );
        }
        // Mostly against versions rated near 20 (bot5 at exactly 20).
        let near = choices
            .iter()
            .filter(|c| c.seats.iter().all(|&s| (3..=7).contains(&s) || s == 12))
            .count();
        assert!(near >= 7, "{choices:?}");
    }

    #[test]
    fn every_version_plays_regularly_and_none_is_starved() {
        let mut active = settled(20);
        // One very sure, long-played version: it must still be chosen.
        active[0].sigma = 0.5;
        active[0].games = 10_000;
        let choices = simulate(&mut active, 400, 101);
        for c in &active {
            let played = choices.iter().filter(|ch| ch.seats.contains(&c.id)).count();
            assert!(played >= 15, "{} played {played} of 400 games", c.label);
        }
        // The longest gap between two games of any version stays bounded.
        for c in &active {
            let at: Vec<usize> = (0..choices.len())
                .filter(|&k| choices[k].seats.contains(&c.id))
                .collect();
            let gap = at.windows(2).map(|w| w[1] - w[0]).max().unwrap();
            assert!(gap <= 60, "{} waited {gap} games", c.label);
        }
        let far = choices
            .iter()
            .filter(|c| c.reason.contains("at random"))
            .count();
        assert!((15..=70).contains(&far), "{far} far games of 400");
    }

    #[test]
    fn queued_games_spread_the_queue_and_too_few_versions_choose_nothing() {
        let mut active = settled(6);
        active[2].queued = 3;
        let mut rng = crate::seed::rng(1, 0);
        let choice = choose(&active, 2, 101, TUNING, &mut rng).unwrap();
        assert!(!choice.seats.contains(&2), "{choice:?}");
        assert_eq!(choose(&active[..1], 2, 101, TUNING, &mut rng), None);
        let four = choose(&active, 4, 101, TUNING, &mut rng).unwrap();
        let mut seats = four.seats.clone();
        seats.sort();
        seats.dedup();
        assert_eq!(seats.len(), 4);
    }
}
