//! One conflict policy per store, stated once: more than one policy (`value.policies`), the
//! policy repeated on every record (`value.policy_repeated`).

use super::super::index::{Folding, Index, Reading};
use super::super::warnings::{Code, Spec, Warnings};
use super::super::table;
use super::ValueCheck;
use crate::store::RoleValue;
use std::collections::HashSet;

const POLICIES: Code = Code::new(&Spec {
    code: "value.policies",
    field: "conflict_policy",
    caps_level: 1,
    meaning: "more than one conflict policy in the store",
    many: None,
    words: None,
});

const POLICY_REPEATED: Code = Code::new(&Spec {
    code: "value.policy_repeated",
    field: "conflict_policy",
    caps_level: 1,
    meaning: "the conflict policy repeated on every record",
    many: None,
    words: None,
});

/// Distinct policy texts counted in a table: a store states one, or a few. One that states a
/// policy of its own on each record has as many as records, and past this many each record's
/// hash is kept in a list instead, counted once sorted (8 bytes a record, not a table's 16
/// and the moment of doubling it).
const DISTINCT_HELD: usize = 1 << 12;

/// The records that state a policy, and the hashes of the distinct policy texts (one hash per
/// distinct text, not the texts).
#[derive(Default)]
pub(super) struct Policy {
    /// The records that state a policy, as the warnings name them (`who`, 4 bytes a record).
    records: Vec<u32>,
    /// The distinct hashes, up to [`DISTINCT_HELD`] ...
    texts: HashSet<u64>,
    /// ... and the hash of each record past them whose policy is not among them.
    more: Vec<u64>,
}

impl ValueCheck for Policy {
    const CODES: &'static [Code] = &[POLICIES, POLICY_REPEATED];
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
            if self.texts.len() < DISTINCT_HELD || self.texts.contains(&hash) {
                self.texts.insert(hash);
            } else {
                self.more.push(hash);
            }
            self.records.push(record.who());
        }
    }

    fn warnings(&mut self, index: &mut Index, out: &mut Warnings) {
        let records = index.records();
        self.more.sort_unstable();
        self.more.dedup();
        let distinct = self.texts.len() + self.more.len();
        if distinct > 1 {
            let message = format!("{distinct} different conflict policies: a store states one");
            out.push_named(POLICIES, &message, "", self.records.iter().copied());
        } else if records > 1 && self.records.len() == records {
            let message =
                "the conflict policy is repeated on every record: state it once per store";
            let first = self.records.iter().take(1).copied();
            out.push_named(POLICY_REPEATED, message, "", first);
        }
    }
}
