//! The house reads one way: every `crate::` and `super::` path in `src/` is checked against
//! the layers below, so a lower room that imports a higher one (and with it the circle that
//! once ran through `error.rs`) fails here, naming the file, the line and the two rooms.
//!
//! A room is a module of the crate, named by its path under `src/` (`store`, `check/format`);
//! a file belongs to the longest room its path starts with. A room may import any room of a
//! lower layer and itself; within one layer, nothing. `RULES` narrow a room further. A file's
//! `#[cfg(test)]` module is left out: a test reaches for whatever it tests with.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Bottom first. `lib` is `lib.rs` and `main.rs`, the top.
const LAYERS: &[&[&str]] = &[
    // the ground floor: no imports from the crate at all
    &["text", "bytes", "python", "profile", "file_at"],
    // what a command keeps past its memory budget, in an unnamed temporary file
    &["spill"],
    // the record model and the errors
    &["record", "error"],
    &["time", "mapping", "output"],
    // the HTML page and its timelines, drawn from a value any command fills in
    &["html"],
    // the reader, its rooms bottom up: a line decoded into a record; the record view; engrama's
    // NDJSON, whose lines the SQLite source renders and the view's roles write; where a store's
    // bytes come from; the block engine over them; the shapes; the map a store reads
    // through, which makes the views; the reader's doors (store/mod.rs)
    &["store/decode"],
    &["store/view"],
    &["store/shape/engrama"],
    &["store/source"],
    &["store/batch"],
    &["store/shape"],
    &["store/maps"],
    &["store"],
    // and what every report's forms share, and what the page's timelines gather from a
    // store, below the commands that print reports
    &["write", "progress", "select", "formats", "html/gather"],
    // the commands' libraries
    &[
        "check", "compact", "import", "recency", "resolve", "decay", "diff",
    ],
    &["mcp"],
    &["cli"],
    &["help", "cmd"],
    &["lib"],
];

/// What a room imports of another: `(room, within, allowed)`: a file of `room` may import,
/// of `within` and the rooms inside it, `room` itself and the rooms `allowed` only (rooms
/// beside it in one layer included), whatever the layers say.
const RULES: &[(&str, &str, &[&str])] = &[
    // the reader never reaches up: covered by LAYERS, and kept here as the sentence it is
    ("store", "check", &[]),
    // a source hands over bytes: it decodes no line and makes no view
    ("store/source", "store/decode", &[]),
    ("store/source", "store/view", &[]),
    // a shape hands over records and scanned lines: the views are made from them in maps.rs
    ("store/shape", "store/view", &[]),
    // the block engine knows bytes and lines, not what they hold
    ("store/batch", "store/decode", &[]),
    ("store/batch", "store/view", &[]),
    ("store/batch", "store/shape", &[]),
    // check's rooms, from the top: the formats print the report, never the checks that made
    // it; the report gathers the reference's findings and the value warnings ...
    ("check/format", "check", &["check/report"]),
    (
        "check/report",
        "check",
        &["check", "check/index", "check/values", "check/warnings"],
    ),
    // ... which the value checks write, reading the index ...
    (
        "check/values",
        "check",
        &[
            "check/index",
            "check/roles",
            "check/table",
            "check/warnings",
        ],
    ),
    ("check/warnings", "check", &["check/index", "check/table"]),
    // ... which reads the records, below every check
    ("check/index", "check", &["check/roles", "check/table"]),
    // a split store's shards and their merge go through the check's fold and its report,
    // never into a check's own state
    (
        "check/shard",
        "check",
        &["check", "check/report", "check/roles", "check/table"],
    ),
    // diff's formats print its report, never the matching that made it
    ("diff/format", "diff", &["diff/report"]),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src/") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file: `src/store/mod.rs` is `store`, `src/lib.rs` is empty.
fn module_of(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src()).expect("under src/");
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The rooms, longest first, so a file finds the narrowest room it is in.
fn rooms() -> Vec<String> {
    let mut rooms: Vec<String> = LAYERS
        .iter()
        .flat_map(|l| l.iter())
        .chain(RULES.iter().flat_map(|r| std::iter::once(&r.0).chain(r.2)))
        .map(|r| r.to_string())
        .collect();
    rooms.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    rooms.dedup();
    rooms
}

fn room_of(module: &[String], rooms: &[String]) -> Option<String> {
    if module.is_empty() {
        return Some("lib".into());
    }
    let joined = module.join("/");
    rooms
        .iter()
        .find(|r| joined == **r || joined.starts_with(&format!("{r}/")))
        .cloned()
}

fn layer_of(room: &str) -> usize {
    let top = room.split('/').next().unwrap_or(room);
    // a room listed by its own name (`html/gather`) is on its own layer, else on its top's
    LAYERS
        .iter()
        .position(|l| l.contains(&room))
        .or_else(|| LAYERS.iter().position(|l| l.contains(&top)))
        .unwrap_or_else(|| {
            panic!("room {room} has no layer: add it to LAYERS in tests/cli/house.rs")
        })
}

/// Every path a text names, with the byte offset where it starts and how many `super::` lead
/// it (0 for `crate::`): `crate::a::b`, each leaf of `use crate::{a, b::{c, d}}` (over several
/// lines too), `super::x`.
fn named_paths(text: &str) -> Vec<(usize, usize, Vec<String>)> {
    let bytes = text.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let (ups, start) = if text[i..].starts_with("crate::") {
            (0, i + "crate::".len())
        } else if text[i..].starts_with("super::") {
            let mut j = i;
            let mut ups = 0;
            while text[j..].starts_with("super::") {
                ups += 1;
                j += "super::".len();
            }
            (ups, j)
        } else {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let preceded =
            i > 0 && (is_ident(bytes[i - 1]) || bytes[i - 1] == b':' || bytes[i - 1] == b'$');
        if preceded {
            i = start;
            continue;
        }
        let mut leaves = Vec::new();
        let end = use_tree(text, start, Vec::new(), &mut leaves);
        for leaf in leaves {
            out.push((i, ups, leaf));
        }
        i = end.max(start);
    }
    out
}

/// Reads a use tree at `at` (`a::b`, `a::{b, c::d}`, `a::*`), pushing each leaf's whole path
/// after `prefix`; returns where the tree ends.
fn use_tree(
    text: &str,
    mut at: usize,
    prefix: Vec<String>,
    leaves: &mut Vec<Vec<String>>,
) -> usize {
    let skip_space = |at: usize| at + text[at..].len() - text[at..].trim_start().len();
    let mut path = prefix;
    loop {
        at = skip_space(at);
        let rest = &text[at..];
        if rest.starts_with('{') {
            let mut inner = at + 1;
            loop {
                inner = skip_space(inner);
                if text[inner..].starts_with('}') {
                    return inner + 1;
                }
                inner = use_tree(text, inner, path.clone(), leaves);
                inner = skip_space(inner);
                if text[inner..].starts_with(',') {
                    inner += 1;
                } else if text[inner..].starts_with('}') {
                    return inner + 1;
                } else {
                    return inner;
                }
            }
        }
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if len == 0 {
            if !path.is_empty() {
                leaves.push(path);
            }
            return at;
        }
        path.push(rest[..len].to_string());
        at += len;
        match text[at..].strip_prefix("::") {
            Some(r) if r.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '{') => {
                at += 2
            }
            _ => {
                leaves.push(path);
                return at;
            }
        }
    }
}

/// The text of a file with its comments blanked out (line breaks kept, so offsets still give
/// the line): `//` to the end of the line where it is outside a string.
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|line| {
            let mut in_string = false;
            let mut prev = ' ';
            let mut cut = line.len();
            for (i, c) in line.char_indices() {
                if c == '"' && prev != '\\' && prev != '\'' {
                    in_string = !in_string;
                } else if c == '/' && prev == '/' && !in_string {
                    cut = i - 1;
                    break;
                }
                prev = c;
            }
            format!("{}{}\n", &line[..cut], " ".repeat(line.len() - cut))
        })
        .collect()
}

/// The module a path names: the longest prefix of it that is a file of the crate.
fn target(path: &[String], modules: &BTreeSet<Vec<String>>) -> Vec<String> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|p| modules.contains(p))
        .unwrap_or_default()
}

#[test]
fn no_room_imports_a_room_above_it() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files.sort();
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(f)).collect();
    let rooms = rooms();
    let mut broken = Vec::new();
    for file in &files {
        let module = module_of(file);
        let from = room_of(&module, &rooms).unwrap_or_else(|| {
            panic!("{} is in no room: add its module to LAYERS", file.display())
        });
        let raw_text = std::fs::read_to_string(file).expect("read a source file");
        // a file's test module may reach for whatever it tests with: the house is the code
        let code_end = raw_text.find("#[cfg(test)]").unwrap_or(raw_text.len());
        let text = without_comments(&raw_text[..code_end]);
        let lines: Vec<&str> = raw_text.lines().collect();
        {
            for (at, ups, path) in named_paths(&text) {
                let n = text[..at].matches('\n').count();
                let raw = lines.get(n).copied().unwrap_or("");
                let absolute = if ups == 0 {
                    path
                } else {
                    // `super::` in a/b.rs and in a/b/mod.rs alike names a
                    let Some(keep) = module.len().checked_sub(ups) else {
                        continue;
                    };
                    module[..keep].iter().cloned().chain(path).collect()
                };
                let to_module = target(&absolute, &modules);
                let Some(to) = room_of(&to_module, &rooms) else {
                    continue;
                };
                if to == from {
                    continue;
                }
                let (lf, lt) = (layer_of(&from), layer_of(&to));
                let same_stack =
                    to.starts_with(&format!("{from}/")) || from.starts_with(&format!("{to}/"));
                let mut wrong = lt > lf || (lt == lf && !same_stack);
                for (room, within, allowed) in RULES {
                    if from == *room && (to == *within || to.starts_with(&format!("{within}/"))) {
                        wrong = !allowed.contains(&to.as_str());
                    }
                }
                if wrong {
                    broken.push(format!(
                        "{}:{}: {from} (layer {lf}) imports {to} (layer {lt}): {}",
                        file.strip_prefix(src()).unwrap_or(file).display(),
                        n + 1,
                        raw.trim()
                    ));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "imports that run up the house (tests/cli/house.rs lists the layers):\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_house_check_sees_an_import_that_runs_up() {
    // the reading of paths this test relies on
    let leaves = |text: &str| -> Vec<(usize, String)> {
        named_paths(text)
            .into_iter()
            .map(|(_, ups, p)| (ups, p.join("::")))
            .collect()
    };
    assert_eq!(
        leaves("use crate::{error::Result,\n    store::{self, Input}};"),
        vec![
            (0, "error::Result".to_string()),
            (0, "store::self".to_string()),
            (0, "store::Input".to_string())
        ]
    );
    assert_eq!(
        leaves("let x = super::super::values::Code::Date;"),
        vec![(2, "values::Code::Date".to_string())]
    );
    assert!(without_comments("a // crate::store").trim_end() == "a");
    assert!(without_comments("\"//\" crate::x").contains("crate::x"));
    assert!(layer_of("error") < layer_of("store"));
    assert!(layer_of("store") < layer_of("check"));
    let rooms = rooms();
    let room = |module: &[&str]| {
        let module: Vec<String> = module.iter().map(|m| m.to_string()).collect();
        room_of(&module, &rooms)
    };
    assert_eq!(room(&["store", "view"]).as_deref(), Some("store/view"));
    assert_eq!(
        room(&["store", "shape", "lines"]).as_deref(),
        Some("store/shape")
    );
    assert_eq!(
        room(&["store", "shape", "engrama"]).as_deref(),
        Some("store/shape/engrama")
    );
    assert_eq!(room(&["store", "maps"]).as_deref(), Some("store/maps"));
    assert!(layer_of("store/source") < layer_of("store/shape"));
    assert!(layer_of("store/shape/engrama") < layer_of("store/source"));
    assert!(layer_of("store/maps") < layer_of("store"));
    assert_eq!(
        room(&["check", "warnings", "code"]).as_deref(),
        Some("check/warnings")
    );
}
