//! The points model, for a game whose result is its points ([`koth_game::Ranking::Points`]):
//! a seat's points are the game's mean `μ`, plus its player's own strength `a_i`, plus the mean
//! of what the others at its table do to a neighbour's points, their **table effects** `t_j`,
//! plus noise:
//!
//! `points(seat of i) = μ + a_i + mean(t_j for the others j at the table) + ε`
//!
//! The table effect is learnt, not assumed: in a game where each takes from the others (noughts
//! and crosses scored as points) a strong opponent's is negative; in the Grid-Routing Battle a
//! good builder's is positive, since everyone on a path it completes is paid (with the original
//! bots, every game without both Funnelweb and Connector ended with nobody scoring). A model
//! that tied the two together (`t_j = −a_j`, points as margins over the table) ranked the
//! original bots at τ 0.71 against their published order where their plain means per game
//! ranked them at 1.00 (issue 37).
//!
//! Fitted by least squares with ridges: [`PRIOR_GAMES`] game at the average for each `a_i`,
//! which keeps a player with one game near the average and pins their sum, and
//! [`TABLE_PRIOR`] for each `t_j`, so that a table effect is believed only once many games
//! show it (with few games, and line-ups that vary little, it would otherwise soak up chance).
//! A player's figure is `μ + a_i + mean(t_j for every other player j with games)`: its
//! expected points per game at a table of average opponents, the others (it never meets
//! itself; in a round robin its figure is then its plain points per game). A player who met
//! only opponents who cost their neighbours points scored less than its strength says, and the
//! model gives it back; one who met only generous ones, the other way. A game of one player
//! has no table: its points are `μ + a_i`.
//!
//! The 95% interval is ±1.96 standard errors from the normal equations' diagonal (the other
//! unknowns held at their estimates, as the order model's), with each player's own residual
//! variance (pooled with the whole fit's, worth two games), since a steady bot and a
//! wild one are not equally sure after as many games.
//!
//! How sure one player's lead over another is ([`Spread::lead_interval`]) is another matter:
//! seats of one game share its luck (in the Grid-Routing Battle a game whose paths complete
//! pays everyone at its table), so two players who meet often rise and fall together, and
//! their figures' difference is surer than their intervals, taken as independent, say. It is
//! measured with the standard errors clustered by game (the sandwich `A⁻¹ (Σ_g X_gᵀ e_g e_gᵀ
//! X_g) A⁻¹`, with the small-sample factor `G/(G − 1)`), which hold for any correlation of the
//! seats within a game. With the original bots, Funnelweb led Connector by 186 points a game,
//! ±273 as independent and ±144 clustered: they had shared 38 games and Funnelweb had scored
//! more in 27 (issue 37).

use std::collections::HashMap;

use super::Strength;

/// The ridge on a player's own strength, in games: it is pulled towards the average as much
/// as one game at the average would pull it.
const PRIOR_GAMES: f64 = 1.0;
/// The ridge on a player's table effect: as much as thirty games of two beside it with no effect
/// (a seat counts `1/(k − 1)` of a neighbour's effect at a table of `k`, so at a table of six
/// it takes 150 games). Chosen on the original Grid-Routing Battle bots (docs/hill.md): over
/// three samples of 32 to 60 games (6 and 7 a game, a hill and tournaments), τ against their
/// published order 0.93, 0.93 and 1.00 at 30; 0.50 to 0.64 at 1 to 3, where chance in the
/// line-ups passes for table effects.
const TABLE_PRIOR: f64 = 30.0;
/// Games' worth of the whole fit's residual variance in each player's own.
const POOLED_GAMES: f64 = 2.0;

/// Games to fit, by player index: every seat's player and points, game after game.
#[derive(Debug, Default, Clone)]
pub struct Games {
    seats: Vec<(usize, f64)>,
    /// Where each game's seats start in `seats`.
    starts: Vec<usize>,
}

impl Games {
    /// Adds a game: each seat's player and points.
    pub fn add(&mut self, seats: &[(usize, f64)]) {
        if seats.is_empty() {
            return;
        }
        self.starts.push(self.seats.len());
        self.seats.extend_from_slice(seats);
    }

    fn each(&self) -> impl Iterator<Item = &[(usize, f64)]> {
        self.starts.iter().enumerate().map(|(k, &start)| {
            let end = self.starts.get(k + 1).copied().unwrap_or(self.seats.len());
            &self.seats[start..end]
        })
    }
}

/// The weight of each other seat's table effect in a seat's points, `c = 1 / (k − 1)` at a
/// table of `k`; none alone.
fn neighbour_weight(k: usize) -> f64 {
    if k > 1 { 1.0 / (k - 1) as f64 } else { 0.0 }
}

/// The players at a table, each with its number of seats.
fn seated(table: &[(usize, f64)]) -> Vec<(usize, f64)> {
    let mut seated: Vec<(usize, f64)> = Vec::with_capacity(table.len());
    for &(p, _) in table {
        match seated.iter_mut().find(|s| s.0 == p) {
            Some(s) => s.1 += 1.0,
            None => seated.push((p, 1.0)),
        }
    }
    seated
}

/// The normal equations `(XᵀX + ridge) z = Xᵀ(y − μ)` of the model, `z` being every player's
/// own strength then every player's table effect. A seat of `i` has the row `e_i` in the own
/// part and `c (u − e_i)` in the table part (`u`: the table's players summed), so XᵀX is kept
/// sparse: diagonals, and the pairs of players that met.
#[derive(Debug, Clone)]
struct Normal {
    players: usize,
    own: Vec<f64>,
    table: Vec<f64>,
    /// `(i, j, w)`: the own strength of `i` with the table effect of `j`, in order (a sum in
    /// another order would differ in its last bits, and two reads of one table with it).
    cross: Vec<(usize, usize, f64)>,
    /// `(i, j, w)`, `i < j`: the table effects of `i` and `j`, in order.
    tables: Vec<(usize, usize, f64)>,
}

/// A sparse part's entries in order.
fn in_order(entries: HashMap<(usize, usize), f64>) -> Vec<(usize, usize, f64)> {
    let mut sorted: Vec<(usize, usize, f64)> =
        entries.into_iter().map(|((i, j), w)| (i, j, w)).collect();
    sorted.sort_unstable_by_key(|&(i, j, _)| (i, j));
    sorted
}

impl Normal {
    fn times(&self, z: &[f64]) -> Vec<f64> {
        let n = self.players;
        let mut out = vec![0.0; 2 * n];
        for i in 0..n {
            out[i] = self.own[i] * z[i];
            out[n + i] = self.table[i] * z[n + i];
        }
        for &(i, j, w) in &self.cross {
            out[i] += w * z[n + j];
            out[n + j] += w * z[i];
        }
        for &(i, j, w) in &self.tables {
            out[n + i] += w * z[n + j];
            out[n + j] += w * z[n + i];
        }
        out
    }
}

/// What a lead's interval needs of a fit: its normal equations, games and residuals.
#[derive(Debug, Clone)]
pub struct Spread {
    normal: Normal,
    games: Games,
    /// Each seat's residual, in the order of `games.seats`.
    residuals: Vec<f64>,
    /// The whole fit's residual variance per seat.
    pooled: f64,
    /// The field the figures are read against.
    field: Field,
}

impl Spread {
    /// Half the width of the 95% interval of a player without games: the whole fit's spread
    /// of a seat's points, held by its one game's worth of prior at the average.
    pub fn unplayed_interval(&self) -> f64 {
        1.96 * (self.pooled / PRIOR_GAMES).sqrt()
    }

    /// Half the width of the 95% interval of `a`'s figure less `b`'s, with the standard error
    /// clustered by game (this module's notes): `w = A⁻¹ (e_a − e_b)`, and each game adds the
    /// square of `Σ (x_seat · w) e_seat` over its seats.
    pub fn lead_interval(&self, a: usize, b: usize) -> f64 {
        let n = self.normal.players;
        if a == b || a >= n || b >= n {
            return 0.0;
        }
        // A figure is `μ + a_i + mean(t_j of the others)`: the lead's contrast has the two own
        // strengths and, through each one's field, the table effects.
        let mut contrast = vec![0.0; 2 * n];
        contrast[a] = 1.0;
        contrast[b] = -1.0;
        self.field.add_gradient(a, 1.0, &mut contrast[n..]);
        self.field.add_gradient(b, -1.0, &mut contrast[n..]);
        let w = conjugate_gradients(&|z| self.normal.times(z), &contrast, &vec![0.0; 2 * n]);
        let mut variance = 0.0;
        for (table, start) in self.games.each().zip(&self.games.starts) {
            let c = neighbour_weight(table.len());
            let effects: f64 = table.iter().map(|s| w[n + s.0]).sum();
            let score: f64 = table
                .iter()
                .zip(&self.residuals[*start..])
                .map(|(&(p, _), e)| (w[p] + c * (effects - w[n + p])) * e)
                .sum();
            variance += score * score;
        }
        let clusters = self.games.starts.len() as f64;
        if clusters > 1.0 {
            variance *= clusters / (clusters - 1.0);
        }
        1.96 * variance.sqrt()
    }
}

/// Fits every player's points per game against average opponents, starting the solver from
/// the own strengths `start` (one per player; the last fit's, so a refit after a few more
/// games takes a few steps). Players without games get the game's mean.
pub fn fit_from(games: &Games, start: &[f64]) -> (Vec<Strength>, Spread) {
    let players = start.len();
    let rows = games.seats.len();
    let mu = if rows == 0 {
        0.0
    } else {
        games.seats.iter().map(|s| s.1).sum::<f64>() / rows as f64
    };
    let mut own_diagonal = vec![PRIOR_GAMES; players];
    let mut table_diagonal = vec![TABLE_PRIOR; players];
    let mut cross: HashMap<(usize, usize), f64> = HashMap::new();
    let mut tables: HashMap<(usize, usize), f64> = HashMap::new();
    let mut b = vec![0.0; 2 * players];
    let mut seen = vec![0u32; players];
    for table in games.each() {
        let c = neighbour_weight(table.len());
        let at = seated(table);
        let residual_sum: f64 = table.iter().map(|s| s.1 - mu).sum();
        for &(p, y) in table {
            // The seat's own part, and its neighbours' table parts: c (u − e_p).
            b[p] += y - mu;
            b[players + p] -= c * (y - mu);
            seen[p] += 1;
        }
        for &(j, mj) in &at {
            b[players + j] += c * mj * residual_sum;
        }
        if c == 0.0 {
            for &(i, mi) in &at {
                own_diagonal[i] += mi;
            }
            continue;
        }
        // Each seat of i adds e_i e_iᵀ, c e_i (u − e_i)ᵀ and c² (u − e_i)(u − e_i)ᵀ.
        for &(i, mi) in &at {
            own_diagonal[i] += mi;
            for &(j, mj) in &at {
                let neighbours = mj - if i == j { 1.0 } else { 0.0 };
                if neighbours != 0.0 {
                    *cross.entry((i, j)).or_default() += mi * c * neighbours;
                }
            }
            for (x, &(j, mj)) in at.iter().enumerate() {
                let wj = mj - if i == j { 1.0 } else { 0.0 };
                table_diagonal[j] += mi * c * c * wj * wj;
                for &(l, ml) in &at[x + 1..] {
                    let wl = ml - if i == l { 1.0 } else { 0.0 };
                    let key = if j < l { (j, l) } else { (l, j) };
                    *tables.entry(key).or_default() += mi * c * c * wj * wl;
                }
            }
        }
    }
    let normal = Normal {
        players,
        own: own_diagonal,
        table: table_diagonal,
        cross: in_order(cross),
        tables: in_order(tables),
    };
    let mut from = start.to_vec();
    from.resize(2 * players, 0.0);
    let z = conjugate_gradients(&|z| normal.times(z), &b, &from);
    let (strength, effect) = z.split_at(players);
    // Residuals, each player's own and the whole fit's.
    let mut residuals = Vec::with_capacity(rows);
    let mut own = vec![0.0; players];
    let mut total = 0.0;
    for table in games.each() {
        let c = neighbour_weight(table.len());
        let effects: f64 = table.iter().map(|s| effect[s.0]).sum();
        for &(p, y) in table {
            let predicted = mu + strength[p] + c * (effects - effect[p]);
            residuals.push(y - predicted);
            let e = (y - predicted).powi(2);
            own[p] += e;
            total += e;
        }
    }
    let fitted_players = seen.iter().filter(|&&n| n > 0).count();
    let pooled = total / (rows.saturating_sub(fitted_players).max(1)) as f64;
    let field = Field::of(&seen, effect);
    let strengths = (0..players)
        .map(|i| {
            let n = f64::from(seen[i]);
            let variance = (own[i] + POOLED_GAMES * pooled) / (n + POOLED_GAMES);
            Strength {
                theta: strength[i],
                value: mu + strength[i] + field.mean_of_others(i, effect),
                interval: 1.96 * (variance / normal.own[i]).sqrt(),
            }
        })
        .collect();
    let spread = Spread {
        normal,
        games: games.clone(),
        residuals,
        pooled,
        field,
    };
    (strengths, spread)
}

/// The field a player's figure is read against: the other players with games, each met as
/// often. A player never sits at its own table, so the table effects it meets are the
/// others', not everyone's: in a round robin, where every player meets every other alike, its
/// figure is then its points per game, as it should be when there is nothing to adjust for.
/// Against everyone's mean, a player whose own effect is large (a weak one, against whom
/// everyone scores) was credited with never having met itself, by its own effect over the
/// field's size: in a pool whose strongest scored seventy points a game against the weakest
/// and its weak players a tenth of one, that credit reversed the weak players' order in a
/// round robin whose plain means ordered them right (docs/hill.md).
#[derive(Debug, Clone)]
struct Field {
    /// Whether each player has games: only those are in the field.
    has_games: Vec<bool>,
    /// The sum of their table effects.
    effects: f64,
    /// How many they are.
    players: usize,
}

impl Field {
    fn of(seen: &[u32], effect: &[f64]) -> Field {
        let has_games: Vec<bool> = seen.iter().map(|&n| n > 0).collect();
        Field {
            effects: has_games
                .iter()
                .zip(effect)
                .filter(|g| *g.0)
                .map(|g| g.1)
                .sum(),
            players: has_games.iter().filter(|&&g| g).count(),
            has_games,
        }
    }

    /// How many players `player`'s figure is read against: those with games, less itself.
    fn others(&self, player: usize) -> usize {
        self.players - usize::from(self.has_games[player])
    }

    /// The mean table effect of the others with games, `effect` being every player's.
    fn mean_of_others(&self, player: usize, effect: &[f64]) -> f64 {
        let others = self.others(player);
        if others == 0 {
            return 0.0;
        }
        let own = if self.has_games[player] {
            effect[player]
        } else {
            0.0
        };
        (self.effects - own) / others as f64
    }

    /// Adds `sign` times how [`Field::mean_of_others`] of `player` moves with each table
    /// effect to `effects` (one weight per player).
    fn add_gradient(&self, player: usize, sign: f64, effects: &mut [f64]) {
        let others = self.others(player);
        if others == 0 {
            return;
        }
        for (j, _) in self
            .has_games
            .iter()
            .enumerate()
            .filter(|&(j, &g)| g && j != player)
        {
            effects[j] += sign / others as f64;
        }
    }
}

/// Solves `A x = b` for a symmetric positive definite `A` (given as its product), from `start`.
fn conjugate_gradients(times: &dyn Fn(&[f64]) -> Vec<f64>, b: &[f64], start: &[f64]) -> Vec<f64> {
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a * b).sum::<f64>();
    let mut x = start.to_vec();
    let ax = times(&x);
    let mut r: Vec<f64> = b.iter().zip(&ax).map(|(b, a)| b - a).collect();
    let mut p = r.clone();
    let mut rr = dot(&r, &r);
    let goal = 1e-20 * dot(b, b).max(1e-300);
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
    use rand::{RngExt, SeedableRng};

    #[test]
    fn two_player_points_are_found_with_the_opponents_taken_out() {
        // Player i scores 10·i on average, minus what its opponent takes from it.
        let strengths = [0.0, 10.0, 20.0, 30.0];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut games = Games::default();
        for _ in 0..400 {
            let i = rng.random_range(0..4);
            let j = (i + rng.random_range(1..4)) % 4;
            let noise = |rng: &mut rand_chacha::ChaCha8Rng| rng.random_range(-5.0..5.0);
            let yi = 50.0 + strengths[i] - strengths[j] + noise(&mut rng);
            let yj = 50.0 + strengths[j] - strengths[i] + noise(&mut rng);
            games.add(&[(i, yi), (j, yj)]);
        }
        let fitted = fit_from(&games, &[0.0; 4]).0;
        for (k, f) in fitted.iter().enumerate() {
            // Its points per game against the others, each met as often (as here).
            let others = (strengths.iter().sum::<f64>() - strengths[k]) / 3.0;
            let truth = 50.0 + strengths[k] - others;
            // The interval holds the others at their estimates, so it is a little narrow in a
            // pool this small: within two of it.
            assert!(
                (f.value - truth).abs() < 2.0 * f.interval,
                "{k}: {f:?} vs {truth}"
            );
            assert!(f.interval > 0.1 && f.interval < 3.0, "{f:?}");
        }
        // From another start, the same optimum.
        let again = fit_from(&games, &[5.0, -3.0, 1.0, 0.0]).0;
        for (a, b) in fitted.iter().zip(&again) {
            assert!((a.value - b.value).abs() < 1e-6, "{a:?} {b:?}");
        }
    }

    #[test]
    fn a_player_that_met_mostly_strong_opponents_is_not_punished_for_it() {
        // 0 and 1 are equal; 0 mostly meets the strong 2, 1 mostly the weak 3 (each takes its
        // strength from its opponent's points); now and then any two meet.
        let strengths = [0.0, 0.0, 6.0, -6.0];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        let mut games = Games::default();
        let mut sums = [0.0; 4];
        let mut seats = [0.0; 4];
        for _ in 0..600 {
            let (i, j) = match rng.random_range(0..10) {
                0..4 => (0, 2),
                4..8 => (1, 3),
                _ => {
                    let i = rng.random_range(0..4);
                    (i, (i + rng.random_range(1..4)) % 4)
                }
            };
            let mut noise = || rng.random_range(-2.0..2.0);
            let (yi, yj) = (
                10.0 + strengths[i] - strengths[j] + noise(),
                10.0 + strengths[j] - strengths[i] + noise(),
            );
            games.add(&[(i, yi), (j, yj)]);
            for (p, y) in [(i, yi), (j, yj)] {
                sums[p] += y;
                seats[p] += 1.0;
            }
        }
        // Their plain means are far apart...
        assert!(
            sums[1] / seats[1] - sums[0] / seats[0] > 8.0,
            "{sums:?} {seats:?}"
        );
        // ...their figures are not (what is left is the table effects' ridge, which believes
        // a strong opponent's effect only as the games show it).
        let fitted = fit_from(&games, &[0.0; 4]).0;
        assert!(
            (fitted[0].value - fitted[1].value).abs() < 2.5,
            "{fitted:?}"
        );
        assert!(fitted[2].value > fitted[0].value + 4.0, "{fitted:?}");
    }

    #[test]
    fn a_player_beside_whom_everyone_scores_is_not_ranked_by_what_it_gives() {
        // The Grid-Routing Battle's shape: 0 and 1 are builders that pay everyone at their
        // table; 2 and 3 score only beside them, 3 more than 2. Places would say nothing of 2
        // and 3 beside a builder; margins over the table would put the generous builder's
        // neighbours below players who never met one.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let own = [10.0, 8.0, 1.0, 2.0];
        let mut games = Games::default();
        for _ in 0..400 {
            let mut table: Vec<usize> = (0..4).collect();
            table.swap(rng.random_range(0..4), 3);
            table.truncate(3);
            let builders = table.iter().filter(|&&p| p < 2).count() as f64;
            let seats: Vec<(usize, f64)> = table
                .iter()
                .map(|&p| (p, own[p] * builders + rng.random_range(-0.5..0.5)))
                .collect();
            games.add(&seats);
        }
        let fitted = fit_from(&games, &[0.0; 4]).0;
        let mut order: Vec<usize> = (0..4).collect();
        order.sort_by(|&x, &y| fitted[y].value.total_cmp(&fitted[x].value));
        assert_eq!(order, [0, 1, 3, 2], "{fitted:?}");
    }

    #[test]
    fn a_player_without_games_gets_the_mean_and_one_alone_its_own_mean() {
        let mut games = Games::default();
        for _ in 0..20 {
            games.add(&[(0, 4.0)]);
            games.add(&[(1, 8.0)]);
        }
        let fitted = fit_from(&games, &[0.0; 3]).0;
        assert!((fitted[2].value - 6.0).abs() < 1e-9, "{fitted:?}");
        // Ridge of one game: 20 games at 4 and one at the mean 6.
        assert!((fitted[0].value - (6.0 - 2.0 * 20.0 / 21.0)).abs() < 1e-6);
        assert!(fitted[1].value > fitted[0].value);
    }

    #[test]
    fn a_lead_between_two_who_share_their_games_luck_is_surer_than_their_intervals_say() {
        // 0 and 1 sit together in every game with one of 2..6; each game's luck pays (or
        // costs) everyone at its table alike, and 0 scores one more than 1.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let mut shared = Games::default();
        let mut apart = Games::default();
        for _ in 0..60 {
            let luck = rng.random_range(-10.0..10.0);
            let third = rng.random_range(2..6);
            let noise = [0; 6].map(|_| rng.random_range(-0.5..0.5));
            shared.add(&[
                (0, 11.0 + luck + noise[0]),
                (1, 10.0 + luck + noise[1]),
                (third, 5.0 + luck + noise[2]),
            ]);
            // The same players, each seat's luck its own.
            let luck = [0; 3].map(|_| rng.random_range(-10.0..10.0));
            apart.add(&[
                (0, 11.0 + luck[0] + noise[3]),
                (1, 10.0 + luck[1] + noise[4]),
                (third, 5.0 + luck[2] + noise[5]),
            ]);
        }
        let (fitted, spread) = fit_from(&shared, &[0.0; 6]);
        let independent = fitted[0].interval.hypot(fitted[1].interval);
        let clustered = spread.lead_interval(0, 1);
        let lead = fitted[0].value - fitted[1].value;
        assert!(
            clustered < independent / 3.0,
            "{clustered} vs {independent}"
        );
        assert!(lead > clustered, "{lead} ± {clustered}");
        assert!((lead - 1.0).abs() < clustered, "{lead} ± {clustered}");
        assert_eq!(spread.lead_interval(1, 0), clustered);
        // Without shared luck the lead is no surer than the two intervals say.
        let (fitted, spread) = fit_from(&apart, &[0.0; 6]);
        let independent = fitted[0].interval.hypot(fitted[1].interval);
        let clustered = spread.lead_interval(0, 1);
        assert!(
            clustered > independent / 2.0 && clustered < independent * 2.0,
            "{clustered} vs {independent}"
        );
    }

    #[test]
    fn two_equal_players_who_share_their_games_luck_are_told_apart_about_one_time_in_twenty() {
        // The crown's false alarms: 0 and 1 equal, seated together with one of 2..6 in 40
        // games whose luck pays everyone alike, and each seat's own noise on top. A 95%
        // interval of their lead excludes zero in about 5% of such hills, not far more.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let hills = 400;
        let mut apart = 0;
        for _ in 0..hills {
            let mut games = Games::default();
            for _ in 0..40 {
                let luck = rng.random_range(0.0..20.0);
                let third = rng.random_range(2..6);
                let mut seat = |own: f64| own + luck + rng.random_range(-3.0..3.0);
                games.add(&[(0, seat(10.0)), (1, seat(10.0)), (third, seat(4.0))]);
            }
            let (fitted, spread) = fit_from(&games, &[0.0; 6]);
            if (fitted[0].value - fitted[1].value).abs() > spread.lead_interval(0, 1) {
                apart += 1;
            }
        }
        assert!(apart <= hills / 10, "{apart} of {hills} told apart");
        assert!(
            apart >= hills / 100,
            "{apart} of {hills}: the interval is too wide"
        );
    }

    #[test]
    fn in_a_round_robin_a_figure_is_the_plain_points_per_game_and_the_weak_keep_their_order() {
        // Points that multiply, as in a game where the strong score many times what the weak
        // do: each seat its expected exp(s_i − mean of the others' s) / 2, without noise, at
        // every table of three of eight players, each table four times. Everyone scores
        // against the weakest, so its table effect is the largest; read against every
        // player's effect, its own included, it was credited with never having met itself,
        // and the weak half came out in reverse.
        let strengths: Vec<f64> = (0..8).map(|k| f64::from(k) * 0.5).collect();
        let mut games = Games::default();
        let (mut sums, mut seats) = (vec![0.0; 8], vec![0.0; 8]);
        for i in 0..8 {
            for j in i + 1..8 {
                for k in j + 1..8 {
                    let table = [i, j, k];
                    let points: Vec<(usize, f64)> = table
                        .iter()
                        .map(|&p| {
                            let others: f64 = table
                                .iter()
                                .filter(|&&o| o != p)
                                .map(|&o| strengths[o])
                                .sum();
                            (p, (strengths[p] - others / 2.0).exp() / 2.0)
                        })
                        .collect();
                    for _ in 0..4 {
                        games.add(&points);
                    }
                    for &(p, y) in &points {
                        sums[p] += 4.0 * y;
                        seats[p] += 4.0;
                    }
                }
            }
        }
        let fitted = fit_from(&games, &[0.0; 8]).0;
        // Its plain mean, pulled towards the game's mean by the one game's worth of prior.
        let game_mean = sums.iter().sum::<f64>() / seats.iter().sum::<f64>();
        for (k, f) in fitted.iter().enumerate() {
            let mean = (sums[k] + PRIOR_GAMES * game_mean) / (seats[k] + PRIOR_GAMES);
            assert!((f.value - mean).abs() < 0.01, "{k}: {f:?}, mean {mean}");
        }
        for pair in fitted.windows(2) {
            assert!(pair[0].value < pair[1].value, "{fitted:?}");
        }
    }
}
