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

use crate::check::rules::collect_ids;
use crate::mapping::FieldMap;
use crate::record::{is_filled, py_str, Record};
use crate::time::{self, Timestamp, Validity};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// The id a record is named by in supersedes: its record_id as Python prints it (`17`,
/// `D-101`), the same text `check` compares.
pub fn record_id(map: &FieldMap, record: &Record) -> Option<String> {
    map.get("record_id", &record.fields)
        .filter(|v| is_filled(v))
        .map(|v| py_str(&v))
}

/// A record's validity, read for selection. `None` when a date cannot be trusted: valid_from
/// missing or not a date, or valid_to present, not null and not a date. Such a record is never
/// in force (fail-closed: an unreadable end must not make a record open for ever). A missing
/// or null valid_to is open.
pub fn validity(map: &FieldMap, record: &Record) -> Option<Validity> {
    let from = time::parse_value(&*map.get("valid_from", &record.fields)?).ok()?;
    let to = match map.get("valid_to", &record.fields) {
        None => None,
        Some(v) if v.is_null() => None,
        Some(v) => Some(time::parse_value(&v).ok()?),
    };
    Some(Validity {
        from: Some(from),
        to,
    })
}

/// A record's valid_from as a superseder: `None` when missing or not a date (such a record
/// has not begun, so it ends nothing).
fn valid_from(map: &FieldMap, record: &Record) -> Option<Timestamp> {
    map.get("valid_from", &record.fields)
        .and_then(|v| time::parse_value(&v).ok())
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
    map: FieldMap,
    inverse: Option<crate::mapping::FieldPath>,
    index: Supersession,
    /// Inverse maps only: (old id, successor ids) and each id's valid_from.
    successors: Vec<(String, Vec<String>)>,
    from_of: HashMap<String, Vec<Option<Timestamp>>>,
}

impl SupersessionBuilder {
    pub fn new(map: &FieldMap) -> Self {
        SupersessionBuilder {
            map: map.clone(),
            inverse: map.inverse_path("supersedes"),
            index: Supersession::default(),
            successors: Vec::new(),
            from_of: HashMap::new(),
        }
    }

    pub fn observe(&mut self, record: &Record) {
        let from = valid_from(&self.map, record);
        let id = record_id(&self.map, record);
        match &self.inverse {
            None => {
                let Some(v) = self.map.get("supersedes", &record.fields) else {
                    return;
                };
                for target in sorted_ids(&v) {
                    self.index.ended_by.entry(target).or_default().push(from);
                }
            }
            Some(path) => {
                if let Some(id) = &id {
                    self.from_of.entry(id.clone()).or_default().push(from);
                    if let Some(v) = path.get(&record.fields) {
                        let next = sorted_ids(&v);
                        if !next.is_empty() {
                            self.successors.push((id.clone(), next));
                        }
                    }
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

fn sorted_ids(value: &Value) -> Vec<String> {
    let mut set = HashSet::new();
    collect_ids(value, &mut set);
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
    map: &FieldMap,
    record: &Record,
    supersession: &Supersession,
    at: &Timestamp,
) -> Option<bool> {
    let validity = validity(map, record)?;
    let ended = record_id(map, record)
        .map(|id| supersession.superseders_from(&id))
        .unwrap_or(&[]);
    Some(time::in_force(&validity, ended, at))
}

/// The record's concept is exactly `name` (a list of concepts: any of them).
pub fn holds_concept(value: Option<&Value>, name: &str) -> bool {
    match value {
        Some(Value::Array(items)) => items.iter().any(|i| holds_concept(Some(i), name)),
        Some(v) if is_filled(v) => py_str(v) == name,
        _ => false,
    }
}

/// Known at `t` (transaction time, `--known-at`): the record was recorded at or before `t`
/// (its `recorded_at` role) and had not expired by then (its `expired_at` role, absent or null:
/// not expired). Fail-closed: a record whose recorded_at is missing or not a date, or whose
/// expired_at is not a date, is not known to the store at `t`.
pub fn known_at(map: &FieldMap, record: &Record, t: &Timestamp) -> bool {
    let recorded = map
        .get("recorded_at", &record.fields)
        .and_then(|v| time::parse_value(&v).ok());
    let expired = match map.get("expired_at", &record.fields) {
        None => Some(false),
        Some(v) if v.is_null() => Some(false),
        Some(v) => time::parse_value(&v).ok().map(|e| time::begun(&e, t)),
    };
    recorded.is_some_and(|r| time::begun(&r, t)) && expired == Some(false)
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
    map: &FieldMap,
    supersession: &Supersession,
    record: &Record,
) -> Verdict {
    if let Some(name) = &criteria.concept {
        if !holds_concept(map.get("concept", &record.fields).as_deref(), name) {
            return Verdict::OtherConcept;
        }
    }
    if let Some(t) = &criteria.known_at {
        if !known_at(map, record, t) {
            return Verdict::NotKnown;
        }
    }
    if let Some(at) = &criteria.as_of {
        match in_force(map, record, supersession, at) {
            None => return Verdict::Undated,
            Some(false) => return Verdict::NotInForce,
            Some(true) => {}
        }
    }
    if let Some(party) = &criteria.reader {
        if !releases_to(map.get("release_to", &record.fields).as_deref(), party) {
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
    use crate::record::Origin;
    use serde_json::json;

    fn rec(v: Value) -> Record {
        Record::new(v.as_object().unwrap().clone(), "", Origin::default())
    }

    fn ts(s: &str) -> Timestamp {
        time::parse(s).unwrap()
    }

    fn index(map: &FieldMap, records: &[Record]) -> Supersession {
        let mut b = SupersessionBuilder::new(map);
        records.iter().for_each(|r| b.observe(r));
        b.finish()
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
