//! Two records with one record_id (`value.duplicate_id`): the index matches every id up with
//! the first of its text, and this check names the repeats.

use super::super::index::Index;
use super::super::warnings::{Code, Spec, Warnings};
use super::ValueCheck;

const DUPLICATE_ID: Code = Code::new(&Spec {
    code: "value.duplicate_id",
    field: "record_id",
    caps_level: 0,
    meaning: "two records with the same record_id",
    many: None,
    words: None,
});

/// One warning naming every record whose id repeats an earlier one: nothing of its own to
/// read or keep.
#[derive(Default)]
pub(super) struct DuplicateIds;

impl ValueCheck for DuplicateIds {
    const CODES: &'static [Code] = &[DUPLICATE_ID];

    type Facts = ();

    fn warnings(&mut self, index: &mut Index, out: &mut Warnings) {
        // a repeat at a time: each name is built and kept compact, not gathered as Strings
        let mut repeats = index.repeats().peekable();
        if repeats.peek().is_some() {
            let message = "record_id used by more than one record (each repeat is named)";
            // an id's index is its record's `who`
            out.push_named(DUPLICATE_ID, message, "", repeats);
        }
    }
}
