//! Selection: which records a question needs. Three tests, combined with AND:
//!
//! - **in force on a date** (`--as-of`): [`time::in_force`], the one rule `check` shares, in
//!   its two halves: the record's validity covers the date ([`covers`]), and no record that
//!   supersedes it has begun by then ([`time::begun`], [`Verdict::unless_ended`]). The
//!   superseders are only known once the whole store has been read, so a [`Supersession`]
//!   (a bit a record: ended by a superseder or not) is built in a first pass, joining the
//!   records' ids with the pointers a partition at a time, past a budget in a temporary file;
//! - **concept** (`--concept`): the record's concept is exactly the name;
//! - **reader** (`--reader`): release_to names the party exactly. Fail-closed: a record
//!   without release_to, with null, an empty list or anything but a string or a list of
//!   strings is withheld. No case folding, no wildcard, no splitting of a name on commas: a
//!   bare string is one party.
//!
//! Every role is read through the [`FieldMap`], so `--map` applies to selection too.

use crate::error::{Result, VercyError};
use crate::mapping::{FieldMap, FieldPath};
use crate::spill::{self, part_of, Column, Writer};
use crate::store::{RecordView, Role, RoleSet, RoleValue};
use crate::time::{self, Timestamp, Validity};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// The roles selection reads.
pub const ROLES: [&str; 8] = [
    "concept",
    "recorded_at",
    "expired_at",
    "valid_from",
    "valid_to",
    "record_id",
    "release_to",
    "supersedes",
];

/// The roles selection reads, numbered in a command's [`RoleSet`] once.
#[derive(Debug, Clone, Copy)]
pub struct SelectRoles {
    concept: Role,
    recorded_at: Role,
    expired_at: Role,
    valid_from: Role,
    valid_to: Role,
    record_id: Role,
    release_to: Role,
    supersedes: Role,
}

impl SelectRoles {
    /// The roles as `set` numbers them (a role it lacks is read by name).
    pub fn of(set: &RoleSet) -> SelectRoles {
        SelectRoles::with(|name| set.role(name))
    }

    /// The roles read by name, for records read whole.
    pub fn by_name() -> SelectRoles {
        SelectRoles::with(Role::by_name)
    }

    fn with(role: impl Fn(&'static str) -> Role) -> SelectRoles {
        let [concept, recorded_at, expired_at, valid_from, valid_to, record_id, release_to, supersedes] =
            ROLES.map(role);
        SelectRoles {
            concept,
            recorded_at,
            expired_at,
            valid_from,
            valid_to,
            record_id,
            release_to,
            supersedes,
        }
    }

    pub fn record_id(&self) -> Role {
        self.record_id
    }

    pub fn supersedes(&self) -> Role {
        self.supersedes
    }
}

/// The roles [`judge`] reads for these criteria.
pub fn roles_for(criteria: &Criteria) -> Vec<&'static str> {
    let mut roles = Vec::new();
    if criteria.concept.is_some() {
        roles.push("concept");
    }
    if criteria.as_of.is_some() {
        roles.extend(["valid_from", "valid_to", "record_id"]);
    }
    if criteria.reader.is_some() {
        roles.push("release_to");
    }
    if criteria.known_at.is_some() {
        roles.extend(["recorded_at", "expired_at"]);
    }
    roles
}

/// The id a record is named by in supersedes: its record_id as Python prints it (`17`,
/// `D-101`), the same text `check` compares.
pub fn record_id(r: &SelectRoles, view: &RecordView) -> Option<String> {
    view.filled(r.record_id).map(|v| v.py_str())
}

/// A record's validity, read for selection. `None` when a date cannot be trusted: valid_from
/// missing or not a date, or valid_to present, not null and not a date. Such a record is never
/// in force (fail-closed: an unreadable end must not make a record open for ever). A missing
/// or null valid_to is open.
pub fn validity(r: &SelectRoles, view: &RecordView) -> Option<Validity> {
    let from = view.get(r.valid_from)?.parse_time().ok()?;
    let to = match view.get(r.valid_to) {
        None => None,
        Some(v) if v.is_null() => None,
        Some(v) => Some(v.parse_time().ok()?),
    };
    Some(Validity {
        from: Some(from),
        to,
    })
}

/// A record's valid_from as a superseder: `None` when missing or not a date (such a record
/// has not begun, so it ends nothing).
fn valid_from(r: &SelectRoles, view: &RecordView) -> Option<Timestamp> {
    view.get(r.valid_from).and_then(|v| v.parse_time().ok())
}

/// Who supersedes whom, across a whole store, as selection needs it: which records a record
/// that supersedes them has ended by the `--as-of` date (one bit a record, by its place among
/// the store's records), and, with the map's supersedes inverse, the ids each record
/// supersedes (for writing its supersedes field). Built from forward pointers (`supersedes:
/// "D-801"` or a list) and from inverse ones (`--map supersedes=~replaced_by`: the old record
/// names its successors).
#[derive(Debug, Default)]
pub struct Supersession {
    /// Bit `n`: the store's `n`-th record is ended by a record that supersedes it.
    ended: Vec<u64>,
    /// superseder id → the ids it supersedes (kept for writing the supersedes field when the
    /// map has it inverse; forward pointers are written from the record itself)
    supersedes: HashMap<String, Vec<String>>,
}

/// Builds a [`Supersession`] from one pass over the store, every record in store order.
///
/// Memory: what a join of ids with pointers needs, in `spill::Column`s past their share of
/// the budget: the id and place of each record that would be kept unless ended, and the
/// text of each id a pointer ends by the date (with an inverse map: the ids of the records
/// begun by the date, and each successor with the old record naming it). They are matched a
/// partition at a time in [`SupersessionBuilder::finish`]; what stays in memory is a bit a
/// record, and with an inverse map the ids each record supersedes.
#[derive(Debug)]
pub struct SupersessionBuilder {
    roles: SelectRoles,
    criteria: Criteria,
    inverse: Option<FieldPath>,
    /// Records observed so far.
    records: u64,
    /// (place, id) of each record kept unless ended, by the partition of its id.
    ids: Column,
    /// Ids ended by the date (a pointer's target), by their partition.
    ended: Column,
    /// Inverse maps only: ids of records begun by the date; (successor, old id) pairs.
    begun: Column,
    successors: Column,
    supersedes: HashMap<String, Vec<String>>,
}

impl SupersessionBuilder {
    /// For records read through `map`, their roles numbered as `roles`, judged against
    /// `criteria` (whose `as_of` is the date); `memory`: bytes its tables hold before they go
    /// to the temporary file.
    pub fn new(map: &FieldMap, roles: SelectRoles, criteria: &Criteria, memory: usize) -> Self {
        // a quarter of the memory for the records' ids, less for the pointers (a few per ten
        // records), the rest for the reader and the caller's own tables
        let share = |part: usize| (memory / part).max(4 << 10);
        SupersessionBuilder {
            roles,
            criteria: criteria.clone(),
            inverse: map.inverse_path("supersedes"),
            records: 0,
            ids: Column::new(share(4)),
            ended: Column::new(share(16)),
            begun: Column::new(share(32)),
            successors: Column::new(share(32)),
            supersedes: HashMap::new(),
        }
    }

    /// The next record of the store. `superseding`: its pointers count (a record the store
    /// did not know yet at `--known-at` supersedes nothing).
    pub fn observe(&mut self, view: &RecordView, superseding: bool) {
        let n = self.records;
        self.records += 1;
        let r = &self.roles;
        let Some(at) = self.criteria.as_of else {
            // no date: only an inverse map's supersedes fields are wanted
            if let (Some(path), true) = (&self.inverse, superseding) {
                if let (Some(id), Some(v)) = (record_id(r, view), view.path(path)) {
                    for s in sorted_ids(&v) {
                        self.supersedes.entry(s).or_default().push(id.clone());
                    }
                }
            }
            return;
        };
        let id = record_id(r, view);
        if let Some(id) = &id {
            if matches!(
                judge(&self.criteria, r, view),
                Verdict::Keep | Verdict::Withheld
            ) {
                let mut w = Writer::default();
                w.num(n).text(id);
                self.ids.push(part_of(id), &w.0);
            }
        }
        if !superseding {
            return;
        }
        let begun = valid_from(r, view).is_some_and(|from| time::begun(&from, &at));
        match &self.inverse {
            None => {
                let Some(v) = view.get(r.supersedes).filter(|_| begun) else {
                    return;
                };
                for target in sorted_ids(&v) {
                    let mut w = Writer::default();
                    w.text(&target);
                    self.ended.push(part_of(&target), &w.0);
                }
            }
            Some(path) => {
                let Some(id) = id else {
                    return;
                };
                if begun {
                    let mut w = Writer::default();
                    w.text(&id);
                    self.begun.push(part_of(&id), &w.0);
                }
                if let Some(v) = view.path(path) {
                    for s in sorted_ids(&v) {
                        let mut w = Writer::default();
                        w.text(&s).text(&id);
                        self.successors.push(part_of(&s), &w.0);
                        self.supersedes.entry(s).or_default().push(id.clone());
                    }
                }
            }
        }
    }

    /// Match the ids with the pointers, a partition at a time (on every core). Fails only
    /// when the temporary file cannot be read back.
    pub fn finish(mut self) -> Result<Supersession> {
        if self.inverse.is_some() {
            // an old record is ended when a successor it names has begun
            let ended = spill::join(&self.begun, &self.successors, |begun, r| {
                let (s, old) = (r.text()?, r.text()?);
                Some(begun.contains(s).then(|| old.to_string()))
            })
            .map_err(unreadable)?;
            for id in &ended {
                let mut w = Writer::default();
                w.text(id);
                self.ended.push(part_of(id), &w.0);
            }
        }
        let places = spill::join(&self.ended, &self.ids, |ended, r| {
            let (n, id) = (r.num()?, r.text()?);
            Some(ended.contains(id).then_some(n))
        })
        .map_err(unreadable)?;
        let mut bits = vec![0u64; (self.records as usize).div_ceil(64)];
        for n in places {
            bits[(n / 64) as usize] |= 1 << (n % 64);
        }
        Ok(Supersession {
            ended: bits,
            supersedes: self.supersedes,
        })
    }
}

/// The temporary file could not be read back (or held what was not written).
fn unreadable(e: impl std::fmt::Display) -> VercyError {
    VercyError::Read {
        path: "the selection's temporary file".to_string(),
        reason: e.to_string(),
    }
}

fn sorted_ids(value: &RoleValue) -> Vec<String> {
    let mut set = HashSet::new();
    value.collect_ids(&mut set);
    let mut ids: Vec<String> = set.into_iter().collect();
    ids.sort();
    ids
}

impl Supersession {
    /// The store's `n`-th record (from 0, in store order) is ended by a record that
    /// supersedes it, by the date the supersession was built for.
    pub fn ended(&self, n: usize) -> bool {
        self.ended
            .get(n / 64)
            .is_some_and(|word| word >> (n % 64) & 1 == 1)
    }

    /// With an inverse map: the ids a record supersedes, derived from the pointers of the old
    /// records (empty when none, or when the map is forward).
    pub fn superseded_by_record(&self, id: &str) -> &[String] {
        self.supersedes.get(id).map_or(&[], Vec::as_slice)
    }
}

/// In force on `at` (DESIGN.md, "In force on a date") but for supersession: `None` when the
/// record's dates cannot be read (see [`validity`]), which callers count and treat as not in
/// force. A record in force here is in force unless a record that supersedes it has begun by
/// `at` ([`Verdict::unless_ended`]).
pub fn covers(r: &SelectRoles, view: &RecordView, at: &Timestamp) -> Option<bool> {
    Some(validity(r, view)?.covers(at))
}

/// The record's concept is exactly `name` (a list of concepts: any of them).
pub fn holds_concept(r: &SelectRoles, view: &RecordView, name: &str) -> bool {
    match view.get(r.concept) {
        Some(RoleValue::Text(s)) => !crate::record::is_blank(&s) && s == name,
        Some(RoleValue::Json(v)) => concept_is(Some(&v), name),
        None => false,
    }
}

/// A concept's value is exactly `name` (a list of concepts: any of them).
fn concept_is(value: Option<&Value>, name: &str) -> bool {
    match value {
        Some(Value::Array(items)) => items.iter().any(|i| concept_is(Some(i), name)),
        Some(v) if crate::record::is_filled(v) => crate::record::py_str(v) == name,
        _ => false,
    }
}

/// Known at `t` (transaction time, `--known-at`): the record was recorded at or before `t`
/// (its `recorded_at` role) and had not expired by then (its `expired_at` role, absent or null:
/// not expired). Fail-closed: a record whose recorded_at is missing or not a date, or whose
/// expired_at is not a date, is not known to the store at `t`.
pub fn known_at(r: &SelectRoles, view: &RecordView, t: &Timestamp) -> bool {
    let recorded = view.get(r.recorded_at).and_then(|v| v.parse_time().ok());
    let expired = match view.get(r.expired_at) {
        None => Some(false),
        Some(v) if v.is_null() => Some(false),
        Some(v) => v.parse_time().ok().map(|e| time::begun(&e, t)),
    };
    recorded.is_some_and(|r| time::begun(&r, t)) && expired == Some(false)
}

/// The record's release_to names `party` exactly (see [`releases_to`]).
pub fn released_to(r: &SelectRoles, view: &RecordView, party: &str) -> bool {
    match view.get(r.release_to) {
        Some(RoleValue::Text(s)) => s == party,
        Some(RoleValue::Json(v)) => releases_to(Some(&v), party),
        None => false,
    }
}

/// release_to names `party` exactly: a string equal to it, or a list with a string item equal
/// to it. Anything else (missing, null, empty, a number, an object) names nobody.
pub fn releases_to(value: Option<&Value>, party: &str) -> bool {
    match value {
        Some(Value::String(s)) => s == party,
        Some(Value::Array(items)) => items.iter().any(|i| i.as_str() == Some(party)),
        _ => false,
    }
}

/// What selection asks for; `None` everywhere keeps every record.
#[derive(Debug, Clone, Default)]
pub struct Criteria {
    pub as_of: Option<Timestamp>,
    pub concept: Option<String>,
    pub reader: Option<String>,
    /// `--known-at`: only the records the store knew then (see [`known_at`]).
    pub known_at: Option<Timestamp>,
}

impl Criteria {
    /// No selection: every record is kept.
    pub fn is_empty(&self) -> bool {
        self.as_of.is_none()
            && self.concept.is_none()
            && self.reader.is_none()
            && self.known_at.is_none()
    }

    /// Selection needs the whole store before it can judge one record.
    pub fn needs_supersession(&self) -> bool {
        self.as_of.is_some()
    }
}

/// Why a record was left out (the first test it failed, in the order concept, transaction
/// time, date, reader),
/// or that it was kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Keep,
    OtherConcept,
    /// Not recorded yet, or expired, at `--known-at`.
    NotKnown,
    NotInForce,
    /// valid_from missing or not a date, or valid_to not a date: never in force.
    Undated,
    Withheld,
}

/// Judge one record against the criteria, but for supersession: with `criteria.as_of`, a
/// record kept (or withheld) here is not in force when a record that supersedes it has begun
/// by the date ([`Verdict::unless_ended`], from the whole store's [`Supersession`]).
pub fn judge(criteria: &Criteria, r: &SelectRoles, view: &RecordView) -> Verdict {
    if let Some(name) = &criteria.concept {
        if !holds_concept(r, view, name) {
            return Verdict::OtherConcept;
        }
    }
    if let Some(t) = &criteria.known_at {
        if !known_at(r, view, t) {
            return Verdict::NotKnown;
        }
    }
    if let Some(at) = &criteria.as_of {
        match covers(r, view, at) {
            None => return Verdict::Undated,
            Some(false) => return Verdict::NotInForce,
            Some(true) => {}
        }
    }
    if let Some(party) = &criteria.reader {
        if !released_to(r, view, party) {
            return Verdict::Withheld;
        }
    }
    Verdict::Keep
}

impl Verdict {
    /// The verdict once supersession is known: with `--as-of`, a record [`judge`] kept or
    /// withheld (its own dates cover the date) is not in force when `ended` (a record that
    /// supersedes it has begun by then); the date is tested before the reader.
    pub fn unless_ended(self, criteria: &Criteria, ended: bool) -> Verdict {
        match self {
            Verdict::Keep | Verdict::Withheld if ended && criteria.as_of.is_some() => {
                Verdict::NotInForce
            }
            verdict => verdict,
        }
    }
}

/// How many records each test left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub read: usize,
    pub kept: usize,
    pub other_concept: usize,
    pub not_known: usize,
    pub not_in_force: usize,
    pub undated: usize,
    pub withheld: usize,
}

impl Tally {
    pub fn count(&mut self, verdict: Verdict) {
        self.read += 1;
        match verdict {
            Verdict::Keep => self.kept += 1,
            Verdict::OtherConcept => self.other_concept += 1,
            Verdict::NotKnown => self.not_known += 1,
            Verdict::NotInForce => self.not_in_force += 1,
            Verdict::Undated => self.undated += 1,
            Verdict::Withheld => self.withheld += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Origin, Record};
    use crate::store::ViewPlan;
    use serde_json::json;

    fn rec(v: Value) -> Record {
        Record::new(v.as_object().unwrap().clone(), "", Origin::default())
    }

    fn ts(s: &str) -> Timestamp {
        time::parse(s).unwrap()
    }

    /// The supersession of `records` on `at`, its tables going to the temporary file past
    /// `memory` bytes.
    fn index(map: &FieldMap, records: &[Record], at: &Timestamp, memory: usize) -> Supersession {
        let plan = ViewPlan::fields(map);
        let criteria = Criteria {
            as_of: Some(*at),
            ..Criteria::default()
        };
        let mut b = SupersessionBuilder::new(map, SelectRoles::by_name(), &criteria, memory);
        records
            .iter()
            .for_each(|r| b.observe(&plan.view(r, true), true));
        b.finish().unwrap()
    }

    /// In force on `at`, each record of `records` read whole through `map` (`None`: its dates
    /// cannot be read), the same whatever the memory.
    fn in_force(map: &FieldMap, records: &[Record], at: &Timestamp) -> Vec<Option<bool>> {
        let plan = ViewPlan::fields(map);
        let of = |idx: &Supersession| -> Vec<Option<bool>> {
            records
                .iter()
                .enumerate()
                .map(|(n, r)| {
                    super::covers(&SelectRoles::by_name(), &plan.view(r, true), at)
                        .map(|covers| covers && !idx.ended(n))
                })
                .collect()
        };
        let in_memory = of(&index(map, records, at, 1 << 30));
        assert_eq!(
            of(&index(map, records, at, 1)),
            in_memory,
            "through the file"
        );
        in_memory
    }

    /// [`super::known_at`] of a record read whole through `map`.
    fn known_at(map: &FieldMap, r: &Record, t: &Timestamp) -> bool {
        let plan = ViewPlan::fields(map);
        super::known_at(&SelectRoles::by_name(), &plan.view(r, true), t)
    }

    /// [`super::judge`] of a record read whole through `map`.
    fn judge(c: &Criteria, map: &FieldMap, r: &Record) -> Verdict {
        let plan = ViewPlan::fields(map);
        super::judge(c, &SelectRoles::by_name(), &plan.view(r, true))
    }

    #[test]
    fn a_chain_hands_over_on_each_valid_from() {
        let map = FieldMap::identity();
        let store = [
            rec(json!({"record_id": "A", "valid_from": "2025-01-01", "valid_to": null})),
            rec(
                json!({"record_id": "B", "valid_from": "2026-06-01", "valid_to": null, "supersedes": "A"}),
            ),
            rec(
                json!({"record_id": "C", "valid_from": "2026-10-01", "valid_to": null, "supersedes": ["B"]}),
            ),
        ];
        let live = |d: &str| -> Vec<bool> {
            let live = in_force(&map, &store, &ts(d));
            live.into_iter().map(Option::unwrap).collect()
        };
        assert_eq!(live("2024-12-31"), [false, false, false]);
        assert_eq!(live("2026-05-31"), [true, false, false]);
        assert_eq!(live("2026-06-01"), [false, true, false]);
        assert_eq!(live("2026-09-30"), [false, true, false]);
        assert_eq!(live("2026-10-01"), [false, false, true]);
    }

    #[test]
    fn an_inverse_map_reads_successors_from_the_old_record() {
        let map = FieldMap::parse(&["supersedes=~replaced_by".into()]).unwrap();
        let store = [
            rec(
                json!({"record_id": "A", "valid_from": "2025-01-01", "valid_to": null, "replaced_by": "B"}),
            ),
            rec(json!({"record_id": "B", "valid_from": "2026-06-01", "valid_to": null})),
        ];
        assert_eq!(
            in_force(&map, &store, &ts("2026-05-31")),
            [Some(true), Some(false)]
        );
        assert_eq!(
            in_force(&map, &store, &ts("2026-06-01")),
            [Some(false), Some(true)]
        );
        let idx = index(&map, &store, &ts("2026-06-01"), 1);
        assert_eq!(idx.superseded_by_record("B"), ["A"]);
    }

    #[test]
    fn unreadable_dates_are_never_in_force() {
        let map = FieldMap::identity();
        let at = ts("2026-01-01");
        for r in [
            json!({"record_id": "x", "valid_to": null}),
            json!({"record_id": "x", "valid_from": null, "valid_to": null}),
            json!({"record_id": "x", "valid_from": "soon", "valid_to": null}),
            json!({"record_id": "x", "valid_from": "2025-01-01", "valid_to": "later"}),
            json!({"record_id": "x", "valid_from": "2025-01-01", "valid_to": ""}),
        ] {
            assert_eq!(in_force(&map, &[rec(r.clone())], &at), [None], "{r}");
        }
        let open = rec(json!({"record_id": "x", "valid_from": "2025-01-01"}));
        assert_eq!(in_force(&map, &[open], &at), [Some(true)]);
    }

    #[test]
    fn parties_compare_exactly_and_absence_is_never_permission() {
        assert!(releases_to(Some(&json!(["hr", "finance"])), "finance"));
        assert!(releases_to(Some(&json!("finance")), "finance"));
        assert!(releases_to(
            Some(&json!("finance, audit")),
            "finance, audit"
        ));
        assert!(!releases_to(Some(&json!("finance, audit")), "finance"));
        assert!(!releases_to(Some(&json!(["Finance"])), "finance"));
        assert!(!releases_to(Some(&json!(["finance "])), "finance"));
        assert!(!releases_to(Some(&json!(["*"])), "finance"));
        assert!(!releases_to(Some(&json!([])), "finance"));
        assert!(!releases_to(Some(&json!(null)), "finance"));
        assert!(!releases_to(Some(&json!({"finance": true})), "finance"));
        assert!(!releases_to(None, "finance"));
    }

    #[test]
    fn known_at_reads_transaction_time_and_fails_closed() {
        let map = FieldMap::parse(&["recorded_at=created_at".into()]).unwrap();
        let at = ts("2026-01-01");
        let known = |v: Value| known_at(&map, &rec(v), &at);
        assert!(known(json!({"created_at": "2025-12-31T23:00:00Z"})));
        assert!(known(
            json!({"created_at": "2026-01-01T23:00:00Z", "expired_at": null})
        ));
        assert!(!known(json!({"created_at": "2026-01-02"})));
        assert!(!known(
            json!({"created_at": "2025-01-01", "expired_at": "2025-06-01"})
        ));
        assert!(!known(
            json!({"created_at": "2025-01-01", "expired_at": "2026-01-01T08:00:00Z"})
        ));
        assert!(known(
            json!({"created_at": "2025-01-01", "expired_at": "2026-01-02"})
        ));
        assert!(
            !known(json!({"recorded_at": "2025-01-01"})),
            "the map reads created_at"
        );
        assert!(!known(json!({})));
        assert!(!known(json!({"created_at": "yesterday"})));
        assert!(!known(
            json!({"created_at": "2025-01-01", "expired_at": "never"})
        ));
    }

    #[test]
    fn flags_combine() {
        let map = FieldMap::identity();
        let r = rec(
            json!({"record_id": "A", "concept": "c", "valid_from": "2025-01-01",
            "valid_to": null, "release_to": ["x"]}),
        );
        let c = |concept: &str, reader: &str| Criteria {
            as_of: Some(ts("2025-06-01")),
            concept: Some(concept.into()),
            reader: Some(reader.into()),
            known_at: None,
        };
        assert_eq!(judge(&c("c", "x"), &map, &r), Verdict::Keep);
        assert_eq!(judge(&c("d", "x"), &map, &r), Verdict::OtherConcept);
        assert_eq!(judge(&c("c", "y"), &map, &r), Verdict::Withheld);
        let ended = |c: &Criteria, v: Verdict| v.unless_ended(c, true);
        assert_eq!(ended(&c("c", "x"), Verdict::Keep), Verdict::NotInForce);
        assert_eq!(
            ended(&c("c", "y"), Verdict::Withheld),
            Verdict::NotInForce,
            "the date is tested before the reader"
        );
        assert_eq!(
            ended(&c("d", "x"), Verdict::OtherConcept),
            Verdict::OtherConcept
        );
        let undated = Criteria::default();
        assert_eq!(ended(&undated, Verdict::Keep), Verdict::Keep, "no date");
    }
}
