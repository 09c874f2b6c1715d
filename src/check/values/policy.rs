//! One conflict policy per store, stated once: more than one policy (`value.policies`), the
//! policy repeated on every record (`value.policy_repeated`).

use super::super::warnings::{RecordList, Warnings};
use super::{Code, PackedFacts, ValueFacts, ValueRoles};
use crate::store::{RecordView, RoleValue};
use std::collections::HashSet;

/// The records that state a policy, and the hashes of the distinct policy texts (one hash per
/// distinct text, not the texts).
#[derive(Default)]
pub(super) struct Policy {
    records: RecordList,
    texts: HashSet<u64>,
}

/// Read the record's conflict policy, when it states one.
#[inline(always)]
pub(super) fn read<'a>(roles: &'a RecordView, r: &ValueRoles, facts: &mut ValueFacts<'a>) {
    facts.policy = roles
        .filled(r.conflict_policy)
        .filter(RoleValue::is_truthy)
        .map(|p| p.text());
}

impl Policy {
    /// Add one record's facts, in store order.
    #[inline(always)]
    pub(super) fn fold(&mut self, facts: &PackedFacts, name: &str) {
        if let Some(p) = &facts.policy {
            self.texts.insert(p.hash);
            self.records.push(name, facts.line);
        }
    }

    /// The warnings of a store of `records` records.
    pub(super) fn warnings(&self, records: usize, out: &mut Warnings) {
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
