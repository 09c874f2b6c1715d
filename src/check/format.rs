//! Printing check reports: one [`Format`] variant per output form, each a function of the
//! reports alone. Adding a form is one variant and one function.

use super::report::{plural, Report};
use crate::output::{github_escape, paint, terminal_safe, Paint};
use crate::profile::Profile;
use serde::Serialize;
use serde_json::{json, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Readable at a glance: level, what the next level needs, findings, warnings.
    Human,
    /// The `vercy-check/1` object (an array of them for several stores).
    Json,
    /// GitHub Actions workflow commands (annotations on the store file).
    Github,
    /// SARIF 2.1.0, for code-scanning dashboards.
    Sarif,
}

pub fn render(format: Format, reports: &[Report], quiet: bool) -> String {
    match format {
        Format::Human => reports
            .iter()
            .map(|r| human(r, quiet))
            .collect::<Vec<_>>()
            .join("\n"),
        Format::Json => {
            let value = match reports {
                [one] => one.to_json(),
                many => Value::Array(many.iter().map(Report::to_json).collect()),
            };
            to_python_json(&value) + "\n"
        }
        Format::Github => reports.iter().map(github).collect(),
        Format::Sarif => to_python_json(&sarif(reports)) + "\n",
    }
}

/// JSON as the reference prints it: `json.dumps(…, ensure_ascii=False, indent=1)`.
pub fn to_python_json(value: &Value) -> String {
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    value
        .serialize(&mut ser)
        .expect("a Value always serializes");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

fn shown<'a>(names: impl ExactSizeIterator<Item = &'a str>, limit: usize) -> String {
    let total = names.len();
    let mut s = names.take(limit).collect::<Vec<_>>().join(", ");
    if total > limit {
        s.push_str(&format!(" and {} more", total - limit));
    }
    s
}

fn human(r: &Report, quiet: bool) -> String {
    let profile = Profile::embedded();
    let top = profile.top_level();
    let mut out = String::new();
    let verdict = if r.pass {
        paint("pass", Paint::Good)
    } else {
        paint("FAIL", Paint::Bad)
    };
    out.push_str(&format!(
        "{}\n",
        paint(&terminal_safe(&r.store), Paint::Bold)
    ));
    if r.records == 0 {
        out.push_str(&format!(
            "  level 0 of {top} · {verdict} · no records found ({})\n",
            r.shape.name()
        ));
        out.push_str("  level 1 needs record_id, valid_from and valid_to on every record.\n");
        return out;
    }
    let strict = if r.strict && r.level != r.reference_level {
        format!(" (presence alone: level {})", r.reference_level)
    } else {
        String::new()
    };
    out.push_str(&format!(
        "  {}{strict} · {verdict} (needs level {}) · {} record{} · {}\n",
        paint(&format!("level {} of {top}", r.level), Paint::Bold),
        r.min_level,
        r.records,
        plural(r.records),
        r.shape.name()
    ));
    if let Some(level) = profile.level(r.level).filter(|l| l.level > 0) {
        out.push_str(&format!("  {}: {}\n", level.name, level.unlocks));
    }
    match r.next_level() {
        None => out.push_str("  every level of the profile is met\n"),
        Some((next, needs)) => {
            out.push_str(&format!("  level {next} needs:\n"));
            for n in needs {
                out.push_str(&format!("    - {n}\n"));
            }
        }
    }
    if !quiet {
        if !r.findings.is_empty() {
            out.push_str("  findings:\n");
            for f in &r.findings {
                let style = if f.requirement == "SHOULD" {
                    Paint::Dim
                } else {
                    Paint::Warn
                };
                out.push_str(&format!(
                    "    {} {:<40} {}\n",
                    paint(&format!("{:<18}", f.field), style),
                    f.requirement,
                    terminal_safe(&shown(f.offenders.iter(), 6))
                ));
            }
        }
        if !r.warnings.is_empty() {
            out.push_str(&format!(
                "  warnings (values){}:\n",
                if r.strict {
                    ", counted under --strict"
                } else {
                    ""
                }
            ));
            for w in &r.warnings {
                let names: Vec<String> = w
                    .records
                    .iter()
                    .map(|x| format!("{} (line {})", terminal_safe(&x.name), x.line))
                    .collect();
                out.push_str(&format!(
                    "    {} {}\n",
                    paint(&format!("{:<26}", w.code), Paint::Warn),
                    terminal_safe(&w.message)
                ));
                if !names.is_empty() {
                    out.push_str(&format!(
                        "    {:<26} {}\n",
                        "",
                        shown(names.iter().map(String::as_str), 4)
                    ));
                }
            }
        }
        if let Some((register, missing)) = &r.expected_concepts {
            out.push_str(&format!(
                "  expected concepts (experimental): {} in the register, {} missing{}\n",
                register.len(),
                missing.len(),
                if missing.is_empty() {
                    String::new()
                } else {
                    format!(": {}", terminal_safe(&missing.join(", ")))
                }
            ));
        }
    }
    out.push_str(&format!(
        "  profile {} {} · scope: {}\n",
        profile.overlay, profile.version, profile.checker.scope
    ));
    out
}

/// Data for a workflow command: terminal-safe for the log, then escaped for the command.
fn gh_data(s: &str) -> String {
    github_escape(&terminal_safe(s), false)
}
fn gh_prop(s: &str) -> String {
    github_escape(&terminal_safe(s), true)
}

fn github(r: &Report) -> String {
    let file = gh_prop(&r.store);
    let mut out = String::new();
    let title = format!(
        "vercy check: level {} of {}",
        r.level,
        Profile::embedded().top_level()
    );
    let kind = if r.pass { "notice" } else { "error" };
    out.push_str(&format!(
        "::{kind} file={file},title={}::{}\n",
        gh_prop(&title),
        gh_data(&format!(
            "{} records, level {} (needs {}): {}",
            r.records,
            r.level,
            r.min_level,
            if r.pass { "pass" } else { "fail" }
        ))
    ));
    for f in &r.findings {
        let kind = if f.requirement == "SHOULD" {
            "notice"
        } else {
            "warning"
        };
        out.push_str(&format!(
            "::{kind} file={file},title={}::{}\n",
            gh_prop(&format!("{} ({})", f.field, f.requirement)),
            gh_data(&format!(
                "{} record{}: {}",
                f.offenders.len(),
                plural(f.offenders.len()),
                shown(f.offenders.iter(), 20)
            ))
        ));
    }
    for w in &r.warnings {
        if w.records.is_empty() {
            out.push_str(&format!(
                "::warning file={file},title={}::{}\n",
                gh_prop(w.code),
                gh_data(&w.message)
            ));
        }
        for rec in w.records.iter().take(50) {
            out.push_str(&format!(
                "::warning file={file},line={},title={}::{}\n",
                rec.line,
                gh_prop(w.code),
                gh_data(&format!("{} (record {})", w.message, rec.name))
            ));
        }
    }
    out
}

fn sarif(reports: &[Report]) -> Value {
    let profile = Profile::embedded();
    let mut rules: Vec<Value> = profile
        .fields
        .iter()
        .map(|f| {
            json!({"id": format!("profile.{}", f.id), "name": f.id,
                   "shortDescription": {"text": format!("{} ({})", f.id, f.check.label)},
                   "fullDescription": {"text": f.definition}})
        })
        .collect();
    for (code, field, _, text) in super::values::CODES {
        rules.push(json!({"id": code, "name": field, "shortDescription": {"text": text}}));
    }
    let mut results = Vec::new();
    for r in reports {
        for f in &r.findings {
            results.push(json!({
                "ruleId": format!("profile.{}", f.field),
                "level": if f.requirement == "SHOULD" { "note" } else { "error" },
                "message": {"text": format!("{} ({}): {} record{}: {}", f.field, f.requirement,
                    f.offenders.len(), plural(f.offenders.len()), shown(f.offenders.iter(), 20))},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": r.store}}}],
            }));
        }
        for w in &r.warnings {
            let locations: Vec<Value> = if w.records.is_empty() {
                vec![json!({"physicalLocation": {"artifactLocation": {"uri": r.store}}})]
            } else {
                w.records
                    .iter()
                    .take(100)
                    .map(|rec| {
                        json!({"physicalLocation": {"artifactLocation": {"uri": r.store},
                        "region": {"startLine": rec.line.max(1)}}})
                    })
                    .collect()
            };
            results.push(json!({"ruleId": w.code, "level": "warning",
                "message": {"text": w.message}, "locations": locations}));
        }
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "vercy", "version": env!("CARGO_PKG_VERSION"),
                     "informationUri": "https://ver.cy/overlay/", "rules": rules}},
            "results": results,
        }],
    })
}
