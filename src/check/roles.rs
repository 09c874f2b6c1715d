//! The roles the checks read, numbered once: the reference's rules and the value checks ask
//! for them by number ([`named`]), and the reader hands each record over as a
//! [`RecordView`](crate::store::RecordView) that reads them (`store/view.rs`).

use crate::store::{Role, RoleSet};
use std::sync::OnceLock;

/// Every role the checks read: the reference's fields and markers, and the value checks'.
pub fn role_set() -> &'static RoleSet {
    static ROLES: OnceLock<RoleSet> = OnceLock::new();
    ROLES.get_or_init(|| {
        let mut roles = super::rules::ReferenceRules::role_names();
        roles.extend(VALUE_ROLES);
        RoleSet::new(roles)
    })
}

/// The checks' role of this name.
pub fn named(name: &'static str) -> Role {
    role_set().role(name)
}

/// The roles the value checks and their index read (besides the literal capture-time keys).
const VALUE_ROLES: [&str; 10] = [
    "record_id",
    "valid_from",
    "valid_to",
    "supersedes",
    "concept",
    "concept_owner",
    "conflict_policy",
    "release_to",
    "expected_concepts",
    "value",
];

/// The roles of [`VALUE_ROLES`], numbered once.
pub struct ValueRoles {
    pub record_id: Role,
    pub valid_from: Role,
    pub valid_to: Role,
    pub supersedes: Role,
    pub concept: Role,
    pub concept_owner: Role,
    pub conflict_policy: Role,
    pub release_to: Role,
    pub expected_concepts: Role,
    pub value: Role,
}

/// The value checks' roles.
pub fn values() -> &'static ValueRoles {
    static ROLE_KEYS: OnceLock<ValueRoles> = OnceLock::new();
    ROLE_KEYS.get_or_init(|| {
        let [record_id, valid_from, valid_to, supersedes, concept, concept_owner, conflict_policy, release_to, expected_concepts, value] =
            VALUE_ROLES.map(named);
        ValueRoles {
            record_id,
            valid_from,
            valid_to,
            supersedes,
            concept,
            concept_owner,
            conflict_policy,
            release_to,
            expected_concepts,
            value,
        }
    })
}
