//! SARIF 2.1.0 for code scanning. GitHub takes at most 25,000 results a run: vercy writes one
//! result per finding and per warning code of each store (its first records as related
//! locations, the full counts in `properties`), so a run holds a few dozen results whatever
//! the store holds. Locations are URIs (a relative path percent-encoded against `SRCROOT`, an
//! absolute one as `file://`), every result that names a record points at its line, and each
//! result carries a fingerprint that depends only on the rule and the file, so it stays the
//! same across runs. An unreadable store is a failed invocation with the diagnostic as its
//! notification.

use super::super::report::{codes, plural, RecordName, Report, CODES_HELP_URI};
use super::Failure;
use crate::formats::sarif::{self, location, stable_hash};
use crate::formats::thousands;
use crate::profile::Profile;
use serde_json::{json, Value};
use std::io::{self, Write};

/// Records of a result listed as related locations.
const RELATED: usize = 100;

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

pub fn write(reports: &[Report], failures: &[Failure], out: &mut dyn Write) -> io::Result<()> {
    let run = sarif::Run {
        rules: rules(),
        results: reports.iter().flat_map(results_of),
        failures,
        stores: reports.iter().map(|r| r.store.as_str()).collect(),
    };
    sarif::write(run, out)
}
