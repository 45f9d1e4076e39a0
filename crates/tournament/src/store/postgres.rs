//! Tournaments in PostgreSQL, shared by `koth worker` processes on many machines.
//!
//! A database holds any number of tournaments. `koth_tournaments` lists them by name; each has
//! a schema of its own (`koth_t<id>`) with the very tables of a SQLite tournament file, so a
//! person's query of one works on the other, and a connection to a tournament only sets its
//! `search_path`. A tournament is submitted in one transaction (PostgreSQL's DDL is
//! transactional): it is there whole, schedule and all, or not at all.

use anyhow::Context;

use super::sql::{Connection, Postgres, describe};
use super::{ScheduledGame, Store, schema};
use koth_bot::BotSpec;

/// The list of a database's tournaments, in the `public` schema.
const REGISTRY: &str = "CREATE TABLE IF NOT EXISTS public.koth_tournaments (
    id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE, schema_name TEXT NOT NULL,
    submitted TIMESTAMPTZ NOT NULL DEFAULT now())";

/// Whether `text` is a PostgreSQL address (`postgres://user@host:port/db`).
pub fn is_url(text: &str) -> bool {
    text.starts_with("postgres://") || text.starts_with("postgresql://")
}

/// `url` without its password, for messages.
pub fn shown(url: &str) -> String {
    match url.parse::<postgres::Config>() {
        Ok(config) if config.get_password().is_some() => {
            let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
            let host = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
            let user = config.get_user().unwrap_or_default();
            format!("{scheme}://{user}:***@{host}")
        }
        _ => url.to_string(),
    }
}

/// A new connection to the database at `url`.
fn connect(url: &str) -> anyhow::Result<Postgres> {
    anyhow::ensure!(
        is_url(url),
        "--db {url:?} is not a PostgreSQL address (postgres://user@host:port/database)"
    );
    let config: postgres::Config = url
        .parse()
        .map_err(|e: postgres::Error| anyhow::anyhow!("--db {}: {}", shown(url), describe(&e)))?;
    Postgres::connect(config, &shown(url))
}

/// One connection to the PostgreSQL database at `url`, for everything a process does there:
/// listing its tournaments and opening any number of them, each [`Store`] a handle on the same
/// connection ([`Postgres::in_schema`]). A worker holds one, so a server's connections are
/// its workers (`docs/workers.md`).
pub struct Database {
    db: Postgres,
    url: String,
}

impl Database {
    pub fn connect(url: &str) -> anyhow::Result<Database> {
        Ok(Database {
            db: connect(url)?,
            url: url.to_string(),
        })
    }

    /// The names of the database's tournaments, oldest first.
    pub fn tournaments(&self) -> anyhow::Result<Vec<String>> {
        Ok(tournaments_in(&self.db)?
            .into_iter()
            .map(|(n, _)| n)
            .collect())
    }

    /// Opens tournament `name` on this connection, bringing its tables up to this koth's
    /// schema.
    pub fn open(&self, name: &str) -> anyhow::Result<Store> {
        Store::open_address(&self.db, find(&self.db, &self.url, name)?)
    }
}

/// Where tournament `name` lives in the database at `url`, for messages and new connections.
#[derive(Debug, Clone)]
pub(crate) struct Address {
    pub url: String,
    pub name: String,
    schema_name: String,
}

impl Address {
    pub(crate) fn describe(&self) -> String {
        format!("tournament {} in {}", self.name, shown(&self.url))
    }

    /// The channel of [`Store::live_channel`]: one per tournament, as a database's
    /// notifications reach every connection that listens, whatever its schema.
    pub(crate) fn live_channel(&self) -> String {
        format!("koth_live_{}", self.schema_name)
    }
}

/// A connection of its own that hears which of a tournament's games in progress its workers
/// sent records of ([`Store::live_channel`]), for a server that streams them: it reads a game's
/// rows when told, not on a timer.
///
/// A plain `postgres` client, not a [`Postgres`] handle: a handle's thread runs one call at a
/// time, and a wait for notices would hold every other call up. Like a handle's, the client
/// drives a runtime of its own: it is made and used on a thread outside any async runtime.
pub struct LiveNotices {
    client: postgres::Client,
}

/// The most notices [`LiveNotices::wait`] takes at once.
const MOST_TOLD: usize = 10_000;

impl LiveNotices {
    /// Listens on `channel` of the database at `url`.
    pub fn listen(url: &str, channel: &str) -> anyhow::Result<LiveNotices> {
        let mut client = postgres::Client::connect(url, postgres::NoTls)
            .map_err(|e| anyhow::anyhow!("cannot connect to {}: {}", shown(url), describe(&e)))?;
        // A channel is an identifier: quoted, whatever the schema's name.
        client
            .batch_execute(&format!("LISTEN \"{}\"", channel.replace('"', "\"\"")))
            .map_err(|e| anyhow::anyhow!("cannot listen on {}: {}", shown(url), describe(&e)))?;
        Ok(LiveNotices { client })
    }

    /// The games told of within `timeout` (waited for only while none is), each once, with
    /// every notice pending then; none if none came. An error once the connection is lost.
    pub fn wait(&mut self, timeout: std::time::Duration) -> anyhow::Result<Vec<u32>> {
        use postgres::fallible_iterator::FallibleIterator;
        let lost = |e: postgres::Error| anyhow::anyhow!("{}", describe(&e));
        let mut told = Vec::new();
        {
            let mut notices = self.client.notifications();
            let first = notices.timeout_iter(timeout).next().map_err(lost)?;
            if let Some(first) = first {
                told.push(first);
                // Those pending now, not those that keep coming: a flood is read the next time.
                let mut pending = notices.iter();
                while told.len() < MOST_TOLD
                    && let Some(notice) = pending.next().map_err(lost)?
                {
                    told.push(notice);
                }
            }
        }
        let mut games = Vec::new();
        for notice in told {
            if let Ok(game) = notice.payload().parse::<u32>()
                && !games.contains(&game)
            {
                games.push(game);
            }
        }
        anyhow::ensure!(
            !self.client.is_closed(),
            "the connection that listens for games' records was lost"
        );
        Ok(games)
    }
}

impl Store {
    /// Records a new tournament in the PostgreSQL database at `url`: its `meta`, its bots with
    /// their content hashes, and its whole schedule. Its name is `name`, or `name-2`, `name-3`…
    /// if the database has one by that name already.
    pub fn submit(
        url: &str,
        name: &str,
        meta: &[(&str, String)],
        bots: &[BotSpec],
        hashes: &[String],
        schedule: &[ScheduledGame],
    ) -> anyhow::Result<Store> {
        let connection = connect(url)?;
        let db: &dyn Connection = &connection;
        let address = db.transaction(|db| {
            // Two submissions at once would race on creating the registry and on names.
            db.query("SELECT pg_advisory_xact_lock(4242)::TEXT", &[])?;
            db.batch(REGISTRY)?;
            let taken: Vec<String> = db
                .query("SELECT name FROM public.koth_tournaments", &[])?
                .iter()
                .map(|r| r.text("name"))
                .collect::<anyhow::Result<_>>()?;
            let name = (1..)
                .map(|n| match n {
                    1 => name.to_string(),
                    n => format!("{name}-{n}"),
                })
                .find(|candidate| !taken.contains(candidate))
                .expect("names are endless");
            let id = db
                .value(
                    "INSERT INTO public.koth_tournaments (name, schema_name) VALUES (?1, '')
                     RETURNING id",
                    &[name.as_str().into()],
                )?
                .int()?;
            let schema_name = format!("koth_t{id}");
            db.execute(
                "UPDATE public.koth_tournaments SET schema_name = ?1 WHERE id = ?2",
                &[schema_name.as_str().into(), id.into()],
            )?;
            db.batch(&format!(
                "CREATE SCHEMA {schema_name}; SET LOCAL search_path TO {schema_name}"
            ))?;
            let mut meta = meta.to_vec();
            if let Some(entry) = meta.iter_mut().find(|(key, _)| *key == "name") {
                entry.1 = name.clone();
            }
            Store::write_tournament(db, &meta, bots, Some(hashes), schedule)?;
            Ok(Address {
                url: url.to_string(),
                name,
                schema_name,
            })
        })?;
        Store::open_address(&connection, address)
    }

    /// Opens tournament `name` of the PostgreSQL database at `url`, bringing its tables up to
    /// this koth's schema.
    pub fn open_postgres(url: &str, name: &str) -> anyhow::Result<Store> {
        Database::connect(url)?.open(name)
    }

    /// Opens tournament `name` of the PostgreSQL database at `url` to read only, as the
    /// dashboard does while workers write it: the connection refuses any change, so a
    /// tournament of an older schema is refused rather than brought up to date.
    pub fn open_postgres_read_only(url: &str, name: &str) -> anyhow::Result<Store> {
        let connection = connect(url)?;
        let address = find(&connection, url, name)?;
        let db = connection.in_schema(&address.schema_name);
        db.batch("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")?;
        let version = schema::version(&db)?;
        anyhow::ensure!(
            version == schema::LATEST,
            "{} has schema version {version}, and this koth reads version {}: {}",
            address.describe(),
            schema::LATEST,
            if version < schema::LATEST {
                format!(
                    "`koth tournament status --db {} {name}` brings it up to date",
                    shown(url)
                )
            } else {
                "use a newer koth".to_string()
            }
        );
        Ok(Store::new(Box::new(db), super::Source::Postgres(address)))
    }

    /// The address of a store in a PostgreSQL database and the name it has there, for the
    /// commands that name it (`--db URL NAME`), the password left out; `None` for a SQLite one.
    pub fn shared_name(&self) -> Option<(String, &str)> {
        match &self.source {
            super::Source::Postgres(address) => Some((shown(&address.url), &address.name)),
            super::Source::Sqlite(_) => None,
        }
    }

    /// The tournament at `address`, on a handle of `connection`.
    fn open_address(connection: &Postgres, address: Address) -> anyhow::Result<Store> {
        let db = connection.in_schema(&address.schema_name);
        schema::migrate(&db).with_context(|| format!("cannot update {}", address.describe()))?;
        Ok(Store::new(Box::new(db), super::Source::Postgres(address)))
    }
}

/// Where tournament `name` of the PostgreSQL database at `url` (connected as `db`) is; an error
/// listing the database's tournaments if it has none of that name.
fn find(db: &Postgres, url: &str, name: &str) -> anyhow::Result<Address> {
    let known = tournaments_in(db)?;
    let Some(schema_name) = known
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, s)| s.clone())
    else {
        let names: Vec<&str> = known.iter().map(|(n, _)| n.as_str()).collect();
        anyhow::bail!(
            "{} has no tournament {name:?}; it has {}",
            shown(url),
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        );
    };
    Ok(Address {
        url: url.to_string(),
        name: name.to_string(),
        schema_name,
    })
}

/// Each tournament's name and schema, oldest first (none before the first submission).
fn tournaments_in(db: &dyn Connection) -> anyhow::Result<Vec<(String, String)>> {
    // The catalog by name, not `information_schema.tables`: a view of a dozen catalogs whose
    // planning, on a connection's first use, cost 110-160 ms of `koth leaderboard --db`'s
    // 0.5 s at a load of 8 (docs/benchmarks.md, "Fifth pass (2026-11-30): PostgreSQL's claims
    // and records").
    let exists = db
        .value(
            "SELECT to_regclass('public.koth_tournaments') IS NOT NULL",
            &[],
        )?
        .int()?;
    if exists == 0 {
        return Ok(Vec::new());
    }
    db.query(
        "SELECT name, schema_name FROM public.koth_tournaments ORDER BY id",
        &[],
    )?
    .iter()
    .map(|r| Ok((r.text("name")?, r.text("schema_name")?)))
    .collect()
}
