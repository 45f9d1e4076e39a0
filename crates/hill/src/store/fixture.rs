//! A small hill for unit tests: a tournament's database with the hill's tables and five active
//! versions, `{prefix}0 v1` to `{prefix}4 v1`, with no games; and games recorded into one.

use std::path::Path;

use koth_tournament::store::Store;

use super::Connection;

pub(crate) fn five_active(dir: &Path, prefix: &str) -> Store {
    let meta = [("name", "h".to_string()), ("game", "tictactoe".to_string())];
    let store = Store::create(&dir.join("results.sqlite"), &meta, &[], &[]).unwrap();
    let db: &dyn Connection = &store;
    super::create_tables(db).unwrap();
    for id in 0..5usize {
        db.execute(
            "INSERT INTO bots (id, name, dir, command, origin) VALUES (?1, ?2, 'x', '[]', 't')",
            &[id.into(), format!("{prefix}{id} v1").into()],
        )
        .unwrap();
        db.execute(
            "INSERT INTO hill_versions (id, name, version, digest, state, added_at, mu, sigma,
                 games, faulted, counted_from)
             VALUES (?1, ?2, 1, 'd', 'active', 0, 25.0, 8.0, 0, 0, 0)",
            &[id.into(), format!("{prefix}{id}").into()],
        )
        .unwrap();
    }
    store
}

/// Records game `game` of `seats` (each its version, score and bad outputs), done and not rated.
pub(crate) fn record_unrated(db: &dyn Connection, game: u32, seats: &[(usize, f64, i64)]) {
    db.execute(
        "INSERT INTO games (idx, seed, state, attempts) VALUES (?1, 0, 'done', 1)",
        &[game.into()],
    )
    .unwrap();
    db.execute(
        "INSERT INTO hill_games (game, reason, rated, chosen_at) VALUES (?1, 'r', 0, 0)",
        &[game.into()],
    )
    .unwrap();
    for (seat, &(bot, score, bad_output)) in seats.iter().enumerate() {
        db.execute(
            "INSERT INTO results (game, seat, bot, score, status, faults, answers,
                 max_wall_ms, total_wall_ms, near_misses, bad_output_faults)
             VALUES (?1, ?2, ?3, ?4, 'finished', '[]', 1, 1.0, 1.0, 0, ?5)",
            &[
                game.into(),
                seat.into(),
                bot.into(),
                score.into(),
                bad_output.into(),
            ],
        )
        .unwrap();
    }
}
