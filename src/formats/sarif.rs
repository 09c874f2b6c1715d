//! SARIF 2.1.0 for code scanning: the log, its one run and what every result is placed by.
//! GitHub takes at most [`MAX_RESULTS`] results a run: past them results are counted, not
//! written. Locations are URIs (a relative path percent-encoded against `SRCROOT`, an absolute
//! one as `file://`), and fingerprints are hashes that are the same in every run and on every
//! machine, so a result keeps its identity across runs. An unreadable store is a failed
//! invocation with the diagnostic as its notification.

use super::Failure;
use serde_json::{json, Value};
use std::io::{self, Write};

/// Results GitHub code scanning accepts in one run.
pub const MAX_RESULTS: usize = 25_000;
/// The base the relative paths are resolved against.
const BASE: &str = "SRCROOT";

/// A path as a URI reference: percent-encoded, `/` between segments; absolute: `file://`.
pub fn path_uri(path: &str) -> (String, bool) {
    let path = path.replace('\\', "/");
    let mut encoded = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                encoded.push(b as char)
            }
            _ => encoded.push_str(&format!("%{b:02X}")),
        }
    }
    if path.starts_with('/') {
        (format!("file://{encoded}"), true)
    } else {
        (encoded, false)
    }
}

/// The artifact location of a store's file.
fn artifact(store: &str) -> Value {
    match path_uri(store) {
        (uri, true) => json!({"uri": uri}),
        (uri, false) => json!({"uri": uri, "uriBaseId": BASE}),
    }
}

/// A store's file, at `line` when it is known (0: the file).
pub fn location(store: &str, line: u64) -> Value {
    if line > 0 {
        json!({"physicalLocation": {"artifactLocation": artifact(store),
                                    "region": {"startLine": line}}})
    } else {
        json!({"physicalLocation": {"artifactLocation": artifact(store)}})
    }
}

/// FNV-1a: a hash that is the same in every run and on every machine (the interners' hash
/// is seeded per process).
pub fn stable_hash(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in part.as_bytes().iter().chain(&[0u8]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

fn notification(f: &Failure) -> Value {
    let mut loc = json!({"physicalLocation": {"artifactLocation": artifact(&f.store)}});
    if let Some((line, column)) = f.position {
        loc["physicalLocation"]["region"] =
            json!({"startLine": line.max(1), "startColumn": column.max(1)});
    }
    let mut n = json!({"level": "error", "message": {"text": f.message}, "locations": [loc]});
    if let Some(code) = &f.code {
        n["descriptor"] = json!({"id": code});
    }
    n
}

/// What one run reports: the rules its results name, the results (only the first
/// [`MAX_RESULTS`] are written), the stores that could not be read, and the stores it read
/// (a relative one gives the run the folder its paths are relative to).
pub struct Run<'a, R: Iterator<Item = Value>> {
    pub rules: Vec<Value>,
    pub results: R,
    pub failures: &'a [Failure],
    pub stores: Vec<&'a str>,
}

/// Where the results go in the log as it is first laid out: a key and a value no store's
/// text can make (a quote inside a text is escaped).
const RESULTS_HERE: &str = "\u{1}results\u{1}";

/// Write the log of one run, then a newline. The results are written as they come, each laid
/// out as it would be inside the whole log, so a run holds one result at a time however many
/// it has: the log around them is laid out whole and cut where they go.
pub fn write<R: Iterator<Item = Value>>(run: Run<'_, R>, out: &mut dyn Write) -> io::Result<()> {
    let Run {
        rules,
        results,
        failures,
        stores,
    } = run;
    let relative = stores
        .iter()
        .copied()
        .chain(failures.iter().map(|f| f.store.as_str()))
        .any(|s| !path_uri(s).1);
    let base_uri = relative
        .then(|| std::env::current_dir().ok())
        .flatten()
        .and_then(|d| d.to_str().map(str::to_string))
        .map(|cwd| path_uri(&(cwd.trim_end_matches('/').to_string() + "/")).0);
    let log = |omitted: usize| {
        let mut log_run = json!({
            "tool": {"driver": {"name": "vercy", "version": env!("CARGO_PKG_VERSION"),
                     "informationUri": "https://ver.cy/overlay/", "rules": &rules}},
            "invocations": [{
                "executionSuccessful": failures.is_empty(),
                "toolExecutionNotifications": failures.iter().map(notification).collect::<Vec<_>>(),
            }],
            "results": RESULTS_HERE,
        });
        if let Some(uri) = &base_uri {
            log_run["originalUriBaseIds"] = json!({BASE: {"uri": uri}});
        }
        if omitted > 0 {
            log_run["properties"] = json!({"resultsOmitted": omitted});
        }
        pretty(&json!({
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [log_run],
        }))
    };
    let marker = format!("\"results\": {}", serde_json::to_string(RESULTS_HERE)?);
    let laid_out = log(0)?;
    let cut = laid_out.find(&marker).ok_or(io::ErrorKind::InvalidData)?;
    let before = &laid_out[..cut + "\"results\": ".len()];
    out.write_all(before.as_bytes())?;
    // the results one level in from their key
    let key_indent = before.len() - before.trim_end_matches(|c| c != '\n').len();
    let key_indent = " ".repeat(key_indent.saturating_sub("\"results\": ".len()));
    let indent = format!("\n{key_indent} ");
    let (mut written, mut omitted) = (0, 0);
    for result in results {
        if written == MAX_RESULTS {
            omitted += 1;
            continue;
        }
        out.write_all(if written == 0 { b"[" } else { b"," })?;
        out.write_all(indent.as_bytes())?;
        out.write_all(pretty(&result)?.replace('\n', &indent).as_bytes())?;
        written += 1;
    }
    match written {
        0 => out.write_all(b"[]")?,
        _ => write!(out, "\n{key_indent}]")?,
    }
    let laid_out = if omitted > 0 { log(omitted)? } else { laid_out };
    let cut = laid_out.find(&marker).ok_or(io::ErrorKind::InvalidData)?;
    out.write_all(&laid_out.as_bytes()[cut + marker.len()..])?;
    writeln!(out)
}

/// A value laid out as the log is: one space an indent.
fn pretty(value: &Value) -> io::Result<String> {
    let mut text = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
    let mut ser = serde_json::Serializer::with_formatter(&mut text, formatter);
    serde::Serialize::serialize(value, &mut ser)?;
    String::from_utf8(text).map_err(|_| io::ErrorKind::InvalidData.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_uris() {
        assert_eq!(
            path_uri("fixtures/a b.jsonl"),
            ("fixtures/a%20b.jsonl".into(), false)
        );
        assert_eq!(
            path_uri("/tmp/x#1%.json"),
            ("file:///tmp/x%231%25.json".into(), true)
        );
        assert_eq!(path_uri("dir\\ñ.json"), ("dir/%C3%B1.json".into(), false));
    }

    #[test]
    fn fingerprints_are_stable() {
        assert_eq!(stable_hash(&["a", "b"]), stable_hash(&["a", "b"]));
        assert_ne!(stable_hash(&["a", "b"]), stable_hash(&["ab", ""]));
        // fixed across builds and machines
        assert_eq!(
            stable_hash(&[""]),
            format!("{:016x}", 0xaf63bd4c8601b7dfu64)
        );
    }
}
