//! A SQLite database read in place: opened read-only, every row read in one read transaction
//! (one snapshot; in WAL mode a reader never blocks the writer), rendered as the lines its
//! dump would hold.
//!
//! - an engrama graph (`nodes` and `edges`, what engrama 0.18.1's sqlite backend writes): the
//!   envelope, node lines and relation lines exactly as `engrama export` renders them
//!   (`SqliteGraphStore.iter_all_nodes` / `iter_all_relations`, `json.dumps(…,
//!   ensure_ascii=False)`). Vector lines live in sqlite-vec's `vec0` table, which needs the
//!   extension: they are not read (the envelope says `embedding_dimensions: 0`).
//! - a LangGraph `SqliteStore` (`store`): one record per item.
//! - `--table T` / `--sql SQL`: one record per row (see [`row_line`]).

use super::database::{self, one_line, quote_ident, Lines, OpenSignal};
use super::{Opened, Select, Source};
use crate::error::{Result, VercyError};
use crate::python::float_repr;
use crate::python::json::{py_json, py_json_str};
use crate::store::shape::engrama::{envelope, exported_at_now, LINE_KEYS};
use rayon::prelude::*;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags, Row};
use serde_json::{Map, Value};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a read waits for a writer that holds the whole file (a rollback-journal database
/// mid-commit); past this the store is reported locked rather than waited on.
const BUSY_WAIT: Duration = Duration::from_millis(1500);

/// Rows rendered together, on every core.
const BATCH_ROWS: usize = 4096;

/// The first 16 bytes of every SQLite database file.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// A SQLite database file.
#[derive(Debug)]
pub struct Sqlite(PathBuf);

/// `sqlite:PATH` (or `sqlite://PATH`) names a SQLite database.
pub fn named(arg: &str) -> Option<Box<dyn Source>> {
    let path = arg.strip_prefix("sqlite:")?;
    let path = path.strip_prefix("//").unwrap_or(path);
    Some(Box::new(Sqlite(PathBuf::from(path))))
}

/// A regular file that starts with SQLite's header is a SQLite database, whatever its name.
pub fn by_header(arg: &str) -> Option<Box<dyn Source>> {
    // Only a regular file is looked into: opening a FIFO would wait for a writer (or, for
    // `<(…)`, take the first bytes of the store from the reader), and a device is no database.
    if !std::fs::metadata(arg).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let mut head = [0u8; 16];
    let is_sqlite = std::fs::File::open(arg)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && &head == SQLITE_HEADER;
    is_sqlite.then(|| Box::new(Sqlite(PathBuf::from(arg))) as Box<dyn Source>)
}

impl Source for Sqlite {
    fn open(&self, name: &str, select: &Select) -> Result<Opened> {
        let (name, path, select) = (name.to_string(), self.0.clone(), select.clone());
        database::start(move |ready, lines| read(&name, &path, &select, ready, lines))
    }

    fn is_database(&self) -> bool {
        true
    }

    fn takes_select(&self) -> bool {
        true
    }
}

fn read(
    name: &str,
    path: &Path,
    select: &Select,
    ready: &mut OpenSignal,
    lines: &mut Lines,
) -> Result<()> {
    let conn = open_snapshot(name, path)?;
    let fail = |e: rusqlite::Error| sqlite_error(name, e);
    let tables = tables(&conn).map_err(fail)?;
    match select {
        Select::Detect => {
            if super::chroma::is_chroma(&tables) {
                Err(database::error(
                    name,
                    "this SQLite database is a Chroma store's",
                    format!(
                        "read its collections as records with `chroma:{}` (one of them: \
                         `chroma:{}#COLLECTION`)",
                        path.display(),
                        path.display()
                    ),
                ))
            } else if is_engrama(&conn, &tables).map_err(fail)? {
                ready.ok("engrama SQLite database");
                engrama(name, &conn, lines)
            } else if has_columns(&conn, &tables, "store", &["prefix", "key", "value"])
                .map_err(fail)?
            {
                ready.ok("LangGraph SqliteStore");
                langgraph(name, &conn, lines)
            } else {
                Err(database::unknown_schema(
                    name,
                    "this SQLite database is neither an engrama graph nor a LangGraph store",
                    &tables,
                ))
            }
        }
        Select::Table(table) => {
            if !tables.iter().any(|t| t == table) {
                return Err(database::error(
                    name,
                    format!("no table `{table}` in this SQLite database"),
                    format!("the tables are: {}", tables.join(", ")),
                ));
            }
            let sql = format!("SELECT * FROM {}", quote_ident(table));
            rows(
                name,
                &conn,
                &sql,
                ready,
                &format!("SQLite table `{table}`"),
                lines,
            )
        }
        Select::Query(sql) => rows(name, &conn, sql, ready, "SQLite query", lines),
    }
}

/// The database file at `path` opened read-only, in a read transaction: the first read takes
/// the snapshot every later statement sees.
pub(super) fn open_snapshot(name: &str, path: &Path) -> Result<Connection> {
    let meta = std::fs::metadata(path).map_err(|e| VercyError::Read {
        path: name.to_string(),
        reason: crate::error::io_reason(&e),
    })?;
    if meta.is_dir() {
        return Err(VercyError::Directory {
            path: name.to_string(),
        });
    }
    let fail = |e: rusqlite::Error| sqlite_error(name, e);
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(fail)?;
    conn.busy_timeout(BUSY_WAIT).map_err(fail)?;
    conn.execute_batch("BEGIN").map_err(fail)?;
    Ok(conn)
}

/// What a SQLite failure means for someone reading a store.
pub(super) fn sqlite_error(name: &str, e: rusqlite::Error) -> VercyError {
    use rusqlite::ErrorCode as C;
    let code = e.sqlite_error_code();
    let (message, help) = match code {
        Some(C::DatabaseBusy | C::DatabaseLocked) => (
            "the database is locked: a writer holds the whole file".to_string(),
            "a rollback-journal database mid-commit, or one opened with locking_mode=EXCLUSIVE; \
             try again when the writer is done (vercy reads without waiting on it)",
        ),
        Some(C::NotADatabase) => (
            "not a SQLite database (or its header is damaged)".to_string(),
            "check the file; `sqlite3 FILE 'PRAGMA integrity_check'` says what is wrong",
        ),
        Some(C::DatabaseCorrupt) => (
            "the database file is corrupt".to_string(),
            "recover it with `sqlite3 FILE .recover`, then read the recovered copy",
        ),
        Some(C::CannotOpen) => (
            format!("cannot open the database: {e}"),
            "check that the file and its folder are readable (a WAL database also needs its -shm file)",
        ),
        _ => (
            e.to_string(),
            "check the file, and the --table or --sql given",
        ),
    };
    database::error(name, message, help)
}

pub(super) fn tables(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare(
        "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') \
         AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )?;
    let names = stmt.query_map([], |r| r.get::<_, String>(0))?;
    names.collect()
}

pub(super) fn columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!("PRAGMA table_info({})", quote_ident(table)))?;
    let names = stmt.query_map([], |r| r.get::<_, String>(1))?;
    names.collect()
}

fn has_columns(
    conn: &Connection,
    tables: &[String],
    table: &str,
    wanted: &[&str],
) -> rusqlite::Result<bool> {
    if !tables.iter().any(|t| t == table) {
        return Ok(false);
    }
    let have = columns(conn, table)?;
    Ok(wanted.iter().all(|w| have.iter().any(|h| h == w)))
}

fn is_engrama(conn: &Connection, tables: &[String]) -> rusqlite::Result<bool> {
    Ok(has_columns(
        conn,
        tables,
        "nodes",
        &[
            "id",
            "label",
            "key_field",
            "key_value",
            "props",
            "created_at",
            "updated_at",
        ],
    )? && has_columns(
        conn,
        tables,
        "edges",
        &["id", "from_id", "rel_type", "to_id"],
    )?)
}

/// A SQLite value as Python's sqlite3 hands it to `json.dumps`.
fn value(name: &str, v: ValueRef<'_>) -> Result<Value> {
    Ok(match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        ValueRef::Text(t) => Value::String(text(name, t)?.to_string()),
        ValueRef::Blob(_) => {
            return Err(database::error(
                name,
                "a blob where engrama keeps text",
                "this is not a database engrama wrote; read it with --table or --sql",
            ))
        }
    })
}

pub(super) fn text<'a>(name: &str, bytes: &'a [u8]) -> Result<&'a str> {
    crate::bytes::utf8(bytes).map_err(|_| {
        database::error(
            name,
            "a text value that is not valid UTF-8",
            "re-encode the column as UTF-8, or select it with hex(…) in --sql",
        )
    })
}

fn column_value(name: &str, row: &Row<'_>, i: usize) -> Result<Value> {
    let v = row.get_ref(i).map_err(|e| sqlite_error(name, e))?;
    value(name, v)
}

/// One node row, as read: label, key_field, key_value, props, created_at, updated_at.
type NodeRow = [Value; 5];

fn engrama(name: &str, conn: &Connection, lines: &mut Lines) -> Result<()> {
    let fail = |e| sqlite_error(name, e);
    lines.line(envelope("sqlite", &exported_at_now()).as_bytes())?;

    let mut stmt = conn
        .prepare(
            "SELECT label, key_field, key_value, props, created_at, updated_at \
             FROM nodes ORDER BY id",
        )
        .map_err(fail)?;
    let mut rows = stmt.query([]).map_err(fail)?;
    let mut batch: Vec<(NodeRow, Option<String>)> = Vec::with_capacity(BATCH_ROWS);
    let flush = |batch: &mut Vec<(NodeRow, Option<String>)>, lines: &mut Lines| -> Result<()> {
        let rendered: Vec<Result<String>> = batch
            .par_drain(..)
            .map(|(row, props)| node_line(name, row, props.as_deref()))
            .collect();
        for line in rendered {
            lines.line(line?.as_bytes())?;
        }
        Ok(())
    };
    while let Some(row) = rows.next().map_err(fail)? {
        let props = match row.get_ref(3).map_err(fail)? {
            ValueRef::Null => None,
            ValueRef::Text(t) => Some(text(name, t)?.to_string()),
            other => Some(value(name, other)?.to_string()),
        };
        let cells = [
            column_value(name, row, 0)?,
            column_value(name, row, 1)?,
            column_value(name, row, 2)?,
            column_value(name, row, 4)?,
            column_value(name, row, 5)?,
        ];
        batch.push((cells, props));
        if batch.len() == BATCH_ROWS {
            flush(&mut batch, lines)?;
        }
    }
    flush(&mut batch, lines)?;
    drop(rows);
    drop(stmt);

    let edge_columns = columns(conn, "edges").map_err(fail)?;
    let scope = |col: &str| {
        if edge_columns.iter().any(|c| c == col) {
            format!("e.{col}")
        } else {
            "NULL".to_string()
        }
    };
    let sql = format!(
        "SELECT f.label, f.key_field, f.key_value, e.rel_type, t.label, t.key_field, \
         t.key_value, {}, {} FROM edges e JOIN nodes f ON f.id = e.from_id \
         JOIN nodes t ON t.id = e.to_id ORDER BY e.id",
        scope("org_id"),
        scope("user_id")
    );
    let mut stmt = conn.prepare(&sql).map_err(fail)?;
    let mut rows = stmt.query([]).map_err(fail)?;
    // a relation line's keys, as engrama's own dump writes them
    let keys = &LINE_KEYS[5..];
    while let Some(row) = rows.next().map_err(fail)? {
        let mut line = String::from("{\"type\": \"relation\"");
        for (i, key) in keys.iter().enumerate() {
            line.push_str(", ");
            py_json_str(key, &mut line);
            line.push_str(": ");
            py_json(&column_value(name, row, i)?, &mut line);
        }
        line.push('}');
        lines.line(line.as_bytes())?;
    }
    Ok(())
}

/// A node line as `engrama export` writes it: `{"type": "node", **node}` where the node's
/// properties are `json.loads(props)` (or `{}`) with created_at and updated_at set from the
/// columns (kept in place when props already held them, as a Python dict does).
fn node_line(name: &str, row: NodeRow, props: Option<&str>) -> Result<String> {
    let [label, key_field, key_value, created_at, updated_at] = row;
    let mut properties = match props {
        None | Some("") => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => m,
            Ok(other) => {
                return Err(database::error(
                    name,
                    format!(
                        "a node whose props is {}, not an object",
                        crate::record::kind_name(&other)
                    ),
                    "engrama keeps a node's properties as one JSON object",
                ))
            }
            Err(e) => {
                return Err(database::error(
                    name,
                    format!("a node whose props is not JSON: {e}"),
                    "the database is damaged, or not one engrama wrote",
                ))
            }
        },
    };
    properties.insert("created_at".into(), created_at);
    properties.insert("updated_at".into(), updated_at);
    let mut line = String::with_capacity(props.map_or(64, str::len) + 160);
    line.push_str("{\"type\": \"node\", \"label\": ");
    py_json(&label, &mut line);
    line.push_str(", \"key_field\": ");
    py_json(&key_field, &mut line);
    line.push_str(", \"key_value\": ");
    py_json(&key_value, &mut line);
    line.push_str(", \"properties\": ");
    py_json(&Value::Object(properties), &mut line);
    line.push('}');
    Ok(line)
}

fn langgraph(name: &str, conn: &Connection, lines: &mut Lines) -> Result<()> {
    let fail = |e| sqlite_error(name, e);
    let have = columns(conn, "store").map_err(fail)?;
    let col = |c: &str| {
        if have.iter().any(|h| h == c) {
            quote_ident(c)
        } else {
            "NULL".into()
        }
    };
    let sql = format!(
        "SELECT prefix, key, value, {}, {}, {} FROM store ORDER BY prefix, key",
        col("created_at"),
        col("updated_at"),
        col("expires_at")
    );
    let mut stmt = conn.prepare(&sql).map_err(fail)?;
    let mut rows = stmt.query([]).map_err(fail)?;
    while let Some(row) = rows.next().map_err(fail)? {
        let mut line = String::from("{\"namespace\": ");
        let prefix = column_value(name, row, 0)?;
        let namespace: Vec<Value> = match &prefix {
            Value::String(p) => p.split('.').map(Value::from).collect(),
            _ => Vec::new(),
        };
        py_json(&Value::Array(namespace), &mut line);
        line.push_str(", \"key\": ");
        py_json(&column_value(name, row, 1)?, &mut line);
        line.push_str(", \"value\": ");
        cell(name, row, 2, true, &mut line)?;
        for (i, key) in ["created_at", "updated_at", "expires_at"]
            .iter()
            .enumerate()
        {
            line.push_str(", ");
            py_json_str(key, &mut line);
            line.push_str(": ");
            cell(name, row, 3 + i, false, &mut line)?;
        }
        line.push('}');
        lines.line(line.as_bytes())?;
    }
    Ok(())
}

/// Any rows: a row of one column holding a JSON object is that object; any other row is an
/// object of its columns.
fn rows(
    name: &str,
    conn: &Connection,
    sql: &str,
    ready: &mut OpenSignal,
    described: &str,
    lines: &mut Lines,
) -> Result<()> {
    let fail = |e| sqlite_error(name, e);
    let mut stmt = conn.prepare(sql).map_err(fail)?;
    if !stmt.readonly() {
        return Err(database::error(
            name,
            "the query would change the database",
            "vercy only reads: give a SELECT",
        ));
    }
    let names: Vec<String> = stmt.column_names().iter().map(|s| s.to_string()).collect();
    let json: Vec<bool> = stmt
        .columns()
        .iter()
        .map(|c| {
            c.decl_type()
                .is_some_and(|t| t.to_ascii_uppercase().contains("JSON"))
        })
        .collect();
    ready.ok(described);
    let mut rows = stmt.query([]).map_err(fail)?;
    let mut line = String::new();
    while let Some(row) = rows.next().map_err(fail)? {
        line.clear();
        row_line(name, row, &names, &json, &mut line)?;
        lines.line(line.as_bytes())?;
    }
    Ok(())
}

fn row_line(
    name: &str,
    row: &Row<'_>,
    names: &[String],
    json: &[bool],
    out: &mut String,
) -> Result<()> {
    if names.len() == 1 {
        if let Some(t) = json_text(row.get_ref(0).map_err(|e| sqlite_error(name, e))?) {
            if t.trim_start().starts_with('{') {
                out.push_str(&one_line(t));
                return Ok(());
            }
        }
    }
    out.push('{');
    for (i, column) in names.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        py_json_str(column, out);
        out.push_str(": ");
        cell(name, row, i, json[i], out)?;
    }
    out.push('}');
    Ok(())
}

/// One column's value as JSON text: text that holds JSON nests when the column is declared
/// JSON (or `nest`), a blob is `\x` and its hex digits (PostgreSQL's bytea text), a real that
/// is not finite is null.
fn cell(name: &str, row: &Row<'_>, i: usize, nest: bool, out: &mut String) -> Result<()> {
    match row.get_ref(i).map_err(|e| sqlite_error(name, e))? {
        ValueRef::Null => out.push_str("null"),
        ValueRef::Integer(n) => out.push_str(&n.to_string()),
        ValueRef::Real(f) if f.is_finite() => out.push_str(&float_repr(f)),
        ValueRef::Real(_) => out.push_str("null"),
        v if nest && json_text(v).is_some() => {
            out.push_str(&one_line(json_text(v).unwrap_or_default()))
        }
        ValueRef::Text(t) => py_json_str(text(name, t)?, out),
        ValueRef::Blob(b) => {
            let mut hex = String::with_capacity(2 + 2 * b.len());
            hex.push_str("\\x");
            for byte in b {
                hex.push_str(&format!("{byte:02x}"));
            }
            py_json_str(&hex, out);
        }
    }
    Ok(())
}

/// The value's text when it is JSON text (a TEXT value, or a BLOB of UTF-8 JSON such as
/// LangGraph's SqliteStore writes).
fn json_text(v: ValueRef<'_>) -> Option<&str> {
    let (ValueRef::Text(bytes) | ValueRef::Blob(bytes)) = v else {
        return None;
    };
    let text = std::str::from_utf8(bytes).ok()?;
    serde_json::from_str::<serde::de::IgnoredAny>(text)
        .is_ok()
        .then_some(text)
}
