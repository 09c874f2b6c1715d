//! Chroma collections read as stores (issue 53): `chroma:PATH[#collection]` on a store the
//! real chromadb wrote (`tests/live/make_chroma.py`, from `fixtures/live/chroma/`, run by
//! `scripts/live-stores.sh`), and mem0's pgvector table read through the `--sql` recipe of the
//! README. Without the live stores each test says `skipped` (a failure in CI).

use crate::common::{fixture, stderr_of, stdout_of};
use crate::common::{live_dir, postgres as pg};
use crate::live_stores::{ok, records, report, run, run_pg, said, two};
use rusqlite::Connection;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Output;
use tempfile::TempDir;

/// The Chroma folder chromadb wrote.
fn chroma_dir() -> Option<PathBuf> {
    live_dir().map(|dir| dir.join("chroma"))
}

fn store(folder: &Path, collection: &str) -> String {
    match collection {
        "" => format!("chroma:{}", folder.display()),
        c => format!("chroma:{}#{c}", folder.display()),
    }
}

/// What chromadb's own API gave back for a collection (see make_chroma.py).
fn api_dump(collection: &str) -> PathBuf {
    live_dir()
        .expect("the live dir")
        .join(format!("chroma-{collection}.api.jsonl"))
}

/// A copy of the Chroma folder, to damage.
fn copy_of(folder: &Path) -> TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("cp")
        .args(["-a", &format!("{}/.", folder.display())])
        .arg(tmp.path())
        .status()
        .unwrap();
    assert!(status.success());
    tmp
}

/// Every file under `dir` with its SHA-256 (`sha256sum`), in path order.
fn digests(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            match path.is_dir() {
                true => todo.push(path),
                false => files.push(path),
            }
        }
    }
    files.sort();
    let out = std::process::Command::new("sha256sum")
        .args(&files)
        .output()
        .expect("sha256sum runs");
    assert!(out.status.success());
    stdout_of(&out).lines().map(str::to_string).collect()
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

/// `resolve` of the concept bonus_pool in `facts` on 2026-07-01 for `caller`, as JSON.
fn resolve_bonus_pool(facts: &str, caller: &str) -> Vec<String> {
    let host = fixture("live/chroma/host.yaml");
    #[rustfmt::skip]
    let args = [
        "resolve", facts, "--map", "chroma", "--concept", "bonus_pool", "--as-of", "2026-07-01",
        "--caller", caller, "--host", host.to_str().unwrap(), "--format", "json",
    ];
    strings(&args)
}

/// The record_id of each line of a compact text.
fn ids_of(compact: &str) -> Vec<String> {
    compact
        .lines()
        .skip(1)
        .map(|l| l.split('|').next().unwrap().to_string())
        .collect()
}

fn no_panic(out: &Output) {
    assert!(!stderr_of(out).contains("panicked"), "{}", stderr_of(out));
}

/// The findings of a check report as (field, offenders).
fn findings(report: &Value) -> Vec<(String, Vec<String>)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let offenders = f["offenders"].as_array().unwrap();
            (
                f["field"].as_str().unwrap().to_string(),
                offenders
                    .iter()
                    .map(|o| o.as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect()
}

fn owned(pairs: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
    pairs
        .iter()
        .map(|(f, o)| (f.to_string(), o.iter().map(|s| s.to_string()).collect()))
        .collect()
}

/// The record_id of each embedding of `facts`, in the order they were added: the metadata's
/// record_id, else the embedding's id.
const FACTS: [&str; 8] = [
    "D-801",
    "D-802",
    "D-108",
    "D-110",
    "D-109",
    "emb-no-id",
    "emb-bare",
    "emb-empty",
];

const M1: &str = "5b1c3f7e-0d3a-4c7e-9a51-1f2e3d4c5b6a";
const M2: &str = "0f4e2a9c-6b7d-4e1f-8a2b-3c4d5e6f7a8b";
const M3: &str = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
const M4: &str = "c3d2e1f0-a9b8-4c7d-8e6f-5a4b3c2d1e0f";

#[test]
fn a_collection_reads_as_chromadbs_own_api_gives_it() {
    let Some(folder) = chroma_dir() else { return };
    let mut all = String::new();
    for collection in ["empty", "facts", "mem0"] {
        let ours = stdout_of(&ok(run(&["export", &store(&folder, collection)])));
        let theirs = match collection {
            "empty" => String::new(),
            c => std::fs::read_to_string(api_dump(c)).unwrap(),
        };
        // every value typed as chromadb gives it back: text, integers, floats, booleans,
        // lists of each, the document, the id; no vector
        assert_eq!(ours, theirs, "{collection}");
        all.push_str(&theirs);
    }
    // no collection named: every collection, in name order
    let every = stdout_of(&ok(run(&["export", &store(&folder, "")])));
    assert_eq!(every, all);
    let shape = |arg: &str| {
        let out = run(&["check", arg, "--json"]);
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["shape"].clone()
    };
    assert_eq!(shape(&store(&folder, "facts")), "Chroma collection facts");
    assert_eq!(
        shape(&store(&folder, "")),
        "Chroma collections empty, facts, mem0"
    );
    // the folder's own file names the same store
    let file = folder.join("chroma.sqlite3");
    let by_file = stdout_of(&ok(run(&[
        "export",
        &format!("chroma:{}#facts", file.display()),
    ])));
    assert_eq!(by_file, std::fs::read_to_string(api_dump("facts")).unwrap());
    // a collection made and never written to holds no record
    let empty = run(&["check", &store(&folder, "empty"), "--json"]);
    assert_eq!(empty.status.code(), Some(1));
    let r = report(&empty);
    assert_eq!(
        (r["records"].clone(), r["level"].clone()),
        (json!(0), json!(0))
    );
}

#[test]
fn check_gives_the_records_level_and_findings_of_a_collection() {
    let Some(folder) = chroma_dir() else { return };
    let facts = store(&folder, "facts");
    let out = run(&["check", &facts, "--map", "chroma", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let r = report(&out);
    assert_eq!(r["records"], 8);
    assert_eq!(r["level"], 0);
    // record_id where the metadata writes one, else the embedding's id
    assert_eq!(
        findings(&r),
        owned(&[
            ("valid_from", &["emb-bare", "emb-empty"]),
            ("valid_to", &["D-109", "emb-bare", "emb-empty"]),
            // applies_to read from "EU, UK": a rule, without does_not_apply_to
            ("does_not_apply_to", &["D-802"]),
            // all but D-801, the one record that names one
            ("owner_role", &FACTS[1..]),
            (
                "supersedes",
                &[
                    "D-801",
                    "D-108",
                    "D-109",
                    "emb-no-id",
                    "emb-bare",
                    "emb-empty"
                ]
            ),
        ])
    );
    let warnings: Vec<(&str, &Value)> = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w["code"].as_str().unwrap(), &w["records"]))
        .collect();
    assert_eq!(
        warnings,
        [(
            "value.superseded_valid_to",
            &json!([{"record": "D-801", "line": 1}, {"record": "D-108", "line": 3}])
        )]
    );
    // the report of the same records as a JSON lines file: the source adds nothing
    for map in ["chroma", "chroma,release_to=release_to"] {
        let ours = run(&["check", &facts, "--map", map, "--json", "--strict"]);
        let dump = api_dump("facts");
        let theirs = run(&[
            "check",
            dump.to_str().unwrap(),
            "--map",
            map,
            "--json",
            "--strict",
        ]);
        assert_eq!(ours.status.code(), theirs.status.code());
        assert_eq!(report(&ours), report(&theirs), "--map {map}");
    }

    // mem0's payload, through the mem0 map: created_at is not valid_from, no memory states
    // valid_to (mem0 writes expiration_date only when asked)
    let out = run(&["check", &store(&folder, "mem0"), "--map", "mem0", "--json"]);
    let r = report(&out);
    assert_eq!(
        (r["records"].clone(), r["level"].clone()),
        (json!(4), json!(0))
    );
    assert_eq!(
        findings(&r),
        owned(&[
            ("valid_from", &[M3]),
            ("valid_to", &[M1, M3, M4]),
            ("owner_role", &[M1, M3, M4]),
            ("supersedes", &[M1, M2, M3]),
        ])
    );
    assert_eq!(r["warnings"], json!([]));
}

#[test]
fn lists_written_in_text_are_lists_where_the_map_says_so() {
    let Some(folder) = chroma_dir() else { return };
    let facts = store(&folder, "facts");
    let compact = |args: &[&str]| {
        let out = ok(run(&[&["compact", &facts][..], args].concat()));
        stdout_of(&out)
    };
    let header = "# record_id|valid_from|valid_to|source|concept_owner|owner_role|supersedes|release_to|value\n";
    // "finance, hr" (text) and ["hr", "finance"] (a list chromadb keeps) name hr
    assert_eq!(
        compact(&["--map", "chroma", "--reader", "hr"]),
        format!(
            "{header}D-110|2026-06-01|2027-12-31|FIN-BRD-9|finance|||finance,hr|the bonus pool is 5% of payroll\n\
             emb-no-id|2025-12-24|2026-01-01|Ünïcode \"quoted\" — ✓\\nsecond line|hr|||hr,finance|the office closes between Christmas and New Year\n"
        )
    );
    // "finance" is one party, a list of one
    assert_eq!(
        ids_of(&compact(&["--map", "chroma", "--reader", "finance"])),
        ["D-108", "D-110", "emb-no-id"]
    );
    // read as written, text is one party: "finance, hr" names neither
    assert_eq!(
        ids_of(&compact(&[
            "--map",
            "chroma,release_to=release_to",
            "--reader",
            "hr"
        ])),
        ["emb-no-id"]
    );
    // selection by date and concept; supersedes "D-801" read as a list of one
    assert_eq!(
        compact(&[
            "--map",
            "chroma,release_to=concept_owner",
            "--as-of",
            "2026-07-01",
            "--concept",
            "data_retention",
            "--reader",
            "legal",
        ]),
        format!("{header}D-802|2026-06-01|2030-12-31|LEG-POL-04|legal||D-801|legal|customer records are kept for seven years after the contract ends\n")
    );
    // mem0's parties: release_to where written (JSON text), else user_id and agent_id
    let mem0 = store(&folder, "mem0");
    let out = ok(run(&[
        "compact",
        &mem0,
        "--map",
        "mem0",
        "--reader",
        "concierge",
    ]));
    assert_eq!(ids_of(&stdout_of(&out)), [M1, M3, M4]);
    assert!(stderr_of(&out).contains("withheld 1 record"));
    let nurse = stdout_of(&ok(run(&[
        "compact", &mem0, "--map", "mem0", "--reader", "nurse",
    ])));
    assert_eq!(nurse.lines().count(), 2, "{nurse}");
    assert!(nurse.contains(&format!(
        "{M2}|2025-11-02|2027-01-01|intake-form|alice|patient||alice,nurse|Allergic to peanuts"
    )));
}

#[test]
fn export_and_resolve_read_a_collection_and_withhold_what_they_must() {
    let Some(folder) = chroma_dir() else { return };
    let facts = store(&folder, "facts");
    // engrama node lines keyed by the record_id the map reads
    let out = stdout_of(&ok(run(&[
        "export", &facts, "--map", "chroma", "--to", "engrama",
    ])));
    let nodes = records(out.split_once('\n').unwrap().1);
    let keys: Vec<&Value> = nodes.iter().map(|n| &n["key_value"]).collect();
    assert_eq!(keys, FACTS);
    assert_eq!(
        nodes[5]["properties"]["counts"],
        json!([1, 2, 9007199254740993u64])
    );

    let resolve = |caller: &str| {
        let args = resolve_bonus_pool(&facts, caller);
        run(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let finance: Value = serde_json::from_slice(&ok(resolve("finance")).stdout).unwrap();
    assert_eq!(finance["outcome"], "answered");
    assert_eq!(finance["answer"]["record_id"], "D-110");
    assert_eq!(finance["answer"]["supersedes"], "D-108");
    assert_eq!(
        finance["reasons"],
        json!([{"code": "superseded", "records": ["D-108"]}])
    );
    // hr reads D-110 and not D-108, which D-110 supersedes: D-108 crosses nowhere, not even
    // in the supersedes text of the answer
    let hr = ok(resolve("hr"));
    let answer: Value = serde_json::from_slice(&hr.stdout).unwrap();
    assert_eq!(answer["answer"]["record_id"], "D-110");
    assert_eq!(answer["answer"]["supersedes"], "");
    assert_eq!(answer["withheld"], 1);
    let all = format!("{}{}", stdout_of(&hr), stderr_of(&hr));
    for withheld in ["D-108", "emb-108", "4% of payroll", "FIN-BRD-3"] {
        assert!(!all.contains(withheld), "{withheld} crossed: {all}");
    }
}

#[test]
fn reading_changes_nothing_and_reads_no_vector() {
    let Some(folder) = chroma_dir() else { return };
    let before = digests(&folder);
    let facts = store(&folder, "facts");
    let out_dir = tempfile::tempdir().unwrap();
    let into = out_dir.path().join("copy.jsonl");
    for args in [
        strings(&["check", &facts, "--map", "chroma", "--strict"]),
        strings(&["compact", &facts, "--map", "chroma", "--reader", "hr"]),
        strings(&["export", &facts, "--map", "chroma", "--to", "engrama"]),
        strings(&["recency", &facts]),
        resolve_bonus_pool(&facts, "hr"),
        strings(&["import", &facts, "--into", into.to_str().unwrap()]),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(&args);
        no_panic(&out);
        assert_ne!(out.status.code(), Some(2), "{args:?}: {}", stderr_of(&out));
    }
    assert_eq!(digests(&folder), before, "the store's files are unchanged");
    assert_eq!(
        std::fs::read_to_string(&into).unwrap().lines().count(),
        8,
        "import from a collection"
    );

    // without its vectors (the HNSW folders gone, the log's vectors damaged) the store
    // reads the same: they were never read
    let copy = copy_of(&folder);
    for entry in std::fs::read_dir(copy.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            std::fs::remove_dir_all(path).unwrap();
        }
    }
    let conn = Connection::open(copy.path().join("chroma.sqlite3")).unwrap();
    let damaged = conn
        .execute("UPDATE embeddings_queue SET vector = x'00'", [])
        .unwrap();
    assert!(damaged > 0);
    drop(conn);
    let whole = stdout_of(&ok(run(&["export", &store(&folder, "")])));
    let without = stdout_of(&ok(run(&["export", &store(copy.path(), "")])));
    assert_eq!(without, whole);
}

#[test]
fn a_schema_vercy_does_not_know_is_refused_naming_both() {
    let Some(folder) = chroma_dir() else { return };
    for (dir, version, seen) in [
        ("metadb", 7, "metadb 7"),
        ("sysdb", 11, "sysdb 11"),
        ("logdb", 1, "logdb 1"),
    ] {
        let copy = copy_of(&folder);
        let conn = Connection::open(copy.path().join("chroma.sqlite3")).unwrap();
        conn.execute(
            "INSERT INTO migrations (dir, version, filename, sql, hash) VALUES (?1, ?2, 'x', '', '')",
            rusqlite::params![dir, version],
        )
        .unwrap();
        drop(conn);
        let out = run(&["check", &store(copy.path(), "facts")]);
        two(&out);
        no_panic(&out);
        let said = said(&out);
        assert!(
            said.contains("a Chroma schema vercy does not know"),
            "{said}"
        );
        assert!(said.contains(seen), "{said}");
        assert!(
            said.contains("up to migrations embeddings_queue 2, metadb 6, sysdb 10")
                && said.contains("chromadb 1.5.9"),
            "{said}"
        );
    }
}

#[test]
fn a_store_that_cannot_be_read_is_a_diagnostic_with_what_to_do() {
    let Some(folder) = chroma_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let check = |arg: &str| {
        let out = run(&["check", arg, "--map", "chroma"]);
        two(&out);
        no_panic(&out);
        said(&out)
    };
    // a folder without chroma.sqlite3
    let said_ = check(&format!("chroma:{}", tmp.path().display()));
    assert!(
        said_.contains("not a Chroma folder") && said_.contains("PersistentClient"),
        "{said_}"
    );
    // a chroma.sqlite3 that is another SQLite database, or not one at all
    let other = tmp.path().join("other");
    std::fs::create_dir(&other).unwrap();
    Connection::open(other.join("chroma.sqlite3"))
        .unwrap()
        .execute_batch("CREATE TABLE memories (doc TEXT)")
        .unwrap();
    let said_ = check(&format!("chroma:{}", other.display()));
    assert!(
        said_.contains("not a Chroma store") && said_.contains("memories"),
        "{said_}"
    );
    let text = tmp.path().join("text");
    std::fs::create_dir(&text).unwrap();
    std::fs::write(
        text.join("chroma.sqlite3"),
        "{\"record_id\": 1}\n".repeat(300),
    )
    .unwrap();
    assert!(check(&format!("chroma:{}", text.display())).contains("not a SQLite database"));
    // nothing there
    assert!(check("chroma:/no/such/folder").contains("no such file"));
    assert!(check("chroma:").contains("no folder named"));
    // a collection it does not hold
    let said_ = check(&store(&folder, "nope"));
    assert!(
        said_.contains("no collection `nope`") && said_.contains("empty, facts, mem0"),
        "{said_}"
    );

    // locked by a writer
    let copy = copy_of(&folder);
    let holder = Connection::open(copy.path().join("chroma.sqlite3")).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE").unwrap();
    assert!(check(&store(copy.path(), "facts")).contains("locked"));
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);

    // cut short mid-file
    let cut = copy_of(&folder);
    let file = cut.path().join("chroma.sqlite3");
    let len = std::fs::metadata(&file).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    let said_ = check(&store(cut.path(), "facts"));
    assert!(
        said_.contains("vercy::store::database")
            && said_.contains("the database file is corrupt")
            && said_.contains("sqlite3 FILE .recover"),
        "{said_}"
    );

    // a write in Chroma's log that its records do not show yet
    let behind = copy_of(&folder);
    let conn = Connection::open(behind.path().join("chroma.sqlite3")).unwrap();
    conn.execute(
        "INSERT INTO embeddings_queue (seq_id, operation, topic, id, vector, encoding, metadata) \
         SELECT max(seq_id) + 1, 0, (SELECT q.topic FROM embeddings_queue q WHERE q.id = 'emb-801'), \
         'emb-late', NULL, 'FLOAT32', '{}' FROM embeddings_queue",
        [],
    )
    .unwrap();
    drop(conn);
    let said_ = check(&store(behind.path(), "facts"));
    assert!(
        said_.contains("1 write(s) to collection `facts` are in Chroma's log")
            && said_.contains("get_collection(\"facts\")"),
        "{said_}"
    );
    // the other collections read on
    let out = run(&["check", &store(behind.path(), "mem0"), "--json"]);
    assert_eq!(report(&out)["records"], 4);
}

#[test]
fn a_chroma_store_is_read_and_never_written() {
    let Some(folder) = chroma_dir() else { return };
    let facts = store(&folder, "facts");
    let out = run(&["check", &facts, "--table", "embeddings"]);
    two(&out);
    assert!(
        said(&out).contains("not read by table or query"),
        "{}",
        said(&out)
    );
    let dump = fixture("engrama/sample-export-0.18.1.ndjson");
    let out = run(&["import", dump.to_str().unwrap(), "--into", &facts]);
    two(&out);
    assert!(said(&out).contains("is a database"), "{}", said(&out));
    // its SQLite file read as SQLite points at the chroma: source
    let file = folder.join("chroma.sqlite3");
    let out = run(&["check", file.to_str().unwrap()]);
    two(&out);
    // (miette breaks the path where it wraps)
    let joined = said(&out).replace(' ', "");
    assert!(
        joined.contains(&format!("`chroma:{}`", file.display())),
        "{joined}"
    );
}

/// mem0's pgvector table (id, vector, payload) through the README's recipe reads as the same
/// memories in Chroma do.
#[test]
fn mem0s_pgvector_table_reads_through_the_readme_recipe() {
    let (Some(folder), Some((url, password))) = (chroma_dir(), pg()) else {
        return;
    };
    let recipe =
        "SELECT payload || jsonb_build_object('id', id) FROM mem0 ORDER BY payload->>'created_at'";
    let readme = std::fs::read_to_string(fixture("../README.md")).unwrap();
    assert!(
        readme.contains(recipe),
        "the README gives the recipe tested here"
    );
    let ours = run_pg(
        &password,
        &["check", &url, "--sql", recipe, "--map", "mem0", "--json"],
    );
    let chroma = run(&["check", &store(&folder, "mem0"), "--map", "mem0", "--json"]);
    assert_eq!(
        ours.status.code(),
        chroma.status.code(),
        "{}",
        stderr_of(&ours)
    );
    let sorted = |r: &Value| {
        let mut f = findings(r);
        f.iter_mut().for_each(|(_, o)| o.sort());
        (r["records"].clone(), r["level"].clone(), f)
    };
    assert_eq!(sorted(&report(&ours)), sorted(&report(&chroma)));
    // oldest first, as the recipe orders them
    assert_eq!(
        findings(&report(&ours))[1],
        (
            "valid_to".to_string(),
            vec![M3.to_string(), M1.to_string(), M4.to_string()]
        )
    );
    let lines = |out: Output| {
        let mut l: Vec<String> = stdout_of(&ok(out)).lines().map(str::to_string).collect();
        l.sort();
        l
    };
    for reader in ["alice", "nurse"] {
        let pg_side = run_pg(
            &password,
            &[
                "compact", &url, "--sql", recipe, "--map", "mem0", "--reader", reader,
            ],
        );
        let chroma_side = run(&[
            "compact",
            &store(&folder, "mem0"),
            "--map",
            "mem0",
            "--reader",
            reader,
        ]);
        assert_eq!(lines(pg_side), lines(chroma_side), "--reader {reader}");
    }
}
