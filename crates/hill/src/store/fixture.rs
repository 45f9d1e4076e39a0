//! A small hill for unit tests: a tournament's database with the hill's tables and five active
//! versions, `{prefix}0 v1` to `{prefix}4 v1`, with no games.

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
