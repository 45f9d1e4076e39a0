//! What `hill run` adds to the history it keeps in memory for each game it rated: the game's
//! seats and its line-up's count as the rating left them.

use super::{Connection, lineup_key};
use crate::matchmaking::{History, Met};

/// Adds the rated `games` to `history` as the store counted them (each game's seats, in
/// order, and its line-up's count now), so that `history` stays what [`super::history`] would
/// read afresh.
pub(crate) fn add_rated(
    db: &dyn Connection,
    games: &[u32],
    history: &mut History,
) -> anyhow::Result<()> {
    for &game in games {
        let seats = db
            .query(
                "SELECT bot, score FROM results WHERE game = ?1 ORDER BY seat",
                &[game.into()],
            )?
            .iter()
            .map(|r| Ok((r.int("bot")? as usize, r.real("score")?)))
            .collect::<anyhow::Result<Vec<(usize, f64)>>>()?;
        let versions: Vec<usize> = seats.iter().map(|s| s.0).collect();
        let lineup = match db.row(
            "SELECT games, alike FROM hill_lineups WHERE lineup = ?1",
            &[lineup_key(&versions).into()],
        )? {
            Some(r) => Met {
                games: r.int("games")? as u32,
                alike: r.int("alike")? as u32,
            },
            None => Met::default(),
        };
        history.record_rated(&seats, lineup);
    }
    Ok(())
}
