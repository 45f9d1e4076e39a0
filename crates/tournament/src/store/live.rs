//! A shared database's records of games in progress: the lines of each game's record
//! (`replay.jsonl`), sent on by the worker that plays it as they are written, for servers on
//! other machines to stream (schema 9), each batch told on the tournament's channel (`NOTIFY`);
//! forgotten once the game's files are stored.

use super::{Connection, Source, Store};

impl Store {
    /// Sends lines `first`, `first + 1`… of game `game`'s record, as it is played here, to the
    /// servers that stream it from this database (schema 9), and tells them
    /// ([`Store::tell_live`]).
    pub fn add_live_records(&self, game: u32, first: u64, lines: &[String]) -> anyhow::Result<()> {
        self.db.transaction(|db| {
            if self.is_shared() {
                // Rows a game's stored files replace, sent up to 50 times a second for each
                // game in progress: their commit need not wait for the disk's flush (a crash
                // loses at most the last of them, and the game is played again anyway).
                db.batch("SET LOCAL synchronous_commit TO OFF")?;
            }
            for (seq, line) in (first..).zip(lines) {
                db.execute(
                    "INSERT INTO live_records (game, seq, line) VALUES (?1, ?2, ?3)
                     ON CONFLICT (game, seq) DO UPDATE SET line = ?3",
                    &[game.into(), (seq as i64).into(), line.as_str().into()],
                )?;
            }
            self.tell_live(db, game)
        })
    }

    /// Tells the servers that follow game `game` from this PostgreSQL database that its rows
    /// changed, on the tournament's channel ([`Store::live_channel`]) with the game's number:
    /// they read its rows when told rather than every few milliseconds. Sent with the
    /// transaction `db` holds, so a server told reads rows already committed. Nothing for a
    /// SQLite file, whose games a server follows through their own files.
    fn tell_live(&self, db: &dyn Connection, game: u32) -> anyhow::Result<()> {
        if let Some(channel) = self.live_channel() {
            db.execute(
                "SELECT pg_notify(?1, ?2)",
                &[channel.as_str().into(), game.to_string().as_str().into()],
            )?;
        }
        Ok(())
    }

    /// The PostgreSQL channel on which this tournament's workers say which game's live records
    /// changed (`NOTIFY`, one per batch of rows, its payload the game's number); `None` for a
    /// SQLite file.
    pub fn live_channel(&self) -> Option<String> {
        match &self.source {
            Source::Postgres(address) => Some(address.live_channel()),
            Source::Sqlite(_) => None,
        }
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
        // Told too: once its result is recorded, a server that follows it ends its stream now.
        self.db.transaction(|db| {
            db.execute("DELETE FROM live_records WHERE game = ?1", &[game.into()])?;
            self.tell_live(db, game)
        })
    }
}
