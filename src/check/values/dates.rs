//! Dates and intervals: a valid_from or valid_to that is not a date (`value.date`), and
//! valid_to before valid_from (`value.interval`).

use super::super::index::{Folding, Index, Reading};
use super::super::warnings::{Code, Spec, Warnings};
use super::ValueCheck;

const DATE: Code = Code::new(&Spec {
    code: "value.date",
    field: "valid_from",
    caps_level: 0,
    meaning: "a valid_from or valid_to that is not a date",
    many: None,
    words: None,
});

const INTERVAL: Code = Code::new(&Spec {
    code: "value.interval",
    field: "valid_to",
    caps_level: 0,
    meaning: "valid_to before valid_from",
    many: None,
    words: None,
});

/// The records with a date that does not parse (twice when both do not) and with an inverted
/// interval, by `who`: each list holds a record at most twice, so it is linear in the store
/// (4 bytes a record: a store of UUIDs whose dates all fail held 96 bytes a record as text,
/// and as much again in the warning's copy).
#[derive(Default)]
pub(super) struct Dates {
    bad_dates: Vec<u32>,
    bad_date_example: Option<String>,
    inverted: Vec<u32>,
}

/// What a record's dates come to.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct DateFacts {
    /// How many of valid_from / valid_to do not parse ...
    bad: u8,
    /// ... and the first one's message.
    example: Option<Box<str>>,
    inverted: bool,
}

impl ValueCheck for Dates {
    const CODES: &'static [Code] = &[DATE, INTERVAL];
    type Facts = DateFacts;

    #[inline(always)]
    fn read(record: &Reading) -> DateFacts {
        let r = record.roles;
        let mut facts = DateFacts::default();
        for (role, date) in [
            (r.valid_from, &record.valid_from),
            (r.valid_to, &record.valid_to),
        ] {
            if let Some(Err(e)) = date {
                if facts.example.is_none() {
                    facts.example = Some(format!("{}: {e}", role.name).into());
                }
                facts.bad += 1;
            }
        }
        if let (Some(f), Some(t)) = (record.from(), record.to()) {
            facts.inverted = t.end() < f.start();
        }
        facts
    }

    #[inline(always)]
    fn fold(&mut self, facts: &DateFacts, record: &mut Folding) {
        if self.bad_date_example.is_none() {
            self.bad_date_example = facts.example.as_deref().map(str::to_string);
        }
        for _ in 0..facts.bad {
            self.bad_dates.push(record.who());
        }
        if facts.inverted {
            self.inverted.push(record.who());
        }
    }

    fn warnings(&mut self, _index: &mut Index, out: &mut Warnings) {
        if !self.bad_dates.is_empty() {
            let example = self.bad_date_example.clone().unwrap_or_default();
            let message = format!("dates that do not parse (first: {example})");
            let bad_dates = std::mem::take(&mut self.bad_dates);
            out.push_named(DATE, &message, "", bad_dates);
        }
        if !self.inverted.is_empty() {
            let message = "valid_to is before valid_from";
            let inverted = std::mem::take(&mut self.inverted);
            out.push_named(INTERVAL, message, "", inverted);
        }
    }
}
