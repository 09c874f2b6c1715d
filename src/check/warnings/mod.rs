//! The value warnings of one store, kept compact: every warning's message lives in a shared
//! arena (`Names`), and the records it names are kept as numbers whose names are read from
//! `RecordNames` when a report writes them (a supersedes pointer that names no record, as
//! the place of the pointer kept there, `dangling.rs`). A store with a quarter of a million
//! warnings (one per concept with several owners) keeps a few bytes per warning and per
//! record named, never a struct, a `Vec` and a `String` each; a warning that names every
//! record of a store of UUIDs keeps 4 bytes a record, not a copy of its name. Every output
//! format reads the warnings from here, one at a time, and writes them as it goes.
//!
//! Memory: one entry and one message per warning, and 4 bytes per record named; a concept
//! with several owners is read from the owners book settling made, not written out again.
//! Each warning names records of the store, and each record is named by a bounded number of
//! warnings (one per code at most, twice for its two dates), so the whole is linear in the
//! store with small constants.

use super::index::book::{BookAhead, OwnersBook};
use super::index::id_text::RecordName;
use super::index::ids::small;
use super::index::names::{NamesAhead, RecordNames};
use super::table::Names;
mod code;

pub use code::{Code, Part, Spec, Words, CODES_HELP_URI};
use std::borrow::Cow;
use std::sync::Arc;

/// One warning: its code, where its records start, and how it is kept (16 bytes: a store has
/// a quarter of a million warnings).
#[derive(Debug, Clone, Copy)]
struct Entry {
    code: Code,
    /// Where its records start, among the records kept where it keeps them (4 bytes: 4 bytes
    /// a record named cannot hold past 2^32 of them in memory anyway).
    first_record: u32,
    /// [`DANGLING`] when its records are the dangling pointers of [`RecordNames`]
    /// (`dangling.rs`), else they are kept by `who` in [`Warnings::named`]; [`MADE`] when its
    /// message and subject are made when read (its code's [`Words`]) from the number below
    /// the two bits, else they are kept in [`Warnings::messages`] and [`Warnings::subjects`].
    how: u32,
}

/// See [`Entry::how`].
const DANGLING: u32 = 1 << 31;
const MADE: u32 = 1 << 30;

impl Entry {
    fn dangling(&self) -> bool {
        self.how & DANGLING != 0
    }

    /// The number its words are made from, when they are made.
    fn made(&self) -> Option<u32> {
        (self.how & MADE != 0).then_some(self.how & (MADE - 1))
    }
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
    /// The records the warnings name by `who` (a record's index in [`RecordNames`]): 4 bytes
    /// a record named, whatever its name; a warning can name every record of the store, or
    /// twice (two dates that do not parse), and no name is copied for it.
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
    /// The number its words are made from, when they are made.
    made: Option<u32>,
    owners: &'a OwnersBook,
    records: Records<'a>,
    range: (usize, usize),
}

/// Where a warning's records are: named by `who`, or dangling pointers.
#[derive(Debug, Clone, Copy)]
enum Records<'a> {
    Named(&'a [u32], &'a RecordNames),
    Dangling(&'a RecordNames),
}

impl<'a> Warning<'a> {
    /// What the warning says.
    pub fn message(&self) -> Cow<'a, str> {
        self.message_through(None)
    }

    /// [`Self::message`], for one of many warnings written in order: what is read back from
    /// a temporary file is read through `ahead`.
    pub fn message_through(&self, ahead: Option<&mut BookAhead>) -> Cow<'a, str> {
        match self.made {
            None => Cow::Borrowed(self.message),
            Some(kept) => Cow::Owned(self.words(kept, Part::Message, ahead)),
        }
    }

    /// What the warning is about in a few words (empty: the message says it), e.g. a cycle,
    /// or `concept (owner, owner, …)`.
    pub fn subject(&self) -> Cow<'a, str> {
        match self.made {
            None => Cow::Borrowed(self.subject),
            Some(kept) => Cow::Owned(self.words(kept, Part::Subject, None)),
        }
    }

    /// The `part` of its words its code makes from `kept`.
    fn words(&self, kept: u32, part: Part, ahead: Option<&mut BookAhead>) -> String {
        let Some(make) = self.code.words() else {
            return String::new();
        };
        let name = |k: usize| match self.records {
            Records::Named(who, names) => names.name(who[self.range.0 + k]).0,
            Records::Dangling(_) => RecordName::Text(""),
        };
        let mut words = Words {
            kept,
            count: self.count(),
            name: &name,
            book: self.owners,
            ahead,
        };
        make(&mut words, part)
    }

    /// How many records the warning names.
    pub fn count(&self) -> usize {
        self.range.1 - self.range.0
    }

    /// The `k`th record it names (`k` < [`Self::count`]), as [`Self::records`] gives it; a
    /// record named by `who` is read from `ahead` ([`Warnings::names_ahead`]), which reads
    /// names a batch ahead when the records of warning after warning are read in order, and
    /// lends the name until it is asked again.
    #[inline]
    pub fn record<'s>(&self, k: usize, ahead: &'s mut NamesAhead<'a>) -> (RecordName<'s>, u64) {
        let i = self.range.0 + k;
        match self.records {
            Records::Named(..) => ahead.lend(i),
            Records::Dangling(_) => ahead.dangling(i),
        }
    }

    /// Where its records `from..to` (as [`Self::record`] counts them) lie among the records
    /// named by `who`, the places a `NamesAhead` reads them from; `None` for records named
    /// otherwise.
    pub fn who_range(&self, (from, to): (usize, usize)) -> Option<(usize, usize)> {
        let to = to.min(self.count());
        match self.records {
            Records::Named(..) if from < to => Some((self.range.0 + from, self.range.0 + to)),
            _ => None,
        }
    }

    /// The records it names: name and line (0: not known).
    pub fn records(&self) -> impl ExactSizeIterator<Item = (RecordName<'a>, u64)> + 'a {
        let records = self.records;
        (self.range.0..self.range.1).map(move |i| match records {
            Records::Named(who, names) => names.name(who[i]),
            Records::Dangling(names) => names.dangling.name(i, names, None),
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
    /// Add a warning naming `records` by `who` (their names are given with
    /// [`Self::keep_names`]); `subject` may be empty.
    pub fn push_named(
        &mut self,
        code: Code,
        message: &str,
        subject: &str,
        records: impl IntoIterator<Item = u32>,
    ) {
        self.open(code, (0, self.named.len()), message, subject);
        self.named.extend(records);
    }

    /// Add a warning naming the dangling pointers of the names given with
    /// [`Self::keep_names`], from the `from`th on (to the next such warning's first, or the
    /// last); `subject` may be empty.
    pub fn push_dangling(&mut self, code: Code, message: &str, subject: &str, from: usize) {
        self.open(code, (DANGLING, from), message, subject);
    }

    /// Add a warning naming `records` by `who`, its message and subject made when read by its
    /// code's words from `kept` (below 2^30).
    pub fn push_made(&mut self, code: Code, kept: usize, records: impl IntoIterator<Item = u32>) {
        self.open(
            code,
            (MADE | small(kept).min(MADE - 1), self.named.len()),
            "",
            "",
        );
        self.named.extend(records);
    }

    /// Start a warning whose records are kept as `how` says, from `first_record` on.
    fn open(
        &mut self,
        code: Code,
        (how, first_record): (u32, usize),
        message: &str,
        subject: &str,
    ) {
        self.entries.push(Entry {
            code,
            first_record: small(first_record),
            how,
        });
        self.messages.push(message);
        self.subjects.push(subject);
    }

    /// Room for `warnings` more warnings naming `records` records by `who` in all: a check
    /// that adds a warning for every few records sizes the lists once, rather than holding
    /// each list twice over as it doubles.
    pub fn reserve(&mut self, warnings: usize, records: usize) {
        self.entries.reserve_exact(warnings);
        self.messages.reserve(warnings, 0);
        self.subjects.reserve(warnings, 0);
        self.named.reserve_exact(records);
    }

    /// The names of the records the warnings name by `who`.
    pub fn keep_names(&mut self, names: RecordNames) {
        self.names = Arc::new(names);
    }

    /// The names of the records named by `who`, shared.
    pub fn record_names(&self) -> Arc<RecordNames> {
        Arc::clone(&self.names)
    }

    /// A name or a concept the report wrote could not be read back (see `Ids::unreadable`,
    /// `OwnersBook::unreadable`).
    pub fn names_unreadable(&self) -> bool {
        self.names.unreadable() || self.owners.unreadable()
    }

    /// The concepts with several owners, which the words of some warnings read.
    pub fn keep_owners(&mut self, book: OwnersBook) {
        self.owners = book;
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How long the name of a record named by `who` is, on average, in bytes.
    pub fn mean_name_len(&self) -> usize {
        self.names.mean_len()
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
        let (records, all) = match entry.dangling() {
            false => (Records::Named(&self.named, &self.names), self.named.len()),
            true => (Records::Dangling(&self.names), self.names.dangling.len()),
        };
        let end = self.entries[i + 1..]
            .iter()
            .find(|e| e.dangling() == entry.dangling())
            .map_or(all, |e| e.first_record as usize);
        Some(Warning {
            code: entry.code,
            message: self.messages.get(i),
            subject: self.subjects.get(i),
            made: entry.made(),
            owners: &self.owners,
            records,
            range: (entry.first_record as usize, end),
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
    /// of `Code::ALL` at most.
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
    use super::super::index::names::{AS_ID, NAMED};
    use super::super::table::hash;
    use super::*;

    /// The code of this name, as a check declares it.
    fn code(name: &str) -> Code {
        super::super::values::codes()
            .find(|c| c.code() == name)
            .expect("a code of a check")
    }

    /// Records as a report shows them.
    fn shown<'a>(records: impl Iterator<Item = (RecordName<'a>, u64)>) -> Vec<String> {
        records
            .map(|(name, line)| format!("{name}:{line}"))
            .collect()
    }

    const NONE: [u32; 0] = [];

    /// The names of records with these ids, on these lines.
    fn names_of(ids: &[(&str, u64)]) -> RecordNames {
        let mut names = RecordNames::default();
        for &(id, line) in ids {
            names.ids.push(id, hash(id), line, false);
        }
        names
    }

    fn book(concepts: &[(&str, &[&str])]) -> OwnersBook {
        OwnersBook::of(concepts)
    }

    #[test]
    fn warnings_keep_their_own_records_and_group_by_code() {
        let mut w = Warnings::default();
        w.push_named(code("value.owners"), "concept a", "a (x, y)", [0, 1]);
        w.push_named(code("value.interval"), "inverted", "", NONE);
        w.push_named(code("value.owners"), "concept b", "b (x, z)", [2]);
        w.keep_names(names_of(&[("R-1", 1), ("R-2", 2), ("R-3", 7)]));
        let all: Vec<_> = w.iter().collect();
        assert_eq!(all.len(), 3);
        assert_eq!(shown(all[0].records()), ["R-1:1", "R-2:2"]);
        assert_eq!(all[1].count(), 0);
        assert_eq!(shown(all[2].records()), ["R-3:7"]);
        assert_eq!(all[2].subject(), "b (x, z)");
        assert_eq!(all[0].code.field(), "concept_owner");
        assert_eq!(all[0].message(), "concept a");
        w.push_made(code("value.owners"), 0, [0, 1]);
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
        assert_eq!(w.of_code(code("value.owners")).count(), 3);
    }

    #[test]
    fn records_named_by_who_read_their_names_from_the_book_between_dangling_ones() {
        let mut names = names_of(&[("R-1", 1), ("R-2", 2), ("R-3", 3)]);
        let aside = names.name_aside("line 9", 9) | NAMED;
        let renamed = names.rename(2, "R-3 (again)", 3) | NAMED;
        names.dangling.push(0, b"X-9");
        names.dangling.push(1, b"X-8");
        let mut w = Warnings::default();
        w.push_dangling(code("value.supersedes_unknown"), "unknown", "", 0);
        w.push_named(code("value.duplicate_id"), "repeated", "", [1, aside]);
        w.push_dangling(code("value.supersedes_unknown"), "unknown too", "", 1);
        w.push_made(code("value.owners"), 0, [0, renamed]);
        // a renamed id named by its index, then by its text
        w.push_named(
            code("value.supersedes_cycle"),
            "cycle",
            "R-3",
            [2, 2 | AS_ID],
        );
        w.push_named(code("value.release_to"), "bad", "", NONE);
        w.keep_names(names);
        w.keep_owners(book(&[("c", &["x", "y"])]));
        let all: Vec<Vec<String>> = w.iter().map(|w| shown(w.records())).collect();
        assert_eq!(
            all,
            [
                vec!["R-1 → X-9:1"],
                vec!["R-2:2", "line 9:9"],
                vec!["R-2 → X-8:2"],
                vec!["R-1:1", "R-3 (again):3"],
                vec!["R-3 (again):3", "R-3:3"],
                vec![],
            ]
        );
        // read a batch ahead, and out of order, the records are the same
        let mut ahead = w.names_ahead();
        for warning in w.iter().collect::<Vec<_>>().into_iter().rev() {
            let read: Vec<String> = (0..warning.count())
                .map(|k| {
                    let (name, line) = warning.record(k, &mut ahead);
                    format!("{name}:{line}")
                })
                .collect();
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
        assert_eq!(groups.iter().map(|g| g.records).sum::<usize>(), 8);
    }
}
