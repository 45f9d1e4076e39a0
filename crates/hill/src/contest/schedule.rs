//! The final's schedule, balanced by construction (pure): a round is every table of `seats`
//! finalists (every pair, for a duel), each played once with every finalist in every seat,
//! the seats rotated over one seed. So in every round each finalist plays as many games as
//! every other, each pair meets as often, each finalist sits in each seat as often, and a
//! table's luck of the seed is shared by all its finalists alike.

/// How many games a round of `finalists` in tables of `seats` has: every table (`finalists`
/// choose `seats`) once per seat. `None` past `u32`.
pub fn round_size(finalists: usize, seats: usize) -> Option<u32> {
    if seats == 0 || seats > finalists {
        return None;
    }
    // C(n, k) exactly, a factor at a time (each partial product is itself a binomial).
    let mut tables: u128 = 1;
    for i in 0..seats as u128 {
        tables = tables * (finalists as u128 - i) / (i + 1);
        if tables > u128::from(u32::MAX) {
            return None;
        }
    }
    u32::try_from(tables * seats as u128).ok()
}

/// One game of a round: the finalists (places at the close, from 0) in seat order, and the
/// table it belongs to (the tables of a round numbered from 0: its games share a seed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seating {
    pub table: u32,
    pub seats: Vec<usize>,
}

/// Every game of a round of `finalists` in tables of `seats`, table by table (in the order of
/// their finalists, the lowest first), each table's rotations in turn.
pub fn round(finalists: usize, seats: usize) -> Vec<Seating> {
    let mut games = Vec::new();
    let mut table: Vec<usize> = (0..seats).collect();
    let mut number = 0;
    if seats == 0 || seats > finalists {
        return games;
    }
    loop {
        for turn in 0..seats {
            let mut rotated = table.clone();
            rotated.rotate_left(turn);
            games.push(Seating {
                table: number,
                seats: rotated,
            });
        }
        number += 1;
        // The next subset in lexicographic order.
        let Some(i) = (0..seats).rev().find(|&i| table[i] < finalists - seats + i) else {
            return games;
        };
        table[i] += 1;
        for j in i + 1..seats {
            table[j] = table[j - 1] + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_seats_every_finalist_equally_in_every_seat_and_every_pair_equally() {
        for (finalists, seats) in [(2, 2), (4, 2), (8, 2), (5, 3), (8, 7), (6, 6), (7, 4)] {
            let games = round(finalists, seats);
            assert_eq!(games.len() as u32, round_size(finalists, seats).unwrap());
            let mut in_seat = vec![vec![0u32; seats]; finalists];
            let mut pairs = vec![vec![0u32; finalists]; finalists];
            for game in &games {
                let mut sorted = game.seats.clone();
                sorted.sort();
                sorted.dedup();
                assert_eq!(sorted.len(), seats, "a finalist twice at one table");
                for (seat, &f) in game.seats.iter().enumerate() {
                    in_seat[f][seat] += 1;
                    for &g in &game.seats {
                        if g != f {
                            pairs[f][g] += 1;
                        }
                    }
                }
            }
            let first = in_seat[0][0];
            assert!(in_seat.iter().flatten().all(|&n| n == first), "{in_seat:?}");
            let met = pairs[0][1];
            for (f, row) in pairs.iter().enumerate() {
                for (g, &n) in row.iter().enumerate() {
                    assert!(f == g || n == met, "{finalists}/{seats}: {pairs:?}");
                }
            }
            // A table's games are its rotations, one after another, over the same finalists.
            for table in games.chunk_by(|a, b| a.table == b.table) {
                assert_eq!(table.len(), seats);
            }
        }
    }

    #[test]
    fn round_sizes_are_tables_times_seats_and_too_large_is_none() {
        assert_eq!(round_size(8, 2), Some(56));
        assert_eq!(round_size(8, 7), Some(56));
        assert_eq!(round_size(16, 2), Some(240));
        assert_eq!(round_size(3, 4), None);
        assert_eq!(round_size(200, 100), None);
    }
}
