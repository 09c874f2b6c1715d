//! What the deprecated `vercy decay` job would have done to a store, and what it left behind
//! (DDR-007): the legacy command line read leniently (nothing in it is an error), a read-only
//! pass over the store, and the report. `cmd/decay.rs` prints the notice and composes these.

use crate::store::{self, Entry, Input, NonRecordLine, Shape};
use crate::time::{self, Timestamp, NANOS_PER_DAY};
use serde_json::{Map, Value};
use std::fmt::Write as _;

const DEFAULT_RATE: f64 = 0.01;

/// The legacy command line, read leniently: nothing in it is an error.
#[derive(Debug, Default, PartialEq)]
pub struct Legacy {
    rate: Option<f64>,
    min_confidence: Option<f64>,
    max_age_days: Option<f64>,
    label: Option<String>,
    dry_run: bool,
    pub help: bool,
    pub store: Option<String>,
    /// Arguments no legacy flag explains, and flag values that did not parse.
    ignored: Vec<String>,
}

#[derive(Clone, Copy)]
enum Flag {
    Rate,
    MinConfidence,
    MaxAge,
    Label,
    DryRun,
    Help,
    /// vercy's own global options (`--color WHEN`, `--progress WHEN`, `--quiet`): no effect here.
    Global {
        takes_value: bool,
    },
}

const LONG_FLAGS: [(&str, Flag); 9] = [
    ("--rate", Flag::Rate),
    ("--min-confidence", Flag::MinConfidence),
    ("--max-age", Flag::MaxAge),
    ("--label", Flag::Label),
    ("--dry-run", Flag::DryRun),
    ("--help", Flag::Help),
    ("--color", Flag::Global { takes_value: true }),
    ("--progress", Flag::Global { takes_value: true }),
    ("--quiet", Flag::Global { takes_value: false }),
];

/// A long flag, or an unambiguous prefix of one (the old CLI was argparse, which allows them).
fn long_flag(name: &str) -> Option<Flag> {
    if let Some((_, f)) = LONG_FLAGS.iter().find(|(n, _)| *n == name) {
        return Some(*f);
    }
    if name.len() < 3 {
        return None;
    }
    let mut matches = LONG_FLAGS.iter().filter(|(n, _)| n.starts_with(name));
    match (matches.next(), matches.next()) {
        (Some((_, f)), None) => Some(*f),
        _ => None,
    }
}

fn short_flag(c: char) -> Option<Flag> {
    match c {
        'r' => Some(Flag::Rate),
        'c' => Some(Flag::MinConfidence),
        'a' => Some(Flag::MaxAge),
        'h' => Some(Flag::Help),
        'q' => Some(Flag::Global { takes_value: false }),
        _ => None,
    }
}

fn looks_like_number(s: &str) -> bool {
    s.parse::<f64>().is_ok()
}

impl Legacy {
    pub fn parse(args: &[String]) -> Legacy {
        let mut out = Legacy::default();
        let mut positionals = Vec::new();
        let mut i = 0;
        let mut only_positionals = false;
        while i < args.len() {
            let arg = &args[i];
            i += 1;
            if only_positionals || arg == "-" || !arg.starts_with('-') {
                positionals.push(arg.clone());
                continue;
            }
            if arg == "--" {
                only_positionals = true;
                continue;
            }
            // --name[=value] or -xVALUE / -x VALUE
            let (flag, inline) = if let Some(body) = arg.strip_prefix("--") {
                let (name, value) = match body.split_once('=') {
                    Some((n, v)) => (n, Some(v.to_string())),
                    None => (body, None),
                };
                (long_flag(&format!("--{name}")), value)
            } else {
                let mut chars = arg[1..].chars();
                let flag = chars.next().and_then(short_flag);
                let rest: String = chars.collect();
                let rest = rest.strip_prefix('=').map(str::to_string).unwrap_or(rest);
                (flag, (!rest.is_empty()).then_some(rest))
            };
            let Some(flag) = flag else {
                out.ignored.push(arg.clone());
                continue;
            };
            match flag {
                Flag::DryRun => out.dry_run = true,
                Flag::Help => out.help = true,
                Flag::Global { takes_value } => {
                    if takes_value && inline.is_none() && args.get(i).is_some() {
                        i += 1;
                    }
                }
                Flag::Rate | Flag::MinConfidence | Flag::MaxAge | Flag::Label => {
                    let value = inline.or_else(|| {
                        let next = args.get(i)?;
                        if next.starts_with('-') && !looks_like_number(next) {
                            return None;
                        }
                        i += 1;
                        Some(next.clone())
                    });
                    let Some(value) = value else {
                        out.ignored.push(arg.clone());
                        continue;
                    };
                    let number = || value.trim().parse::<f64>().ok().filter(|v| v.is_finite());
                    let slot = match flag {
                        Flag::Rate => &mut out.rate,
                        Flag::MinConfidence => &mut out.min_confidence,
                        Flag::MaxAge => &mut out.max_age_days,
                        _ => {
                            out.label = Some(value);
                            continue;
                        }
                    };
                    match number() {
                        Some(v) => *slot = Some(v),
                        None => out.ignored.push(format!("{arg} {value}")),
                    }
                }
            }
        }
        // the store: the first positional that exists on disk, else the first positional
        let existing = positionals
            .iter()
            .position(|p| p != "-" && std::path::Path::new(p).exists());
        let store = existing.or_else(|| positionals.iter().position(|p| p != "-"));
        for (k, p) in positionals.into_iter().enumerate() {
            if Some(k) == store {
                out.store = Some(p);
            } else {
                out.ignored.push(p);
            }
        }
        out
    }

    fn rate(&self) -> f64 {
        self.rate.unwrap_or(DEFAULT_RATE)
    }
}

/// What a read-only pass over the store found.
#[derive(Debug, Default)]
pub struct Findings {
    shape: Option<Shape>,
    records: u64,
    /// The old job would have rewritten the stored confidence of these.
    would_decay: u64,
    /// ... and archived these (by --min-confidence or --max-age).
    would_archive: u64,
    /// Records the old job could not date (no readable updated_at).
    undated: u64,
    /// Still open (valid_to null or absent) with a stored confidence below 1.0.
    open_below_one: u64,
    /// Archived with updated_at equal to archived_at and no archived_reason.
    old_job_mark: u64,
    /// Archived without a reason, but no updated_at to compare.
    archived_unclear: u64,
}

fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(_) => true,
    }
}

fn number(v: Option<&Value>) -> Option<f64> {
    v.and_then(Value::as_f64)
}

fn stamp(v: Option<&Value>) -> Option<Timestamp> {
    v.filter(|v| truthy(Some(v)))
        .and_then(|v| time::parse_value(v).ok())
}

pub fn survey(input: &Input, legacy: &Legacy, now: &Timestamp) -> crate::error::Result<Findings> {
    let mut f = Findings::default();
    let mut engrama = false;
    let shape = store::read(input, &mut |entry| {
        match entry {
            Entry::NonRecord(NonRecordLine::EngramaHeader, _) => engrama = true,
            Entry::NonRecord(..) => {}
            Entry::Record(rec) => {
                f.records += 1;
                let (label, props) = if engrama {
                    let props = rec.fields.get("properties").and_then(Value::as_object);
                    (rec.fields.get("label"), props.cloned().unwrap_or_default())
                } else {
                    (rec.fields.get("label"), rec.fields.clone())
                };
                look_at(&mut f, legacy, label.and_then(Value::as_str), &props, now);
            }
        }
        Ok(())
    })?;
    f.shape = Some(shape);
    Ok(f)
}

/// One record: the old job's rule applied read-only, and the marks it leaves.
fn look_at(
    f: &mut Findings,
    legacy: &Legacy,
    label: Option<&str>,
    props: &Map<String, Value>,
    now: &Timestamp,
) {
    let confidence = number(props.get("confidence"));
    let updated = stamp(props.get("updated_at"));
    let archived = props.get("status").and_then(Value::as_str) == Some("archived");
    if !truthy(props.get("valid_to")) && confidence.is_some_and(|c| c < 1.0) {
        f.open_below_one += 1;
    }
    if (archived || truthy(props.get("archived_at"))) && !truthy(props.get("archived_reason")) {
        match (updated, stamp(props.get("archived_at"))) {
            (Some(u), Some(a)) if u.nanos == a.nanos => f.old_job_mark += 1,
            (None, _) => f.archived_unclear += 1,
            _ => {}
        }
    }
    if legacy.label.as_deref().is_some_and(|l| Some(l) != label) {
        return;
    }
    let Some(updated) = updated else {
        f.undated += 1;
        return;
    };
    let days = (now.nanos - updated.nanos) as f64 / NANOS_PER_DAY as f64;
    // the old job: confidence ← confidence · exp(−rate · days since updated_at)
    let mut after = confidence;
    if let Some(c) = confidence {
        let decayed = c * (-legacy.rate() * days).exp();
        if days > 0.0 && decayed != c {
            f.would_decay += 1;
            after = Some(decayed);
        }
    }
    if archived {
        return;
    }
    let below = legacy
        .min_confidence
        .is_some_and(|min| min > 0.0 && after.is_some_and(|c| c < min));
    let too_old = legacy
        .max_age_days
        .is_some_and(|max| max > 0.0 && days > max);
    if below || too_old {
        f.would_archive += 1;
    }
}

/// A path as a POSIX shell reads it back.
fn shell_quote(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./+=:,@%".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The one documented way to restore the confidence a compounding decay left (README,
/// "decay is deprecated"): set it to 1.0 where valid_to is null. Written to a new file.
fn restore_command(path: &str, shape: &Option<Shape>) -> Option<String> {
    let rule = |p: &str| {
        format!(
            "if {p}valid_to == null and ({p}confidence | type) == \"number\" and {p}confidence < 1 \
             then {p}confidence = 1.0 else . end"
        )
    };
    let (flags, program) = match shape.as_ref()? {
        Shape::Engrama => (
            "-c",
            format!(
                "if .type == \"node\" then .properties |= ({}) else . end",
                rule(".")
            ),
        ),
        Shape::JsonLines => ("-c", rule(".")),
        Shape::JsonArray => ("", format!("map({})", rule("."))),
        Shape::Envelope(key) => ("", format!(".{key} |= map({})", rule("."))),
        Shape::Empty | Shape::Compact | Shape::Database(_) => return None,
    };
    let flags = if flags.is_empty() {
        String::new()
    } else {
        format!("{flags} ")
    };
    Some(format!(
        "jq {flags}{} {} > {}",
        shell_quote(&program),
        shell_quote(path),
        shell_quote(&format!("{path}.restored"))
    ))
}

pub fn report(path: &str, legacy: &Legacy, f: &Findings) -> String {
    let mut out = String::new();
    let shape = f.shape.as_ref().map_or("unknown".into(), Shape::name);
    let _ = writeln!(
        out,
        "vercy decay (deprecated): read-only report on {path} ({shape})"
    );
    let _ = writeln!(out, "records seen: {}", f.records);
    let _ = writeln!(out, "changed: 0 (nothing was written)");
    let _ = writeln!(out, "archived: 0 (nothing is archived automatically)");
    let fmt = |v: Option<f64>, default: &str| v.map_or(default.to_string(), |v| v.to_string());
    let _ = writeln!(
        out,
        "the old job (--rate {}, --min-confidence {}, --max-age {}{}{}) would have:",
        legacy.rate(),
        fmt(legacy.min_confidence, "0"),
        fmt(legacy.max_age_days, "0"),
        legacy
            .label
            .as_ref()
            .map_or(String::new(), |l| format!(", --label {l}")),
        if legacy.dry_run { ", --dry-run" } else { "" },
    );
    let measurable = f.records - f.undated;
    if f.records > 0 && measurable == 0 {
        let _ = writeln!(
            out,
            "  unknown: no record carries a readable updated_at, so the old job's effect cannot be told"
        );
    } else {
        let _ = writeln!(
            out,
            "  rewritten the stored confidence of: {}",
            f.would_decay
        );
        let _ = writeln!(out, "  archived: {}", f.would_archive);
        if f.undated > 0 {
            let _ = writeln!(
                out,
                "  unknown for {} without a readable updated_at",
                f.undated
            );
        }
    }
    let _ = writeln!(
        out,
        "open records (valid_to null) with a stored confidence below 1.0: {} \
         (the damage a compounding decay leaves)",
        f.open_below_one
    );
    if f.open_below_one > 0 {
        match restore_command(path, &f.shape) {
            Some(cmd) => {
                let _ = writeln!(
                    out,
                    "  nothing is migrated automatically; to restore them (confidence = 1.0 where \
                     valid_to is null), if you wish, review then replace the store with:\n  {cmd}"
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "  nothing is migrated automatically; see README, \"decay is deprecated\""
                );
            }
        }
    }
    let _ = writeln!(
        out,
        "archived records with the old job's mark (updated_at = archived_at, no archived_reason): {}",
        f.old_job_mark
    );
    if f.archived_unclear > 0 {
        let _ = writeln!(
            out,
            "  unknown for {} archived without a reason and without updated_at",
            f.archived_unclear
        );
    }
    let _ = writeln!(
        out,
        "recency now lives at read time: vercy recency {} (settings: vercy status)",
        shell_quote(path)
    );
    if !legacy.ignored.is_empty() {
        let _ = writeln!(out, "ignored arguments: {}", legacy.ignored.join(" "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Legacy {
        Legacy::parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn every_old_form_is_understood() {
        let l = parse(&[
            "-r",
            "0.5",
            "--min-confidence=0.1",
            "-a30",
            "--label",
            "Concept",
            "--dry-run",
            "nowhere.ndjson",
        ]);
        assert_eq!(l.rate, Some(0.5));
        assert_eq!(l.min_confidence, Some(0.1));
        assert_eq!(l.max_age_days, Some(30.0));
        assert_eq!(l.label.as_deref(), Some("Concept"));
        assert!(l.dry_run);
        assert_eq!(l.store.as_deref(), Some("nowhere.ndjson"));
        assert!(l.ignored.is_empty(), "{:?}", l.ignored);
        let abbreviated = parse(&["--ra", "0.2", "--min", "0.3", "--max", "4", "--dry"]);
        assert_eq!(abbreviated.rate, Some(0.2));
        assert_eq!(abbreviated.min_confidence, Some(0.3));
        assert_eq!(abbreviated.max_age_days, Some(4.0));
        assert!(abbreviated.dry_run);
        assert_eq!(parse(&["--rate", "-0.5"]).rate, Some(-0.5));
    }

    #[test]
    fn junk_is_ignored_never_fatal() {
        let l = parse(&["-r", "abc", "--foo=bar", "--rate", "--", "-x", "a", "b"]);
        assert_eq!(l.rate, None);
        assert_eq!(l.store.as_deref(), Some("-x"));
        assert_eq!(l.ignored, ["-r abc", "--foo=bar", "--rate", "a", "b"]);
        let existing = parse(&["junk", "Cargo.toml"]);
        assert_eq!(existing.store.as_deref(), Some("Cargo.toml"));
        assert!(parse(&["-h"]).help);
        assert_eq!(parse(&["--m", "1"]).ignored, ["--m"]);
        let global = parse(&["--color", "bogus", "-q", "--progress=x", "store.jsonl"]);
        assert_eq!(global.store.as_deref(), Some("store.jsonl"));
        assert!(global.ignored.is_empty());
    }

    proptest::proptest! {
        /// Whatever a legacy script passes, reading it neither panics nor loses an argument:
        /// each one is a flag understood, a value, the store, or listed as ignored.
        #[test]
        fn any_argument_vector_is_read(args in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::string::string_regex("-{0,2}[a-z=.0-9-]{0,8}").unwrap(),
                proptest::string::string_regex(".{0,6}").unwrap(),
            ],
            0..8,
        )) {
            let l = Legacy::parse(&args);
            proptest::prop_assert!(l.ignored.len() + usize::from(l.store.is_some()) <= args.len());
        }
    }

    #[test]
    fn paths_are_quoted_for_the_shell() {
        assert_eq!(shell_quote("a/b.ndjson"), "a/b.ndjson");
        assert_eq!(shell_quote("it's here"), r"'it'\''s here'");
    }
}
