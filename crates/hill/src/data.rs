//! A learning bot's data on a hill (`koth_bot::data`): its latest version's, which a new
//! version starts from unless its author asks for a clean start (`fresh_data`); the owner's
//! wipe; and its author's download, with their token, as a `.tar.gz` — no one else's.

use koth_tournament::store::Store;

use super::logs::{Denied, authorized};

/// The header of a data download naming the snapshot's digest.
pub const DIGEST_HEADER: &str = "x-koth-data-digest";

/// Empties bot `name`'s data: its next game starts from an empty folder. Returns what to say.
pub(crate) fn wipe(store: &Store, name: &str) -> anyhow::Result<String> {
    let shown = koth_base::text::shown(name);
    let Some((id, learns)) = crate::store::latest_version(store, name)? else {
        anyhow::bail!("the hill has no bot called {shown:?}");
    };
    if !learns {
        anyhow::bail!("{shown} keeps no data (its bot.toml asks for none)");
    }
    Ok(if store.wipe_data(id)? {
        format!("{shown}'s data is wiped: its next game starts from an empty data folder")
    } else {
        format!("{shown}'s data was empty already")
    })
}

/// Bot `name`'s data now, for the holder of `token` if the bot is theirs: its digest and the
/// snapshot, a `.tar.gz`.
pub fn read(
    store: &Store,
    name: &str,
    token: Option<&str>,
) -> anyhow::Result<Result<(String, Vec<u8>), Denied>> {
    if let Err(denied) = authorized(store, name, token, "its data")? {
        return Ok(Err(denied));
    }
    let shown = koth_base::text::shown(name);
    let Some((id, learns)) = crate::store::latest_version(store, name)? else {
        return Ok(Err(Denied::Missing(format!(
            "the hill has no bot called {shown:?}"
        ))));
    };
    if !learns {
        return Ok(Err(Denied::Missing(format!(
            "{shown} keeps no data (its bot.toml asks for none)"
        ))));
    }
    let digest = store.data_digest(id)?;
    let snapshot = store
        .snapshot(&digest)?
        .ok_or_else(|| anyhow::anyhow!("the data {digest} of {shown} is not kept"))?;
    Ok(Ok((digest, snapshot)))
}
