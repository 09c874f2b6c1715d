//! Dates and intervals: a valid_from or valid_to that is not a date (`value.date`), and
//! valid_to before valid_from (`value.interval`).

use super::super::warnings::{RecordList, Warnings};
use super::{Code, PackedFacts, ValueFacts, ValueRoles};
use crate::store::RecordView;
use crate::time::Timestamp;

/// The records with a date that does not parse (twice when both do not) and with an inverted
/// interval: each list holds a record at most twice, so it is linear in the store
/// (`RecordList`: the name's bytes and 12 more a record).
#[derive(Default)]
pub(super) struct Dates {
    bad_dates: RecordList,
    bad_date_example: Option<String>,
    inverted: RecordList,
}

/// Read one record's valid_from and valid_to into `facts`, and give them parsed (`None`:
/// absent or not a date) to the checks that compare other times with them.
#[inline(always)]
pub(super) fn read(
    roles: &RecordView,
    r: &ValueRoles,
    facts: &mut ValueFacts<'_>,
) -> (Option<Timestamp>, Option<Timestamp>) {
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
    (from, to)
}

impl Dates {
    /// Add one record's facts, in store order.
    #[inline(always)]
    pub(super) fn fold(&mut self, facts: &PackedFacts, name: &str) {
        let line = facts.line;
        for _ in 0..facts.bad_dates {
            self.bad_dates.push(name, line);
        }
        if facts.inverted {
            self.inverted.push(name, line);
        }
    }

    /// Keep the first message of a date that does not parse.
    pub(super) fn example(&mut self, example: &Option<String>) {
        if self.bad_date_example.is_none() {
            self.bad_date_example = example.clone();
        }
    }

    pub(super) fn warnings(&self, out: &mut Warnings) {
        if !self.bad_dates.is_empty() {
            let example = self.bad_date_example.clone().unwrap_or_default();
            let message = format!("dates that do not parse (first: {example})");
            out.push(Code::Date, &message, "", self.bad_dates.iter());
        }
        if !self.inverted.is_empty() {
            let message = "valid_to is before valid_from";
            out.push(Code::Interval, message, "", self.inverted.iter());
        }
    }
}
