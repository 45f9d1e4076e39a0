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

/// A living specimen: what the rules keep of it, and what a player is shown of it (its id,
/// genome and cell; its age and goals are the rules' alone). Players get the board's own
/// specimens, not a copy made for them: a copy per specimen and turn cost more than a fifth of
/// a built-in board's time.
///
/// Laid out as the direct call's loop reads its records (`direct.rs`): the genome's two
/// 64-bit words at bytes 0 and 8 and the cell as a 32-bit word at 16, little-endian, 32 bytes
/// in all with no padding, so that the board's specimens can be kept in the module's memory
/// of records ([`Keeper`]) and read there with no copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct Specimen {
    /// The 100-bit genome; bit i is `(genome >> i) & 1`.
    pub genome: u128,
    /// The specimen's cell: its view is `views[cell]` of the views given to
    /// [`Player::begin_board`], where players prepare what they need per view once per board.
    pub cell: u32,
    /// Given at birth, in order of birth from 0 on each board, so ids ascend along the
    /// population (and a turn's specimens); kept for life, also when the specimen reaches the
    /// goal and starts again.
    pub id: u32,
    pub goals: u32,
    /// Turns lived, counting the turn it moves in (see [`super::rules::Board::specimens`]).
    pub age: u32,
}

// The direct call's loop reads a specimen's words as WebAssembly does, little-endian.
const _: () = assert!(
    cfg!(target_endian = "little") && size_of::<Specimen>() == 32,
    "the rat race keeps its specimens as the direct call reads them"
);

/// A specimen's fate after a turn when it does not move again: it died, or dies of age first
/// (see [`Mover::fates`]). No cell's number.
pub(crate) const GONE: u16 = u16::MAX;

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
    /// How the player answers a turn.
    fn answers(&mut self) -> Answers<'_>;
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

/// How a player answers a turn.
pub(crate) enum Answers<'p> {
    /// A move per specimen of the board's own, shown to it.
    Moves(&'p mut dyn Mover),
    /// A move code per specimen it keeps for the board, in memory of its own.
    Codes(&'p mut dyn Keeper),
}

/// A player shown the board's specimens each turn, answering their moves.
pub(crate) trait Mover {
    /// Pushes onto `out` one move per specimen of `specimens`, in order (`out` arrives empty).
    fn moves(
        &mut self,
        turn: u32,
        specimens: &[Specimen],
        out: &mut Vec<Move>,
    ) -> Result<(), PlayerFault>;
    /// Whether the player wants [`Mover::fates`] after every turn.
    fn follows_fates(&self) -> bool {
        false
    }
    /// What the turn just played did to the specimens it moved, in the order they were given to
    /// [`Mover::moves`]: the cell each moves from in the next turn, or [`GONE`]. Called, if the
    /// player [`Mover::follows_fates`], after each turn's moves are applied, as the board
    /// notes them while it applies them: for a player that tells its process only what changed
    /// (the lean protocol), so it needs no walk of its own to find who is gone.
    fn fates(&mut self, _fates: &[u16]) {}
}

/// A player that keeps the board's specimens in memory of its own, where it reads them, and
/// answers a move code per specimen: the direct call, whose module's loop reads each genome
/// and cell where the board wrote it, so that no turn copies the population for it. The
/// board moves, breeds and drops the specimens there as it would its own.
pub(crate) trait Keeper {
    /// The specimens kept, at least `room` of them (the memory grown to hold them): the
    /// board's first, in order, then free places for the board to fill.
    fn kept(&mut self, room: usize) -> Result<&mut [Specimen], PlayerFault>;
    /// Answers turn `turn` for the first `count` specimens kept: those specimens, for the
    /// board to move in place, and one move code each, every code below 9 (the index of its
    /// move among a cell's landings, [`super::track::move_index`]), little-endian. The memory
    /// holds at least `count` + [`super::rules::BRED_PER_TURN`] specimens after it.
    fn codes(&mut self, turn: u32, count: usize) -> Result<(&mut [Specimen], &[u32]), PlayerFault>;
    /// The first `count` specimens kept, as they are (fewer if the player holds no memory).
    fn specimens(&self, count: usize) -> &[Specimen];
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
    targets: Vec<Targets>,
    /// The turn's ties to break at random, in order: each specimen's place and its tied
    /// targets, packed as `place << 3 | ties`. Written at every specimen's place in the
    /// turn and kept only for ties, so that finding them takes no branch; reused every turn.
    tied: Vec<u32>,
}

/// A cell's three forward targets as ColorScorePlayer reads them. A target's colour scores in
/// bits `shift .. shift + 6` of the genome's low or high word (bits 0..63, or 32..95), written
/// as one byte `shift + 64·high`: a 64-bit shift reads only its count's low six bits, so the
/// byte is the shift as it is. A target off the track reads (1,0)'s score, which is always on
/// the track (x ≤ 48 + 1): it cannot beat the best, and is masked out of the ties. So a move
/// has no branch and no sign to handle.
#[derive(Clone, Copy)]
struct Targets {
    /// (1,−1), (1,0), (1,1).
    shifts: [u8; 3],
    /// Bit i set: target i is on the track.
    on_track: u8,
}

impl Targets {
    fn of(view: &View) -> Targets {
        let shift = |colour: i8| {
            // Colours 0..9 score in bits 0..59, colours 10..15 in bits 60..95.
            let bit = 6 * colour as u8;
            if bit >= 60 { bit - 32 + 64 } else { bit }
        };
        let ahead = shift(view[FORWARD[1]]);
        let mut targets = Targets {
            shifts: [ahead; 3],
            on_track: 0,
        };
        for (i, &index) in FORWARD.iter().enumerate() {
            if view[index] >= 0 {
                targets.shifts[i] = shift(view[index]);
                targets.on_track |= 1 << i;
            }
        }
        targets
    }

    /// Each target's score in the genome whose low and high words are these.
    fn scores(self, low: u64, high: u64) -> [u8; 3] {
        self.shifts.map(|shift| {
            let word = if shift & 64 != 0 { high } else { low };
            (word.wrapping_shr(shift.into()) & 63) as u8
        })
    }
}

/// Bit `ties` set for each 3-bit mask `ties` of two or three targets: 3, 5, 6 and 7.
const TIED: u8 = 0b1110_1000;

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

/// The targets of `specimen`'s best score among those on the track, as a mask (bit i: target
/// i of (1,−1), (1,0), (1,1)). Never empty: (1,0) is on the track and its score is among those
/// compared.
#[inline(always)]
fn tied_best(targets: &[Targets], specimen: &Specimen) -> u8 {
    let targets = targets[specimen.cell as usize];
    let (low, high) = (specimen.genome as u64, (specimen.genome >> 32) as u64);
    let scores = targets.scores(low, high);
    let best = scores[0].max(scores[1]).max(scores[2]);
    ((scores[0] == best) as u8
        | ((scores[1] == best) as u8) << 1
        | ((scores[2] == best) as u8) << 2)
        & targets.on_track
}

/// Forward target `target` (0, 1 or 2: (1,−1), (1,0), (1,1)) as a move, with no table.
#[inline(always)]
fn forward_move(target: u32) -> Move {
    (1, target as i8 - 1)
}

/// View indices of the targets of (1,−1), (1,0), (1,1).
const FORWARD: [usize; 3] = [8, 13, 18];

/// ColorScore's loop over a turn's specimens, most of a built-in board's time: each specimen's
/// move into `moves` as if its lowest tied target won. With `tied` (as long as `specimens`),
/// each specimen's place and tied targets are noted there as `place << 3 | ties`, kept only
/// for real ties (the end moves on with no branch: which specimens tie is unpredictable);
/// returns how many. With `tied` empty, ties go to the first, and none are noted. Slices, not
/// vectors: their pointers stay in registers, where the vectors' were reloaded (and `out`'s
/// length stored back) on every specimen.
#[inline(always)]
fn scan(
    targets: &[Targets],
    specimens: &[Specimen],
    moves: &mut [Move],
    tied: &mut [u32],
) -> usize {
    if tied.is_empty() {
        for (specimen, slot) in specimens.iter().zip(moves.iter_mut()) {
            *slot = forward_move(tied_best(targets, specimen).trailing_zeros());
        }
        return 0;
    }
    let mut ties_found = 0;
    for (place, (specimen, slot)) in specimens.iter().zip(moves.iter_mut()).enumerate() {
        let ties = tied_best(targets, specimen);
        tied[ties_found] = (place as u32) << 3 | u32::from(ties);
        ties_found += usize::from(TIED >> ties & 1);
        *slot = forward_move(ties.trailing_zeros());
    }
    ties_found
}

impl Player for ColorScorePlayer {
    fn begin_board(&mut self, _board: usize, seed: u64, views: &[View]) -> Result<(), PlayerFault> {
        self.rng = Some(seed::rng(seed, PLAYER_STREAM));
        self.targets = views.iter().map(Targets::of).collect();
        Ok(())
    }

    fn answers(&mut self) -> Answers<'_> {
        Answers::Moves(self)
    }

    fn end_board(&mut self, _board: usize, _points: u64) {}
}

impl Mover for ColorScorePlayer {
    fn moves(
        &mut self,
        _turn: u32,
        specimens: &[Specimen],
        out: &mut Vec<Move>,
    ) -> Result<(), PlayerFault> {
        let targets = self.targets.as_slice();
        if self.first_ties {
            let first = out.len();
            out.resize(first + specimens.len(), (0, 0));
            scan(targets, specimens, &mut out[first..], &mut []);
        } else {
            let rng = self.rng.as_mut().expect("begin_board comes first");
            // First every move as if its lowest tied target won, the ties noted on the way;
            // then the ties broken at random, in order, so the draws are the same as one per
            // tie on the way. A branch per specimen on whether it tied was the loop's costliest
            // instruction: which specimens tie is unpredictable.
            if self.tied.len() < specimens.len() {
                self.tied.resize(specimens.len(), 0);
            }
            let first = out.len();
            out.resize(first + specimens.len(), (0, 0));
            let moves = &mut out[first..];
            let ties_found = scan(targets, specimens, moves, &mut self.tied);
            for &packed in &self.tied[..ties_found] {
                let ties = packed & 7;
                let nth = rng.random_range(0..ties.count_ones());
                moves[(packed >> 3) as usize] =
                    forward_move(NTH_TIED[ties as usize][nth as usize % 3].into());
            }
        }
        Ok(())
    }
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

    fn answers(&mut self) -> Answers<'_> {
        Answers::Moves(self)
    }

    fn end_board(&mut self, _board: usize, _points: u64) {}
}

impl Mover for RandomForwardPlayer {
    fn moves(
        &mut self,
        _turn: u32,
        specimens: &[Specimen],
        out: &mut Vec<Move>,
    ) -> Result<(), PlayerFault> {
        let rng = self.rng.as_mut().expect("begin_board comes first");
        out.extend(specimens.iter().map(|_| (1, rng.random_range(-1..=1i8))));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::track::{GOAL_X, HEIGHT, Track, cell_index};

    /// ColorScore as the challenge's controller plays it, one specimen at a time: each forward
    /// target on the track scored by its colour's 6 bits of the genome, a tie broken by a draw
    /// as it comes (or by the first, with first ties).
    fn challenge_moves(
        views: &[View],
        specimens: &[Specimen],
        rng: &mut seed::Rng,
        first_ties: bool,
    ) -> Vec<Move> {
        let forward: [(usize, Move); 3] = [(8, (1, -1)), (13, (1, 0)), (18, (1, 1))];
        specimens
            .iter()
            .map(|s| {
                let view = &views[s.cell as usize];
                let scored: Vec<(u128, Move)> = forward
                    .into_iter()
                    .filter(|&(index, _)| view[index] >= 0)
                    .map(|(index, m)| ((s.genome >> (6 * view[index] as u32)) & 63, m))
                    .collect();
                let best = scored.iter().map(|&(score, _)| score).max().unwrap();
                let tied: Vec<Move> = scored
                    .iter()
                    .filter(|&&(score, _)| score == best)
                    .map(|&(_, m)| m)
                    .collect();
                if tied.len() == 1 || first_ties {
                    tied[0]
                } else {
                    tied[rng.random_range(0..tied.len() as u32) as usize]
                }
            })
            .collect()
    }

    #[test]
    fn colorscore_moves_as_the_challenge_scores_them_with_the_same_draws() {
        let mut rng = seed::rng(11, 0);
        for first_ties in [false, true] {
            for board in 0..4 {
                let track = Track::generate(&mut rng);
                // Specimens stand left of the goal columns; few genomes, so ties abound.
                let genomes: Vec<u128> = (0..8).map(|_| rng.random::<u128>()).collect();
                let specimens: Vec<Specimen> = (0..3000)
                    .map(|id| Specimen {
                        id,
                        genome: genomes[rng.random_range(0..genomes.len())],
                        cell: cell_index(rng.random_range(0..GOAL_X), rng.random_range(0..HEIGHT))
                            .into(),
                        age: 1,
                        goals: 0,
                    })
                    .collect();
                let mut player = ColorScorePlayer {
                    first_ties,
                    ..ColorScorePlayer::default()
                };
                player.begin_board(board, 5, &track.views).unwrap();
                let mut challenge_rng = seed::rng(5, PLAYER_STREAM);
                // Two turns, the second with fewer specimens than the first.
                for turn in [&specimens[..], &specimens[..1000]] {
                    let mut moves = Vec::new();
                    player.moves(1, turn, &mut moves).unwrap();
                    let expected =
                        challenge_moves(&track.views, turn, &mut challenge_rng, first_ties);
                    assert_eq!(moves, expected, "board {board}, first ties {first_ties}");
                }
                // The same draws: the streams stand at the same place.
                let next = player.rng.as_mut().unwrap().random::<u64>();
                assert_eq!(next, challenge_rng.random::<u64>());
            }
        }
    }
}
