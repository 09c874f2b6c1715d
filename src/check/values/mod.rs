//! Beyond the reference: the values, not just their presence. Every finding here is a warning
//! that names records and their lines; `--strict` lets each cap the level at the one below the
//! level of the field it concerns.
//!
//! A value check is one file: a type implementing `ValueCheck` (its codes, what it reads of
//! each record, what it keeps as the records are folded in store order, what it settles once
//! they are all in, its warnings), and one line in the list below, whose order is the order
//! of the warnings and of their codes. The list expands to plain calls, inlined: no check is
//! looked up at run time.
//!
//! What checks over records together read (the ids, the supersedes pointers, the concepts and
//! their owners, each concept's records in time) is the index's (`index/`), gathered once for
//! all of them; a check keeps only what is its own (the records it will name, by `who`).
//!
//! Like the rules, the work is split so records can be read in parallel: [`ValueChecks::facts`]
//! reads one record alone, [`ValueChecks::fold`] adds its facts in store order, and
//! [`ValueChecks::settle`] works out the warnings once every record is in.

use super::index::{Budget, Folding, Index, Reading, SharedFacts};
use super::roles;
use super::warnings::{Code, Warnings};

pub use super::index::Expected;
pub use capture::CAPTURE_KEYS;

/// A value check: one concern, with its codes and its warnings.
pub(super) trait ValueCheck: Default {
    /// Its warnings' codes, in the order they come.
    const CODES: &'static [Code];

    /// What the check reads of one record, owned: it travels to the thread that folds it,
    /// and in a shard's facts to the merge (`check/shard/`).
    type Facts: std::fmt::Debug + Default + Send + serde::Serialize + serde::de::DeserializeOwned;

    /// Read one record (on any core, no shared state).
    fn read(_record: &Reading) -> Self::Facts {
        Self::Facts::default()
    }

    /// Add one record's facts, in store order.
    fn fold(&mut self, _facts: &Self::Facts, _record: &mut Folding) {}

    /// Work out what needs every record, once they are all in, the ids matched and the
    /// pointers followed (the checks in the order listed, before the concepts are settled).
    fn settle(&mut self, _index: &mut Index) -> std::io::Result<()> {
        Ok(())
    }

    /// Add the check's warnings (the index settled).
    fn warnings(&mut self, index: &mut Index, out: &mut Warnings);
}

/// The value checks, one line each (`module::Check`), in the order their warnings are listed.
macro_rules! value_checks {
    ($($module:ident :: $check:ident),* $(,)?) => {
        $(mod $module;)*

        /// Every value check's state.
        #[derive(Default)]
        struct Checks {
            $($module: $module::$check,)*
        }

        /// What every value check read of one record.
        #[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
        struct CheckFacts {
            $($module: <$module::$check as ValueCheck>::Facts,)*
        }

        /// Every value warning's code, in the order the reports list them.
        pub fn codes() -> impl Iterator<Item = Code> {
            [$(<$module::$check as ValueCheck>::CODES),*].into_iter().flatten().copied()
        }

        impl Checks {
            #[inline(always)]
            fn read(record: &Reading) -> CheckFacts {
                CheckFacts {
                    $($module: <$module::$check as ValueCheck>::read(record),)*
                }
            }

            #[inline(always)]
            fn fold(&mut self, facts: &CheckFacts, record: &mut Folding) {
                $(self.$module.fold(&facts.$module, record);)*
            }

            fn settle(&mut self, index: &mut Index) -> std::io::Result<()> {
                $(self.$module.settle(index)?;)*
                Ok(())
            }

            fn warnings(&mut self, index: &mut Index, out: &mut Warnings) {
                $(self.$module.warnings(index, out);)*
            }
        }
    };
}

value_checks! {
    dates::Dates,
    duplicate_ids::DuplicateIds,
    capture::Capture,
    owners::Owners,
    policy::Policy,
    release::Release,
    supersession::Supersession,
    conflicts::Conflicts,
}

/// What the index and the value checks read of one record, packed to travel to the folding
/// thread (and serialised, to a shard's facts).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct PackedFacts {
    shared: SharedFacts,
    checks: CheckFacts,
}

impl PackedFacts {
    /// What the index keeps of the record.
    pub fn shared(&self) -> &SharedFacts {
        &self.shared
    }

    /// [`Self::shared`], to change (a shard's record takes its line in the whole store).
    pub fn shared_mut(&mut self) -> &mut SharedFacts {
        &mut self.shared
    }
}

/// The value checks of one store: the index, each check's state, and once settled, the
/// warnings.
#[derive(Default)]
pub struct ValueChecks {
    index: Index,
    checks: Checks,
    done: Option<(Warnings, Option<Expected>)>,
}

impl ValueChecks {
    /// The value checks of a store, their index holding at most its share of `memory` bytes
    /// before it goes to a temporary file (`--memory`; see `index::Budget::of`).
    pub fn within(memory: usize) -> ValueChecks {
        ValueChecks {
            index: Index::new(Budget::of(memory)),
            ..ValueChecks::default()
        }
    }

    /// Read one record (no shared state: safe to run on many records at once); `line` is
    /// where it starts.
    #[inline(always)]
    pub fn facts(view: &crate::store::RecordView, line: u64) -> PackedFacts {
        let record = Reading::new(view, roles::values());
        PackedFacts {
            shared: SharedFacts::read(&record, line),
            checks: Checks::read(&record),
        }
    }

    /// Make room for about `records` more records (see `Index::reserve`).
    pub fn expect_records(&mut self, records: usize, ids: usize, pointers: usize, concepts: usize) {
        self.index.reserve(records, ids, pointers, concepts);
    }

    /// Add one record's facts, in store order; `name` is what the report calls the record.
    /// Returns the record as the warnings name it (`who`), when a check has named it.
    #[inline(always)]
    pub fn fold(&mut self, facts: &PackedFacts, name: &str) -> Option<u32> {
        let checks = &mut self.checks;
        self.index.fold(&facts.shared, name, |record| {
            checks.fold(&facts.checks, record)
        })
    }

    /// Name a record that no check has named (`name`, on `line`): its `who`.
    pub fn name_aside(&mut self, name: &str, line: u64) -> u32 {
        self.index.name_aside(name, line)
    }

    /// Add concepts from `--expected FILE`.
    pub fn expect(&mut self, concepts: impl IntoIterator<Item = String>) {
        self.index.expect(concepts);
    }

    /// Work out the warnings and the register now, and let go of everything the pass kept
    /// (ids, concepts, pointers), so what comes next — the report — has that memory. After
    /// this, [`Self::finish`] gives what was worked out.
    /// Fails only when a temporary file (`spill.rs`) cannot be read back.
    pub fn settle(&mut self) -> std::io::Result<()> {
        if self.done.is_some() {
            return Ok(());
        }
        let mut index = std::mem::take(&mut self.index);
        index.match_up()?;
        // each check settles what it keeps before the concepts are settled, so the two are
        // never held at once
        self.checks.settle(&mut index)?;
        index.settle_concepts()?;
        let mut out = Warnings::default();
        self.checks.warnings(&mut index, &mut out);
        // the warnings name records by `who`: the names go with them
        let (names, expected) = index.finish();
        out.keep_names(names);
        *self = ValueChecks {
            done: Some((out, expected)),
            ..ValueChecks::default()
        };
        Ok(())
    }

    /// The warnings, and the register as given with the concepts it names that no record
    /// holds (after [`Self::settle`]).
    pub fn finish(self) -> (Warnings, Option<Expected>) {
        debug_assert!(self.done.is_some(), "settle first");
        self.done.unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Every code is unique, has a field and a meaning, and is a row of the README's table
    /// of check codes (the section every code's documentation points at).
    #[test]
    fn codes_are_unique_and_documented() {
        let readme = include_str!("../../../README.md");
        let anchor = super::super::warnings::CODES_HELP_URI
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
        for code in codes() {
            assert!(seen.insert(code.code()), "duplicate code {}", code.code());
            assert!(!code.field().is_empty(), "{code:?} has no field");
            assert!(!code.meaning().is_empty(), "{code:?} has no meaning");
            assert_eq!(code.doc(), super::super::warnings::CODES_HELP_URI);
            let row = format!("| `{}` |", code.code());
            assert!(
                section.iter().any(|l| l.starts_with(&row)),
                "README.md#{anchor} does not document {}",
                code.code()
            );
        }
        assert_eq!(seen.len(), 12, "the codes of the checks listed");
    }
}
