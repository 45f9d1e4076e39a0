//! The points model, for a game whose result is its points ([`koth_game::Ranking::Points`]):
//! a seat's expected points are the game's mean level `e^m`, times its player's own strength
//! `e^{a_i}`, times what each other player at its table does to a neighbour's points, its
//! **table effect** `e^{t_j}`, shared among the seats beside it:
//!
//! `E[points(seat of i)] = exp(m + a_i + c · Σ t_j over the others j at the table)`,
//! `c = 1 / (k − 1)` at a table of `k`.
//!
//! Points multiply rather than add. In the Grid-Routing Battle a seat is paid for the paths
//! completed through its own cells, so a good builder at the table multiplies everyone's
//! points (with the original bots, every game without both Funnelweb and Connector ended with
//! nobody scoring), and a weak bot scores a little against a weak table and nothing against a
//! strong one. A model that added a table effect to a seat's points extrapolated that wrong:
//! in the simulated pool whose neighbours are 0.5 apart (docs/hill.md) the hill seats the weak
//! among the weak, and read against the whole field the additive fit never ranked 6 of 40 such
//! hills within 20,000 games, where this one ranks each of 160 within 112 (issue 37). The
//! table effect is learnt, not assumed: in a game where each takes from the others a strong
//! opponent's is negative; a good builder's is positive. A model that tied the two together
//! (`t_j = −a_j`) ranked the original bots at τ 0.71 against their published order.
//!
//! Fitted by Poisson quasi-likelihood (the log-linear model of counts, whose estimates are
//! right whenever the expected points are, however the points are spread about them: a game
//! that pays 0 or 500 is no Poisson count), by Newton's method with step halving, with ridges:
//! [`PRIOR_GAMES`] game at the game's mean for each player's own strength, which keeps a
//! player with one game (or only games without points) near the average, and [`TABLE_PRIOR`]
//! for each table effect, so that a table effect is believed only once many games show it.
//! Points below zero (a game may score them) are shifted up by the least seat's, as the model
//! needs none below zero.
//!
//! A player's figure is its expected points per game at a table of the games' usual size whose
//! other seats are drawn at random from every other player with games: `e^{m + a_i}` times the
//! mean of `exp(c Σ t_j)` over those tables (an elementary symmetric mean, [`Field`]). It never
//! meets itself, so in a round robin its figure is about its plain points per game. A player who
//! met only opponents who cost their neighbours points scored less than its strength says, and
//! the model gives it back; one who met only generous ones, the other way.
//!
//! The 95% interval is ±1.96 standard errors of the own strength (the other unknowns held at
//! their estimates, as the order model's), carried to points per game, with each player's own
//! spread of points about their expectation (pooled with the whole fit's, worth two games),
//! since a steady bot and a wild one are not equally sure after as many games.
//!
//! How sure one player's lead over another is ([`Spread::lead_interval`]) is another matter:
//! seats of one game share its luck (in the Grid-Routing Battle a game whose paths complete
//! pays everyone at its table), so two players who meet often rise and fall together, and
//! their figures' difference is surer than their intervals, taken as independent, say. It is
//! measured with the standard errors clustered by game (the sandwich `H⁻¹ (Σ_g X_gᵀ e_g e_gᵀ
//! X_g) H⁻¹`, `e` each seat's points less their expectation, with the small-sample factor
//! `G/(G − 1)`), which hold for any correlation of the seats within a game.

use std::collections::HashMap;

use super::{Start, Strength, conjugate_gradients};

/// The ridge on a player's own strength, in games: it is pulled towards the game's mean as
/// much as one game at the mean would pull it.
const PRIOR_GAMES: f64 = 1.0;
/// The ridge on a player's table effect: as much as thirty seats of average points beside it,
/// seen to show no effect (a seat counts `1/(k − 1)` of a neighbour's effect at a table of
/// `k`). Chosen on the original Grid-Routing Battle bots (docs/hill.md): with 1 to 3, chance
/// in the line-ups of 32 to 60 games passed for table effects.
const TABLE_PRIOR: f64 = 30.0;
/// Games' worth of the whole fit's residual variance in each player's own.
const POOLED_GAMES: f64 = 2.0;
/// Newton's steps at most; from zeros a fit takes about ten.
const NEWTON_STEPS: usize = 200;
/// How far a lead's system is solved: its residual a millionth of its right side (an
/// interval is shown to three digits).
const SOLVED: f64 = 1e-6;
/// Where Newton's method stops: when the rise a step could still bring (the gradient against
/// the curvature's diagonal) is this share of every point scored, or less: two fits from
/// different starts then agree to about a ten-millionth.
const CONVERGED: f64 = 1e-16;

/// Games to fit, by player index, merged by line-up: the Poisson fit reads a line-up's games
/// only through their count and each seat's sum of points (every game of a line-up has the
/// same expectation at each seat), and the lead's clustered interval through each line-up's
/// sums of products of its seats' points (the co-moments about their means, kept as each game
/// comes, so that no difference of large sums cancels). A hill's matchmaking seats near
/// versions together again and again, so each pass of the fit walks a line-up once rather
/// than each of its games (the bench's ten million games of three at 10,000 versions are
/// some 3.5 million line-ups). A line-up's players are sorted; a seat's points are taken as an
/// `f32` (whole numbers in every game koth has, exact to 16 million), as before.
#[derive(Debug, Default, Clone)]
pub struct Games {
    /// Each line-up's players, sorted, line-up after line-up.
    players: Vec<u32>,
    /// Each seat's points summed over its line-up's games, beside `players`, as an `f32` while
    /// every seat's sum of the line-up is exact in one (a seat's points are taken as an `f32`,
    /// so a line-up played once always is, and whole points summed below 16 million are): 4
    /// bytes a seat where an `f64` took 8 (120 MB of ten million games of three), read in
    /// order by every pass. A line-up whose sums are not has a NaN at its first seat here and
    /// its sums in its block.
    sums: Vec<f32>,
    /// Where each line-up's seats start in `players`: empty while every line-up has as many
    /// seats (`sizes.0`), line-up `k`'s then starting at `k` times that (40 MB of ten million
    /// line-ups spared on a hill, whose tables are one size).
    starts: Vec<u32>,
    /// Each line-up's games.
    counts: Vec<u32>,
    /// Where each line-up's block in `repeated` starts: [`NO_BLOCK`] until its second game.
    blocks: Vec<u32>,
    /// Each line-up played more than once: its seats' points summed over its games as `f64`s,
    /// then their co-moments about their means (the upper triangle, row by row). One game's
    /// co-moments are zero, so a line-up gets its block at its second game: among 10,000
    /// versions 99.5% of line-ups are played once.
    repeated: Vec<f64>,
    /// Every line-up's index, found by the hash of its players ([`line_up_hash`]): a table of
    /// indexes alone, 5 bytes a line-up where a map from each hash was 17 (ten million
    /// line-ups: 84 MB against 285).
    index: hashbrown::HashTable<u32>,
    games: usize,
    seats: usize,
    /// The fewest and the most seats of a line-up.
    sizes: (usize, usize),
    /// The least seat's points, or zero.
    least: f64,
    /// The game being added, sorted: kept so that adding ten million games allocates once.
    table: Vec<(u32, f64)>,
    /// The line-ups before this one are in the order of their players
    /// ([`Games::order_line_ups`]); those after it in the order they came.
    ordered: usize,
}

/// [`Games::order_line_ups`] leaves the line-ups as they came while no more than this share of
/// them (one in `UNORDERED_SHARE`) came since they were last ordered.
const UNORDERED_SHARE: usize = 16;

/// Where line-up `k`'s seats start in the players: from `starts`, or where every line-up has
/// `size` seats (`starts` empty), at `k` times that.
fn start_of(starts: &[u32], size: usize, k: usize) -> usize {
    if starts.is_empty() {
        k * size
    } else {
        starts[k] as usize
    }
}

/// The players of line-up `k` (see [`start_of`]).
fn players_of<'g>(starts: &[u32], size: usize, players: &'g [u32], k: usize) -> &'g [u32] {
    let end = if starts.is_empty() {
        (k + 1) * size
    } else {
        starts.get(k + 1).map_or(players.len(), |&s| s as usize)
    };
    &players[start_of(starts, size, k)..end]
}

/// The hash a line-up of `size` sorted `players` is found by.
fn line_up_hash(players: impl Iterator<Item = u32>, size: usize) -> u64 {
    players.fold(size as u64, |hash, p| {
        (hash.rotate_left(26) ^ u64::from(p)).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    })
}

/// The length of a block in [`Games::repeated`] of a line-up of `k` seats: `k` sums and the
/// upper triangle of `k` by `k` co-moments.
fn block_length(k: usize) -> usize {
    k + k * (k + 1) / 2
}

/// Where a line-up played once keeps its block: nowhere.
const NO_BLOCK: u32 = u32::MAX;

/// A line-up's seats' points summed over its games.
#[derive(Clone, Copy)]
enum LineUpSums<'g> {
    Exact(&'g [f32]),
    /// Of a line-up whose sums an `f32` does not hold exactly.
    Summed(&'g [f64]),
}

impl<'g> LineUpSums<'g> {
    fn get(&self, seat: usize) -> f64 {
        match self {
            LineUpSums::Exact(points) => f64::from(points[seat]),
            LineUpSums::Summed(sums) => sums[seat],
        }
    }

    fn iter(self) -> impl Iterator<Item = f64> + 'g {
        let seats = match self {
            LineUpSums::Exact(points) => points.len(),
            LineUpSums::Summed(sums) => sums.len(),
        };
        (0..seats).map(move |seat| self.get(seat))
    }
}

/// One line-up and its games, as the fit reads them.
struct LineUp<'g> {
    players: &'g [u32],
    sums: LineUpSums<'g>,
    games: f64,
    /// Empty for a line-up played once (its co-moments are zero).
    moments: &'g [f64],
}

impl LineUp<'_> {
    /// The co-moment at `at` of the upper triangle.
    fn moment(&self, at: usize) -> f64 {
        self.moments.get(at).copied().unwrap_or(0.0)
    }
}

impl Games {
    /// Adds a game: each seat's player and points.
    pub fn add(&mut self, seats: &[(usize, f64)]) {
        if seats.is_empty() {
            return;
        }
        let mut table = std::mem::take(&mut self.table);
        table.clear();
        table.extend(seats.iter().map(|&(p, y)| {
            let p = u32::try_from(p).expect("a player index");
            (p, f64::from(y as f32))
        }));
        // Two seats of one player are alike to the model, so any order of them does.
        table.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        let k = self.line_up(&table);
        if self.counts[k] > 0 {
            self.add_again(k, &table);
        }
        self.counts[k] += 1;
        self.games += 1;
        self.seats += table.len();
        self.least = table.iter().map(|s| s.1).fold(self.least, f64::min);
        self.table = table;
    }

    /// Adds to line-up `k`'s sums and co-moments a game of it after its first (`table`).
    fn add_again(&mut self, k: usize, table: &[(u32, f64)]) {
        let seats = table.len();
        let n = f64::from(self.counts[k]);
        let at = start_of(&self.starts, self.sizes.0, k);
        let exact = &mut self.sums[at..at + seats];
        if self.blocks[k] == NO_BLOCK {
            let block = self.repeated.len();
            // Played once, its sums are its one game's points, each an `f32`.
            self.repeated.extend(exact.iter().map(|&y| f64::from(y)));
            self.repeated.resize(block + block_length(seats), 0.0);
            self.blocks[k] = u32::try_from(block)
                .ok()
                .filter(|&block| block != NO_BLOCK)
                .expect("fewer than 4 billion sums");
        }
        let block = self.blocks[k] as usize;
        let (sums, moments) = self.repeated[block..block + block_length(seats)].split_at_mut(seats);
        // Welford's update: the co-moment grows by (y − the old mean)(y − the new mean), both
        // read from the sums before this game's are added.
        let mut moment = 0;
        for (s, &(_, ys)) in table.iter().enumerate() {
            let before = ys - sums[s] / n;
            for (&(_, yt), sum) in table[s..].iter().zip(&sums[s..]) {
                moments[moment] += before * (yt - (sum + yt) / (n + 1.0));
                moment += 1;
            }
        }
        for (s, sum) in table.iter().zip(sums.iter_mut()) {
            *sum += s.1;
        }
        if sums.iter().all(|&sum| f64::from(sum as f32) == sum) {
            for (exact, &sum) in exact.iter_mut().zip(sums.iter()) {
                *exact = sum as f32;
            }
        } else {
            exact[0] = f32::NAN;
        }
    }

    /// The index of the line-up of `table` (sorted), added without games if new.
    fn line_up(&mut self, table: &[(u32, f64)]) -> usize {
        let hash = line_up_hash(table.iter().map(|s| s.0), table.len());
        let (starts, size, players) = (&self.starts, self.sizes.0, &self.players);
        let same = |&k: &u32| {
            players_of(starts, size, players, k as usize)
                .iter()
                .eq(table.iter().map(|s| &s.0))
        };
        if let Some(&k) = self.index.find(hash, same) {
            return k as usize;
        }
        let k = self.counts.len();
        if k == 0 {
            self.sizes = (table.len(), table.len());
        } else if self.starts.is_empty() && table.len() != self.sizes.0 {
            // The first line-up of another size: every line-up's start is kept from now on.
            let size = self.sizes.0;
            self.starts = (0..k)
                .map(|k| u32::try_from(k * size).expect("fewer than 4 billion seats"))
                .collect();
        }
        self.sizes = (self.sizes.0.min(table.len()), self.sizes.1.max(table.len()));
        let index = u32::try_from(k).expect("fewer than 4 billion line-ups");
        let (starts, size, players) = (&self.starts, self.sizes.0, &self.players);
        self.index.insert_unique(hash, index, |&k| {
            let seats = players_of(starts, size, players, k as usize);
            line_up_hash(seats.iter().copied(), seats.len())
        });
        if !self.starts.is_empty() {
            self.starts
                .push(u32::try_from(self.players.len()).expect("fewer than 4 billion seats"));
        }
        self.players.extend(table.iter().map(|s| s.0));
        self.sums.extend(table.iter().map(|s| s.1 as f32));
        self.blocks.push(NO_BLOCK);
        self.counts.push(0);
        k
    }

    fn players_of(&self, k: usize) -> &[u32] {
        players_of(&self.starts, self.sizes.0, &self.players, k)
    }

    /// Where line-up `k`'s seats are in the players and the sums.
    fn seats_of(&self, k: usize) -> std::ops::Range<usize> {
        let at = start_of(&self.starts, self.sizes.0, k);
        at..at + self.players_of(k).len()
    }

    /// Orders the line-ups by their players (sorted, so by their least player first), unless
    /// no more than one in [`UNORDERED_SHARE`] came since they were last ordered. Every pass of
    /// the fit walks the line-ups and reads and adds to each seat's player's place in vectors
    /// of every player (four of them in a product): in the order the games came, each seat is
    /// a version anywhere among 10,000, read from the second-level cache; ordered, a run of
    /// line-ups shares its least player and its others are near ones (a hill seats near
    /// versions together), read from the first. The fit's sums are then taken in another
    /// order, which moves its last digits, not its figures. A hill's refit orders its games
    /// once gathered, and the few each refit adds come after the ordered ones until they are
    /// a sixteenth of all.
    pub fn order_line_ups(&mut self) {
        let line_ups = self.counts.len();
        if (line_ups - self.ordered) * UNORDERED_SHARE <= line_ups {
            return;
        }
        let place = match self.ordered > 0 && self.starts.is_empty() {
            true => self.merge_added_line_ups(),
            false => self.copy_line_ups_in_order(),
        };
        // The index finds a line-up by the hash of its players, which it keeps: only where
        // each line-up now is changes.
        for k in self.index.iter_mut() {
            *k = place[*k as usize];
        }
        self.ordered = line_ups;
    }

    /// Copies every line-up to its place in the order of their players; returns where each
    /// went.
    fn copy_line_ups_in_order(&mut self) -> Vec<u32> {
        let order = self.line_ups_in_order();
        self.players = self.permuted(&self.players, &order);
        self.sums = self.permuted(&self.sums, &order);
        self.counts = order.iter().map(|&k| self.counts[k as usize]).collect();
        self.blocks = order.iter().map(|&k| self.blocks[k as usize]).collect();
        if !self.starts.is_empty() {
            // Each line-up's start after the seats of those now before it.
            let mut at = 0;
            let mut starts = Vec::with_capacity(order.len());
            for &k in &order {
                starts.push(u32::try_from(at).expect("fewer than 4 billion seats"));
                at += self.seats_of(k as usize).len();
            }
            self.starts = starts;
        }
        let mut place = vec![0u32; order.len()];
        for (now, &k) in order.iter().enumerate() {
            place[k as usize] = now as u32;
        }
        place
    }

    /// Merges the line-ups added since the last order into the ordered ones in place, every
    /// line-up having one size: the added ones copied out sorted (a sixteenth of them), then
    /// both merged from the back, each line-up moved once, to where it stays, never over one
    /// not yet moved. So no second copy of every seat is held, as copying them all in order
    /// does (170 MB more at ten million line-ups). Returns where each line-up went.
    fn merge_added_line_ups(&mut self) -> Vec<u32> {
        let size = self.sizes.0;
        let line_ups = self.counts.len();
        let added = self.added_in_order();
        let seats = |k: usize| k * size..(k + 1) * size;
        let mut players = Vec::with_capacity(added.len() * size);
        let mut sums = Vec::with_capacity(added.len() * size);
        for &k in &added {
            players.extend_from_slice(&self.players[seats(k as usize)]);
            sums.extend_from_slice(&self.sums[seats(k as usize)]);
        }
        let counts: Vec<u32> = added.iter().map(|&k| self.counts[k as usize]).collect();
        let blocks: Vec<u32> = added.iter().map(|&k| self.blocks[k as usize]).collect();
        let mut place = vec![0u32; line_ups];
        // Line-ups `..kept` of the ordered and `..left` of the added are still to move, into
        // places `..=to`.
        let (mut kept, mut left) = (self.ordered, added.len());
        for to in (0..line_ups).rev() {
            let takes_added =
                left > 0 && (kept == 0 || players[seats(left - 1)] > self.players[seats(kept - 1)]);
            if takes_added {
                left -= 1;
                self.players[seats(to)].copy_from_slice(&players[seats(left)]);
                self.sums[seats(to)].copy_from_slice(&sums[seats(left)]);
                self.counts[to] = counts[left];
                self.blocks[to] = blocks[left];
                place[added[left] as usize] = to as u32;
            } else {
                kept -= 1;
                self.players.copy_within(seats(kept), to * size);
                self.sums.copy_within(seats(kept), to * size);
                self.counts[to] = self.counts[kept];
                self.blocks[to] = self.blocks[kept];
                place[kept] = to as u32;
            }
        }
        place
    }

    /// The line-ups added since the last order, in the order of their players.
    fn added_in_order(&self) -> Vec<u32> {
        let (ordered, line_ups) = (self.ordered as u32, self.counts.len() as u32);
        let mut added: Vec<u32> = (ordered..line_ups).collect();
        added.sort_unstable_by(|&a, &b| {
            self.players_of(a as usize).cmp(self.players_of(b as usize))
        });
        added
    }

    /// Every line-up's index in the order of their players. Those already in order keep it, and
    /// the rest, sorted, are merged in: a sixteenth of the line-ups sorted and one walk of them
    /// all, where sorting them all anew took as long as a refit's fit (1.65 s at 10,000,000).
    fn line_ups_in_order(&self) -> Vec<u32> {
        if self.ordered == 0 {
            return self.all_line_ups_in_order();
        }
        let by_players = |a: &u32, b: &u32| {
            self.players_of(*a as usize)
                .cmp(self.players_of(*b as usize))
        };
        let mut order = Vec::with_capacity(self.counts.len());
        let mut added = self.added_in_order().into_iter().peekable();
        for k in 0..self.ordered as u32 {
            while let Some(a) = added.next_if(|a| by_players(a, &k).is_lt()) {
                order.push(a);
            }
            order.push(k);
        }
        order.extend(added);
        order
    }

    /// Every line-up's index in the order of their players, from none in order: counted out by
    /// least player (one walk of the line-ups), then each least player's few sorted by the rest.
    fn all_line_ups_in_order(&self) -> Vec<u32> {
        let line_ups = self.counts.len();
        let least = |k: usize| self.players_of(k)[0] as usize;
        let players = self.players.iter().max().map_or(0, |&p| p as usize + 1);
        // Where each least player's line-ups start in the order.
        let mut starts = vec![0usize; players + 1];
        for k in 0..line_ups {
            starts[least(k) + 1] += 1;
        }
        for p in 0..players {
            starts[p + 1] += starts[p];
        }
        let mut next = starts.clone();
        let mut order = vec![0u32; line_ups];
        for k in 0..line_ups {
            let at = &mut next[least(k)];
            order[*at] = k as u32;
            *at += 1;
        }
        // No two line-ups have the same players, so any sort gives the one order.
        for run in starts.windows(2) {
            order[run[0]..run[1]].sort_unstable_by(|&a, &b| {
                self.players_of(a as usize).cmp(self.players_of(b as usize))
            });
        }
        order
    }

    /// `values` (one a seat, as the players) with the line-ups in `order`.
    fn permuted<T: Copy>(&self, values: &[T], order: &[u32]) -> Vec<T> {
        let mut out = Vec::with_capacity(values.len());
        for &k in order {
            out.extend_from_slice(&values[self.seats_of(k as usize)]);
        }
        out
    }

    /// How many games.
    pub fn len(&self) -> usize {
        self.games
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.games == 0
    }

    /// How many distinct line-ups the games hold: the rows each pass of the fit walks.
    pub fn line_ups(&self) -> usize {
        self.counts.len()
    }

    /// The seats of every line-up, if all have as many.
    fn uniform_size(&self) -> Option<usize> {
        (self.sizes.0 == self.sizes.1 && !self.counts.is_empty()).then_some(self.sizes.0)
    }

    /// Each line-up's players, alone: what the curvature's product reads.
    fn tables(&self) -> impl Iterator<Item = &[u32]> {
        (0..self.counts.len()).map(|k| self.players_of(k))
    }

    fn each(&self) -> impl Iterator<Item = LineUp<'_>> {
        (0..self.counts.len()).map(|k| self.line_up_at(k))
    }

    /// Line-up `k`'s sums and co-moments (none for a line-up played once), its `seats`
    /// starting at `at` in the players.
    fn sums_of(&self, k: usize, at: usize, seats: usize) -> (LineUpSums<'_>, &[f64]) {
        let exact = &self.sums[at..at + seats];
        let block = self.blocks[k];
        if block == NO_BLOCK {
            return (LineUpSums::Exact(exact), &[]);
        }
        let block = block as usize;
        let (sums, moments) = self.repeated[block..block + block_length(seats)].split_at(seats);
        if exact[0].is_nan() {
            (LineUpSums::Summed(sums), moments)
        } else {
            (LineUpSums::Exact(exact), moments)
        }
    }

    /// The line-up of index `k`.
    fn line_up_at(&self, k: usize) -> LineUp<'_> {
        let players = self.players_of(k);
        let at = start_of(&self.starts, self.sizes.0, k);
        let (sums, moments) = self.sums_of(k, at, players.len());
        LineUp {
            players,
            sums,
            games: f64::from(self.counts[k]),
            moments,
        }
    }
}

/// The weight of each other seat's table effect in a seat's points, `c = 1 / (k − 1)` at a
/// table of `k`; none alone.
fn neighbour_weight(k: usize) -> f64 {
    if k > 1 { 1.0 / (k - 1) as f64 } else { 0.0 }
}

/// Where seat `s`'s own co-moment (its squares about its mean) is in a line-up of `k`'s
/// upper triangle, kept row by row.
fn diagonal_of(s: usize, k: usize) -> usize {
    s * k - s * (s.saturating_sub(1)) / 2
}

/// `mᵀ C m` for `C` a line-up's co-moments (the upper triangle, row by row; none: zero).
fn spread_of(m: &[f64], moments: &[f64]) -> f64 {
    if moments.is_empty() {
        return 0.0;
    }
    let mut at = 0;
    let mut sum = 0.0;
    for (s, ms) in m.iter().enumerate() {
        sum += ms * ms * moments[at];
        for mt in &m[s + 1..] {
            at += 1;
            sum += 2.0 * ms * mt * moments[at];
        }
        at += 1;
    }
    sum
}

/// The games as a fit reads them: every seat's points shifted up by `shift` (the model needs
/// none below zero), `level` the game's mean points per seat `e^m` (kept positive when nobody
/// scored, so that the curvature stays defined), `players` players.
///
/// The model's unknowns `z` are every player's own strength, then every player's table effect.
/// A seat of `i` has the row `e_i` in the own part and `c (u − e_i)` in the table part (`u`:
/// the table's players summed): its log expectation less `m` is `a_i + c (Σ t over the table
/// − t_i)`. Every pass walks the games table by table and computes each seat's part afresh,
/// rather than holding a number per seat between passes (ten million games of three: 240 MB
/// each).
struct Model<'g> {
    games: &'g Games,
    shift: f64,
    level: f64,
    players: usize,
}

impl Model<'_> {
    /// Each seat of a line-up with its player, its points summed over the line-up's games
    /// (shifted) and its linear part.
    fn parts<'t>(
        &self,
        table: &LineUp<'t>,
        z: &'t [f64],
    ) -> impl Iterator<Item = (usize, f64, f64)> + 't {
        let shift = self.shift * table.games;
        self.linear(table.players, z)
            .zip(table.sums.iter())
            .map(move |((p, x), y)| (p, y + shift, x))
    }

    /// Each seat of a line-up with its player and linear part.
    fn linear<'t>(
        &self,
        players: &'t [u32],
        z: &'t [f64],
    ) -> impl Iterator<Item = (usize, f64)> + 't {
        let n = self.players;
        let c = neighbour_weight(players.len());
        let effects: f64 = players.iter().map(|&p| z[n + p as usize]).sum();
        players.iter().map(move |&p| {
            let p = p as usize;
            (p, z[p] + c * (effects - z[n + p]))
        })
    }

    /// Each player's `e^{a_p − c t_p}` where every line-up has as many seats (`c` their
    /// neighbour weight); else none. A seat's `e^η`, `e^{a_p + c (u − t_p)}`, is then its
    /// player's times its table's `e^{c u}`: one `exp` a line-up rather than one a seat.
    fn own_factors(&self, z: &[f64]) -> Vec<f64> {
        let Some(size) = self.games.uniform_size() else {
            return Vec::new();
        };
        let (n, c) = (self.players, neighbour_weight(size));
        (0..n).map(|p| (z[p] - c * z[n + p]).exp()).collect()
    }

    /// Each seat of a line-up with its player, its points summed over the line-up's games
    /// (shifted) and `e^η`, its expected points in one game over the level: from `own`
    /// ([`Model::own_factors`]) if any, else one `exp` a seat.
    fn expected<'t>(
        &self,
        table: &LineUp<'t>,
        z: &'t [f64],
        own: &'t [f64],
    ) -> impl Iterator<Item = (usize, f64, f64)> + 't {
        let n = self.players;
        let c = neighbour_weight(table.players.len());
        let effects: f64 = table.players.iter().map(|&p| z[n + p as usize]).sum();
        let at_table = if own.is_empty() {
            0.0
        } else {
            (c * effects).exp()
        };
        let shift = self.shift * table.games;
        let players = table.players.iter().zip(table.sums.iter());
        players.map(move |(&p, y)| {
            let p = p as usize;
            let e = if own.is_empty() {
                (z[p] + c * (effects - z[n + p])).exp()
            } else {
                at_table * own[p]
            };
            (p, y + shift, e)
        })
    }

    /// The penalised quasi-log-likelihood's penalties at `z`: each player's one game at the
    /// mean, the table effects' ridge.
    fn penalties(&self, z: &[f64]) -> f64 {
        let n = self.players;
        let level = self.level;
        let priors: f64 = z[..n]
            .iter()
            .map(|a| PRIOR_GAMES * level * (a - a.exp()))
            .sum();
        let ridge: f64 = z[n..].iter().map(|t| t * t).sum::<f64>() * TABLE_PRIOR * level / 2.0;
        priors - ridge
    }

    /// The penalised quasi-log-likelihood at `z` (the seats' `y η − e^η` and the
    /// [`Model::penalties`]), its gradient and the curvature there, in one pass over the
    /// line-ups: the step's line search reads the first, and the step after it the others at
    /// the same point.
    fn at(&self, z: &[f64]) -> (f64, Vec<f64>, Normal) {
        let n = self.players;
        let level = self.level;
        let own_ridge: Vec<f64> = z[..n]
            .iter()
            .map(|a| PRIOR_GAMES * level * a.exp())
            .collect();
        let table_ridge = TABLE_PRIOR * level;
        let mut diagonal = own_ridge.clone();
        diagonal.resize(2 * n, table_ridge);
        let mut sums = Sums {
            seats: 0.0,
            gradient: vec![0.0; 2 * n],
            diagonal,
        };
        let weights = match self.games.uniform_size() {
            Some(2) => self.sum_tables::<2>(z, &mut sums),
            Some(3) => self.sum_tables::<3>(z, &mut sums),
            _ => {
                let mut weights = Vec::with_capacity(self.games.players.len());
                let mut seat = Vec::new();
                for table in self.games.each() {
                    self.sum_line_up(&table, z, &mut sums, &mut weights, &mut seat);
                }
                weights
            }
        };
        let Sums {
            seats,
            mut gradient,
            diagonal,
        } = sums;
        for i in 0..n {
            gradient[i] += PRIOR_GAMES * level * (1.0 - z[i].exp());
            gradient[n + i] -= TABLE_PRIOR * level * z[n + i];
        }
        let normal = Normal {
            own_ridge,
            table_ridge,
            diagonal,
            weights,
        };
        (seats + self.penalties(z), gradient, normal)
    }

    /// One line-up's part of [`Model::at`], any line-up (`seat` a buffer reused between
    /// line-ups).
    fn sum_line_up(
        &self,
        table: &LineUp,
        z: &[f64],
        sums: &mut Sums,
        weights: &mut Vec<f32>,
        seat: &mut Vec<(usize, f64, f64)>,
    ) {
        let n = self.players;
        let c = neighbour_weight(table.players.len());
        seat.clear();
        seat.extend(self.parts(table, z).map(|(p, y, x)| {
            // Every game of the line-up expects as much of the seat.
            let expected = table.games * self.level * x.exp();
            sums.seats += y * x - expected;
            weights.push(expected as f32);
            (p, expected, y - expected)
        }));
        let residuals: f64 = seat.iter().map(|s| s.2).sum();
        for (k, &(p, expected, residual)) in seat.iter().enumerate() {
            // `c (u − e_p)`: every neighbour's effect moves this seat.
            sums.gradient[p] += residual;
            sums.gradient[n + p] += c * (residuals - residual);
            sums.diagonal[p] += expected;
            // The table effect of `p`'s first seat here: its weight in every seat's row.
            if c > 0.0 && seat[..k].iter().all(|s| s.0 != p) {
                let at_table = seat.iter().filter(|s| s.0 == p).count() as f64;
                sums.diagonal[n + p] += seat
                    .iter()
                    .map(|&(q, w, _)| {
                        let x = c * (at_table - if q == p { 1.0 } else { 0.0 });
                        w * x * x
                    })
                    .sum::<f64>();
            }
        }
    }

    /// [`Model::at`]'s sums where every line-up has `K` seats (a hill's tables are one size):
    /// a line-up of `K` players read as fixed arrays (a line-up seating a player twice still
    /// goes the general way, [`Model::sum_line_up`]); answers each seat's weight. A Newton
    /// step walks every line-up this way once or more; at ten million line-ups the general
    /// loop's buffers and searches for repeated players were half of a refit's time.
    fn sum_tables<const K: usize>(&self, z: &[f64], sums: &mut Sums) -> Vec<f32> {
        let n = self.players;
        let c = neighbour_weight(K);
        let games = self.games;
        // A seat's expectation is its player's factor times its table's.
        let own = self.own_factors(z);
        let mut weights = vec![0.0_f32; games.players.len()];
        let (mut seat, mut odd) = (Vec::new(), Vec::new());
        let players = games.players.chunks_exact(K);
        for (k, (players, weights)) in players.zip(weights.chunks_exact_mut(K)).enumerate() {
            if players.windows(2).any(|pair| pair[0] == pair[1]) {
                odd.clear();
                self.sum_line_up(&games.line_up_at(k), z, sums, &mut odd, &mut seat);
                weights.copy_from_slice(&odd);
                continue;
            }
            let count = f64::from(games.counts[k]);
            let shift = self.shift * count;
            let (points, _) = games.sums_of(k, k * K, K);
            let mut effects = z[n + players[0] as usize];
            for &p in &players[1..] {
                effects += z[n + p as usize];
            }
            let table = count * self.level * (c * effects).exp();
            let mut expected = [0.0; K];
            let mut residual = [0.0; K];
            for s in 0..K {
                let p = players[s] as usize;
                let x = z[p] + c * (effects - z[n + p]);
                let y = points.get(s) + shift;
                expected[s] = table * own[p];
                sums.seats += y * x - expected[s];
                weights[s] = expected[s] as f32;
                residual[s] = y - expected[s];
            }
            let mut residuals = residual[0];
            for r in &residual[1..] {
                residuals += r;
            }
            for s in 0..K {
                let p = players[s] as usize;
                sums.gradient[p] += residual[s];
                sums.gradient[n + p] += c * (residuals - residual[s]);
                sums.diagonal[p] += expected[s];
                // Its table effect weighs `c` in each other seat's row, none in its own.
                let mut others = (0..K).filter(|&q| q != s).map(|q| expected[q] * c * c);
                let first = others.next().unwrap_or(0.0);
                sums.diagonal[n + p] += others.fold(first, |sum, w| sum + w);
            }
        }
        weights
    }

    /// The curvature `Xᵀ W X + ridges` times `v`, table by table: each seat's row times `v`,
    /// weighed, and spread back over the unknowns it moves.
    fn times(&self, normal: &Normal, v: &[f64]) -> Vec<f64> {
        let n = self.players;
        let (own, table) = v.split_at(n);
        let mut out: Vec<f64> = normal
            .own_ridge
            .iter()
            .zip(own)
            .map(|(r, v)| r * v)
            .collect();
        out.extend(table.iter().map(|v| normal.table_ridge * v));
        match self.games.uniform_size() {
            Some(2) => self.spread_tables::<2>(&normal.weights, own, table, &mut out),
            Some(3) => self.spread_tables::<3>(&normal.weights, own, table, &mut out),
            _ => self.spread_any_tables(&normal.weights, own, table, &mut out),
        }
        out
    }

    /// The tables' part of [`Model::times`] where every line-up has `K` seats (a hill's tables
    /// are one size): the seats read as fixed arrays, the loops unrolled, the same sums in the
    /// same order as [`Model::spread_any_tables`]. A product walks every line-up, 20 to 40
    /// times a Newton step.
    fn spread_tables<const K: usize>(
        &self,
        weights: &[f32],
        own: &[f64],
        table: &[f64],
        out: &mut [f64],
    ) {
        let n = self.players;
        let c = neighbour_weight(K);
        let players = self.games.players.chunks_exact(K);
        for (seats, w) in players.zip(weights.chunks_exact(K)) {
            let mut effects = 0.0;
            for &p in seats {
                effects += table[p as usize];
            }
            let mut weighed = [0.0; K];
            let mut sum = 0.0;
            for s in 0..K {
                let p = seats[s] as usize;
                weighed[s] = f64::from(w[s]) * (own[p] + c * (effects - table[p]));
                sum += weighed[s];
            }
            for s in 0..K {
                let p = seats[s] as usize;
                out[p] += weighed[s];
                out[n + p] += c * (sum - weighed[s]);
            }
        }
    }

    /// The tables' part of [`Model::times`], line-ups of any size.
    fn spread_any_tables(&self, weights: &[f32], own: &[f64], table: &[f64], out: &mut [f64]) {
        let n = self.players;
        let mut weights = weights.iter();
        let mut weighed: Vec<(usize, f64)> = Vec::new();
        for seats in self.games.tables() {
            let c = neighbour_weight(seats.len());
            let effects: f64 = seats.iter().map(|&p| table[p as usize]).sum();
            weighed.clear();
            let mut sum = 0.0;
            for (&p, &w) in seats.iter().zip(&mut weights) {
                let p = p as usize;
                let y = f64::from(w) * (own[p] + c * (effects - table[p]));
                sum += y;
                weighed.push((p, y));
            }
            for &(p, y) in &weighed {
                out[p] += y;
                out[n + p] += c * (sum - y);
            }
        }
    }

    /// Solves the curvature's system for `b`, scaled by its diagonal (Jacobi's preconditioner:
    /// a version of thousands of games and one of ten converge alike), until the residual is
    /// `tolerance` of the right side.
    fn solve(&self, normal: &Normal, b: &[f64], tolerance: f64) -> Vec<f64> {
        self.solve_from(normal, b, tolerance, &vec![0.0; b.len()])
    }

    /// [`Model::solve`] from `start`, a guess at the solution: a solve of nearly the same
    /// system ends near where the last one did.
    fn solve_from(&self, normal: &Normal, b: &[f64], tolerance: f64, start: &[f64]) -> Vec<f64> {
        let scale: Vec<f64> = normal.diagonal.iter().map(|d| 1.0 / d.sqrt()).collect();
        let scaled = |v: &[f64]| -> Vec<f64> { v.iter().zip(&scale).map(|(v, s)| v * s).collect() };
        let unscaled: Vec<f64> = start.iter().zip(&scale).map(|(x, s)| x / s).collect();
        let y = conjugate_gradients(
            &|y| scaled(&self.times(normal, &scaled(y))),
            &scaled(b),
            &unscaled,
            tolerance,
        );
        scaled(&y)
    }
}

/// The curvature of the fit at a point: each seat's expected points (its weight in `Xᵀ W X`,
/// in the games' order, as an `f32`: a Newton step needs its direction, not its last bits),
/// the ridges, and the whole diagonal.
#[derive(Debug, Clone)]
struct Normal {
    own_ridge: Vec<f64>,
    table_ridge: f64,
    /// Every unknown's own curvature: the own strengths', then the table effects'.
    diagonal: Vec<f64>,
    weights: Vec<f32>,
}

/// What [`Model::at`] sums over the line-ups: the seats' part of the quasi-log-likelihood,
/// its gradient and the curvature's diagonal.
struct Sums {
    seats: f64,
    gradient: Vec<f64>,
    diagonal: Vec<f64>,
}

/// What a lead's interval needs of a fit: its curvature, games, where it ended and its
/// figures.
#[derive(Debug, Clone)]
pub struct Spread<'g> {
    games: &'g Games,
    shift: f64,
    level: f64,
    normal: Normal,
    z: Vec<f64>,
    /// Every player's figure on the fitted (shifted) scale.
    figures: Vec<f64>,
    /// The field the figures are read against.
    field: Field,
    /// Half the width of a player without games' 95% interval.
    unplayed: f64,
}

impl Spread<'_> {
    /// Half the width of the 95% interval of a player without games: the whole fit's spread
    /// of a seat's points, held by its one game's worth of prior at the mean.
    pub fn unplayed_interval(&self) -> f64 {
        self.unplayed
    }

    /// Half the width of the 95% interval of `a`'s figure less `b`'s, with the standard error
    /// clustered by game (this module's notes): `w = H⁻¹ ∇(f_a − f_b)`, and each game adds the
    /// square of `Σ (x_seat · w) e_seat` over its seats.
    pub fn lead_interval(&self, a: usize, b: usize) -> f64 {
        self.lead_interval_from(a, b, &mut Vec::new())
    }

    /// [`Spread::lead_interval`], its system solved from `solution` (the same pair's, by a
    /// fit of nearly the same games; empty or of another size: from zeros), where this solve's
    /// is left. A refit after a hundred more games of ten million moves the system little, so
    /// its solve starts a few digits from its end rather than from nothing.
    pub fn lead_interval_from(&self, a: usize, b: usize, solution: &mut Vec<f64>) -> f64 {
        let n = self.figures.len();
        if a == b || a >= n || b >= n {
            return 0.0;
        }
        let model = Model {
            games: self.games,
            shift: self.shift,
            level: self.level,
            players: n,
        };
        // A figure is `e^{m + a_i}` times its field's mean: it moves with its own strength
        // and, through the field, with the others' table effects.
        let mut contrast = vec![0.0; 2 * n];
        for (player, sign) in [(a, 1.0), (b, -1.0)] {
            let figure = sign * self.figures[player];
            contrast[player] += figure;
            for (j, d) in self.field.log_gradient(player) {
                contrast[n + j] += figure * d;
            }
        }
        if solution.len() != 2 * n {
            *solution = vec![0.0; 2 * n];
        }
        let w = model.solve_from(&self.normal, &contrast, SOLVED, solution);
        solution.clone_from(&w);
        let mut variance = 0.0;
        let mut moved: Vec<f64> = Vec::new();
        let factors = model.own_factors(&self.z);
        for table in self.games.each() {
            // A game's score is `Σ m_s (y_s − μ_s)` over its seats (`m` the seat's row times
            // `w`); summed in squares over the line-up's games, `mᵀ C m` (`C` the co-moments
            // about the seats' means) and the games times the mean score's square.
            moved.clear();
            moved.extend(model.linear(table.players, &w).map(|(_, m)| m));
            let mean_score: f64 = model
                .expected(&table, &self.z, &factors)
                .zip(&moved)
                .map(|((_, y, e), m)| m * (y / table.games - self.level * e))
                .sum();
            variance += table.games * mean_score * mean_score + spread_of(&moved, table.moments);
        }
        let clusters = self.games.len() as f64;
        if clusters > 1.0 {
            variance *= clusters / (clusters - 1.0);
        }
        1.96 * variance.sqrt()
    }
}

/// Fits every player's points per game against average opponents, starting Newton's method
/// from `start` (one per player: the last fit's own strengths and table effects, so a refit
/// after a few more games takes a step or two). Players without games get the game's mean.
/// Returns the figures, what a lead's interval needs, and where the next fit may start.
pub fn fit_from<'g>(games: &'g Games, start: &[Start]) -> (Vec<Strength>, Spread<'g>, Vec<Start>) {
    let players = start.len();
    let rows = games.seats;
    // The model needs points of zero or more: a game's below zero are shifted up.
    let shift = -games.least;
    let mean = if rows == 0 {
        0.0
    } else {
        games
            .each()
            .flat_map(|table| table.sums.iter().map(move |y| y + shift * table.games))
            .sum::<f64>()
            / rows as f64
    };
    let model = Model {
        games,
        shift,
        level: mean.max(f64::MIN_POSITIVE),
        players,
    };
    let mut z: Vec<f64> = start.iter().map(|s| s.theta).collect();
    z.extend(start.iter().map(|s| s.effect));
    if mean <= 0.0 {
        // Nobody scored (or nobody played): there is nothing to tell anyone apart by.
        z.fill(0.0);
    }
    let (z, normal) = newton(&model, mean, z);
    figures(model, mean, z, normal)
}

/// Newton's method with step halving from `z`, the games' mean points per seat being `mean`
/// (none scored: the curvature at `z`, no step). Each step's system is solved only as closely
/// as the gradient is small (its residual, as a share of the right side, at most the square
/// root of the rise still to come as a share of the points: Eisenstat and Walker's forcing
/// term), since the next step
/// corrects a rough one; where it ends is read from the gradient itself, so however each step
/// was solved the fit ends at the optimum. Returns where it ends and the curvature there.
fn newton(model: &Model, mean: f64, mut z: Vec<f64>) -> (Vec<f64>, Normal) {
    let total = mean * model.games.seats as f64;
    let mut point = model.at(&z);
    let mut steps = 0;
    loop {
        let (current, gradient, normal) = point;
        // The rise a Newton step on each unknown alone would promise: what is left to gain.
        let left: f64 = gradient
            .iter()
            .zip(&normal.diagonal)
            .map(|(g, d)| g * g / d)
            .sum();
        steps += 1;
        if mean <= 0.0 || left <= CONVERGED * (1.0 + total) || steps > NEWTON_STEPS {
            return (z, normal);
        }
        // The square root of the rise left: a step's own error then shrinks as fast as
        // Newton's method does, and solving it closer buys nothing, since the model's
        // nonlinearity leaves as much behind. Never closer than a last step needs (a residual
        // of a hundredth of what would leave the rise at `CONVERGED`, so that a refit from
        // the last fit and one from zeros end within a billionth of each other): near the
        // optimum the square root asked a last step for seven digits where three end the fit.
        let share = left / (1.0 + total);
        let forcing = share
            .sqrt()
            .max((CONVERGED / share).sqrt() / 100.0)
            .min(0.5);
        let step = model.solve(&normal, &gradient, forcing);
        // Its weights (4 bytes a seat) are not held while the next point's are summed.
        drop(normal);
        let mut size = 1.0;
        loop {
            let next: Vec<f64> = z.iter().zip(&step).map(|(z, s)| z + size * s).collect();
            let tried = model.at(&next);
            // A rise too small for the sum's rounding to show is taken as one.
            if tried.0 >= current - 1e-12 * (1.0 + total) || size < 1e-6 {
                (z, point) = (next, tried);
                break;
            }
            size /= 2.0;
        }
        if size < 1e-6 {
            return (z, point.2);
        }
    }
}

/// Every player's figure and interval from where the fit ended (`mean` the games' mean points
/// per seat, shifted), what a lead's interval needs of it, and where the next fit may start.
fn figures<'g>(
    model: Model<'g>,
    mean: f64,
    z: Vec<f64>,
    normal: Normal,
) -> (Vec<Strength>, Spread<'g>, Vec<Start>) {
    let players = model.players;
    let rows = model.games.seats;
    let level = model.level;
    // Residuals, each player's own and the whole fit's: over a line-up's games, a seat's
    // squares are its co-moment about its mean and the games times its mean residual's square.
    let mut own = vec![0.0; players];
    let mut seen = vec![0u32; players];
    let mut squares = 0.0;
    let factors = model.own_factors(&z);
    for table in model.games.each() {
        for (s, (p, y, e)) in model.expected(&table, &z, &factors).enumerate() {
            let mean = y / table.games - level * e;
            let residuals =
                table.games * mean * mean + table.moment(diagonal_of(s, table.players.len()));
            own[p] += residuals;
            squares += residuals;
            seen[p] += table.games as u32;
        }
    }
    let (strength, effect) = z.split_at(players);
    let fitted_players = seen.iter().filter(|&&n| n > 0).count();
    let pooled = squares / (rows.saturating_sub(fitted_players).max(1)) as f64;
    let field = Field::of(model.games, &seen, effect);
    // A figure `f = e^{m + a} F` moves by `f` with its own strength, whose variance is the
    // seats' spread (one more seat for the prior) over the curvature squared.
    let interval = |figure: f64, games: f64, variance: f64, curvature: f64| {
        1.96 * figure * (variance * (games + PRIOR_GAMES)).sqrt() / curvature
    };
    let figures: Vec<f64> = (0..players)
        .map(|i| level * strength[i].exp() * field.table_mean(Some(i)))
        .collect();
    let strengths = (0..players)
        .map(|i| {
            let n = f64::from(seen[i]);
            let variance = (own[i] + POOLED_GAMES * pooled) / (n + POOLED_GAMES);
            Strength {
                theta: strength[i],
                value: if mean > 0.0 { figures[i] } else { mean } - model.shift,
                interval: interval(figures[i], n, variance, normal.diagonal[i]),
            }
        })
        .collect();
    let next = strength
        .iter()
        .zip(effect)
        .map(|(&theta, &effect)| Start { theta, effect })
        .collect();
    let unplayed_figure = level * field.table_mean(None);
    let unplayed = interval(unplayed_figure, 0.0, pooled, PRIOR_GAMES * level);
    let spread = Spread {
        games: model.games,
        shift: model.shift,
        level,
        normal,
        z,
        figures,
        field,
        unplayed,
    };
    (strengths, spread, next)
}

/// The field a player's figure is read against: tables of the games' usual size whose other
/// seats are drawn at random, without repeats, from the other players with games. A player
/// never sits at its own table, so the table effects it meets are the others', not
/// everyone's: in a round robin, where every player meets every other alike, its figure is
/// then about its points per game, as it should be when there is nothing to adjust for.
/// Against everyone's, a player whose own effect is large (a weak one, against whom everyone
/// scores) was credited with never having met itself: in a pool whose strongest scored
/// seventy points a game against the weakest and its weak players a tenth of one, that
/// reversed the weak players' order in a round robin whose plain means ordered them right.
#[derive(Debug, Clone)]
struct Field {
    /// Each player's `e^{c t_j}` if it has games (only those are in the field), else none.
    factors: Vec<Option<f64>>,
    /// The other seats at a table of the games' usual size.
    neighbours: usize,
    /// Each player's [`Field::table_mean`].
    means: Vec<f64>,
    /// The table mean of a player without games: the whole field's.
    whole: f64,
}

/// The elementary symmetric polynomials `e_0 … e_r` of `xs`: `e_q` the sum of the products
/// of every `q` of them.
fn elementary(xs: impl Iterator<Item = f64>, r: usize) -> Vec<f64> {
    let mut e = vec![0.0; r + 1];
    e[0] = 1.0;
    for x in xs {
        for q in (1..=r).rev() {
            e[q] += x * e[q - 1];
        }
    }
    e
}

/// The elementary symmetric polynomials `e_0 … e_r` of `xs` without each one in turn: those
/// of the ones before it times those of the ones after it, so a field of 10,000 takes 10,000
/// products, not 10,000 walks of the field. Sums of products of positive numbers only:
/// taking one out of the whole's by subtraction would cancel where one dwarfs the rest.
fn elementary_without_each(xs: &[f64], r: usize) -> Vec<Vec<f64>> {
    let mut after = vec![vec![0.0; r + 1]; xs.len()];
    let mut e = elementary(std::iter::empty(), r);
    for (k, &x) in xs.iter().enumerate().rev() {
        after[k].copy_from_slice(&e);
        for q in (1..=r).rev() {
            e[q] += x * e[q - 1];
        }
    }
    let mut before = elementary(std::iter::empty(), r);
    let mut out = Vec::with_capacity(xs.len());
    for (k, &x) in xs.iter().enumerate() {
        out.push(
            (0..=r)
                .map(|q| (0..=q).map(|a| before[a] * after[k][q - a]).sum())
                .collect(),
        );
        for q in (1..=r).rev() {
            before[q] += x * before[q - 1];
        }
    }
    out
}

impl Field {
    fn of(games: &Games, seen: &[u32], effect: &[f64]) -> Field {
        // The usual table: the most common size among the games, the larger of a tie (a
        // hill's tables are all one size, and then no walk of ten million line-ups is needed).
        let usual = games.uniform_size().unwrap_or_else(|| {
            let mut sizes: HashMap<usize, u64> = HashMap::new();
            for table in games.each() {
                *sizes.entry(table.players.len()).or_default() += table.games as u64;
            }
            sizes
                .into_iter()
                .max_by_key(|&(size, count)| (count, size))
                .map_or(1, |(size, _)| size)
        });
        let c = neighbour_weight(usual);
        let factors: Vec<Option<f64>> = seen
            .iter()
            .zip(effect)
            .map(|(&n, t)| (n > 0).then(|| (c * t).exp()))
            .collect();
        let neighbours = usual - 1;
        let field: Vec<f64> = factors.iter().filter_map(|f| *f).collect();
        let mean = |e: &[f64], count: usize| {
            let r = neighbours.min(count);
            e[r] / binomial(count, r)
        };
        let whole = mean(&elementary(field.iter().copied(), neighbours), field.len());
        let mut without = elementary_without_each(&field, neighbours).into_iter();
        let means = factors
            .iter()
            .map(|f| match f {
                Some(_) => without.next().map_or(whole, |e| mean(&e, field.len() - 1)),
                None => whole,
            })
            .collect();
        Field {
            factors,
            neighbours,
            means,
            whole,
        }
    }

    /// The mean of `exp(c Σ t_j)` over the tables drawn from the field without `player` (a
    /// player without games, for `None`): `e_r / C(N, r)` of the others' factors.
    fn table_mean(&self, player: Option<usize>) -> f64 {
        player.map_or(self.whole, |p| self.means[p])
    }

    /// How the log of [`Field::table_mean`] of `player` moves with each other player's table
    /// effect: `c x_j e_{r−1}(the others but j) / e_r(the others)`.
    fn log_gradient(&self, player: usize) -> Vec<(usize, f64)> {
        let others: Vec<(usize, f64)> = self
            .factors
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != player)
            .filter_map(|(j, f)| Some((j, (*f)?)))
            .collect();
        let r = self.neighbours.min(others.len());
        if r == 0 {
            return Vec::new();
        }
        let c = neighbour_weight(self.neighbours + 1);
        let xs: Vec<f64> = others.iter().map(|o| o.1).collect();
        let all = elementary(xs.iter().copied(), r)[r];
        others
            .iter()
            .zip(elementary_without_each(&xs, r - 1))
            .map(|(&(j, x), without_j)| (j, c * x * without_j[r - 1] / all))
            .collect()
    }
}

/// `C(n, r)`, as a float (a field of a thousand players and tables of seven overflows no
/// integer, but the means divide by it anyway).
fn binomial(n: usize, r: usize) -> f64 {
    (0..r).fold(1.0, |c, q| c * (n - q) as f64 / (q + 1) as f64)
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
        let fitted = fit_from(&games, &[Start::default(); 4]).0;
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
        let again = fit_from(
            &games,
            &[5.0, -3.0, 1.0, 0.0].map(|theta| Start { theta, effect: 0.0 }),
        )
        .0;
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
        let fitted = fit_from(&games, &[Start::default(); 4]).0;
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
        let fitted = fit_from(&games, &[Start::default(); 4]).0;
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
        let fitted = fit_from(&games, &[Start::default(); 3]).0;
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
        let (fitted, spread, _) = fit_from(&shared, &[Start::default(); 6]);
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
        let (fitted, spread, _) = fit_from(&apart, &[Start::default(); 6]);
        let independent = fitted[0].interval.hypot(fitted[1].interval);
        let clustered = spread.lead_interval(0, 1);
        assert!(
            clustered > independent / 2.0 && clustered < independent * 2.0,
            "{clustered} vs {independent}"
        );
    }

    #[test]
    fn a_lead_solved_from_the_last_refits_solution_is_the_lead_solved_afresh() {
        // 40 players at tables of three, points that multiply; a refit after 20 more games
        // solves the lead's system from the last refit's solution, as `hill run` does.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let strengths: Vec<f64> = (0..40).map(|k| f64::from(k) / 20.0).collect();
        let mut games = Games::default();
        let mut play = |games: &mut Games, count: usize| {
            for _ in 0..count {
                let first = rng.random_range(0..40);
                // Near and far offsets, never the same seat twice.
                let table = [
                    first,
                    (first + rng.random_range(1..5)) % 40,
                    (first + rng.random_range(5..40)) % 40,
                ];
                let seats: Vec<(usize, f64)> = multiplying(&strengths, &table)
                    .into_iter()
                    .map(|(p, mean)| (p, poisson(4.0 * mean, &mut rng)))
                    .collect();
                games.add(&seats);
            }
        };
        play(&mut games, 2000);
        let mut solution = Vec::new();
        let next = {
            let (_, spread, next) = fit_from(&games, &[Start::default(); 40]);
            spread.lead_interval_from(39, 38, &mut solution);
            next
        };
        assert_eq!(solution.len(), 80);
        play(&mut games, 20);
        let (_, spread, _) = fit_from(&games, &next);
        let afresh = spread.lead_interval(39, 38);
        let from_last = spread.lead_interval_from(39, 38, &mut solution);
        assert!(afresh > 0.0);
        assert!(
            (afresh - from_last).abs() < 1e-5 * afresh,
            "{afresh} {from_last}"
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
            let (fitted, spread, _) = fit_from(&games, &[Start::default(); 6]);
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
                    let points = multiplying(&strengths, &[i, j, k]);
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
        let fitted = fit_from(&games, &[Start::default(); 8]).0;
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

    /// Each seat's expected points in the simulated pools of docs/hill.md: `exp(s_i − mean of
    /// the others' s) / 2`, points that multiply.
    fn multiplying(strengths: &[f64], table: &[usize]) -> Vec<(usize, f64)> {
        table
            .iter()
            .map(|&p| {
                let others: f64 = table
                    .iter()
                    .filter(|&&o| o != p)
                    .map(|&o| strengths[o])
                    .sum();
                let mean = others / (table.len() - 1) as f64;
                (p, (strengths[p] - mean).exp() / 2.0)
            })
            .collect()
    }

    #[test]
    fn the_fit_ends_where_the_gradient_is_zero() {
        // A chain of 300 players, tables of three drawn near one another in number (a tenth
        // anywhere), Poisson points that multiply: the fit ends at the optimum.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let n = 300;
        let strengths: Vec<f64> = (0..n).map(|k| k as f64 * 3.0 / n as f64).collect();
        let mut games = Games::default();
        for _ in 0..20_000 {
            let i = rng.random_range(0..n);
            let mut table = vec![i];
            while table.len() < 3 {
                let j = if rng.random_bool(0.9) {
                    (i + rng.random_range(1..20)) % n
                } else {
                    rng.random_range(0..n)
                };
                if !table.contains(&j) {
                    table.push(j);
                }
            }
            let seats: Vec<(usize, f64)> = multiplying(&strengths, &table)
                .into_iter()
                .map(|(p, mean)| (p, poisson(mean, &mut rng)))
                .collect();
            games.add(&seats);
        }
        let model = model_of(&games, n);
        let total = model.level * games.seats as f64;
        let (z, _) = newton(&model, model.level, vec![0.0; 2 * n]);
        let left = rise_left(&model, &z);
        let start = rise_left(&model, &vec![0.0; 2 * n]);
        assert!(left / total < 1e-10, "{left} left of {total} points");
        assert!(start / total > 1e-2, "{start} at the start");
        // From the fit's own end after more games, with its table effects, it ends where a fit
        // from zeros does.
        let (_, _, next) = fit_from(&games, &vec![Start::default(); n]);
        let mut more = games.clone();
        for _ in 0..100 {
            let table = [rng.random_range(0..n / 2), rng.random_range(n / 2..n)];
            let seats: Vec<(usize, f64)> = multiplying(&strengths, &table)
                .into_iter()
                .map(|(p, mean)| (p, poisson(mean, &mut rng)))
                .collect();
            more.add(&seats);
        }
        let (from_zeros, _, _) = fit_from(&more, &vec![Start::default(); n]);
        let (from_last, _, _) = fit_from(&more, &next);
        for (a, b) in from_zeros.iter().zip(&from_last) {
            assert!(
                (a.value - b.value).abs() < 1e-6 * a.value.abs().max(1.0),
                "{a:?} {b:?}"
            );
        }
        // And the order is found (τ against the truth).
        let (fitted, _, _) = fit_from(&games, &vec![Start::default(); n]);
        let concordant = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .filter(|&(a, b)| fitted[a].value < fitted[b].value)
            .count();
        let pairs = n * (n - 1) / 2;
        assert!(
            concordant as f64 > 0.85 * pairs as f64,
            "{concordant} of {pairs}"
        );
    }

    #[test]
    fn a_hills_line_ups_of_one_size_sum_what_the_general_walk_does() {
        // Line-ups of three, some seating a player twice: a point's sums read as fixed arrays
        // (one `exp` a line-up) are the general walk's (one a seat) to rounding, and the
        // curvature's product is the general walk's to the bit.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let n = 40;
        let mut games = Games::default();
        for _ in 0..2_000 {
            let seats: Vec<(usize, f64)> = (0..3)
                .map(|_| (rng.random_range(0..n), f64::from(rng.random_range(0..5u8))))
                .collect();
            games.add(&seats);
        }
        assert!(
            games
                .players
                .chunks_exact(3)
                .any(|t| t[0] == t[1] || t[1] == t[2])
        );
        let model = model_of(&games, n);
        let z: Vec<f64> = (0..2 * n).map(|_| rng.random_range(-0.5..0.5)).collect();
        let zeros = || Sums {
            seats: 0.0,
            gradient: vec![0.0; 2 * n],
            diagonal: vec![0.0; 2 * n],
        };
        let (mut walked, mut walked_weights, mut seat) = (zeros(), Vec::new(), Vec::new());
        for table in games.each() {
            model.sum_line_up(&table, &z, &mut walked, &mut walked_weights, &mut seat);
        }
        let mut as_arrays = zeros();
        let weights = model.sum_tables::<3>(&z, &mut as_arrays);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()));
        assert!(close(walked.seats, as_arrays.seats));
        for k in 0..2 * n {
            assert!(
                close(walked.gradient[k], as_arrays.gradient[k]),
                "gradient {k}"
            );
            assert!(
                close(walked.diagonal[k], as_arrays.diagonal[k]),
                "diagonal {k}"
            );
        }
        assert_eq!(weights.len(), walked_weights.len());
        for (a, b) in weights.iter().zip(&walked_weights) {
            assert!((a - b).abs() <= 1e-6 * a.abs().max(1.0), "{a} against {b}");
        }
        let (_, _, normal) = model.at(&z);
        let v: Vec<f64> = (0..2 * n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let (own, table) = v.split_at(n);
        let mut walked = vec![0.0; 2 * n];
        for (k, out) in walked.iter_mut().enumerate() {
            *out = if k < n {
                normal.own_ridge[k]
            } else {
                normal.table_ridge
            } * v[k];
        }
        model.spread_any_tables(&normal.weights, own, table, &mut walked);
        assert_eq!(walked, model.times(&normal, &v));
    }

    #[test]
    fn a_line_up_whose_sums_an_f32_cannot_hold_reads_them_whole() {
        // 2^24 and then 1 at one seat: 16,777,217, which no `f32` holds; 0.5 and 0.25 at the
        // other, which one does. Played once more they are 16,777,220 and 1.75, which an `f32`
        // holds again. Each read is the games' own sum, and the fit's figures are finite.
        let mut games = Games::default();
        games.add(&[(0, 16_777_216.0), (1, 0.5)]);
        games.add(&[(0, 1.0), (1, 0.25)]);
        let sums = |games: &Games| -> Vec<f64> { games.line_up_at(0).sums.iter().collect() };
        assert_eq!(sums(&games), [16_777_217.0, 0.75]);
        games.add(&[(0, 3.0), (1, 1.0)]);
        assert_eq!(sums(&games), [16_777_220.0, 1.75]);
        games.add(&[(2, 4.0), (1, 1.0)]);
        let (strengths, _, _) = fit_from(&games, &[Start::default(); 3]);
        assert!(
            strengths
                .iter()
                .all(|s| s.value.is_finite() && s.interval.is_finite())
        );
    }

    /// The model of `games` among `n` players, as a fit reads them (no points below zero).
    fn model_of(games: &Games, n: usize) -> Model<'_> {
        let mean = games
            .each()
            .flat_map(|table| table.sums.iter())
            .sum::<f64>()
            / games.seats as f64;
        Model {
            games,
            shift: 0.0,
            level: mean,
            players: n,
        }
    }

    /// The gradient's size against the curvature's diagonal at `z`: the rise still to come.
    fn rise_left(model: &Model, z: &[f64]) -> f64 {
        let (_, gradient, normal) = model.at(z);
        gradient
            .iter()
            .zip(&normal.diagonal)
            .map(|(g, d)| g * g / d)
            .sum()
    }

    #[test]
    fn a_line_up_holds_its_games_count_sums_and_co_moments() {
        // Games of a few line-ups, seats in any order, a player twice at one table: each
        // line-up's sums and co-moments (kept game by game, Welford's way) are those of its
        // games read in two passes, seat by seat in the sorted order.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let line_ups: [&[usize]; 4] = [&[0, 1, 2], &[2, 1, 0, 3], &[4, 4, 1], &[5]];
        let mut games = Games::default();
        let mut by_line_up: HashMap<Vec<u32>, Vec<Vec<f64>>> = HashMap::new();
        // A line-up played once, kept before every line-up was one size.
        games.add(&[(9, 7.0), (8, 3.0), (7, 0.5)]);
        by_line_up.insert(vec![7, 8, 9], vec![vec![0.5, 3.0, 7.0]]);
        for _ in 0..300 {
            let players = line_ups[rng.random_range(0..4)];
            let mut seats: Vec<(usize, f64)> = players
                .iter()
                .map(|&p| (p, f64::from(rng.random_range(-3..40i8)) + 0.25))
                .collect();
            rand::seq::SliceRandom::shuffle(&mut seats[..], &mut rng);
            games.add(&seats);
            seats.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
            let key = seats.iter().map(|s| s.0 as u32).collect();
            by_line_up
                .entry(key)
                .or_default()
                .push(seats.iter().map(|s| s.1).collect());
        }
        assert_eq!(games.len(), 301);
        assert_eq!(games.line_ups(), by_line_up.len());
        for table in games.each() {
            let held = &by_line_up[table.players];
            assert_eq!(table.games, held.len() as f64);
            let k = table.players.len();
            let means: Vec<f64> = (0..k)
                .map(|s| held.iter().map(|y| y[s]).sum::<f64>() / held.len() as f64)
                .collect();
            let mut at = 0;
            for s in 0..k {
                assert!((table.sums.get(s) / table.games - means[s]).abs() < 1e-9);
                for t in s..k {
                    let moment: f64 = held
                        .iter()
                        .map(|y| (y[s] - means[s]) * (y[t] - means[t]))
                        .sum();
                    assert!(
                        (table.moment(at) - moment).abs() < 1e-9 * (1.0 + moment.abs()),
                        "{:?} {s} {t}: {} against {moment}",
                        table.players,
                        table.moment(at)
                    );
                    if s == t {
                        assert_eq!(diagonal_of(s, k), at);
                    }
                    at += 1;
                }
            }
        }
    }

    /// Each line-up of `games` by its players: its games, sums and co-moments.
    fn line_ups_of(games: &Games) -> HashMap<Vec<u32>, (f64, Vec<f64>, Vec<f64>)> {
        games
            .each()
            .map(|table| {
                let seats = table.players.len();
                let moments = (0..block_length(seats) - seats)
                    .map(|at| table.moment(at))
                    .collect();
                let held = (table.games, table.sums.iter().collect(), moments);
                (table.players.to_vec(), held)
            })
            .collect()
    }

    #[test]
    fn ordered_line_ups_are_found_again_and_fit_as_they_came() {
        // Games of three, and then of one to four (every line-up's start kept): ordered, the
        // line-ups are in the order of their players and hold what they held; a game added
        // after is merged into its line-up or comes after them; the fit is the same but for
        // the sums' rounding; a few more games leave the order be, many order them again.
        for sizes in [3..4, 1..5] {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
            let n = 30;
            let mut game = move || -> Vec<(usize, f64)> {
                let seats = rng.random_range(sizes.clone());
                (0..seats)
                    .map(|_| (rng.random_range(0..n), f64::from(rng.random_range(0..6u8))))
                    .collect()
            };
            let mut came = Games::default();
            for _ in 0..3_000 {
                came.add(&game());
            }
            let mut ordered = came.clone();
            ordered.order_line_ups();
            assert_eq!(ordered.ordered, ordered.line_ups());
            assert!(
                (1..ordered.line_ups()).all(|k| ordered.players_of(k - 1) < ordered.players_of(k))
            );
            assert_eq!(line_ups_of(&came), line_ups_of(&ordered));
            for _ in 0..100 {
                let seats = game();
                came.add(&seats);
                ordered.add(&seats);
            }
            assert_eq!(line_ups_of(&came), line_ups_of(&ordered));
            let before = ordered.ordered;
            ordered.order_line_ups();
            assert_eq!(
                ordered.ordered, before,
                "a few more games leave the order be"
            );
            let (as_came, came_spread, _) = fit_from(&came, &[Start::default(); 30]);
            let (as_ordered, spread, _) = fit_from(&ordered, &[Start::default(); 30]);
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(1.0);
            for (a, b) in as_came.iter().zip(&as_ordered) {
                assert!(
                    close(a.value, b.value) && close(a.interval, b.interval),
                    "{a:?} {b:?}"
                );
            }
            assert!(close(
                came_spread.lead_interval(0, 1),
                spread.lead_interval(0, 1)
            ));
            // Many more: merged in (in place, when every line-up has one size), each line-up
            // holding what it held and found again by the next games.
            for round in 0..2 {
                for _ in 0..1_000 {
                    let seats = game();
                    came.add(&seats);
                    ordered.add(&seats);
                }
                ordered.order_line_ups();
                assert_eq!(ordered.ordered, ordered.line_ups());
                assert!(
                    (1..ordered.line_ups())
                        .all(|k| ordered.players_of(k - 1) < ordered.players_of(k)),
                    "round {round}"
                );
                assert_eq!(line_ups_of(&came), line_ups_of(&ordered), "round {round}");
            }
        }
    }

    #[test]
    fn the_curvature_is_the_gradients_own_change_and_its_diagonal_its_own() {
        // Tables of one to four, a player twice at one table: each column of the curvature
        // (its product with a unit vector) is the gradient's change along it, by central
        // differences, and its diagonal is the diagonal kept for the preconditioner.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
        let n = 6;
        let mut games = Games::default();
        for _ in 0..200 {
            let k = rng.random_range(1..5);
            let seats: Vec<(usize, f64)> = (0..k)
                .map(|_| (rng.random_range(0..n), f64::from(rng.random_range(0..5u8))))
                .collect();
            games.add(&seats);
        }
        let model = model_of(&games, n);
        let z: Vec<f64> = (0..2 * n).map(|_| rng.random_range(-0.5..0.5)).collect();
        let (_, _, normal) = model.at(&z);
        let h = 1e-5;
        for k in 0..2 * n {
            let mut unit = vec![0.0; 2 * n];
            unit[k] = 1.0;
            let column = model.times(&normal, &unit);
            let (mut up, mut down) = (z.clone(), z.clone());
            up[k] += h;
            down[k] -= h;
            let (_, g_up, _) = model.at(&up);
            let (_, g_down, _) = model.at(&down);
            for (row, value) in column.iter().enumerate() {
                // The gradient falls as the curvature says (the objective is concave).
                let change = (g_down[row] - g_up[row]) / (2.0 * h);
                assert!(
                    (value - change).abs() < 1e-4 * (1.0 + change.abs()),
                    "column {k}, row {row}: {value} against {change}"
                );
            }
            assert!(
                (column[k] - normal.diagonal[k]).abs() < 1e-4 * normal.diagonal[k],
                "{k}: {} against {}",
                column[k],
                normal.diagonal[k]
            );
        }
    }

    /// A Poisson draw of mean `lambda` (Knuth's: the means here are small).
    fn poisson(lambda: f64, rng: &mut impl RngExt) -> f64 {
        let limit = (-lambda).exp();
        let (mut k, mut product) = (0.0, rng.random::<f64>());
        while product > limit {
            k += 1.0;
            product *= rng.random::<f64>();
        }
        k
    }

    #[test]
    fn points_that_multiply_are_ranked_right_where_the_weak_meet_mostly_the_weak() {
        // As a hill seats them: each meets mostly its neighbours in strength, now and then
        // someone far. The strongest score hundreds of times what the weakest do. A fit that
        // added a table effect to a seat's points read the weak, met only among the weak,
        // against a field they never met: it put two out of order and gave eight of the
        // sixteen fewer than no points a game (down to −10).
        let strengths: Vec<f64> = (0..16).map(|k| f64::from(k) * 0.5).collect();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut games = Games::default();
        for _ in 0..100 {
            for low in 0..14 {
                games.add(&multiplying(&strengths, &[low, low + 1, low + 2]));
            }
            let mut far: Vec<usize> = (0..16).collect();
            rand::seq::SliceRandom::shuffle(&mut far[..], &mut rng);
            games.add(&multiplying(&strengths, &far[..3]));
        }
        let fitted = fit_from(&games, &[Start::default(); 16]).0;
        for pair in fitted.windows(2) {
            assert!(pair[0].value < pair[1].value, "{fitted:?}");
        }
        assert!(fitted[0].value > 0.0, "{fitted:?}");
    }

    #[test]
    fn points_below_zero_are_ranked_as_well() {
        // A game that scores −1, 0 or 1 a seat (noughts and crosses as points): three players
        // who take −0.5, 0 and 0.5 a game on average from one another, in every line-up.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6);
        let means = [-0.5, 0.0, 0.5];
        let mut games = Games::default();
        for _ in 0..300 {
            let i = rng.random_range(0..3);
            let j = (i + rng.random_range(1..3)) % 3;
            let edge = (means[i] - means[j]) / 2.0;
            let outcome = if rng.random_bool(0.5 + edge / 2.0) {
                1.0
            } else {
                -1.0
            };
            games.add(&[(i, outcome), (j, -outcome)]);
        }
        let fitted = fit_from(&games, &[Start::default(); 3]).0;
        assert!(fitted[0].value < fitted[1].value, "{fitted:?}");
        assert!(fitted[1].value < fitted[2].value, "{fitted:?}");
        assert!(
            fitted.iter().all(|f| f.value > -1.0 && f.value < 1.0),
            "{fitted:?}"
        );
    }

    proptest::proptest! {
        /// Whatever the games — points of any sign and size, most of them none, tables of one
        /// to four, a player twice at one table, players without games — every figure, interval and lead is a
        /// number, and points never below zero give figures never below zero.
        #[test]
        fn any_games_give_finite_figures_and_leads(
            tables in proptest::collection::vec(
                proptest::collection::vec(
                    // Most games of the Grid-Routing Battle pay nobody.
                    (0usize..6, proptest::prop_oneof![3 => proptest::strategy::Just(0.0), 1 => -1e6f64..1e6]),
                    1..5,
                ),
                0..40,
            ),
            never_below_zero: bool,
        ) {
            let mut games = Games::default();
            for table in &tables {
                let seats: Vec<(usize, f64)> = table
                    .iter()
                    .map(|&(p, y)| (p, if never_below_zero { y.abs() } else { y }))
                    .collect();
                games.add(&seats);
            }
            let (fitted, spread, _) = fit_from(&games, &[Start::default(); 7]);
            for f in &fitted {
                proptest::prop_assert!(f.value.is_finite() && f.interval.is_finite(), "{fitted:?}");
                proptest::prop_assert!(f.interval >= 0.0, "{fitted:?}");
                proptest::prop_assert!(!never_below_zero || f.value >= 0.0, "{fitted:?}");
            }
            proptest::prop_assert!(spread.unplayed_interval().is_finite());
            for a in 0..7 {
                for b in 0..7 {
                    proptest::prop_assert!(spread.lead_interval(a, b).is_finite(), "{a} {b}");
                }
            }
        }
    }
}
