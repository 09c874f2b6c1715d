//! Beyond the reference: the values, not just their presence. Every finding here is a warning
//! that names records and their lines; `--strict` lets each cap the level at the one below the
//! level of the field it concerns.
//!
//! Like the rules, the work is split so records can be read in parallel: [`ValueChecks::facts`]
//! reads one record alone, [`ValueChecks::fold`] adds its facts in store order.
//!
//! Memory: per record we keep at most its id (for duplicates, supersession and the register),
//! its supersedes targets, its concept and owner, and one text per policy. Ids and concepts
//! are gathered in store order and matched up once at the end, a partition at a time
//! (`ids.rs`, `owners.rs`), so the whole pass is linear in time and memory.

use super::ids::{small, Matched, Sought};
use super::owners::ConceptOwners;
use super::record_names::{RecordNames, NAMED};
use super::roles::{Role, RoleValue, Roles};
use super::table;
use super::warnings::{RecordList, Warnings};
use crate::record::{is_filled, py_str};
use crate::time::Timestamp;
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::OnceLock;

/// A record named in a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordRef {
    pub name: String,
    pub line: u64,
}

/// Every warning code, with the level it caps and what it means (a test keeps them unique).
pub const CODES: [(&str, &str, u8, &str); 12] = [
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
    (
        "value.conflict",
        "supersedes",
        2,
        "records of one concept in force together with different values and no supersedes between them",
    ),
];

/// Keys where stores keep the capture (write) time of a record.
pub const CAPTURE_KEYS: [&str; 5] = [
    "created_at",
    "captured_at",
    "ingested_at",
    "recorded_at",
    "inserted_at",
];

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

/// A supersedes pointer: which record points (its line), and at what (a text sought among
/// the ids, see `ids.rs`).
#[derive(Debug, Clone, Copy)]
struct Pointer {
    from: Superseder,
    target: Sought,
    line: u64,
}

/// A superseding record: by its id's index in `ids`, or, without an id, by its index in
/// `ValueChecks::nameless`.
#[derive(Debug, Clone, Copy)]
enum Superseder {
    Id(u32),
    Nameless(u32),
}

/// A record without an id that supersedes: its name (in `named`), that name sought among the
/// ids, and how many ids came before it (its name counts as an id only if one of those had
/// it).
#[derive(Debug, Clone, Copy)]
struct Nameless {
    named: u32,
    sought: Sought,
    ids_before: u32,
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
    /// The records with a date that does not parse (twice when both do not), with an
    /// inverted interval, a bad release_to, valid_from equal to the capture time: each list
    /// holds a record at most twice, so it is linear in the store (`RecordList`: the name's
    /// bytes and 12 more a record).
    bad_dates: RecordList,
    bad_date_example: Option<String>,
    inverted: RecordList,
    /// Every record id and every supersedes target, matched up at the end (`ids.rs`), and
    /// the names the warnings give records.
    names: RecordNames,
    /// Every supersedes pointer, in store order. One entry per pointer: linear.
    pointers: Vec<Pointer>,
    nameless: Vec<Nameless>,
    /// Every concept held, with its owner and record, matched up at the end (`owners.rs`).
    concepts: ConceptOwners,
    /// The records that state a policy, and the hashes of the distinct policy texts (one
    /// hash per distinct text, not the texts).
    policy_records: RecordList,
    policy_texts: HashSet<u64>,
    bad_release: RecordList,
    capture_equal: RecordList,
    capture_known: usize,
    register: Vec<String>,
    conflicts: super::conflicts::Conflicts,
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
            if let Some(parsed) = roles.filled_time(role) {
                match parsed {
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
        if let (Some(f), Some(value)) = (from, get(r.value)) {
            facts.held = Some((table::hash(&value.text()), f.start(), to.map(|t| t.end())));
        }

        // identity and supersession
        facts.id = roles.filled_str(r.record_id);
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
        facts.concept = roles.filled_str(r.concept);
        if facts.concept.is_some() {
            facts.owner = roles.filled_str(r.concept_owner);
        }

        // one policy per store
        facts.policy = get(r.conflict_policy)
            .filter(RoleValue::is_truthy)
            .map(|p| p.text());

        // release_to is a list of parties (read from the raw text when it is at hand)
        let raw = roles.filled_text(r.release_to);
        facts.bad_release = match raw.map(|text| text.map(list_of_parties)) {
            Some(None) => false,
            Some(Some(Some(parties))) => !parties,
            // no raw text, or a string with an escape in it: the parsed value says
            _ => get(r.release_to).is_some_and(|v| !is_list_of_parties(&v)),
        };

        // validity time is not capture time
        if let Some(f) = from {
            if let Some(captured) = CAPTURE_KEYS
                .iter()
                .find_map(|k| roles.literal_time(k).and_then(Result::ok))
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
        let line = facts.line;
        if let Some(rare) = &facts.rare {
            if self.bad_date_example.is_none() {
                self.bad_date_example = rare.bad_date_example.clone();
            }
            self.register.extend(rare.register.iter().cloned());
        }
        for _ in 0..facts.bad_dates {
            self.bad_dates.push(name, line);
        }
        if facts.inverted {
            self.inverted.push(name, line);
        }
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
        if facts.supersedes {
            let from = match own {
                Some(i) => Superseder::Id(i),
                None => {
                    let named = self.names.name_aside(name, facts.line);
                    who = Some(named | NAMED);
                    let ids_before = small(self.names.ids.len());
                    let sought = self.names.ids.seek(name, table::hash(name));
                    self.nameless.push(Nameless {
                        named,
                        sought,
                        ids_before,
                    });
                    Superseder::Nameless(small(self.nameless.len() - 1))
                }
            };
            for packed in &facts.targets {
                let target = self.names.ids.seek(facts.text(packed), packed.hash);
                self.pointers.push(Pointer {
                    from,
                    target,
                    line: facts.line,
                });
            }
        }
        if let Some(concept) = &facts.concept {
            if let Some((value, from, to)) = facts.held {
                let me = match who {
                    Some(who) => who,
                    None => self.names.name_aside(name, facts.line) | NAMED,
                };
                let held = super::conflicts::Held {
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
        if let Some(p) = &facts.policy {
            self.policy_texts.insert(p.hash);
            self.policy_records.push(name, line);
        }
        if facts.bad_release {
            self.bad_release.push(name, line);
        }
        if let Some(equal) = facts.capture_equal {
            self.capture_known += 1;
            if equal {
                self.capture_equal.push(name, line);
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
        // the conflicts before the shared concepts, so the two are never made at once
        let conflicts = std::mem::take(&mut self.conflicts).settle(|who| self.names.line(who))?;
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
        self.record_warnings(&matched, &mut out);
        self.owner_warnings(shared, &owners, &mut out);
        self.policy_warnings(&mut out);
        self.supersession(&matched, &mut out);
        // the pointers are done with: let them go before the conflicts' records are kept
        drop(matched);
        self.pointers = Vec::new();
        self.nameless = Vec::new();
        if let (Some(found), Some(concept)) = (conflicts, conflict_concept) {
            let (a, b) = found.first();
            let message = found.message(&concept, self.names.name(a).0, self.names.name(b).0);
            out.push_named("value.conflict", &message, "", found.records());
        }
        // the warnings name records by `who`: the names go with them
        self.names.ids.forget_sought();
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

    /// The warnings about single records: dates, intervals, repeated ids, capture time.
    fn record_warnings(&self, matched: &Matched, out: &mut Warnings) {
        if !self.bad_dates.is_empty() {
            let example = self.bad_date_example.clone().unwrap_or_default();
            let message = format!("dates that do not parse (first: {example})");
            out.push("value.date", &message, "", self.bad_dates.iter());
        }
        if !self.inverted.is_empty() {
            let message = "valid_to is before valid_from";
            out.push("value.interval", message, "", self.inverted.iter());
        }
        // a repeat at a time: each name is built and kept compact, not gathered as Strings
        let mut repeats = matched.repeats().peekable();
        if repeats.peek().is_some() {
            let message = "record_id used by more than one record (each repeat is named)";
            // an id's index is its record's `who`
            out.push_named("value.duplicate_id", message, "", repeats);
        }
        if self.capture_known > 0 && self.capture_equal.len() * 2 > self.records {
            let message = format!(
                "valid_from equals the capture timestamp on {} of {} records: validity time is when the statement became true, not when it was written",
                self.capture_equal.len(),
                self.records
            );
            out.push(
                "value.capture_time",
                &message,
                "",
                self.capture_equal.iter(),
            );
        }
    }

    /// One warning per concept with several owners: each names one record per owner, so
    /// together they name each record once at most. `owners` are the owners' names.
    fn owner_warnings(
        &self,
        shared: super::owners::Shared,
        owners: &table::Interner,
        out: &mut Warnings,
    ) {
        for (concept, held_by) in shared.iter() {
            let names: Vec<&str> = held_by
                .iter()
                .map(|o| owners.get(o.owner as usize))
                .collect();
            out.push_owners(concept, &names, held_by.iter().map(|o| o.who));
        }
    }

    fn policy_warnings(&self, out: &mut Warnings) {
        let distinct = self.policy_texts.len();
        if distinct > 1 {
            let message = format!("{distinct} different conflict policies: a store states one");
            out.push("value.policies", &message, "", self.policy_records.iter());
        } else if self.records > 1 && self.policy_records.len() == self.records {
            let message =
                "the conflict policy is repeated on every record: state it once per store";
            let first = self.policy_records.iter().take(1);
            out.push("value.policy_repeated", message, "", first);
        }
        if !self.bad_release.is_empty() {
            let message = "release_to is not a list of party names";
            out.push("value.release_to", message, "", self.bad_release.iter());
        }
    }

    /// The graph node of a superseding record: its id's first index, or past every id, its
    /// name's place among the records without one (when no earlier id has that name).
    fn node(&self, from: Superseder, matched: &Matched) -> usize {
        match from {
            Superseder::Id(i) => matched.first(i) as usize,
            Superseder::Nameless(k) => {
                let n = self.nameless[k as usize];
                match matched.found(n.sought) {
                    Some(i) if i < n.ids_before => i as usize,
                    _ => self.names.ids.len() + k as usize,
                }
            }
        }
    }

    /// The name of graph node `n` (see [`Self::node`]).
    fn node_name(&self, n: usize) -> &str {
        match n.checked_sub(self.names.ids.len()) {
            None => self.names.ids.text(small(n)),
            Some(k) => self
                .nameless
                .get(k)
                .map_or("", |n| self.names.named_at(n.named as usize).0),
        }
    }

    fn supersession(&self, matched: &Matched, out: &mut Warnings) {
        let mut unknown = RecordList::default();
        let mut written = Vec::new();
        // The graph's nodes are numbers: the store's ids by the index of their first record,
        // then the records that supersede without an id of their own. Edges are pairs, kept
        // in store order: linear memory, no map keyed by text.
        let mut edges: Vec<(u32, u32)> = Vec::with_capacity(self.pointers.len());
        for p in &self.pointers {
            let from = self.node(p.from, matched);
            match matched.found(p.target) {
                None => unknown.push(
                    &format!(
                        "{} → {}",
                        self.node_name(from),
                        self.names.ids.sought(p.target)
                    ),
                    p.line,
                ),
                Some(target) => {
                    if self.names.ids.carries_valid_to(target) {
                        written.push(target);
                    }
                    edges.push((small(from), target));
                }
            }
        }
        if !unknown.is_empty() {
            let message = "supersedes names a record that is not in the store";
            out.push("value.supersedes_unknown", message, "", unknown.iter());
        }
        let ids = self.names.ids.len();
        let nodes = ids + self.nameless.len();
        let name = |n: usize| self.node_name(n);
        // one warning per cycle the search finds: a node is on the search's path once, so
        // the cycles name each record once at most
        for cycle in find_cycles(nodes, &edges, &name) {
            let records = cycle[..cycle.len() - 1].iter().map(|&node| {
                let line = if node < ids {
                    self.names.ids.line(small(node))
                } else {
                    0
                };
                (name(node), line)
            });
            let path = cycle
                .iter()
                .map(|&node| name(node))
                .collect::<Vec<_>>()
                .join(" → ");
            let message = format!("supersedes forms a cycle: {path}");
            out.push("value.supersedes_cycle", &message, &path, records);
        }
        if !written.is_empty() {
            // by line, each record once (one id a line: its text goes with it)
            let mut written = written;
            written.sort_by_key(|&t| self.names.ids.line(t));
            written.dedup_by_key(|t| self.names.ids.line(*t));
            let message = "a superseded record carries a valid_to: the end of a superseded interval is derived when reading; leave the old record untouched";
            let records = written
                .iter()
                .map(|&t| (self.names.ids.text(t), self.names.ids.line(t)));
            out.push("value.superseded_valid_to", message, "", records);
        }
    }
}

/// A list of party names: every item a string that is not blank.
fn is_list_of_parties(value: &RoleValue) -> bool {
    value.as_array().is_some_and(|items| {
        items
            .iter()
            .all(|i| i.as_str().is_some_and(|s| !crate::record::is_blank(s)))
    })
}

/// [`is_list_of_parties`] read from a value's raw JSON text, which the reader already took as
/// valid JSON: no value is built. `None` when a string holds an escape (what it decodes to is
/// the parser's to say).
fn list_of_parties(text: &str) -> Option<bool> {
    let Some(inside) = text.strip_prefix('[') else {
        return Some(false);
    };
    let mut rest = inside.trim_start();
    if rest.starts_with(']') {
        return Some(true);
    }
    loop {
        let Some(item) = rest.strip_prefix('"') else {
            return Some(false);
        };
        let end = memchr::memchr2(b'"', b'\\', item.as_bytes())?;
        if item.as_bytes()[end] == b'\\' {
            return None;
        }
        if crate::record::is_blank(&item[..end]) {
            return Some(false);
        }
        rest = item[end + 1..].trim_start();
        match rest.as_bytes().first() {
            Some(b',') => rest = rest[1..].trim_start(),
            _ => return Some(true),
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
    // and one sequential pass over the edges replaces a search across every node, which
    // would all run after the last record is read, when nothing else is left to overlap it.
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

    proptest::proptest! {
        /// Read from the raw text, a value is a list of parties exactly when its parsed value
        /// is (or the text is left to the parser).
        #[test]
        fn parties_read_from_the_text_as_from_the_value(
            items in proptest::collection::vec(
                r#"("[a-z ]{0,3}"|" \\t"|"a\\"b"|"\\u0020"|1|null|\[\]|\["x"\]|\{\})"#,
                0..4,
            ),
            space in "[ \n]{0,2}",
        ) {
            let text = format!("[{space}{}{space}]", items.join(&format!(",{space}")));
            let value: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
            let parsed = is_list_of_parties(&RoleValue::Json(Cow::Owned(value)));
            if let Some(read) = list_of_parties(&text) {
                proptest::prop_assert_eq!(read, parsed, "{}", text);
            } else {
                proptest::prop_assert!(text.contains('\\'), "{}", text);
            }
        }
    }

    #[test]
    fn list_of_parties_reads_strings_only() {
        assert_eq!(list_of_parties(r#"["legal", "hr"]"#), Some(true));
        assert_eq!(list_of_parties("[]"), Some(true));
        assert_eq!(list_of_parties(r#"["legal", " "]"#), Some(false));
        assert_eq!(list_of_parties(r#"["legal", 1]"#), Some(false));
        assert_eq!(list_of_parties(r#""legal""#), Some(false));
        assert_eq!(list_of_parties(r#"{"a": "b"}"#), Some(false));
        assert_eq!(list_of_parties(r#"["le\"gal"]"#), None);
    }

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
