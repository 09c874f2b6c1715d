//! Beyond the reference: the values, not just their presence. Every finding here is a warning
//! that names records and their lines; `--strict` lets each cap the level at the one below the
//! level of the field it concerns.
//!
//! Like the rules, the work is split so records can be read in parallel: [`ValueChecks::facts`]
//! reads one record alone, [`ValueChecks::fold`] adds its facts in store order, and
//! [`ValueChecks::settle`] works out the warnings once every record is in.
//!
//! This module is the pipeline; each concern is a module of its own, with what it reads of a
//! record, what it keeps while the records stream past, and the warnings it makes:
//! `dates.rs` (dates and intervals), `ids.rs` (the ids and repeated ones), `supersession.rs`,
//! `owners.rs` (one owner per concept), `policy.rs`, `release.rs` (release_to), `capture.rs`
//! (capture time) and `conflicts.rs` (records of one concept in force together). Their
//! per-record steps are plain functions the pipeline calls, inlined: no step is looked up
//! at run time. Every code is a variant of [`Code`] (`code.rs`).
//!
//! Memory: per record we keep at most its id (for duplicates, supersession and the register),
//! its supersedes targets, its concept and owner, and one text per policy. Ids and concepts
//! are gathered in store order and matched up once at the end, a partition at a time
//! (`ids.rs`, `owners.rs`), so the whole pass is linear in time and memory.

mod capture;
mod code;
mod conflicts;
mod dates;
pub(super) mod ids;
mod owners;
mod policy;
pub(super) mod record_names;
mod release;
mod supersession;

use super::roles;
use super::table;
use super::warnings::Warnings;
use crate::record::{is_filled, py_str};
use crate::store::{RecordView, Role, RoleValue};
pub use capture::CAPTURE_KEYS;
pub use code::Code;
use ids::small;
use owners::ConceptOwners;
use record_names::{RecordNames, NAMED};
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::OnceLock;
use supersession::{Nameless, Pointer};

/// A record named in a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordRef {
    pub name: String,
    pub line: u64,
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
struct ValueRoles {
    record_id: Role,
    valid_from: Role,
    valid_to: Role,
    supersedes: Role,
    concept: Role,
    concept_owner: Role,
    conflict_policy: Role,
    release_to: Role,
    expected_concepts: Role,
    value: Role,
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

/// What the value checks need from one record.
#[derive(Debug, Default, PartialEq)]
pub struct ValueFacts<'a> {
    line: u64,
    /// How many of valid_from / valid_to do not parse, and the first one's message.
    bad_dates: u8,
    bad_date_example: Option<String>,
    inverted: bool,
    // texts borrowed from the record when they can be
    id: Option<Cow<'a, str>>,
    valid_to_written: bool,
    /// The ids a filled supersedes names (sorted, distinct).
    supersedes: Option<Vec<Cow<'a, str>>>,
    concept: Option<Cow<'a, str>>,
    owner: Option<Cow<'a, str>>,
    policy: Option<Cow<'a, str>>,
    bad_release: bool,
    /// A capture timestamp was found: whether it equals valid_from.
    capture_equal: Option<bool>,
    register: Vec<String>,
    /// For `value.conflict`: the value's hash, valid_from's first and valid_to's last instant
    /// (`None`: open or absent).
    held: Option<(u64, i128, Option<i128>)>,
}

/// [`ValueFacts`] packed to travel to the folding thread: the record's texts in one buffer
/// (one allocation a record rather than one a text, and few cache lines for the fold to
/// fetch from the core that read the record), each with its interner hash, computed where the
/// record was read so the fold only looks up.
#[derive(Debug)]
pub struct PackedFacts {
    line: u64,
    bad_dates: u8,
    inverted: bool,
    valid_to_written: bool,
    bad_release: bool,
    capture_equal: Option<bool>,
    /// The record has a filled supersedes (`targets` may still be empty).
    supersedes: bool,
    texts: String,
    id: Option<Packed>,
    concept: Option<Packed>,
    owner: Option<Packed>,
    policy: Option<Packed>,
    /// The ids a filled supersedes names (sorted, distinct).
    targets: Vec<Packed>,
    /// What few records have, boxed: the facts cross from core to core, and every byte of
    /// them costs.
    rare: Option<Box<RareFacts>>,
    held: Option<(u64, i128, Option<i128>)>,
}

/// The parts of [`PackedFacts`] that few records have.
#[derive(Debug)]
struct RareFacts {
    bad_date_example: Option<String>,
    register: Vec<String>,
}

/// One text in [`PackedFacts::texts`], and its hash.
#[derive(Debug, Clone, Copy)]
struct Packed {
    start: u32,
    end: u32,
    hash: u64,
}

impl Packed {
    fn len(&self) -> usize {
        (self.end - self.start) as usize
    }
}

/// What is left once the warnings are worked out (see [`ValueChecks::settle`]).
#[derive(Default)]
struct Settled {
    warnings: Warnings,
    expected: Option<(Vec<String>, Vec<String>)>,
}

#[derive(Default)]
pub struct ValueChecks {
    records: usize,
    dates: dates::Dates,
    /// Every record id and every supersedes target, matched up at the end (`ids.rs`), and
    /// the names the warnings give records.
    names: RecordNames,
    /// Every supersedes pointer, in store order. One entry per pointer: linear.
    pointers: Vec<Pointer>,
    nameless: Vec<Nameless>,
    /// Every concept held, with its owner and record, matched up at the end (`owners.rs`).
    concepts: ConceptOwners,
    policy: policy::Policy,
    release: release::Release,
    capture: capture::Capture,
    register: Vec<String>,
    conflicts: conflicts::Conflicts,
    settled: Option<Settled>,
}

impl ValueFacts<'_> {
    /// The facts with nothing borrowed, packed to travel to the thread that folds them.
    #[inline(always)]
    pub fn pack(self) -> PackedFacts {
        let targets = self.supersedes.as_deref().unwrap_or_default();
        let owned = [&self.id, &self.concept, &self.owner, &self.policy];
        let room = owned
            .iter()
            .flat_map(|t| t.as_deref())
            .map(str::len)
            .sum::<usize>()
            + targets.iter().map(|t| t.len()).sum::<usize>();
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
        let id = self.id.as_deref().map(&mut put);
        let concept = self.concept.as_deref().map(&mut put);
        // an owner counts only with a concept (see `facts`)
        let owner = self.owner.as_deref().map(&mut put);
        let policy = self.policy.as_deref().map(&mut put);
        let targets: Vec<Packed> = targets.iter().map(|t| put(t)).collect();
        let rare = (self.bad_date_example.is_some() || !self.register.is_empty()).then(|| {
            Box::new(RareFacts {
                bad_date_example: self.bad_date_example,
                register: self.register,
            })
        });
        PackedFacts {
            line: self.line,
            bad_dates: self.bad_dates,
            inverted: self.inverted,
            valid_to_written: self.valid_to_written,
            bad_release: self.bad_release,
            capture_equal: self.capture_equal,
            supersedes: self.supersedes.is_some(),
            texts,
            id,
            concept,
            owner,
            policy,
            targets,
            rare,
            held: self.held,
        }
    }

    /// The record's id, when it has one.
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }
}

impl PackedFacts {
    fn text(&self, packed: &Packed) -> &str {
        self.texts
            .get(packed.start as usize..packed.end as usize)
            .unwrap_or_default()
    }

    /// The record's supersedes pointers.
    pub fn pointer_count(&self) -> usize {
        self.targets.len()
    }

    /// The record's id, when it has one.
    pub fn id(&self) -> Option<&str> {
        self.id.as_ref().map(|id| self.text(id))
    }

    /// The line where the record starts.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The length of the record's id (0 without one).
    pub fn id_len(&self) -> usize {
        self.id.map_or(0, |id| id.len())
    }

    /// The length of the record's concept (0 without one).
    pub fn concept_len(&self) -> usize {
        self.concept.map_or(0, |c| c.len())
    }
}

impl ValueChecks {
    /// Read one record (no shared state: safe to run on many records at once); `line` is
    /// where it starts.
    #[inline(always)]
    pub fn facts<'a>(roles: &'a RecordView, line: u64) -> ValueFacts<'a> {
        let r = value_roles();
        let get = |role: Role| roles.filled(role);
        let mut facts = ValueFacts {
            line,
            ..ValueFacts::default()
        };

        let (from, to) = dates::read(roles, r, &mut facts);
        // the value held from valid_from, for `value.conflict`
        if let (Some(f), Some(value)) = (from, get(r.value)) {
            facts.held = Some((table::hash(&value.text()), f.start(), to.map(|t| t.end())));
        }
        // the record's identity, which every concept below may name it by
        facts.id = roles.filled_str(r.record_id);
        supersession::read(roles, r, &mut facts);
        owners::read(roles, r, &mut facts);
        policy::read(roles, r, &mut facts);
        release::read(roles, r, &mut facts);
        capture::read(roles, from, &mut facts);

        // the experimental register
        if let Some(items) = get(r.expected_concepts)
            .as_ref()
            .and_then(RoleValue::as_array)
        {
            facts.register = items.iter().filter(|v| is_filled(v)).map(py_str).collect();
        }
        facts
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
        self.pointers.reserve(pointers);
        self.concepts.reserve(records, concept_bytes);
    }

    /// Add one record's facts, in store order; `name` is what the report calls the record.
    pub fn fold(&mut self, facts: &PackedFacts, name: &str) {
        self.records += 1;
        if let Some(rare) = &facts.rare {
            self.dates.example(&rare.bad_date_example);
            self.register.extend(rare.register.iter().cloned());
        }
        self.dates.fold(facts, name);
        // the record as the concept owners and a nameless pointer keep it, once known
        let mut who: Option<u32> = None;
        let mut own = None;
        if let Some(id) = &facts.id {
            let text = facts.text(id);
            let i = self
                .names
                .ids
                .push(text, id.hash, facts.line, facts.valid_to_written);
            own = Some(i);
            if name == text {
                who = Some(i.min(NAMED - 1));
            } else {
                who = Some(self.names.rename(i, name, facts.line) | NAMED);
            }
        }
        self.fold_pointers(facts, name, own, &mut who);
        if let Some(concept) = &facts.concept {
            if let Some((value, from, to)) = facts.held {
                let me = match who {
                    Some(who) => who,
                    None => self.names.name_aside(name, facts.line) | NAMED,
                };
                let held = conflicts::Held {
                    concept: concept.hash,
                    value,
                    id: facts.id.map(|id| id.hash),
                    from,
                    to,
                };
                let targets = facts.targets.iter().map(|t| t.hash);
                self.conflicts.note(held, targets, me);
                who = Some(me);
            }
            let owner = facts.owner.as_ref().map(|o| (facts.text(o), o.hash));
            let who = match (owner, who) {
                (None, _) => 0,
                (Some(_), Some(who)) => who,
                (Some(_), None) => self.names.name_aside(name, facts.line) | NAMED,
            };
            self.concepts
                .note(facts.text(concept), concept.hash, owner, who);
        }
        self.policy.fold(facts, name);
        self.release.fold(facts, name);
        self.capture.fold(facts, name);
    }

    /// Add concepts from `--expected FILE`.
    pub fn expect(&mut self, concepts: impl IntoIterator<Item = String>) {
        self.register.extend(concepts);
    }

    /// Work out the warnings and the register now, and let go of everything the pass kept
    /// (ids, concepts, pointers), so what comes next — the report — has that memory. After
    /// this, [`Self::expected_concepts`] and [`Self::finish`] give what was worked out.
    /// Fails only when the conflict check's temporary file cannot be read back.
    pub fn settle(&mut self) -> std::io::Result<()> {
        if self.settled.is_some() {
            return Ok(());
        }
        let mut seen = HashSet::new();
        let register: Vec<String> = self
            .register
            .iter()
            .filter(|c| seen.insert(c.as_str()))
            .cloned()
            .collect();
        // the ids' keys go first (what matching found is all that is left of them), so what
        // comes next has their memory
        let matched = self.names.ids.match_up();
        // the pointers followed next: what they come to is small, and they and the texts
        // they sought go before the conflicts and the shared concepts are settled
        let superseded = self.follow_pointers(&matched);
        self.names.ids.forget_sought();
        // the conflicts before the shared concepts, so the two are never made at once
        let conflicts =
            std::mem::take(&mut self.conflicts).settle(|who, out| self.names.lines(who, out))?;
        let conflict_concept = conflicts.as_ref().map(|found| {
            let concept = self.concepts.text(found.concept());
            concept.unwrap_or_default().to_string()
        });
        let (shared, held, owners) = std::mem::take(&mut self.concepts).settle(&register);
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
        self.dates.warnings(&mut out);
        self.duplicate_id_warnings(&matched, &mut out);
        self.capture.warnings(self.records, &mut out);
        self.owner_warnings(shared, &owners, &mut out);
        self.policy.warnings(self.records, &mut out);
        self.release.warnings(&mut out);
        self.supersession(superseded, &mut out);
        drop(matched);
        self.nameless = Vec::new();
        if let (Some(found), Some(concept)) = (conflicts, conflict_concept) {
            let (a, b) = found.first();
            let message = found.message(&concept, self.names.name(a).0, self.names.name(b).0);
            out.push_named(Code::Conflict, &message, "", found.records());
        }
        // the warnings name records by `who`: the names go with them
        out.keep_names(std::mem::take(&mut self.names));
        *self = ValueChecks {
            settled: Some(Settled {
                warnings: out,
                expected,
            }),
            ..ValueChecks::default()
        };
        Ok(())
    }

    /// The register as given and the concepts it names that no record holds.
    /// (After [`Self::settle`].)
    pub fn expected_concepts(&self) -> Option<(Vec<String>, Vec<String>)> {
        debug_assert!(self.settled.is_some(), "settle first");
        self.settled.as_ref().and_then(|s| s.expected.clone())
    }

    /// The warnings (after [`Self::settle`]).
    pub fn finish(self) -> Warnings {
        debug_assert!(self.settled.is_some(), "settle first");
        self.settled.map(|s| s.warnings).unwrap_or_default()
    }
}
