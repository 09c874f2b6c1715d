//! Every value warning's code: one variant each, and in one `match` what it is called, the
//! field it concerns, what it means and the level it caps. The order of [`Code::ALL`] is the
//! order every report lists the codes in (the SARIF rules among them).

/// A value warning's code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Code {
    Date,
    Interval,
    DuplicateId,
    CaptureTime,
    Owners,
    Policies,
    PolicyRepeated,
    ReleaseTo,
    SupersedesUnknown,
    SupersedesCycle,
    SupersededValidTo,
    Conflict,
}

/// What a code says of itself.
struct Spec {
    code: &'static str,
    field: &'static str,
    /// Under `--strict`, a warning of this code lets the level be no higher than this.
    caps_level: u8,
    meaning: &'static str,
}

impl Code {
    /// Every code, in the order the reports list them.
    pub const ALL: [Code; 12] = [
        Code::Date,
        Code::Interval,
        Code::DuplicateId,
        Code::CaptureTime,
        Code::Owners,
        Code::Policies,
        Code::PolicyRepeated,
        Code::ReleaseTo,
        Code::SupersedesUnknown,
        Code::SupersedesCycle,
        Code::SupersededValidTo,
        Code::Conflict,
    ];

    const fn spec(self) -> Spec {
        let (code, field, caps_level, meaning) = match self {
            Code::Date => (
                "value.date",
                "valid_from",
                0,
                "a valid_from or valid_to that is not a date",
            ),
            Code::Interval => (
                "value.interval",
                "valid_to",
                0,
                "valid_to before valid_from",
            ),
            Code::DuplicateId => (
                "value.duplicate_id",
                "record_id",
                0,
                "two records with the same record_id",
            ),
            Code::CaptureTime => (
                "value.capture_time",
                "valid_from",
                0,
                "valid_from equal to the capture timestamp on most records",
            ),
            Code::Owners => (
                "value.owners",
                "concept_owner",
                1,
                "more than one owner for one concept",
            ),
            Code::Policies => (
                "value.policies",
                "conflict_policy",
                1,
                "more than one conflict policy in the store",
            ),
            Code::PolicyRepeated => (
                "value.policy_repeated",
                "conflict_policy",
                1,
                "the conflict policy repeated on every record",
            ),
            Code::ReleaseTo => (
                "value.release_to",
                "release_to",
                2,
                "release_to that is not a list of parties",
            ),
            Code::SupersedesUnknown => (
                "value.supersedes_unknown",
                "supersedes",
                2,
                "supersedes names no record in the store",
            ),
            Code::SupersedesCycle => (
                "value.supersedes_cycle",
                "supersedes",
                2,
                "supersedes forms a cycle",
            ),
            Code::SupersededValidTo => (
                "value.superseded_valid_to",
                "supersedes",
                2,
                "a superseded record whose valid_to was written by hand",
            ),
            Code::Conflict => (
                "value.conflict",
                "supersedes",
                2,
                "records of one concept in force together with different values and no supersedes between them",
            ),
        };
        Spec {
            code,
            field,
            caps_level,
            meaning,
        }
    }

    /// The stable code, e.g. `value.date`.
    pub const fn code(self) -> &'static str {
        self.spec().code
    }

    /// The field the warning concerns.
    pub const fn field(self) -> &'static str {
        self.spec().field
    }

    /// Under `--strict`, the level can be no higher than this.
    pub const fn caps_level(self) -> u8 {
        self.spec().caps_level
    }

    /// What the code means, in a few words.
    pub const fn meaning(self) -> &'static str {
        self.spec().meaning
    }

    /// The code named `code`, if there is one.
    #[cfg(test)]
    fn named(code: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.code() == code)
    }
}

/// The stable code, padded as asked (the reports line codes up in columns).
impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// [`Code::ALL`] holds every variant once, in declaration order (so a variant left out
    /// of it is caught: the last one's number is the length less one).
    #[test]
    fn all_lists_every_code_once_in_order() {
        for (i, code) in Code::ALL.into_iter().enumerate() {
            assert_eq!(code as usize, i, "{code:?}");
        }
        assert_eq!(Code::Conflict as usize + 1, Code::ALL.len());
    }

    /// Every code is unique, has a field and a meaning, and is a row of the README's table
    /// of check codes (the section every SARIF rule's `helpUri` points at).
    #[test]
    fn codes_are_unique_and_documented() {
        let readme = include_str!("../../../README.md");
        let anchor = super::super::super::format::sarif::CODES_HELP_URI
            .rsplit_once('#')
            .map(|(_, a)| a)
            .expect("an anchor");
        let heading = readme
            .lines()
            .position(|l| {
                l.strip_prefix('#').is_some_and(|h| {
                    h.trim_start_matches('#')
                        .trim()
                        .to_lowercase()
                        .replace(' ', "-")
                        == anchor
                })
            })
            .expect("the README has the section CODES_HELP_URI points at");
        let section: Vec<&str> = readme
            .lines()
            .skip(heading + 1)
            .take_while(|l| !l.starts_with('#'))
            .collect();
        let mut seen = HashSet::new();
        for code in Code::ALL {
            assert!(seen.insert(code.code()), "duplicate code {}", code.code());
            assert!(!code.field().is_empty(), "{code:?} has no field");
            assert!(!code.meaning().is_empty(), "{code:?} has no meaning");
            let row = format!("| `{}` |", code.code());
            assert!(
                section.iter().any(|l| l.starts_with(&row)),
                "README.md#{anchor} does not document {}",
                code.code()
            );
            assert_eq!(Code::named(code.code()), Some(code));
        }
    }
}
