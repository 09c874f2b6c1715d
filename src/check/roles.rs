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
        roles.extend(super::values::ROLES);
        RoleSet::new(roles)
    })
}

/// The checks' role of this name.
pub fn named(name: &'static str) -> Role {
    role_set().role(name)
}
