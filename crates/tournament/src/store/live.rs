//! A shared database's records of games in progress: the lines of each game's record
//! (`replay.jsonl`), sent on by the worker that plays it as they are written, for servers on
//! other machines to stream (schema 9); forgotten once the game's files are stored.

use super::Store;

impl Store {
    /// Sends lines `first`, `first + 1`… of game `game`'s record, as it is played here, to the
    /// servers that stream it from this database (schema 9).
    pub fn add_live_records(&self, game: u32, first: u64, lines: &[String]) -> anyhow::Result<()> {
        self.db.transaction(|db| {
            for (seq, line) in (first..).zip(lines) {
                db.execute(
                    "INSERT INTO live_records (game, seq, line) VALUES (?1, ?2, ?3)
                     ON CONFLICT (game, seq) DO UPDATE SET line = ?3",
                    &[game.into(), (seq as i64).into(), line.as_str().into()],
                )?;
            }
            Ok(())
        })
    }

    /// The lines of game `game`'s record after line `after`, with their numbers, as the game's
    /// worker sent them so far.
    pub fn live_records(&self, game: u32, after: u64) -> anyhow::Result<Vec<(u64, String)>> {
        let rows = self.db.query(
            "SELECT seq, line FROM live_records WHERE game = ?1 AND seq > ?2 ORDER BY seq",
            &[game.into(), (after as i64).into()],
        )?;
        rows.iter()
            .map(|row| Ok((row.int("seq")? as u64, row.text("line")?)))
            .collect()
    }

    /// Forgets game `game`'s record lines: its files hold them once stored, and an attempt
    /// played again sends its own.
    pub fn drop_live_records(&self, game: u32) -> anyhow::Result<()> {
        self.db
            .execute("DELETE FROM live_records WHERE game = ?1", &[game.into()])?;
        Ok(())
    }
}
