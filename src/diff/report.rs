//! What a diff reports: the codes, each finding (a record, its lines on each side, what
//! changed), and the counts of what was only added. Every format reads this.

use super::findings::Findings;
use crate::error::VercyError;
use serde_json::Value;
use std::io;

/// How history was changed other than by adding to it. The order here is the order of the
/// report's groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Code {
    EndWritten,
    Edited,
    IdReused,
    SupersedesChanged,
    Deleted,
    StartsBefore,
    SupersededMissing,
}

impl Code {
    pub const ALL: [Code; 7] = [
        Code::EndWritten,
        Code::Edited,
        Code::IdReused,
        Code::SupersedesChanged,
        Code::Deleted,
        Code::StartsBefore,
        Code::SupersededMissing,
    ];

    /// The code as reports and `--allow` name it.
    pub fn name(self) -> &'static str {
        match self {
            Code::EndWritten => "history.end_written",
            Code::Edited => "history.edited",
            Code::IdReused => "history.id_reused",
            Code::SupersedesChanged => "history.supersedes_changed",
            Code::Deleted => "history.deleted",
            Code::StartsBefore => "history.starts_before",
            Code::SupersededMissing => "history.superseded_missing",
        }
    }

    /// What the code means, in one sentence.
    pub fn meaning(self) -> &'static str {
        match self {
            Code::EndWritten => {
                "a superseded record's valid_to was written by hand; the end of a superseded \
                 interval is derived when reading, leave the old record untouched"
            }
            Code::Edited => {
                "a record's statement was edited in place; write a new record that supersedes it"
            }
            Code::IdReused => {
                "a record_id now names a different statement (concept and value both changed); \
                 give the new fact an id of its own"
            }
            Code::SupersedesChanged => "a record's supersedes was rewired after the fact",
            Code::Deleted => "a record of BASE is gone from HEAD; deleting loses history",
            Code::StartsBefore => {
                "a new supersession does not start after the record it replaces (valid_from)"
            }
            Code::SupersededMissing => {
                "a new supersession names a record HEAD does not hold; keep the superseded record"
            }
        }
    }

    /// The code named `name` (`history.edited`, or `edited`).
    pub fn parse(name: &str) -> Option<Code> {
        let name = name.strip_prefix("history.").unwrap_or(name);
        Code::ALL
            .into_iter()
            .find(|c| c.name().strip_prefix("history.") == Some(name))
    }

    /// The README's section on the codes, which SARIF's rules link to.
    pub const HELP_URI: &'static str =
        "https://github.com/ver-cy/vercy/blob/main/README.md#catch-edited-history-in-ci";
}

/// One field that changed: its path in the record (`value`, `properties.valid_to`), and its
/// value on each side (`None`: absent there).
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub field: String,
    pub old: Option<Value>,
    pub new: Option<Value>,
}

/// Another record a finding names: the record that supersedes an ended one, or the one a new
/// record supersedes; its line in HEAD (0: HEAD does not hold it).
#[derive(Debug, Clone, PartialEq)]
pub struct Other {
    pub id: String,
    pub line: u64,
}

/// One record whose history was changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub code: Code,
    pub id: String,
    /// Its line in BASE and in HEAD (0: not on that side).
    pub base_line: u64,
    pub head_line: u64,
    pub changes: Vec<Change>,
    pub other: Option<Other>,
}

impl Finding {
    /// The fields that changed, comma-separated.
    pub fn fields(&self) -> String {
        let fields: Vec<&str> = self.changes.iter().map(|c| c.field.as_str()).collect();
        fields.join(", ")
    }

    /// One sentence: the record, where, and what happened to it.
    pub fn message(&self) -> String {
        let at = |line: u64| match line {
            0 => String::new(),
            n => format!(" (line {n})"),
        };
        let id = &self.id;
        match self.code {
            Code::EndWritten => {
                let end = self
                    .changes
                    .iter()
                    .find_map(|c| c.new.as_ref())
                    .map(shown)
                    .unwrap_or_default();
                let by = self.other.as_ref().map_or(String::new(), |o| {
                    format!(", superseded by {}{}", o.id, at(o.line))
                });
                format!(
                    "{id}: valid_to was written by hand ({end}){by}; the end is derived when \
                     reading: leave {id} as it was"
                )
            }
            Code::Edited | Code::IdReused | Code::SupersedesChanged => {
                let changes: Vec<String> = self
                    .changes
                    .iter()
                    .map(|c| {
                        format!(
                            "{}: {} → {}",
                            c.field,
                            c.old.as_ref().map_or("(absent)".into(), shown),
                            c.new.as_ref().map_or("(absent)".into(), shown)
                        )
                    })
                    .collect();
                let what = match self.code {
                    Code::Edited => "edited in place",
                    Code::IdReused => "now names a different statement",
                    _ => "was rewired",
                };
                format!(
                    "{id} {what} (BASE line {}, HEAD line {}): {}",
                    self.base_line,
                    self.head_line,
                    changes.join("; ")
                )
            }
            Code::Deleted => format!(
                "{id} (BASE line {}) is not in HEAD: keep it, and supersede it with a new record",
                self.base_line
            ),
            Code::StartsBefore => {
                let other = self.other.as_ref().map_or("", |o| o.id.as_str());
                format!(
                    "{id}{} supersedes {other} but does not start after it (valid_from)",
                    at(self.head_line)
                )
            }
            Code::SupersededMissing => {
                let other = self.other.as_ref().map_or("", |o| o.id.as_str());
                format!(
                    "{id}{} supersedes {other}, which HEAD does not hold",
                    at(self.head_line)
                )
            }
        }
    }
}

/// A value as a finding shows it: a string as it is, anything else as JSON.
pub fn shown(value: &Value) -> String {
    match value {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// One side as it was read.
#[derive(Debug, Clone)]
pub struct Side {
    /// The store as named on the command line.
    pub store: String,
    /// The shape it was read as.
    pub shape: String,
    pub records: usize,
    /// Records without a record_id: they cannot be matched, and are not compared.
    pub without_id: usize,
}

/// The diff of two versions of a store.
#[derive(Debug)]
pub struct Report {
    pub base: Side,
    pub head: Side,
    /// Records the same on both sides, but for fields that may move.
    pub unchanged: usize,
    /// Of those, records whose capture or activity times moved.
    pub times_moved: usize,
    /// Records HEAD adds, and of them those that supersede a record.
    pub added: usize,
    pub added_superseding: usize,
    /// Every finding, by code in [`Code::ALL`]'s order, then by HEAD line, then BASE line,
    /// read back in that order (`iter`, `of_code`; an error reading them back ends the form
    /// being written, and [`Report::unreadable`] says why).
    pub findings: Findings,
    /// Codes accepted with `--allow`: reported, not failing.
    pub allowed: Vec<Code>,
}

impl Report {
    /// How many findings of each code, in [`Code::ALL`]'s order, the codes found only.
    pub fn counts(&self) -> Vec<(Code, usize)> {
        Code::ALL
            .into_iter()
            .map(|code| (code, self.findings.count(code)))
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// The first `n` findings of `code`.
    pub fn first(&self, code: Code, n: usize) -> io::Result<Vec<Finding>> {
        self.findings.of_code(code).take(n).collect()
    }

    pub fn is_allowed(&self, code: Code) -> bool {
        self.allowed.contains(&code)
    }

    /// History was only added to (or every change found was allowed).
    pub fn pass(&self) -> bool {
        Code::ALL
            .into_iter()
            .all(|code| self.is_allowed(code) || self.findings.count(code) == 0)
    }

    /// The findings could not be read back from the temporary file: a form written from them
    /// failed, and this is the diagnostic to give (not the write's).
    pub fn unreadable(&self) -> Option<VercyError> {
        self.findings.failure().map(super::unreadable)
    }

    /// The diagnostic for `e`, met reading the findings back.
    pub fn lost(&self, e: io::Error) -> VercyError {
        self.unreadable().unwrap_or_else(|| super::unreadable(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_named_with_or_without_their_prefix() {
        for code in Code::ALL {
            assert_eq!(Code::parse(code.name()), Some(code));
        }
        assert_eq!(Code::parse("edited"), Some(Code::Edited));
        assert_eq!(Code::parse("history.nope"), None);
    }
}
