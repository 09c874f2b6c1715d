//! Beyond the reference: the values, not just their presence. Every finding here is a warning
//! that names records and their lines; `--strict` lets each cap the level at the one below the
//! level of the field it concerns.
//!
//! Like the rules, the work is split so records can be read in parallel: [`ValueChecks::facts`]
//! reads one record alone, [`ValueChecks::fold`] adds its facts in store order, and
//! [`ValueChecks::settle`] works out the warnings once every record is in.
//!
//! Each concern is a value check: a module of its own implementing `ValueCheck` (what it
//! reads of a record, what it keeps as the records stream past, what it settles once they are
//! all in, and its warnings), and one line in the list below, whose order is the order of the
//! warnings. The list expands to plain calls, inlined: no check is looked up at run time.
//! Every code is a variant of [`Code`] (`code.rs`).
//!
//! What several checks share is kept once, here: each record's id, supersedes targets,
//! concept and owner (read, packed and hashed on the core that read the record), the ids and
//! the names warnings give records (`ids.rs`, `record_names.rs`), and the store's concepts
//! (`owners.rs`), which also answer the register of expected concepts.
//!
//! Memory: per record we keep at most its id (for duplicates, supersession and the register),
//! its supersedes targets, its concept and owner, and what each check keeps of it. Ids and
//! concepts are gathered in store order and matched up once at the end, a partition at a
//! time (`ids.rs`, `owners.rs`), so the whole pass is linear in time and memory.

mod code;
mod cycles;
mod dangling;
mod id_lines;
pub(super) mod id_text;
mod owners_book;
pub(super) mod record_names;
mod sought;

/// The value checks, one line each (`module::Check`), in the order their warnings are listed.
macro_rules! value_checks {
    ($($module:ident :: $check:ident),* $(,)?) => {
        $(pub(super) mod $module;)*

        /// Every value check's state.
        #[derive(Default)]
        struct Checks {
            $($module: $module::$check,)*
        }

        /// What every value check read of one record.
        #[derive(Debug, Default)]
        struct CheckFacts {
            $($module: <$module::$check as ValueCheck>::Facts,)*
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

            fn settle(&mut self, store: &mut Settling) -> std::io::Result<()> {
                $(self.$module.settle(store)?;)*
                Ok(())
            }

            fn warnings(&mut self, store: &mut Settled, out: &mut Warnings) {
                $(self.$module.warnings(store, out);)*
            }
        }
    };
}

value_checks! {
    dates::Dates,
    ids::DuplicateIds,
    capture::Capture,
    owners::Owners,
    policy::Policy,
    release::Release,
    supersession::Supersession,
    conflicts::Conflicts,
}

use super::roles;
use super::table;
use super::warnings::Warnings;
use crate::record::{is_filled, py_str};
use crate::store::{RecordView, Role};
use crate::time::{DateError, Timestamp};
pub use capture::CAPTURE_KEYS;
pub use code::Code;
use ids::{small, Matched};
use owners::ConceptOwners;
pub use owners::OwnersBook;
use record_names::{RecordNames, NAMED};
use std::sync::OnceLock;

/// A value check: one concern, with its warnings.
pub(super) trait ValueCheck: Default {
    /// What the check reads of one record, owned: it travels to the thread that folds it.
    type Facts: std::fmt::Debug + Default + Send;

    /// Read one record (on any core, no shared state).
    fn read(_record: &Reading) -> Self::Facts {
        Self::Facts::default()
    }

    /// Add one record's facts, in store order.
    fn fold(&mut self, _facts: &Self::Facts, _record: &mut Folding) {}

    /// Work out what needs every record, once they are all in and the ids are matched (the
    /// checks in the order listed, before the store's concepts are settled).
    fn settle(&mut self, _store: &mut Settling) -> std::io::Result<()> {
        Ok(())
    }

    /// Add the check's warnings.
    fn warnings(&mut self, store: &mut Settled, out: &mut Warnings);
}

/// The roles the value checks read (besides the literal [`CAPTURE_KEYS`]).
pub const ROLES: [&str; 10] = [
    "record_id",
    "valid_from",
    "valid_to",
    "supersedes",
    "concept",
    "concept_owner",
    "conflict_policy",
    "release_to",
    "expected_concepts",
    "value",
];

/// The roles of [`ROLES`], numbered once.
pub(super) struct ValueRoles {
    pub record_id: Role,
    pub valid_from: Role,
    pub valid_to: Role,
    pub supersedes: Role,
    pub concept: Role,
    pub concept_owner: Role,
    pub conflict_policy: Role,
    pub release_to: Role,
    pub expected_concepts: Role,
    pub value: Role,
}

fn value_roles() -> &'static ValueRoles {
    static ROLE_KEYS: OnceLock<ValueRoles> = OnceLock::new();
    ROLE_KEYS.get_or_init(|| {
        let [record_id, valid_from, valid_to, supersedes, concept, concept_owner, conflict_policy, release_to, expected_concepts, value] =
            ROLES.map(roles::named);
        ValueRoles {
            record_id,
            valid_from,
            valid_to,
            supersedes,
            concept,
            concept_owner,
            conflict_policy,
            release_to,
            expected_concepts,
            value,
        }
    })
}

/// One record as the checks read it: its view, the roles, and its dates, read once for every
/// check (a filled valid_from and valid_to: the instant, or why it is not one).
pub(super) struct Reading<'r> {
    pub view: &'r RecordView<'r>,
    pub roles: &'static ValueRoles,
    pub valid_from: Option<Result<Timestamp, DateError>>,
    pub valid_to: Option<Result<Timestamp, DateError>>,
}

impl Reading<'_> {
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

/// What the checks share of one record, packed to travel to the folding thread: its texts in
/// one buffer (one allocation a record rather than one a text, and few cache lines for the
/// fold to fetch from the core that read the record), each with its interner hash, computed
/// where the record was read so the fold only looks up.
#[derive(Debug)]
pub(super) struct SharedFacts {
    line: u64,
    texts: String,
    id: Option<Packed>,
    concept: Option<Packed>,
    /// The concept's owner (only with a concept).
    owner: Option<Packed>,
    /// The record has a filled supersedes (`targets` may still be empty) ...
    pub supersedes: bool,
    /// ... and the ids it names (sorted, distinct).
    pub targets: Vec<Packed>,
    /// A filled valid_to (a superseded record's is written by hand).
    valid_to_written: bool,
    /// The experimental register (few records carry one).
    register: Box<[String]>,
}

/// One text in [`SharedFacts::texts`], and its hash.
#[derive(Debug, Clone, Copy)]
pub(super) struct Packed {
    start: u32,
    end: u32,
    pub hash: u64,
}

impl Packed {
    fn len(&self) -> usize {
        (self.end - self.start) as usize
    }
}

impl SharedFacts {
    /// Read what the checks share of a record, packed.
    #[inline(always)]
    fn read(view: &RecordView, r: &ValueRoles, line: u64) -> SharedFacts {
        // the record's identity, which every concept below may name it by
        let id = view.filled_str(r.record_id);
        let targets = supersession::targets(view, r);
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
            register,
        }
    }

    /// The text of one of the record's packed texts.
    pub fn text(&self, packed: &Packed) -> &str {
        self.texts
            .get(packed.start as usize..packed.end as usize)
            .unwrap_or_default()
    }

    /// The record's concept, when it has one.
    pub fn concept(&self) -> Option<&Packed> {
        self.concept.as_ref()
    }

    /// The record's id, when it has one.
    pub fn id(&self) -> Option<&Packed> {
        self.id.as_ref()
    }
}

/// What the value checks read of one record, packed to travel to the folding thread.
#[derive(Debug)]
pub struct PackedFacts {
    shared: SharedFacts,
    checks: CheckFacts,
}

impl PackedFacts {
    /// The record's supersedes pointers.
    pub fn pointer_count(&self) -> usize {
        self.shared.targets.len()
    }

    /// The record's id, when it has one.
    pub fn id(&self) -> Option<&str> {
        self.shared.id.as_ref().map(|id| self.shared.text(id))
    }

    /// The line where the record starts.
    pub fn line(&self) -> u64 {
        self.shared.line
    }

    /// How many bytes the record's id takes kept (0 without one).
    pub fn id_len(&self) -> usize {
        self.id().map_or(0, id_text::kept_len)
    }

    /// The length of the record's concept (0 without one).
    pub fn concept_len(&self) -> usize {
        self.shared.concept.map_or(0, |c| c.len())
    }
}

/// One record as the checks fold it, in store order: its name and line, what the checks share
/// of it, and the names warnings give records (its id is among the ids already).
pub(super) struct Folding<'f> {
    /// What the report calls the record.
    pub name: &'f str,
    pub line: u64,
    pub shared: &'f SharedFacts,
    /// The place of the record's id among the ids, when it has one.
    pub own: Option<u32>,
    pub names: &'f mut RecordNames,
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

/// The store once every record is in and the ids are matched, as the checks settle.
pub(super) struct Settling<'s> {
    pub names: &'s mut RecordNames,
    pub matched: &'s mut Matched,
    /// The store's concepts, not settled yet (a concept's text by its hash).
    pub concepts: &'s ConceptOwners,
}

/// The store once it is settled, as the checks make their warnings.
pub(super) struct Settled<'s> {
    /// How many records the store holds.
    pub records: usize,
    pub names: &'s RecordNames,
    pub matched: &'s Matched,
    /// The concepts with several owners, and the owners' names (the owners check takes them).
    pub owners_book: Option<OwnersBook>,
}

/// The register of expected concepts as given (each once), and the concepts it names that no
/// record holds.
pub type Expected = (Vec<String>, Vec<String>);

/// What is left once the warnings are worked out (see [`ValueChecks::settle`]).
#[derive(Default)]
struct Done {
    warnings: Warnings,
    expected: Option<Expected>,
}

#[derive(Default)]
pub struct ValueChecks {
    records: usize,
    /// Every record id and every supersedes target, matched up at the end (`ids.rs`), and
    /// the names the warnings give records.
    names: RecordNames,
    /// Every concept held, with its owner and record, matched up at the end (`owners.rs`).
    concepts: ConceptOwners,
    /// The register's concepts (the records' `expected_concepts` and `--expected`), each once,
    /// in the order first named: a store whose records each name a few expected concepts
    /// names the same ones again and again, and only the distinct ones are held.
    register: table::Interner,
    checks: Checks,
    done: Option<Done>,
}

/// Bytes of ids and concepts held in memory together (`ids.rs`, `owners.rs`) before the
/// larger goes to the temporary file. Each has a limit of its own (32 and 40 MiB), and with
/// long ids and long concepts both, the two limits together took the peak past 128 MiB.
/// Bench's clean 1M store holds 48 MiB of them and its messy one 39: under it, nothing goes.
const HELD_TOGETHER: usize = 56 << 20;

/// What a supersedes pointer keeps until the pointers are followed, besides its text
/// (`supersession.rs`: its record's entry and its target's partition, 13 bytes for a record
/// with one pointer; then what matching finds of it, 4 more). The ids and the concepts held
/// together make room for that much a pointer, so a store whose every record supersedes
/// another peaks no higher than one whose records do not (bench's 1M stores have about
/// 370,000 pointers, and still keep all of theirs).
const POINTER_BYTES: usize = 16;

/// How many bytes of ids and concepts are held together with `pointers` pointers: never
/// less than a quarter of [`HELD_TOGETHER`], so that what goes to the temporary file goes in
/// runs of some size.
fn held_together(pointers: usize) -> usize {
    HELD_TOGETHER
        .saturating_sub(pointers.saturating_mul(POINTER_BYTES))
        .max(HELD_TOGETHER / 4)
}

/// Supersedes pointers past which the concepts go to the temporary file before the pointers
/// are followed (see [`ValueChecks::settle`]): what matching found takes 4 bytes a pointer
/// and the graph 4 more, on top of the search and the repeated ids, so a million pointers
/// need the room of the concepts (up to 40 MiB). Bench's 1M stores have about 370,000, and
/// keep them.
const MANY_POINTERS: usize = 1 << 19;

impl ValueChecks {
    /// Read one record (no shared state: safe to run on many records at once); `line` is
    /// where it starts.
    #[inline(always)]
    pub fn facts(view: &RecordView, line: u64) -> PackedFacts {
        let roles = value_roles();
        let record = Reading {
            view,
            roles,
            valid_from: view.filled_time(roles.valid_from),
            valid_to: view.filled_time(roles.valid_to),
        };
        PackedFacts {
            shared: SharedFacts::read(view, roles, line),
            checks: Checks::read(&record),
        }
    }

    /// Make room for about `records` more records whose ids take `id_bytes` in all ...
    /// ... and `pointers` supersedes pointers, and concepts of `concept_bytes`: lists sized
    /// once skip the copies (and the moment of holding both the old and the new buffer) that
    /// growing by doubling costs.
    pub fn expect_records(
        &mut self,
        records: usize,
        id_bytes: usize,
        pointers: usize,
        concept_bytes: usize,
    ) {
        self.names.ids.reserve(records, id_bytes, pointers);
        self.checks.supersession.reserve(pointers);
        self.concepts.reserve(records, concept_bytes);
    }

    /// Add one record's facts, in store order; `name` is what the report calls the record.
    /// Returns the record as the warnings name it (`who`), when a check has named it.
    pub fn fold(&mut self, facts: &PackedFacts, name: &str) -> Option<u32> {
        self.records += 1;
        let shared = &facts.shared;
        for concept in &shared.register {
            self.register.intern(concept);
        }
        // the record among the ids, named by its id when the report names it so
        let mut own = None;
        let mut who = None;
        if let Some(id) = &shared.id {
            let text = shared.text(id);
            let i = self
                .names
                .ids
                .push(text, id.hash, shared.line, shared.valid_to_written);
            own = Some(i);
            who = Some(match name == text {
                true => i.min(NAMED - 1),
                false => self.names.rename(i, name, shared.line) | NAMED,
            });
        }
        let mut record = Folding {
            name,
            line: shared.line,
            shared,
            own,
            names: &mut self.names,
            who,
        };
        self.checks.fold(&facts.checks, &mut record);
        // the concept last: a check may have named the record by then
        if let Some(concept) = &shared.concept {
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
        let together = held_together(self.checks.supersession.pointers());
        if self.names.ids.held() + self.concepts.held() > together {
            match self.names.ids.held() > self.concepts.held() {
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

    /// Add concepts from `--expected FILE`.
    pub fn expect(&mut self, concepts: impl IntoIterator<Item = String>) {
        for concept in concepts {
            self.register.intern(&concept);
        }
    }

    /// Work out the warnings and the register now, and let go of everything the pass kept
    /// (ids, concepts, pointers), so what comes next — the report — has that memory. After
    /// this, [`Self::finish`] gives what was worked out.
    /// Fails only when a temporary file (`spill.rs`) cannot be read back.
    pub fn settle(&mut self) -> std::io::Result<()> {
        if self.done.is_some() {
            return Ok(());
        }
        let register: Vec<String> = (0..self.register.len())
            .map(|i| self.register.get(i).to_string())
            .collect();
        self.register = table::Interner::default();
        // what matching finds of many pointers, their graph and the search for its cycles
        // take room of their own: the concepts, read back a partition at a time when they
        // settle after them, make it in the temporary file
        if self.checks.supersession.pointers() > MANY_POINTERS {
            self.concepts.write_out();
        }
        // the ids' keys go first (what matching found is all that is left of them), so what
        // comes next has their memory
        let mut matched = self.names.ids.match_up()?;
        // with owners kept as text, the concepts with several owners made next can take as
        // much as the concepts did: the ids' names make room for them in the temporary file
        if self.concepts.owners_as_text() {
            self.names.ids.write_out();
        }
        // each check settles what it keeps before the shared concepts are made, so the two
        // are never held at once
        self.checks.settle(&mut Settling {
            names: &mut self.names,
            matched: &mut matched,
            concepts: &self.concepts,
        })?;
        let (book, held) = std::mem::take(&mut self.concepts).settle(&register)?;
        let expected = (!register.is_empty()).then(|| {
            let missing = register
                .iter()
                .zip(held)
                .filter(|(_, held)| !held)
                .map(|(c, _)| c.clone())
                .collect();
            (register, missing)
        });
        let mut out = Warnings::default();
        self.checks.warnings(
            &mut Settled {
                records: self.records,
                names: &self.names,
                matched: &matched,
                owners_book: Some(book),
            },
            &mut out,
        );
        drop(matched);
        // the warnings name records by `who`: the names go with them
        out.keep_names(std::mem::take(&mut self.names));
        *self = ValueChecks {
            done: Some(Done {
                warnings: out,
                expected,
            }),
            ..ValueChecks::default()
        };
        Ok(())
    }

    /// The warnings, and the register as given with the concepts it names that no record
    /// holds (after [`Self::settle`]).
    pub fn finish(self) -> (Warnings, Option<Expected>) {
        debug_assert!(self.done.is_some(), "settle first");
        let done = self.done.unwrap_or_default();
        (done.warnings, done.expected)
    }
}
