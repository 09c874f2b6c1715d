//! SARIF 2.1.0 for code scanning. GitHub takes at most 25,000 results a run: vercy writes one
//! result per finding and per warning code of each store (its first records as related
//! locations, the full counts in `properties`), so a run holds a few dozen results whatever
//! the store holds. Locations are URIs (a relative path percent-encoded against `SRCROOT`, an
//! absolute one as `file://`), every result that names a record points at its line, and each
//! result carries a fingerprint that depends only on the rule and the file, so it stays the
//! same across runs. An unreadable store is a failed invocation with the diagnostic as its
//! notification.

use super::super::report::{codes, plural, RecordName, Report, CODES_HELP_URI};
use super::human::thousands;
use super::Failure;
use crate::profile::Profile;
use serde_json::{json, Value};
use std::io::{self, Write};

/// Results GitHub code scanning accepts in one run.
pub const MAX_RESULTS: usize = 25_000;
/// Records of a result listed as related locations.
const RELATED: usize = 100;
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

fn location(store: &str, line: u64) -> Value {
    if line > 0 {
        json!({"physicalLocation": {"artifactLocation": artifact(store),
                                    "region": {"startLine": line}}})
    } else {
        json!({"physicalLocation": {"artifactLocation": artifact(store)}})
    }
}

/// FNV-1a: a hash that is the same in every run and on every machine (the interners' hash
/// is seeded per process).
fn stable_hash(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in part.as_bytes().iter().chain(&[0u8]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

fn rules() -> Vec<Value> {
    let profile = Profile::embedded();
    let mut rules: Vec<Value> = profile
        .fields
        .iter()
        .map(|f| {
            let level = if f.is_should() { "note" } else { "error" };
            json!({"id": format!("profile.{}", f.id), "name": f.id,
                   "shortDescription": {"text": format!("{} ({})", f.id, f.check.label)},
                   "fullDescription": {"text": f.definition},
                   "help": {"text": format!("{}: {}. Add the field to the records named, or map it \
                        with --map {}=KEY.", f.id, f.check.label, f.id)},
                   "helpUri": CODES_HELP_URI,
                   "defaultConfiguration": {"level": level}})
        })
        .collect();
    for code in codes() {
        rules.push(
            json!({"id": code.code(), "name": code.field(), "shortDescription": {"text": code.meaning()},
            "help": {"text": code.help()},
            "helpUri": code.doc(),
            "defaultConfiguration": {"level": "warning"}}),
        );
    }
    rules
}

fn results_of(r: &Report) -> Vec<Value> {
    let mut results = Vec::new();
    for f in &r.findings {
        let rule = format!("profile.{}", f.field);
        let first: Vec<RecordName> = f.offenders.iter().take(20).collect();
        let more = if f.offenders.len() > first.len() {
            ", …"
        } else {
            ""
        };
        results.push(json!({
            "ruleId": rule,
            "level": if f.requirement == "SHOULD" { "note" } else { "error" },
            "message": {"text": format!("{} ({}): {} record{}: {}{more}", f.field, f.requirement,
                thousands(f.offenders.len()), plural(f.offenders.len()), first.join(", "))},
            "locations": [location(&r.store, f.first_line)],
            "partialFingerprints": {"vercyResult/v1": stable_hash(&[&rule, &r.store])},
            "properties": {"count": f.offenders.len()},
        }));
    }
    for g in r.warnings.groups() {
        let mut records = r.warnings.of_code(g.code).flat_map(|w| w.records());
        let first_line = r
            .warnings
            .of_code(g.code)
            .flat_map(|w| w.records())
            .map(|(_, line)| line)
            .find(|&l| l > 0)
            .unwrap_or(0);
        let related: Vec<Value> = records
            .by_ref()
            .take(RELATED)
            .enumerate()
            .map(|(i, (name, line))| {
                let mut loc = location(&r.store, line);
                loc["id"] = json!(i);
                loc["message"] = json!({"text": name});
                loc
            })
            .collect();
        let text = match r.warnings.of_code(g.code).next() {
            Some(w) if g.warnings == 1 => w.message().into_owned(),
            Some(w) => format!(
                "{} warnings ({}), first: {}",
                thousands(g.warnings),
                g.code.meaning(),
                w.message()
            ),
            None => String::new(),
        };
        let mut result = json!({
            "ruleId": g.code.code(),
            "level": "warning",
            "message": {"text": format!("{text} ({} record{})", thousands(g.records), plural(g.records))},
            "locations": [location(&r.store, first_line)],
            "partialFingerprints": {"vercyResult/v1": stable_hash(&[g.code.code(), &r.store])},
            "properties": {"warnings": g.warnings, "count": g.records,
                           "relatedLocationsShown": related.len()},
        });
        if !related.is_empty() {
            result["relatedLocations"] = Value::Array(related);
        }
        results.push(result);
    }
    results
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

pub fn write(reports: &[Report], failures: &[Failure], out: &mut dyn Write) -> io::Result<()> {
    let mut results = Vec::new();
    let mut omitted = 0;
    for r in reports {
        for result in results_of(r) {
            if results.len() < MAX_RESULTS {
                results.push(result);
            } else {
                omitted += 1;
            }
        }
    }
    let mut run = json!({
        "tool": {"driver": {"name": "vercy", "version": env!("CARGO_PKG_VERSION"),
                 "informationUri": "https://ver.cy/overlay/", "rules": rules()}},
        "invocations": [{
            "executionSuccessful": failures.is_empty(),
            "toolExecutionNotifications": failures.iter().map(notification).collect::<Vec<_>>(),
        }],
        "results": results,
    });
    let relative = reports
        .iter()
        .map(|r| r.store.as_str())
        .chain(failures.iter().map(|f| f.store.as_str()))
        .any(|s| !path_uri(s).1);
    if relative {
        if let Some(cwd) = std::env::current_dir()
            .ok()
            .and_then(|d| d.to_str().map(str::to_string))
        {
            let (uri, _) = path_uri(&(cwd.trim_end_matches('/').to_string() + "/"));
            run["originalUriBaseIds"] = json!({BASE: {"uri": uri}});
        }
    }
    if omitted > 0 {
        run["properties"] = json!({"resultsOmitted": omitted});
    }
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [run],
    });
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
    let mut ser = serde_json::Serializer::with_formatter(&mut *out, formatter);
    serde::Serialize::serialize(&log, &mut ser)?;
    writeln!(out)
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
