//! A PostgreSQL database read over a real connection: a `postgres://` / `postgresql://` URL,
//! completed from the usual `PG*` variables as libpq completes it, read in one `READ ONLY`,
//! `REPEATABLE READ` transaction (one snapshot) through a portal fetched a block of rows at a
//! time (memory bounded at any table size).
//!
//! The database renders each row as JSON (`row_to_json`: columns in order, JSON and JSONB as
//! nested values, timestamps as the ISO 8601 text it prints); a row of one JSON or JSONB column
//! that holds an object is that object. A LangGraph `PostgresStore` (`store`) is read as one
//! record per item. The password is never shown: not in the store's name, not in any error.

use super::database::{self, one_line, quote_ident, Lines, OpenSignal};
use super::{Opened, Select, Source};
use crate::error::{Result, VercyError};
use postgres::types::Type;
use postgres::{Client, Config, IsolationLevel, NoTls};
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::time::Duration;

/// Rows fetched from the portal at a time.
const FETCH_ROWS: i32 = 2000;

/// A PostgreSQL database, named by its URL as given (with its password, if any: never
/// printed; see [`redact`]).
pub struct Postgres(String);

impl std::fmt::Debug for Postgres {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Postgres").field(&redact(&self.0)).finish()
    }
}

/// A `postgres://` or `postgresql://` URL names a PostgreSQL database.
pub fn named(arg: &str) -> Option<Box<dyn Source>> {
    (arg.starts_with("postgres://") || arg.starts_with("postgresql://"))
        .then(|| Box::new(Postgres(arg.to_string())) as Box<dyn Source>)
}

impl Source for Postgres {
    fn open(&self, name: &str, select: &Select) -> Result<Opened> {
        let (name, url, select) = (name.to_string(), self.0.clone(), select.clone());
        database::start(move |ready, lines| {
            let (config, password) = config(&name, &url)?;
            let scrub = |e: postgres::Error| pg_error(&name, &e, password.as_deref());
            let mut client = config.connect(NoTls).map_err(scrub)?;
            read(&name, &mut client, &select, ready, lines).map_err(|e| match e {
                PgFailure::Pg(e) => scrub(e),
                PgFailure::Vercy(e) => e,
            })
        })
    }

    /// A URL's password is in no report and no message.
    fn arg(&self, arg: &str) -> String {
        redact(arg)
    }

    fn is_database(&self) -> bool {
        true
    }

    fn takes_select(&self) -> bool {
        true
    }
}

/// The URL, with what it leaves out taken from the environment (PGHOST, PGPORT, PGUSER,
/// PGPASSWORD, PGDATABASE, PGAPPNAME, PGCONNECT_TIMEOUT), and its password (to scrub from
/// messages).
fn config(name: &str, url: &str) -> Result<(Config, Option<String>)> {
    let mut config: Config = url.parse().map_err(|e: postgres::Error| {
        database::error(
            name,
            format!("not a PostgreSQL URL: {}", scrub_text(&e.to_string(), None)),
            "write postgresql://USER@HOST:PORT/DATABASE (a Unix socket: postgresql:///DATABASE?host=/run/postgresql)",
        )
    })?;
    let env = |key: &str| std::env::var(key).ok().filter(|v| !v.is_empty());
    if config.get_hosts().is_empty() {
        match env("PGHOST") {
            Some(hosts) => {
                for host in hosts.split(',') {
                    config.host(host);
                }
            }
            None if std::path::Path::new("/var/run/postgresql").is_dir() => {
                config.host("/var/run/postgresql");
            }
            None => {
                config.host("localhost");
            }
        }
    }
    if config.get_ports().is_empty() {
        if let Some(port) = env("PGPORT") {
            let port = port.parse::<u16>().map_err(|_| VercyError::Environment {
                name: "PGPORT".into(),
                value: port.clone(),
                message: "not a port number".into(),
                help: "set PGPORT to a number such as 5432, or put the port in the URL".into(),
            })?;
            config.port(port);
        }
    }
    if config.get_user().is_none() {
        let user = env("PGUSER")
            .or_else(|| env("USER"))
            .or_else(|| env("LOGNAME"))
            .unwrap_or_else(|| "postgres".into());
        config.user(&user);
    }
    if config.get_password().is_none() {
        if let Some(password) = env("PGPASSWORD") {
            config.password(password);
        }
    }
    if config.get_dbname().is_none() {
        if let Some(db) = env("PGDATABASE") {
            config.dbname(&db);
        }
    }
    if config.get_application_name().is_none() {
        config.application_name(&env("PGAPPNAME").unwrap_or_else(|| "vercy".into()));
    }
    if config.get_connect_timeout().is_none() {
        let secs = env("PGCONNECT_TIMEOUT")
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or(10);
        config.connect_timeout(Duration::from_secs(secs.max(1)));
    }
    let password = config
        .get_password()
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .filter(|p| !p.is_empty());
    Ok((config, password))
}

/// A message with the password, if it appears, taken out.
fn scrub_text(text: &str, password: Option<&str>) -> String {
    match password {
        Some(p) => text.replace(p, "***"),
        None => text.to_string(),
    }
}

fn pg_error(name: &str, e: &postgres::Error, password: Option<&str>) -> VercyError {
    let mut message = e.to_string();
    if let Some(db) = e.as_db_error() {
        message = format!("{}: {}", db.severity(), db.message());
        if let Some(detail) = db.detail() {
            message.push_str(&format!(" ({detail})"));
        }
    } else if let Some(source) = std::error::Error::source(e) {
        message = format!("{message}: {source}");
    }
    let help = if e.as_db_error().is_some() {
        "check the user, the password (PGPASSWORD or the URL), the database and the query"
    } else {
        "check the URL or the PG* variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE); \
         vercy connects without TLS"
    };
    database::error(name, scrub_text(&message, password), help)
}

enum PgFailure {
    Pg(postgres::Error),
    Vercy(VercyError),
}

impl From<postgres::Error> for PgFailure {
    fn from(e: postgres::Error) -> Self {
        PgFailure::Pg(e)
    }
}

impl From<VercyError> for PgFailure {
    fn from(e: VercyError) -> Self {
        PgFailure::Vercy(e)
    }
}

fn read(
    name: &str,
    client: &mut Client,
    select: &Select,
    ready: &mut OpenSignal,
    lines: &mut Lines,
) -> std::result::Result<(), PgFailure> {
    let mut tx = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()?;
    let (inner, described) = match select {
        Select::Detect => {
            let store_columns: Vec<String> = tx
                .query(
                    "SELECT column_name::text FROM information_schema.columns \
                     WHERE table_name = 'store' AND table_schema = current_schema()",
                    &[],
                )?
                .iter()
                .map(|r| r.get(0))
                .collect();
            let has = |c: &str| store_columns.iter().any(|s| s == c);
            if !(has("prefix") && has("key") && has("value")) {
                let tables: Vec<String> = tx
                    .query(
                        "SELECT (CASE WHEN table_schema = current_schema() THEN '' \
                         ELSE table_schema || '.' END || table_name)::text \
                         FROM information_schema.tables \
                         WHERE table_schema NOT IN ('pg_catalog', 'information_schema') \
                         ORDER BY 1",
                        &[],
                    )?
                    .iter()
                    .map(|r| r.get(0))
                    .collect();
                return Err(database::unknown_schema(
                    name,
                    "this PostgreSQL database holds no LangGraph store",
                    &tables,
                )
                .into());
            }
            let col = |c: &str| {
                if has(c) {
                    quote_ident(c)
                } else {
                    format!("NULL::timestamptz AS {c}")
                }
            };
            (
                format!(
                    "SELECT string_to_array(prefix, '.') AS namespace, key, value, {}, {}, {} \
                     FROM store ORDER BY prefix, key",
                    col("created_at"),
                    col("updated_at"),
                    col("expires_at")
                ),
                "LangGraph PostgresStore".to_string(),
            )
        }
        Select::Table(table) => (
            format!("SELECT * FROM {}", quote_ident(table)),
            format!("PostgreSQL table `{table}`"),
        ),
        Select::Query(sql) => (
            sql.trim().trim_end_matches(';').to_string(),
            "PostgreSQL query".to_string(),
        ),
    };
    let statement = tx.prepare(&inner)?;
    let one_json = statement.columns().len() == 1
        && matches!(*statement.columns()[0].type_(), Type::JSON | Type::JSONB);
    let portal = tx.bind(
        format!("SELECT row_to_json(q)::text FROM ({inner}) AS q").as_str(),
        &[],
    )?;
    ready.ok(described);
    loop {
        let rows = tx.query_portal(&portal, FETCH_ROWS)?;
        for row in &rows {
            let text: &str = row.get(0);
            let line = if one_json { only_object(text) } else { None };
            lines.line(one_line(line.unwrap_or(text)).as_bytes())?;
        }
        if rows.len() < FETCH_ROWS as usize {
            break;
        }
    }
    Ok(())
}

/// The one column's value of a row, when it is an object.
fn only_object(row: &str) -> Option<&str> {
    let columns: BTreeMap<String, &RawValue> = serde_json::from_str(row).ok()?;
    let value = columns.into_values().next()?.get();
    value.starts_with('{').then_some(value)
}

pub fn redact(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let (authority, tail) = match rest.find(['/', '?']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!("{user}@{host}"),
            None => authority.to_string(),
        },
        None => authority.to_string(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let kept: Vec<&str> = query
                .split('&')
                .filter(|pair| !pair.to_ascii_lowercase().starts_with("password="))
                .collect();
            if kept.is_empty() {
                path.to_string()
            } else {
                format!("{path}?{}", kept.join("&"))
            }
        }
        None => tail.to_string(),
    };
    format!("{scheme}://{authority}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_never_survives_redaction() {
        for (url, shown) in [
            (
                "postgresql://alice:s3cret@db.example:5432/mem",
                "postgresql://alice@db.example:5432/mem",
            ),
            (
                "postgres://alice:p%40ss@host/db?sslmode=disable&password=other",
                "postgres://alice@host/db?sslmode=disable",
            ),
            (
                "postgresql:///mem?host=/tmp&password=x",
                "postgresql:///mem?host=/tmp",
            ),
            ("postgresql://bob@host/db", "postgresql://bob@host/db"),
        ] {
            assert_eq!(redact(url), shown);
            assert!(!redact(url).contains("s3cret"));
            assert_eq!(
                format!("{:?}", Postgres(url.into())),
                format!("Postgres({shown:?})")
            );
        }
    }
}
