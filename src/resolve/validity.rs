//! Step 1, validity at the as-of date (contract §3.1): a record outside its interval is
//! dropped (`expired`, which also covers one that has not begun yet); a record without
//! valid_from, or without a valid_to key, is `validity_unknown`: kept, flagged, and it loses
//! every tie. What is known still counts: a record whose valid_to key is missing but whose
//! valid_from is after the date has not begun, so it is expired, not unknown.

use crate::mapping::FieldMap;
use crate::record::Record;
use crate::time::{self, Timestamp};

/// A record's dates, read once.
#[derive(Debug, Clone, Copy)]
pub struct Dates {
    /// valid_from, when present and a date.
    pub from: Option<Timestamp>,
    /// valid_to: `Some(None)` open (null), `Some(Some(t))` a date, `None` unknown (no key, or
    /// not a date).
    pub to: Option<Option<Timestamp>>,
}

impl Dates {
    pub fn read(map: &FieldMap, record: &Record) -> Dates {
        let from = map
            .get("valid_from", &record.fields)
            .and_then(|v| time::parse_value(&v).ok());
        let to = match map.get("valid_to", &record.fields) {
            None => None,
            Some(v) if v.is_null() => Some(None),
            Some(v) => time::parse_value(&v).ok().map(Some),
        };
        Dates { from, to }
    }

    /// Nothing says when the record began, or whether it has ended.
    pub fn unknown(&self) -> bool {
        self.from.is_none() || self.to.is_none()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValidityVerdict {
    Valid,
    Unknown,
    Expired,
}

/// The record's validity on `at`.
pub fn judge(dates: &Dates, at: &Timestamp) -> ValidityVerdict {
    let not_begun = dates.from.is_some_and(|from| !time::begun(&from, at));
    let ended = matches!(dates.to, Some(Some(to)) if time::ended(&to, at));
    match (not_begun || ended, dates.unknown()) {
        (true, _) => ValidityVerdict::Expired,
        (false, true) => ValidityVerdict::Unknown,
        (false, false) => ValidityVerdict::Valid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Origin;
    use serde_json::{json, Value};

    fn verdict(v: Value, at: &str) -> ValidityVerdict {
        let r = Record::new(v.as_object().unwrap().clone(), "", Origin::default());
        judge(
            &Dates::read(&FieldMap::identity(), &r),
            &time::parse(at).unwrap(),
        )
    }

    #[test]
    fn intervals_are_inclusive_and_unknowns_are_kept() {
        let closed = json!({"valid_from": "2025-01-01", "valid_to": "2025-12-31"});
        assert_eq!(
            verdict(closed.clone(), "2024-12-31"),
            ValidityVerdict::Expired
        );
        assert_eq!(
            verdict(closed.clone(), "2025-01-01"),
            ValidityVerdict::Valid
        );
        assert_eq!(
            verdict(closed.clone(), "2025-12-31"),
            ValidityVerdict::Valid
        );
        assert_eq!(verdict(closed, "2026-01-01"), ValidityVerdict::Expired);
        let open = json!({"valid_from": "2025-01-01", "valid_to": null});
        assert_eq!(verdict(open, "2099-01-01"), ValidityVerdict::Valid);
        assert_eq!(
            verdict(json!({"valid_from": "2025-01-01"}), "2026-01-01"),
            ValidityVerdict::Unknown
        );
        assert_eq!(
            verdict(json!({"valid_to": null}), "2026-01-01"),
            ValidityVerdict::Unknown
        );
        assert_eq!(
            verdict(
                json!({"valid_from": "soon", "valid_to": null}),
                "2026-01-01"
            ),
            ValidityVerdict::Unknown
        );
        // what is known still counts
        assert_eq!(
            verdict(json!({"valid_from": "2027-01-01"}), "2026-01-01"),
            ValidityVerdict::Expired
        );
        assert_eq!(
            verdict(json!({"valid_to": "2025-01-01"}), "2026-01-01"),
            ValidityVerdict::Expired
        );
    }
}
