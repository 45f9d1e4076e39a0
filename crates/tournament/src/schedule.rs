//! The schedule: every game of a tournament, its seed and its players, decided up front from the
//! master seed so that a resumed (or repeated) tournament plays exactly the same games.

use rand::RngExt;
use rand::seq::SliceRandom;

use koth_game::seed;

/// One game of the schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduledGame {
    pub index: u32,
    pub seed: u64,
    /// Indices into the tournament's bot list, in seat order (the game's bot-list order).
    pub seats: Vec<usize>,
}

/// `games` games among `bots` bots, `per_game` of them in each.
///
/// Each game takes the `per_game` bots that have played least so far, ties broken by a seeded
/// shuffle, so play counts never differ by more than one; seats are then shuffled so no bot
/// always sits first. (Drawing each game's bots at random would be simpler, but over a short
/// tournament some bots would play noticeably more often than others.)
///
/// A game of one player (the rat race, flag) is played by each bot in turn, every bot once in
/// each `bots` games, and those games share one seed: every bot meets the same boards, so the
/// leaderboard compares the bots and not the luck of their draws.
pub fn schedule(bots: usize, per_game: usize, games: u32, master_seed: u64) -> Vec<ScheduledGame> {
    let mut rng = seed::rng(master_seed, 0);
    let mut played = vec![0u32; bots];
    let mut seed = 0;
    (0..games)
        .map(|index| {
            let mut order: Vec<usize> = (0..bots).collect();
            order.shuffle(&mut rng);
            // A stable sort keeps the shuffled order among bots with equal counts.
            order.sort_by_key(|&b| played[b]);
            let mut seats = order[..per_game].to_vec();
            seats.shuffle(&mut rng);
            for &b in &seats {
                played[b] += 1;
            }
            if per_game > 1 || (index as usize).is_multiple_of(bots) {
                seed = rng.random::<u64>();
            }
            ScheduledGame { index, seed, seats }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_bot_of_a_one_player_game_plays_the_same_seeds() {
        let schedule = schedule(3, 1, 9, 5);
        for round in schedule.chunks(3) {
            let mut bots: Vec<usize> = round.iter().map(|g| g.seats[0]).collect();
            bots.sort();
            assert_eq!(bots, [0, 1, 2], "every bot once in {round:?}");
            assert!(round.iter().all(|g| g.seed == round[0].seed), "{round:?}");
        }
        let seeds: std::collections::HashSet<u64> = schedule.iter().map(|g| g.seed).collect();
        assert_eq!(seeds.len(), 3, "a seed of its own for each round");
    }

    #[test]
    fn k_of_n_gives_every_bot_a_fair_share() {
        for (bots, per_game, games) in [(7, 3, 10), (10, 4, 33), (5, 5, 4), (9, 2, 1)] {
            let schedule = schedule(bots, per_game, games, 42);
            let mut counts = vec![0; bots];
            for game in &schedule {
                assert_eq!(game.seats.len(), per_game);
                let mut seats = game.seats.clone();
                seats.sort();
                seats.dedup();
                assert_eq!(seats.len(), per_game, "a bot sits twice in {game:?}");
                for &b in &game.seats {
                    counts[b] += 1;
                }
            }
            let (min, max) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
            assert!(max - min <= 1, "{bots} bots, {per_game} a game: {counts:?}");
        }
    }

    #[test]
    fn the_master_seed_decides_the_whole_schedule() {
        assert_eq!(schedule(6, 3, 8, 7), schedule(6, 3, 8, 7));
        assert_ne!(schedule(6, 3, 8, 7), schedule(6, 3, 8, 8));
        let seeds: std::collections::HashSet<u64> =
            schedule(6, 3, 50, 7).iter().map(|g| g.seed).collect();
        assert_eq!(seeds.len(), 50, "every game gets its own seed");
    }
}
