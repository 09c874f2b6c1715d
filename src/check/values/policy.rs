//! One conflict policy per store, stated once: more than one policy (`value.policies`), the
//! policy repeated on every record (`value.policy_repeated`).

use super::super::warnings::{RecordList, Warnings};
use super::super::table;
use super::{Code, Folding, Reading, Settled, ValueCheck};
use crate::store::RoleValue;
use std::collections::HashSet;

/// The records that state a policy, and the hashes of the distinct policy texts (one hash per
/// distinct text, not the texts).
#[derive(Default)]
pub(super) struct Policy {
    records: RecordList,
    texts: HashSet<u64>,
}

impl ValueCheck for Policy {
    /// The hash of the record's conflict policy, when it states one.
    type Facts = Option<u64>;

    #[inline(always)]
    fn read(record: &Reading) -> Option<u64> {
        record
            .view
            .filled(record.roles.conflict_policy)
            .filter(RoleValue::is_truthy)
            .map(|p| table::hash(&p.text()))
    }

    #[inline(always)]
    fn fold(&mut self, policy: &Option<u64>, record: &mut Folding) {
        if let Some(hash) = *policy {
            self.texts.insert(hash);
            self.records.push(record.name, record.line);
        }
    }

    fn warnings(&mut self, store: &mut Settled, out: &mut Warnings) {
        let records = store.records;
        let distinct = self.texts.len();
        if distinct > 1 {
            let message = format!("{distinct} different conflict policies: a store states one");
            out.push(Code::Policies, &message, "", self.records.iter());
        } else if records > 1 && self.records.len() == records {
            let message =
                "the conflict policy is repeated on every record: state it once per store";
            let first = self.records.iter().take(1);
            out.push(Code::PolicyRepeated, message, "", first);
        }
    }
}
