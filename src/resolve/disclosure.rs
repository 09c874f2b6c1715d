//! Step 5, disclosure (contract §3.5, applied last): whether the caller may read a record.
//!
//! The caller reads a record whose `release_to` names the caller or one of its audiences
//! (host configuration), exactly. A record with a restriction marker (`release_to`,
//! `classification`, `confidential`, `restricted`, non-empty) but no `release_to` is released
//! to nobody (`restricted_without_release`). A record without any marker is read by the
//! host's `unrestricted` setting: `withheld` (the default, the profile's "absence is never
//! permission": `not_released`) or `public` (the contract's reading: anyone may read it).

use super::host::{Host, Unrestricted};
use crate::mapping::FieldMap;
use crate::profile::Profile;
use crate::record::{is_filled, Record};
use crate::select::releases_to;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Readable,
    NotReleased,
    RestrictedWithoutRelease,
}

impl Access {
    pub fn readable(self) -> bool {
        self == Access::Readable
    }
}

/// May `readers` (the caller and its audiences) read `record`?
pub fn access(map: &FieldMap, record: &Record, host: &Host, readers: &[&str]) -> Access {
    let release_to = map.get("release_to", &record.fields);
    let released = release_to.as_deref().filter(|v| is_filled(v));
    if let Some(list) = released {
        return match readers.iter().any(|p| releases_to(Some(list), p)) {
            true => Access::Readable,
            false => Access::NotReleased,
        };
    }
    let marked = Profile::embedded()
        .checker
        .restriction_markers
        .iter()
        .any(|m| map.get(m, &record.fields).is_some_and(|v| is_filled(&v)));
    match (marked, host.unrestricted) {
        (true, _) => Access::RestrictedWithoutRelease,
        (false, Unrestricted::Withheld) => Access::NotReleased,
        (false, Unrestricted::Public) => Access::Readable,
    }
}
