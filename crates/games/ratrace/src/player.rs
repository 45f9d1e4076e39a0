//! Players: whatever turns a specimen's genome and view into a move, asked for a whole turn's
//! specimens at once (the shape of the subprocess protocol, so built-in and subprocess players
//! sit behind one trait).

use std::time::Duration;

use rand::RngExt;

use super::track::View;
use koth_bot::FaultKind;
use koth_game::seed;

/// A move (dx, dy), each in −1..=1.
pub(crate) type Move = (i8, i8);

/// What a player is shown of one living specimen.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ask {
    /// The specimen's id: given at birth in order, so ids ascend along a turn's asks, and kept
    /// for life (see [`super::rules::Specimen::id`]).
    pub id: u32,
    /// The 100-bit genome; bit i is `(genome >> i) & 1`.
    pub genome: u128,
    /// The specimen's cell: its view is `views[cell]` of the views given to
    /// [`Player::begin_board`], where players prepare what they need per view once per board.
    pub cell: u16,
}

/// A player's fault, which ends the board it happened on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PlayerFault {
    pub kind: FaultKind,
    pub reason: String,
}

pub(crate) trait Player {
    /// Board `board` starts; `seed` is its seed, for the player's own random numbers. `views`
    /// are the board's views by cell (what its specimens may be shown, nothing more).
    fn begin_board(&mut self, board: usize, seed: u64, views: &[View]) -> Result<(), PlayerFault>;
    /// Pushes onto `out` one move per specimen of `asks`, in order (`out` arrives empty).
    fn moves(&mut self, turn: u32, asks: &[Ask], out: &mut Vec<Move>) -> Result<(), PlayerFault>;
    /// Board `board` ended with `points`.
    fn end_board(&mut self, board: usize, points: u64);
    /// CPU time used so far by the player's own process, for players that are one.
    fn process_cpu(&self) -> Option<Duration> {
        None
    }
    /// Bytes written so far to the player's process, for players that are one.
    fn bytes_sent(&self) -> Option<u64> {
        None
    }
}

/// The built-in players, by the name `--player` takes.
pub(crate) const BUILT_IN: &[&str] = &["colorscore", "colorscore-first", "random-forward"];

pub(crate) fn built_in(name: &str) -> Option<Box<dyn Player>> {
    match name {
        "colorscore" => Some(Box::new(ColorScorePlayer::default())),
        "colorscore-first" => Some(Box::new(ColorScorePlayer {
            first_ties: true,
            ..ColorScorePlayer::default()
        })),
        "random-forward" => Some(Box::new(RandomForwardPlayer::default())),
        _ => None,
    }
}

/// The stream of a board's seed that built-in players draw their tie-breaks from (the board
/// itself uses stream 0), so a board replays identically whichever job plays it.
const PLAYER_STREAM: u64 = 1;

/// The challenge's example player: of the three forward moves whose target is on the track, the
/// one whose colour scores highest in the genome (6 bits per colour), ties broken at random.
#[derive(Default)]
pub(crate) struct ColorScorePlayer {
    rng: Option<seed::Rng>,
    /// Ties go to the first tied move, in the order (1,−1), (1,0), (1,1), instead of a random
    /// one: a player whose every decision a bot can make too, in any language, so the same
    /// boards score the same built in and through each protocol (the sample C bots' `first`).
    first_ties: bool,
    /// The forward targets of every cell, by cell: prepared once per board, so a move reads
    /// one small entry instead of three view bytes and their meaning.
    targets: Vec<[Target; 3]>,
}

/// A forward target as ColorScorePlayer reads it: its colour's score is bits
/// `shift .. shift + 6` of the genome's low or high word (bits 0..63, or 32..95).
#[derive(Clone, Copy)]
struct Target {
    high: bool,
    shift: u8,
    /// Whether the target is on the track (else the move is never chosen).
    on_track: bool,
}

impl Target {
    fn of(colour: i8) -> Target {
        // Colours 0..9 score in bits 0..59, colours 10..15 in bits 60..95.
        let bit = 6 * colour.max(0) as u8;
        let high = bit >= 60;
        Target {
            high,
            shift: if high { bit - 32 } else { bit },
            on_track: colour >= 0,
        }
    }
}

/// For each set of tied targets (a 3-bit mask) and each n below its size, the n-th of them.
const NTH_TIED: [[u8; 3]; 8] = {
    let mut table = [[0; 3]; 8];
    let mut ties = 0;
    while ties < 8 {
        let (mut target, mut n) = (0, 0);
        while target < 3 {
            if ties & (1 << target) != 0 {
                table[ties][n] = target as u8;
                n += 1;
            }
            target += 1;
        }
        ties += 1;
    }
    table
};

/// View indices of the targets of (1,−1), (1,0), (1,1).
const FORWARD: [(usize, Move); 3] = [(8, (1, -1)), (13, (1, 0)), (18, (1, 1))];

impl Player for ColorScorePlayer {
    fn begin_board(&mut self, _board: usize, seed: u64, views: &[View]) -> Result<(), PlayerFault> {
        self.rng = Some(seed::rng(seed, PLAYER_STREAM));
        self.targets = views
            .iter()
            .map(|view| FORWARD.map(|(index, _)| Target::of(view[index])))
            .collect();
        Ok(())
    }

    fn moves(&mut self, _turn: u32, asks: &[Ask], out: &mut Vec<Move>) -> Result<(), PlayerFault> {
        let rng = self.rng.as_mut().expect("begin_board comes first");
        out.reserve(asks.len());
        // Branch-light on purpose: this loop is most of a board's time, and which target scores
        // highest is unpredictable.
        for ask in asks {
            let targets = &self.targets[ask.cell as usize];
            let (low, high) = (ask.genome as u64, (ask.genome >> 32) as u64);
            let score = |target: Target| {
                let word = if target.high { high } else { low };
                let score = ((word >> target.shift) & 63) as i32;
                if target.on_track { score } else { -1 }
            };
            let scores = targets.map(score);
            let best = scores[0].max(scores[1]).max(scores[2]);
            let ties = (scores[0] == best) as u32
                | ((scores[1] == best) as u32) << 1
                | ((scores[2] == best) as u32) << 2;
            // (1,0) always targets a track cell (x ≤ 48 + 1), so `ties` is never empty.
            let chosen = if ties.is_power_of_two() || self.first_ties {
                ties.trailing_zeros()
            } else {
                let nth = rng.random_range(0..ties.count_ones());
                NTH_TIED[ties as usize][nth as usize] as u32
            };
            out.push(FORWARD[chosen as usize].1);
        }
        Ok(())
    }

    fn end_board(&mut self, _board: usize, _points: u64) {}
}

/// A baseline that ignores the genome: one of the three forward moves, uniformly at random.
#[derive(Default)]
pub(crate) struct RandomForwardPlayer {
    rng: Option<seed::Rng>,
}

impl Player for RandomForwardPlayer {
    fn begin_board(&mut self, _board: usize, seed: u64, _: &[View]) -> Result<(), PlayerFault> {
        self.rng = Some(seed::rng(seed, PLAYER_STREAM));
        Ok(())
    }

    fn moves(&mut self, _turn: u32, asks: &[Ask], out: &mut Vec<Move>) -> Result<(), PlayerFault> {
        let rng = self.rng.as_mut().expect("begin_board comes first");
        out.extend(asks.iter().map(|_| (1, rng.random_range(-1..=1i8))));
        Ok(())
    }

    fn end_board(&mut self, _board: usize, _points: u64) {}
}
