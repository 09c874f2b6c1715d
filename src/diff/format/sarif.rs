//! SARIF 2.1.0: one rule per code, one result per finding at its line in HEAD (a deleted
//! record at HEAD's file, its BASE line a related location), fingerprinted by code and ids so
//! a result keeps its identity across runs; a side that could not be read is a failed
//! invocation.

use super::super::report::{Code, Finding, Report};
use super::file_of;
use crate::formats::sarif::{self, location, stable_hash};
use crate::formats::Failure;
use serde_json::{json, Value};
use std::io::{self, Write};

fn rules() -> Vec<Value> {
    Code::ALL
        .iter()
        .map(|code| {
            json!({"id": code.name(), "name": code.name(),
                   "shortDescription": {"text": code.meaning()},
                   "helpUri": Code::HELP_URI,
                   "defaultConfiguration": {"level": "error"}})
        })
        .collect()
}

fn result(r: &Report, f: &Finding) -> Value {
    let head = file_of(&r.head.store);
    let other = f.other.as_ref().map_or("", |o| o.id.as_str());
    let mut result = json!({
        "ruleId": f.code.name(),
        "level": if r.is_allowed(f.code) { "note" } else { "error" },
        "message": {"text": f.message()},
        "locations": [location(head, f.head_line)],
        "partialFingerprints": {"vercyDiff/v1": stable_hash(&[f.code.name(), &f.id, other])},
    });
    if f.base_line > 0 {
        let mut base = location(file_of(&r.base.store), f.base_line);
        base["id"] = json!(0);
        base["message"] = json!({"text": format!("{} in BASE", f.id)});
        result["relatedLocations"] = json!([base]);
    }
    result
}

pub fn write(report: Result<&Report, &Failure>, out: &mut dyn Write) -> io::Result<()> {
    match report {
        Ok(r) => {
            // the results are read back as the log takes them: a read that fails ends them,
            // and the write with its error
            let mut failed = None;
            let results = r.findings.iter().map_while(|f| match f {
                Ok(f) => Some(result(r, &f)),
                Err(e) => {
                    failed = Some(e);
                    None
                }
            });
            sarif::write(
                sarif::Run {
                    rules: rules(),
                    results,
                    failures: &[],
                    stores: vec![file_of(&r.head.store), file_of(&r.base.store)],
                },
                out,
            )?;
            failed.map_or(Ok(()), Err)
        }
        Err(f) => {
            let failures = [Failure {
                store: file_of(&f.store).to_string(),
                ..f.clone()
            }];
            sarif::write(
                sarif::Run {
                    rules: rules(),
                    results: std::iter::empty(),
                    failures: &failures,
                    stores: Vec::new(),
                },
                out,
            )
        }
    }
}
