//! The first pass, for what must be known of the whole store before the first line.

use crate::error::Result;
use crate::mapping::FieldMap;
use crate::record::{is_truthy, py_str, Record};
use crate::select::{self, Supersession, SupersessionBuilder};
use crate::store::{self, Input, KeySelection, Shape};
use crate::time;
use std::collections::HashSet;

/// What the first pass learns: who supersedes whom, the store's policy, and (inputs that read
/// once only) the records themselves with the map they read through.
#[derive(Default)]
pub(super) struct FirstPass {
    pub(super) supersession: Supersession,
    /// With a reader: the ids of the records not released to them.
    pub(super) hidden: HashSet<String>,
    /// The first truthy conflict_policy the reader may see.
    pub(super) policy: Option<String>,
    /// A policy exists, but only on records not released to the reader.
    pub(super) policy_withheld: bool,
    pub(super) buffered: Option<(Shape, FieldMap, Vec<Record>)>,
}

impl FirstPass {
    /// `keep_keys`: what the reader builds of each record (and what buffered records hold).
    /// `policy_for`: find the policy, for this reader (`Some(None)`: no reader, anyone).
    /// With a reader, the policy is taken only from a record whose release_to names them:
    /// absence is never permission, for the policy line too.
    pub(super) fn read(
        input: &Input,
        keep_keys: &KeySelection,
        maps: &store::Maps,
        policy_for: Option<Option<&str>>,
        known_at: Option<&time::Timestamp>,
        hide_from: Option<&str>,
    ) -> Result<Self> {
        let mut hidden = HashSet::new();
        let mut builder: Option<SupersessionBuilder> = None;
        let mut policy = None;
        let mut policy_withheld = false;
        let mut records = Vec::new();
        let mut last_map = maps.given().clone();
        let keep = read_once(input);
        let (shape, _) = store::read_mapped(input, keep_keys, maps, &mut |map, record| {
            if let Some(party) = hide_from {
                if !select::releases_to(map.get("release_to", &record.fields).as_deref(), party) {
                    hidden.extend(select::record_id(map, &record));
                }
            }
            // a record the store did not know yet at --known-at supersedes nothing
            if known_at.is_none_or(|t| select::known_at(map, &record, t)) {
                builder
                    .get_or_insert_with(|| SupersessionBuilder::new(map))
                    .observe(&record);
            }
            if let (Some(reader), None) = (policy_for, &policy) {
                if let Some(text) = map
                    .get("conflict_policy", &record.fields)
                    .filter(|v| is_truthy(v))
                    .map(|v| py_str(&v))
                {
                    let released = reader.is_none_or(|party| {
                        select::releases_to(map.get("release_to", &record.fields).as_deref(), party)
                    });
                    if released {
                        policy = Some(text);
                    } else {
                        policy_withheld = true;
                    }
                }
            }
            if keep {
                if records.is_empty() {
                    last_map = map.clone();
                }
                records.push(record);
            }
            Ok(())
        })?;
        Ok(FirstPass {
            supersession: builder.map(SupersessionBuilder::finish).unwrap_or_default(),
            policy,
            policy_withheld,
            hidden,
            buffered: keep.then_some((shape, last_map, records)),
        })
    }
}

/// An input that cannot be read a second time (stdin, a pipe, a process substitution): its
/// records are kept from the first pass instead.
fn read_once(input: &Input) -> bool {
    match &input.path {
        None => true,
        Some(path) => std::fs::metadata(path).map_or(true, |m| !m.is_file()),
    }
}
