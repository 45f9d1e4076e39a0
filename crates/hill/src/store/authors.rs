//! The hill's authors: the strangers who may send it bots, each known by a token.
//!
//! A token is 256 bits from the operating system's generator, shown once when the author is
//! added; the database keeps only its SHA-256, so a copy of the database lets no one submit. A
//! revoked author's token is refused from the next request on. A bot's name belongs to the
//! author who first submitted it (`hill_bot_owners`, claimed in the same transaction as that
//! submission, so two authors racing for a new name cannot both get it); a name the owner added
//! with `koth hill add` belongs to the owner.

use anyhow::bail;

pub use koth_tournament::store::sql::{Connection, Value};

use super::now;

const TABLES: &str = "
CREATE TABLE IF NOT EXISTS hill_authors (
    name TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, added_at BIGINT NOT NULL,
    revoked_at BIGINT);
CREATE TABLE IF NOT EXISTS hill_bot_owners (
    bot TEXT PRIMARY KEY, author TEXT NOT NULL);
";

/// The prefix of every token, so one pasted in the wrong place is recognisable.
const TOKEN_PREFIX: &str = "koth_";

/// Creates the authors' tables if they are not there.
pub(crate) fn create_tables(db: &dyn Connection) -> anyhow::Result<()> {
    db.batch(TABLES)
}

/// An author as `author list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Author {
    pub name: String,
    pub added_at: i64,
    pub revoked: bool,
    /// The bots whose names are the author's.
    pub bots: Vec<String>,
}

/// Adds author `name` and returns its token, which is never shown again.
pub(crate) fn add(db: &dyn Connection, name: &str) -> anyhow::Result<String> {
    if let Err(problem) = koth_base::text::check_name(name) {
        bail!("the author's name {problem}");
    }
    let token = new_token()?;
    db.transaction(|db| {
        if db
            .row("SELECT 1 FROM hill_authors WHERE name = ?1", &[name.into()])?
            .is_some()
        {
            bail!("the hill already has an author named {name:?}");
        }
        db.execute(
            &format!(
                "INSERT INTO hill_authors (name, token_hash, added_at) VALUES (?1, ?2, {})",
                now(db.dialect())
            ),
            &[name.into(), hash(&token).into()],
        )?;
        Ok(())
    })?;
    Ok(token)
}

/// Every author, in the order they were added.
pub(crate) fn list(db: &dyn Connection) -> anyhow::Result<Vec<Author>> {
    let rows = db.query(
        "SELECT name, added_at, revoked_at FROM hill_authors ORDER BY added_at, name",
        &[],
    )?;
    let owners = db.query("SELECT author, bot FROM hill_bot_owners ORDER BY bot", &[])?;
    rows.iter()
        .map(|r| {
            let name = r.text("name")?;
            let bots = owners
                .iter()
                .filter(|o| o.text("author").is_ok_and(|a| a == name))
                .map(|o| o.text("bot"))
                .collect::<anyhow::Result<_>>()?;
            Ok(Author {
                added_at: r.int("added_at")?,
                revoked: !matches!(r.get("revoked_at")?, Value::Null),
                bots,
                name,
            })
        })
        .collect()
}

/// Revokes author `name`: its token is refused from now on; its bots stay on the hill.
pub(crate) fn revoke(db: &dyn Connection, name: &str) -> anyhow::Result<()> {
    let changed = db.execute(
        &format!(
            "UPDATE hill_authors SET revoked_at = {} WHERE name = ?1 AND revoked_at IS NULL",
            now(db.dialect())
        ),
        &[name.into()],
    )?;
    if changed == 0 {
        let known = db
            .row("SELECT 1 FROM hill_authors WHERE name = ?1", &[name.into()])?
            .is_some();
        if known {
            bail!("author {name:?} is already revoked");
        }
        bail!("the hill has no author named {name:?} (`koth hill author list` shows them)");
    }
    Ok(())
}

/// Whether `name` is an author the hill knows and has not revoked.
pub(crate) fn is_current(db: &dyn Connection, name: &str) -> anyhow::Result<bool> {
    Ok(db
        .row(
            "SELECT 1 FROM hill_authors WHERE name = ?1 AND revoked_at IS NULL",
            &[name.into()],
        )?
        .is_some())
}

/// The author whose token `token` is, unless it is unknown or revoked.
pub fn authenticate(db: &dyn Connection, token: &str) -> anyhow::Result<Option<String>> {
    if !token.starts_with(TOKEN_PREFIX) || token.len() > 200 {
        return Ok(None);
    }
    // Looked up by the token's hash, so the comparison never sees the token itself.
    db.row(
        "SELECT name FROM hill_authors WHERE token_hash = ?1 AND revoked_at IS NULL",
        &[hash(token).into()],
    )?
    .map(|r| r.text("name"))
    .transpose()
}

/// Who owns bot name `bot`: `Some(author)`, `Some("")` for the hill's owner (a bot added with
/// `koth hill add`), `None` for a name the hill has never seen.
pub(crate) fn owner_of(db: &dyn Connection, bot: &str) -> anyhow::Result<Option<String>> {
    if let Some(row) = db.row(
        "SELECT author FROM hill_bot_owners WHERE bot = ?1",
        &[bot.into()],
    )? {
        return Ok(Some(row.text("author")?));
    }
    let owners = db.row("SELECT 1 FROM hill_versions WHERE name = ?1", &[bot.into()])?;
    Ok(owners.map(|_| String::new()))
}

/// Another bot's name that reads like `bot` (the same confusable skeleton, [`koth_base::text::look`])
/// without being it, if the hill has one: a stranger's "Win оr Blоck" (a Cyrillic "о") beside
/// the owner's "Win or Block".
pub(crate) fn look_alike(db: &dyn Connection, bot: &str) -> anyhow::Result<Option<String>> {
    let look = koth_base::text::look(bot);
    let names = db.query(
        "SELECT bot FROM hill_bot_owners UNION SELECT name FROM hill_versions",
        &[],
    )?;
    for row in names {
        let name = row.text("bot")?;
        if name != bot && koth_base::text::look(&name) == look {
            return Ok(Some(name));
        }
    }
    Ok(None)
}

/// Claims bot name `bot` for `author` if no one has it; inside the caller's transaction.
/// Returns whether the name is now the author's.
pub(crate) fn claim(db: &dyn Connection, bot: &str, author: &str) -> anyhow::Result<bool> {
    match owner_of(db, bot)? {
        Some(owner) => Ok(owner == author),
        None => {
            db.execute(
                "INSERT INTO hill_bot_owners (bot, author) VALUES (?1, ?2)",
                &[bot.into(), author.into()],
            )?;
            Ok(true)
        }
    }
}

fn new_token() -> anyhow::Result<String> {
    use rand::TryRng;
    let mut bytes = [0u8; 32];
    rand::rngs::SysRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| anyhow::anyhow!("the system's random generator failed: {e}"))?;
    Ok(format!("{TOKEN_PREFIX}{}", koth_bot::digest::hex(&bytes)))
}

fn hash(token: &str) -> String {
    koth_bot::digest::sha256_hex(token.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> (tempfile::TempDir, koth_tournament::store::Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = koth_tournament::store::Store::create(
            &dir.path().join("results.sqlite"),
            &[],
            &[],
            &[],
        )
        .unwrap();
        crate::store::create_tables(&store).unwrap();
        create_tables(&store).unwrap();
        (dir, store)
    }

    #[test]
    fn a_token_lets_its_author_in_until_revoked_and_only_its_hash_is_kept() {
        let (_dir, store) = db();
        let db: &dyn Connection = &store;
        let token = add(db, "ada").unwrap();
        assert!(
            token.starts_with("koth_") && token.len() == 5 + 64,
            "{token}"
        );
        assert_ne!(token, add(db, "bob").unwrap());
        assert_eq!(
            authenticate(&store, &token).unwrap().as_deref(),
            Some("ada")
        );
        assert_eq!(authenticate(&store, "koth_00").unwrap(), None);
        let stored = db
            .query("SELECT token_hash FROM hill_authors", &[])
            .unwrap();
        assert!(
            stored
                .iter()
                .all(|r| r.text("token_hash").unwrap() != token)
        );
        assert!(add(db, "ada").unwrap_err().to_string().contains("already"));
        revoke(db, "ada").unwrap();
        assert_eq!(authenticate(&store, &token).unwrap(), None);
        assert!(
            revoke(db, "carl")
                .unwrap_err()
                .to_string()
                .contains("no author")
        );
        let authors = list(db).unwrap();
        assert_eq!(authors.len(), 2);
        assert!(authors.iter().any(|a| a.name == "ada" && a.revoked));
    }

    #[test]
    fn a_name_belongs_to_its_first_author() {
        let (_dir, store) = db();
        let db: &dyn Connection = &store;
        assert!(claim(db, "Fork", "ada").unwrap());
        assert!(claim(db, "Fork", "ada").unwrap());
        assert!(!claim(db, "Fork", "bob").unwrap());
        assert_eq!(owner_of(db, "Fork").unwrap().as_deref(), Some("ada"));
        assert_eq!(owner_of(db, "Other").unwrap(), None);
    }
}
