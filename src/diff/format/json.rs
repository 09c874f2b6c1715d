//! The `vercy-diff/1` object: the sides and the counts first, then the findings, each
//! written as it is made rather than the whole report built as one value.

use super::super::report::{Code, Finding, Report, Side};
use serde_json::{json, Map, Value};
use std::io::{self, Write};

fn side(s: &Side) -> Value {
    json!({"store": s.store, "shape": s.shape, "records": s.records, "without_id": s.without_id})
}

/// One finding as the JSON report and the MCP tool give it.
pub fn finding(f: &Finding, allowed: bool) -> Value {
    let mut o = Map::new();
    o.insert("code".into(), json!(f.code.name()));
    o.insert("id".into(), json!(f.id));
    o.insert("base_line".into(), json!(f.base_line));
    o.insert("head_line".into(), json!(f.head_line));
    o.insert("allowed".into(), json!(allowed));
    if !f.changes.is_empty() {
        let changes: Vec<Value> = f
            .changes
            .iter()
            .map(|c| json!({"field": c.field, "old": c.old, "new": c.new}))
            .collect();
        o.insert("changes".into(), Value::Array(changes));
    }
    if let Some(other) = &f.other {
        let key = match f.code {
            Code::EndWritten => "superseded_by",
            _ => "supersedes",
        };
        o.insert(key.into(), json!({"id": other.id, "head_line": other.line}));
    }
    o.insert("message".into(), json!(f.message()));
    Value::Object(o)
}

/// The report without its findings.
pub fn summary(r: &Report) -> Value {
    let counts: Map<String, Value> = r
        .counts()
        .into_iter()
        .map(|(code, n)| (code.name().to_string(), json!(n)))
        .collect();
    json!({
        "format": "vercy-diff/1",
        "pass": r.pass(),
        "base": side(&r.base),
        "head": side(&r.head),
        "added": r.added,
        "added_superseding": r.added_superseding,
        "unchanged": r.unchanged,
        "times_moved": r.times_moved,
        "counts": counts,
        "allowed": r.allowed.iter().map(|c| c.name()).collect::<Vec<_>>(),
    })
}

pub fn write(r: &Report, out: &mut dyn Write) -> io::Result<()> {
    let head = serde_json::to_string(&summary(r))?;
    // the object without its closing brace, then the findings one at a time
    out.write_all(&head.as_bytes()[..head.len() - 1])?;
    out.write_all(b",\"findings\":[")?;
    for (i, f) in r.findings.iter().enumerate() {
        let f = &f?;
        if i > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut *out, &finding(f, r.is_allowed(f.code)))?;
    }
    out.write_all(b"]}\n")
}
