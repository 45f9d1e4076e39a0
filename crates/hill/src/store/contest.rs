//! A contest's rows: its final's games (`hill_final`: each game's round and table, and the
//! game it plays again), and its manifest and result written once in `meta`.

use koth_tournament::schedule::ScheduledGame;
use koth_tournament::store::{self as tstore, GameState};

use super::{Connection, now};

/// A game of the final, with its state.
#[derive(Debug, Clone)]
pub(crate) struct FinalGameRow {
    pub game: u32,
    pub round: u32,
    pub table: u32,
    pub seed: u64,
    pub seats: Vec<usize>,
    pub state: GameState,
    /// Whether a later game plays it again (it failed by the harness).
    pub replayed: bool,
}

/// The final's games, in their order.
pub(crate) fn final_games(db: &dyn Connection) -> anyhow::Result<Vec<FinalGameRow>> {
    let rows = db.query(
        "SELECT f.game, f.round, f.tbl, g.seed, g.state,
             EXISTS (SELECT 1 FROM hill_final r WHERE r.replay_of = f.game) AS replayed
         FROM hill_final f JOIN games g ON g.idx = f.game ORDER BY f.game",
        &[],
    )?;
    let seats = db.query(
        "SELECT s.game, s.bot FROM seats s JOIN hill_final f ON f.game = s.game
         ORDER BY s.game, s.seat",
        &[],
    )?;
    let mut games = Vec::with_capacity(rows.len());
    let mut seat_rows = seats.iter().peekable();
    for r in &rows {
        let game = r.int("game")? as u32;
        let mut seated = Vec::new();
        while let Some(s) = seat_rows.next_if(|s| s.int("game").is_ok_and(|g| g as u32 == game)) {
            seated.push(s.int("bot")? as usize);
        }
        games.push(FinalGameRow {
            game,
            round: r.int("round")? as u32,
            table: r.int("tbl")? as u32,
            // Seeds are stored as their bits.
            seed: r.int("seed")? as u64,
            seats: seated,
            state: GameState::of_column(&r.text("state")?)?,
            replayed: r.int("replayed")? != 0,
        });
    }
    Ok(games)
}

/// Queues a game of the final: its seats and seed, why it is played (a hill game never rated
/// into the hill's table), its round and table, and the game it plays again if it does.
pub(crate) fn queue_final_game(
    db: &dyn Connection,
    game: &ScheduledGame,
    round: u32,
    table: u32,
    replay_of: Option<u32>,
    reason: &str,
) -> anyhow::Result<()> {
    db.transaction(|db| {
        tstore::insert_game(db, game)?;
        db.execute(
            &format!(
                "INSERT INTO hill_games (game, reason, rated, chosen_at)
                 VALUES (?1, ?2, 1, {})",
                now(db.dialect())
            ),
            &[game.index.into(), reason.into()],
        )?;
        db.execute(
            "INSERT INTO hill_final (game, round, tbl, replay_of) VALUES (?1, ?2, ?3, ?4)",
            &[
                game.index.into(),
                round.into(),
                table.into(),
                replay_of.map(i64::from).into(),
            ],
        )?;
        Ok(())
    })
}

/// Each seat's bot and score in game `game`, in seat order.
pub(crate) fn scores_of(db: &dyn Connection, game: u32) -> anyhow::Result<Vec<(usize, f64)>> {
    db.query(
        "SELECT bot, score FROM results WHERE game = ?1 ORDER BY seat",
        &[game.into()],
    )?
    .iter()
    .map(|r| Ok((r.int("bot")? as usize, r.real("score")?)))
    .collect()
}

/// How many attempts of the final's games failed by the harness (each played again).
pub(crate) fn final_harness_faults(db: &dyn Connection) -> anyhow::Result<u32> {
    Ok(db
        .value(
            "SELECT COUNT(*) FROM harness_faults h JOIN hill_final f ON f.game = h.game",
            &[],
        )?
        .int()? as u32)
}

/// Skips the ranked games not begun (at the close), through the tournament's store, which owns
/// the games; the final's games stay. Returns how many.
pub(crate) fn drop_ranked_queue(db: &dyn Connection) -> anyhow::Result<u64> {
    let finals: Vec<u32> = db
        .query("SELECT game FROM hill_final", &[])?
        .iter()
        .map(|row| Ok(row.int("game")? as u32))
        .collect::<anyhow::Result<_>>()?;
    tstore::skip_pending_except(db, &finals)
}
