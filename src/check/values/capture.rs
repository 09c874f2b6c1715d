//! Validity time is not capture time: valid_from equal to the capture timestamp on most
//! records (`value.capture_time`).

use super::super::warnings::{RecordList, Warnings};
use super::{Code, PackedFacts, ValueFacts};
use crate::store::RecordView;
use crate::time::Timestamp;

/// Keys where stores keep the capture (write) time of a record.
pub const CAPTURE_KEYS: [&str; 5] = [
    "created_at",
    "captured_at",
    "ingested_at",
    "recorded_at",
    "inserted_at",
];

/// The records whose valid_from equals their capture time (once each: linear in the store),
/// and how many records have a capture time at all.
#[derive(Default)]
pub(super) struct Capture {
    equal: RecordList,
    known: usize,
}

/// Read whether the record's capture time, when it has one, equals `from` (its valid_from).
#[inline(always)]
pub(super) fn read(roles: &RecordView, from: Option<Timestamp>, facts: &mut ValueFacts<'_>) {
    if let Some(f) = from {
        if let Some(captured) = CAPTURE_KEYS
            .iter()
            .find_map(|k| roles.literal_time(k).and_then(Result::ok))
        {
            facts.capture_equal = Some(captured.nanos == f.nanos);
        }
    }
}

impl Capture {
    /// Add one record's facts, in store order.
    #[inline(always)]
    pub(super) fn fold(&mut self, facts: &PackedFacts, name: &str) {
        if let Some(equal) = facts.capture_equal {
            self.known += 1;
            if equal {
                self.equal.push(name, facts.line);
            }
        }
    }

    /// The warning, when more than half of the store's `records` have valid_from equal to
    /// their capture time.
    pub(super) fn warnings(&self, records: usize, out: &mut Warnings) {
        if self.known > 0 && self.equal.len() * 2 > records {
            let message = format!(
                "valid_from equals the capture timestamp on {} of {} records: validity time is when the statement became true, not when it was written",
                self.equal.len(),
                records
            );
            out.push(Code::CaptureTime, &message, "", self.equal.iter());
        }
    }
}
