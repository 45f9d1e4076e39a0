//! The two databases a tournament can live in, behind one small connection: SQLite (a file in
//! the tournament folder, the default) and PostgreSQL (shared by workers on many machines).
//!
//! The store's statements are written once, in the SQL both understand, with `?1`-style
//! parameters; the PostgreSQL connection rewrites those to `$1`. Values cross as [`Value`], so
//! the store reads a row the same way from either. What differs between the two (column types,
//! the claim's row lock, the clock) is spelt out where it differs, under [`Dialect`].

use std::collections::HashMap;
use std::sync::{Arc, mpsc};

use anyhow::Context;

/// Which database a connection speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// One value of a parameter or a column.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Bytes(Vec<u8>),
}

impl Value {
    pub fn int(&self) -> anyhow::Result<i64> {
        match self {
            Value::Int(v) => Ok(*v),
            other => anyhow::bail!("expected an integer, found {other:?}"),
        }
    }

    pub(crate) fn opt_int(&self) -> anyhow::Result<Option<i64>> {
        match self {
            Value::Null => Ok(None),
            other => other.int().map(Some),
        }
    }

    pub fn real(&self) -> anyhow::Result<f64> {
        match self {
            Value::Real(v) => Ok(*v),
            Value::Int(v) => Ok(*v as f64),
            other => anyhow::bail!("expected a number, found {other:?}"),
        }
    }

    pub(crate) fn opt_real(&self) -> anyhow::Result<Option<f64>> {
        match self {
            Value::Null => Ok(None),
            other => other.real().map(Some),
        }
    }

    pub fn text(&self) -> anyhow::Result<String> {
        match self {
            Value::Text(v) => Ok(v.clone()),
            other => anyhow::bail!("expected text, found {other:?}"),
        }
    }

    pub fn opt_text(&self) -> anyhow::Result<Option<String>> {
        match self {
            Value::Null => Ok(None),
            other => other.text().map(Some),
        }
    }

    pub fn bytes(&self) -> anyhow::Result<&[u8]> {
        match self {
            Value::Bytes(v) => Ok(v),
            other => anyhow::bail!("expected bytes, found {other:?}"),
        }
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}
impl From<u32> for Value {
    fn from(v: u32) -> Value {
        Value::Int(v.into())
    }
}
impl From<usize> for Value {
    fn from(v: usize) -> Value {
        Value::Int(v as i64)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Real(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.to_string())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Text(v)
    }
}
impl From<Vec<u8>> for Value {
    fn from(v: Vec<u8>) -> Value {
        Value::Bytes(v)
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

/// One row a query returned, read by column name: a statement's column is its name, or the
/// alias an expression is given (`COUNT(*) AS games`), the same in either database.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Row {
    columns: Arc<[String]>,
    values: Vec<Value>,
}

impl Row {
    fn new(columns: Arc<[String]>, values: Vec<Value>) -> Row {
        Row { columns, values }
    }

    /// The value of the column called `column`.
    pub fn get(&self, column: &str) -> anyhow::Result<&Value> {
        self.columns
            .iter()
            .position(|c| c == column)
            .map(|i| &self.values[i])
            .with_context(|| format!("no column {column:?} among {:?}", self.columns))
    }

    pub fn int(&self, column: &str) -> anyhow::Result<i64> {
        self.get(column)?
            .int()
            .with_context(|| column_label(column))
    }

    pub fn opt_int(&self, column: &str) -> anyhow::Result<Option<i64>> {
        self.get(column)?
            .opt_int()
            .with_context(|| column_label(column))
    }

    pub fn real(&self, column: &str) -> anyhow::Result<f64> {
        self.get(column)?
            .real()
            .with_context(|| column_label(column))
    }

    pub fn opt_real(&self, column: &str) -> anyhow::Result<Option<f64>> {
        self.get(column)?
            .opt_real()
            .with_context(|| column_label(column))
    }

    pub fn text(&self, column: &str) -> anyhow::Result<String> {
        self.get(column)?
            .text()
            .with_context(|| column_label(column))
    }

    pub fn opt_text(&self, column: &str) -> anyhow::Result<Option<String>> {
        self.get(column)?
            .opt_text()
            .with_context(|| column_label(column))
    }

    pub fn bytes(&self, column: &str) -> anyhow::Result<&[u8]> {
        self.get(column)?
            .bytes()
            .with_context(|| column_label(column))
    }

    /// A count or a small index: a non-negative integer column.
    pub fn count(&self, column: &str) -> anyhow::Result<u32> {
        let value = self.int(column)?;
        u32::try_from(value).with_context(|| format!("column {column:?}: {value} is no count"))
    }
}

/// What an error reading `column` of a row says first: which value a damaged database holds
/// wrong.
fn column_label(column: &str) -> String {
    format!("column {column:?}")
}

/// A connection to a tournament's database. Statements use `?1`-style parameters.
pub trait Connection: Send {
    fn dialect(&self) -> Dialect;
    /// Runs one statement; returns how many rows it changed.
    fn execute(&self, sql: &str, params: &[Value]) -> anyhow::Result<u64>;
    fn query(&self, sql: &str, params: &[Value]) -> anyhow::Result<Vec<Row>>;
    /// Runs `each` on every row `sql` returns, in order. SQLite's holds one row at a time,
    /// where [`Connection::query`] holds them all: a leaderboard's 10,000 versions' rows, made
    /// at once and thrown away, were a tenth of `koth leaderboard`'s time (docs/benchmarks.md,
    /// the hill at 10,000 versions).
    fn each_row(
        &self,
        sql: &str,
        params: &[Value],
        each: &mut dyn FnMut(&Row) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        for row in self.query(sql, params)? {
            each(&row)?;
        }
        Ok(())
    }
    /// Runs statements separated by `;`, without parameters.
    fn batch(&self, sql: &str) -> anyhow::Result<()>;
}

impl dyn Connection + '_ {
    /// The first row `sql` returns, if any.
    pub fn row(&self, sql: &str, params: &[Value]) -> anyhow::Result<Option<Row>> {
        Ok(self.query(sql, params)?.into_iter().next())
    }

    /// The one column of the one row `sql` returns (a count, an average).
    pub fn value(&self, sql: &str, params: &[Value]) -> anyhow::Result<Value> {
        let row = self
            .row(sql, params)?
            .with_context(|| format!("no row from {sql}"))?;
        anyhow::ensure!(row.values.len() == 1, "{sql} returns more than one column");
        Ok(row.values.into_iter().next().unwrap_or(Value::Null))
    }

    /// Runs `work` in one transaction: all of it is written, or (on an error) none.
    pub fn transaction<T>(
        &self,
        work: impl FnOnce(&dyn Connection) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        // SQLite takes the write lock at once, so two writers never deadlock upgrading a read.
        self.transaction_from(
            match self.dialect() {
                Dialect::Sqlite => "BEGIN IMMEDIATE",
                Dialect::Postgres => "BEGIN",
            },
            work,
        )
    }

    /// Runs `work` in one transaction whose commit does not wait for the disk: with
    /// PostgreSQL, `synchronous_commit` off, so a crash of the server may lose it (its log is
    /// flushed within a fraction of a second, and by any later commit that waits). Only for
    /// writes whose loss the database recovers from on its own, such as a claim: lost, its
    /// game is in the queue again and the worker's result for it is refused. A commit that
    /// waits costs a flush of the log, some milliseconds on a disk of a virtual machine. SQLite
    /// is as [`transaction`](Self::transaction).
    pub fn transaction_unflushed<T>(
        &self,
        work: impl FnOnce(&dyn Connection) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        match self.dialect() {
            Dialect::Sqlite => self.transaction(work),
            Dialect::Postgres => {
                self.transaction_from("BEGIN; SET LOCAL synchronous_commit TO OFF", work)
            }
        }
    }

    /// Runs `work` after `begin` (statements that open a transaction), then commits, or on an
    /// error rolls back.
    fn transaction_from<T>(
        &self,
        begin: &str,
        work: impl FnOnce(&dyn Connection) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        self.batch(begin)?;
        match work(self) {
            Ok(value) => {
                self.batch("COMMIT")?;
                Ok(value)
            }
            Err(err) => {
                let _ = self.batch("ROLLBACK");
                Err(err)
            }
        }
    }
}

/// SQLite through rusqlite.
pub struct Sqlite(pub rusqlite::Connection);

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match self {
            Value::Null => ValueRef::Null,
            Value::Int(v) => ValueRef::Integer(*v),
            Value::Real(v) => ValueRef::Real(*v),
            Value::Text(v) => ValueRef::Text(v.as_bytes()),
            Value::Bytes(v) => ValueRef::Blob(v),
        }))
    }
}

impl Connection for Sqlite {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn execute(&self, sql: &str, params: &[Value]) -> anyhow::Result<u64> {
        let mut stmt = self.0.prepare_cached(sql)?;
        Ok(stmt.execute(rusqlite::params_from_iter(params))? as u64)
    }

    fn query(&self, sql: &str, params: &[Value]) -> anyhow::Result<Vec<Row>> {
        let mut stmt = self.0.prepare_cached(sql)?;
        let names: Arc<[String]> = stmt.column_names().map(str::to_string).collect();
        let mut rows = stmt.query(rusqlite::params_from_iter(params))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            let mut values = Vec::with_capacity(names.len());
            read_values(row, names.len(), &mut values)?;
            out.push(Row::new(names.clone(), values));
        }
        Ok(out)
    }

    fn each_row(
        &self,
        sql: &str,
        params: &[Value],
        each: &mut dyn FnMut(&Row) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let mut stmt = self.0.prepare_cached(sql)?;
        let names: Arc<[String]> = stmt.column_names().map(str::to_string).collect();
        let columns = names.len();
        let mut rows = stmt.query(rusqlite::params_from_iter(params))?;
        // One row, its values read again for each row.
        let mut row = Row::new(names, Vec::with_capacity(columns));
        while let Some(next) = rows.next()? {
            row.values.clear();
            read_values(next, columns, &mut row.values)?;
            each(&row)?;
        }
        Ok(())
    }

    fn batch(&self, sql: &str) -> anyhow::Result<()> {
        Ok(self.0.execute_batch(sql)?)
    }
}

/// Appends the first `columns` values of SQLite's `row` to `values`.
fn read_values(row: &rusqlite::Row, columns: usize, values: &mut Vec<Value>) -> anyhow::Result<()> {
    use rusqlite::types::ValueRef;
    for i in 0..columns {
        values.push(match row.get_ref(i)? {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(v) => Value::Int(v),
            ValueRef::Real(v) => Value::Real(v),
            ValueRef::Text(v) => Value::Text(String::from_utf8_lossy(v).into_owned()),
            ValueRef::Blob(v) => Value::Bytes(v.to_vec()),
        });
    }
    Ok(())
}

/// PostgreSQL through the `postgres` client, with its statements prepared once per connection.
///
/// The client runs on a thread of its own and each call is sent to it: the `postgres` client
/// drives a runtime of its own, which must not run inside the match runtime of the thread that
/// calls the store (it would panic), and a blocking call from there is what SQLite's is anyway.
///
/// Handles made by [`Postgres::in_schema`] share the one connection, each on its own schema (a
/// tournament's), which the client switches its `search_path` to when a call of another comes:
/// a worker uses one connection for every tournament it plays. The handles of one connection
/// must be used from one thread at a time, as their transactions are not kept apart.
pub(crate) struct Postgres {
    jobs: mpsc::Sender<Job>,
    /// The schema this handle's statements run in; `None`: whichever the connection is in.
    schema: Option<String>,
}

type Job = Box<dyn FnOnce(&mut PostgresClient) + Send>;

struct PostgresClient {
    client: postgres::Client,
    /// Statements prepared, by schema and text (a statement's tables are its schema's).
    prepared: HashMap<(String, String), postgres::Statement>,
    /// The schema the connection's `search_path` was last set to.
    search_path: Option<String>,
}

impl Postgres {
    /// Connects to the database `config` names; `shown` names it in messages.
    pub(crate) fn connect(config: postgres::Config, shown: &str) -> anyhow::Result<Postgres> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let (ready, connected) = mpsc::channel();
        std::thread::Builder::new()
            .name("postgres".into())
            .spawn(move || match config.connect(postgres::NoTls) {
                Ok(client) => {
                    let _ = ready.send(Ok(()));
                    let mut client = PostgresClient {
                        client,
                        prepared: HashMap::new(),
                        search_path: None,
                    };
                    // Until the connection is dropped.
                    for job in queue {
                        job(&mut client);
                    }
                }
                Err(e) => {
                    let _ = ready.send(Err(describe(&e)));
                }
            })?;
        connected
            .recv()?
            .map_err(|e| anyhow::anyhow!("cannot connect to {shown}: {e}"))?;
        Ok(Postgres { jobs, schema: None })
    }

    /// A handle on the same connection whose statements run in `schema`.
    pub(crate) fn in_schema(&self, schema: &str) -> Postgres {
        Postgres {
            jobs: self.jobs.clone(),
            schema: Some(schema.to_string()),
        }
    }

    /// Runs `job` on the client's thread, in this handle's schema, and waits for its answer.
    fn call<T: Send + 'static>(
        &self,
        job: impl FnOnce(&mut PostgresClient) -> Result<T, postgres::Error> + Send + 'static,
    ) -> anyhow::Result<T> {
        let (answer, answered) = mpsc::channel();
        let schema = self.schema.clone();
        self.jobs
            .send(Box::new(move |client| {
                let done = client.enter(schema).and_then(|()| job(client));
                let _ = answer.send(done.map_err(|e| describe(&e)));
            }))
            .map_err(|_| anyhow::anyhow!("the database connection's thread has stopped"))?;
        answered
            .recv()
            .map_err(|_| anyhow::anyhow!("the database connection's thread has stopped"))?
            .map_err(|e| anyhow::anyhow!("{e}"))
    }
}

impl PostgresClient {
    /// Sets the connection's `search_path` to `schema`, unless it is there (or is `None`).
    fn enter(&mut self, schema: Option<String>) -> Result<(), postgres::Error> {
        if let Some(schema) = schema.filter(|s| self.search_path.as_ref() != Some(s)) {
            self.client
                .batch_execute(&format!("SET search_path TO {schema}"))?;
            self.search_path = Some(schema);
        }
        Ok(())
    }

    /// `sql`'s statement, prepared the first time it is run on this connection in its schema.
    fn prepared(&mut self, sql: &str) -> Result<postgres::Statement, postgres::Error> {
        let key = (
            self.search_path.clone().unwrap_or_default(),
            sql.to_string(),
        );
        if let Some(statement) = self.prepared.get(&key) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(&dollar_parameters(sql))?;
        self.prepared.insert(key, statement.clone());
        Ok(statement)
    }
}

/// A PostgreSQL error with the server's own message, which `Display` leaves out.
pub(crate) fn describe(err: &postgres::Error) -> String {
    match err.as_db_error() {
        Some(db) => format!("{}: {}", db.severity(), db.message()),
        None => err.to_string(),
    }
}

impl postgres::types::ToSql for Value {
    fn to_sql(
        &self,
        ty: &postgres::types::Type,
        out: &mut bytes::BytesMut,
    ) -> Result<postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        use postgres::types::Type;
        match self {
            Value::Null => Ok(postgres::types::IsNull::Yes),
            // Integers go into whichever integer column or parameter the statement has.
            Value::Int(v) if *ty == Type::INT4 => i32::try_from(*v)?.to_sql(ty, out),
            Value::Int(v) if *ty == Type::FLOAT8 => (*v as f64).to_sql(ty, out),
            Value::Int(v) => v.to_sql(ty, out),
            Value::Real(v) => v.to_sql(ty, out),
            Value::Text(v) => v.to_sql(ty, out),
            Value::Bytes(v) => v.to_sql(ty, out),
        }
    }

    fn accepts(_: &postgres::types::Type) -> bool {
        true
    }

    postgres::types::to_sql_checked!();
}

fn postgres_value(row: &postgres::Row, i: usize) -> Result<Value, postgres::Error> {
    use postgres::types::Type;
    let ty = row.columns()[i].type_().clone();
    Ok(if ty == Type::INT8 {
        row.try_get::<_, Option<i64>>(i)?.into()
    } else if ty == Type::INT4 {
        row.try_get::<_, Option<i32>>(i)?.map(i64::from).into()
    } else if ty == Type::INT2 {
        row.try_get::<_, Option<i16>>(i)?.map(i64::from).into()
    } else if ty == Type::BOOL {
        row.try_get::<_, Option<bool>>(i)?.map(i64::from).into()
    } else if ty == Type::FLOAT8 {
        row.try_get::<_, Option<f64>>(i)?.into()
    } else if ty == Type::FLOAT4 {
        row.try_get::<_, Option<f32>>(i)?.map(f64::from).into()
    } else if ty == Type::BYTEA {
        row.try_get::<_, Option<Vec<u8>>>(i)?.into()
    } else {
        row.try_get::<_, Option<String>>(i)?.into()
    })
}

impl Connection for Postgres {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn execute(&self, sql: &str, params: &[Value]) -> anyhow::Result<u64> {
        let (sql, params) = (sql.to_string(), params.to_vec());
        self.call(move |c| {
            let statement = c.prepared(&sql)?;
            c.client.execute(&statement, &as_params(&params))
        })
    }

    fn query(&self, sql: &str, params: &[Value]) -> anyhow::Result<Vec<Row>> {
        let (sql, params) = (sql.to_string(), params.to_vec());
        self.call(move |c| {
            let statement = c.prepared(&sql)?;
            let names: Arc<[String]> = statement
                .columns()
                .iter()
                .map(|c| c.name().to_string())
                .collect();
            c.client
                .query(&statement, &as_params(&params))?
                .iter()
                .map(|row| {
                    let values = (0..row.len()).map(|i| postgres_value(row, i));
                    Ok(Row::new(names.clone(), values.collect::<Result<_, _>>()?))
                })
                .collect()
        })
    }

    fn batch(&self, sql: &str) -> anyhow::Result<()> {
        let sql = sql.to_string();
        self.call(move |c| c.client.batch_execute(&sql))
    }
}

fn as_params(params: &[Value]) -> Vec<&(dyn postgres::types::ToSql + Sync)> {
    params.iter().map(|p| p as _).collect()
}

/// `sql` with its `?N` parameters written `$N`, as PostgreSQL numbers them.
fn dollar_parameters(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '?' && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('$');
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn question_mark_parameters_become_dollar_parameters() {
        assert_eq!(
            super::dollar_parameters("UPDATE g SET s = ?2 WHERE i = ?1 AND t = '?'"),
            "UPDATE g SET s = $2 WHERE i = $1 AND t = '?'"
        );
    }
}
