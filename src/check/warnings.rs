//! The value warnings of one store, kept compact: every warning's message lives in a shared
//! arena (`Names`), and the records it names are either kept there too (name and line) or,
//! for the warnings that name records by the hundred thousand, kept as numbers whose names
//! are read from `RecordNames` when a report writes them. A store with a quarter of a
//! million warnings (one per concept with several owners) keeps a few bytes per warning and
//! per record named, never a struct, a `Vec` and a `String` each. Every output format reads
//! the warnings from here, one at a time, and writes them as it goes.
//!
//! Memory: one entry and one message per warning, and per record named a name and a line or
//! 4 bytes; a concept with several owners is read from the owners book settling made, not
//! written out again.
//! Each warning names records of the store, and each record is named by a bounded number of
//! warnings (one per code at most, except a record in several supersedes cycles), so the
//! whole is linear in the store with small constants.

use super::table::Names;
use super::values::id_text::RecordName;
use super::values::ids::small;
use super::values::record_names::{NamesAhead, RecordNames};
use super::values::{Code, OwnersBook};
use std::borrow::Cow;
use std::sync::Arc;

/// Records named by a warning (or gathered for one): their names and lines, in one arena.
///
/// Memory: the names' bytes plus 12 bytes a record; a list holds each record at most once
/// per reason it is gathered for, so it is linear in the store.
#[derive(Debug, Default, Clone)]
pub struct RecordList {
    names: Names,
    lines: Vec<u64>,
}

impl RecordList {
    pub fn push(&mut self, name: &str, line: u64) {
        self.names.push(name);
        self.lines.push(line);
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, u64)> + '_ {
        (0..self.len()).map(|i| (self.names.get(i), self.lines[i]))
    }

    /// The record at `i`: its name and line (empty and 0 past the end).
    fn get(&self, i: usize) -> (RecordName<'_>, u64) {
        (
            RecordName::Text(self.names.get(i)),
            self.lines.get(i).copied().unwrap_or(0),
        )
    }
}

/// One warning: its code and where its records start.
#[derive(Debug, Clone, Copy)]
struct Entry {
    code: Code,
    /// Its records are named by `who` ([`Warnings::named`]), not kept as text.
    by_who: bool,
    /// Where its records start, in `records` or `named`.
    first_record: usize,
    /// For a concept with several owners, 1 + its place in [`Warnings::owners`] (its subject
    /// and message are made from there when read, not kept: there is one such warning a
    /// concept); 0 for the rest.
    owners: u32,
}

/// Every warning of one store, in the order they were found.
#[derive(Debug, Default)]
pub struct Warnings {
    entries: Vec<Entry>,
    /// The message of each warning, by the same index.
    messages: Names,
    /// A short name for what each warning is about (a cycle), for the reports that list many
    /// warnings of one code on one line; empty for the rest (a concept's owners are read
    /// from `owners`).
    subjects: Names,
    records: RecordList,
    /// The records the warnings name by `who` (a record's index in [`RecordNames`]): 4 bytes
    /// a record named, whatever its name, for the warnings that name records by the hundred
    /// thousand (owners, conflicts, repeated ids).
    named: Vec<u32>,
    /// The names of the records in `named`, kept once for every warning (and shared with
    /// the findings, whose offenders are named by `who` too).
    names: Arc<RecordNames>,
    /// The concepts with several owners, which the owners' warnings name by place.
    owners: OwnersBook,
}

/// One warning, as the formats read it.
#[derive(Debug, Clone, Copy)]
pub struct Warning<'a> {
    /// Its code (the field it concerns, the level it caps, what it means).
    pub code: Code,
    message: &'a str,
    subject: &'a str,
    /// A concept with several owners: the book and its place there.
    owners: Option<(&'a OwnersBook, usize)>,
    records: Records<'a>,
    range: (usize, usize),
}

/// Where a warning's records are: kept as text, or named by `who`.
#[derive(Debug, Clone, Copy)]
enum Records<'a> {
    Kept(&'a RecordList),
    Named(&'a [u32], &'a RecordNames),
}

impl<'a> Warning<'a> {
    /// What the warning says.
    pub fn message(&self) -> Cow<'a, str> {
        let Some((book, i)) = self.owners else {
            return Cow::Borrowed(self.message);
        };
        let (concept, owners) = book.concept(i);
        Cow::Owned(format!(
            "concept {concept:?} has {} owners: {owners}",
            self.count()
        ))
    }

    /// What the warning is about in a few words (empty: the message says it): a cycle, or
    /// `concept (owner, owner, …)`.
    pub fn subject(&self) -> Cow<'a, str> {
        let Some((book, i)) = self.owners else {
            return Cow::Borrowed(self.subject);
        };
        let (concept, owners) = book.concept(i);
        Cow::Owned(format!("{concept} ({owners})"))
    }

    /// How many records the warning names.
    pub fn count(&self) -> usize {
        self.range.1 - self.range.0
    }

    /// The `k`th record it names (`k` < [`Self::count`]), as [`Self::records`] gives it; a
    /// record named by `who` is read from `ahead` ([`Warnings::names_ahead`]), which reads
    /// names a batch ahead when the records of warning after warning are read in order.
    #[inline]
    pub fn record(&self, k: usize, ahead: &mut NamesAhead<'a>) -> (RecordName<'a>, u64) {
        let i = self.range.0 + k;
        match self.records {
            Records::Kept(list) => list.get(i),
            Records::Named(..) => ahead.get(i),
        }
    }

    /// The records it names: name and line (0: not known).
    pub fn records(&self) -> impl ExactSizeIterator<Item = (RecordName<'a>, u64)> + 'a {
        let records = self.records;
        (self.range.0..self.range.1).map(move |i| match records {
            Records::Kept(list) => list.get(i),
            Records::Named(who, names) => names.name(who[i]),
        })
    }
}

/// The warnings of one code, counted.
#[derive(Debug, Clone, Copy)]
pub struct Group {
    pub code: Code,
    /// How many warnings of this code ...
    pub warnings: usize,
    /// ... and how many records they name in all.
    pub records: usize,
}

impl Warnings {
    /// Add a warning naming `records`; `subject` may be empty.
    pub fn push<N: AsRef<str>>(
        &mut self,
        code: Code,
        message: &str,
        subject: &str,
        records: impl IntoIterator<Item = (N, u64)>,
    ) {
        self.open(code, false, message, subject);
        for (name, line) in records {
            self.records.push(name.as_ref(), line);
        }
    }

    /// Add a warning naming `records` by `who` (their names are given with
    /// [`Self::keep_names`]); `subject` may be empty.
    pub fn push_named(
        &mut self,
        code: Code,
        message: &str,
        subject: &str,
        records: impl IntoIterator<Item = u32>,
    ) {
        self.open(code, true, message, subject);
        self.named.extend(records);
    }

    /// Start a warning whose records come next, kept as text or named by `who`.
    fn open(&mut self, code: Code, by_who: bool, message: &str, subject: &str) {
        let first_record = if by_who {
            self.named.len()
        } else {
            self.records.len()
        };
        self.entries.push(Entry {
            code,
            by_who,
            first_record,
            owners: 0,
        });
        self.messages.push(message);
        self.subjects.push(subject);
    }

    /// The names of the records the warnings name by `who`.
    pub fn keep_names(&mut self, names: RecordNames) {
        self.names = Arc::new(names);
    }

    /// The names of the records named by `who`, shared.
    pub fn record_names(&self) -> Arc<RecordNames> {
        Arc::clone(&self.names)
    }

    /// A name the report wrote could not be read back (see `Ids::unreadable`).
    pub fn names_unreadable(&self) -> bool {
        self.names.ids.unreadable()
    }

    /// Add the warning that the `concept`th concept of the owners book (given with
    /// [`Self::keep_owners`]) has several owners, each with the first record where it owns
    /// it (`records`, in the book's order of its owners).
    pub fn push_owners(&mut self, concept: usize, records: impl IntoIterator<Item = u32>) {
        self.push_named(Code::Owners, "", "", records);
        if let Some(last) = self.entries.last_mut() {
            last.owners = small(concept + 1);
        }
    }

    /// The concepts with several owners that [`Self::push_owners`] names.
    pub fn keep_owners(&mut self, book: OwnersBook) {
        self.owners = book;
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The names of the records named by `who`, read ahead (see [`Warning::record`]).
    pub fn names_ahead(&self) -> NamesAhead<'_> {
        NamesAhead::new(&self.names, &self.named)
    }

    pub fn get(&self, i: usize) -> Option<Warning<'_>> {
        let entry = self.entries.get(i)?;
        // the next warning whose records are kept in the same place starts where this ends
        // (the two places alternate only from one code to the next, so this looks past at
        // most the warnings of the codes between)
        let (records, all) = if entry.by_who {
            (Records::Named(&self.named, &self.names), self.named.len())
        } else {
            (Records::Kept(&self.records), self.records.len())
        };
        let end = self.entries[i + 1..]
            .iter()
            .find(|e| e.by_who == entry.by_who)
            .map_or(all, |e| e.first_record);
        Some(Warning {
            code: entry.code,
            message: self.messages.get(i),
            subject: self.subjects.get(i),
            owners: (entry.owners > 0).then(|| (&self.owners, entry.owners as usize - 1)),
            records,
            range: (entry.first_record, end),
        })
    }

    pub fn iter(&self) -> impl Iterator<Item = Warning<'_>> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// The warnings of one code, in the order found.
    pub fn of_code(&self, code: Code) -> impl Iterator<Item = Warning<'_>> + '_ {
        self.iter().filter(move |w| w.code == code)
    }

    /// The codes found, in the order first found, each with its counts: one entry per code
    /// of [`Code::ALL`] at most.
    pub fn groups(&self) -> Vec<Group> {
        let mut groups: Vec<Group> = Vec::new();
        for w in self.iter() {
            match groups.iter_mut().find(|g| g.code == w.code) {
                Some(g) => {
                    g.warnings += 1;
                    g.records += w.count();
                }
                None => groups.push(Group {
                    code: w.code,
                    warnings: 1,
                    records: w.count(),
                }),
            }
        }
        groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records as a report shows them.
    fn shown<'a>(records: impl Iterator<Item = (RecordName<'a>, u64)>) -> Vec<String> {
        records
            .map(|(name, line)| format!("{name}:{line}"))
            .collect()
    }

    const NONE: [(&str, u64); 0] = [];

    fn book(concepts: &[(&str, &[&str])]) -> OwnersBook {
        OwnersBook::of(concepts)
    }

    #[test]
    fn warnings_keep_their_own_records_and_group_by_code() {
        let mut w = Warnings::default();
        w.push(
            Code::Owners,
            "concept a",
            "a (x, y)",
            [("R-1", 1), ("R-2", 2)],
        );
        w.push(Code::Interval, "inverted", "", NONE);
        w.push(Code::Owners, "concept b", "b (x, z)", [("R-3", 7)]);
        let all: Vec<_> = w.iter().collect();
        assert_eq!(all.len(), 3);
        assert_eq!(shown(all[0].records()), ["R-1:1", "R-2:2"]);
        assert_eq!(all[1].count(), 0);
        assert_eq!(shown(all[2].records()), ["R-3:7"]);
        assert_eq!(all[2].subject(), "b (x, z)");
        assert_eq!(all[0].code.field(), "concept_owner");
        assert_eq!(all[0].message(), "concept a");
        w.push_owners(0, [0, 1]);
        w.keep_owners(book(&[("c (1)", &["x", "y (z)"])]));
        let owners = w.get(3).unwrap();
        assert_eq!(owners.subject(), "c (1) (x, y (z))");
        assert_eq!(
            owners.message(),
            r#"concept "c (1)" has 2 owners: x, y (z)"#
        );
        let groups = w.groups();
        assert_eq!(groups.len(), 2);
        assert_eq!(
            (groups[0].code.code(), groups[0].warnings, groups[0].records),
            ("value.owners", 3, 5)
        );
        assert_eq!(w.of_code(Code::Owners).count(), 3);
    }

    #[test]
    fn records_named_by_who_read_their_names_from_the_book_between_kept_ones() {
        let mut names = RecordNames::default();
        for (line, id) in ["R-1", "R-2", "R-3"].iter().enumerate() {
            names
                .ids
                .push(id, super::super::table::hash(id), line as u64 + 1, false);
        }
        let aside = names.name_aside("line 9", 9) | super::super::values::record_names::NAMED;
        let renamed = names.rename(2, "R-3 (again)", 3) | super::super::values::record_names::NAMED;
        let mut w = Warnings::default();
        w.push(Code::Date, "bad", "", [("R-1", 1)]);
        w.push_named(Code::DuplicateId, "repeated", "", [1, aside]);
        w.push(Code::Interval, "inverted", "", [("R-2", 2), ("R-3", 3)]);
        w.push_owners(0, [0, renamed]);
        w.push(Code::ReleaseTo, "bad", "", NONE);
        w.keep_names(names);
        w.keep_owners(book(&[("c", &["x", "y"])]));
        let all: Vec<Vec<String>> = w.iter().map(|w| shown(w.records())).collect();
        assert_eq!(
            all,
            [
                vec!["R-1:1"],
                vec!["R-2:2", "line 9:9"],
                vec!["R-2:2", "R-3:3"],
                vec!["R-1:1", "R-3 (again):3"],
                vec![],
            ]
        );
        // read a batch ahead, and out of order, the records are the same
        let mut ahead = w.names_ahead();
        for warning in w.iter().collect::<Vec<_>>().into_iter().rev() {
            let read = shown((0..warning.count()).map(|k| warning.record(k, &mut ahead)));
            assert_eq!(read, shown(warning.records()));
        }
        let mut lines = vec![7];
        w.names.lines(&[2, 0, aside, renamed], &mut lines);
        assert_eq!(lines, [7, 3, 1, 9, 3]);
        assert_eq!(
            w.get(3).unwrap().message(),
            "concept \"c\" has 2 owners: x, y"
        );
        let groups = w.groups();
        assert_eq!(groups.iter().map(|g| g.records).sum::<usize>(), 7);
    }
}
