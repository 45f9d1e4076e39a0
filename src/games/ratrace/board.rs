//! One board: the population of specimens, the turns, breeding and points.

use rand::RngExt;

use super::player::{Ask, Move, Player, PlayerFault};
use super::track::{CELLS, Landing, Track, WIDTH, move_index};
use crate::seed;

pub const TURNS: u32 = 10_000;
pub const FIRST_SPECIMENS: usize = 15;
pub const BRED_PER_TURN: usize = 10;
/// A specimen of this age dies at the start of its next turn.
pub const MAX_AGE: u8 = 100;
pub const GENOME_BITS: u32 = 100;
pub const GENOME_MASK: u128 = (1 << GENOME_BITS) - 1;
pub const SWITCH_PROBABILITY: f64 = 0.05;
pub const MUTATION_PROBABILITY: f64 = 0.01;
/// The population and points are sampled every this many turns, for plots.
pub const SAMPLE_EVERY: u32 = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Specimen {
    pub genome: u128,
    pub age: u8,
    pub goals: u32,
    pub cell: u16,
}

impl Specimen {
    fn fitness(&self) -> u64 {
        1 + (self.cell as i32 % WIDTH) as u64 + 50 * self.goals as u64
    }
}

/// The population and points after a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Sample {
    pub turn: u32,
    pub population: usize,
    pub points: u64,
}

#[derive(Debug)]
pub struct Outcome {
    pub points: u64,
    /// Turns played (fewer than [`TURNS`] if the population died out or the player faulted).
    pub turns: u32,
    pub history: Vec<Sample>,
    /// The player's fault and the turn it happened on, if one ended the board.
    pub fault: Option<(u32, PlayerFault)>,
}

/// A board in play. The rng draws everything random about the board after its track: genomes,
/// start cells, parents, crossover and mutation.
pub struct Board<'t> {
    pub track: &'t Track,
    pub specimens: Vec<Specimen>,
    pub points: u64,
    rng: seed::Rng,
    /// Reused every turn, so that a turn allocates nothing.
    moves: Vec<Move>,
    cumulative: Vec<u64>,
}

impl<'t> Board<'t> {
    /// A board on `track` with the first specimens: random genomes on random start cells.
    pub fn new(track: &'t Track, mut rng: seed::Rng) -> Board<'t> {
        let specimens = (0..FIRST_SPECIMENS)
            .map(|_| Specimen {
                genome: rng.random::<u128>() & GENOME_MASK,
                age: 0,
                goals: 0,
                cell: random_start(track, &mut rng),
            })
            .collect();
        Board::with_specimens(track, rng, specimens)
    }

    /// A board with chosen specimens (for tests of single rules).
    pub fn with_specimens(track: &'t Track, rng: seed::Rng, specimens: Vec<Specimen>) -> Self {
        Board {
            track,
            specimens,
            points: 1,
            rng,
            moves: Vec::new(),
            cumulative: Vec::new(),
        }
    }

    /// Plays one turn. Returns whether the board goes on (at least two specimens are left).
    pub fn turn(
        &mut self,
        turn: u32,
        player: &mut dyn Player,
        asks: &mut Vec<Ask<'t>>,
    ) -> Result<bool, PlayerFault> {
        let track = self.track;
        self.specimens.retain_mut(|s| {
            s.age += 1;
            s.age <= MAX_AGE
        });
        asks.clear();
        asks.extend(self.specimens.iter().map(|s| Ask {
            genome: s.genome,
            view: &track.views[s.cell as usize],
        }));
        self.moves.clear();
        player.moves(turn, asks, &mut self.moves)?;
        if self.moves.len() != asks.len() {
            return Err(PlayerFault {
                kind: crate::bot::FaultKind::BadOutput,
                reason: format!(
                    "answered {} moves for {} specimens",
                    self.moves.len(),
                    asks.len()
                ),
            });
        }
        self.apply_moves();
        if self.specimens.len() < 2 {
            return Ok(false);
        }
        self.breed();
        Ok(true)
    }

    /// Steps 3–6 of the turn for every specimen, given its move.
    fn apply_moves(&mut self) {
        let track = self.track;
        let mut kept = 0;
        for i in 0..self.specimens.len() {
            let (dx, dy) = self.moves[i];
            let mut s = self.specimens[i];
            match track.landings[s.cell as usize][move_index(dx, dy)] {
                Landing::Dead => continue,
                Landing::Cell(cell) => s.cell = cell,
                Landing::Goal => {
                    self.points += 1;
                    s.goals += 1;
                    s.age = 0;
                    s.cell = random_start(track, &mut self.rng);
                }
            }
            self.specimens[kept] = s;
            kept += 1;
        }
        self.specimens.truncate(kept);
    }

    /// Breeds [`BRED_PER_TURN`] children from the specimens alive now, none of which was born
    /// this turn (children are appended only after all parents are chosen).
    fn breed(&mut self) {
        let parents = self.specimens.len();
        self.cumulative.clear();
        let mut total = 0;
        for s in &self.specimens {
            total += s.fitness();
            self.cumulative.push(total);
        }
        for _ in 0..BRED_PER_TURN {
            let first = pick(&self.cumulative, self.rng.random_range(0..total));
            // The second parent is drawn from the others in proportion to fitness: draw in the
            // total without the first's share and step over that share.
            let before = if first == 0 { 0 } else { self.cumulative[first - 1] };
            let share = self.cumulative[first] - before;
            let mut r = self.rng.random_range(0..total - share);
            if r >= before {
                r += share;
            }
            let second = pick(&self.cumulative, r);
            let genome = breed_genome(
                self.specimens[first].genome,
                self.specimens[second].genome,
                &mut self.rng,
            );
            let cell = random_start(self.track, &mut self.rng);
            self.specimens.push(Specimen {
                genome,
                age: 0,
                goals: 0,
                cell,
            });
        }
        debug_assert_eq!(self.specimens.len(), parents + BRED_PER_TURN);
    }
}

/// The index whose cumulative fitness range holds `r`.
fn pick(cumulative: &[u64], r: u64) -> usize {
    cumulative.partition_point(|&c| c <= r)
}

fn random_start(track: &Track, rng: &mut seed::Rng) -> u16 {
    debug_assert!(track.starts.iter().all(|&c| (c as usize) < CELLS));
    track.starts[rng.random_range(0..track.starts.len())]
}

/// The number of failures before the first success of Bernoulli(p) trials. Drawing the gaps
/// between events instead of one coin per bit gives the same distribution with a handful of
/// draws per child instead of two hundred.
fn failures_before_success(p: f64, rng: &mut seed::Rng) -> u32 {
    // 1 − u lies in (0, 1], so the logarithm is finite.
    let u = 1.0 - rng.random::<f64>();
    (u.ln() / (1.0 - p).ln()).min(1e6) as u32
}

/// Bits `from..to` set.
fn bit_range(from: u32, to: u32) -> u128 {
    let upto = |n: u32| if n >= 128 { u128::MAX } else { (1u128 << n) - 1 };
    upto(to) & !upto(from)
}

/// A child's genome: crossover from a random first parent, switching parents before each bit
/// with probability 0.05, then each bit flipped with probability 0.01.
pub fn breed_genome(a: u128, b: u128, rng: &mut seed::Rng) -> u128 {
    let mut from_a = rng.random_bool(0.5);
    let mut from_a_mask = 0u128;
    let mut start = 0;
    let mut next_trial = 0;
    loop {
        let switch = (next_trial + failures_before_success(SWITCH_PROBABILITY, rng)).min(GENOME_BITS);
        if from_a {
            from_a_mask |= bit_range(start, switch);
        }
        if switch >= GENOME_BITS {
            break;
        }
        from_a = !from_a;
        start = switch;
        next_trial = switch + 1;
    }
    let mut child = (a & from_a_mask) | (b & !from_a_mask);
    let mut bit = failures_before_success(MUTATION_PROBABILITY, rng);
    while bit < GENOME_BITS {
        child ^= 1 << bit;
        bit += 1 + failures_before_success(MUTATION_PROBABILITY, rng);
    }
    child & GENOME_MASK
}

/// Plays a whole board: [`TURNS`] turns or until fewer than two specimens are left, or the
/// player faults.
pub fn play(track: &Track, rng: seed::Rng, player: &mut dyn Player) -> Outcome {
    let mut board = Board::new(track, rng);
    let mut asks = Vec::new();
    let mut history = vec![Sample {
        turn: 0,
        population: board.specimens.len(),
        points: board.points,
    }];
    let mut fault = None;
    let mut turns = 0;
    for turn in 1..=TURNS {
        turns = turn;
        let goes_on = match board.turn(turn, player, &mut asks) {
            Ok(goes_on) => goes_on,
            Err(f) => {
                fault = Some((turn, f));
                false
            }
        };
        if !goes_on || turn % SAMPLE_EVERY == 0 {
            history.push(Sample {
                turn,
                population: board.specimens.len(),
                points: board.points,
            });
        }
        if !goes_on {
            break;
        }
    }
    Outcome {
        points: board.points,
        turns,
        history,
        fault,
    }
}
