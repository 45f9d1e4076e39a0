//! One board: the population of specimens, the turns, breeding and points.

use bytemuck::Zeroable;
use rand::RngExt;

use super::player::{Answers, GONE, Keeper, Move, Mover, Player, PlayerFault, Specimen};
use super::track::{CELLS, Landing, Track, WIDTH, move_index};
use koth_game::seed;

pub(crate) const TURNS: u32 = 10_000;
pub(crate) const FIRST_SPECIMENS: usize = 15;
pub(crate) const BRED_PER_TURN: usize = 10;
/// A specimen of this age dies at the start of its next turn.
pub(crate) const MAX_AGE: u32 = 100;
pub(crate) const GENOME_BITS: u32 = 100;
pub(crate) const GENOME_MASK: u128 = (1 << GENOME_BITS) - 1;
pub(crate) const SWITCH_PROBABILITY: f64 = 0.05;
pub(crate) const MUTATION_PROBABILITY: f64 = 0.01;

impl Specimen {
    fn fitness(&self) -> u64 {
        1 + (self.cell as i32 % WIDTH) as u64 + 50 * self.goals as u64
    }
}

/// A board in play. The rng draws everything random about the board after its track: genomes,
/// start cells, parents, crossover and mutation.
///
/// A turn's step 1 (the old die, the others age) is done at the end of the turn before, as each
/// survivor's move is applied: so the specimens a player is asked about are the board's own,
/// with no pass to age them and no copy to show them, and no turn walks its population more
/// than once.
pub(crate) struct Board<'t> {
    pub track: &'t Track,
    /// The specimens that move in the next turn, in order of birth, each already aged for it;
    /// empty once a [`Keeper`] keeps them (see [`Board::kept`]).
    pub specimens: Vec<Specimen>,
    /// How many specimens the player keeps for the board, once it does: they are moved there
    /// on the first turn of a player that answers with codes, and stay there.
    kept: Option<usize>,
    /// The last turn's survivors that die of age before the next, each with its place among
    /// all the survivors: they still breed and count in the population, but never move again.
    expiring: Vec<(usize, Specimen)>,
    pub points: u64,
    rng: seed::Rng,
    /// The id of the next specimen born.
    next_id: u32,
    /// Reused every turn, so that a turn allocates nothing.
    moves: Vec<Move>,
    /// The survivors' running fitness totals, in order of birth, for [`Board::breed`].
    cumulative: Vec<u64>,
    /// What the last turn did to each specimen it moved, in order: the cell it moves from next,
    /// or [`GONE`]; kept only for a player that [`Player::follows_fates`], and handed to it.
    fates: Vec<u16>,
}

impl<'t> Board<'t> {
    /// A board on `track` with the first specimens: random genomes on random start cells.
    pub(crate) fn new(track: &'t Track, mut rng: seed::Rng) -> Board<'t> {
        let specimens = (0..FIRST_SPECIMENS)
            .map(|_| Specimen {
                id: 0,
                genome: rng.random::<u128>() & GENOME_MASK,
                age: 0,
                goals: 0,
                cell: random_start(track, &mut rng).into(),
            })
            .collect();
        Board::with_specimens(track, rng, specimens)
    }

    /// A board with chosen specimens (for tests of single rules), numbered 0, 1, … in order,
    /// each of its age before the first turn's step 1 (which is done here).
    pub(crate) fn with_specimens(
        track: &'t Track,
        rng: seed::Rng,
        mut specimens: Vec<Specimen>,
    ) -> Self {
        for (id, specimen) in specimens.iter_mut().enumerate() {
            specimen.id = id as u32;
        }
        Board {
            track,
            next_id: specimens.len() as u32,
            specimens: specimens.into_iter().filter_map(aged).collect(),
            kept: None,
            expiring: Vec::new(),
            points: 1,
            rng,
            moves: Vec::new(),
            cumulative: Vec::new(),
            fates: Vec::new(),
        }
    }

    /// How many specimens are alive: those that move next and those that die of age first.
    pub(crate) fn population(&self) -> usize {
        self.kept.unwrap_or(self.specimens.len()) + self.expiring.len()
    }

    /// Every living specimen (those that die of age before the next turn last); `player` is
    /// the board's, which may keep them.
    pub(crate) fn living<'a>(
        &'a self,
        player: &'a mut dyn Player,
    ) -> impl Iterator<Item = &'a Specimen> {
        let movers = match (self.kept, player.answers()) {
            (Some(count), Answers::Codes(keeper)) => keeper.specimens(count),
            _ => &self.specimens,
        };
        movers
            .iter()
            .chain(self.expiring.iter().map(|(_, specimen)| specimen))
    }

    /// Plays one turn. Returns whether the board goes on (at least two specimens are left).
    pub(crate) fn turn(&mut self, turn: u32, player: &mut dyn Player) -> Result<bool, PlayerFault> {
        match player.answers() {
            Answers::Moves(mover) => self.turn_of_moves(turn, mover),
            Answers::Codes(keeper) => self.turn_of_codes(turn, keeper),
        }
    }

    /// A turn of a player shown the board's specimens.
    fn turn_of_moves(&mut self, turn: u32, mover: &mut dyn Mover) -> Result<bool, PlayerFault> {
        self.moves.clear();
        mover.moves(turn, &self.specimens, &mut self.moves)?;
        if self.moves.len() != self.specimens.len() {
            return Err(PlayerFault {
                kind: koth_bot::FaultKind::BadOutput,
                reason: format!(
                    "answered {} moves for {} specimens",
                    self.moves.len(),
                    self.specimens.len()
                ),
            });
        }
        // Taken out for the turn, so that the rest of the board can be borrowed beside them.
        let mut specimens = std::mem::take(&mut self.specimens);
        let moves = std::mem::take(&mut self.moves);
        let movers = if mover.follows_fates() {
            let movers = self.apply_moves::<Move, true>(&mut specimens, &moves);
            mover.fates(&self.fates);
            movers
        } else {
            self.apply_moves::<Move, false>(&mut specimens, &moves)
        };
        self.moves = moves;
        specimens.truncate(movers);
        let goes_on = self.cumulative.len() >= 2;
        if goes_on {
            specimens.resize(movers + BRED_PER_TURN, Specimen::zeroed());
            self.breed(&mut specimens, movers);
        }
        self.specimens = specimens;
        Ok(goes_on)
    }

    /// A turn of a player that keeps the specimens: they are moved into its memory on its
    /// first turn, and moved, bred and dropped there from then on.
    fn turn_of_codes(&mut self, turn: u32, keeper: &mut dyn Keeper) -> Result<bool, PlayerFault> {
        let count = match self.kept {
            Some(count) => count,
            None => {
                let count = self.specimens.len();
                keeper.kept(count)?[..count].copy_from_slice(&self.specimens);
                self.specimens.clear();
                self.kept = Some(count);
                count
            }
        };
        let (living, codes) = keeper.codes(turn, count)?;
        let movers = self.apply_moves::<u32, false>(living, codes);
        self.kept = Some(movers);
        if self.cumulative.len() < 2 {
            return Ok(false);
        }
        let room = movers + BRED_PER_TURN;
        self.breed(keeper.kept(room)?, movers);
        self.kept = Some(room);
        Ok(true)
    }

    /// Steps 3–6 of the turn for every specimen of `living`, given its answer, and step 1 of
    /// the next for the survivors, which are moved to the front of `living` in order; returns
    /// how many move next. Also adds up the survivors' fitness for [`Board::breed`] on the way,
    /// which saves it a pass over them, and, with `FATES`, notes each specimen's fate
    /// ([`Board::fates`]), which saves a player that tells its process only what changed a walk
    /// of its own to find who is gone.
    // Out of line: inlined into the board's loop it ran short of registers and spilled its
    // vectors on every specimen (4% of a built-in board).
    #[inline(never)]
    fn apply_moves<A: Answer, const FATES: bool>(
        &mut self,
        living: &mut [Specimen],
        answers: &[A],
    ) -> usize {
        // Borrowed field by field, so the compiler can see they do not overlap and need not
        // reload them from `self` on every specimen.
        let Board {
            track,
            expiring,
            points,
            rng,
            cumulative,
            fates,
            specimens: _,
            kept: _,
            moves: _,
            next_id: _,
        } = self;
        expiring.clear();
        let count = living.len();
        // Cut to the count once, so that no index below needs a check of its own.
        let answers = &answers[..count];
        if FATES {
            fates.clear();
            fates.resize(count, GONE);
        }
        let fates = &mut fates[..if FATES { count } else { 0 }];
        // Written by index, not pushed: a push per specimen stored the length back every time.
        cumulative.resize(count, 0);
        // Slices of the vectors and of the track's table, taken once: with the vectors
        // themselves, their pointers and lengths were reloaded from the board after every
        // store, and the loop ran short of registers and spilled.
        let cumulative_now = &mut cumulative[..count];
        let landings = track.landings.as_slice();
        let mut total = 0u64;
        let mut survivors = 0;
        let mut movers = 0;
        for i in 0..count {
            let s = living[i];
            let landing = landings[s.cell as usize][answers[i].landing()];
            let (cell, age, goals) = if let Some(cell) = landing.cell() {
                (cell, s.age, s.goals)
            } else if landing == Landing::GOAL {
                *points += 1;
                (random_start(track, rng), 0, s.goals + 1)
            } else {
                continue;
            };
            let s = Specimen {
                id: s.id,
                genome: s.genome,
                age,
                goals,
                cell: cell.into(),
            };
            total += s.fitness();
            cumulative_now[survivors] = total;
            match aged(s) {
                Some(aged) => {
                    living[movers] = aged;
                    movers += 1;
                    if FATES {
                        fates[i] = cell;
                    }
                }
                None => expiring.push((survivors, s)),
            }
            survivors += 1;
        }
        cumulative.truncate(survivors);
        movers
    }

    /// The genome of the survivor at `place` among all of them, of which the first `movers`
    /// that move next are `movers`.
    fn survivor_genome(&self, movers: &[Specimen], place: usize) -> u128 {
        let expired_before = self.expiring.partition_point(|&(at, _)| at < place);
        match self.expiring.get(expired_before) {
            Some(&(at, specimen)) if at == place => specimen.genome,
            _ => movers[place - expired_before].genome,
        }
    }

    /// Breeds [`BRED_PER_TURN`] children from the specimens alive now, none of which was born
    /// this turn: the first `movers` of `specimens` and those expiring. The children are
    /// written after them, in `specimens`' free places, only after all parents are chosen.
    /// Parents are drawn from the running fitness totals that [`Board::apply_moves`] left.
    fn breed(&mut self, specimens: &mut [Specimen], movers: usize) {
        debug_assert_eq!(self.cumulative.len(), movers + self.expiring.len());
        let (movers_now, children) = specimens.split_at_mut(movers);
        for child in &mut children[..BRED_PER_TURN] {
            let (first, second) = choose_parents(&self.cumulative, &mut self.rng);
            let genome = breed_genome(
                self.survivor_genome(movers_now, first),
                self.survivor_genome(movers_now, second),
                &mut self.rng,
            );
            let cell = random_start(self.track, &mut self.rng);
            *child = aged(Specimen {
                id: self.next_id,
                genome,
                age: 0,
                goals: 0,
                cell: cell.into(),
            })
            .expect("a child lives to move");
            self.next_id += 1;
        }
    }
}

/// A player's answer for one specimen, as the board applies it.
trait Answer: Copy {
    /// The index of its move among a cell's nine landings.
    fn landing(self) -> usize;
}

impl Answer for Move {
    fn landing(self) -> usize {
        move_index(self.0, self.1)
    }
}

/// A move code as a [`Keeper`] answers it, little-endian: the index itself.
impl Answer for u32 {
    fn landing(self) -> usize {
        u32::from_le(self) as usize
    }
}

/// Step 1 of a turn for one specimen: older than [`MAX_AGE`] it dies, else it ages a turn.
fn aged(specimen: Specimen) -> Option<Specimen> {
    (specimen.age < MAX_AGE).then_some(Specimen {
        age: specimen.age + 1,
        ..specimen
    })
}

/// Two distinct parents, each drawn in proportion to fitness, from the specimens whose running
/// fitness totals are `cumulative`.
fn choose_parents(cumulative: &[u64], rng: &mut seed::Rng) -> (usize, usize) {
    let total = *cumulative.last().expect("at least two specimens breed");
    let first = pick(cumulative, rng.random_range(0..total));
    // The second parent is drawn from the others in proportion to fitness: draw in the total
    // without the first's share and step over that share.
    let before = if first == 0 { 0 } else { cumulative[first - 1] };
    let share = cumulative[first] - before;
    let mut r = rng.random_range(0..total - share);
    if r >= before {
        r += share;
    }
    (first, pick(cumulative, r))
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
    let upto = |n: u32| {
        if n >= 128 {
            u128::MAX
        } else {
            (1u128 << n) - 1
        }
    };
    upto(to) & !upto(from)
}

/// A child's genome: crossover, then mutation.
pub(crate) fn breed_genome(a: u128, b: u128, rng: &mut seed::Rng) -> u128 {
    mutate(crossover(a, b, rng), rng)
}

/// Copies bits 0..99 from a random first parent, switching parents before each bit with
/// probability 0.05.
fn crossover(a: u128, b: u128, rng: &mut seed::Rng) -> u128 {
    let mut from_a = rng.random_bool(0.5);
    let mut from_a_mask = 0u128;
    let mut start = 0;
    let mut next_trial = 0;
    loop {
        let switch =
            (next_trial + failures_before_success(SWITCH_PROBABILITY, rng)).min(GENOME_BITS);
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
    ((a & from_a_mask) | (b & !from_a_mask)) & GENOME_MASK
}

/// Flips each of the 100 bits with probability 0.01.
fn mutate(mut genome: u128, rng: &mut seed::Rng) -> u128 {
    let mut bit = failures_before_success(MUTATION_PROBABILITY, rng);
    while bit < GENOME_BITS {
        genome ^= 1 << bit;
        bit += 1 + failures_before_success(MUTATION_PROBABILITY, rng);
    }
    genome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::PlayerFault;
    use crate::track::{COLOURS, Kind, View, cell_index, cell_xy};

    const EMPTY: i8 = 0;
    const WALL: i8 = 1;
    /// Teleports by (2, 0).
    const TELE_2: i8 = 2;
    /// Teleports by (4, 0).
    const TELE_4: i8 = 3;
    /// Deadly on itself.
    const TRAP_HERE: i8 = 4;
    /// Makes the cell to its right deadly.
    const TRAP_RIGHT: i8 = 5;

    /// An all-empty track with the given cells painted.
    fn track(painted: &[(i32, i32, i8)]) -> Track {
        let mut kinds = [Kind::Empty; COLOURS];
        kinds[WALL as usize] = Kind::Wall;
        kinds[TELE_2 as usize] = Kind::Teleporter(2, 0);
        kinds[TELE_4 as usize] = Kind::Teleporter(4, 0);
        kinds[TRAP_HERE as usize] = Kind::Trap(0, 0);
        kinds[TRAP_RIGHT as usize] = Kind::Trap(1, 0);
        let mut colours = vec![EMPTY; CELLS];
        for &(x, y, colour) in painted {
            colours[cell_index(x, y) as usize] = colour;
        }
        Track::new(colours, kinds)
    }

    /// Answers the same list of moves every turn.
    struct Fixed(Vec<Move>);

    impl Player for Fixed {
        fn begin_board(&mut self, _: usize, _: u64, _: &[View]) -> Result<(), PlayerFault> {
            Ok(())
        }
        fn answers(&mut self) -> Answers<'_> {
            Answers::Moves(self)
        }
        fn end_board(&mut self, _: usize, _: u64) {}
    }

    impl Mover for Fixed {
        fn moves(
            &mut self,
            _: u32,
            specimens: &[Specimen],
            out: &mut Vec<Move>,
        ) -> Result<(), PlayerFault> {
            out.extend(self.0.iter().take(specimens.len()));
            Ok(())
        }
    }

    fn cell(x: i32, y: i32) -> u32 {
        cell_index(x, y).into()
    }

    fn at(x: i32, y: i32) -> Specimen {
        Specimen {
            id: 0,
            genome: 0,
            age: 0,
            goals: 0,
            cell: cell(x, y),
        }
    }

    /// Plays one turn of `specimens` with `moves`; returns the survivors in order of birth
    /// (children dropped), each of the age it moved at, and the board's points.
    fn one_turn(track: &Track, specimens: Vec<Specimen>, moves: Vec<Move>) -> (Vec<Specimen>, u64) {
        let before = specimens.len();
        let mut board = Board::with_specimens(track, seed::rng(1, 0), specimens);
        let goes_on = board.turn(1, &mut Fixed(moves)).unwrap();
        let children = if goes_on { BRED_PER_TURN } else { 0 };
        let movers = board.specimens.len() - children;
        // The movers are already aged for the next turn.
        let mut survivors: Vec<Specimen> = board.specimens[..movers]
            .iter()
            .map(|&s| Specimen {
                age: s.age - 1,
                ..s
            })
            .collect();
        for &(place, specimen) in &board.expiring {
            survivors.insert(place, specimen);
        }
        assert!(survivors.len() <= before);
        assert_eq!(survivors.len(), board.population() - children);
        (survivors, board.points)
    }

    fn cells(specimens: &[Specimen]) -> Vec<u32> {
        specimens.iter().map(|s| s.cell).collect()
    }

    /// A bystander that stays alive where it is.
    fn bystander() -> Specimen {
        at(20, 7)
    }

    #[test]
    fn ids_ascend_along_the_population_and_are_kept_for_life() {
        let t = track(&[]);
        let mut board = Board::new(&t, seed::rng(8, 0));
        let mut player = Fixed(vec![(1, 0); 10_000]);
        let mut last_ids: Vec<u32> = Vec::new();
        let mut issued = 0;
        for turn in 1..=60 {
            // The specimens the player is asked about.
            let ids: Vec<u32> = board.specimens.iter().map(|s| s.id).collect();
            assert!(board.turn(turn, &mut player).unwrap());
            assert!(ids.windows(2).all(|w| w[0] < w[1]), "turn {turn}: {ids:?}");
            // Last turn's survivors, then the ten born after it, with the next ids.
            let newborns = if turn == 1 {
                FIRST_SPECIMENS
            } else {
                BRED_PER_TURN
            };
            let (old, born) = ids.split_at(ids.len() - newborns);
            assert!(old.iter().all(|id| last_ids.contains(id)), "turn {turn}");
            let expected: Vec<u32> = (issued..issued + newborns as u32).collect();
            assert_eq!(born, expected, "turn {turn}");
            issued += newborns as u32;
            last_ids = ids;
        }
        // The goal is 49 steps away on an empty track: specimens reached it and kept their ids.
        assert!(board.specimens.iter().any(|s| s.goals > 0));
    }

    /// Moves every specimen right, or up on every third id (off the track from the top row),
    /// and keeps the fates it is told.
    struct Follower {
        fates: Vec<u16>,
        told: u32,
    }

    impl Player for Follower {
        fn begin_board(&mut self, _: usize, _: u64, _: &[View]) -> Result<(), PlayerFault> {
            Ok(())
        }
        fn answers(&mut self) -> Answers<'_> {
            Answers::Moves(self)
        }
        fn end_board(&mut self, _: usize, _: u64) {}
    }

    impl Mover for Follower {
        fn moves(
            &mut self,
            _: u32,
            specimens: &[Specimen],
            out: &mut Vec<Move>,
        ) -> Result<(), PlayerFault> {
            out.extend(
                specimens
                    .iter()
                    .map(|s| if s.id % 3 == 0 { (0, -1) } else { (1, 0) }),
            );
            Ok(())
        }
        fn follows_fates(&self) -> bool {
            true
        }
        fn fates(&mut self, fates: &[u16]) {
            self.fates = fates.to_vec();
            self.told += 1;
        }
    }

    #[test]
    fn a_player_that_follows_fates_is_told_who_moves_on_and_from_where() {
        // A wall of traps kills some specimens, the others age out or reach the goal: every
        // fate turns up over 300 turns.
        let t = track(&[(20, 3, TRAP_HERE), (20, 4, TRAP_HERE), (30, 9, TRAP_HERE)]);
        let mut board = Board::new(&t, seed::rng(9, 0));
        let mut player = Follower {
            fates: Vec::new(),
            told: 0,
        };
        let (mut gone, mut moved) = (0, 0);
        for turn in 1..=300 {
            let asked: Vec<u32> = board.specimens.iter().map(|s| s.id).collect();
            if !board.turn(turn, &mut player).unwrap() {
                break;
            }
            assert_eq!(player.told, turn);
            assert_eq!(player.fates.len(), asked.len());
            // The ones that move next, with the cells they move from, are those not gone, in
            // the order they were asked in; the newborns follow them.
            let next: Vec<(u32, u16)> = board.specimens[..board.specimens.len() - BRED_PER_TURN]
                .iter()
                .map(|s| (s.id, s.cell as u16))
                .collect();
            let told: Vec<(u32, u16)> = asked
                .iter()
                .zip(&player.fates)
                .filter(|&(_, &fate)| fate != GONE)
                .map(|(&id, &fate)| (id, fate))
                .collect();
            assert_eq!(told, next, "turn {turn}");
            gone += player.fates.iter().filter(|&&fate| fate == GONE).count();
            moved += next.len();
        }
        assert!(gone > 100 && moved > 1000, "{gone} gone, {moved} moved");
        // A player that does not follow them is never told.
        let mut board = Board::new(&t, seed::rng(9, 0));
        assert!(board.turn(1, &mut Fixed(vec![(1, 0); 100])).unwrap());
        assert!(board.fates.is_empty());
    }

    /// A built-in player answering in codes for specimens it keeps, as the direct call does:
    /// its memory larger than the board asks for, the spare places holding stale specimens.
    struct Keeping {
        inner: Box<dyn Player>,
        kept: Vec<Specimen>,
        codes: Vec<u32>,
        moves: Vec<Move>,
    }

    impl Player for Keeping {
        fn begin_board(
            &mut self,
            board: usize,
            seed: u64,
            views: &[View],
        ) -> Result<(), PlayerFault> {
            self.inner.begin_board(board, seed, views)
        }
        fn answers(&mut self) -> Answers<'_> {
            Answers::Codes(self)
        }
        fn end_board(&mut self, _: usize, _: u64) {}
    }

    impl Keeper for Keeping {
        fn kept(&mut self, room: usize) -> Result<&mut [Specimen], PlayerFault> {
            if self.kept.len() < room {
                self.kept.resize(room + 7, at(1, 1));
            }
            Ok(&mut self.kept)
        }
        fn codes(
            &mut self,
            turn: u32,
            count: usize,
        ) -> Result<(&mut [Specimen], &[u32]), PlayerFault> {
            self.kept(count + BRED_PER_TURN)?;
            self.moves.clear();
            let Answers::Moves(inner) = self.inner.answers() else {
                unreachable!("a built-in player answers moves")
            };
            inner.moves(turn, &self.kept[..count], &mut self.moves)?;
            self.codes.clear();
            (self.codes).extend(self.moves.iter().map(|&(dx, dy)| move_index(dx, dy) as u32));
            Ok((&mut self.kept[..count], &self.codes))
        }
        fn specimens(&self, count: usize) -> &[Specimen] {
            &self.kept[..count]
        }
    }

    #[test]
    fn a_player_that_keeps_the_specimens_plays_the_board_it_would_be_shown() {
        let built_in = || crate::player::built_in("colorscore").unwrap();
        let (mut most, mut goals) = (0, 0);
        for board in 0..6 {
            let mut rng = seed::rng(board, 0);
            let track = Track::generate(&mut rng);
            let mut shown = built_in();
            let mut keeping = Keeping {
                inner: built_in(),
                kept: Vec::new(),
                codes: Vec::new(),
                moves: Vec::new(),
            };
            shown.begin_board(0, board, &track.views).unwrap();
            keeping.begin_board(0, board, &track.views).unwrap();
            let mut a = Board::new(&track, rng.clone());
            let mut b = Board::new(&track, rng);
            for turn in 1..=1500 {
                let goes_on = a.turn(turn, shown.as_mut()).unwrap();
                assert_eq!(b.turn(turn, &mut keeping).unwrap(), goes_on);
                let living: Vec<Specimen> = a.living(shown.as_mut()).copied().collect();
                let kept: Vec<Specimen> = b.living(&mut keeping).copied().collect();
                assert_eq!(living, kept, "board {board}, turn {turn}");
                assert_eq!((a.population(), a.points), (b.population(), b.points));
                most = most.max(a.population());
                if !goes_on {
                    break;
                }
            }
            assert!(b.specimens.is_empty(), "the keeper keeps them");
            // A board starts at 1 point; each goal adds one.
            goals += a.points - 1;
        }
        // Boards that grew and scored: the keeper's memory was grown several times, and
        // specimens reached the goal and started again.
        assert!(
            most > 200 && goals >= 5,
            "at most {most} specimens, {goals} goals"
        );
    }

    #[test]
    fn a_move_into_a_wall_stays_put() {
        let t = track(&[(6, 5, WALL)]);
        let (alive, _) = one_turn(&t, vec![at(5, 5), bystander()], vec![(1, 0), (0, 0)]);
        assert_eq!(alive[0].cell, cell(5, 5));
    }

    #[test]
    fn a_teleporter_moves_once_and_landing_on_a_wall_kills() {
        // (6,5) teleports by 2 onto (8,5), another teleporter: it is not used again.
        let t = track(&[(6, 5, TELE_2), (8, 5, TELE_2)]);
        let (alive, _) = one_turn(&t, vec![at(5, 5), bystander()], vec![(1, 0), (0, 0)]);
        assert_eq!(alive[0].cell, cell(8, 5));
        let t = track(&[(6, 5, TELE_2), (8, 5, WALL)]);
        let (alive, _) = one_turn(&t, vec![at(5, 5), bystander()], vec![(1, 0), (0, 0)]);
        assert_eq!(cells(&alive), cells(&[bystander()]));
    }

    #[test]
    fn a_teleport_into_the_goal_scores() {
        // (48,5) teleports by 4 to (52,5), the last goal column.
        let t = track(&[(48, 5, TELE_4)]);
        let (alive, points) = one_turn(&t, vec![at(47, 5), bystander()], vec![(1, 0), (0, 0)]);
        assert_eq!(points, 2);
        assert_eq!(alive[0].goals, 1);
        assert_eq!(cell_xy(alive[0].cell as u16).0, 0);
    }

    #[test]
    fn a_teleport_beyond_the_right_edge_scores() {
        // Generated tracks never put a teleporter on a goal cell; a hand-made one can, and
        // landing past x = 52 is still the goal, not out of bounds.
        let t = track(&[(49, 5, TELE_4)]);
        let (alive, points) = one_turn(&t, vec![at(48, 5), bystander()], vec![(1, 0), (0, 0)]);
        assert_eq!(points, 2);
        assert_eq!(alive[0].goals, 1);
    }

    #[test]
    fn traps_kill_at_their_offset() {
        let t = track(&[(6, 5, TRAP_HERE), (6, 8, TRAP_RIGHT)]);
        let s = vec![at(5, 5), at(5, 8), at(6, 7), bystander()];
        // Onto the (0,0) trap: dead. Onto the (1,0) trap: alive. Onto the cell right of it: dead.
        let (alive, _) = one_turn(&t, s, vec![(1, 0), (1, 0), (1, 1), (0, 0)]);
        assert_eq!(cells(&alive), cells(&[at(6, 8), bystander()]));
    }

    #[test]
    fn leaving_the_track_kills_except_into_the_goal() {
        let s = vec![at(5, 0), at(5, 14), at(0, 5), bystander()];
        let (alive, _) = one_turn(&track(&[]), s, vec![(0, -1), (1, 1), (-1, 0), (0, 0)]);
        assert_eq!(cells(&alive), cells(&[bystander()]));
    }

    #[test]
    fn a_specimen_on_a_deadly_cell_survives_its_first_move() {
        // (7,5) is deadly (right of a trap); a specimen placed there moves off it.
        let t = track(&[(6, 5, TRAP_RIGHT)]);
        let (alive, _) = one_turn(&t, vec![at(7, 5), bystander()], vec![(1, 0), (0, 0)]);
        assert_eq!(alive[0].cell, cell(8, 5));
        let (alive, _) = one_turn(&t, vec![at(7, 5), bystander()], vec![(0, 0), (0, 0)]);
        assert_eq!(cells(&alive), cells(&[bystander()]));
    }

    #[test]
    fn age_100_dies_before_moving() {
        let old = Specimen {
            age: 100,
            ..at(5, 5)
        };
        let oldest_alive = Specimen {
            age: 99,
            ..at(5, 6)
        };
        let (alive, _) = one_turn(
            &track(&[]),
            vec![old, oldest_alive, bystander()],
            vec![(0, 0), (0, 0), (0, 0)],
        );
        assert_eq!(alive.len(), 2);
        assert_eq!(alive[0].age, 100);
    }

    #[test]
    fn a_goal_resets_age_and_keeps_the_goal_count() {
        let runner = Specimen {
            age: 50,
            goals: 2,
            ..at(48, 5)
        };
        let (alive, points) =
            one_turn(&track(&[]), vec![runner, bystander()], vec![(1, 0), (0, 0)]);
        assert_eq!(points, 2);
        assert_eq!((alive[0].age, alive[0].goals), (0, 3));
        assert_eq!(cell_xy(alive[0].cell as u16).0, 0);
    }

    #[test]
    fn fewer_than_two_specimens_end_the_board() {
        let t = track(&[]);
        let mut board = Board::with_specimens(&t, seed::rng(1, 0), vec![at(5, 0), bystander()]);
        let goes_on = board.turn(1, &mut Fixed(vec![(0, -1), (0, 0)]));
        assert_eq!(goes_on, Ok(false));
        assert_eq!(board.specimens.len(), 1);
    }

    #[test]
    fn a_wall_column_leaves_no_start_cells() {
        let wall: Vec<(i32, i32, i8)> = (0..15).map(|y| (10, y, WALL)).collect();
        assert!(track(&wall).starts.is_empty());
        assert_eq!(track(&[]).starts.len(), 15);
    }

    #[test]
    fn generated_tracks_follow_the_colour_rules() {
        let mut rng = seed::rng(7, 0);
        for _ in 0..20 {
            let t = Track::generate(&mut rng);
            assert!(t.starts.len() >= 10);
            let count = |f: fn(&Kind) -> bool| t.kinds.iter().filter(|k| f(k)).count();
            assert_eq!(count(|k| *k == Kind::Empty), 8);
            assert_eq!(count(|k| matches!(k, Kind::Teleporter(..))), 4);
            assert_eq!(count(|k| matches!(k, Kind::Trap(..))), 2);
            assert_eq!(count(|k| *k == Kind::Wall), 2);
            let mut offsets: Vec<(i8, i8)> = t
                .kinds
                .iter()
                .filter_map(|k| match k {
                    Kind::Teleporter(dx, dy) => Some((*dx, *dy)),
                    _ => None,
                })
                .collect();
            assert!(offsets.iter().all(|&o| o != (0, 0)));
            let negated: Vec<(i8, i8)> = offsets.iter().map(|&(x, y)| (-x, -y)).collect();
            offsets.sort();
            let mut negated = negated;
            negated.sort();
            assert_eq!(offsets, negated);
            for y in 0..15 {
                for x in 49..53 {
                    assert_eq!(t.kind_at(x, y), Some(Kind::Empty));
                }
            }
        }
    }

    #[test]
    fn parents_are_distinct_and_drawn_in_proportion_to_fitness() {
        let mut rng = seed::rng(3, 0);
        let cumulative = [1u64, 3, 6, 10]; // fitness 1, 2, 3, 4
        let mut firsts = [0u32; 4];
        let draws = 40_000;
        for _ in 0..draws {
            let (a, b) = choose_parents(&cumulative, &mut rng);
            assert_ne!(a, b);
            firsts[a] += 1;
        }
        for (i, &n) in firsts.iter().enumerate() {
            let expected = (i + 1) as f64 / 10.0;
            assert!(
                (n as f64 / draws as f64 - expected).abs() < 0.01,
                "{firsts:?}"
            );
        }
        // With one parent of overwhelming fitness, the other still is always the second.
        for _ in 0..1000 {
            let (a, b) = choose_parents(&[1_000_000, 1_000_001], &mut rng);
            assert_eq!((a.min(b), a.max(b)), (0, 1));
        }
    }

    #[test]
    fn children_born_this_turn_are_not_parents() {
        // Both parents carry the same genome, so a child differs from it only by its own
        // mutations (one bit on average). A child bred from an earlier child of the same turn
        // would carry two rounds of mutations.
        let t = track(&[]);
        let parent = Specimen {
            genome: 0x0005_5555_5555_5555_5555_5555_5555,
            ..at(0, 3)
        };
        let mut board = Board::with_specimens(&t, seed::rng(4, 0), vec![parent, parent]);
        let mut distance = 0;
        let breeds = 1000;
        for _ in 0..breeds {
            // The parents alone, never old enough to die.
            let mut specimens = vec![parent; 2 + BRED_PER_TURN];
            let movers = board.apply_moves::<Move, false>(&mut specimens[..2], &[(0, 0); 2]);
            assert_eq!(movers, 2);
            board.breed(&mut specimens, movers);
            distance += specimens[2..]
                .iter()
                .map(|c| (c.genome ^ parent.genome).count_ones())
                .sum::<u32>();
        }
        let mean = distance as f64 / (breeds * BRED_PER_TURN) as f64;
        assert!((mean - 1.0).abs() < 0.06, "mean mutated bits {mean}");
    }

    #[test]
    fn crossover_switches_parents_at_rate_0_05() {
        let mut rng = seed::rng(5, 0);
        let (children, mut switches, mut first_from_a) = (20_000, 0u32, 0u32);
        for _ in 0..children {
            let child = crossover(GENOME_MASK, 0, &mut rng);
            first_from_a += (child & 1) as u32;
            switches += ((child ^ (child >> 1)) & ((1 << 99) - 1)).count_ones();
        }
        let rate = switches as f64 / (children * 99) as f64;
        assert!((rate - 0.05).abs() < 0.002, "switch rate {rate}");
        let share = first_from_a as f64 / children as f64;
        assert!((share - 0.5).abs() < 0.02, "first parent share {share}");
    }

    #[test]
    fn mutation_flips_bits_at_rate_0_01() {
        let mut rng = seed::rng(6, 0);
        let genomes = 20_000;
        let mut per_bit = [0u32; 100];
        for _ in 0..genomes {
            let g = mutate(0, &mut rng);
            assert_eq!(g & !GENOME_MASK, 0);
            for (bit, n) in per_bit.iter_mut().enumerate() {
                *n += ((g >> bit) & 1) as u32;
            }
        }
        let rate = per_bit.iter().sum::<u32>() as f64 / (genomes * 100) as f64;
        assert!((rate - 0.01).abs() < 0.0005, "flip rate {rate}");
        // The first and last bits mutate too.
        assert!(per_bit[0] > 100 && per_bit[99] > 100, "{per_bit:?}");
    }
}
