//! Writes that never lose data (issue 18, items 1, 2, 3 and 9), with real processes: concurrent
//! imports, a lock held by this test, FIFOs, devices, symbolic and hard links, files owned by
//! another user, `kill -9`, and store names as long as a folder allows.
//!
//! Nothing here sleeps to let a race happen: a writer that must wait is made to wait on a lock
//! this test holds (it says so on stderr, which the test reads), and released by dropping it.
#![cfg(unix)]

use crate::common;

use common::{stderr_of, vercy};
use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("vercy")
}

/// `count` records whose ids start with `tag`.
fn dump(dir: &Path, tag: &str, count: usize) -> PathBuf {
    let path = dir.join(format!("{tag}.jsonl"));
    let mut text = String::new();
    for i in 0..count {
        text.push_str(&format!(
            "{{\"record_id\":\"{tag}-{i}\",\"valid_from\":\"2024-01-01\",\"valid_to\":null,\"value\":\"{tag} {i}\"}}\n"
        ));
    }
    fs::write(&path, text).unwrap();
    path
}

fn ids(store: &Path) -> BTreeSet<String> {
    fs::read_to_string(store)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["record_id"].as_str().unwrap().to_string()
        })
        .collect()
}

fn expected(tags: &[&str], count: usize) -> BTreeSet<String> {
    tags.iter()
        .flat_map(|t| (0..count).map(move |i| format!("{t}-{i}")))
        .collect()
}

/// The store's lock, held by this test until dropped (as another vercy would hold it).
fn hold_lock(store: &Path) -> File {
    let name = store.file_name().unwrap().to_str().unwrap();
    let lock = File::create(store.with_file_name(format!(".{name}.vercy-lock"))).unwrap();
    lock.lock().unwrap();
    lock
}

/// Start vercy with stderr piped.
fn spawn(args: &[&str], dir: &Path) -> Child {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Read the child's stderr up to its first line, which must say it waits for `store`; the rest
/// of stderr is returned by the thread that keeps reading it (so the child never blocks).
fn waits(child: &mut Child, store: &str) -> std::thread::JoinHandle<String> {
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(
        line.contains(&format!("waiting for another vercy writing {store}")),
        "expected the waiting notice first, got {line:?}"
    );
    std::thread::spawn(move || {
        let mut rest = String::new();
        err.read_to_string(&mut rest).unwrap();
        rest
    })
}

fn finish(child: Child) -> (i32, String) {
    let out = child.wait_with_output().unwrap();
    (out.status.code().unwrap_or(-1), stderr_of(&out))
}

/// stderr as one line: miette wraps a diagnostic to the width of a terminal.
fn said(out: &std::process::Output) -> String {
    let err = stderr_of(out).replace('│', " ");
    err.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Files in `dir` other than the ones named.
fn others(dir: &Path, known: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !known.contains(&n.as_str()))
        .collect();
    names.sort();
    names
}

/// Imports of disjoint dumps, all started while this test holds the store's lock (so they all
/// meet at the store at once), keep every record of every dump.
fn concurrent_imports_keep_every_record(writers: usize, count: usize) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let tags: Vec<String> = (0..writers).map(|w| format!("w{w}")).collect();
    let tags: Vec<&str> = tags.iter().map(String::as_str).collect();
    for t in &tags {
        dump(d, t, count);
    }
    fs::write(d.join("store.jsonl"), "").unwrap();
    let lock = hold_lock(&d.join("store.jsonl"));
    let mut children = Vec::new();
    for t in &tags {
        let dump = format!("{t}.jsonl");
        let mut child = spawn(&["import", &dump, "--into", "store.jsonl"], d);
        let rest = waits(&mut child, "store.jsonl");
        children.push((child, rest));
    }
    drop(lock);
    for (child, rest) in children {
        let (code, _) = finish(child);
        let rest = rest.join().unwrap();
        assert_eq!(code, 0, "{rest}");
        assert_eq!(
            rest.matches("waiting for another vercy").count(),
            0,
            "the waiting notice is said once: {rest}"
        );
    }
    assert_eq!(ids(&d.join("store.jsonl")), expected(&tags, count));
    assert_eq!(
        fs::read_to_string(d.join("store.jsonl"))
            .unwrap()
            .lines()
            .count(),
        writers * count
    );
}

#[test]
fn two_concurrent_imports_keep_every_record() {
    concurrent_imports_keep_every_record(2, 20_000);
}

#[test]
fn four_concurrent_imports_keep_every_record() {
    concurrent_imports_keep_every_record(4, 10_000);
}

#[test]
fn a_second_writer_waits_for_the_lock_and_then_merges() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    dump(d, "old", 3);
    dump(d, "new", 3);
    fs::copy(d.join("old.jsonl"), d.join("store.jsonl")).unwrap();
    let before = fs::read(d.join("store.jsonl")).unwrap();
    let lock = hold_lock(&d.join("store.jsonl"));
    let mut child = spawn(&["import", "new.jsonl", "--into", "store.jsonl"], d);
    let rest = waits(&mut child, "store.jsonl");
    // it waits: the store is as it was while the lock is held
    assert_eq!(fs::read(d.join("store.jsonl")).unwrap(), before);
    drop(lock);
    let (code, _) = finish(child);
    assert_eq!(code, 0, "{}", rest.join().unwrap());
    assert_eq!(ids(&d.join("store.jsonl")), expected(&["old", "new"], 3));
}

#[test]
fn no_wait_fails_at_once_while_another_writer_holds_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    dump(d, "old", 2);
    dump(d, "new", 2);
    fs::copy(d.join("old.jsonl"), d.join("store.jsonl")).unwrap();
    let before = fs::read(d.join("store.jsonl")).unwrap();
    let _lock = hold_lock(&d.join("store.jsonl"));
    for args in [
        vec!["import", "new.jsonl", "--into", "store.jsonl", "--no-wait"],
        vec!["export", "new.jsonl", "-o", "store.jsonl", "--no-wait"],
        vec!["compact", "new.jsonl", "-o", "store.jsonl", "--no-wait"],
    ] {
        let out = vercy().current_dir(d).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = said(&out);
        assert!(
            err.contains("store.jsonl: another vercy is writing it"),
            "{err}"
        );
        assert!(err.contains("--no-wait"), "{err}");
        assert_eq!(fs::read(d.join("store.jsonl")).unwrap(), before);
    }
}

/// `export -o STORE` and `import --into STORE` at once: one after the other, never interleaved.
/// Export first: its records and the import's; import first: the export replaces the store with
/// its own. Without the lock, the import's rename can put back the store as it was before the
/// export, merged with the dump: neither.
#[test]
fn an_export_and_an_import_of_one_store_take_turns() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    dump(d, "old", 5_000);
    dump(d, "exported", 5_000);
    dump(d, "imported", 5_000);
    fs::copy(d.join("old.jsonl"), d.join("store.jsonl")).unwrap();
    let lock = hold_lock(&d.join("store.jsonl"));
    let mut export = spawn(&["export", "exported.jsonl", "-o", "store.jsonl"], d);
    let export_rest = waits(&mut export, "store.jsonl");
    let mut import = spawn(&["import", "imported.jsonl", "--into", "store.jsonl"], d);
    let import_rest = waits(&mut import, "store.jsonl");
    drop(lock);
    assert_eq!(finish(export).0, 0, "{}", export_rest.join().unwrap());
    assert_eq!(finish(import).0, 0, "{}", import_rest.join().unwrap());
    let got = ids(&d.join("store.jsonl"));
    let export_first = expected(&["exported", "imported"], 5_000);
    let import_first = expected(&["exported"], 5_000);
    assert!(
        got == export_first || got == import_first,
        "neither order: {} records",
        got.len()
    );
}

#[test]
fn a_fifo_is_written_through_and_stays_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let store = dump(d, "s", 3);
    for args in [
        vec!["export", "s.jsonl", "-o", "pipe"],
        vec!["import", "s.jsonl", "--into", "pipe"],
        vec!["compact", "s.jsonl", "-o", "pipe"],
    ] {
        let fifo = d.join("pipe");
        let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(fifo).unwrap())
        };
        let out = vercy().current_dir(d).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr_of(&out));
        // checked before the reader is joined: had vercy replaced the FIFO, nothing would
        // ever open it for writing and the reader would wait for ever
        assert!(
            fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(),
            "{args:?} replaced the FIFO"
        );
        let read = reader.join().unwrap();
        if args[0] == "compact" {
            assert!(String::from_utf8(read).unwrap().starts_with("# record_id|"));
        } else {
            assert_eq!(read, fs::read(&store).unwrap(), "{args:?}");
        }
        assert_eq!(others(d, &["s.jsonl", "pipe"]), Vec::<String>::new());
        fs::remove_file(&fifo).unwrap();
    }
}

/// A store read from a FIFO (`vercy check <(…)`): looked at for a database header it would
/// lose its first bytes to the look, or wait for a writer that has not come yet.
#[test]
fn a_fifo_store_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let store = dump(d, "s", 3);
    let fifo = d.join("in");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let writer = {
        let (fifo, text) = (fifo.clone(), fs::read(&store).unwrap());
        std::thread::spawn(move || fs::write(fifo, text).unwrap())
    };
    let out = vercy()
        .current_dir(d)
        .args(["check", "in", "--json"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    writer.join().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["records"], 3, "{report}");
}

#[test]
fn a_character_device_is_written_through_never_replaced() {
    if common::root_user("to make a character device (mknod)").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    dump(d, "s", 3);
    // a null device of our own: the real /dev/null is not put at risk by a failing vercy
    let made = Command::new("mknod")
        .args(["null", "c", "1", "3"])
        .current_dir(d)
        .status()
        .unwrap();
    assert!(made.success());
    let opens = fs::OpenOptions::new().write(true).open(d.join("null"));
    if common::needs(
        opens.ok(),
        "a temporary folder whose file system opens devices (it is mounted nodev)",
        "set TMPDIR to a folder on another file system",
    )
    .is_none()
    {
        return;
    }
    for args in [
        vec!["export", "s.jsonl", "-o", "null"],
        vec!["import", "s.jsonl", "--into", "null"],
        vec!["compact", "s.jsonl", "-o", "null"],
    ] {
        let out = vercy().current_dir(d).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr_of(&out));
        let meta = fs::symlink_metadata(d.join("null")).unwrap();
        assert!(
            meta.file_type().is_char_device(),
            "{args:?} replaced the device"
        );
        assert_eq!(meta.rdev(), fs::metadata("/dev/null").unwrap().rdev());
        assert_eq!(others(d, &["s.jsonl", "null"]), Vec::<String>::new());
    }
}

#[test]
fn a_symlinked_store_is_rewritten_at_its_target_and_stays_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::create_dir(d.join("real")).unwrap();
    dump(d, "old", 2);
    dump(d, "new", 2);
    fs::copy(d.join("old.jsonl"), d.join("real/store.jsonl")).unwrap();
    std::os::unix::fs::symlink("real/store.jsonl", d.join("link")).unwrap();
    let out = vercy()
        .current_dir(d)
        .args(["import", "new.jsonl", "--into", "link"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(fs::symlink_metadata(d.join("link"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        fs::read_link(d.join("link")).unwrap(),
        Path::new("real/store.jsonl")
    );
    assert_eq!(
        ids(&d.join("real/store.jsonl")),
        expected(&["old", "new"], 2)
    );

    // export through the link too; and the lock is the target's, beside it
    let out = vercy()
        .current_dir(d)
        .args(["export", "old.jsonl", "-o", "link"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(fs::symlink_metadata(d.join("link"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(ids(&d.join("real/store.jsonl")), expected(&["old"], 2));
    let _lock = hold_lock(&d.join("real/store.jsonl"));
    let out = vercy()
        .current_dir(d)
        .args(["import", "new.jsonl", "--into", "link", "--no-wait"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
}

#[test]
fn a_dangling_symlink_is_an_error_naming_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    dump(d, "new", 2);
    std::os::unix::fs::symlink("gone/store.jsonl", d.join("link")).unwrap();
    for args in [
        vec!["import", "new.jsonl", "--into", "link"],
        vec!["export", "new.jsonl", "-o", "link"],
    ] {
        let out = vercy().current_dir(d).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = said(&out);
        assert!(
            err.contains("link: is a symbolic link to gone/store.jsonl, which does not exist"),
            "{err}"
        );
        assert!(fs::symlink_metadata(d.join("link"))
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(!d.join("gone").exists());
    }
}

#[test]
fn a_hard_linked_store_is_refused_unless_asked_to_break_the_link() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    dump(d, "old", 2);
    dump(d, "new", 2);
    fs::copy(d.join("old.jsonl"), d.join("store.jsonl")).unwrap();
    fs::hard_link(d.join("store.jsonl"), d.join("other-name")).unwrap();
    let before = fs::read(d.join("store.jsonl")).unwrap();
    for args in [
        vec!["import", "new.jsonl", "--into", "store.jsonl"],
        vec!["export", "new.jsonl", "-o", "store.jsonl"],
    ] {
        let out = vercy().current_dir(d).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = said(&out);
        assert!(
            err.contains("store.jsonl: has 2 names (hard links)"),
            "{err}"
        );
        assert!(err.contains("--break-hardlinks"), "{err}");
        assert_eq!(fs::read(d.join("store.jsonl")).unwrap(), before);
        assert_eq!(fs::metadata(d.join("store.jsonl")).unwrap().nlink(), 2);
    }
    let out = vercy()
        .current_dir(d)
        .args([
            "import",
            "new.jsonl",
            "--into",
            "store.jsonl",
            "--break-hardlinks",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(ids(&d.join("store.jsonl")), expected(&["old", "new"], 2));
    assert_eq!(fs::read(d.join("other-name")).unwrap(), before);
}

#[test]
fn a_rewritten_store_keeps_its_owner_group_and_mode() {
    if common::root_user("to give a store to nobody:nogroup (chown)").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    dump(d, "old", 2);
    dump(d, "new", 2);
    for (mode, args) in [
        (0o600, vec!["import", "new.jsonl", "--into", "store.jsonl"]),
        (0o640, vec!["export", "new.jsonl", "-o", "store.jsonl"]),
        (0o604, vec!["compact", "new.jsonl", "-o", "store.jsonl"]),
    ] {
        let store = d.join("store.jsonl");
        fs::copy(d.join("old.jsonl"), &store).unwrap();
        std::os::unix::fs::chown(&store, Some(65534), Some(65534)).unwrap();
        fs::set_permissions(&store, fs::Permissions::from_mode(mode)).unwrap();
        let out = vercy().current_dir(d).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr_of(&out));
        let meta = fs::metadata(&store).unwrap();
        assert_eq!((meta.uid(), meta.gid()), (65534, 65534), "{args:?}");
        assert_eq!(meta.mode() & 0o7777, mode, "{args:?}");
        if args[0] == "import" {
            assert_eq!(ids(&store), expected(&["old", "new"], 2));
        }
    }
}

#[test]
fn a_new_file_follows_the_umask() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    dump(d, "new", 2);
    for (umask, mode) in [("022", 0o644), ("027", 0o640), ("077", 0o600)] {
        for args in [
            format!("import new.jsonl --into store-{umask}.jsonl"),
            format!("export new.jsonl -o out-{umask}.jsonl"),
        ] {
            let status = Command::new("sh")
                .arg("-c")
                .arg(format!("umask {umask}; exec \"$0\" {args}",))
                .arg(bin())
                .current_dir(d)
                .stderr(Stdio::null())
                .status()
                .unwrap();
            assert!(status.success(), "{args}");
            let written = args.split(' ').next_back().unwrap();
            let meta = fs::metadata(d.join(written)).unwrap();
            assert_eq!(meta.mode() & 0o777, mode, "umask {umask}: {args}");
        }
    }
}

/// The temporary files a `kill -9` leaves are removed by the next writer of that store, and
/// only that store's.
#[test]
fn the_next_writer_removes_the_temporary_files_a_kill_left() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    dump(d, "new", 2);
    // an import from a pipe that this test keeps open: it has made its temporary file (the
    // spool) and waits for the rest of the dump when it is killed
    let mut child = Command::new(bin())
        .args(["import", "-", "--into", "store.jsonl"])
        .current_dir(d)
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let line = "{\"record_id\":\"piped\",\"value\":\"x\"}\n";
    let mut lines = String::new();
    for i in 0..60_000 {
        lines.push_str(&line.replace("piped", &format!("piped-{i}")));
    }
    stdin.write_all(lines.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let since = Instant::now();
    let temp = loop {
        let temps = others(d, &["new.jsonl", ".store.jsonl.vercy-lock"]);
        if let Some(t) = temps.into_iter().find(|n| n.ends_with(".vercy-tmp")) {
            break t;
        }
        assert!(
            since.elapsed() < Duration::from_secs(120),
            "no temporary file appeared"
        );
        std::thread::yield_now();
    };
    assert!(temp.starts_with(".store.jsonl."), "{temp}");
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    drop(stdin);
    assert!(d.join(&temp).exists(), "the kill left its temporary file");
    // another store's temporary file, and a file that only looks like one, stay
    fs::write(d.join(".store.jsonl.b.Ab12Z9.vercy-tmp"), "other store").unwrap();
    fs::write(d.join(".store.jsonl.notmine.vercy-tmp"), "not a temp name").unwrap();

    let out = vercy()
        .current_dir(d)
        .args(["import", "new.jsonl", "--into", "store.jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(
        others(d, &["new.jsonl", "store.jsonl", ".store.jsonl.vercy-lock"]),
        vec![
            ".store.jsonl.b.Ab12Z9.vercy-tmp".to_string(),
            ".store.jsonl.notmine.vercy-tmp".to_string()
        ]
    );
    assert_eq!(ids(&d.join("store.jsonl")), expected(&["new"], 2));
}

#[test]
fn store_names_up_to_name_max_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    dump(d, "new", 2);
    for len in [237, 238, 250, 255] {
        let name = format!("{}.jsonl", "s".repeat(len - 6));
        assert_eq!(name.len(), len);
        for args in [
            vec!["import", "new.jsonl", "--into", &name],
            vec!["export", "new.jsonl", "-o", &name],
        ] {
            let out = vercy().current_dir(d).args(&args).output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{len}: {}", stderr_of(&out));
            assert_eq!(ids(&d.join(&name)), expected(&["new"], 2), "{len}");
        }
        for entry in fs::read_dir(d).unwrap() {
            let entry = entry.unwrap().file_name();
            assert!(entry.len() <= 255);
            assert!(
                !entry.to_string_lossy().ends_with(".vercy-tmp"),
                "{entry:?} left"
            );
        }
    }
}

#[test]
fn a_store_in_a_missing_folder_is_an_error_naming_the_lock_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    dump(d, "new", 2);
    let out = vercy()
        .current_dir(d)
        .args(["import", "new.jsonl", "--into", "missing/store.jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = said(&out);
    assert!(
        err.contains("missing/store.jsonl: cannot create its lock file"),
        "{err}"
    );
    assert!(!d.join("missing").exists());
}

/// `vercy` run as nobody:nogroup (through setpriv), when this test runs as root.
fn as_nobody(args: &[&str], dir: &Path) -> Option<std::process::Output> {
    common::root_user("to run vercy as another user")?;
    let out = Command::new(common::program("setpriv")?)
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(bin())
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("setpriv runs");
    Some(out)
}

/// A writer that may not give the rewritten store its owner refuses, rather than handing the
/// store to itself.
#[test]
fn a_store_whose_owner_cannot_be_kept_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    dump(d, "old", 2);
    dump(d, "new", 2);
    let store = d.join("store.jsonl");
    fs::copy(d.join("old.jsonl"), &store).unwrap();
    // nobody may write the folder and the store, but the store is root's
    fs::set_permissions(d, fs::Permissions::from_mode(0o777)).unwrap();
    fs::set_permissions(&store, fs::Permissions::from_mode(0o666)).unwrap();
    let before = fs::read(&store).unwrap();
    let Some(out) = as_nobody(&["import", "new.jsonl", "--into", "store.jsonl"], d) else {
        return;
    };
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    let err = said(&out);
    assert!(
        err.contains("cannot give the new file the old one's owner 0, group 0 and mode 0666"),
        "{err}"
    );
    assert_eq!(fs::read(&store).unwrap(), before);
    assert_eq!(fs::metadata(&store).unwrap().uid(), 0);
    assert!(others(
        d,
        &[
            "old.jsonl",
            "new.jsonl",
            "store.jsonl",
            ".store.jsonl.vercy-lock"
        ]
    )
    .is_empty());
}

#[test]
fn a_store_in_a_folder_that_cannot_be_written_is_an_error_naming_the_lock_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    dump(d, "old", 2);
    dump(d, "new", 2);
    let store = d.join("store.jsonl");
    fs::copy(d.join("old.jsonl"), &store).unwrap();
    fs::set_permissions(d, fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::chown(&store, Some(65534), Some(65534)).unwrap();
    let before = fs::read(&store).unwrap();
    let Some(out) = as_nobody(&["import", "new.jsonl", "--into", "store.jsonl"], d) else {
        return;
    };
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    let err = said(&out);
    assert!(
        err.contains("store.jsonl: cannot create its lock file"),
        "{err}"
    );
    assert!(err.contains("must exist and be writable"), "{err}");
    assert_eq!(fs::read(&store).unwrap(), before);
}
