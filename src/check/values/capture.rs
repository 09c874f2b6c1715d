//! Validity time is not capture time: valid_from equal to the capture timestamp on most
//! records (`value.capture_time`).

use super::super::index::{Folding, Index, Reading};
use super::super::warnings::{Code, Spec, Warnings};
use super::ValueCheck;

const CAPTURE_TIME: Code = Code::new(&Spec {
    code: "value.capture_time",
    field: "valid_from",
    caps_level: 0,
    meaning: "valid_from equal to the capture timestamp on most records",
    many: None,
    words: None,
});

/// Keys where stores keep the capture (write) time of a record.
pub const CAPTURE_KEYS: [&str; 5] = [
    "created_at",
    "captured_at",
    "ingested_at",
    "recorded_at",
    "inserted_at",
];

/// The records whose valid_from equals their capture time, by `who` (once each: linear in the
/// store, 4 bytes a record), and how many records have a capture time at all.
#[derive(Default)]
pub(super) struct Capture {
    equal: Vec<u32>,
    known: usize,
}

impl ValueCheck for Capture {
    const CODES: &'static [Code] = &[CAPTURE_TIME];
    /// A capture timestamp was found: whether it equals valid_from.
    type Facts = Option<bool>;

    #[inline(always)]
    fn read(record: &Reading) -> Option<bool> {
        let from = record.from()?;
        let captured = CAPTURE_KEYS
            .iter()
            .find_map(|k| record.view.literal_time(k).and_then(Result::ok))?;
        Some(captured.nanos == from.nanos)
    }

    #[inline(always)]
    fn fold(&mut self, equal: &Option<bool>, record: &mut Folding) {
        if let Some(equal) = *equal {
            self.known += 1;
            if equal {
                self.equal.push(record.who());
            }
        }
    }

    fn warnings(&mut self, index: &mut Index, out: &mut Warnings) {
        let records = index.records();
        if self.known > 0 && self.equal.len() * 2 > records {
            let message = format!(
                "valid_from equals the capture timestamp on {} of {} records: validity time is when the statement became true, not when it was written",
                self.equal.len(),
                records
            );
            let equal = std::mem::take(&mut self.equal);
            out.push_named(CAPTURE_TIME, &message, "", equal);
        }
    }
}
