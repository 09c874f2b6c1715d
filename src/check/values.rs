//! Beyond the reference: the values, not just their presence. Every finding here is a warning
//! that names records and their lines; `--strict` lets each cap the level at the one below the
//! level of the field it concerns.
//!
//! Like the rules, the work is split so records can be read in parallel: [`ValueChecks::facts`]
//! reads one record alone, [`ValueChecks::fold`] adds its facts in store order.
//!
//! Memory: per record we keep at most its id (for duplicates, supersession and the register),
//! its supersedes targets, one owner per concept and one text per policy. Ids and concepts
//! live in compact interned tables (`table.rs`: the text in one arena, a hash table of
//! indices), so the whole pass is linear in time and memory, and a million records need a few
//! tens of megabytes.

use super::roles::{Role, RoleValue, Roles};
use super::table::{self, Interner, Names};
use crate::record::{is_filled, py_str};
use crate::time::Timestamp;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

/// A record named in a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordRef {
    pub name: String,
    pub line: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    /// Stable code, e.g. `value.date`.
    pub code: &'static str,
    pub field: &'static str,
    pub message: String,
    pub records: Vec<RecordRef>,
    /// Under `--strict`, the level can be no higher than this.
    pub caps_level: u8,
}

/// Every warning code, with the level it caps and what it means (a test keeps them unique).
pub const CODES: [(&str, &str, u8, &str); 11] = [
    (
        "value.date",
        "valid_from",
        0,
        "a valid_from or valid_to that is not a date",
    ),
    (
        "value.interval",
        "valid_to",
        0,
        "valid_to before valid_from",
    ),
    (
        "value.duplicate_id",
        "record_id",
        0,
        "two records with the same record_id",
    ),
    (
        "value.capture_time",
        "valid_from",
        0,
        "valid_from equal to the capture timestamp on most records",
    ),
    (
        "value.owners",
        "concept_owner",
        1,
        "more than one owner for one concept",
    ),
    (
        "value.policies",
        "conflict_policy",
        1,
        "more than one conflict policy in the store",
    ),
    (
        "value.policy_repeated",
        "conflict_policy",
        1,
        "the conflict policy repeated on every record",
    ),
    (
        "value.release_to",
        "release_to",
        2,
        "release_to that is not a list of parties",
    ),
    (
        "value.supersedes_unknown",
        "supersedes",
        2,
        "supersedes names no record in the store",
    ),
    (
        "value.supersedes_cycle",
        "supersedes",
        2,
        "supersedes forms a cycle",
    ),
    (
        "value.superseded_valid_to",
        "supersedes",
        2,
        "a superseded record whose valid_to was written by hand",
    ),
];

fn warning(code: &'static str, message: String, records: Vec<RecordRef>) -> Warning {
    let (_, field, caps_level, _) = CODES
        .iter()
        .find(|c| c.0 == code)
        .copied()
        .expect("known code");
    Warning {
        code,
        field,
        message,
        records,
        caps_level,
    }
}

/// Keys where stores keep the capture (write) time of a record.
pub const CAPTURE_KEYS: [&str; 5] = [
    "created_at",
    "captured_at",
    "ingested_at",
    "recorded_at",
    "inserted_at",
];

/// The roles the value checks read (besides the literal [`CAPTURE_KEYS`]).
pub const ROLES: [&str; 9] = [
    "record_id",
    "valid_from",
    "valid_to",
    "supersedes",
    "concept",
    "concept_owner",
    "conflict_policy",
    "release_to",
    "expected_concepts",
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
}

fn value_roles() -> &'static ValueRoles {
    static ROLE_KEYS: OnceLock<ValueRoles> = OnceLock::new();
    ROLE_KEYS.get_or_init(|| {
        let [record_id, valid_from, valid_to, supersedes, concept, concept_owner, conflict_policy, release_to, expected_concepts] =
            ROLES.map(Role::named);
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
    /// them costs (measured: 256 bytes more made a 1M check 8 % slower).
    rare: Option<Box<RareFacts>>,
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

/// A supersedes pointer: which record points (its line), and at what.
#[derive(Debug, Clone, Copy)]
struct Pointer {
    from: Node,
    target: Target,
    line: u64,
}

/// A superseding record: an id's index in `ids`, or a name in `nameless`.
#[derive(Debug, Clone, Copy)]
enum Node {
    Id(u32),
    Nameless(u32),
}

/// A pointer's target: an id already seen, or text in `pending`.
#[derive(Debug, Clone, Copy)]
enum Target {
    Id(u32),
    Pending(u32),
}

/// An index as stored in the compact tables (u32: 4 billion distinct ids is beyond any memory
/// this pass could have; past it an index saturates rather than fail).
fn small(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// What is left once the warnings are worked out (see [`ValueChecks::settle`]).
#[derive(Default)]
struct Settled {
    warnings: Vec<Warning>,
    expected: Option<(Vec<String>, Vec<String>)>,
}

/// Where the first owner of a concept was seen.
#[derive(Debug, Clone, Copy)]
struct OwnerSeen {
    owner: u32,
    /// Index into `ValueChecks::owner_refs`.
    name: u32,
    line: u64,
}

#[derive(Default)]
pub struct ValueChecks {
    records: usize,
    bad_dates: Vec<RecordRef>,
    bad_date_example: Option<String>,
    inverted: Vec<RecordRef>,
    /// Every distinct record id, and by the same index: its line, and whether it carries a
    /// written valid_to (the top bit). One entry per distinct id.
    ids: Interner,
    id_lines: Vec<u64>,
    duplicates: Vec<RecordRef>,
    /// Ids (by index) that a supersedes pointer names and that carry a written valid_to,
    /// noted as each pointer is read when its target came before it (when the fold has the
    /// target's line at hand), so the end of the pass does not look up every pointer's
    /// target again. At most one entry per pointer: linear.
    written_targets: Vec<u32>,
    /// Every supersedes pointer, in store order. One entry per pointer: linear.
    pointers: Vec<Pointer>,
    /// Superseding records without an id in `ids` (by name), and targets not seen yet when
    /// their pointer was read (resolved at the end, when every id is known).
    nameless: Names,
    pending: Names,
    /// Concepts held, with by the same index the first owner seen; later distinct owners in
    /// `more_owners`. One entry per distinct concept (and per extra owner).
    concepts: Interner,
    first_owner: Vec<Option<OwnerSeen>>,
    more_owners: HashMap<usize, Vec<OwnerSeen>>,
    owners: Interner,
    owner_refs: Names,
    policies: Vec<(String, RecordRef)>,
    bad_release: Vec<RecordRef>,
    capture_equal: Vec<RecordRef>,
    capture_known: usize,
    register: Vec<String>,
    settled: Option<Settled>,
}

/// The top bit of an `id_lines` entry: the record carries a written valid_to.
const VALID_TO_WRITTEN: u64 = 1 << 63;

impl ValueFacts<'_> {
    /// The facts with nothing borrowed, packed to travel to the thread that folds them.
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
    pub fn facts<'a>(roles: &'a Roles, line: u64) -> ValueFacts<'a> {
        let r = value_roles();
        let get = |role: Role| roles.filled(role);
        let mut facts = ValueFacts {
            line,
            ..ValueFacts::default()
        };

        // dates and their order
        let mut from: Option<Timestamp> = None;
        let mut to: Option<Timestamp> = None;
        for (role, slot) in [(r.valid_from, &mut from), (r.valid_to, &mut to)] {
            if let Some(v) = get(role) {
                match v.parse_time() {
                    Ok(t) => *slot = Some(t),
                    Err(e) => {
                        if facts.bad_date_example.is_none() {
                            facts.bad_date_example = Some(format!("{}: {e}", role.name));
                        }
                        facts.bad_dates += 1;
                    }
                }
            }
        }
        if let (Some(f), Some(t)) = (from, to) {
            facts.inverted = t.end() < f.start();
        }

        // identity and supersession
        facts.id = get(r.record_id).map(|v| v.text());
        facts.valid_to_written = roles.presence(r.valid_to).is_filled();
        if let Some(v) = get(r.supersedes) {
            let mut targets: Vec<Cow<str>> = match &v {
                // one id, as written
                RoleValue::Text(_) => vec![v.text()],
                RoleValue::Json(json) => {
                    let mut ids = HashSet::new();
                    super::rules::collect_ids(json, &mut ids);
                    ids.into_iter().map(Cow::Owned).collect()
                }
            };
            targets.sort();
            targets.dedup();
            facts.supersedes = Some(targets);
        }

        // one owner per concept
        facts.concept = get(r.concept).map(|v| v.text());
        if facts.concept.is_some() {
            facts.owner = get(r.concept_owner).map(|v| v.text());
        }

        // one policy per store
        facts.policy = get(r.conflict_policy)
            .filter(RoleValue::is_truthy)
            .map(|p| p.text());

        // release_to is a list of parties
        if let Some(v) = get(r.release_to) {
            facts.bad_release = !v.as_array().is_some_and(|items| {
                items
                    .iter()
                    .all(|i| i.as_str().is_some_and(|s| !crate::record::is_blank(s)))
            });
        }

        // validity time is not capture time
        if let Some(f) = from {
            if let Some(captured) = CAPTURE_KEYS
                .iter()
                .find_map(|k| roles.literal(k).and_then(|v| v.parse_time().ok()))
            {
                facts.capture_equal = Some(captured.nanos == f.nanos);
            }
        }

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
    /// ... and `pointers` supersedes pointers: tables sized once skip the copies (and the
    /// moment of holding both the old and the new buffer) that growing by doubling costs.
    /// Concepts repeat, so their number is only bounded (by `records`; their text by
    /// `concept_bytes`): their text and first owners get that room, which is memory only
    /// where written, so they never move either; their table grows as they come.
    pub fn expect_records(
        &mut self,
        records: usize,
        id_bytes: usize,
        pointers: usize,
        concept_bytes: usize,
    ) {
        self.ids.reserve(records, id_bytes);
        self.id_lines.reserve(records);
        self.pointers.reserve(pointers);
        self.concepts.reserve_text(records, concept_bytes);
        self.first_owner.reserve(records);
        table::huge_pages(&self.first_owner);
    }

    /// Touch what folding a group of facts will look up (the id, the supersedes targets, the
    /// concept): first each lookup's home slot, then where the candidate string ends, then
    /// its text, each stage for the whole group at once, so that the cache misses of a stage
    /// overlap. Called on the next records before folding them. Changes nothing.
    ///
    /// Each stage is a tight loop over a flat list that does not branch on what it is still
    /// reading (only on what the stage before read): a branch on a value still on its way
    /// would make each read wait for the one before, and the fewer instructions between
    /// reads, the more of them the processor has under way.
    pub fn warm<'f>(&self, group: impl Iterator<Item = &'f PackedFacts>) -> u64 {
        let mut touched = 0;
        let (mut ids, mut concepts) = (Vec::new(), Vec::new());
        for facts in group {
            // the facts' texts, written on the core that read the record
            touched ^= table::touch_ends(facts.texts.as_bytes());
            ids.extend(facts.id.iter().chain(&facts.targets).map(|text| text.hash));
            concepts.extend(facts.concept.map(|concept| concept.hash));
        }
        let home_slots = |table: &Interner, hashes: &[u64]| -> Vec<u64> {
            hashes.iter().map(|&hash| table.home_slot(hash)).collect()
        };
        let candidates = |slots: Vec<u64>, hashes: &[u64]| -> Vec<usize> {
            let pairs = slots.into_iter().zip(hashes);
            pairs
                .filter_map(|(slot, &hash)| Interner::candidate(slot, hash))
                .collect()
        };
        let ids = candidates(home_slots(&self.ids, &ids), &ids);
        let concepts = candidates(home_slots(&self.concepts, &concepts), &concepts);
        // a known id's line (a supersedes target's: whether it carries a valid_to) and a
        // known concept's first owner are read next
        for &i in &ids {
            touched ^= self.id_lines.get(i).map_or(0, |&line| line);
        }
        for &i in &concepts {
            touched ^= self
                .first_owner
                .get(i)
                .map_or(0, |o| o.map_or(1, |o| o.line));
        }
        for stage in 0..2 {
            for (table, found) in [(&self.ids, &ids), (&self.concepts, &concepts)] {
                for &i in found {
                    touched ^= table.names().touch(i, stage);
                }
            }
        }
        touched
    }

    /// Add one record's facts, in store order; `name` is what the report calls the record.
    pub fn fold(&mut self, facts: &PackedFacts, name: &str) {
        self.records += 1;
        let here = || RecordRef {
            name: name.to_string(),
            line: facts.line,
        };
        if let Some(rare) = &facts.rare {
            if self.bad_date_example.is_none() {
                self.bad_date_example = rare.bad_date_example.clone();
            }
            self.register.extend(rare.register.iter().cloned());
        }
        for _ in 0..facts.bad_dates {
            self.bad_dates.push(here());
        }
        if facts.inverted {
            self.inverted.push(here());
        }
        let mut own = None;
        if let Some(id) = &facts.id {
            let (i, new) = self.ids.intern_hashed(facts.text(id), id.hash);
            own = Some(i);
            if new {
                let written = if facts.valid_to_written {
                    VALID_TO_WRITTEN
                } else {
                    0
                };
                self.id_lines.push(facts.line | written);
            } else {
                self.duplicates.push(here());
            }
        }
        if facts.supersedes {
            // the record's own id was just interned; a record without one points by name
            let from = match own {
                Some(i) => Node::Id(small(i)),
                None => match self.ids.find(name) {
                    Some(i) => Node::Id(small(i)),
                    None => Node::Nameless(small(self.nameless.push(name))),
                },
            };
            for packed in &facts.targets {
                let t = facts.text(packed);
                let target = match self.ids.find_hashed(t, packed.hash) {
                    Some(i) => {
                        if self.carries_valid_to(i) {
                            self.written_targets.push(small(i));
                        }
                        Target::Id(small(i))
                    }
                    None => Target::Pending(small(self.pending.push(t))),
                };
                self.pointers.push(Pointer {
                    from,
                    target,
                    line: facts.line,
                });
            }
        }
        if let Some(concept) = &facts.concept {
            let (c, new) = self
                .concepts
                .intern_hashed(facts.text(concept), concept.hash);
            if new {
                table::push_on_huge_pages(&mut self.first_owner, None);
            }
            if let Some(owner) = &facts.owner {
                let owner = self.owners.intern_hashed(facts.text(owner), owner.hash);
                let owner = small(owner.0);
                match self.first_owner[c] {
                    None => {
                        self.first_owner[c] = Some(OwnerSeen {
                            owner,
                            line: facts.line,
                            name: small(self.owner_refs.push(name)),
                        })
                    }
                    Some(first) if first.owner == owner => {}
                    Some(_) => {
                        let more = self.more_owners.entry(c).or_default();
                        if !more.iter().any(|o| o.owner == owner) {
                            more.push(OwnerSeen {
                                owner,
                                line: facts.line,
                                name: small(self.owner_refs.push(name)),
                            });
                        }
                    }
                }
            }
        }
        if let Some(p) = &facts.policy {
            self.policies.push((facts.text(p).to_string(), here()));
        }
        if facts.bad_release {
            self.bad_release.push(here());
        }
        if let Some(equal) = facts.capture_equal {
            self.capture_known += 1;
            if equal {
                self.capture_equal.push(here());
            }
        }
    }

    /// Add concepts from `--expected FILE`.
    pub fn expect(&mut self, concepts: impl IntoIterator<Item = String>) {
        self.register.extend(concepts);
    }

    /// Work out the warnings and the register now, and let go of everything the pass kept
    /// (ids, concepts, pointers), so what comes next — the report — has that memory. After
    /// this, [`Self::expected_concepts`] and [`Self::finish`] give what was worked out.
    pub fn settle(&mut self) {
        if self.settled.is_some() {
            return;
        }
        let expected = self.expected_concepts();
        let warnings = std::mem::take(self).finish();
        self.settled = Some(Settled { warnings, expected });
    }

    /// The register as given and the concepts it names that no record holds.
    pub fn expected_concepts(&self) -> Option<(Vec<String>, Vec<String>)> {
        if let Some(settled) = &self.settled {
            return settled.expected.clone();
        }
        if self.register.is_empty() {
            return None;
        }
        let mut seen = HashSet::new();
        let register: Vec<String> = self
            .register
            .iter()
            .filter(|c| seen.insert((*c).clone()))
            .cloned()
            .collect();
        let missing = register
            .iter()
            .filter(|c| !self.concepts.contains(c))
            .cloned()
            .collect();
        Some((register, missing))
    }

    pub fn finish(mut self) -> Vec<Warning> {
        if let Some(settled) = self.settled {
            return settled.warnings;
        }
        let mut out = Vec::new();
        if !self.bad_dates.is_empty() {
            let example = self.bad_date_example.clone().unwrap_or_default();
            out.push(warning(
                "value.date",
                format!("dates that do not parse (first: {example})"),
                self.bad_dates.clone(),
            ));
        }
        if !self.inverted.is_empty() {
            out.push(warning(
                "value.interval",
                "valid_to is before valid_from".into(),
                self.inverted.clone(),
            ));
        }
        if !self.duplicates.is_empty() {
            out.push(warning(
                "value.duplicate_id",
                "record_id used by more than one record (each repeat is named)".into(),
                self.duplicates.clone(),
            ));
        }
        if self.capture_known > 0 && self.capture_equal.len() * 2 > self.records {
            out.push(warning(
                "value.capture_time",
                format!(
                    "valid_from equals the capture timestamp on {} of {} records: validity time is when the statement became true, not when it was written",
                    self.capture_equal.len(),
                    self.records
                ),
                self.capture_equal.clone(),
            ));
        }
        let mut concepts: Vec<(&str, Vec<OwnerSeen>)> = self
            .more_owners
            .iter()
            .filter_map(|(&c, more)| {
                let first = self.first_owner[c]?;
                Some((
                    self.concepts.get(c),
                    std::iter::once(first).chain(more.iter().copied()).collect(),
                ))
            })
            .collect();
        concepts.sort_by_key(|(c, _)| *c);
        for (concept, owners) in concepts {
            let names: Vec<&str> = owners
                .iter()
                .map(|o| self.owners.get(o.owner as usize))
                .collect();
            out.push(warning(
                "value.owners",
                format!(
                    "concept {concept:?} has {} owners: {}",
                    owners.len(),
                    names.join(", ")
                ),
                owners
                    .iter()
                    .map(|o| RecordRef {
                        name: self.owner_refs.get(o.name as usize).to_string(),
                        line: o.line,
                    })
                    .collect(),
            ));
        }
        // the concepts and their owners are done with: let them go before the supersedes
        // graph is built
        self.concepts = Interner::default();
        self.first_owner = Vec::new();
        self.more_owners = HashMap::new();
        self.owner_refs = Names::default();
        let distinct: HashSet<&str> = self.policies.iter().map(|(p, _)| p.as_str()).collect();
        if distinct.len() > 1 {
            out.push(warning(
                "value.policies",
                format!(
                    "{} different conflict policies: a store states one",
                    distinct.len()
                ),
                self.policies.iter().map(|(_, r)| r.clone()).collect(),
            ));
        } else if self.records > 1 && self.policies.len() == self.records {
            out.push(warning(
                "value.policy_repeated",
                "the conflict policy is repeated on every record: state it once per store".into(),
                self.policies
                    .iter()
                    .take(1)
                    .map(|(_, r)| r.clone())
                    .collect(),
            ));
        }
        if !self.bad_release.is_empty() {
            out.push(warning(
                "value.release_to",
                "release_to is not a list of party names".into(),
                self.bad_release.clone(),
            ));
        }
        self.supersession(&mut out);
        out
    }

    /// The line of the record that first had the id at `i`.
    fn id_line(&self, i: usize) -> u64 {
        self.id_lines[i] & !VALID_TO_WRITTEN
    }

    /// The record that first had the id at `i` carries a written valid_to.
    fn carries_valid_to(&self, i: usize) -> bool {
        self.id_lines[i] & VALID_TO_WRITTEN != 0
    }

    fn node_name(&self, n: Node) -> &str {
        match n {
            Node::Id(i) => self.ids.get(i as usize),
            Node::Nameless(j) => self.nameless.get(j as usize),
        }
    }

    fn target_text(&self, t: Target) -> &str {
        match t {
            Target::Id(i) => self.ids.get(i as usize),
            Target::Pending(j) => self.pending.get(j as usize),
        }
    }

    fn supersession(&mut self, out: &mut Vec<Warning>) {
        let mut unknown = Vec::new();
        // targets read before the pointers to them were noted then; the others are now
        let mut written = std::mem::take(&mut self.written_targets);
        // The graph's nodes are numbers: the store's ids by their index, then the records
        // that supersede without an id of their own (by their name). Edges are pairs, kept
        // in store order: linear memory, no map keyed by text.
        let ids = self.ids.len();
        let node = |n: Node| match n {
            Node::Id(i) => i as usize,
            Node::Nameless(j) => ids + j as usize,
        };
        let mut edges: Vec<(u32, u32)> = Vec::with_capacity(self.pointers.len());
        for p in &self.pointers {
            let target = match p.target {
                Target::Id(i) => Some(i as usize),
                Target::Pending(j) => {
                    let target = self.ids.find(self.pending.get(j as usize));
                    if let Some(t) = target.filter(|&t| self.carries_valid_to(t)) {
                        written.push(small(t));
                    }
                    target
                }
            };
            match target {
                None => unknown.push(RecordRef {
                    name: format!(
                        "{} → {}",
                        self.node_name(p.from),
                        self.target_text(p.target)
                    ),
                    line: p.line,
                }),
                Some(target) => edges.push((small(node(p.from)), small(target))),
            }
        }
        if !unknown.is_empty() {
            out.push(warning(
                "value.supersedes_unknown",
                "supersedes names a record that is not in the store".into(),
                unknown,
            ));
        }
        let name = |n: usize| {
            if n < ids {
                self.ids.get(n)
            } else {
                self.nameless.get(n - ids)
            }
        };
        for cycle in find_cycles(ids + self.nameless.len(), &edges, &name) {
            let records = cycle[..cycle.len() - 1]
                .iter()
                .map(|&node| RecordRef {
                    name: name(node).to_string(),
                    line: if node < ids { self.id_line(node) } else { 0 },
                })
                .collect();
            let path: Vec<&str> = cycle.iter().map(|&node| name(node)).collect();
            out.push(warning(
                "value.supersedes_cycle",
                format!("supersedes forms a cycle: {}", path.join(" → ")),
                records,
            ));
        }
        if !written.is_empty() {
            let mut hand_written: Vec<RecordRef> = written
                .into_iter()
                .map(|t| RecordRef {
                    name: self.ids.get(t as usize).to_string(),
                    line: self.id_line(t as usize),
                })
                .collect();
            hand_written.sort_by_key(|r| r.line);
            hand_written.dedup();
            out.push(warning(
                "value.superseded_valid_to",
                "a superseded record carries a valid_to: the end of a superseded interval is derived when reading; leave the old record untouched".into(),
                hand_written,
            ));
        }
    }
}

/// The cycles of a supersedes graph of `nodes` numbered nodes, given its edges in order
/// (iterative depth-first search from each node with edges, in the order of their names,
/// following each node's edges in the order given: linear in the graph's size).
fn find_cycles<'n>(
    nodes: usize,
    edges: &[(u32, u32)],
    name: &dyn Fn(usize) -> &'n str,
) -> Vec<Vec<usize>> {
    // When every edge points to a lower number than its source, that numbering is itself a
    // topological order: there is no cycle, and nothing to search. It is the common case (a
    // record supersedes one written before it, and ids are numbered in first-seen order),
    // and one sequential pass over the edges replaces a search across every node (21-33 ms
    // on a 1M store, all of it after the last record is read).
    if edges.iter().all(|&(from, to)| to < from) {
        return Vec::new();
    }
    // each node's targets, in the order given (a counting sort by source); u32 positions:
    // a graph of more than 2^32 edges is beyond any memory this pass could have
    let mut first = vec![0u32; nodes + 1];
    for &(from, _) in edges {
        first[from as usize + 1] += 1;
    }
    for i in 0..nodes {
        first[i + 1] += first[i];
    }
    let mut fill = first.clone();
    let mut targets = vec![0u32; edges.len()];
    for &(from, to) in edges {
        let from = from as usize;
        targets[fill[from] as usize] = to;
        fill[from] += 1;
    }
    drop(fill);
    let out_of = |node: usize| &targets[first[node] as usize..first[node + 1] as usize];
    let starts: Vec<usize> = (0..nodes).filter(|&n| !out_of(n).is_empty()).collect();
    // A graph has a cycle whatever order a search starts in; only when it has one does the
    // order matter (which cycles are reported, from where): then search in name order.
    if search(&starts, nodes, &out_of).is_empty() {
        return Vec::new();
    }
    let mut starts = starts;
    starts.sort_by(|a, b| name(*a).cmp(name(*b)));
    search(&starts, nodes, &out_of)
}

/// The cycles a depth-first search finds, starting from each of `starts` in turn.
fn search<'t>(
    starts: &[usize],
    nodes: usize,
    out_of: &dyn Fn(usize) -> &'t [u32],
) -> Vec<Vec<usize>> {
    const NEW: u8 = 0;
    const ACTIVE: u8 = 1;
    let mut marks = vec![NEW; nodes];
    let mut cycles = Vec::new();
    for &start in starts {
        if marks[start] != NEW {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        marks[start] = ACTIVE;
        while let Some(&(node, i)) = stack.last() {
            match out_of(node).get(i).map(|&n| n as usize) {
                Some(n) => {
                    if let Some(top) = stack.last_mut() {
                        top.1 += 1;
                    }
                    match marks[n] {
                        NEW => {
                            marks[n] = ACTIVE;
                            stack.push((n, 0));
                        }
                        ACTIVE => {
                            let from = stack.iter().position(|(s, _)| *s == n).unwrap_or(0);
                            let mut cycle: Vec<usize> =
                                stack[from..].iter().map(|(s, _)| *s).collect();
                            cycle.push(n);
                            cycles.push(cycle);
                        }
                        _ => {}
                    }
                }
                None => {
                    marks[node] = 2; // done
                    stack.pop();
                }
            }
        }
    }
    cycles
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warning_codes_are_unique() {
        let mut seen = HashSet::new();
        for (code, ..) in CODES {
            assert!(seen.insert(code), "duplicate code {code}");
        }
    }

    #[test]
    fn cycles_are_found_once() {
        let names = ["a", "b", "c", "d"];
        let name = |n: usize| names[n];
        let c = find_cycles(4, &[(0, 1), (1, 2), (2, 0), (3, 0)], &name);
        assert_eq!(c, vec![vec![0, 1, 2, 0]]);
    }

    /// Edges that all point back are no cycle; a self-loop, or one edge pointing forward
    /// that closes a loop of backward ones, is still found.
    #[test]
    fn backward_edges_alone_make_no_cycle() {
        let names = ["a", "b", "c", "d"];
        let name = |n: usize| names[n];
        assert!(find_cycles(4, &[(1, 0), (2, 0), (3, 2), (3, 1)], &name).is_empty());
        assert_eq!(find_cycles(4, &[(1, 0), (2, 2)], &name), vec![vec![2, 2]]);
        assert_eq!(
            find_cycles(4, &[(3, 2), (2, 1), (1, 3)], &name),
            vec![vec![1, 3, 2, 1]]
        );
        assert!(find_cycles(4, &[(1, 3), (3, 2)], &name).is_empty());
    }
}
