//! The index: what the pass keeps of every record for the value checks, gathered once, in
//! store order, and read by every check that needs records together. Per id: its line,
//! whether it carries a written valid_to, its kept form, what a supersedes pointer names of
//! it; per concept: its owners and its records' values in time (the timeline). A check reads
//! the index (the repeated ids, the pointers followed, the concepts' owners, the timeline
//! sorted by concept) rather than gathering records of its own.
//!
//! Each record's part is read on the core that read the record ([`SharedFacts::read`]:
//! packed, with its texts' hashes), folded in store order ([`Index::fold`]), and settled once
//! every record is in, in two steps the checks settle between: [`Index::match_up`] (ids
//! matched, pointers followed) and [`Index::settle_concepts`] (the owners book, the
//! register).
//!
//! Every column is partitioned by the top bits of a hash (`table.rs`), matched up a partition
//! at a time in a table that stays in a core's cache, and goes to the temporary file of
//! `spill.rs` past its share of the [`Budget`], read back a partition at a time.
//!
//! Memory: per record at most its id (about 9 bytes besides its kept form: `ids.rs`), its
//! name when a warning names it otherwise, its concept and owner (`concepts.rs`), its
//! supersedes targets (`pointers.rs`, `sought.rs`) and its timeline entry (`timeline.rs`): each
//! column's texts and entries spill past their share of the budget; the per-id numbers do not
//! (see [`Budget`]).

pub mod book;
mod concepts;
mod cycles;
mod dangling;
mod id_lines;
pub mod id_text;
pub mod ids;
pub mod names;
pub mod pointers;
mod sought;
pub mod timeline;

use super::roles::ValueRoles;
use super::table;
use crate::record::{is_filled, py_str};
use crate::store::RecordView;
use crate::time::{DateError, Timestamp};
use book::OwnersBook;
use concepts::ConceptOwners;
use ids::{small, Matched};
use names::{RecordNames, NAMED};
use pointers::{Followed, Pointers};
use std::io;
use timeline::{Held, Timeline};

/// What the index holds in memory before a column goes to the temporary file, column by
/// column: every limit of the pass in one place. What spills is the bulk (texts, entries);
/// the per-id numbers (a line, a partition and a place, and where its kept form ends: 13
/// bytes an id), the names kept aside and the pointers' records stay in memory (linear in the
/// store: past some ten million records they, not the budget, set the peak).
///
/// The figures are bench's (bench/NOTES.md): what a 1M store holds stays under them, and the
/// adversarial stores peak under 128 MiB with them.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Bytes of ids' kept forms and their keys (`ids.rs`, 8 bytes an id): a million UUIDs of
    /// bench's UUID store take 17 MiB and 8 of keys, and never go; ids of about 30 bytes and
    /// more go once or more.
    pub ids: usize,
    /// Bytes of concepts (their texts and 16 bytes each, `concepts.rs`): a little more than a
    /// million records of 22-byte concepts take (bench's clean store, 37 MiB), so those never
    /// go, and longer ones go once or more.
    pub concepts: usize,
    /// Bytes of ids and concepts held together before the larger goes: each has a limit of
    /// its own, and with long ids and long concepts both, the two limits together took the
    /// peak past 128 MiB. Bench's clean 1M store holds 48 MiB of them and 8 of the ids' keys,
    /// its messy one 39 and 8: under it, nothing goes. Less [`POINTER_BYTES`] a supersedes
    /// pointer (see [`Budget::together`]).
    pub together: usize,
    /// Bytes of texts sought among the ids (`sought.rs`): the targets of bench's clean and
    /// messy 1M stores take 5 MiB and never go (UUIDs take 8, and go once). Small, as an
    /// entry is only ever read in order, a partition at a time.
    pub sought: usize,
    /// Bytes of dangling pointers (`dangling.rs`): the few thousand of bench's messy stores
    /// never go.
    pub dangling: usize,
    /// Timeline entries (`timeline.rs`, 56 bytes each).
    pub timeline: usize,
    /// Bytes of texts of the owners book (`book.rs`), held while it is made and through the
    /// report: a store with a concept every two records and an owner a record makes a book of
    /// 45 MB of texts, and its JSON report peaked past 128 MiB with them. Bench's messy stores
    /// make books of 3.5 to 29 MB; the ones past this go.
    pub book: usize,
}

impl Budget {
    pub const DEFAULT: Budget = Budget {
        ids: 40 << 20,
        concepts: 40 << 20,
        together: 64 << 20,
        sought: 8 << 20,
        dangling: 4 << 20,
        timeline: 1 << 16,
        book: 16 << 20,
    };

    /// The shares of a budget of `memory` bytes (`--memory`): [`Budget::DEFAULT`]'s, which
    /// are 128 MiB's, in proportion; a column holds at least a few kilobytes, so what goes to
    /// the temporary file goes in runs of some size however small the budget.
    pub fn of(memory: usize) -> Budget {
        let d = Budget::DEFAULT;
        let share = |bytes: usize, least: usize| -> usize {
            let scaled = (bytes as u128 * memory as u128 / crate::spill::DEFAULT_MEMORY as u128)
                .min(usize::MAX as u128) as usize;
            scaled.max(least)
        };
        Budget {
            ids: share(d.ids, 4 << 10),
            concepts: share(d.concepts, 4 << 10),
            together: share(d.together, 8 << 10),
            sought: share(d.sought, 4 << 10),
            dangling: share(d.dangling, 4 << 10),
            timeline: share(d.timeline, 64),
            book: share(d.book, 4 << 10),
        }
    }

    /// How many bytes of ids and concepts are held together with `pointers` pointers: never
    /// less than a quarter of [`Budget::together`], so that what goes to the temporary file
    /// goes in runs of some size.
    fn together(&self, pointers: usize) -> usize {
        self.together
            .saturating_sub(pointers.saturating_mul(POINTER_BYTES))
            .max(self.together / 4)
    }
}

/// What a supersedes pointer keeps until the pointers are followed, besides its text
/// (`pointers.rs`: its record's entry and its target's partition, 13 bytes for a record with
/// one pointer; then what matching finds of it, 4 more). The ids and the concepts held
/// together make room for that much a pointer, so a store whose every record supersedes
/// another peaks no higher than one whose records do not (bench's 1M stores have about
/// 370,000 pointers, and still keep all of theirs).
const POINTER_BYTES: usize = 16;

/// Supersedes pointers past which the concepts go to the temporary file before the pointers
/// are followed: what matching found takes 4 bytes a pointer and the graph 4 more, on top of
/// the search and the repeated ids, so a million pointers need the room of the concepts (up
/// to 40 MiB). Bench's 1M stores have about 370,000, and keep them.
const MANY_POINTERS: usize = 1 << 19;

/// One record as the index and the checks read it: its view, the roles, and its dates, read
/// once for every check (a filled valid_from and valid_to: the instant, or why it is not one).
pub struct Reading<'r> {
    pub view: &'r RecordView<'r>,
    pub roles: &'static ValueRoles,
    pub valid_from: Option<Result<Timestamp, DateError>>,
    pub valid_to: Option<Result<Timestamp, DateError>>,
}

impl<'r> Reading<'r> {
    /// Read a record's dates once.
    #[inline(always)]
    pub fn new(view: &'r RecordView<'r>, roles: &'static ValueRoles) -> Reading<'r> {
        Reading {
            view,
            roles,
            valid_from: view.filled_time(roles.valid_from),
            valid_to: view.filled_time(roles.valid_to),
        }
    }

    /// valid_from, when it is a date.
    pub fn from(&self) -> Option<Timestamp> {
        self.valid_from
            .as_ref()
            .and_then(|d| d.as_ref().ok())
            .copied()
    }

    /// valid_to, when it is a date.
    pub fn to(&self) -> Option<Timestamp> {
        self.valid_to
            .as_ref()
            .and_then(|d| d.as_ref().ok())
            .copied()
    }
}

/// What the index keeps of one record, packed to travel to the folding thread: its texts in
/// one buffer (one allocation a record rather than one a text, and few cache lines for the
/// fold to fetch from the core that read the record), each with its hash, computed where the
/// record was read so the fold only looks up. Serialised in a shard's facts (`check/shard/`).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct SharedFacts {
    line: u64,
    texts: String,
    id: Option<Packed>,
    concept: Option<Packed>,
    /// The concept's owner (only with a concept).
    owner: Option<Packed>,
    /// The record has a filled supersedes (`targets` may still be empty) ...
    supersedes: bool,
    /// ... and the ids it names (sorted, distinct).
    targets: Vec<Packed>,
    /// A filled valid_to (a superseded record's is written by hand).
    valid_to_written: bool,
    /// What the record holds of its concept in time, when it has a value and a readable
    /// valid_from (the timeline's entry).
    held: Option<HeldValue>,
    /// The experimental register (few records carry one).
    register: Box<[String]>,
}

/// What a record holds from its valid_from: its value's hash, and the instants it holds.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct HeldValue {
    value: u64,
    from: i128,
    /// `None`: open or absent.
    to: Option<i128>,
}

/// One text in [`SharedFacts::texts`], and its hash.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct Packed {
    start: u32,
    end: u32,
    pub hash: u64,
}

impl SharedFacts {
    /// Read what the index keeps of a record, packed; `line` is where it starts.
    #[inline(always)]
    pub fn read(record: &Reading, line: u64) -> SharedFacts {
        let (view, r) = (record.view, record.roles);
        // the record's identity, which every concept below may name it by
        let id = view.filled_str(r.record_id);
        let targets = pointers::targets(view, r);
        let concept = view.filled_str(r.concept);
        // an owner counts only with a concept
        let owner = concept
            .as_ref()
            .and_then(|_| view.filled_str(r.concept_owner));
        let texts = [&id, &concept, &owner];
        let room = texts
            .iter()
            .flat_map(|t| t.as_deref())
            .chain(targets.iter().flatten().map(|t| t.as_ref()))
            .map(str::len)
            .sum::<usize>();
        let mut texts = String::with_capacity(room);
        let mut put = |text: &str| {
            let start = texts.len();
            texts.push_str(text);
            Packed {
                start: small(start),
                end: small(texts.len()),
                hash: table::hash(text),
            }
        };
        let id = id.as_deref().map(&mut put);
        let concept = concept.as_deref().map(&mut put);
        let owner = owner.as_deref().map(&mut put);
        let supersedes = targets.is_some();
        let targets = targets.iter().flatten().map(|t| put(t)).collect();
        let held = match (&concept, record.from()) {
            (Some(_), Some(from)) => view.filled(r.value).map(|value| HeldValue {
                value: table::hash(&value.text()),
                from: from.start(),
                to: record.to().map(|t| t.end()),
            }),
            _ => None,
        };
        // the experimental register
        let register = match view.filled(r.expected_concepts).as_ref() {
            Some(v) => match v.as_array() {
                Some(items) => items.iter().filter(|v| is_filled(v)).map(py_str).collect(),
                None => Box::default(),
            },
            None => Box::default(),
        };
        SharedFacts {
            line,
            texts,
            id,
            concept,
            owner,
            supersedes,
            targets,
            valid_to_written: view.presence(r.valid_to).is_filled(),
            held,
            register,
        }
    }

    /// The text of one of the record's packed texts.
    pub fn text(&self, packed: &Packed) -> &str {
        self.texts
            .get(packed.start as usize..packed.end as usize)
            .unwrap_or_default()
    }

    /// The record's id, when it has one.
    pub fn id(&self) -> Option<&str> {
        self.id.as_ref().map(|id| self.text(id))
    }

    /// The line where the record starts.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The record starts on `line` of the whole store (a shard's record, merged).
    pub fn set_line(&mut self, line: u64) {
        self.line = line;
    }

    /// The record's supersedes pointers.
    pub fn pointer_count(&self) -> usize {
        self.targets.len()
    }

    /// How many bytes the record's id takes kept (0 without one).
    pub fn id_len(&self) -> usize {
        self.id().map_or(0, id_text::kept_len)
    }

    /// The hash of the record's concept ([`table::hash`]'s), when it holds one.
    pub fn concept_hash(&self) -> Option<u64> {
        self.concept.map(|c| c.hash)
    }

    /// The length of the record's concept (0 without one).
    pub fn concept_len(&self) -> usize {
        self.concept.map_or(0, |c| (c.end - c.start) as usize)
    }
}

/// One record as the checks fold it, in store order: its name and line, and the names
/// warnings give records (its id is among the ids already).
pub struct Folding<'f> {
    /// What the report calls the record.
    pub name: &'f str,
    pub line: u64,
    names: &'f mut RecordNames,
    /// The record as a warning names it (`who`), once known.
    who: Option<u32>,
}

impl Folding<'_> {
    /// The record as a warning names it: by its id, or by its name, kept aside the first time
    /// it is asked for.
    pub fn who(&mut self) -> u32 {
        match self.who {
            Some(who) => who,
            None => {
                let who = self.names.name_aside(self.name, self.line) | NAMED;
                self.who = Some(who);
                who
            }
        }
    }
}

/// The register of expected concepts as given (each once), and the concepts it names that no
/// record holds.
pub type Expected = (Vec<String>, Vec<String>);

/// The index of one store. Filled by [`Index::fold`], then settled in steps (see the module's
/// documentation); what a step makes is read through the methods named for it.
pub struct Index {
    budget: Budget,
    records: usize,
    /// Every record id and every supersedes target, matched up at the end (`ids.rs`), and
    /// the names the warnings give records.
    names: RecordNames,
    /// Every supersedes pointer, followed at the end (`pointers.rs`).
    pointers: Pointers,
    /// Every concept held, with its owner and record, matched up at the end (`concepts.rs`).
    concepts: ConceptOwners,
    /// What each record holds of its concept in time (`timeline.rs`).
    timeline: Timeline,
    /// The register's concepts (the records' `expected_concepts` and `--expected`), each once,
    /// in the order first named: a store whose records each name a few expected concepts
    /// names the same ones again and again, and only the distinct ones are held.
    register: table::Interner,
    /// The register as given, once the records are in.
    asked: Vec<String>,
    /// What matching the ids up found, and what the pointers came to ([`Index::match_up`]).
    matched: Option<Matched>,
    followed: Followed,
    /// The owners book and the register settled ([`Index::settle_concepts`]).
    book: Option<OwnersBook>,
    expected: Option<Expected>,
}

impl Default for Index {
    fn default() -> Self {
        Index::new(Budget::DEFAULT)
    }
}

impl Index {
    /// An empty index that spills past `budget`.
    pub fn new(budget: Budget) -> Index {
        Index {
            budget,
            records: 0,
            names: RecordNames::new(&budget),
            pointers: Pointers::default(),
            concepts: ConceptOwners::new(&budget),
            timeline: Timeline::new(budget.timeline),
            register: table::Interner::default(),
            asked: Vec::new(),
            matched: None,
            followed: Followed::default(),
            book: None,
            expected: None,
        }
    }

    /// Make room for about `records` more records whose ids take `id_bytes` in all, with
    /// `pointers` supersedes pointers and concepts of `concept_bytes`: lists sized once skip
    /// the copies (and the moment of holding both the old and the new buffer) that growing by
    /// doubling costs.
    pub fn reserve(
        &mut self,
        records: usize,
        id_bytes: usize,
        pointers: usize,
        concept_bytes: usize,
    ) {
        self.names.ids.reserve(records, id_bytes, pointers);
        self.pointers.reserve(pointers);
        self.concepts.reserve(records, concept_bytes);
    }

    /// Add one record, in store order (`name`: what the report calls it), and `checks`' fold
    /// of it. Returns the record as the warnings name it (`who`), when a check or the index
    /// has named it.
    #[inline(always)]
    pub fn fold(
        &mut self,
        shared: &SharedFacts,
        name: &str,
        checks: impl FnOnce(&mut Folding),
    ) -> Option<u32> {
        self.records += 1;
        for concept in &shared.register {
            self.register.intern(concept);
        }
        // the record among the ids, named by its id when the report names it so
        let mut own = None;
        let mut who = None;
        if let Some(id) = &shared.id {
            let text = shared.text(id);
            let ids = &mut self.names.ids;
            let i = ids.push(text, id.hash, shared.line, shared.valid_to_written);
            own = Some(i);
            who = Some(match name == text {
                true => i.min(NAMED - 1),
                false => self.names.rename(i, name, shared.line) | NAMED,
            });
        }
        let mut record = Folding {
            name,
            line: shared.line,
            names: &mut self.names,
            who,
        };
        checks(&mut record);
        if shared.supersedes {
            self.pointers.fold(shared, own, &mut record);
        }
        // the concept last: a check may have named the record by then
        if let Some(concept) = &shared.concept {
            if let Some(held) = shared.held {
                let held = Held {
                    concept: concept.hash,
                    value: held.value,
                    id: shared.id.map(|id| id.hash),
                    from: held.from,
                    to: held.to,
                };
                let targets = shared.targets.iter().map(|t| t.hash);
                self.timeline.note(held, targets, record.who());
            }
            let owner = shared.owner.as_ref().map(|o| (shared.text(o), o.hash));
            let who = match owner {
                None => 0,
                Some(_) => record.who(),
            };
            self.concepts
                .note(shared.text(concept), concept.hash, owner, who);
        }
        let who = record.who;
        // the ids and the concepts held, each under a limit of its own, under one together
        let together = self.budget.together(self.pointers.len());
        let (ids, concepts) = (self.names.ids.held(), self.concepts.held());
        if ids + concepts > together {
            match ids > concepts {
                true => self.names.ids.write_out(),
                false => self.concepts.write_out(),
            }
        }
        who
    }

    /// Name a record that no check has named (`name`, on `line`): its `who`.
    pub fn name_aside(&mut self, name: &str, line: u64) -> u32 {
        self.names.name_aside(name, line) | NAMED
    }

    /// Add concepts to the register (`--expected FILE`).
    pub fn expect(&mut self, concepts: impl IntoIterator<Item = String>) {
        for concept in concepts {
            self.register.intern(&concept);
        }
    }

    /// How many records the store holds.
    pub fn records(&self) -> usize {
        self.records
    }

    /// The first step of settling, once every record is in: match the ids up and follow the
    /// pointers. What they come to is small, or kept compact with the names (the pointers
    /// that name no record), and the pointers, the longest lists left of the pass, are let go
    /// with what matching found of them. Fails only when a temporary file cannot be read back.
    pub fn match_up(&mut self) -> io::Result<()> {
        self.asked = (0..self.register.len())
            .map(|i| self.register.get(i).to_string())
            .collect();
        self.register = table::Interner::default();
        // what matching finds of many pointers, their graph and the search for its cycles
        // take room of their own: the concepts, read back a partition at a time when they
        // settle after them, make it in the temporary file
        if self.pointers.len() > MANY_POINTERS {
            self.concepts.write_out();
        }
        // the ids' keys go first (what matching found is all that is left of them), so what
        // comes next has their memory
        let mut matched = self.names.ids.match_up()?;
        // with owners kept as text, the concepts with several owners made later can take as
        // much as the concepts did: the ids' names make room for them in the temporary file
        if self.concepts.owners_as_text() {
            self.names.ids.write_out();
        }
        let pointers = std::mem::take(&mut self.pointers);
        self.followed = pointers.follow(&mut self.names, &mut matched)?;
        self.matched = Some(matched);
        Ok(())
    }

    /// The ids that repeat an earlier one, by index (its record's `who`), in store order
    /// (after [`Self::match_up`]).
    pub fn repeats(&self) -> impl Iterator<Item = u32> + '_ {
        self.matched.iter().flat_map(Matched::repeats)
    }

    /// What the supersedes pointers came to (after [`Self::match_up`]).
    pub fn followed(&self) -> &Followed {
        &self.followed
    }

    /// The names the warnings give records, and their lines.
    pub fn names(&self) -> &RecordNames {
        &self.names
    }

    /// The timeline, taken to be settled (see `timeline.rs`); empty after.
    pub fn take_timeline(&mut self) -> Timeline {
        std::mem::replace(&mut self.timeline, Timeline::new(self.budget.timeline))
    }

    /// The text of the concept whose hash is `hash`, if a record holds it (before
    /// [`Self::settle_concepts`]). Fails only when the temporary file cannot be read back.
    pub fn concept_text(&self, hash: u64) -> io::Result<Option<String>> {
        self.concepts.text(hash)
    }

    /// The second step of settling, after the checks settled what they keep (so the two are
    /// never held at once): the book of concepts with several owners, and the register.
    /// Fails only when a temporary file cannot be written or read back.
    pub fn settle_concepts(&mut self) -> io::Result<()> {
        let register = std::mem::take(&mut self.asked);
        let concepts = std::mem::replace(&mut self.concepts, ConceptOwners::new(&self.budget));
        let (book, held) = concepts.settle(&register)?;
        self.expected = (!register.is_empty()).then(|| {
            let missing = register
                .iter()
                .zip(held)
                .filter(|(_, held)| !held)
                .map(|(c, _)| c.clone())
                .collect();
            (register, missing)
        });
        self.book = Some(book);
        Ok(())
    }

    /// The book of concepts with several owners, taken (after [`Self::settle_concepts`]).
    pub fn take_book(&mut self) -> Option<OwnersBook> {
        self.book.take()
    }

    /// Let go of everything but the names the warnings give records, which go with them, and
    /// the register settled.
    pub fn finish(mut self) -> (RecordNames, Option<Expected>) {
        self.matched = None;
        (self.names, self.expected.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_shares_memory_as_the_default_does() {
        let at = |memory| {
            let b = Budget::of(memory);
            [
                b.ids, b.concepts, b.together, b.sought, b.dangling, b.timeline, b.book,
            ]
        };
        let d = Budget::DEFAULT;
        let default = [
            d.ids, d.concepts, d.together, d.sought, d.dangling, d.timeline, d.book,
        ];
        assert_eq!(
            at(crate::spill::DEFAULT_MEMORY),
            default,
            "128 MiB: the default"
        );
        let doubled = at(crate::spill::DEFAULT_MEMORY * 2);
        assert_eq!(doubled, default.map(|share| share * 2), "in proportion");
        assert!(
            at(1).iter().all(|&share| share >= 64),
            "a floor however small"
        );
        assert!(at(usize::MAX).iter().all(|&share| share > 0), "no overflow");
    }
}
