//! The final's table (pure): the finalists fitted on the final's games alone by the game's
//! own ranking (the hill's fit), in the table's one order, each adjacent pair told apart or
//! not by their 95% intervals, places shared where they are not (a tie declared, never broken by chance), and
//! every pair's expected outcome. The same games in the same order give the same table bit for
//! bit: the fit starts from zeros and adds the games in their order, so anyone holding the
//! games recomputes it (`koth contest verify`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use koth_ranking::{self as ranking, Entry, Games, Ranking};

/// A final game's outcome: each seat's finalist (its place at the close, from 0) and score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub finalist: usize,
    pub score: f64,
}

/// A finalist's line of the final's table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Line {
    /// Its place: shared with the line above when the two are not apart.
    pub place: usize,
    /// Its place at the close, from 0 (its index in the manifest's finalists).
    pub finalist: usize,
    /// Its figure on the ranking's scale, with half its 95% interval.
    pub value: f64,
    pub interval: f64,
    pub games: u32,
    /// Its lead over the next line; none on the last line.
    pub lead: Option<f64>,
    /// Whether it is surely ahead of the next line: their 95% intervals are apart
    /// ([`ranking::apart`], the rule every table of koth shows).
    pub apart_from_next: Option<bool>,
}

/// The final's table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub lines: Vec<Line>,
    /// What `matrix` holds, in words.
    pub matrix_is: String,
    /// By finalist (places at the close) row and column: the chance the row beats the
    /// column (placement), or the row's expected points a game less the column's (points).
    pub matrix: Vec<Vec<f64>>,
}

impl Table {
    /// Whether every adjacent pair of the table is apart.
    pub fn sure(&self) -> bool {
        self.lines.iter().all(|l| l.apart_from_next != Some(false))
    }

    /// The adjacent pairs not told apart (finalists, by place at the close).
    pub fn unseparated(&self) -> Vec<(usize, usize)> {
        self.lines
            .windows(2)
            .filter(|w| w[0].apart_from_next == Some(false))
            .map(|w| (w[0].finalist, w[1].finalist))
            .collect()
    }
}

/// A final game as the table reads it: the round and the table of the round it belongs to,
/// and its outcome.
#[derive(Debug, Clone, Copy)]
pub struct Scored<'a> {
    pub round: u32,
    pub table: u32,
    pub outcomes: &'a [Outcome],
}

/// A finalist at a table of a round: its points over its seats there.
struct TableSeat {
    finalist: usize,
    points: f64,
    seats: u32,
}

/// Each table's finalists, by round and table, with the sum of their scores and their seats
/// there.
fn per_table(games: &[Scored]) -> BTreeMap<(u32, u32), Vec<TableSeat>> {
    let mut tables: BTreeMap<(u32, u32), Vec<TableSeat>> = BTreeMap::new();
    for game in games {
        let seats = tables.entry((game.round, game.table)).or_default();
        for o in game.outcomes {
            match seats.iter_mut().find(|s| s.finalist == o.finalist) {
                Some(seat) => {
                    seat.points += o.score;
                    seat.seats += 1;
                }
                None => seats.push(TableSeat {
                    finalist: o.finalist,
                    points: o.score,
                    seats: 1,
                }),
            }
        }
    }
    tables
}

/// The table of `finalists` after `games` (in the order they are numbered).
///
/// A table of a round, not a game, is what the fit counts: the games of a table share one
/// seed, each finalist in each seat once, so they share that seed's luck (in the Grid-Routing
/// Battle, the grid decides how much everyone at it can score) and are not independent. Read
/// one by one, they would make the intervals narrower than the games warrant and call pairs
/// apart too soon. So each table is fitted as one game whose scores are each finalist's mean
/// over its seats, as chess engine testers score a pair of games from one opening with the
/// colours reversed as one outcome (fastchess's and cutechess's pentanomial statistics).
pub fn table(ranking: Ranking, finalists: usize, games: &[Scored]) -> Table {
    let mut played = vec![0u32; finalists];
    for game in games {
        for o in game.outcomes {
            played[o.finalist] += 1;
        }
    }
    let mut fitted = Games::new(ranking);
    for seats in per_table(games).values() {
        let means: Vec<(usize, f64)> = seats
            .iter()
            .map(|s| (s.finalist, s.points / f64::from(s.seats)))
            .collect();
        fitted.add(&means);
    }
    let fit = ranking::fit(&fitted, &vec![ranking::Start::default(); finalists]);
    let mut order: Vec<Entry> = (0..finalists)
        .map(|f| Entry {
            id: f,
            value: Some(fit.strengths[f].value),
            interval: fit.strengths[f].interval,
            games: played[f],
        })
        .collect();
    ranking::in_order(&mut order);
    let mut lines: Vec<Line> = Vec::with_capacity(finalists);
    for (i, entry) in order.iter().enumerate() {
        let value = entry.value.unwrap_or(0.0);
        let next = order.get(i + 1);
        let lead = next.map(|n| value - n.value.unwrap_or(0.0));
        let apart_from_next = next.map(|n| ranking::apart(entry, n));
        let place = match lines.last() {
            Some(above) if above.apart_from_next == Some(false) => above.place,
            _ => i + 1,
        };
        lines.push(Line {
            place,
            finalist: entry.id,
            value,
            interval: entry.interval,
            games: entry.games,
            lead,
            apart_from_next,
        });
    }
    let values: Vec<f64> = (0..finalists).map(|f| fit.strengths[f].value).collect();
    let (matrix_is, expected): (&str, fn(f64, f64) -> f64) = match ranking {
        Ranking::Placement => (
            "the chance the row's finalist finishes ahead of the column's at a table of the two, \
             each in each seat once (from their ratings on the Elo scale)",
            |a, b| 1.0 / (1.0 + 10f64.powf((b - a) / 400.0)),
        ),
        Ranking::Points => (
            "the row's finalist's points a game against average opponents less the column's",
            |a, b| a - b,
        ),
    };
    let matrix = values
        .iter()
        .map(|&a| values.iter().map(|&b| expected(a, b)).collect())
        .collect();
    Table {
        lines,
        matrix_is: matrix_is.to_string(),
        matrix,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each game its own table, as a final of one seat a table would play.
    fn scored(games: &[Vec<Outcome>]) -> Vec<Scored<'_>> {
        games
            .iter()
            .enumerate()
            .map(|(k, outcomes)| Scored {
                round: 1,
                table: k as u32,
                outcomes,
            })
            .collect()
    }

    fn duel(winner: usize, loser: usize) -> Vec<Outcome> {
        vec![
            Outcome {
                finalist: winner,
                score: 1.0,
            },
            Outcome {
                finalist: loser,
                score: 0.0,
            },
        ]
    }

    #[test]
    fn a_clear_order_is_apart_and_even_players_share_a_place() {
        // 0 beats everyone, 1 and 2 split their games and both beat 3.
        let mut games = Vec::new();
        for _ in 0..30 {
            for (w, l) in [(0, 1), (0, 2), (0, 3), (1, 3), (2, 3), (1, 2), (2, 1)] {
                games.push(duel(w, l));
            }
        }
        let table = table(Ranking::Placement, 4, &scored(&games));
        let order: Vec<usize> = table.lines.iter().map(|l| l.finalist).collect();
        assert_eq!(order[0], 0);
        assert_eq!(order[3], 3);
        let places: Vec<usize> = table.lines.iter().map(|l| l.place).collect();
        assert_eq!(places, [1, 2, 2, 4], "{table:?}");
        assert!(!table.sure());
        assert_eq!(table.unseparated().len(), 1);
        assert!(table.matrix[0][3] > 0.9 && table.matrix[3][0] < 0.1);
        assert!((table.matrix[1][2] - 0.5).abs() < 0.05);
        // The same games give the same table, bit for bit.
        let again = super::table(Ranking::Placement, 4, &scored(&games));
        assert_eq!(
            serde_json::to_string(&table).unwrap(),
            serde_json::to_string(&again).unwrap()
        );
    }

    #[test]
    fn a_tables_games_that_share_its_luck_count_once() {
        // Points games of two whose table decides the scores: each table's rotations are the
        // same game again. Played twice, a table is no surer than played once.
        let games: Vec<Vec<Outcome>> = (0..12)
            .map(|k| {
                let luck = f64::from(k % 4) * 50.0;
                vec![
                    Outcome {
                        finalist: 0,
                        score: luck + 10.0,
                    },
                    Outcome {
                        finalist: 1,
                        score: luck,
                    },
                ]
            })
            .collect();
        let once = table(Ranking::Points, 2, &scored(&games));
        let twice: Vec<Scored> = games
            .iter()
            .enumerate()
            .flat_map(|(k, outcomes)| {
                let seat = Scored {
                    round: 1,
                    table: k as u32,
                    outcomes,
                };
                [seat, seat]
            })
            .collect();
        let twice = table(Ranking::Points, 2, &twice);
        for (a, b) in once.lines.iter().zip(&twice.lines) {
            assert_eq!(a.finalist, b.finalist);
            assert!((a.value - b.value).abs() < 1e-9, "{once:?} {twice:?}");
            assert!((a.interval - b.interval).abs() < 1e-9, "{once:?} {twice:?}");
            assert_eq!(b.games, 2 * a.games);
        }
    }

    #[test]
    fn few_games_separate_nothing() {
        let games = vec![duel(0, 1), duel(1, 2)];
        let table = table(Ranking::Placement, 3, &scored(&games));
        assert!(table.lines.iter().all(|l| l.place == 1), "{table:?}");
    }
}
