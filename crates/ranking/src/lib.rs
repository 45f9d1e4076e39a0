//! Every ranking koth shows — a tournament's table, a hill's table and its king — by the rule
//! the game declares ([`Ranking`], in its folder): a **points** game's players by their points
//! per game adjusted for the opponents met ([`points`]), a **placement** game's by an order model
//! ([`order`]: Bradley–Terry with draws, Plackett–Luce for more). Pure: no processes, no
//! database. Both fits depend only on which games were played and how they ended, never on the
//! order they ended in.

pub mod order;
pub mod points;

pub use koth_game::Ranking;

/// One player's fitted figure, on its ranking's scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Strength {
    /// The model's own coordinate (a log-strength, or the log of its points over the game's
    /// mean): where the next fit may start.
    pub theta: f64,
    /// What the table shows and orders by: points per game against average opponents (tables
    /// drawn from the other players), or a rating on the Elo scale (1500 average, 400 points
    /// for 10:1 odds).
    pub value: f64,
    /// Half the width of its 95% interval, in the same unit.
    pub interval: f64,
}

/// Where a fit starts for one player: zeros, or where the last fit ended ([`Fit::next`]), so a
/// refit after a few more games takes a step or two.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Start {
    /// The model's own coordinate ([`Strength::theta`]).
    pub theta: f64,
    /// A points fit's table effect (none in an order model).
    pub effect: f64,
}

/// Games to fit under a game's rule, by player index.
#[derive(Debug, Clone)]
pub struct Games {
    ranking: Ranking,
    order: order::Games,
    points: points::Games,
}

impl Games {
    pub fn new(ranking: Ranking) -> Games {
        Games {
            ranking,
            order: order::Games::default(),
            points: points::Games::default(),
        }
    }

    /// Adds a game: each seat's player and score (higher is better).
    pub fn add(&mut self, seats: &[(usize, f64)]) {
        match self.ranking {
            Ranking::Points => self.points.add(seats),
            Ranking::Placement => self.order.add(seats),
        }
    }

    /// Orders a points fit's line-ups for its passes ([`points::Games::order_line_ups`]), or
    /// a placement fit's pairs ([`order::Games::order_pairs`]): called once the games are
    /// gathered, and after more are added.
    pub fn order_line_ups(&mut self) {
        match self.ranking {
            Ranking::Points => self.points.order_line_ups(),
            Ranking::Placement => self.order.order_pairs(),
        }
    }

    /// How many distinct line-ups a points fit's passes walk (its games merged by line-up);
    /// none for a placement fit, which holds pairs.
    pub fn line_ups(&self) -> Option<usize> {
        match self.ranking {
            Ranking::Points => Some(self.points.line_ups()),
            Ranking::Placement => None,
        }
    }
}

/// A fit of `games`: every player's figure, where the next fit may start, and how sure one's
/// lead over another is.
#[derive(Debug, Clone)]
pub struct Fit<'g> {
    pub strengths: Vec<Strength>,
    /// Each player's coordinates where this fit ended.
    pub next: Vec<Start>,
    /// A points fit's spread, for leads clustered by game; none for an order model, whose
    /// leads take the two figures as independent.
    spread: Option<points::Spread<'g>>,
}

impl Fit<'_> {
    /// Half the width of the 95% interval this fit gives a player without games (where a
    /// newcomer's figure starts, on the same scale as every figure).
    pub fn unplayed_interval(&self) -> f64 {
        match &self.spread {
            Some(spread) => spread.unplayed_interval(),
            None => order::UNPLAYED_INTERVAL,
        }
    }

    /// Half the width of the 95% interval of `a`'s figure less `b`'s (player indices).
    pub fn lead_interval(&self, a: usize, b: usize) -> f64 {
        self.lead_interval_from(a, b, &mut LeadSolve::default())
    }

    /// [`Fit::lead_interval`], a points fit's system solved from `last` (the same pair's
    /// solve by the last refit, if `last` holds it), and left there for the next.
    pub fn lead_interval_from(&self, a: usize, b: usize, last: &mut LeadSolve) -> f64 {
        if last.pair != Some((a, b)) {
            last.pair = Some((a, b));
            last.solution.clear();
        }
        match &self.spread {
            Some(spread) => spread.lead_interval_from(a, b, &mut last.solution),
            None => match (self.strengths.get(a), self.strengths.get(b)) {
                (Some(a), Some(b)) => a.interval.hypot(b.interval),
                _ => 0.0,
            },
        }
    }
}

/// Where a lead's interval was last solved: its pair and its system's solution. A caller
/// that refits as games come (`hill run`) keeps it, so that the next refit's interval of the
/// same pair is solved from there: its solve was a third of a refit at 10,000 versions.
#[derive(Debug, Clone, Default)]
pub struct LeadSolve {
    pair: Option<(usize, usize)>,
    solution: Vec<f64>,
}

/// Fits every player, starting from `start` (one per player: the last fit's [`Fit::next`], or
/// zeros).
pub fn fit<'g>(games: &'g Games, start: &[Start]) -> Fit<'g> {
    match games.ranking {
        Ranking::Points => {
            let (strengths, spread, next) = points::fit_from(&games.points, start);
            Fit {
                strengths,
                next,
                spread: Some(spread),
            }
        }
        Ranking::Placement => {
            let thetas: Vec<f64> = start.iter().map(|s| s.theta).collect();
            let strengths = order::fit_from(&games.order, &thetas);
            let next = strengths
                .iter()
                .map(|s| Start {
                    theta: s.theta,
                    effect: 0.0,
                })
                .collect();
            Fit {
                strengths,
                next,
                spread: None,
            }
        }
    }
}

/// The column of a table that shows a ranking's figure.
pub fn column(ranking: Ranking) -> &'static str {
    match ranking {
        Ranking::Points => "points/game (adj.)",
        Ranking::Placement => "rating",
    }
}

/// What a ranking's figure is, in words (the JSON's `statistic`).
pub fn statistic(ranking: Ranking) -> &'static str {
    match ranking {
        Ranking::Points => {
            "points per game against average opponents (adjusted for the opponents met), \
             with its 95% interval"
        }
        Ranking::Placement => {
            "rating on the Elo scale (1500 average) from an order model (Bradley-Terry with \
             draws, Plackett-Luce for more), with its 95% interval"
        }
    }
}

/// A player as a table orders it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Entry {
    pub id: usize,
    /// Its fitted figure; none before its first fit.
    pub value: Option<f64>,
    pub interval: f64,
    pub games: u32,
}

/// The one order of every table and of its king: the higher figure first, those not yet
/// fitted after; a tie goes to the player with more games, then to the earlier one (lower id).
/// Figures are compared to [`TIED_WITHIN`] of the table's largest: two equal records fit to
/// figures that differ in their eighth digit or so, as the fit happened to converge (a hill
/// refits from its last fit), and such noise must not order them.
pub fn in_order(entries: &mut [Entry]) {
    let scale = entries
        .iter()
        .filter_map(|e| e.value)
        .map(f64::abs)
        .fold(1.0, f64::max);
    // A key per figure, on one grid for the whole table, so the order stays a total one.
    let step = TIED_WITHIN * scale;
    let key = |e: &Entry| e.value.map(|v| (v / step).round());
    entries.sort_by(|a, b| {
        b.value
            .is_some()
            .cmp(&a.value.is_some())
            .then(key(b).unwrap_or(0.0).total_cmp(&key(a).unwrap_or(0.0)))
            .then(b.games.cmp(&a.games))
            .then(a.id.cmp(&b.id))
    });
}

/// Figures this close, as a share of a table's largest, are tied ([`in_order`]): far above a
/// fit's convergence (about 1e-8), far below any difference a table shows.
const TIED_WITHIN: f64 = 1e-6;

/// The king of a table in order ([`in_order`]): its first version that has played its
/// `placement_games` ([`placed`]) — who leads, however narrowly, as a king of the hill means. A
/// version still placing is not ranked, so it is never king. How sure the lead is
/// ([`apart`]) is told beside it, never a condition: a crown that waited for a sure lead left a
/// hill of close leaders without a king for most of its life (the original Grid-Routing Battle
/// bots, docs/hill.md: no king at 42 games per bot in one seed of three, though the same bot
/// led from the sixth game).
pub fn king(table: &[Entry], placement_games: u32) -> Option<usize> {
    table
        .iter()
        .find(|entry| placed(entry, placement_games))
        .map(|entry| entry.id)
}

/// Whether `entry` has a figure and has played its `placement_games` (at least one): only then
/// is it ranked; before, a table lists it as placing, with its count.
pub fn placed(entry: &Entry, placement_games: u32) -> bool {
    entry.value.is_some() && entry.games >= placement_games.max(1)
}

/// Whether `first` is surely ahead of `second`, by the intervals a table shows: its 95%
/// interval lies wholly above the other's. A reader sees the same rule in the table as in the
/// king's line. (The lead's own interval, [`Fit::lead_interval`], is narrower: it would call a
/// lead sure while the two intervals the table shows still overlap.)
pub fn apart(first: &Entry, second: &Entry) -> bool {
    match (first.value, second.value) {
        (Some(a), Some(b)) => a - first.interval > b + second.interval,
        _ => false,
    }
}

/// Solves `A x = b` for a symmetric positive definite `A` (given as its product), from `start`,
/// until the residual is `tolerance` of `b` or less: the Newton step of both fits, whose
/// curvature is sparse (a game couples only its own players).
pub(crate) fn conjugate_gradients(
    times: &dyn Fn(&[f64]) -> Vec<f64>,
    b: &[f64],
    start: &[f64],
    tolerance: f64,
) -> Vec<f64> {
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a * b).sum::<f64>();
    let mut x = start.to_vec();
    // From zeros the residual is `b` itself: a product (a walk of every game) spared.
    let mut r: Vec<f64> = if x.iter().all(|&x| x == 0.0) {
        b.to_vec()
    } else {
        let ax = times(&x);
        b.iter().zip(&ax).map(|(b, a)| b - a).collect()
    };
    let mut p = r.clone();
    let mut rr = dot(&r, &r);
    let goal = tolerance * tolerance * dot(b, b).max(1e-300);
    for _ in 0..(10 * b.len()).max(100) {
        if rr <= goal {
            break;
        }
        let ap = times(&p);
        let alpha = rr / dot(&p, &ap);
        for k in 0..x.len() {
            x[k] += alpha * p[k];
            r[k] -= alpha * ap[k];
        }
        let next = dot(&r, &r);
        for k in 0..p.len() {
            p[k] = r[k] + next / rr * p[k];
        }
        rr = next;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_points_game_ranks_by_points_where_counting_places_would_not() {
        // Games of three: 0 scores 30 one game in five and nothing otherwise (6 a game); 1
        // scores 1 four games in five (0.8 a game); 2 never scores. Places favour 1, points 0.
        let mut points = Games::new(Ranking::Points);
        let mut places = Games::new(Ranking::Placement);
        for game in 0..100 {
            let seats = [
                (0, if game % 5 == 0 { 30.0 } else { 0.0 }),
                (1, if game % 5 == 4 { 0.0 } else { 1.0 }),
                (2, 0.0),
            ];
            points.add(&seats);
            places.add(&seats);
        }
        let by_points = fit(&points, &[Start::default(); 3]).strengths;
        let by_places = fit(&places, &[Start::default(); 3]).strengths;
        assert!(by_points[0].value > by_points[1].value, "{by_points:?}");
        assert!(by_places[1].value > by_places[0].value, "{by_places:?}");
        // Points per game against average opponents, about what each scored.
        assert!((by_points[0].value - 6.0).abs() < 1.5, "{by_points:?}");
        assert!((by_points[1].value - 0.8).abs() < 1.5, "{by_points:?}");
    }

    #[test]
    fn the_unplayed_interval_is_what_each_fit_gives_a_player_without_games() {
        for ranking in [Ranking::Points, Ranking::Placement] {
            let mut games = Games::new(ranking);
            for game in 0..40 {
                let spread = f64::from(game % 7);
                games.add(&[(0, 2.0 + spread), (1, 1.0), (2, spread / 2.0)]);
            }
            // Player 3 never played.
            let fitted = fit(&games, &[Start::default(); 4]);
            let unplayed = fitted.unplayed_interval();
            assert!(unplayed > fitted.strengths[0].interval, "{fitted:?}");
            assert!(
                (unplayed - fitted.strengths[3].interval).abs() < 1e-9 * unplayed,
                "{ranking:?}: {unplayed} against {:?}",
                fitted.strengths[3]
            );
        }
    }

    fn entry(id: usize, value: f64, interval: f64, games: u32) -> Entry {
        Entry {
            id,
            value: Some(value),
            interval,
            games,
        }
    }

    #[test]
    fn ties_go_to_more_games_then_the_earlier_and_the_king_is_the_first_placed() {
        let mut table = vec![
            entry(3, 1500.0, 100.0, 5),
            entry(1, 1500.0, 100.0, 5),
            entry(2, 1500.0, 100.0, 9),
            Entry {
                id: 0,
                value: None,
                interval: 0.0,
                games: 0,
            },
        ];
        in_order(&mut table);
        let ids: Vec<usize> = table.iter().map(|e| e.id).collect();
        assert_eq!(ids, [2, 1, 3, 0]);
        // Figures apart only by a fit's noise are tied too: more games first, then the earlier.
        let mut noisy = vec![
            entry(1, 1500.0 + 2e-5, 100.0, 5),
            entry(0, 1500.0, 100.0, 5),
            entry(2, 1500.0 - 1e-5, 100.0, 9),
            entry(3, 1500.1, 100.0, 1),
        ];
        in_order(&mut noisy);
        let ids: Vec<usize> = noisy.iter().map(|e| e.id).collect();
        assert_eq!(ids, [3, 2, 0, 1]);
        // Tied: the king is the first as ties are broken, never another.
        assert_eq!(king(&table, 4), Some(2));
        // Not before its placement games: then there is none.
        assert_eq!(king(&table, 10), None);
        // Nor without a figure.
        assert_eq!(king(&table[3..], 0), None);
        assert_eq!(king(&[], 0), None);
        // A placing first is not ranked: the king is the first that has placed.
        let mut table = vec![entry(0, 1500.0, 50.0, 10), entry(1, 1600.0, 50.0, 3)];
        in_order(&mut table);
        assert_eq!(table[0].id, 1);
        assert_eq!(king(&table, 5), Some(0));
        // Sure only where the intervals the table shows are apart.
        assert!(apart(&entry(0, 250.0, 100.0, 9), &entry(1, 0.0, 100.0, 9)));
        assert!(!apart(&entry(0, 150.0, 100.0, 9), &entry(1, 0.0, 100.0, 9)));
        assert!(!apart(&entry(0, 0.0, 0.0, 9), &entry(1, 0.0, 0.0, 9)));
    }
}
