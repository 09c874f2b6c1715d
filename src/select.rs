//! Selection: which records a question needs. Three tests, combined with AND:
//!
//! - **in force on a date** (`--as-of`): [`time::in_force`], the one rule `check` shares, fed
//!   with each record's validity and the valid_from of every record that supersedes it. The
//!   superseders are only known once the whole store has been read, so a [`Supersession`]
//!   index (record ids only, linear in the store) is built in a first pass;
//! - **concept** (`--concept`): the record's concept is exactly the name;
//! - **reader** (`--reader`): release_to names the party exactly. Fail-closed: a record
//!   without release_to, with null, an empty list or anything but a string or a list of
//!   strings is withheld. No case folding, no wildcard, no splitting of a name on commas: a
//!   bare string is one party.
//!
//! Every role is read through the [`FieldMap`], so `--map` applies to selection too.

use crate::mapping::{FieldMap, FieldPath};
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

/// Who supersedes whom, across a whole store: for each superseded id, the valid_from of every
/// record that supersedes it. Built from forward pointers (`supersedes: "D-801"` or a list)
/// and from inverse ones (`--map supersedes=~replaced_by`: the old record names its
/// successors).
#[derive(Debug, Default)]
pub struct Supersession {
    /// superseded id → valid_from of each superseder
    ended_by: HashMap<String, Vec<Option<Timestamp>>>,
    /// superseder id → the ids it supersedes (kept for writing the supersedes field when the
    /// map has it inverse; forward pointers are written from the record itself)
    supersedes: HashMap<String, Vec<String>>,
}

/// Builds a [`Supersession`] from one pass over the store.
#[derive(Debug)]
pub struct SupersessionBuilder {
    roles: SelectRoles,
    inverse: Option<FieldPath>,
    index: Supersession,
    /// Inverse maps only: (old id, successor ids) and each id's valid_from.
    successors: Vec<(String, Vec<String>)>,
    from_of: HashMap<String, Vec<Option<Timestamp>>>,
}

impl SupersessionBuilder {
    /// For records read through `map`, their roles numbered as `roles`.
    pub fn new(map: &FieldMap, roles: SelectRoles) -> Self {
        SupersessionBuilder {
            roles,
            inverse: map.inverse_path("supersedes"),
            index: Supersession::default(),
            successors: Vec::new(),
            from_of: HashMap::new(),
        }
    }

    pub fn observe(&mut self, view: &RecordView) {
        let r = &self.roles;
        let from = valid_from(r, view);
        match &self.inverse {
            None => {
                let Some(v) = view.get(r.supersedes) else {
                    return;
                };
                for target in sorted_ids(&v) {
                    self.index.ended_by.entry(target).or_default().push(from);
                }
            }
            Some(path) => {
                if let Some(id) = record_id(r, view) {
                    if let Some(v) = view.path(path) {
                        let next = sorted_ids(&v);
                        if !next.is_empty() {
                            self.successors.push((id.clone(), next));
                        }
                    }
                    self.from_of.entry(id).or_default().push(from);
                }
            }
        }
    }

    pub fn finish(mut self) -> Supersession {
        for (old, successors) in std::mem::take(&mut self.successors) {
            for s in successors {
                // a successor that is not in the store has not begun: it ends nothing
                let froms = self.from_of.get(&s).cloned().unwrap_or_default();
                self.index
                    .ended_by
                    .entry(old.clone())
                    .or_default()
                    .extend(froms);
                self.index
                    .supersedes
                    .entry(s)
                    .or_default()
                    .push(old.clone());
            }
        }
        self.index
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
    /// The valid_from of every record that supersedes `id` (empty when none does).
    pub fn superseders_from(&self, id: &str) -> &[Option<Timestamp>] {
        self.ended_by.get(id).map_or(&[], Vec::as_slice)
    }

    /// With an inverse map: the ids a record supersedes, derived from the pointers of the old
    /// records (empty when none, or when the map is forward).
    pub fn superseded_by_record(&self, id: &str) -> &[String] {
        self.supersedes.get(id).map_or(&[], Vec::as_slice)
    }
}

/// In force on `at` (DESIGN.md, "In force on a date"): `None` when the record's dates cannot be
/// read (see [`validity`]), which callers count and treat as not in force.
pub fn in_force(
    r: &SelectRoles,
    view: &RecordView,
    supersession: &Supersession,
    at: &Timestamp,
) -> Option<bool> {
    let validity = validity(r, view)?;
    let ended = record_id(r, view)
        .map(|id| supersession.superseders_from(&id))
        .unwrap_or(&[]);
    Some(time::in_force(&validity, ended, at))
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

/// Judge one record against the criteria. `supersession` must cover the whole store when
/// `criteria.as_of` is set.
pub fn judge(
    criteria: &Criteria,
    r: &SelectRoles,
    supersession: &Supersession,
    view: &RecordView,
) -> Verdict {
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
        match in_force(r, view, supersession, at) {
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

    fn index(map: &FieldMap, records: &[Record]) -> Supersession {
        let plan = ViewPlan::fields(map);
        let mut b = SupersessionBuilder::new(map, SelectRoles::by_name());
        records.iter().for_each(|r| b.observe(&plan.view(r, true)));
        b.finish()
    }

    /// [`super::in_force`] of a record read whole through `map`.
    fn in_force(map: &FieldMap, r: &Record, idx: &Supersession, at: &Timestamp) -> Option<bool> {
        let plan = ViewPlan::fields(map);
        super::in_force(&SelectRoles::by_name(), &plan.view(r, true), idx, at)
    }

    /// [`super::known_at`] of a record read whole through `map`.
    fn known_at(map: &FieldMap, r: &Record, t: &Timestamp) -> bool {
        let plan = ViewPlan::fields(map);
        super::known_at(&SelectRoles::by_name(), &plan.view(r, true), t)
    }

    /// [`super::judge`] of a record read whole through `map`.
    fn judge(c: &Criteria, map: &FieldMap, idx: &Supersession, r: &Record) -> Verdict {
        let plan = ViewPlan::fields(map);
        super::judge(c, &SelectRoles::by_name(), idx, &plan.view(r, true))
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
        let idx = index(&map, &store);
        let live = |d: &str| -> Vec<bool> {
            store
                .iter()
                .map(|r| in_force(&map, r, &idx, &ts(d)).unwrap())
                .collect()
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
        let idx = index(&map, &store);
        assert!(in_force(&map, &store[0], &idx, &ts("2026-05-31")).unwrap());
        assert!(!in_force(&map, &store[0], &idx, &ts("2026-06-01")).unwrap());
        assert!(in_force(&map, &store[1], &idx, &ts("2026-06-01")).unwrap());
        assert_eq!(idx.superseded_by_record("B"), ["A"]);
    }

    #[test]
    fn unreadable_dates_are_never_in_force() {
        let map = FieldMap::identity();
        let idx = Supersession::default();
        let at = ts("2026-01-01");
        for r in [
            json!({"record_id": "x", "valid_to": null}),
            json!({"record_id": "x", "valid_from": null, "valid_to": null}),
            json!({"record_id": "x", "valid_from": "soon", "valid_to": null}),
            json!({"record_id": "x", "valid_from": "2025-01-01", "valid_to": "later"}),
            json!({"record_id": "x", "valid_from": "2025-01-01", "valid_to": ""}),
        ] {
            assert_eq!(in_force(&map, &rec(r.clone()), &idx, &at), None, "{r}");
        }
        let open = rec(json!({"record_id": "x", "valid_from": "2025-01-01"}));
        assert_eq!(in_force(&map, &open, &idx, &at), Some(true));
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
        let idx = Supersession::default();
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
        assert_eq!(judge(&c("c", "x"), &map, &idx, &r), Verdict::Keep);
        assert_eq!(judge(&c("d", "x"), &map, &idx, &r), Verdict::OtherConcept);
        assert_eq!(judge(&c("c", "y"), &map, &idx, &r), Verdict::Withheld);
    }
}
