//! Live stores (issue 23): databases read where they live, against the real programs.
//!
//! `.ci/run` (through `.ci/live-stores.sh`) builds engrama databases with engrama 0.18.1's
//! sqlite backend from the dumps in fixtures/, LangGraph SqliteStore / PostgresStore stores
//! through LangGraph's Python API, and starts a real PostgreSQL; it exports
//! VERCY_TEST_LIVE_DIR, VERCY_TEST_PG_URL and VERCY_TEST_PG_PASSWORD. Without them a test that
//! needs them says so loudly on stderr, and fails when CI is set. The SQLite tests that need
//! no other program build their databases here, with rusqlite.

use crate::common;

use common::{fixture, in_ci, stderr_of, stdout_of, vercy};
use rusqlite::Connection;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// An environment variable `.ci/live-stores.sh` exports; absent: loud, and a failure in CI.
fn live_env(name: &str) -> Option<String> {
    match std::env::var(name) {
        Ok(v) if !v.is_empty() => Some(v),
        _ => {
            let why = format!(
                "{name} is not set: the live stores (real engrama / LangGraph databases, a real \
                 PostgreSQL) are built by .ci/live-stores.sh, which .ci/run sources"
            );
            assert!(!in_ci(), "CI: {why}");
            eprintln!("\n!!! NOT TESTED: {why}. Run `bash .ci/run`, or source it yourself.\n");
            None
        }
    }
}

pub(crate) fn live_dir() -> Option<PathBuf> {
    live_env("VERCY_TEST_LIVE_DIR").map(PathBuf::from)
}

/// The test server's URL and password (given through PGPASSWORD, never in the URL).
pub(crate) fn pg() -> Option<(String, String)> {
    Some((
        live_env("VERCY_TEST_PG_URL")?,
        live_env("VERCY_TEST_PG_PASSWORD")?,
    ))
}

pub(crate) fn run(args: &[&str]) -> Output {
    vercy()
        .env_remove("PGPASSWORD")
        .args(args)
        .output()
        .expect("vercy runs")
}

pub(crate) fn run_pg(password: &str, args: &[&str]) -> Output {
    vercy()
        .env("PGPASSWORD", password)
        .args(args)
        .output()
        .expect("vercy runs")
}

pub(crate) fn ok(out: Output) -> Output {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        stderr_of(&out)
    );
    out
}

/// stderr as one line of words (miette wraps its messages to the terminal's width).
pub(crate) fn said(out: &Output) -> String {
    stderr_of(out)
        .replace(['│', '×'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

pub(crate) fn two(out: &Output) {
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(out));
}

/// A check report with what may differ between a database and its dump taken out.
pub(crate) fn report(out: &Output) -> Value {
    let mut v: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    let reports = match &mut v {
        Value::Array(items) => items.iter_mut().collect::<Vec<_>>(),
        one => vec![one],
    };
    for r in reports {
        let m = r.as_object_mut().expect("a report object");
        assert!(m.remove("store").is_some(), "the report names its store");
        assert!(m.remove("shape").is_some(), "the report names its shape");
    }
    v
}

pub(crate) fn records(text: &str) -> Vec<Map<String, Value>> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The engrama databases built from the fixture dumps, each with `engrama export`'s dump.
fn engrama_databases(dir: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut found: Vec<(PathBuf, PathBuf)> = std::fs::read_dir(dir)
        .expect("the live dir")
        .filter_map(|e| {
            let p = e.ok()?.path();
            let name = p.file_name()?.to_str()?.strip_suffix(".export.ndjson")?;
            Some((dir.join(format!("{name}.db")), p.clone()))
        })
        .collect();
    found.sort();
    assert!(
        found.len() >= 5,
        "the four fixture dumps and the quirks dump: {found:?}"
    );
    found
}

#[test]
fn an_engrama_database_exports_engrama_exports_lines_byte_for_byte() {
    let Some(dir) = live_dir() else { return };
    for (db, dump) in engrama_databases(&dir) {
        let db = db.to_str().unwrap();
        let ours = stdout_of(&ok(run(&["export", db, "--to", "engrama"])));
        let theirs = std::fs::read_to_string(&dump).unwrap();
        let (our_head, our_lines) = ours.split_once('\n').unwrap();
        let (_, their_lines) = theirs.split_once('\n').unwrap();
        // vector lines live in sqlite-vec's table, which vercy does not read
        let their_lines: String = their_lines
            .lines()
            .filter(|l| !l.starts_with("{\"type\": \"vector\""))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(our_lines, their_lines, "{db}: node and relation lines");
        let head: Map<String, Value> = serde_json::from_str(our_head).unwrap();
        assert_eq!(head["engrama_export"], 1);
        assert_eq!(head["source_backend"], "sqlite");
        assert_eq!(head["embedding_dimensions"], 0);
    }
}

#[test]
fn an_engrama_database_reports_what_its_dump_reports() {
    let Some(dir) = live_dir() else { return };
    for (db, dump) in engrama_databases(&dir) {
        let (db, dump) = (db.to_str().unwrap(), dump.to_str().unwrap());
        for extra in [&[][..], &["--map", "engrama"], &["--strict", "--policy"]] {
            let args = |store| [&["check", store, "--json"][..], extra].concat();
            let ours = run(&args(db));
            let theirs = run(&args(dump));
            assert_eq!(ours.status.code(), theirs.status.code(), "{db} {extra:?}");
            assert_eq!(report(&ours), report(&theirs), "{db} {extra:?}");
            let shape = serde_json::from_slice::<Value>(&ours.stdout).unwrap()["shape"].clone();
            assert_eq!(shape, "engrama SQLite database");
        }
        let same = |args: &[&str]| {
            let swap = |store: &str| {
                let a: Vec<&str> = args
                    .iter()
                    .map(|a| if *a == "STORE" { store } else { a })
                    .collect();
                ok(run(&a)).stdout
            };
            assert_eq!(swap(db), swap(dump), "{args:?} on {db}");
        };
        same(&["compact", "STORE"]);
        same(&[
            "compact",
            "STORE",
            "--map",
            "engrama",
            "--as-of",
            "2026-06-01",
        ]);
        same(&["recency", "STORE", "--as-of", "2026-12-01T00:00:00Z"]);
        same(&[
            "recency",
            "STORE",
            "--as-of",
            "2027-01-01",
            "--format",
            "json",
        ]);
        same(&["export", "STORE", "--to", "jsonl"]);
        // decay's read-only report: the same counts, under the store's own name and shape
        let decay = |store: &str| {
            let text = stdout_of(&ok(run(&["decay", "--rate", "0.05", store])));
            text.replace(store, "STORE")
                .lines()
                // how to restore confidence: a jq command for a dump, the README for a database
                .filter(|l| !l.contains("jq ") && !l.starts_with("  nothing is migrated"))
                .skip(1)
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(decay(db), decay(dump), "decay on {db}");
    }
}

#[test]
fn a_sqlite_file_is_known_by_its_header_whatever_its_name() {
    let Some(dir) = live_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let db = dir.join("sample-export-0.18.1.db");
    let named = tmp.path().join("memory-of-the-agent.bin");
    // a WAL database is its file, its -wal and its -shm
    for suffix in ["", "-wal", "-shm"] {
        let from = PathBuf::from(format!("{}{suffix}", db.display()));
        if from.exists() {
            std::fs::copy(&from, format!("{}{suffix}", named.display())).unwrap();
        }
    }
    let a = report(&run(&["check", named.to_str().unwrap(), "--json"]));
    let b = report(&run(&["check", db.to_str().unwrap(), "--json"]));
    assert_eq!(a, b);
    assert_eq!(a["records"], 6);
}

/// LangGraph items as the fixture gives them: (namespace, key, value).
fn langgraph_items() -> Vec<(Value, Value, Value)> {
    let text = std::fs::read_to_string(fixture("live/langgraph-items.jsonl")).unwrap();
    let mut items: Vec<_> = records(&text)
        .into_iter()
        .map(|r| (r["namespace"].clone(), r["key"].clone(), r["value"].clone()))
        .collect();
    // the stores keep a namespace as its parts joined with dots
    let joined = |ns: &Value| {
        let parts: Vec<&str> = ns
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        parts.join(".")
    };
    items.sort_by_key(|(ns, key, _)| (joined(ns), key.to_string()));
    items
}

fn assert_langgraph_records(exported: &str, api_dump: &Path, store: &str, password: &str) {
    let got = records(exported);
    let items = langgraph_items();
    assert_eq!(got.len(), items.len());
    for (record, (ns, key, value)) in got.iter().zip(&items) {
        let keys: Vec<&str> = record.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "namespace",
                "key",
                "value",
                "created_at",
                "updated_at",
                "expires_at"
            ]
        );
        assert_eq!(&record["namespace"], ns);
        assert_eq!(&record["key"], key);
        assert_eq!(&record["value"], value);
        assert!(record["created_at"].is_string(), "{record:?}");
        assert_eq!(record["expires_at"], Value::Null);
    }
    // the same data as the store's own API gives it back, read as a dump
    let api = api_dump.to_str().unwrap();
    for map in ["langgraph", "langgraph,record_id=value.concept"] {
        let ours = run_pg(password, &["check", store, "--json", "--map", map]);
        let theirs = run(&["check", api, "--json", "--map", map]);
        assert_eq!(ours.status.code(), theirs.status.code());
        assert_eq!(report(&ours), report(&theirs), "{store} --map {map}");
    }
    let r = report(&run_pg(
        password,
        &["check", store, "--json", "--map", "langgraph"],
    ));
    assert_eq!(r["records"], 4);
    // the map reads the value's fields: M-1 states the store's conflict policy
    let missing: Vec<&Value> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["field"] == "conflict_policy")
        .collect();
    assert!(missing.is_empty(), "{r}");
}

#[test]
fn a_langgraph_sqlite_store_is_one_record_per_item() {
    let Some(dir) = live_dir() else { return };
    let db = dir.join("langgraph.db");
    let db = db.to_str().unwrap();
    let out = stdout_of(&ok(run(&["export", db])));
    assert_langgraph_records(&out, &dir.join("langgraph-sqlite.api.jsonl"), db, "");
    let human = stdout_of(&run(&["check", db]));
    assert!(human.contains("LangGraph SqliteStore"), "{human}");
}

#[test]
fn a_langgraph_postgres_store_is_one_record_per_item() {
    let (Some(dir), Some((url, password))) = (live_dir(), pg()) else {
        return;
    };
    let out = stdout_of(&ok(run_pg(&password, &["export", &url])));
    assert_langgraph_records(
        &out,
        &dir.join("langgraph-postgres.api.jsonl"),
        &url,
        &password,
    );
    // timestamps as PostgreSQL prints them in JSON: ISO 8601 with the offset
    let first = &records(&out)[0];
    let created = first["created_at"].as_str().unwrap();
    assert!(
        created.len() > 19 && &created[10..11] == "T" && created.contains('+'),
        "{created}"
    );
}

#[test]
fn any_postgres_table_or_query_is_one_record_per_row() {
    let Some((url, password)) = pg() else { return };
    let table = stdout_of(&ok(run_pg(
        &password,
        &["export", &url, "--table", "memories"],
    )));
    let rows = records(&table);
    assert_eq!(rows.len(), 4);
    let keys: Vec<&str> = rows[0].keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "n",
            "record_id",
            "valid_from",
            "valid_to",
            "source",
            "recorded_at",
            "meta"
        ]
    );
    assert_eq!(rows[0]["recorded_at"], "2026-01-01T12:00:00.5+00:00");
    assert_eq!(rows[1]["valid_to"], "2026-12-31");
    assert_eq!(rows[3]["meta"]["tags"], serde_json::json!(["hr", "policy"]));
    assert_eq!(rows[3]["meta"]["weight"].to_string(), "1.5");
    // one JSONB column holding an object: the object is the record
    let docs = fixture("live/memories.jsonl");
    for query in [
        "SELECT doc FROM docs ORDER BY n",
        "select doc from docs order by n;",
    ] {
        let ours = run_pg(&password, &["check", &url, "--sql", query, "--json"]);
        let theirs = run(&["check", docs.to_str().unwrap(), "--json"]);
        assert_eq!(ours.status.code(), theirs.status.code());
        assert_eq!(report(&ours), report(&theirs), "{query}");
    }
    let compact = run_pg(
        &password,
        &["compact", &url, "--sql", "SELECT doc FROM docs ORDER BY n"],
    );
    let theirs = run(&["compact", docs.to_str().unwrap()]);
    assert_eq!(stdout_of(&ok(compact)), stdout_of(&ok(theirs)));
    // a query that would write is refused by the read-only transaction
    let write = run_pg(
        &password,
        &["check", &url, "--sql", "DELETE FROM docs RETURNING doc"],
    );
    two(&write);
    let again = records(&stdout_of(&ok(run_pg(
        &password,
        &["export", &url, "--table", "docs"],
    ))));
    assert_eq!(again.len(), 4, "nothing was deleted");
}

#[test]
fn a_postgres_password_never_appears() {
    let Some((url, password)) = pg() else { return };
    let (_, query) = url.split_once('?').unwrap();
    let with_password = format!("postgresql://vercy:{password}@/vercy_test?{query}");
    let good = run(&["check", &with_password, "--json", "--map", "langgraph"]);
    let wrong = format!("postgresql://vercy:Wr0ngSecret42@/vercy_test?{query}");
    let cases = [
        good,
        run(&["check", &wrong]),
        run(&["check", &format!("{url}&password=Wr0ngSecret42")]),
        run_pg("Wr0ngSecret42", &["check", &url]),
        run(&["check", &with_password, "--table", "no_such_table"]),
        run(&["check", &with_password, "--sql", "SELEKT nonsense"]),
        run(&["export", &with_password, "--sql", "SELECT 1/0 AS x"]),
    ];
    assert_eq!(cases[0].status.code(), Some(1), "{}", stderr_of(&cases[0]));
    for (i, out) in cases.iter().enumerate() {
        let all = format!("{}{}", stdout_of(out), stderr_of(out));
        assert!(!all.contains(&password), "case {i} printed the password");
        assert!(
            !all.contains("Wr0ngSecret42"),
            "case {i} printed the password"
        );
        if i > 0 {
            two(out);
            assert!(all.contains("vercy::store::database"), "case {i}: {all}");
        }
    }
    assert!(said(&cases[1]).contains("password authentication failed"));
    assert!(said(&cases[4]).contains("no_such_table"));
}

#[test]
fn postgres_reads_the_pg_environment() {
    let Some((url, password)) = pg() else { return };
    // host and port from PGHOST / PGPORT, the database from PGDATABASE, the user from PGUSER
    let (_, query) = url.split_once('?').unwrap();
    let mut host = "";
    let mut port = "";
    for pair in query.split('&') {
        match pair.split_once('=') {
            Some(("host", h)) => host = h,
            Some(("port", p)) => port = p,
            _ => {}
        }
    }
    let out = vercy()
        .env("PGHOST", host)
        .env("PGPORT", port)
        .env("PGUSER", "vercy")
        .env("PGDATABASE", "vercy_test")
        .env("PGPASSWORD", &password)
        .args(["check", "postgresql://", "--map", "langgraph", "--json"])
        .output()
        .unwrap();
    assert_eq!(report(&out)["records"], 4, "{}", stderr_of(&out));
    let out = vercy()
        .env("PGPORT", "not-a-port")
        .args(["check", "postgresql:///x"])
        .output()
        .unwrap();
    two(&out);
    assert!(said(&out).contains("PGPORT"));
}

#[test]
fn a_postgres_read_is_one_snapshot_while_a_writer_goes_on() {
    let Some((url, password)) = pg() else { return };
    let (_, query) = url.split_once('?').unwrap();
    let conninfo = format!(
        "{} user=vercy dbname=vercy_test password={password}",
        query.replace('&', " ")
    );
    let mut client = postgres::Client::connect(&conninfo, postgres::NoTls).expect("connect");
    client
        .batch_execute(
            "DROP TABLE IF EXISTS pairs; CREATE TABLE pairs (n bigserial, batch int, half int);
             INSERT INTO pairs (batch, half) SELECT g / 2, g % 2 FROM generate_series(0, 199999) g;",
        )
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut commits = 0u32;
            let mut batch = 100_000;
            while !stop.load(Ordering::Relaxed) {
                let mut tx = client.transaction().expect("the writer is never blocked");
                tx.execute(
                    "INSERT INTO pairs (batch, half) VALUES ($1, 0), ($1, 1)",
                    &[&batch],
                )
                .unwrap();
                tx.commit().unwrap();
                commits += 1;
                batch += 1;
            }
            commits
        })
    };
    let out = run_pg(
        &password,
        &[
            "export",
            &url,
            "--sql",
            "SELECT batch, half FROM pairs ORDER BY n",
        ],
    );
    stop.store(true, Ordering::Relaxed);
    let commits = writer.join().expect("the writer ran without an error");
    let rows = records(&stdout_of(&ok(out)));
    assert!(rows.len() >= 200_000);
    assert_eq!(rows.len() % 2, 0, "a transaction seen half");
    assert!(commits > 0);
}

// ---- SQLite without other programs: databases made here --------------------------------

fn memories_db(dir: &Path) -> PathBuf {
    let path = dir.join("memories.sqlite");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE memories (doc JSON);
         CREATE TABLE flat (id INTEGER PRIMARY KEY, record_id TEXT, score REAL, meta JSON,
                            note TEXT, raw BLOB, at TIMESTAMP);",
    )
    .unwrap();
    let text = std::fs::read_to_string(fixture("live/memories.jsonl")).unwrap();
    for line in text.lines() {
        conn.execute("INSERT INTO memories (doc) VALUES (?1)", [line])
            .unwrap();
    }
    conn.execute(
        "INSERT INTO flat (record_id, score, meta, note, raw, at) VALUES
         ('F-1', 0.1, '{\"a\": [1, 2]}', '{\"not\": \"nested\"}', x'00ff', '2026-01-02 03:04:05'),
         ('F-2', 1e16, NULL, 'line\nbreak \"q\"', NULL, '2026-01-02T03:04:05.123+01:00')",
        [],
    )
    .unwrap();
    path
}

#[test]
fn any_sqlite_table_or_query_is_one_record_per_row() {
    let tmp = tempfile::tempdir().unwrap();
    let db = memories_db(tmp.path());
    let store = format!("sqlite:{}", db.display());
    let docs = fixture("live/memories.jsonl");
    let docs = docs.to_str().unwrap();
    for args in [
        &["--sql", "SELECT doc FROM memories"][..],
        &["--table", "memories"],
    ] {
        let ours = run(&[&["check", &store, "--json"][..], args].concat());
        let theirs = run(&["check", docs, "--json"]);
        assert_eq!(ours.status.code(), theirs.status.code());
        assert_eq!(report(&ours), report(&theirs), "{args:?}");
        let shape = serde_json::from_slice::<Value>(&ours.stdout).unwrap()["shape"].clone();
        assert!(shape.as_str().unwrap().starts_with("SQLite "), "{shape}");
    }
    let flat = stdout_of(&ok(run(&["export", &store, "--table", "flat"])));
    assert_eq!(
        flat,
        concat!(
            r#"{"id": 1, "record_id": "F-1", "score": 0.1, "meta": {"a": [1, 2]}, "note": "{\"not\": \"nested\"}", "raw": "\\x00ff", "at": "2026-01-02 03:04:05"}"#,
            "\n",
            r#"{"id": 2, "record_id": "F-2", "score": 1e+16, "meta": null, "note": "line\nbreak \"q\"", "raw": null, "at": "2026-01-02T03:04:05.123+01:00"}"#,
            "\n"
        )
    );
    // a query's own column names are the record's keys
    let renamed = run(&[
        "compact",
        &store,
        "--sql",
        "SELECT record_id, at AS valid_from FROM flat ORDER BY id DESC",
    ]);
    let text = stdout_of(&ok(renamed));
    assert_eq!(
        text.lines().skip(1).collect::<Vec<_>>(),
        [
            "F-2|2026-01-02T03:04:05.123+01:00",
            "F-1|2026-01-02 03:04:05"
        ]
    );
}

#[test]
fn a_sqlite_database_that_is_not_a_known_store_names_its_tables() {
    let tmp = tempfile::tempdir().unwrap();
    let db = memories_db(tmp.path());
    let out = run(&["check", db.to_str().unwrap()]);
    two(&out);
    let err = said(&out);
    assert!(err.contains("found tables flat, memories"), "{err}");
    assert!(
        err.contains("--table flat") && err.contains("--sql"),
        "{err}"
    );
    let out = run(&["check", db.to_str().unwrap(), "--table", "nope"]);
    two(&out);
    assert!(said(&out).contains("no table `nope`"));
    // a query that would write is refused before it runs
    let out = run(&[
        "check",
        db.to_str().unwrap(),
        "--sql",
        "DELETE FROM memories",
    ]);
    two(&out);
    let conn = Connection::open(&db).unwrap();
    let n: i64 = conn
        .query_row("SELECT count(*) FROM memories", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 4);
}

#[test]
fn locked_corrupt_and_missing_databases_are_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let db = memories_db(tmp.path());
    let store = format!("sqlite:{}", db.display());
    // a rollback-journal database held by a writer's exclusive lock
    let holder = Connection::open(&db).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let out = run(&["check", &store, "--table", "memories"]);
    two(&out);
    assert!(said(&out).contains("locked"), "{}", stderr_of(&out));
    holder.execute_batch("ROLLBACK").unwrap();
    // damaged: the header and then noise; truncated mid-page
    let noise = tmp.path().join("noise.db");
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend((0..8192u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8));
    std::fs::write(&noise, &bytes).unwrap();
    let out = run(&["check", noise.to_str().unwrap()]);
    two(&out);
    assert!(said(&out).contains("vercy::store::database"));
    let not_sqlite = format!("sqlite:{}", fixture("reference-store.jsonl").display());
    let out = run(&["check", &not_sqlite]);
    two(&out);
    assert!(said(&out).contains("not a SQLite database"));
    let out = run(&["check", "sqlite:/no/such/memories.db"]);
    two(&out);
    assert!(said(&out).contains("no such file"));
    // --table on a file that is not a database
    let out = run(&[
        "check",
        fixture("reference-store.jsonl").to_str().unwrap(),
        "--table",
        "x",
    ]);
    two(&out);
}

#[test]
fn import_into_a_database_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let db = memories_db(tmp.path());
    let before = std::fs::read(&db).unwrap();
    let dump = fixture("engrama/sample-export-0.18.1.ndjson");
    for into in [db.display().to_string(), format!("sqlite:{}", db.display())] {
        let out = run(&["import", dump.to_str().unwrap(), "--into", &into]);
        two(&out);
        assert!(
            said(&out).contains("does not write other programs' schemas"),
            "{}",
            stderr_of(&out)
        );
    }
    assert_eq!(std::fs::read(&db).unwrap(), before);
    // refused before any connection, and the URL's password is not in the message
    let url = "postgresql://vercy:s3cret-pw@localhost:1/none";
    let out = run(&["import", dump.to_str().unwrap(), "--into", url]);
    two(&out);
    assert!(said(&out).contains("is a database"), "{}", stderr_of(&out));
    assert!(!said(&out).contains("s3cret-pw"), "{}", stderr_of(&out));
    // a database is a fine thing to import from
    let store = tmp.path().join("out.jsonl");
    let out = run(&[
        "import",
        &format!("sqlite:{}", db.display()),
        "--table",
        "memories",
        "--into",
        store.to_str().unwrap(),
    ]);
    ok(out);
    assert_eq!(std::fs::read_to_string(&store).unwrap().lines().count(), 4);
}

#[test]
fn a_wal_reader_is_one_snapshot_and_never_blocks_the_writer() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("busy.db");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode = WAL;
         CREATE TABLE pairs (n INTEGER PRIMARY KEY, batch INTEGER, half INTEGER);
         BEGIN;
         WITH RECURSIVE g(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM g WHERE i < 199999)
           INSERT INTO pairs (batch, half) SELECT i / 2, i % 2 FROM g;
         COMMIT;",
    )
    .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            // no busy timeout: a writer that had to wait would fail at once
            conn.busy_timeout(std::time::Duration::ZERO).unwrap();
            let mut commits = 0u32;
            let mut batch = 100_000i64;
            while !stop.load(Ordering::Relaxed) {
                conn.execute_batch(&format!(
                    "BEGIN IMMEDIATE; INSERT INTO pairs (batch, half) VALUES ({batch}, 0), \
                     ({batch}, 1); COMMIT;"
                ))
                .expect("the writer is never blocked");
                commits += 1;
                batch += 1;
            }
            commits
        })
    };
    let out = run(&[
        "export",
        path.to_str().unwrap(),
        "--sql",
        "SELECT batch, half FROM pairs ORDER BY n",
    ]);
    stop.store(true, Ordering::Relaxed);
    let commits = writer.join().expect("the writer ran without an error");
    let rows = records(&stdout_of(&ok(out)));
    assert!(rows.len() >= 200_000);
    assert_eq!(rows.len() % 2, 0, "a transaction seen half");
    assert!(commits > 0);
}
